//! The windy forests (Paper IV, Figs. 5-8; R7, R8): a fraction x of B nodes sending a share
//! p of their rate to their hot spots, the rest 80 % contributors and 20 % victims, IB CC off
//! and on, against p; and other readings of what the paper leaves open (the CCT's top, the
//! detection mode) at the points of the dip and the peak, for 25 % and 100 % B nodes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;
use tailback_plot::{Point, Series, YScale};

use super::{Classes, forest_job, readings, settled, with_cc};
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Findings, Job, Result};

/// The id of a windy run: B nodes `x` %, hot share `p` %, CC off or on.
fn windy_id(x: u32, p: u32, cc: bool) -> String {
    format!("x{x}-p{p}-cc-{}", if cc { "on" } else { "off" })
}

/// The settings of `x` % B nodes sending `p` % to their hot spots, then `extra`.
fn windy_settings(x: u32, p: u32, extra: Option<&str>) -> Vec<String> {
    [
        format!("traffic.forest.b_nodes={}", f64::from(x) / 100.0),
        format!("traffic.forest.b_share={}", f64::from(p) / 100.0),
    ]
    .into_iter()
    .chain(extra.map(str::to_string))
    .collect()
}

/// Every fraction of B nodes and hot share of the grid, CC off and on.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let xs: Vec<u32> = grid.param("b_percents")?;
    let ps: Vec<u32> = grid.param("share_percents")?;
    let mut jobs = Vec::new();
    for &x in &xs {
        for &p in &ps {
            let off = windy_settings(x, p, None);
            let refs: Vec<&str> = off.iter().map(String::as_str).collect();
            jobs.push(forest_job(grid, &windy_id(x, p, false), &off)?);
            jobs.push(forest_job(grid, &windy_id(x, p, true), &with_cc(&refs))?);
        }
    }
    // Readings of what Paper IV does not give (its CCT, its detection mode) at the points that
    // show the dip and the peak.
    for reading in readings(grid)? {
        for x in SENSITIVITY_FRACTIONS {
            for p in SENSITIVITY_SHARES {
                let settings = windy_settings(x, p, Some(&reading.setting));
                let refs: Vec<&str> = settings.iter().map(String::as_str).collect();
                let id = format!("{}-{}", windy_id(x, p, true), reading.id);
                jobs.push(forest_job(grid, &id, &with_cc(&refs))?);
            }
        }
    }
    Ok(jobs)
}

/// The B-node fractions (%) and hot shares (%) of the sensitivity runs.
const SENSITIVITY_FRACTIONS: [u32; 2] = [25, 100];
const SENSITIVITY_SHARES: [u32; 3] = [0, 10, 60];

/// Paper IV's tmax: the most the non-hot-spot nodes could receive per node if the hot spots
/// did not exist, Gbit/s, for B nodes `x` and hot share `p` (fractions): the uniform traffic
/// offered, x (1 − p) + 0.2 (1 − x) of 13.5 Gbit/s.
fn tmax(x: f64, p: f64) -> f64 {
    13.5 * (x * (1.0 - p) + 0.2 * (1.0 - x))
}

/// One windy point: CC off and on.
struct WindyPoint {
    x: u32,
    p: u32,
    off: Classes,
    on: Classes,
}

impl WindyPoint {
    /// The non-hot-spot nodes' gain with CC (`None` when they receive nothing either way).
    fn others_gain(&self) -> Option<f64> {
        (self.off.others > 0.0).then(|| self.on.others / self.off.others)
    }

    fn total_gain(&self) -> f64 {
        self.on.total / self.off.total
    }
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let xs: Vec<u32> = grid.param("b_percents")?;
    let ps: Vec<u32> = grid.param("share_percents")?;
    let classes = |id: &str| -> Result<Classes> {
        Classes::of(
            reports
                .get(id)
                .ok_or_else(|| Error::Input(format!("the run `{id}` is missing")))?,
        )
    };
    let mut points = Vec::new();
    for &x in &xs {
        for &p in &ps {
            points.push(WindyPoint {
                x,
                p,
                off: classes(&windy_id(x, p, false))?,
                on: classes(&windy_id(x, p, true))?,
            });
        }
    }
    let mut files = vec![windy_table(ctx, &points)?];
    for &x in &xs {
        files.extend(windy_plot(ctx, &points, x)?);
    }
    files.extend(gain_plot(ctx, &points, &xs)?);
    let at = |x: u32, p: u32| points.iter().find(|q| q.x == x && q.p == p);
    let mut comparisons = Vec::new();
    if let (Some(p0), Some(p10), Some(p60)) = (at(25, 0), at(25, 10), at(25, 60)) {
        comparisons.push(Comparison::numbers(
            "windy25-p0-on",
            "x = 25 %, p = 0, CC on: non-hot-spot receive rate",
            4.75,
            p0.on.others,
            0.2,
            (2, " Gbit/s"),
        ));
        let share = |q: &WindyPoint| q.on.others / tmax(0.25, f64::from(q.p) / 100.0);
        comparisons.push(
            Comparison::judged(
                "x = 25 %, CC on: share of tmax at p = 0, 10, 60 (a dip at 10: 10 % below both)",
                "0.88, 0.60, 0.80",
                format!("{:.2}, {:.2}, {:.2}", share(p0), share(p10), share(p60)),
                share(p10) < 0.9 * share(p0).min(share(p60)),
                "share at p = 10 < 90 % of the lesser of the shares at p = 0 and 60",
            )
            .identified("windy25-dip", Some(0.60), Some(share(p10))),
        );
    }
    if let Some(min) = points
        .iter()
        .filter(|q| q.x == 25)
        .filter_map(WindyPoint::others_gain)
        .reduce(f64::min)
    {
        comparisons.push(
            Comparison::judged(
                "x = 25 %: the least non-hot-spot gain over p",
                "at least 5x (8.6x at p = 0, 9.1x at 10, up to 16.3x)",
                format!("{min:.1}x"),
                min >= 5.0,
                "least gain >= 5x",
            )
            .identified("windy25-least-gain", Some(5.0), Some(min)),
        );
    }
    // Every point but pure uniform traffic (x = 100 %, p = 0), whose hot spots get no hot
    // traffic.
    if let Some(worst) = points
        .iter()
        .filter(|q| q.x < 100 || q.p > 0)
        .map(|q| 1.0 - q.on.hot / q.off.hot)
        .reduce(f64::max)
    {
        comparisons.push(
            Comparison::judged(
                "the hot spots' greatest loss with CC over the grid",
                "2.2 % (at most 5 %)",
                format!("{:.1} %", 100.0 * worst),
                worst <= 0.05,
                "greatest loss <= 5 % (every point but x = 100 %, p = 0)",
            )
            .identified("windy-hot-loss", Some(0.022), Some(worst)),
        );
    }
    for &x in &xs {
        let peak = points
            .iter()
            .filter(|q| q.x == x)
            .max_by(|a, b| a.total_gain().total_cmp(&b.total_gain()));
        if let Some(peak) = peak {
            let paper = match x {
                25 => "8.7x at p = 60 (6.0x at p = 100)",
                100 => "about 17x at p = 60",
                _ => "a peak near p = 60, growing with x",
            };
            let rule = if x == 100 {
                "the greatest gain at p between 50 and 70, and >= 10x"
            } else {
                "the greatest gain at p between 50 and 70"
            };
            comparisons.push(
                Comparison::judged(
                    format!("x = {x} %: the greatest total gain with CC"),
                    paper,
                    format!("{:.1}x at p = {}", peak.total_gain(), peak.p),
                    (50..=70).contains(&peak.p) && (x != 100 || peak.total_gain() >= 10.0),
                    rule,
                )
                .identified(
                    &format!("windy{x}-peak-gain"),
                    None,
                    Some(peak.total_gain()),
                ),
            );
        }
    }
    if let (Some(p0), Some(p100)) = (at(100, 0), at(100, 100)) {
        let loss = 1.0 - p0.on.others / p0.off.others;
        comparisons.push(
            Comparison::judged(
                "x = 100 %, p = 0 (uniform traffic): non-hot-spot loss with CC",
                "3 % (0 to 6 %)",
                format!("{:.1} %", 100.0 * loss),
                (0.0..=0.06).contains(&loss),
                "loss between 0 and 6 %",
            )
            .identified("windy100-p0-loss", Some(0.03), Some(loss)),
        );
        for (q, id) in [(p0, "windy100-p0-gain"), (p100, "windy100-p100-gain")] {
            let gain = q.total_gain();
            comparisons.push(
                Comparison::judged(
                    format!("x = 100 %, p = {}: total gain with CC", q.p),
                    "none (0.9x to 1.1x)",
                    format!("{gain:.2}x"),
                    (0.9..=1.1).contains(&gain),
                    "between 0.9x and 1.1x",
                )
                .identified(id, Some(1.0), Some(gain)),
            );
        }
    }
    for reading in readings(grid)? {
        for x in SENSITIVITY_FRACTIONS {
            let runs: Vec<(u32, Classes)> = SENSITIVITY_SHARES
                .iter()
                .map(|&p| {
                    Ok((
                        p,
                        classes(&format!("{}-{}", windy_id(x, p, true), reading.id))?,
                    ))
                })
                .collect::<Result<_>>()?;
            let fraction = f64::from(x) / 100.0;
            let shares: Vec<String> = runs
                .iter()
                .map(|(p, c)| format!("{:.2}", c.others / tmax(fraction, f64::from(*p) / 100.0)))
                .collect();
            let gains: Vec<String> = runs
                .iter()
                .filter_map(|(p, c)| at(x, *p).map(|q| format!("{:.1}x", c.total / q.off.total)))
                .collect();
            let paper = if x == 25 {
                "(sensitivity; Paper IV: 0.88, 0.60, 0.80; total gain 8.7x at p = 60)"
            } else {
                "(sensitivity; Paper IV: 0.97 at p = 0, near 1 at 60; total gain about 17x at 60)"
            };
            comparisons.push(
                Comparison::info(
                    format!(
                        "x = {x} %, CC on, {}: share of tmax at p = 0, 10, 60; total gain",
                        reading.words
                    ),
                    paper,
                    format!("{}; {}", shares.join(", "), gains.join(", ")),
                )
                .identified(&format!("windy{x}-{}", reading.id), None, None),
            );
        }
    }
    let unsettled: Vec<String> = points
        .iter()
        .flat_map(|q| {
            [(false, &q.off), (true, &q.on)]
                .into_iter()
                .filter(|(_, c)| !c.stationary)
                .map(move |(cc, _)| windy_id(q.x, q.p, cc))
        })
        .collect();
    comparisons.push(settled("windy-stationary", &unsettled));
    Ok(Findings::legacy(comparisons, files))
}

/// `windy.csv`: a row per point and CC setting.
fn windy_table(ctx: &Context, points: &[WindyPoint]) -> Result<PathBuf> {
    let mut table = String::from(
        "b_percent,share_percent,cc,hot_gbps,others_gbps,all_gbps,total_gbps,tmax_gbps,stationary\n",
    );
    for q in points {
        let t = tmax(f64::from(q.x) / 100.0, f64::from(q.p) / 100.0);
        for (cc, c) in [("off", &q.off), ("on", &q.on)] {
            table.push_str(&format!(
                "{},{},{cc},{:.4},{:.4},{:.4},{:.2},{t:.4},{}\n",
                q.x, q.p, c.hot, c.others, c.all, c.total, c.stationary
            ));
        }
    }
    let path = ctx.out().join("windy.csv");
    std::fs::write(&path, table).map_err(anyhow::Error::from)?;
    Ok(path)
}

/// A line through `(p, value)` points.
fn line(label: &str, points: impl Iterator<Item = (u32, f64)>) -> Series {
    Series {
        label: label.into(),
        points: points
            .map(|(p, y)| Point {
                x: f64::from(p),
                y,
                marked: false,
                error: None,
            })
            .collect(),
        saturation: None,
    }
}

/// Paper IV's Figs. 5-8 for `x` % B nodes: the non-hot-spot receive rate against p with CC off
/// and on, beside tmax.
fn windy_plot(ctx: &Context, points: &[WindyPoint], x: u32) -> Result<Vec<PathBuf>> {
    let of_x = || points.iter().filter(move |q| q.x == x);
    let series = [
        line("CC on", of_x().map(|q| (q.p, q.on.others))),
        line("CC off", of_x().map(|q| (q.p, q.off.others))),
        line(
            "tmax",
            of_x().map(|q| (q.p, tmax(f64::from(x) / 100.0, f64::from(q.p) / 100.0))),
        ),
    ];
    Ok(tailback_plot::lines(
        &ctx.out().join(format!("windy-x{x}")),
        &format!("Windy forest, {x} % B nodes: non-hot-spot receive rate"),
        "p: B nodes' share to their hot spot (%)",
        "receive rate per non-hot-spot node (Gbit/s)",
        &series,
        YScale::Linear,
    )?)
}

/// The total network throughput's gain with CC against p, a line per fraction of B nodes.
fn gain_plot(ctx: &Context, points: &[WindyPoint], xs: &[u32]) -> Result<Vec<PathBuf>> {
    let series: Vec<Series> = xs
        .iter()
        .map(|&x| {
            line(
                &format!("{x} % B"),
                points
                    .iter()
                    .filter(|q| q.x == x)
                    .map(|q| (q.p, q.total_gain())),
            )
        })
        .collect();
    Ok(tailback_plot::lines(
        &ctx.out().join("windy-gain"),
        "Windy forests: total network throughput with CC over without",
        "p: B nodes' share to their hot spot (%)",
        "improvement factor",
        &series,
        YScale::Linear,
    )?)
}
