//! The moving forests (Paper IV, Figs. 9-10; R9): the 8 hot spots move every 10 ms down to
//! 1 ms, for 20 % and 60 % victims and for B nodes only, IB CC off and on.

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;
use tailback_plot::{Point, Series, YScale};

use super::{RATE, change, factor, forest_job, rate_floor, with_cc};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::{Context, Error, Job, Result};

/// The moving forests' mixes: (id, words, `[traffic.forest]` settings).
const MIXES: [(&str, &str, &[&str]); 5] = [
    (
        "v20",
        "20 % V / 80 % C",
        &["traffic.forest.contributors=0.8"],
    ),
    (
        "v60",
        "60 % V / 40 % C",
        &["traffic.forest.contributors=0.4"],
    ),
    (
        "b-p30",
        "100 % B, p = 30",
        &["traffic.forest.b_nodes=1", "traffic.forest.b_share=0.3"],
    ),
    (
        "b-p60",
        "100 % B, p = 60",
        &["traffic.forest.b_nodes=1", "traffic.forest.b_share=0.6"],
    ),
    (
        "b-p90",
        "100 % B, p = 90",
        &["traffic.forest.b_nodes=1", "traffic.forest.b_share=0.9"],
    ),
];

/// The id of a moving run.
fn moving_id(mix: &str, lifetime_us: u32, cc: bool) -> String {
    format!(
        "{mix}-life{lifetime_us}-cc-{}",
        if cc { "on" } else { "off" }
    )
}

/// Every mix at every hot-spot lifetime of the grid, CC off and on.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let lifetimes: Vec<u32> = grid.param("lifetimes_us")?;
    let mut jobs = Vec::new();
    for (mix, _, settings) in MIXES {
        for &life in &lifetimes {
            let mut forest: Vec<&str> = settings.to_vec();
            let lifetime = format!("traffic.forest.hotspot_lifetime_us={life}");
            forest.push(&lifetime);
            let off: Vec<String> = forest.iter().map(|s| s.to_string()).collect();
            jobs.push(forest_job(grid, &moving_id(mix, life, false), &off)?);
            jobs.push(forest_job(
                grid,
                &moving_id(mix, life, true),
                &with_cc(&forest),
            )?);
        }
    }
    Ok(jobs)
}

/// Paper IV's moving forests: silent trees (Fig. 9) and windy ones (Fig. 10).
const FIG_9A: Source = Source::new(Paper::GranIV, "Sec. V-C, Fig. 9(a)");
const FIG_9B: Source = Source::new(Paper::GranIV, "Sec. V-C, Fig. 9(b)");
const FIG_10: Source = Source::new(Paper::GranIV, "Sec. V-C, Fig. 10");

/// The B-node mixes (Fig. 10).
const B_MIXES: [&str; 3] = ["b-p30", "b-p60", "b-p90"];

/// The source of a mix's trends.
fn figure(mix: &str) -> Source {
    match mix {
        "v20" => FIG_9A,
        "v60" => FIG_9B,
        _ => FIG_10,
    }
}

/// What Paper IV states of the moving forests.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let floor = rate_floor(grid)?;
    let mut claims = Claims::default();
    claims
        .claim(
            Claim::new(
                "moving-v20-10ms-off",
                "v20, hot spots living 10 ms, CC off: all nodes' receive rate",
                FIG_9A,
                Rule::near(0.467, RATE),
            )
            .shown(3, " Gbit/s"),
        )
        .claim(
            Claim::new(
                "moving-v20-10ms-on",
                "v20, hot spots living 10 ms, CC on: all nodes' receive rate",
                FIG_9A,
                Rule::near(0.723, RATE),
            )
            .shown(3, " Gbit/s"),
        );
    for (id, mix, life, rule, source) in [
        ("moving-v20-10ms", "v20", 10, change(55.0), FIG_9A),
        ("moving-v20-2ms", "v20", 2, change(10.0), FIG_9A),
        ("moving-v60-10ms", "v60", 10, factor(2.6, floor), FIG_9B),
        ("moving-v60-1ms", "v60", 1, change(10.0), FIG_9B),
    ] {
        let ratio = matches!(rule, Rule::Ratio { .. });
        let what = format!(
            "{mix}, hot spots living {life} ms: all nodes' receive rate with CC over without{}",
            if ratio { "" } else { ", change" }
        );
        let claim = Claim::new(id, what, source, rule);
        claims.claim(if ratio {
            claim.shown(3, " Gbit/s").stated("2.6x")
        } else {
            claim.shown(1, " %")
        });
    }
    for (mix, words, _) in MIXES {
        claims.claim(
            Claim::new(
                format!("moving-falls-{mix}"),
                format!("{words}: gain with CC, longest lifetime above shortest"),
                figure(mix),
                Rule::Order {
                    higher: "the longest",
                    lower: "the shortest",
                },
            )
            .shown(2, "x")
            .stated("the gain falls as the hot spots move faster"),
        );
        claims.claim(
            Claim::new(
                format!("moving-rises-{mix}"),
                format!("{words}, CC off: receive rate, shortest lifetime above longest"),
                figure(mix),
                Rule::Order {
                    higher: "the shortest",
                    lower: "the longest",
                },
            )
            .shown(3, " Gbit/s")
            .stated("\"the receive rate increases in general\" as lifetimes shorten"),
        );
    }
    for (mix, words, _) in MIXES.iter().filter(|m| B_MIXES.contains(&m.0)) {
        claims.claim(
            Claim::new(
                format!("moving-improves-{mix}"),
                format!("{words}, shortest lifetime: all nodes' receive rate, CC on above off"),
                FIG_10,
                Rule::Order {
                    higher: "CC on",
                    lower: "CC off",
                },
            )
            .shown(3, " Gbit/s")
            .stated("\"an improvement in performance in all cases\""),
        );
    }
    claims
        .not_compared(
            FIG_9A,
            "v20, hot spots living 1 ms: gain with CC",
            "\"the performance increase is en...\" (the sentence breaks off)",
            "the thesis's text of the sentence is garbled; no value can be read",
        )
        .not_compared(
            FIG_10,
            "B nodes only, p = 30, 60, 90: the receive rates",
            "plotted only",
            "digitised only; the trends the text states are compared (one seed: shown)",
        );
    Ok(claims)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let lifetimes: Vec<u32> = grid.param("lifetimes_us")?;
    // The all-node mean receive rate, Gbit/s.
    let all = |id: &str| -> Result<f64> {
        let summary = &reports
            .get(id)
            .ok_or_else(|| Error::Input(format!("the run `{id}` is missing")))?
            .summary;
        let units = summary
            .units
            .ok_or_else(|| Error::Input("a forest run without units".into()))?;
        Ok(summary.accepted * units.link_gbps)
    };
    let mut table = String::from("mix,lifetime_us,cc_off_gbps,cc_on_gbps,gain\n");
    let mut gains: BTreeMap<&str, Vec<(u32, f64, f64)>> = BTreeMap::new();
    for (mix, _, _) in MIXES {
        for &life in &lifetimes {
            let (off, on) = (
                all(&moving_id(mix, life, false))?,
                all(&moving_id(mix, life, true))?,
            );
            table.push_str(&format!("{mix},{life},{off:.4},{on:.4},{:.4}\n", on / off));
            gains.entry(mix).or_default().push((life, off, on));
        }
    }
    let csv = ctx.out().join("moving.csv");
    std::fs::write(&csv, table).map_err(anyhow::Error::from)?;
    let mut files = vec![csv];
    let series: Vec<Series> = MIXES
        .iter()
        .map(|&(mix, words, _)| Series {
            label: words.into(),
            points: gains[mix]
                .iter()
                .map(|&(life, off, on)| Point {
                    x: f64::from(life) / 1000.0,
                    y: on / off,
                    marked: false,
                    error: None,
                })
                .collect(),
            saturation: None,
        })
        .collect();
    files.extend(tailback_plot::lines(
        &ctx.out().join("moving-gain"),
        "Moving forests: all nodes' receive rate with CC over without",
        "hot-spot lifetime (ms)",
        "improvement factor",
        &series,
        YScale::Linear,
    )?);
    let mut found = Findings::with_files(files);
    let at = |mix: &str, life: u32| gains[mix].iter().find(|g| g.0 == life).copied();
    if let Some((_, off, on)) = at("v20", 10_000) {
        found
            .set("moving-v20-10ms-off", Ours::Value(off))
            .set("moving-v20-10ms-on", Ours::Value(on));
    }
    for (id, mix, life) in [
        ("moving-v20-10ms", "v20", 10_000),
        ("moving-v20-2ms", "v20", 2_000),
        ("moving-v60-1ms", "v60", 1_000),
    ] {
        if let Some((_, off, on)) = at(mix, life) {
            found.set(id, Ours::Value(100.0 * (on / off - 1.0)));
        }
    }
    if let Some((_, off, on)) = at("v60", 10_000) {
        found.set("moving-v60-10ms", Ours::Ratio { num: on, den: off });
    }
    if let (Some(&longest), Some(&shortest)) = (lifetimes.iter().max(), lifetimes.iter().min()) {
        for (mix, _, _) in MIXES {
            if let (Some(l), Some(s)) = (at(mix, longest), at(mix, shortest)) {
                found
                    .set(
                        format!("moving-falls-{mix}"),
                        Ours::Paired(vec![(l.2 / l.1, s.2 / s.1)]),
                    )
                    .set(
                        format!("moving-rises-{mix}"),
                        Ours::Paired(vec![(s.1, l.1)]),
                    );
            }
        }
        for mix in B_MIXES {
            if let Some((_, off, on)) = at(mix, shortest) {
                found.set(
                    format!("moving-improves-{mix}"),
                    Ours::Paired(vec![(on, off)]),
                );
            }
        }
    }
    let worst = gains
        .values()
        .flatten()
        .map(|&(_, off, on)| on / off)
        .fold(f64::INFINITY, f64::min);
    found.info(
        "the least gain with CC over every mix and lifetime",
        "\"The only adverse effect ... a negligible decrease\" for contributors",
        format!("{worst:.2}x"),
    );
    Ok(found)
}
