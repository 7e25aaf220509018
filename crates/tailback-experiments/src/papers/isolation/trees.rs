//! Paper V's Config #3, Case #4 (Fig. 8; R10): on the 4-ary 3-tree, 48 nodes send uniform
//! traffic at 100 % of their links all along and the other 16 send to 1, 4 or 6 hot spots
//! during a hot window (1 ms in the paper). Which nodes are hot is not given [A]: the hot
//! sources are the last node of each first-level switch (nodes 3, 7, ..., 63), split round
//! robin over the hot spots, which are spread evenly over the other nodes (for t trees, nodes
//! 4 * floor(16 j / t)).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::super::infiniband_cc::{report, sd};
use super::{SCHEMES, mean, plot_throughput};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Comparison, Context, Findings, Job, Result};

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

    /// The swing over the seeds.
    fn swing(&self) -> Spread {
        Spread::of(&self.swing)
    }
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let window: f64 = grid.param("window_us")?;
    let from = (grid.param::<f64>("hot_start_us")? / window).round() as usize;
    let until = (grid.param::<f64>("judge_until_us")? / window).round() as usize;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut comparisons = Vec::new();
    let mut files = Vec::new();
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
        comparisons.extend(judge(trees, &curves));
        files.extend(plot_throughput(
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
        comparisons.push(
            Comparison::info(
                format!("{trees} trees, FBICM / CCFIT with `{setting}`"),
                "(sensitivity; Paper V does not say)",
                format!(
                    "{} / {} {}",
                    values[0].value(3),
                    values[1].value(3),
                    values[1].note()
                ),
            )
            .identified(&format!("fig8-{reading}"), None, Some(values[1].mean))
            .over_seeds(&values[1]),
        );
    }
    for (name, text) in [("trees.csv", table), ("trees-series.csv", series_csv)] {
        let path = ctx.out().join(name);
        std::fs::write(&path, text).map_err(anyhow::Error::from)?;
        files.push(path);
    }
    Ok(Findings::legacy(comparisons, files))
}

/// Paper V's orderings for `trees` trees, by mean normalised throughput over the judged
/// interval (means over the seeds, printed with their spread).
fn judge(trees: u32, curves: &BTreeMap<&str, Curve>) -> Vec<Comparison> {
    let spread = |id: &str| curves[id].judged();
    let at = |id: &str| spread(id).mean;
    let (q1, ith, fbicm, ccfit, voqnet) =
        (at("1q"), at("ith"), at("fbicm"), at("ccfit"), at("voqnet"));
    let note = spread("ccfit").note();
    let listed = format!(
        "VOQnet {}, CCFIT {}, FBICM {}, ITh {}, 1Q {} {note}",
        spread("voqnet").value(3),
        spread("ccfit").value(3),
        spread("fbicm").value(3),
        spread("ith").value(3),
        spread("1q").value(3)
    );
    let what = |claim: &str| format!("{trees} tree(s), mean normalised throughput: {claim}");
    let mut out = Vec::new();
    if trees == 1 {
        out.push(
            Comparison::judged(
                what("VOQnet >= CCFIT, FBICM > ITh > 1Q"),
                "VOQnet >= CCFIT ~ FBICM > ITh > 1Q",
                listed,
                voqnet >= ccfit && ccfit.min(fbicm) > ith && ith > q1,
                "VOQnet >= CCFIT; CCFIT > ITh and FBICM > ITh; ITh > 1Q",
            )
            .identified("fig8-t1-order", None, Some(ccfit))
            .over_seeds(&spread("ccfit")),
        );
        out.push(
            Comparison::judged(
                what("CCFIT ~ FBICM (two CFQs suffice for one tree; judged within 10 %)"),
                "CCFIT ~ FBICM",
                format!(
                    "CCFIT {}, FBICM {} {note}",
                    spread("ccfit").value(3),
                    spread("fbicm").value(3)
                ),
                (ccfit / fbicm - 1.0).abs() <= 0.10,
                "CCFIT within ±10 % of FBICM",
            )
            .identified("fig8-t1-ccfit-fbicm", None, Some(ccfit / fbicm)),
        );
    } else {
        out.push(
            Comparison::judged(
                what("VOQnet > CCFIT > FBICM, 1Q lowest"),
                "VOQnet > CCFIT > FBICM; 1Q lowest",
                listed,
                voqnet > ccfit && ccfit > fbicm && q1 < ith.min(fbicm).min(ccfit),
                "VOQnet > CCFIT > FBICM, and 1Q < ITh, FBICM and CCFIT",
            )
            .identified(&format!("fig8-t{trees}-order"), None, Some(ccfit))
            .over_seeds(&spread("ccfit")),
        );
        let (swing_ith, swing_ccfit) = (curves["ith"].swing(), curves["ccfit"].swing());
        out.push(
            Comparison::judged(
                format!(
                    "{trees} trees: ITh oscillates (its throughput swings more than CCFIT's; \
                     coefficient of variation over the judged windows)"
                ),
                "ITh saw-shaped",
                format!(
                    "ITh {}, CCFIT {} {note}",
                    swing_ith.value(3),
                    swing_ccfit.value(3)
                ),
                swing_ith.mean > swing_ccfit.mean,
                "ITh's coefficient of variation > CCFIT's (means over the seeds)",
            )
            .identified(
                &format!("fig8-t{trees}-ith-swing"),
                None,
                Some(swing_ith.mean),
            )
            .over_seeds(&swing_ith),
        );
    }
    out
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
