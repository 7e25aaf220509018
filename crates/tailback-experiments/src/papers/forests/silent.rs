//! The silent forest (Paper IV, Table II; R6): 80 % contributors to 8 hot spots and 20 %
//! victims, IB CC off and on, beside the victims alone, and CC under other readings of what the
//! paper leaves open (the CCT's top, the detection mode).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::{Classes, forest_job, readings, settled, with_cc};
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Findings, Job, Result};

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
    let gbit = (3, " Gbit/s");
    let (v_off, v_on) = (get("victims-cc-off")?, get("victims-cc-on")?);
    let (off, on) = (get("forest-cc-off")?, get("forest-cc-on")?);
    let mut comparisons = vec![
        Comparison::numbers(
            "silent-victims-off",
            "victims alone, CC off: receive rate per node",
            2.699,
            v_off.all,
            0.03,
            gbit,
        ),
        Comparison::numbers(
            "silent-victims-on",
            "victims alone, CC on: receive rate per node",
            2.701,
            v_on.all,
            0.03,
            gbit,
        ),
        Comparison::numbers(
            "silent-hot-off",
            "forest, CC off: hot spots' receive rate",
            13.602,
            off.hot,
            0.02,
            gbit,
        ),
        Comparison::numbers(
            "silent-hot-on",
            "forest, CC on: hot spots' receive rate",
            13.279,
            on.hot,
            0.05,
            gbit,
        ),
        Comparison::judged(
            "forest, CC off: the other nodes' receive rate",
            "0.168 Gbit/s (at most 0.4)",
            format!("{:.3} Gbit/s", off.others),
            off.others <= 0.4,
            "<= 0.4 Gbit/s",
        )
        .identified("silent-others-off", Some(0.168), Some(off.others)),
        Comparison::judged(
            "forest, CC on: the other nodes' receive rate",
            "2.246 Gbit/s (within a factor 1.5)",
            format!("{:.3} Gbit/s", on.others),
            on.others / 2.246 <= 1.5 && 2.246 / on.others <= 1.5,
            "within a factor 1.5 of the paper's (1.497 to 3.369 Gbit/s)",
        )
        .identified("silent-others-on", Some(2.246), Some(on.others)),
        Comparison::numbers(
            "silent-total-off",
            "forest, CC off: total network throughput",
            216.073,
            off.total,
            0.25,
            (1, " Gbit/s"),
        ),
        Comparison::numbers(
            "silent-total-on",
            "forest, CC on: total network throughput",
            1543.793,
            on.total,
            0.25,
            (1, " Gbit/s"),
        ),
        Comparison::numbers(
            "silent-gain",
            "improvement factor of the total with CC",
            1543.793 / 216.073,
            on.total / off.total,
            0.25,
            (2, "x"),
        ),
        Comparison::judged(
            "hot spots' loss with CC",
            "2.5 % (at most 5 %)",
            format!("{:.1} %", 100.0 * (1.0 - on.hot / off.hot)),
            on.hot >= 0.95 * off.hot,
            "hot spots' rate with CC >= 95 % of without (loss <= 5 %)",
        )
        .identified("silent-hot-loss", Some(0.025), Some(1.0 - on.hot / off.hot)),
    ];
    let unsettled: Vec<String> = classes
        .iter()
        .filter(|(_, c)| !c.stationary)
        .map(|(id, _)| id.to_string())
        .collect();
    comparisons.push(settled("silent-stationary", &unsettled));
    for reading in readings(grid)? {
        let c = get(&format!("forest-cc-on-{}", reading.id))?;
        comparisons.push(
            Comparison::info(
                format!("CC on, {}: hot spots / others", reading.words),
                "(sensitivity; Paper IV does not say)",
                format!("{:.3} / {:.3} Gbit/s", c.hot, c.others),
            )
            .identified(&format!("silent-{}", reading.id), None, Some(c.others)),
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
    Ok(Findings::legacy(comparisons, vec![csv]))
}
