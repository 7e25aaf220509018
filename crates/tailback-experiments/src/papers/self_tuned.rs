//! Thottethodi, Lebeck and Mukherjee, "Self-Tuned Congestion Control for Multiprocessor
//! Networks", HPCA 2001: Figs. 1, 3, 4, 5 and 7.
//!
//! Jobs: `experiments/self-tuned/grids.toml` on `network.toml` (with `bursty.toml` or
//! `hotspot.toml` merged in for the bursty load and the hot spot).

use std::collections::BTreeMap;

use tailback_core::stats::{RunReport, SeriesRow};
use tailback_plot::{Point, Series, YScale};

use crate::grid::{Folder, Grid};
use crate::{Comparison, Context, Experiment, Findings, Job, Result};

static FOLDER: Folder = Folder {
    path: "experiments/self-tuned",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../experiments/self-tuned/grids.toml"),
        ),
        (
            "network.toml",
            include_str!("../../../../experiments/self-tuned/network.toml"),
        ),
        (
            "bursty.toml",
            include_str!("../../../../experiments/self-tuned/bursty.toml"),
        ),
        (
            "hotspot.toml",
            include_str!("../../../../experiments/self-tuned/hotspot.toml"),
        ),
    ],
};

/// The experiments of this paper.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment::on_grid(
            "self-tuned-fig1",
            "Throughput collapse past saturation without congestion control, uniform vs butterfly (deadlock recovery)",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 1",
            &FOLDER,
            crate::claim::undeclared,
            fig1,
        ),
        Experiment::on_grid(
            "self-tuned-fig3",
            "Base, ALO and Tune under uniform traffic, deadlock recovery and avoidance: throughput and latency against offered load",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 3",
            &FOLDER,
            crate::claim::undeclared,
            fig3,
        ),
        Experiment::on_grid(
            "self-tuned-fig4",
            "Threshold and throughput over time with and without local-maximum avoidance",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 4",
            &FOLDER,
            crate::claim::undeclared,
            fig4,
        ),
        Experiment::on_grid(
            "self-tuned-fig5",
            "Static thresholds 50 and 250 against self-tuning, uniform and butterfly (deadlock recovery)",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 5",
            &FOLDER,
            crate::claim::undeclared,
            fig5,
        ),
        Experiment::on_grid(
            "self-tuned-tree",
            "A congestion tree growing from a hot spot, without throttling and with self-tuning (buffer occupancy maps)",
            "illustration of Thottethodi, Lebeck and Mukherjee, HPCA 2001, section 1; no figure",
            &FOLDER,
            crate::claim::undeclared,
            tree,
        ),
        Experiment::on_grid(
            "self-tuned-fig7",
            "Bursty load: delivered throughput over time and average latency of Base, ALO and Tune",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Figs. 6 and 7, section 5.2.3",
            &FOLDER,
            crate::claim::undeclared,
            fig7,
        ),
    ]
}

/// The names of a dimension's variants, in order.
fn names(grid: &Grid, dimension: &str) -> Result<Vec<String>> {
    Ok(grid
        .entries(dimension)?
        .iter()
        .map(|e| e.name.clone())
        .collect())
}

/// One measured point of a load sweep.
#[derive(Debug, Clone, Copy)]
struct LoadPoint {
    offered: f64,
    accepted: f64,
    network_latency: Option<f64>,
    saturated: bool,
}

/// A variant's points in order of load.
fn curve(loads: &[f64], reports: &BTreeMap<String, RunReport>, name: &str) -> Vec<LoadPoint> {
    loads
        .iter()
        .filter_map(|load| reports.get(&format!("{name}@{load:.2}")))
        .map(|r| LoadPoint {
            offered: r.summary.offered,
            accepted: r.summary.accepted,
            network_latency: r.summary.network_latency.mean,
            saturated: r.summary.saturated,
        })
        .collect()
}

/// A load curve past saturation: its peak, and what it delivers at the loads above the first
/// one that comes within 5% of the peak (the knee).
#[derive(Debug, Clone, Copy)]
struct PastKnee {
    peak: f64,
    /// Load of the peak.
    peak_load: f64,
    /// Load of the knee.
    knee_load: f64,
    /// Mean and lowest accepted throughput at the loads above the knee (the peak when there
    /// are none).
    mean: f64,
    lowest: f64,
}

impl PastKnee {
    fn of(points: &[LoadPoint]) -> PastKnee {
        let (peak, peak_load) = points
            .iter()
            .max_by(|a, b| a.accepted.total_cmp(&b.accepted))
            .map_or((0.0, 0.0), |p| (p.accepted, p.offered));
        let knee = points
            .iter()
            .position(|p| p.accepted >= 0.95 * peak)
            .unwrap_or(0);
        let beyond: Vec<f64> = points[knee + 1..].iter().map(|p| p.accepted).collect();
        let (mean, lowest) = if beyond.is_empty() {
            (peak, peak)
        } else {
            (
                beyond.iter().sum::<f64>() / beyond.len() as f64,
                beyond.iter().copied().fold(f64::INFINITY, f64::min),
            )
        };
        PastKnee {
            peak,
            peak_load,
            knee_load: points.get(knee).map_or(0.0, |p| p.offered),
            mean,
            lowest,
        }
    }

    /// Mean past the knee as a fraction of the peak.
    fn mean_share(&self) -> f64 {
        self.mean / self.peak.max(1e-12)
    }

    /// Lowest past the knee as a fraction of the peak.
    fn lowest_share(&self) -> f64 {
        self.lowest / self.peak.max(1e-12)
    }

    /// "peak 0.300 at 0.30; above 0.30: mean 0.174 (58%), lowest 0.160 (53%)".
    fn describe(&self) -> String {
        format!(
            "peak {:.3} at {:.2}; above {:.2}: mean {:.3} ({:.0}%), lowest {:.3} ({:.0}%)",
            self.peak,
            self.peak_load,
            self.knee_load,
            self.mean,
            100.0 * self.mean_share(),
            self.lowest,
            100.0 * self.lowest_share()
        )
    }
}

/// A test of a curve past saturation, and its rule in words.
struct Test {
    holds: fn(&PastKnee) -> bool,
    rule: &'static str,
}

/// A comparison of a curve past saturation with the paper's claim about it, judged by `test`.
fn judge(what: impl Into<String>, claim: &str, points: &[LoadPoint], test: &Test) -> Comparison {
    let past = PastKnee::of(points);
    Comparison::judged(what, claim, past.describe(), (test.holds)(&past), test.rule)
}

/// The curve collapses: past the knee it delivers on average less than 75% of its peak.
const COLLAPSES: Test = Test {
    holds: |p| p.mean_share() < 0.75,
    rule: "mean accepted at the loads above the knee (first load within 5 % of the peak) < 75 % \
           of the peak",
};

/// The curve degrades: past the knee it delivers on average less than 85% of its peak.
const DEGRADES: Test = Test {
    holds: |p| p.mean_share() < 0.85,
    rule: "mean accepted at the loads above the knee (first load within 5 % of the peak) < 85 % \
           of the peak",
};

/// The curve holds: past the knee it never falls more than 15% below its peak.
const HOLDS_PEAK: Test = Test {
    holds: |p| p.lowest_share() >= 0.85,
    rule: "lowest accepted at the loads above the knee (first load within 5 % of the peak) >= \
           85 % of the peak",
};

/// A plot series from a curve.
fn series(label: &str, points: &[LoadPoint], y: impl Fn(&LoadPoint) -> Option<f64>) -> Series {
    Series {
        label: label.to_string(),
        points: points
            .iter()
            .filter_map(|p| {
                y(p).map(|y| Point {
                    x: p.offered,
                    y,
                    marked: p.saturated,
                    error: None,
                })
            })
            .collect(),
        saturation: None,
    }
}

/// Plots accepted throughput (and, when asked, network latency) against offered load.
fn plot_curves(
    ctx: &Context,
    stem: &str,
    title: &str,
    curves: &[(String, Vec<LoadPoint>)],
    latency: bool,
) -> Result<Vec<std::path::PathBuf>> {
    let throughput: Vec<Series> = curves
        .iter()
        .map(|(name, points)| series(name, points, |p| Some(p.accepted)))
        .collect();
    let mut files = tailback_plot::lines(
        &ctx.out().join(format!("{stem}-throughput")),
        &format!("{title}: accepted throughput"),
        "offered load (flits/node/cycle)",
        "accepted throughput (flits/node/cycle)",
        &throughput,
        YScale::Linear,
    )?;
    if latency {
        let latencies: Vec<Series> = curves
            .iter()
            .map(|(name, points)| series(name, points, |p| p.network_latency))
            .collect();
        files.extend(tailback_plot::lines(
            &ctx.out().join(format!("{stem}-latency")),
            &format!("{title}: network latency"),
            "offered load (flits/node/cycle)",
            "mean network latency (cycles)",
            &latencies,
            YScale::Log,
        )?);
    }
    Ok(files)
}

/// Named load curves, in variant order.
type Curves = Vec<(String, Vec<LoadPoint>)>;

/// Runs the load sweeps of `jobs` (ids `variant@load`) and returns the reports by job id and a
/// load curve per variant, in job order.
fn sweep_curves(
    ctx: &Context,
    grid: &Grid,
    jobs: &[Job],
) -> Result<(BTreeMap<String, RunReport>, Curves)> {
    let reports = ctx.run(jobs)?;
    let loads: Vec<f64> = grid.axis("load")?;
    let mut variants: Vec<&str> = Vec::new();
    for job in jobs {
        let variant = job.id.split_once('@').map_or(job.id.as_str(), |(v, _)| v);
        if !variants.contains(&variant) {
            variants.push(variant);
        }
    }
    let curves = variants
        .iter()
        .map(|name| (name.to_string(), curve(&loads, &reports, name)))
        .collect();
    Ok((reports, curves))
}

fn fig1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (_, curves) = sweep_curves(ctx, grid, jobs)?;
    let files = plot_curves(ctx, "fig1", "Base, deadlock recovery", &curves, false)?;
    let mut comparisons: Vec<Comparison> = curves
        .iter()
        .map(|(name, points)| {
            judge(
                format!("{name}: throughput past saturation"),
                "rises, then drops sharply",
                points,
                &COLLAPSES,
            )
        })
        .collect();
    let (uniform_at, butterfly_at) = (
        PastKnee::of(&curves[0].1).peak_load,
        PastKnee::of(&curves[1].1).peak_load,
    );
    comparisons.push(Comparison::judged(
        "saturation load, uniform vs butterfly",
        "different",
        format!("{uniform_at:.2} vs {butterfly_at:.2}"),
        (uniform_at - butterfly_at).abs() > 1e-9,
        "the loads of the two throughput peaks differ",
    ));
    Ok(Findings::legacy(comparisons, files))
}

fn fig3(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (reports, curves) = sweep_curves(ctx, grid, jobs)?;
    let files = plot_curves(ctx, "fig3", "Uniform traffic", &curves, true)?;
    let by_name: BTreeMap<&str, &Vec<LoadPoint>> =
        curves.iter().map(|(n, p)| (n.as_str(), p)).collect();
    let mut comparisons = Vec::new();
    for deadlock in names(grid, "deadlock")? {
        let get = |m: &str| by_name[format!("{m}, {deadlock}").as_str()];
        comparisons.push(judge(
            format!("Base, {deadlock}"),
            "collapses past saturation",
            get("Base"),
            &COLLAPSES,
        ));
        comparisons.push(judge(
            format!("ALO, {deadlock}"),
            "helps early, still degrades",
            get("ALO"),
            &DEGRADES,
        ));
        comparisons.push(judge(
            format!("Tune, {deadlock}"),
            "stays near its peak",
            get("Tune"),
            &HOLDS_PEAK,
        ));
        let latency_at_top = |m: &str| get(m).last().and_then(|p| p.network_latency);
        if let (Some(tune), Some(base)) = (latency_at_top("Tune"), latency_at_top("Base")) {
            comparisons.push(Comparison::judged(
                format!("network latency at the highest load, {deadlock}"),
                "Tune stays low, Base explodes",
                format!("Tune {tune:.0}, Base {base:.0} cycles"),
                tune < base,
                "Tune's mean network latency < Base's at the highest load",
            ));
        }
    }
    for mechanism in ["Base", "Tune"] {
        let name = format!("{mechanism}, avoidance, 3 VCs");
        comparisons.push(Comparison::info(
            name.clone(),
            "- (the paper's network has two adaptive VCs; this one has one)",
            PastKnee::of(by_name[name.as_str()]).describe(),
        ));
    }
    let last = |name: &str| by_name[name].last().map_or(0.0, |p| p.accepted);
    let (recovery, avoidance) = (last("Base, recovery"), last("Base, avoidance"));
    comparisons.push(Comparison::judged(
        "Base past saturation, recovery vs avoidance",
        "recovery lower (one recovery at a time)",
        format!("{recovery:.3} vs {avoidance:.3}"),
        recovery < avoidance,
        "Base's accepted throughput at the highest load: recovery < avoidance",
    ));
    for mechanism in names(grid, "mechanism")? {
        let speeds: Vec<f64> = reports
            .iter()
            .filter(|(id, _)| id.starts_with(&format!("{mechanism}, ")))
            .map(|(_, r)| r.summary.node_cycles_per_second)
            .collect();
        let mean = speeds.iter().sum::<f64>() / speeds.len().max(1) as f64;
        comparisons.push(Comparison::info(
            format!("simulation speed, {mechanism}"),
            "-",
            format!("{:.2} M node-cycles/s (mean over runs)", mean / 1e6),
        ));
    }
    Ok(Findings::legacy(comparisons, files))
}

/// Mean delivered throughput of the series rows ending after `from`.
fn mean_delivered(rows: &[SeriesRow], from: u64) -> f64 {
    let tail: Vec<f64> = rows
        .iter()
        .filter(|r| r.cycle > from)
        .map(|r| r.delivered)
        .collect();
    tail.iter().sum::<f64>() / tail.len().max(1) as f64
}

/// Plots the time series of the given runs as stacked panels (`series::plot`) in the output
/// directory.
fn plot_series(
    ctx: &Context,
    stem: &str,
    title: &str,
    runs: &[(String, &[SeriesRow])],
) -> Result<Vec<std::path::PathBuf>> {
    Ok(crate::files::series::plot(
        &ctx.out().join(stem),
        title,
        runs,
        1,
    )?)
}

fn fig4(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let variants = names(grid, "local-max")?;
    let runs: Vec<(String, &[SeriesRow])> = variants
        .iter()
        .map(|name| (name.clone(), reports[name].series.as_slice()))
        .collect();
    let files = plot_series(
        ctx,
        "fig4",
        "Self-tuning, uniform traffic at 1.6 flits/node/cycle",
        &runs,
    )?;
    let warmup: u64 = grid.param("warmup")?;
    let with = mean_delivered(runs[0].1, warmup);
    let without = mean_delivered(runs[1].1, warmup);
    let late: u64 = grid.param("creep")?;
    let comparisons = vec![
        Comparison::judged(
            "mean delivered throughput after warm-up",
            "higher with avoidance",
            format!("with {with:.3}, without {without:.3} flits/node/cycle"),
            with >= without,
            "mean delivered after warm-up: with avoidance >= without",
        ),
        Comparison::info(
            "mean delivered throughput after the paper's creep (26,000 cycles)",
            "without avoidance it creeps down",
            format!(
                "with {:.3}, without {:.3}",
                mean_delivered(runs[0].1, late),
                mean_delivered(runs[1].1, late)
            ),
        ),
        Comparison::info(
            "peak accepted throughput of the network (this experiment's load)",
            "-",
            format!(
                "with {:.3}, without {:.3} (whole window)",
                reports[&variants[0]].summary.accepted, reports[&variants[1]].summary.accepted
            ),
        ),
    ];
    Ok(Findings::legacy(comparisons, files))
}

fn fig5(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (_, curves) = sweep_curves(ctx, grid, jobs)?;
    let files = plot_curves(
        ctx,
        "fig5",
        "Static thresholds vs tuning, deadlock recovery",
        &curves,
        false,
    )?;
    let get = |name: &str| {
        &curves
            .iter()
            .find(|(n, _)| n == name)
            .expect("variant exists")
            .1
    };
    let comparisons = vec![
        judge(
            "Static 250, uniform",
            "works well",
            get("Static 250, uniform"),
            &HOLDS_PEAK,
        ),
        judge(
            "Static 250, butterfly",
            "does not prevent saturation",
            get("Static 250, butterfly"),
            &COLLAPSES,
        ),
        judge(
            "Static 50, butterfly",
            "works well",
            get("Static 50, butterfly"),
            &HOLDS_PEAK,
        ),
        Comparison::judged(
            "Static 50 vs Tune, uniform, mean above the knee",
            "Static 50 over-throttles",
            format!(
                "{:.3} vs {:.3}",
                PastKnee::of(get("Static 50, uniform")).mean,
                PastKnee::of(get("Tune, uniform")).mean
            ),
            PastKnee::of(get("Static 50, uniform")).mean < PastKnee::of(get("Tune, uniform")).mean,
            "Static 50's mean accepted above the knee < Tune's",
        ),
        judge("Tune, uniform", "good", get("Tune, uniform"), &HOLDS_PEAK),
        judge(
            "Tune, butterfly",
            "good",
            get("Tune, butterfly"),
            &HOLDS_PEAK,
        ),
    ];
    Ok(Findings::legacy(comparisons, files))
}

fn fig7(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let mechanisms = names(grid, "mechanism")?;
    // Average latencies of the paper (cycles).
    let paper: BTreeMap<&str, f64> = [
        ("Base, recovery", 2838.0),
        ("ALO, recovery", 2571.0),
        ("Tune, recovery", 161.0),
        ("Base, avoidance", 520.0),
        ("ALO, avoidance", 509.0),
        ("Tune, avoidance", 163.0),
    ]
    .into_iter()
    .collect();
    let mut files = Vec::new();
    let mut comparisons = Vec::new();
    for deadlock in names(grid, "deadlock")? {
        let runs: Vec<(String, &[SeriesRow])> = mechanisms
            .iter()
            .map(|m| {
                (
                    m.to_string(),
                    reports[&format!("{m}, {deadlock}")].series.as_slice(),
                )
            })
            .collect();
        files.extend(plot_series(
            ctx,
            &format!("fig7-{deadlock}"),
            &format!("Bursty load, deadlock {deadlock}"),
            &runs,
        )?);
        let latency = |m: &str| {
            reports[&format!("{m}, {deadlock}")]
                .summary
                .latency
                .mean
                .unwrap_or(f64::NAN)
        };
        for mechanism in &mechanisms {
            let id = format!("{mechanism}, {deadlock}");
            comparisons.push(Comparison::info(
                format!("average latency, {id}"),
                format!("{:.0} cycles", paper[id.as_str()]),
                format!("{:.0} cycles", latency(mechanism)),
            ));
        }
        comparisons.push(Comparison::judged(
            format!("Tune's latency as a fraction of Base's, {deadlock}"),
            format!(
                "{:.0}%",
                100.0 * paper[format!("Tune, {deadlock}").as_str()]
                    / paper[format!("Base, {deadlock}").as_str()]
            ),
            format!("{:.0}%", 100.0 * latency("Tune") / latency("Base")),
            latency("Tune") < 0.5 * latency("Base"),
            "Tune's average latency < 50 % of Base's",
        ));
    }
    Ok(Findings::legacy(comparisons, files))
}

/// Occupancy above which a router counts as part of the tree.
const TREE_OCCUPANCY: f64 = 0.25;

fn tree(ctx: &Context, _: &Grid, jobs: &[Job]) -> Result<Findings> {
    let variants: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    let dims = jobs[0].config.topology.dims.clone();
    let hot = jobs[0]
        .config
        .traffic
        .hotspot_nodes
        .as_ref()
        .and_then(|h| h.first().copied())
        .unwrap_or(0) as usize;
    let reports = ctx.run(jobs)?;
    let mut files = Vec::new();
    for name in &variants {
        files.extend(crate::files::occupancy::plot(
            ctx.out(),
            &format!("tree-{}-", name.to_lowercase()),
            &format!("hot spot, {name}"),
            &dims,
            &reports[*name].occupancy,
        )?);
    }
    let runs: Vec<(String, &[SeriesRow])> = variants
        .iter()
        .map(|name| (name.to_string(), reports[*name].series.as_slice()))
        .collect();
    files.extend(plot_series(ctx, "tree-series", "Hot spot", &runs)?);
    let (base, tune) = (&reports["Base"], &reports["Tune"]);
    let mut comparisons = Vec::new();
    for (b, t) in base.occupancy.iter().zip(&tune.occupancy) {
        let in_tree =
            |per_router: &[f64]| per_router.iter().filter(|&&o| o > TREE_OCCUPANCY).count();
        comparisons.push(Comparison::info(
            format!(
                "routers over {:.0}% full at cycle {}",
                100.0 * TREE_OCCUPANCY,
                b.cycle
            ),
            "-",
            format!(
                "Base {}, Tune {} of {}",
                in_tree(&b.per_router),
                in_tree(&t.per_router),
                b.per_router.len()
            ),
        ));
    }
    let others = |r: &RunReport| {
        let per_node = &r.accepted_per_node;
        (per_node.iter().sum::<f64>() - per_node[hot]) / (per_node.len() - 1) as f64
    };
    comparisons.push(Comparison::info(
        format!("accepted at the hot node {hot} (flits/cycle; it can take 1)"),
        "-",
        format!(
            "Base {:.3}, Tune {:.3}",
            base.accepted_per_node[hot], tune.accepted_per_node[hot]
        ),
    ));
    comparisons.push(Comparison::info(
        "accepted at the other nodes (mean, flits/node/cycle)",
        "-",
        format!("Base {:.3}, Tune {:.3}", others(base), others(tune)),
    ));
    Ok(Findings::legacy(comparisons, files))
}
