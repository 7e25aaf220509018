//! Paper V's Config #3, Case #4 (Fig. 8; R10): on the 4-ary 3-tree, 48 nodes send uniform
//! traffic at 100 % of their links all along and the other 16 send to 1, 4 or 6 hot spots
//! during a hot window (1 ms in the paper). Which nodes are hot is not given [A]: the hot
//! sources are the last node of each first-level switch (nodes 3, 7, ..., 63), split round
//! robin over the hot spots, which are spread evenly over the other nodes (for t trees, nodes
//! 4 * floor(16 j / t)).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::super::infiniband_cc::{report, sd};
use super::{SCHEMES, mean, order, paired, plot_throughput};
use crate::claim::{Claim, Claims, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Findings, Job, Result};

/// Nodes of the 4-ary 3-tree, and nodes per first-level switch.
const NODES: u32 = 64;
const PER_LEAF: u32 = 4;

/// The hot spots of `trees` trees.
fn hot_spots(trees: u32) -> Vec<u32> {
    let leaves = NODES / PER_LEAF;
    (0..trees)
        .map(|j| PER_LEAF * (leaves * j / trees))
        .collect()
}

/// The flows of Case #4 with `trees` trees, hot from `start_us` to `stop_us`.
fn flows(trees: u32, start_us: f64, stop_us: f64) -> String {
    let hot = hot_spots(trees);
    let hot_sources: Vec<u32> = (0..NODES / PER_LEAF)
        .map(|leaf| PER_LEAF * leaf + PER_LEAF - 1)
        .collect();
    let mut flows: Vec<String> = (0..NODES)
        .filter(|n| !hot_sources.contains(n))
        .map(|n| format!("{{ src = {n}, dst = \"uniform\" }}"))
        .collect();
    for (i, &src) in hot_sources.iter().enumerate() {
        flows.push(format!(
            "{{ src = {src}, dst = {}, start_us = {start_us}, stop_us = {stop_us} }}",
            hot[i % hot.len()]
        ));
    }
    format!("traffic.flows=[{}]", flows.join(", "))
}

/// The run of `scheme` with `trees` trees and `seed`.
fn id(trees: u32, scheme: &str, seed: u64) -> String {
    format!("t{trees}-{scheme}-s{seed}")
}

/// The schemes the readings are run for.
const READ_SCHEMES: [&str; 2] = ["fbicm", "ccfit"];

/// The run of `scheme` with `trees` trees and `seed` under reading `reading`.
fn reading_id(reading: &str, scheme: &str, seed: u64) -> String {
    format!("{reading}-{scheme}-s{seed}")
}

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let (start, stop): (f64, f64) = (grid.param("hot_start_us")?, grid.param("hot_stop_us")?);
    let end: f64 = grid.param("end_us")?;
    let window: f64 = grid.param("window_us")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let job = |id: String, trees: u32, seed: u64, extra: Vec<String>| {
        let mut settings = vec![
            flows(trees, start, stop),
            format!("sim.measure_us={end}"),
            format!("record.series_window_us={window}"),
            format!("seed={seed}"),
        ];
        settings.extend(extra);
        grid.job(id, &settings)
    };
    let mut jobs = Vec::new();
    for trees in grid.param::<Vec<u32>>("trees")? {
        for scheme in &SCHEMES {
            for &seed in &seeds {
                jobs.push(job(
                    id(trees, scheme.id, seed),
                    trees,
                    seed,
                    scheme.settings(),
                )?);
            }
        }
    }
    let trees: u32 = grid.param("sensitivity_trees")?;
    for (reading, setting) in grid.param::<Vec<(String, String)>>("readings")? {
        for scheme in SCHEMES.iter().filter(|s| READ_SCHEMES.contains(&s.id)) {
            for &seed in &seeds {
                let mut settings = scheme.settings();
                settings.push(setting.clone());
                jobs.push(job(
                    reading_id(&reading, scheme.id, seed),
                    trees,
                    seed,
                    settings,
                )?);
            }
        }
    }
    Ok(jobs)
}

/// Mean normalised throughput over the windows `from..until` of `report`'s time series.
fn judged(report: &RunReport, from: usize, until: usize) -> f64 {
    mean(judged_windows(&delivered(report), from, until))
}

/// A run's normalised throughput per window.
fn delivered(report: &RunReport) -> Vec<f64> {
    report.series.iter().map(|r| r.delivered).collect()
}

/// Windows `from..until` of `values` (those there are).
fn judged_windows(values: &[f64], from: usize, until: usize) -> &[f64] {
    &values[from.min(values.len())..until.min(values.len())]
}

/// One scheme's throughput with some number of trees, over its seeds.
struct Curve {
    /// Normalised throughput per window (delivered over capacity), mean over the seeds.
    windows: Vec<f64>,
    /// Mean normalised throughput over the judged interval, per seed.
    judged: Vec<f64>,
    /// Coefficient of variation of the window throughput over the judged interval, per seed:
    /// how much it swings.
    swing: Vec<f64>,
}

impl Curve {
    /// Mean normalised throughput over the judged interval, over the seeds.
    fn judged(&self) -> Spread {
        Spread::of(&self.judged)
    }
}

/// Where Paper V discusses `trees` trees.
fn fig_8(trees: u32) -> Source {
    Source::new(
        Paper::GranV,
        match trees {
            1 => "Sec. IV-B, Fig. 8a",
            4 => "Sec. IV-B, Fig. 8b",
            6 => "Sec. IV-B, Fig. 8c",
            _ => "Sec. IV-B, Fig. 8",
        },
    )
}

/// VOQnet as the upper bound (Paper V's set-up, and Fig. 8a's "maximum performance").
const UPPER_BOUND: Source = Source::new(Paper::GranV, "Sec. IV-A and IV-B, Fig. 8a");

/// What Paper V states of Case #4 for the grid's tree counts.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let counts: Vec<u32> = grid.param("trees")?;
    let mut claims = Claims::default();
    let throughput = (3, "");
    for &trees in &counts {
        let what = |claim: &str| format!("{trees} tree(s), mean normalised throughput: {claim}");
        let id = |name: &str| format!("fig8-t{trees}-{name}");
        claims.claim(order(
            id("voqnet-ccfit"),
            what("VOQnet against CCFIT (VOQnet the theoretical maximum)"),
            UPPER_BOUND,
            ("VOQnet", "CCFIT"),
            throughput,
        ));
        if trees == 1 {
            claims
                .claim(
                    Claim::new(
                        id("ccfit-fbicm"),
                        what("CCFIT against FBICM (at its level: two CFQs suffice)"),
                        fig_8(trees),
                        // "At the level of" read as "≈", ±10 %; 30 % apart contradicts it.
                        Rule::Zero {
                            within: 10.0,
                            failing: 30.0,
                        },
                    )
                    .shown(1, " %")
                    .stated("CCFIT at the level of FBICM"),
                )
                .claim(order(
                    id("fbicm-ith"),
                    what("the lower of CCFIT and FBICM against ITh (ITh does not cope well)"),
                    fig_8(trees),
                    ("the lower of CCFIT and FBICM", "ITh"),
                    throughput,
                ))
                .claim(order(
                    id("ith-1q"),
                    what("ITh against 1Q (1Q \"again\" the worst)"),
                    fig_8(4),
                    ("ITh", "1Q"),
                    throughput,
                ));
        } else {
            claims
                .claim(order(
                    id("ccfit-fbicm"),
                    what("CCFIT against FBICM (CCFIT clearly better)"),
                    fig_8(trees),
                    ("CCFIT", "FBICM"),
                    throughput,
                ))
                .claim(order(
                    id("1q-lowest"),
                    what("the lowest of ITh, FBICM and CCFIT against 1Q (1Q the worst)"),
                    fig_8(trees),
                    ("the lowest of ITh, FBICM and CCFIT", "1Q"),
                    throughput,
                ))
                .claim(order(
                    id("ith-swing"),
                    format!(
                        "{trees} trees: the coefficient of variation of the window throughput \
                         over the judged interval, ITh against CCFIT (ITh oscillates, saw-shaped, \
                         or needs time to adjust)"
                    ),
                    fig_8(trees),
                    ("ITh", "CCFIT"),
                    throughput,
                ));
        }
    }
    if counts.contains(&1) && counts.contains(&4) {
        claims.claim(order(
            "fig8-ith-better-with-4",
            "ITh's mean normalised throughput with 4 trees against 1 tree (ITh copes better)",
            fig_8(4),
            ("4 trees", "1 tree"),
            throughput,
        ));
    }
    claims.not_compared(
        fig_8(1),
        "CCFIT less sensitive to its parameters than ITh",
        "stated in words",
        "we vary the isolation's unstated settings (the readings, shown for information), not \
         the throttling's parameters",
    );
    Ok(claims)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let window: f64 = grid.param("window_us")?;
    let from = (grid.param::<f64>("hot_start_us")? / window).round() as usize;
    let until = (grid.param::<f64>("judge_until_us")? / window).round() as usize;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut found = Findings::default();
    let mut ith_judged = BTreeMap::new();
    let mut table = String::from("trees,scheme,seed,judged_throughput,swing\n");
    let mut series_csv = String::from("trees,scheme,time_us,throughput\n");
    for trees in grid.param::<Vec<u32>>("trees")? {
        let mut curves = BTreeMap::new();
        for scheme in &SCHEMES {
            let mut runs = Vec::new();
            for &seed in &seeds {
                let delivered = delivered(report(&reports, &id(trees, scheme.id, seed))?);
                let part = judged_windows(&delivered, from, until);
                let judged = mean(part);
                let swing = sd(part) / judged.max(1e-9);
                table.push_str(&format!(
                    "{trees},{},{seed},{judged:.4},{swing:.4}\n",
                    scheme.id
                ));
                runs.push((delivered, judged, swing));
            }
            let len = runs.iter().map(|r| r.0.len()).min().unwrap_or(0);
            let windows: Vec<f64> = (0..len)
                .map(|i| mean(&runs.iter().map(|r| r.0[i]).collect::<Vec<_>>()))
                .collect();
            for (i, w) in windows.iter().enumerate() {
                series_csv.push_str(&format!(
                    "{trees},{},{},{w:.4}\n",
                    scheme.id,
                    (i as f64 + 1.0) * window
                ));
            }
            let curve = Curve {
                windows,
                judged: runs.iter().map(|r| r.1).collect(),
                swing: runs.iter().map(|r| r.2).collect(),
            };
            curves.insert(scheme.id, curve);
        }
        measure(trees, &curves, &mut found);
        ith_judged.insert(trees, curves["ith"].judged.clone());
        found.files.extend(plot_throughput(
            ctx,
            &format!("fig8-t{trees}"),
            &format!("4-ary 3-tree, {trees} congestion tree(s): normalised throughput"),
            SCHEMES.iter().map(|s| (s.name, &curves[s.id].windows[..])),
            window,
        )?);
    }
    let trees: u32 = grid.param("sensitivity_trees")?;
    for (reading, setting) in grid.param::<Vec<(String, String)>>("readings")? {
        let mut values = Vec::new();
        for scheme in READ_SCHEMES {
            let runs = seeds
                .iter()
                .map(|&seed| {
                    let value = judged(
                        report(&reports, &reading_id(&reading, scheme, seed))?,
                        from,
                        until,
                    );
                    table.push_str(&format!("{trees},{scheme}-{reading},{seed},{value:.4},\n"));
                    Ok(value)
                })
                .collect::<Result<Vec<f64>>>()?;
            values.push(Spread::of(&runs));
        }
        found.info(
            format!("{trees} trees, FBICM / CCFIT with `{setting}`"),
            "(sensitivity; Paper V does not say)",
            format!(
                "{} / {} {}",
                values[0].value(3),
                values[1].value(3),
                values[1].note()
            ),
        );
    }
    if let (Some(one), Some(four)) = (ith_judged.get(&1), ith_judged.get(&4)) {
        found.set("fig8-ith-better-with-4", paired(four, one));
    }
    for (name, text) in [("trees.csv", table), ("trees-series.csv", series_csv)] {
        let path = ctx.write_text(name, &text)?;
        found.files.push(path);
    }
    Ok(found)
}

/// Our values for `trees` trees: per seed, the mean normalised throughput over the judged
/// interval and its coefficient of variation.
fn measure(trees: u32, curves: &BTreeMap<&str, Curve>, found: &mut Findings) {
    let judged = |id: &str| curves[id].judged.as_slice();
    let lowest = |ids: &[&str]| -> Vec<f64> {
        (0..judged("1q").len())
            .map(|seed| {
                ids.iter()
                    .map(|id| judged(id)[seed])
                    .fold(f64::INFINITY, f64::min)
            })
            .collect()
    };
    let id = |name: &str| format!("fig8-t{trees}-{name}");
    found.set(
        id("voqnet-ccfit"),
        paired(judged("voqnet"), judged("ccfit")),
    );
    if trees == 1 {
        let (ccfit, fbicm) = (curves["ccfit"].judged(), curves["fbicm"].judged());
        found
            .set(
                id("ccfit-fbicm"),
                Ours::Value(100.0 * (ccfit.mean / fbicm.mean - 1.0)),
            )
            .set(
                id("fbicm-ith"),
                paired(&lowest(&["ccfit", "fbicm"]), judged("ith")),
            )
            .set(id("ith-1q"), paired(judged("ith"), judged("1q")));
    } else {
        found
            .set(id("ccfit-fbicm"), paired(judged("ccfit"), judged("fbicm")))
            .set(
                id("1q-lowest"),
                paired(&lowest(&["ith", "fbicm", "ccfit"]), judged("1q")),
            )
            .set(
                id("ith-swing"),
                paired(&curves["ith"].swing, &curves["ccfit"].swing),
            );
    }
    found.info(
        format!("{trees} tree(s), mean normalised throughput over the judged interval"),
        "-",
        SCHEMES
            .iter()
            .map(|s| format!("{} {}", s.name, curves[s.id].judged().describe(3, "")))
            .collect::<Vec<_>>()
            .join(", "),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_spots_are_spread_over_the_first_level_switches_and_never_hot_sources() {
        assert_eq!(hot_spots(1), [0]);
        assert_eq!(hot_spots(4), [0, 16, 32, 48]);
        assert_eq!(hot_spots(6), [0, 8, 20, 32, 40, 52]);
        for trees in [1, 4, 6] {
            assert!(
                hot_spots(trees)
                    .iter()
                    .all(|h| h % PER_LEAF != PER_LEAF - 1)
            );
        }
    }
}
