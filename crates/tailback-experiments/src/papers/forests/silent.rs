//! The silent forest (Paper IV, Table II; R6): 80 % contributors to 8 hot spots and 20 %
//! victims, IB CC off and on, beside the victims alone, and CC under other readings of what the
//! paper leaves open (the CCT's top, the detection mode).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::{Classes, RATE, change, factor, forest_job, rate_floor, readings, settled, with_cc};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::{Context, Error, Job, Result};

/// The victims alone and the silent forest, CC off and on, and CC on under each reading.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let alone = "traffic.forest.hot_traffic=false";
    let mut jobs = vec![
        forest_job(grid, "victims-cc-off", &[alone.into()])?,
        forest_job(grid, "victims-cc-on", &with_cc(&[alone]))?,
        forest_job(grid, "forest-cc-off", &[])?,
        forest_job(grid, "forest-cc-on", &with_cc(&[]))?,
    ];
    for reading in readings(grid)? {
        jobs.push(forest_job(
            grid,
            &format!("forest-cc-on-{}", reading.id),
            &with_cc(&[&reading.setting]),
        )?);
    }
    Ok(jobs)
}

/// Paper IV's silent forest: Table II and the text around it.
const TABLE_II: Source = Source::new(Paper::GranIV, "Sec. V-A, Table II");

/// Per-node rates set by the offered load (the victims alone, 0.2 of 13.5 Gbit/s) or by a
/// sink's capacity (the hot spots without CC, 13.6): tight.
const OFFERED: f64 = 0.03;
const SATURATED: f64 = 0.02;

/// Gbit/s per node, three decimals as Table II.
fn gbit(claim: Claim) -> Claim {
    claim.shown(3, " Gbit/s")
}

/// What Paper IV states of the silent forest and the victims alone.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let floor = rate_floor(grid)?;
    let mut claims = Claims::default();
    claims
        .claim(gbit(Claim::new(
            "silent-victims-off",
            "victims alone, CC off: receive rate per node",
            TABLE_II,
            Rule::near(2.699, OFFERED),
        )))
        .claim(gbit(Claim::new(
            "silent-victims-on",
            "victims alone, CC on: receive rate per node",
            TABLE_II,
            Rule::near(2.701, OFFERED),
        )))
        .claim(
            // The paper calls CC's 3 % cost under uniform traffic a "small penalty" (Sec.
            // V-B3), so "no harm" is under half of it.
            Claim::new(
                "silent-victims-harm",
                "victims alone: CC on over off, change",
                TABLE_II,
                Rule::Zero {
                    within: 1.5,
                    failing: 3.0,
                },
            )
            .shown(2, " %")
            .stated("none: \"Enabling CC causes no harm\" (2.699 -> 2.701)"),
        )
        .claim(gbit(Claim::new(
            "silent-hot-off",
            "forest, CC off: hot spots' receive rate",
            TABLE_II,
            Rule::near(13.602, SATURATED),
        )))
        .claim(gbit(Claim::new(
            "silent-others-off",
            "forest, CC off: the other nodes' receive rate",
            TABLE_II,
            Rule::near(0.168, RATE),
        )))
        .claim(gbit(Claim::new(
            "silent-hot-on",
            "forest, CC on: hot spots' receive rate",
            TABLE_II,
            Rule::near(13.279, 0.05),
        )))
        .claim(
            Claim::new(
                "silent-hot-loss",
                "hot spots' loss with CC",
                TABLE_II,
                change(2.5),
            )
            .shown(2, " %")
            .stated("2.5 % (\"a small drop ..., down 2.5%\")"),
        )
        .claim(gbit(Claim::new(
            "silent-others-on",
            "forest, CC on: the other nodes' receive rate",
            TABLE_II,
            Rule::near(2.246, RATE),
        )))
        .claim(
            Claim::new(
                "silent-others-gain",
                "the other nodes' receive rate with CC over without",
                TABLE_II,
                Rule::AtLeast {
                    value: 13.0,
                    bound: 13.0,
                },
            )
            .shown(1, "x")
            .stated("more than 13x (\"by more than 1200%\"; 13.4x in Table II)"),
        )
        .claim(
            Claim::new(
                "silent-others-below",
                "forest, CC on: the other nodes below the victims alone (CC off)",
                TABLE_II,
                change(17.0),
            )
            .shown(1, " %")
            .stated("17 % (\"only 17% below the receive rate they achieved before\")"),
        )
        .claim(
            Claim::new(
                "silent-total-off",
                "forest, CC off: total network throughput",
                TABLE_II,
                Rule::near(216.073, RATE),
            )
            .shown(1, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "silent-total-on",
                "forest, CC on: total network throughput",
                TABLE_II,
                Rule::near(1543.793, RATE),
            )
            .shown(1, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "silent-gain",
                "improvement factor of the total with CC",
                TABLE_II,
                factor(1543.793 / 216.073, 648.0 * floor),
            )
            .shown(2, "x")
            .shown(1, " Gbit/s")
            .stated("7.14x (Table II; \"more than 610%\")"),
        )
        .not_compared(
            TABLE_II,
            "victims alone: the soon-to-be hot spots and the others receive alike",
            "the same amount of traffic",
            "Table II gives one rate for all nodes; compared as that (`silent-victims-*`)",
        );
    Ok(claims)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let classes: BTreeMap<&str, Classes> = reports
        .iter()
        .map(|(id, r)| Ok((id.as_str(), Classes::of(r)?)))
        .collect::<Result<_>>()?;
    let get = |id: &str| {
        classes
            .get(id)
            .ok_or_else(|| Error::Input(format!("the run `{id}` is missing")))
    };
    let (v_off, v_on) = (get("victims-cc-off")?, get("victims-cc-on")?);
    let (off, on) = (get("forest-cc-off")?, get("forest-cc-on")?);
    let mut found = Findings::default();
    let percent = |x: f64| Ours::Value(100.0 * x);
    found
        .set("silent-victims-off", Ours::Value(v_off.all))
        .set("silent-victims-on", Ours::Value(v_on.all))
        .set("silent-victims-harm", percent(v_on.all / v_off.all - 1.0))
        .set("silent-hot-off", Ours::Value(off.hot))
        .set("silent-others-off", Ours::Value(off.others))
        .set("silent-hot-on", Ours::Value(on.hot))
        .set("silent-hot-loss", percent(1.0 - on.hot / off.hot))
        .set("silent-others-on", Ours::Value(on.others))
        .set("silent-others-gain", Ours::Value(on.others / off.others))
        .set("silent-others-below", percent(1.0 - on.others / v_off.all))
        .set("silent-total-off", Ours::Value(off.total))
        .set("silent-total-on", Ours::Value(on.total))
        .set(
            "silent-gain",
            Ours::Ratio {
                num: on.total,
                den: off.total,
            },
        );
    let unsettled: Vec<String> = classes
        .iter()
        .filter(|(_, c)| !c.stationary)
        .map(|(id, _)| id.to_string())
        .collect();
    settled(&mut found, &unsettled);
    for reading in readings(grid)? {
        let c = get(&format!("forest-cc-on-{}", reading.id))?;
        found.info(
            format!("CC on, {}: hot spots / others", reading.words),
            "(sensitivity; Paper IV does not say)",
            format!("{:.3} / {:.3} Gbit/s", c.hot, c.others),
        );
    }
    let csv = ctx.out().join("silent.csv");
    let mut table = String::from("run,hot_gbps,others_gbps,all_gbps,total_gbps,stationary\n");
    for (id, c) in &classes {
        table.push_str(&format!(
            "{id},{:.4},{:.4},{:.4},{:.2},{}\n",
            c.hot, c.others, c.all, c.total, c.stationary
        ));
    }
    std::fs::write(&csv, table).map_err(anyhow::Error::from)?;
    found.files.push(csv);
    Ok(found)
}
