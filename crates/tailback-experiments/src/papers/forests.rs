//! Paper IV of Gran's thesis (E. G. Gran et al., "The scope of InfiniBand congestion
//! control"; in E. G. Gran, PhD thesis, University of Oslo, 2013): congestion forests on the
//! 648-node fat tree, with IB CC off and on: the silent forest (80 % contributors to 8 hot
//! spots, 20 % victims; Table II) beside its no-hot-spot baseline, and the windy forests (a
//! fraction x of B nodes sending a share p to their hot spots; Figs. 5-8).
//!
//! Jobs: built here from `experiments/infiniband/forest.toml`, with the warm-up and
//! measurement of the grid (`warmup_us`, `measure_us`).

use std::collections::BTreeMap;

use tailback_core::stats::{ClassRate, RunReport};
use tailback_plot::{Point, Series, YScale};

use super::infiniband::FOLDER;
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Experiment, Job, Outcome, Result};

/// Paper IV's IB CC: Table I (threshold 15, Marking_Rate 0, Packet_Size 0, CCTI_Increase 1,
/// CCTI_Limit 127, CCTI_Min 0, CCTI_Timer 150 µs), QP level, two thresholds, and a CCT
/// "increased" from Paper III's (values not given): quadratic up to 150 µs at index 127.
const PAPER4_CC: [&str; 4] = [
    "congestion.mechanism=\"ib_cc\"",
    "congestion.marking_rate=0",
    "congestion.packet_size_bytes=0",
    "congestion.cct=\"quadratic\"",
];

/// A class's two halves of the window may differ by this much before a run counts as not
/// settled.
const STATIONARY: f64 = 0.05;

/// The experiments of Paper IV.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ib-silent",
            title: "Silent forest on the 648-node fat tree (80 % contributors to 8 hot spots, 20 % victims), IB CC off and on, beside the victims alone",
            source: "Gran et al., Paper IV of Gran's thesis, Table II",
            folder: &FOLDER,
            jobs: silent_jobs,
            run: silent,
        },
        Experiment {
            name: "ib-windy",
            title: "Windy forests on the 648-node fat tree: x % B nodes sending p % to their hot spots (the rest 80 % C / 20 % V), IB CC off and on, against p",
            source: "Gran et al., Paper IV of Gran's thesis, Figs. 5-8",
            folder: &FOLDER,
            jobs: windy_jobs,
            run: windy,
        },
    ]
}

/// A job of the forest with `settings`, measured as the grid says.
fn forest_job(grid: &Grid, id: &str, settings: &[String]) -> Result<Job> {
    let warmup: f64 = grid.param("warmup_us")?;
    let measure: f64 = grid.param("measure_us")?;
    let mut all = vec![
        format!("sim.warmup_us={warmup}"),
        format!("sim.measure_us={measure}"),
    ];
    all.extend_from_slice(settings);
    grid.job(id.into(), &all)
}

/// `settings` with Paper IV's IB CC.
fn with_cc(settings: &[&str]) -> Vec<String> {
    PAPER4_CC
        .iter()
        .chain(settings)
        .map(|s| s.to_string())
        .collect()
}

/// The victims alone and the silent forest, CC off and on, and CC on with other tops of the
/// CCT.
fn silent_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let alone = "traffic.forest.hot_traffic=false";
    let mut jobs = vec![
        forest_job(grid, "victims-cc-off", &[alone.into()])?,
        forest_job(grid, "victims-cc-on", &with_cc(&[alone]))?,
        forest_job(grid, "forest-cc-off", &[])?,
        forest_job(grid, "forest-cc-on", &with_cc(&[]))?,
    ];
    let tops: Vec<f64> = grid.param("cct_tops_us")?;
    for top in tops {
        let setting = format!("congestion.cct_top_us={top}");
        jobs.push(forest_job(
            grid,
            &format!("forest-cc-on-top{top}"),
            &with_cc(&[&setting]),
        )?);
    }
    Ok(jobs)
}

/// What Table II reports of one run, Gbit/s per node: hot spots, the other nodes, all nodes,
/// and the network's total.
struct Classes {
    hot: f64,
    others: f64,
    all: f64,
    total: f64,
    /// Whether each class kept its rate over the window.
    stationary: bool,
}

impl Classes {
    fn of(report: &RunReport) -> Result<Classes> {
        let missing = || Error::Input("a forest run without receive rates by class".into());
        let summary = &report.summary;
        let units = summary.units.ok_or_else(missing)?;
        let classes = summary.receive_by_class.ok_or_else(missing)?;
        let others = classes.others.ok_or_else(missing)?;
        let gbps = |c: &ClassRate| c.mean * units.link_gbps;
        Ok(Classes {
            hot: gbps(&classes.hot),
            others: gbps(&others),
            all: gbps(&classes.all),
            total: gbps(&classes.all) * classes.all.nodes as f64,
            stationary: [classes.hot, others]
                .iter()
                .all(|c| c.stationary(STATIONARY)),
        })
    }
}

fn silent(ctx: &Context, _grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
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
        Comparison::new(
            "forest, CC off: the other nodes' receive rate",
            "0.168 Gbit/s (at most 0.4)",
            format!("{:.3} Gbit/s", off.others),
            Some(off.others <= 0.4),
        )
        .identified("silent-others-off", Some(0.168), Some(off.others)),
        Comparison::new(
            "forest, CC on: the other nodes' receive rate",
            "2.246 Gbit/s (within a factor 1.5)",
            format!("{:.3} Gbit/s", on.others),
            Some(on.others / 2.246 <= 1.5 && 2.246 / on.others <= 1.5),
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
        Comparison::new(
            "hot spots' loss with CC",
            "2.5 % (at most 5 %)",
            format!("{:.1} %", 100.0 * (1.0 - on.hot / off.hot)),
            Some(on.hot >= 0.95 * off.hot),
        )
        .identified("silent-hot-loss", Some(0.025), Some(1.0 - on.hot / off.hot)),
    ];
    let unsettled: Vec<&str> = classes
        .iter()
        .filter(|(_, c)| !c.stationary)
        .map(|(id, _)| *id)
        .collect();
    comparisons.push(
        Comparison::new(
            "every run settled: each class's rate in the two halves of the window within 5 %",
            "yes",
            if unsettled.is_empty() {
                "yes".to_string()
            } else {
                format!("no: {}", unsettled.join(", "))
            },
            Some(unsettled.is_empty()),
        )
        .identified("silent-stationary", None, None),
    );
    for (id, c) in &classes {
        if let Some(top) = id.strip_prefix("forest-cc-on-top") {
            comparisons.push(
                Comparison::new(
                    format!("CC on with the CCT topping at {top} µs: hot spots / others"),
                    "(sensitivity; Paper IV does not give its CCT)",
                    format!("{:.3} / {:.3} Gbit/s", c.hot, c.others),
                    None,
                )
                .identified(&format!("silent-top{top}"), None, Some(c.others)),
            );
        }
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
    Ok(Outcome {
        comparisons,
        files: vec![csv],
    })
}

/// The id of a windy run: B nodes `x` %, hot share `p` %, CC off or on.
fn windy_id(x: u32, p: u32, cc: bool) -> String {
    format!("x{x}-p{p}-cc-{}", if cc { "on" } else { "off" })
}

/// Every fraction of B nodes and hot share of the grid, CC off and on.
fn windy_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let xs: Vec<u32> = grid.param("b_percents")?;
    let ps: Vec<u32> = grid.param("share_percents")?;
    let mut jobs = Vec::new();
    for &x in &xs {
        for &p in &ps {
            let forest = [
                format!("traffic.forest.b_nodes={}", f64::from(x) / 100.0),
                format!("traffic.forest.b_share={}", f64::from(p) / 100.0),
            ];
            let off: Vec<String> = forest.to_vec();
            let refs: Vec<&str> = forest.iter().map(String::as_str).collect();
            jobs.push(forest_job(grid, &windy_id(x, p, false), &off)?);
            jobs.push(forest_job(grid, &windy_id(x, p, true), &with_cc(&refs))?);
        }
    }
    Ok(jobs)
}

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

fn windy(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
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
            Comparison::new(
                "x = 25 %, CC on: share of tmax at p = 0, 10, 60 (the dip at 10)",
                "0.88, 0.60, 0.80",
                format!("{:.2}, {:.2}, {:.2}", share(p0), share(p10), share(p60)),
                Some(share(p10) < share(p0) && share(p10) < share(p60)),
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
            Comparison::new(
                "x = 25 %: the least non-hot-spot gain over p",
                "at least 5x (8.6x at p = 0, 9.1x at 10, up to 16.3x)",
                format!("{min:.1}x"),
                Some(min >= 5.0),
            )
            .identified("windy25-least-gain", Some(5.0), Some(min)),
        );
    }
    if let Some(worst) = points
        .iter()
        .map(|q| 1.0 - q.on.hot / q.off.hot)
        .reduce(f64::max)
    {
        comparisons.push(
            Comparison::new(
                "the hot spots' greatest loss with CC over the grid",
                "2.2 % (at most 5 %)",
                format!("{:.1} %", 100.0 * worst),
                Some(worst <= 0.05),
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
            comparisons.push(
                Comparison::new(
                    format!("x = {x} %: the greatest total gain with CC"),
                    paper,
                    format!("{:.1}x at p = {}", peak.total_gain(), peak.p),
                    Some((50..=70).contains(&peak.p) && (x != 100 || peak.total_gain() >= 10.0)),
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
            Comparison::new(
                "x = 100 %, p = 0 (uniform traffic): non-hot-spot loss with CC",
                "3 % (0 to 6 %)",
                format!("{:.1} %", 100.0 * loss),
                Some((0.0..=0.06).contains(&loss)),
            )
            .identified("windy100-p0-loss", Some(0.03), Some(loss)),
        );
        for (q, id) in [(p0, "windy100-p0-gain"), (p100, "windy100-p100-gain")] {
            let gain = q.total_gain();
            comparisons.push(
                Comparison::new(
                    format!("x = 100 %, p = {}: total gain with CC", q.p),
                    "none (0.9x to 1.1x)",
                    format!("{gain:.2}x"),
                    Some((0.9..=1.1).contains(&gain)),
                )
                .identified(id, Some(1.0), Some(gain)),
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
    comparisons.push(
        Comparison::new(
            "every run settled (each class's two halves of the window within 5 %)",
            "yes",
            if unsettled.is_empty() {
                "yes".to_string()
            } else {
                format!("no: {}", unsettled.join(", "))
            },
            Some(unsettled.is_empty()),
        )
        .identified("windy-stationary", None, Some(unsettled.len() as f64)),
    );
    Ok(Outcome { comparisons, files })
}

/// `windy.csv`: a row per point and CC setting.
fn windy_table(ctx: &Context, points: &[WindyPoint]) -> Result<std::path::PathBuf> {
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
            })
            .collect(),
        saturation: None,
    }
}

/// Paper IV's Figs. 5-8 for `x` % B nodes: the non-hot-spot receive rate against p with CC off
/// and on, beside tmax.
fn windy_plot(ctx: &Context, points: &[WindyPoint], x: u32) -> Result<Vec<std::path::PathBuf>> {
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
fn gain_plot(ctx: &Context, points: &[WindyPoint], xs: &[u32]) -> Result<Vec<std::path::PathBuf>> {
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
