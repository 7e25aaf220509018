//! The moving forests (Paper IV, Figs. 9-10; R9): the 8 hot spots move every 10 ms down to
//! 1 ms, for 20 % and 60 % victims and for B nodes only, IB CC off and on.

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;
use tailback_plot::{Point, Series, YScale};

use super::{forest_job, with_cc};
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Findings, Job, Result};

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
    let gain = |mix: &str, life: u32| {
        gains[mix]
            .iter()
            .find(|g| g.0 == life)
            .map(|&(_, off, on)| on / off)
    };
    let mut comparisons = Vec::new();
    for (mix, life, paper, low, high, id) in [
        (
            "v20",
            10_000,
            "1.55x (723 against 467 Mbit/s)",
            1.35,
            1.75,
            "moving-v20-10ms",
        ),
        ("v20", 2_000, "1.10x", 0.95, 1.25, "moving-v20-2ms"),
        ("v60", 10_000, "2.6x", 2.0, 3.2, "moving-v60-10ms"),
        ("v60", 1_000, "1.10x", 0.95, 1.25, "moving-v60-1ms"),
    ] {
        if let Some(g) = gain(mix, life) {
            comparisons.push(
                Comparison::judged(
                    format!(
                        "{mix}, hot spots living {} ms: gain with CC",
                        f64::from(life) / 1000.0
                    ),
                    paper,
                    format!("{g:.2}x"),
                    (low..=high).contains(&g),
                    format!("between {low:.2}x and {high:.2}x"),
                )
                .identified(id, None, Some(g)),
            );
        }
    }
    let worst = gains
        .values()
        .flatten()
        .map(|&(_, off, on)| on / off)
        .fold(f64::INFINITY, f64::min);
    comparisons.push(
        Comparison::judged(
            "the least gain with CC over every mix and lifetime",
            "CC never clearly worse (at least 0.95x)",
            format!("{worst:.2}x"),
            worst >= 0.95,
            "least gain >= 0.95x",
        )
        .identified("moving-least-gain", Some(0.95), Some(worst)),
    );
    let falling = MIXES.iter().all(|&(mix, _, _)| {
        let (longest, shortest) = (lifetimes.iter().max(), lifetimes.iter().min());
        match (longest, shortest) {
            (Some(&l), Some(&s)) => gain(mix, l) >= gain(mix, s),
            _ => true,
        }
    });
    comparisons.push(
        Comparison::judged(
            "every mix gains more with the longest lifetime than with the shortest",
            "yes (the gain falls as hot spots move faster)",
            if falling { "yes" } else { "no" },
            falling,
            "for every mix, gain at the longest lifetime >= gain at the shortest",
        )
        .identified("moving-falls", None, None),
    );
    Ok(Findings::legacy(comparisons, files))
}
