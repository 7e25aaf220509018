//! Thottethodi, Lebeck and Mukherjee, "Self-Tuned Congestion Control for Multiprocessor
//! Networks", HPCA 2001 (seed 000): Figs. 1, 3, 4, 5 and 7.
//!
//! Base configuration: `experiments/self-tuned/network.toml`; bursty load:
//! `experiments/self-tuned/bursty.toml`. Latencies compared with the paper's are network
//! latencies (injection to delivery): past saturation sources queue without bound, and the
//! paper's Tune latencies (about 160 cycles under a load above the network's capacity) can only
//! exclude source queueing.

use std::collections::BTreeMap;

use tailback_core::config::{Config, parse_assignment, set_path};
use tailback_core::stats::{RunReport, SeriesRow};
use tailback_plot::{Point, Series, YScale};

use super::{Comparison, Context, Experiment, Job, Outcome, run_jobs};
use crate::error::{CliError, CliResult};

const NETWORK: &str = include_str!("../../../../experiments/self-tuned/network.toml");
const BURSTY: &str = include_str!("../../../../experiments/self-tuned/bursty.toml");

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
            name: "self-tuned-fig7",
            title: "Bursty load: delivered throughput over time and average latency of Base, ALO and Tune",
            source: "Thottethodi et al., HPCA 2001 (seed 000), Figs. 6 and 7, section 5.2.3",
            run: fig7,
        },
    ]
}

/// The two deadlock configurations: name and routing setting.
const DEADLOCK: [(&str, &str); 2] = [
    ("recovery", "routing.algorithm=disha"),
    ("avoidance", "routing.algorithm=duato"),
];

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

/// The base configuration tree, with the bursty-load file merged in when asked.
fn base(bursty: bool) -> CliResult<toml::Table> {
    let mut table =
        tailback_core::config::parse_table(NETWORK, "experiments/self-tuned/network.toml")?;
    if bursty {
        let over =
            tailback_core::config::parse_table(BURSTY, "experiments/self-tuned/bursty.toml")?;
        merge(&mut table, over);
    }
    Ok(table)
}

/// Merges `over` into `table`, table by table.
fn merge(table: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (table.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(more)) => merge(inner, more),
            (_, value) => {
                table.insert(key, value);
            }
        }
    }
}

/// A job: the base tree with `sets` (`key=value`) applied, shortened in quick mode.
fn job(ctx: &Context, table: &toml::Table, id: String, sets: &[&str]) -> CliResult<Job> {
    let mut table = table.clone();
    let quick = [
        "sim.warmup_cycles=2000",
        "sim.measure_cycles=5000",
        "sim.drain_cycles_max=5000",
    ];
    let extra: &[&str] = if ctx.quick { &quick } else { &[] };
    for assignment in sets.iter().chain(extra) {
        let (key, value) = parse_assignment(assignment).map_err(CliError::Input)?;
        set_path(&mut table, &key, value)?;
    }
    Ok(Job {
        config: Config::from_table(&table)?,
        id,
    })
}

/// Jobs of a load sweep for each named variant; ids are `variant@load`.
fn load_sweep(ctx: &Context, variants: &[(String, Vec<String>)]) -> CliResult<Vec<Job>> {
    let table = base(false)?;
    let mut jobs = Vec::new();
    for (name, sets) in variants {
        for load in loads(ctx) {
            let rate = format!("traffic.rate={load}");
            let all: Vec<&str> = sets
                .iter()
                .map(String::as_str)
                .chain([rate.as_str()])
                .collect();
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

/// Peak accepted throughput, the load it was reached at, and the throughput at the highest load.
fn peak_and_last(points: &[LoadPoint]) -> (f64, f64, f64) {
    let peak = points
        .iter()
        .max_by(|a, b| a.accepted.total_cmp(&b.accepted))
        .map_or((0.0, 0.0), |p| (p.accepted, p.offered));
    (peak.0, peak.1, points.last().map_or(0.0, |p| p.accepted))
}

/// "peak 0.232 at 0.30; 0.051 at 0.80 (22% of peak)".
fn describe_curve(points: &[LoadPoint]) -> String {
    let (peak, at, last) = peak_and_last(points);
    let top = points.last().map_or(0.0, |p| p.offered);
    format!(
        "peak {peak:.3} at {at:.2}; {last:.3} at {top:.2} ({:.0}% of peak)",
        100.0 * last / peak.max(1e-12)
    )
}

/// Throughput at the highest load as a fraction of the peak.
fn retained(points: &[LoadPoint]) -> f64 {
    let (peak, _, last) = peak_and_last(points);
    last / peak.max(1e-12)
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

fn variants(specs: &[(String, Vec<&str>)]) -> Vec<(String, Vec<String>)> {
    specs
        .iter()
        .map(|(name, sets)| (name.clone(), sets.iter().map(|s| s.to_string()).collect()))
        .collect()
}

fn fig1(ctx: &Context) -> CliResult<Outcome> {
    let specs = variants(&[
        (
            "uniform".into(),
            vec!["routing.algorithm=disha", "traffic.pattern=uniform"],
        ),
        (
            "butterfly".into(),
            vec!["routing.algorithm=disha", "traffic.pattern=butterfly"],
        ),
    ]);
    let reports = run_jobs(ctx, &load_sweep(ctx, &specs)?)?;
    let curves: Vec<(String, Vec<LoadPoint>)> = specs
        .iter()
        .map(|(name, _)| (name.clone(), curve(ctx, &reports, name)))
        .collect();
    let files = plot_curves(ctx, "fig1", "Base, deadlock recovery", &curves, false)?;
    let mut comparisons: Vec<Comparison> = curves
        .iter()
        .map(|(name, points)| {
            Comparison::new(
                format!("{name}: throughput past saturation"),
                "rises, then drops sharply",
                describe_curve(points),
                Some(retained(points) < 0.75),
            )
        })
        .collect();
    let (uniform_at, butterfly_at) = (peak_and_last(&curves[0].1).1, peak_and_last(&curves[1].1).1);
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
            let mut all = vec![routing, "traffic.pattern=uniform"];
            all.extend_from_slice(sets);
            specs.push((format!("{mechanism}, {deadlock}"), all));
        }
    }
    let specs = variants(&specs);
    let reports = run_jobs(ctx, &load_sweep(ctx, &specs)?)?;
    let curves: Vec<(String, Vec<LoadPoint>)> = specs
        .iter()
        .map(|(name, _)| (name.clone(), curve(ctx, &reports, name)))
        .collect();
    let files = plot_curves(ctx, "fig3", "Uniform traffic", &curves, true)?;
    let by_name: BTreeMap<&str, &Vec<LoadPoint>> =
        curves.iter().map(|(n, p)| (n.as_str(), p)).collect();
    let mut comparisons = Vec::new();
    for (deadlock, _) in DEADLOCK {
        let get = |m: &str| by_name[format!("{m}, {deadlock}").as_str()];
        comparisons.push(Comparison::new(
            format!("Base, {deadlock}"),
            "collapses past saturation",
            describe_curve(get("Base")),
            Some(retained(get("Base")) < 0.75),
        ));
        comparisons.push(Comparison::new(
            format!("ALO, {deadlock}"),
            "helps early, still degrades",
            describe_curve(get("ALO")),
            Some(retained(get("ALO")) < 0.85),
        ));
        comparisons.push(Comparison::new(
            format!("Tune, {deadlock}"),
            "stays near its peak",
            describe_curve(get("Tune")),
            Some(retained(get("Tune")) >= 0.85),
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

/// Time series of the given runs as stacked panels of the chosen fields.
fn plot_series(
    ctx: &Context,
    stem: &str,
    title: &str,
    runs: &[(String, &[SeriesRow])],
) -> CliResult<Vec<std::path::PathBuf>> {
    Ok(crate::series::plot(&ctx.out.join(stem), title, runs)?)
}

fn fig4(ctx: &Context) -> CliResult<Outcome> {
    let table = base(false)?;
    let common = [
        "routing.algorithm=duato",
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
    let mut specs = Vec::new();
    for pattern in ["uniform", "butterfly"] {
        for (control, sets) in controls {
            let mut all = vec!["routing.algorithm=disha"];
            let p = if pattern == "uniform" {
                "traffic.pattern=uniform"
            } else {
                "traffic.pattern=butterfly"
            };
            all.push(p);
            all.extend_from_slice(sets);
            specs.push((format!("{control}, {pattern}"), all));
        }
    }
    let specs = variants(&specs);
    let reports = run_jobs(ctx, &load_sweep(ctx, &specs)?)?;
    let curves: Vec<(String, Vec<LoadPoint>)> = specs
        .iter()
        .map(|(name, _)| (name.clone(), curve(ctx, &reports, name)))
        .collect();
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
    let last = |name: &str| get(name).last().map_or(0.0, |p| p.accepted);
    let comparisons = vec![
        Comparison::new(
            "Static 250, uniform",
            "works well",
            describe_curve(get("Static 250, uniform")),
            Some(retained(get("Static 250, uniform")) >= 0.85),
        ),
        Comparison::new(
            "Static 250, butterfly",
            "does not prevent saturation",
            describe_curve(get("Static 250, butterfly")),
            Some(retained(get("Static 250, butterfly")) < 0.75),
        ),
        Comparison::new(
            "Static 50, butterfly",
            "works well",
            describe_curve(get("Static 50, butterfly")),
            Some(retained(get("Static 50, butterfly")) >= 0.85),
        ),
        Comparison::new(
            "Static 50 vs Tune, uniform, highest load",
            "Static 50 over-throttles",
            format!(
                "{:.3} vs {:.3}",
                last("Static 50, uniform"),
                last("Tune, uniform")
            ),
            Some(last("Static 50, uniform") < last("Tune, uniform")),
        ),
        Comparison::new(
            "Tune, uniform",
            "good",
            describe_curve(get("Tune, uniform")),
            Some(retained(get("Tune, uniform")) >= 0.85),
        ),
        Comparison::new(
            "Tune, butterfly",
            "good",
            describe_curve(get("Tune, butterfly")),
            Some(retained(get("Tune, butterfly")) >= 0.85),
        ),
    ];
    Ok(Outcome { comparisons, files })
}

fn fig7(ctx: &Context) -> CliResult<Outcome> {
    let table = base(true)?;
    let mut jobs = Vec::new();
    for (deadlock, routing) in DEADLOCK {
        for (mechanism, sets) in MECHANISMS {
            let all: Vec<&str> = [routing].into_iter().chain(sets.iter().copied()).collect();
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
                .network_latency
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
