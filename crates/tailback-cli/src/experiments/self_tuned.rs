//! Thottethodi, Lebeck and Mukherjee, "Self-Tuned Congestion Control for Multiprocessor
//! Networks", HPCA 2001 (seed 000): Figs. 1, 3, 4, 5 and 7.
//!
//! Base configuration: `experiments/self-tuned/network.toml`; bursty load:
//! `experiments/self-tuned/bursty.toml`. The load sweeps plot network latency (injection to
//! delivery): past saturation their sources queue without bound. The bursty load gives each
//! source a one-packet queue (a node that cannot inject stops generating), so its latencies are
//! creation to delivery, as the paper's.

use std::collections::BTreeMap;

use tailback_core::config::merge_tables;
use tailback_core::stats::{RunReport, SeriesRow};
use tailback_plot::{Point, Series, YScale};

use super::{Comparison, Context, Experiment, Job, Outcome, configure, run_jobs};
use crate::error::CliResult;

const NETWORK: &str = include_str!("../../../../experiments/self-tuned/network.toml");
/// Overlays on the base configuration: (file, text).
const BURSTY: (&str, &str) = (
    "experiments/self-tuned/bursty.toml",
    include_str!("../../../../experiments/self-tuned/bursty.toml"),
);
const HOTSPOT: (&str, &str) = (
    "experiments/self-tuned/hotspot.toml",
    include_str!("../../../../experiments/self-tuned/hotspot.toml"),
);

/// The experiments of this paper.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "self-tuned-fig1",
            title: "Throughput collapse past saturation without congestion control, uniform vs butterfly (deadlock recovery)",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Fig. 1",
            run: fig1,
        },
        Experiment {
            name: "self-tuned-fig3",
            title: "Base, ALO and Tune under uniform traffic, deadlock recovery and avoidance: throughput and latency against offered load",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Fig. 3",
            run: fig3,
        },
        Experiment {
            name: "self-tuned-fig4",
            title: "Threshold and throughput over time with and without local-maximum avoidance",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Fig. 4",
            run: fig4,
        },
        Experiment {
            name: "self-tuned-fig5",
            title: "Static thresholds 50 and 250 against self-tuning, uniform and butterfly (deadlock recovery)",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Fig. 5",
            run: fig5,
        },
        Experiment {
            name: "self-tuned-tree",
            title: "A congestion tree growing from a hot spot, without throttling and with self-tuning (buffer occupancy maps)",
            source: "illustration of Thottethodi et al., HPCA 2001 (seed 000), section 1; no figure",
            run: tree,
        },
        Experiment {
            name: "self-tuned-fig7",
            title: "Bursty load: delivered throughput over time and average latency of Base, ALO and Tune",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Figs. 6 and 7, section 5.2.3",
            run: fig7,
        },
    ]
}

/// The two deadlock configurations: name and settings. The paper's avoidance network has one
/// escape VC and two adaptive ones; dimension-order routing on a torus needs two escape classes
/// (one VC each), so ours has four VCs, keeping the paper's two adaptive VCs.
const DEADLOCK: [(&str, &[&str]); 2] = [
    ("recovery", &["routing.algorithm=disha"]),
    ("avoidance", AVOIDANCE),
];

/// Duato's protocol with two escape VCs and two adaptive ones.
const AVOIDANCE: &[&str] = &["routing.algorithm=duato", "router.vcs=4"];

/// Duato's protocol within the paper's three VCs: two escape VCs and one adaptive VC.
const AVOIDANCE_THREE_VCS: &[&str] = &["routing.algorithm=duato", "router.vcs=3"];

/// The mechanisms compared in Figs. 3 and 7.
const MECHANISMS: [(&str, &[&str]); 3] = [
    ("Base", &["congestion.mechanism=none"]),
    ("ALO", &["congestion.mechanism=alo"]),
    ("Tune", &["congestion.mechanism=self_tuned"]),
];

/// Offered loads (flits/node/cycle) of the load sweeps.
fn loads(ctx: &Context) -> Vec<f64> {
    if ctx.quick {
        vec![0.1, 0.3, 0.6]
    } else {
        (1..=16).map(|i| i as f64 * 0.05).collect()
    }
}

/// The base configuration tree, with an overlay file merged in.
fn base(overlay: Option<(&str, &str)>) -> CliResult<toml::Table> {
    let mut table =
        tailback_core::config::parse_table(NETWORK, "experiments/self-tuned/network.toml")?;
    if let Some((file, text)) = overlay {
        merge_tables(&mut table, tailback_core::config::parse_table(text, file)?);
    }
    Ok(table)
}

/// A job: the base tree with `sets` (`key=value`) applied, shortened in quick mode.
fn job(ctx: &Context, table: &toml::Table, id: String, sets: &[&str]) -> CliResult<Job> {
    let quick = [
        "sim.warmup_cycles=2000",
        "sim.measure_cycles=5000",
        "sim.drain_cycles_max=5000",
    ];
    let extra: &[&str] = if ctx.quick { &quick } else { &[] };
    Ok(Job::new(id, configure(table, sets.iter().chain(extra))?))
}

/// Jobs of a load sweep for each named variant; ids are `variant@load`.
fn load_sweep(ctx: &Context, variants: &[(String, Vec<&str>)]) -> CliResult<Vec<Job>> {
    let table = base(None)?;
    let mut jobs = Vec::new();
    for (name, sets) in variants {
        for load in loads(ctx) {
            let rate = format!("traffic.rate={load}");
            let all: Vec<&str> = sets.iter().copied().chain([rate.as_str()]).collect();
            jobs.push(job(ctx, &table, format!("{name}@{load:.2}"), &all)?);
        }
    }
    Ok(jobs)
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
fn curve(ctx: &Context, reports: &BTreeMap<String, RunReport>, name: &str) -> Vec<LoadPoint> {
    loads(ctx)
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

/// A comparison of a curve past saturation with the paper's claim about it: `holds` judges
/// the curve.
fn judge(
    what: impl Into<String>,
    claim: &str,
    points: &[LoadPoint],
    holds: fn(&PastKnee) -> bool,
) -> Comparison {
    let past = PastKnee::of(points);
    Comparison::new(what, claim, past.describe(), Some(holds(&past)))
}

/// The curve collapses: past the knee it delivers on average less than 75% of its peak.
fn collapses(p: &PastKnee) -> bool {
    p.mean_share() < 0.75
}

/// The curve degrades: past the knee it delivers on average less than 85% of its peak.
fn degrades(p: &PastKnee) -> bool {
    p.mean_share() < 0.85
}

/// The curve holds: past the knee it never falls more than 15% below its peak.
fn holds_peak(p: &PastKnee) -> bool {
    p.lowest_share() >= 0.85
}

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
) -> CliResult<Vec<std::path::PathBuf>> {
    let throughput: Vec<Series> = curves
        .iter()
        .map(|(name, points)| series(name, points, |p| Some(p.accepted)))
        .collect();
    let mut files = tailback_plot::lines(
        &ctx.out.join(format!("{stem}-throughput")),
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
            &ctx.out.join(format!("{stem}-latency")),
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

/// A load curve per named variant (`key=value` settings): runs the load sweeps and returns the
/// reports by job id and the curves.
fn sweep_curves(
    ctx: &Context,
    specs: &[(String, Vec<&str>)],
) -> CliResult<(BTreeMap<String, RunReport>, Curves)> {
    let reports = run_jobs(ctx, &load_sweep(ctx, specs)?)?;
    let curves = specs
        .iter()
        .map(|(name, _)| (name.clone(), curve(ctx, &reports, name)))
        .collect();
    Ok((reports, curves))
}

fn fig1(ctx: &Context) -> CliResult<Outcome> {
    let specs = [
        (
            "uniform".to_string(),
            vec!["routing.algorithm=disha", "traffic.pattern=uniform"],
        ),
        (
            "butterfly".to_string(),
            vec!["routing.algorithm=disha", "traffic.pattern=butterfly"],
        ),
    ];
    let (_, curves) = sweep_curves(ctx, &specs)?;
    let files = plot_curves(ctx, "fig1", "Base, deadlock recovery", &curves, false)?;
    let mut comparisons: Vec<Comparison> = curves
        .iter()
        .map(|(name, points)| {
            judge(
                format!("{name}: throughput past saturation"),
                "rises, then drops sharply",
                points,
                collapses,
            )
        })
        .collect();
    let (uniform_at, butterfly_at) = (
        PastKnee::of(&curves[0].1).peak_load,
        PastKnee::of(&curves[1].1).peak_load,
    );
    comparisons.push(Comparison::new(
        "saturation load, uniform vs butterfly",
        "different",
        format!("{uniform_at:.2} vs {butterfly_at:.2}"),
        Some((uniform_at - butterfly_at).abs() > 1e-9),
    ));
    Ok(Outcome { comparisons, files })
}

fn fig3(ctx: &Context) -> CliResult<Outcome> {
    let mut specs = Vec::new();
    for (deadlock, routing) in DEADLOCK {
        for (mechanism, sets) in MECHANISMS {
            let mut all = vec!["traffic.pattern=uniform"];
            all.extend_from_slice(routing);
            all.extend_from_slice(sets);
            specs.push((format!("{mechanism}, {deadlock}"), all));
        }
    }
    // Within the paper's three VCs, Duato's protocol on a torus keeps one adaptive VC.
    for (mechanism, sets) in [MECHANISMS[0], MECHANISMS[2]] {
        let mut all = vec!["traffic.pattern=uniform"];
        all.extend_from_slice(AVOIDANCE_THREE_VCS);
        all.extend_from_slice(sets);
        specs.push((format!("{mechanism}, avoidance, 3 VCs"), all));
    }
    let (reports, curves) = sweep_curves(ctx, &specs)?;
    let files = plot_curves(ctx, "fig3", "Uniform traffic", &curves, true)?;
    let by_name: BTreeMap<&str, &Vec<LoadPoint>> =
        curves.iter().map(|(n, p)| (n.as_str(), p)).collect();
    let mut comparisons = Vec::new();
    for (deadlock, _) in DEADLOCK {
        let get = |m: &str| by_name[format!("{m}, {deadlock}").as_str()];
        comparisons.push(judge(
            format!("Base, {deadlock}"),
            "collapses past saturation",
            get("Base"),
            collapses,
        ));
        comparisons.push(judge(
            format!("ALO, {deadlock}"),
            "helps early, still degrades",
            get("ALO"),
            degrades,
        ));
        comparisons.push(judge(
            format!("Tune, {deadlock}"),
            "stays near its peak",
            get("Tune"),
            holds_peak,
        ));
        let latency_at_top = |m: &str| get(m).last().and_then(|p| p.network_latency);
        if let (Some(tune), Some(base)) = (latency_at_top("Tune"), latency_at_top("Base")) {
            comparisons.push(Comparison::new(
                format!("network latency at the highest load, {deadlock}"),
                "Tune stays low, Base explodes",
                format!("Tune {tune:.0}, Base {base:.0} cycles"),
                Some(tune < base),
            ));
        }
    }
    for mechanism in ["Base", "Tune"] {
        let name = format!("{mechanism}, avoidance, 3 VCs");
        comparisons.push(Comparison::new(
            name.clone(),
            "- (the paper's network has two adaptive VCs; this one has one)",
            PastKnee::of(by_name[name.as_str()]).describe(),
            None,
        ));
    }
    let last = |name: &str| by_name[name].last().map_or(0.0, |p| p.accepted);
    let (recovery, avoidance) = (last("Base, recovery"), last("Base, avoidance"));
    comparisons.push(Comparison::new(
        "Base past saturation, recovery vs avoidance",
        "recovery lower (one recovery at a time)",
        format!("{recovery:.3} vs {avoidance:.3}"),
        Some(recovery < avoidance),
    ));
    for (mechanism, _) in MECHANISMS {
        let speeds: Vec<f64> = reports
            .iter()
            .filter(|(id, _)| id.starts_with(&format!("{mechanism}, ")))
            .map(|(_, r)| r.summary.node_cycles_per_second)
            .collect();
        let mean = speeds.iter().sum::<f64>() / speeds.len().max(1) as f64;
        comparisons.push(Comparison::new(
            format!("simulation speed, {mechanism}"),
            "-",
            format!("{:.2} M node-cycles/s (mean over runs)", mean / 1e6),
            None,
        ));
    }
    Ok(Outcome { comparisons, files })
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
) -> CliResult<Vec<std::path::PathBuf>> {
    Ok(crate::series::plot(&ctx.out.join(stem), title, runs)?)
}

fn fig4(ctx: &Context) -> CliResult<Outcome> {
    let table = base(None)?;
    let common = [
        AVOIDANCE[0],
        AVOIDANCE[1],
        "traffic.pattern=uniform",
        // One packet every 10 cycles at every node: 1.6 flits/node/cycle.
        "traffic.rate=1.6",
        "congestion.mechanism=self_tuned",
        "record.series_window=96",
    ];
    let variants = [
        ("with local-maximum avoidance", "true"),
        ("without", "false"),
    ];
    let jobs = variants
        .iter()
        .map(|(name, on)| {
            let lma = format!("congestion.local_max_avoidance={on}");
            let sets: Vec<&str> = common.iter().copied().chain([lma.as_str()]).collect();
            job(ctx, &table, name.to_string(), &sets)
        })
        .collect::<CliResult<Vec<_>>>()?;
    let reports = run_jobs(ctx, &jobs)?;
    let runs: Vec<(String, &[SeriesRow])> = variants
        .iter()
        .map(|(name, _)| (name.to_string(), reports[*name].series.as_slice()))
        .collect();
    let files = plot_series(
        ctx,
        "fig4",
        "Self-tuning, uniform traffic at 1.6 flits/node/cycle",
        &runs,
    )?;
    let warmup = if ctx.quick { 2000 } else { 10000 };
    let with = mean_delivered(runs[0].1, warmup);
    let without = mean_delivered(runs[1].1, warmup);
    let late = if ctx.quick { 4000 } else { 26000 };
    let comparisons = vec![
        Comparison::new(
            "mean delivered throughput after warm-up",
            "higher with avoidance",
            format!("with {with:.3}, without {without:.3} flits/node/cycle"),
            Some(with >= without),
        ),
        Comparison::new(
            "mean delivered throughput after the paper's creep (26,000 cycles)",
            "without avoidance it creeps down",
            format!(
                "with {:.3}, without {:.3}",
                mean_delivered(runs[0].1, late),
                mean_delivered(runs[1].1, late)
            ),
            None,
        ),
        Comparison::new(
            "peak accepted throughput of the network (this experiment's load)",
            "-",
            format!(
                "with {:.3}, without {:.3} (whole window)",
                reports[variants[0].0].summary.accepted, reports[variants[1].0].summary.accepted
            ),
            None,
        ),
    ];
    Ok(Outcome { comparisons, files })
}

fn fig5(ctx: &Context) -> CliResult<Outcome> {
    let controls: [(&str, &[&str]); 3] = [
        (
            "Static 50",
            &[
                "congestion.mechanism=self_tuned",
                "congestion.static_threshold=50",
            ],
        ),
        (
            "Static 250",
            &[
                "congestion.mechanism=self_tuned",
                "congestion.static_threshold=250",
            ],
        ),
        ("Tune", &["congestion.mechanism=self_tuned"]),
    ];
    let patterns = [
        ("uniform", "traffic.pattern=uniform"),
        ("butterfly", "traffic.pattern=butterfly"),
    ];
    let mut specs = Vec::new();
    for (pattern, set_pattern) in patterns {
        for (control, sets) in controls {
            let mut all = vec!["routing.algorithm=disha", set_pattern];
            all.extend_from_slice(sets);
            specs.push((format!("{control}, {pattern}"), all));
        }
    }
    let (_, curves) = sweep_curves(ctx, &specs)?;
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
            holds_peak,
        ),
        judge(
            "Static 250, butterfly",
            "does not prevent saturation",
            get("Static 250, butterfly"),
            collapses,
        ),
        judge(
            "Static 50, butterfly",
            "works well",
            get("Static 50, butterfly"),
            holds_peak,
        ),
        Comparison::new(
            "Static 50 vs Tune, uniform, mean above the knee",
            "Static 50 over-throttles",
            format!(
                "{:.3} vs {:.3}",
                PastKnee::of(get("Static 50, uniform")).mean,
                PastKnee::of(get("Tune, uniform")).mean
            ),
            Some(
                PastKnee::of(get("Static 50, uniform")).mean
                    < PastKnee::of(get("Tune, uniform")).mean,
            ),
        ),
        judge("Tune, uniform", "good", get("Tune, uniform"), holds_peak),
        judge(
            "Tune, butterfly",
            "good",
            get("Tune, butterfly"),
            holds_peak,
        ),
    ];
    Ok(Outcome { comparisons, files })
}

fn fig7(ctx: &Context) -> CliResult<Outcome> {
    let table = base(Some(BURSTY))?;
    let mut jobs = Vec::new();
    for (deadlock, routing) in DEADLOCK {
        for (mechanism, sets) in MECHANISMS {
            let all: Vec<&str> = routing.iter().chain(sets.iter()).copied().collect();
            jobs.push(job(ctx, &table, format!("{mechanism}, {deadlock}"), &all)?);
        }
    }
    let reports = run_jobs(ctx, &jobs)?;
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
    for (deadlock, _) in DEADLOCK {
        let runs: Vec<(String, &[SeriesRow])> = MECHANISMS
            .iter()
            .map(|(m, _)| {
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
        for (mechanism, _) in MECHANISMS {
            let id = format!("{mechanism}, {deadlock}");
            comparisons.push(Comparison::new(
                format!("average latency, {id}"),
                format!("{:.0} cycles", paper[id.as_str()]),
                format!("{:.0} cycles", latency(mechanism)),
                None,
            ));
        }
        comparisons.push(Comparison::new(
            format!("Tune's latency as a fraction of Base's, {deadlock}"),
            format!(
                "{:.0}%",
                100.0 * paper[format!("Tune, {deadlock}").as_str()]
                    / paper[format!("Base, {deadlock}").as_str()]
            ),
            format!("{:.0}%", 100.0 * latency("Tune") / latency("Base")),
            Some(latency("Tune") < 0.5 * latency("Base")),
        ));
    }
    Ok(Outcome { comparisons, files })
}

/// Occupancy above which a router counts as part of the tree.
const TREE_OCCUPANCY: f64 = 0.25;

fn tree(ctx: &Context) -> CliResult<Outcome> {
    let table = base(Some(HOTSPOT))?;
    let variants = [("Base", MECHANISMS[0].1), ("Tune", MECHANISMS[2].1)];
    // Quick runs are shorter than the last snapshot.
    let quick: &[&str] = if ctx.quick {
        &["record.occupancy_at=[250, 500, 1000, 2000, 5000]"]
    } else {
        &[]
    };
    let jobs = variants
        .iter()
        .map(|(name, sets)| {
            let all: Vec<&str> = sets.iter().chain(quick).copied().collect();
            job(ctx, &table, name.to_string(), &all)
        })
        .collect::<CliResult<Vec<_>>>()?;
    let dims = jobs[0].config.topology.dims.clone();
    let hot = jobs[0]
        .config
        .traffic
        .hotspot_nodes
        .as_ref()
        .and_then(|h| h.first().copied())
        .unwrap_or(0) as usize;
    let reports = run_jobs(ctx, &jobs)?;
    let mut files = Vec::new();
    for (name, _) in variants {
        files.extend(crate::occupancy::plot(
            &ctx.out,
            &format!("tree-{}-", name.to_lowercase()),
            &format!("hot spot, {name}"),
            &dims,
            &reports[name].occupancy,
        )?);
    }
    let runs: Vec<(String, &[SeriesRow])> = variants
        .iter()
        .map(|(name, _)| (name.to_string(), reports[*name].series.as_slice()))
        .collect();
    files.extend(plot_series(ctx, "tree-series", "Hot spot", &runs)?);
    let (base, tune) = (&reports["Base"], &reports["Tune"]);
    let mut comparisons = Vec::new();
    for (b, t) in base.occupancy.iter().zip(&tune.occupancy) {
        let in_tree =
            |per_router: &[f64]| per_router.iter().filter(|&&o| o > TREE_OCCUPANCY).count();
        comparisons.push(Comparison::new(
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
            None,
        ));
    }
    let others = |r: &RunReport| {
        let per_node = &r.accepted_per_node;
        (per_node.iter().sum::<f64>() - per_node[hot]) / (per_node.len() - 1) as f64
    };
    comparisons.push(Comparison::new(
        format!("accepted at the hot node {hot} (flits/cycle; it can take 1)"),
        "-",
        format!(
            "Base {:.3}, Tune {:.3}",
            base.accepted_per_node[hot], tune.accepted_per_node[hot]
        ),
        None,
    ));
    comparisons.push(Comparison::new(
        "accepted at the other nodes (mean, flits/node/cycle)",
        "-",
        format!("Base {:.3}, Tune {:.3}", others(base), others(tune)),
        None,
    ));
    Ok(Outcome { comparisons, files })
}
