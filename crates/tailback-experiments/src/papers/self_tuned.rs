//! Thottethodi, Lebeck and Mukherjee, "Self-Tuned Congestion Control for Multiprocessor
//! Networks", HPCA 2001: Figs. 1, 3, 4, 5 and 7.
//!
//! Jobs: `experiments/self-tuned/grids.toml` on `network.toml` (with `bursty.toml` or
//! `hotspot.toml` merged in for the bursty load and the hot spot).

use std::collections::BTreeMap;

use tailback_core::stats::{RunReport, SeriesRow};
use tailback_plot::{Point, Series, YScale};

use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::{Folder, Grid};
use crate::{Context, Experiment, Job, Result};

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
            fig1_claims,
            fig1,
        ),
        Experiment::on_grid(
            "self-tuned-fig3",
            "Base, ALO and Tune under uniform traffic, deadlock recovery and avoidance: throughput and latency against offered load",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 3",
            &FOLDER,
            fig3_claims,
            fig3,
        ),
        Experiment::on_grid(
            "self-tuned-fig4",
            "Threshold and throughput over time with and without local-maximum avoidance",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 4",
            &FOLDER,
            fig4_claims,
            fig4,
        ),
        Experiment::on_grid(
            "self-tuned-fig5",
            "Static thresholds 50 and 250 against self-tuning, uniform and butterfly (deadlock recovery)",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Fig. 5",
            &FOLDER,
            fig5_claims,
            fig5,
        ),
        Experiment::on_grid(
            "self-tuned-tree",
            "A congestion tree growing from a hot spot, without throttling and with self-tuning (buffer occupancy maps)",
            "illustration of Thottethodi, Lebeck and Mukherjee, HPCA 2001, section 1; no figure",
            &FOLDER,
            tree_claims,
            tree,
        ),
        Experiment::on_grid(
            "self-tuned-fig7",
            "Bursty load: delivered throughput over time and average latency of Base, ALO and Tune",
            "Thottethodi, Lebeck and Mukherjee, HPCA 2001, Figs. 6 and 7, section 5.2.3",
            &FOLDER,
            fig7_claims,
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

/// A drop, as the paper's tuning rule defines one (Sec. 4): below 75 % of what came before.
const DROP: f64 = 0.75;

/// "Close to the peak": within 15 % of it.
const CLOSE: f64 = 0.85;

/// The paper's Fig. 1 and its introduction.
const FIG_1: Source = Source::new(Paper::SelfTuned, "Sec. 1, Fig. 1");
/// The paper's Fig. 3.
const FIG_3: Source = Source::new(Paper::SelfTuned, "Sec. 5.2.1, Fig. 3");
/// The paper's Fig. 4.
const FIG_4: Source = Source::new(Paper::SelfTuned, "Sec. 5.2.2, Fig. 4");
/// The paper's Fig. 5.
const FIG_5: Source = Source::new(Paper::SelfTuned, "Sec. 5.2.1, Fig. 5");
/// The paper's Figs. 6 and 7.
const FIG_7: Source = Source::new(Paper::SelfTuned, "Sec. 5.2.3, Fig. 7");

/// The claim that a curve collapses past saturation: its mean accepted throughput past the
/// knee below 75 % of its peak.
fn collapses(id: String, what: String, source: Source, stated: &str) -> Claim {
    Claim::new(
        id,
        format!("{what}: mean accepted past the knee over the peak"),
        source,
        Rule::AtMost {
            value: DROP,
            bound: DROP,
        },
    )
    .shown(2, "")
    .stated(format!(
        "{stated} (a drop: below 0.75 of the peak, Sec. 4's rule)"
    ))
}

/// The claim that a curve holds its peak: its lowest accepted throughput past the knee within
/// 15 % of the peak.
fn holds(id: String, what: String, source: Source, stated: &str) -> Claim {
    Claim::new(
        id,
        format!("{what}: lowest accepted past the knee over the peak"),
        source,
        Rule::AtLeast {
            value: 1.0,
            bound: CLOSE,
        },
    )
    .shown(2, "")
    .stated(format!("{stated} (close to the peak: at least 0.85 of it)"))
}

/// A curve past saturation, shown for information.
fn describe_curve(found: &mut Findings, name: &str, points: &[LoadPoint]) {
    found.info(
        format!("{name}: accepted throughput past the knee"),
        "-",
        PastKnee::of(points).describe(),
    );
}

/// The curves' digitised values, not compared.
fn curves_not_compared(claims: &mut Claims, source: Source) {
    claims.not_compared(
        source,
        "accepted throughput at each offered load",
        "curves only",
        "the text gives no number; digitised values would be read off the curves",
    );
}

/// The load curve `name` of `curves`.
fn named<'a>(curves: &'a Curves, name: &str) -> Result<&'a [LoadPoint]> {
    curves
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, points)| points.as_slice())
        .ok_or_else(|| crate::Error::Input(format!("no load curve `{name}`")))
}

/// Fig. 1: both patterns collapse, at different loads.
fn fig1_claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for pattern in names(grid, "pattern")? {
        claims.claim(collapses(
            format!("fig1-{pattern}-collapse"),
            format!("Base, {pattern}"),
            FIG_1,
            "dramatic reductions in throughput at saturation",
        ));
    }
    // "Different points": at least one step of the load sweep (0.05) apart.
    claims.claim(
        Claim::new(
            "fig1-saturation-apart",
            "the loads of the uniform and butterfly throughput peaks, apart by",
            FIG_1,
            Rule::AtLeast {
                value: 0.05,
                bound: 0.05,
            },
        )
        .shown(2, " flits/node/cycle")
        .stated("saturates at different points (at least one load step, 0.05, apart)"),
    );
    curves_not_compared(&mut claims, FIG_1);
    Ok(claims)
}

fn fig1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (_, curves) = sweep_curves(ctx, grid, jobs)?;
    let mut found = Findings::with_files(plot_curves(
        ctx,
        "fig1",
        "Base, deadlock recovery",
        &curves,
        false,
    )?);
    for (name, points) in &curves {
        found.set(
            format!("fig1-{name}-collapse"),
            Ours::Value(PastKnee::of(points).mean_share()),
        );
        describe_curve(&mut found, name, points);
    }
    let peak_load =
        |name: &str| -> Result<f64> { Ok(PastKnee::of(named(&curves, name)?).peak_load) };
    found.set(
        "fig1-saturation-apart",
        Ours::Value((peak_load("uniform")? - peak_load("butterfly")?).abs()),
    );
    Ok(found)
}

/// Fig. 3: Base and ALO collapse, Tune holds its throughput and latency, ALO helps early
/// with deadlock avoidance, and recovery collapses deeper than avoidance.
fn fig3_claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for deadlock in names(grid, "deadlock")? {
        claims
            .claim(collapses(
                format!("fig3-base-{deadlock}-collapse"),
                format!("Base, {deadlock}"),
                FIG_3,
                "a sudden drop in throughput at saturation",
            ))
            .claim(collapses(
                format!("fig3-alo-{deadlock}-degrades"),
                format!("ALO, {deadlock}"),
                FIG_3,
                "severe performance degradation eventually",
            ))
            .claim(holds(
                format!("fig3-tune-{deadlock}-holds"),
                format!("Tune, {deadlock}"),
                FIG_3,
                "maintains throughput close to the peak",
            ))
            .claim(
                Claim::new(
                    format!("fig3-tune-{deadlock}-latency"),
                    format!("network latency at the highest load, {deadlock}"),
                    FIG_3,
                    Rule::Order {
                        higher: "Base",
                        lower: "Tune",
                    },
                )
                .shown(0, " cycles")
                .stated("Tune keeps latency close to its peak values; Base's explodes"),
            );
    }
    claims
        .claim(
            Claim::new(
                "fig3-alo-early-avoidance",
                "accepted at the first load past Base's peak, avoidance",
                FIG_3,
                Rule::Order {
                    higher: "ALO",
                    lower: "Base",
                },
            )
            .shown(3, " flits/node/cycle")
            .stated("ALO improves performance in the early stages of congestion (avoidance)"),
        )
        .claim(
            Claim::new(
                "fig3-recovery-lower",
                "Base's accepted throughput at the highest load",
                FIG_3,
                Rule::Order {
                    higher: "avoidance",
                    lower: "recovery",
                },
            )
            .shown(3, " flits/node/cycle")
            .stated("recovery has lower bandwidth at saturation (one recovery at a time)"),
        )
        .not_compared(
            Source::new(Paper::SelfTuned, "Sec. 3"),
            "throughput gained by extrapolating the last two snapshots over holding the last",
            "+3 % (avoidance), +5 % (recovery)",
            "not reproduced: no experiment runs the hold-the-last-snapshot estimate",
        )
        .not_compared(
            Source::new(Paper::SelfTuned, "Sec. 4"),
            "sensitivity to the increment and decrement (1 % to 4 % of the buffers) and to the \
             tuning period (32 to 192 cycles)",
            "within 4 %; about the same",
            "not reproduced: no experiment sweeps these parameters",
        );
    curves_not_compared(&mut claims, FIG_3);
    Ok(claims)
}

fn fig3(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (reports, curves) = sweep_curves(ctx, grid, jobs)?;
    let mut found =
        Findings::with_files(plot_curves(ctx, "fig3", "Uniform traffic", &curves, true)?);
    for deadlock in names(grid, "deadlock")? {
        let get = |m: &str| named(&curves, &format!("{m}, {deadlock}"));
        let share = |m: &str, pick: fn(&PastKnee) -> f64| -> Result<Ours> {
            Ok(Ours::Value(pick(&PastKnee::of(get(m)?))))
        };
        found
            .set(
                format!("fig3-base-{deadlock}-collapse"),
                share("Base", PastKnee::mean_share)?,
            )
            .set(
                format!("fig3-alo-{deadlock}-degrades"),
                share("ALO", PastKnee::mean_share)?,
            )
            .set(
                format!("fig3-tune-{deadlock}-holds"),
                share("Tune", PastKnee::lowest_share)?,
            );
        // A curve that delivers no measured packet at its highest load has no latency there.
        let latency_at_top = |m: &str| -> Result<f64> {
            Ok(get(m)?
                .last()
                .and_then(|p| p.network_latency)
                .unwrap_or(f64::INFINITY))
        };
        found.set(
            format!("fig3-tune-{deadlock}-latency"),
            Ours::Paired(vec![(latency_at_top("Base")?, latency_at_top("Tune")?)]),
        );
        for mechanism in ["Base", "ALO", "Tune"] {
            describe_curve(
                &mut found,
                &format!("{mechanism}, {deadlock}"),
                get(mechanism)?,
            );
        }
    }
    let (base, alo) = (
        named(&curves, "Base, avoidance")?,
        named(&curves, "ALO, avoidance")?,
    );
    let peak = PastKnee::of(base).peak;
    let past_peak = (base.iter().position(|p| p.accepted >= peak).unwrap_or(0) + 1)
        .min(base.len().saturating_sub(1));
    let accepted = |points: &[LoadPoint]| points.get(past_peak).map_or(f64::NAN, |p| p.accepted);
    found.set(
        "fig3-alo-early-avoidance",
        Ours::Paired(vec![(accepted(alo), accepted(base))]),
    );
    let last = |name: &str| -> Result<f64> {
        Ok(named(&curves, name)?.last().map_or(0.0, |p| p.accepted))
    };
    found.set(
        "fig3-recovery-lower",
        Ours::Paired(vec![(last("Base, avoidance")?, last("Base, recovery")?)]),
    );
    for mechanism in ["Base", "Tune"] {
        let name = format!("{mechanism}, avoidance, 3 VCs");
        found.info(
            name.clone(),
            "- (the paper's network has two adaptive VCs; this one has one)",
            PastKnee::of(named(&curves, &name)?).describe(),
        );
    }
    for mechanism in names(grid, "mechanism")? {
        let speeds: Vec<f64> = reports
            .iter()
            .filter(|(id, _)| id.starts_with(&format!("{mechanism}, ")))
            .map(|(_, r)| r.summary.node_cycles_per_second)
            .collect();
        let mean = speeds.iter().sum::<f64>() / speeds.len().max(1) as f64;
        found.info(
            format!("simulation speed, {mechanism}"),
            "-",
            format!("{:.2} M node-cycles/s (mean over runs)", mean / 1e6),
        );
    }
    Ok(found)
}

/// Fig. 4: local-maximum avoidance sustains a higher throughput.
fn fig4_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    claims
        .claim(
            Claim::new(
                "fig4-avoidance-higher",
                "mean delivered throughput after warm-up",
                FIG_4,
                Rule::Order {
                    higher: "with local-maximum avoidance",
                    lower: "without",
                },
            )
            .shown(3, " flits/node/cycle")
            .stated("with it we avoid saturation and sustain higher throughput"),
        )
        .not_compared(
            FIG_4,
            "the cycle from which throughput creeps down without local-maximum avoidance",
            "about 26,000 cycles",
            "a moment of the paper's one run; the analysis does not detect it (the plots show \
             ours from about 3,000 cycles)",
        );
    Ok(claims)
}

fn fig4(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let variants = names(grid, "local-max")?;
    let seeds: Vec<u64> = grid.axis("seed")?;
    let series = |variant: &str, seed: u64| reports[&format!("{variant}|{seed}")].series.as_slice();
    // The plot shows the first seed's runs.
    let runs: Vec<(String, &[SeriesRow])> = variants
        .iter()
        .map(|name| (name.clone(), series(name, seeds[0])))
        .collect();
    let mut found = Findings::with_files(plot_series(
        ctx,
        "fig4",
        "Self-tuning, uniform traffic at 1.6 flits/node/cycle",
        &runs,
    )?);
    let warmup: u64 = grid.param("warmup")?;
    let late: u64 = grid.param("creep")?;
    // Per seed, (with avoidance, without) of `value`.
    let paired = |value: &dyn Fn(&str, u64) -> f64| -> Vec<(f64, f64)> {
        seeds
            .iter()
            .map(|&s| (value(&variants[0], s), value(&variants[1], s)))
            .collect()
    };
    let mean = |pairs: &[(f64, f64)]| {
        let n = pairs.len() as f64;
        (
            pairs.iter().map(|p| p.0).sum::<f64>() / n,
            pairs.iter().map(|p| p.1).sum::<f64>() / n,
        )
    };
    let crept = mean(&paired(&|v, s| mean_delivered(series(v, s), late)));
    let accepted = mean(&paired(&|v, s| {
        reports[&format!("{v}|{s}")].summary.accepted
    }));
    found
        .set(
            "fig4-avoidance-higher",
            Ours::Paired(paired(&|v, s| mean_delivered(series(v, s), warmup))),
        )
        .info(
            "mean delivered throughput after the paper's creep (26,000 cycles)",
            "without avoidance it creeps down",
            format!(
                "with {:.3}, without {:.3} (mean of {} seeds)",
                crept.0,
                crept.1,
                seeds.len()
            ),
        )
        .info(
            "peak accepted throughput of the network (this experiment's load)",
            "-",
            format!(
                "with {:.3}, without {:.3} (whole window, mean of {} seeds)",
                accepted.0,
                accepted.1,
                seeds.len()
            ),
        );
    Ok(found)
}

/// Fig. 5: a static threshold suits one pattern and not the other; self-tuning suits both.
fn fig5_claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    claims
        .claim(holds(
            "fig5-static250-uniform-holds".into(),
            "Static 250, uniform".into(),
            FIG_5,
            "works very well for random traffic",
        ))
        .claim(collapses(
            "fig5-static250-butterfly-collapses".into(),
            "Static 250, butterfly".into(),
            FIG_5,
            "unable to prevent saturation for butterfly",
        ))
        .claim(holds(
            "fig5-static50-butterfly-holds".into(),
            "Static 50, butterfly".into(),
            FIG_5,
            "works well for butterfly",
        ))
        .claim(
            Claim::new(
                "fig5-static50-overthrottles",
                "uniform: mean accepted past the knee",
                FIG_5,
                Rule::Order {
                    higher: "Static 250",
                    lower: "Static 50",
                },
            )
            .shown(3, " flits/node/cycle")
            .stated("Static 50 over-throttles the random traffic that Static 250 suits"),
        );
    for pattern in names(grid, "pattern")? {
        claims.claim(holds(
            format!("fig5-tune-{pattern}-holds"),
            format!("Tune, {pattern}"),
            Source::new(Paper::SelfTuned, "Sec. 5.2.1, Fig. 5; Sec. 6"),
            "self-tuning adjusts the threshold to each pattern",
        ));
    }
    curves_not_compared(&mut claims, FIG_5);
    Ok(claims)
}

fn fig5(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let (_, curves) = sweep_curves(ctx, grid, jobs)?;
    let mut found = Findings::with_files(plot_curves(
        ctx,
        "fig5",
        "Static thresholds vs tuning, deadlock recovery",
        &curves,
        false,
    )?);
    let past = |name: &str| -> Result<PastKnee> { Ok(PastKnee::of(named(&curves, name)?)) };
    found
        .set(
            "fig5-static250-uniform-holds",
            Ours::Value(past("Static 250, uniform")?.lowest_share()),
        )
        .set(
            "fig5-static250-butterfly-collapses",
            Ours::Value(past("Static 250, butterfly")?.mean_share()),
        )
        .set(
            "fig5-static50-butterfly-holds",
            Ours::Value(past("Static 50, butterfly")?.lowest_share()),
        )
        .set(
            "fig5-static50-overthrottles",
            Ours::Paired(vec![(
                past("Static 250, uniform")?.mean,
                past("Static 50, uniform")?.mean,
            )]),
        );
    for pattern in names(grid, "pattern")? {
        found.set(
            format!("fig5-tune-{pattern}-holds"),
            Ours::Value(past(&format!("Tune, {pattern}"))?.lowest_share()),
        );
    }
    for (name, points) in &curves {
        describe_curve(&mut found, name, points);
    }
    Ok(found)
}

/// The paper's average latencies under the bursty load, cycles.
const FIG_7_LATENCY: [(&str, &str, f64); 6] = [
    ("Base", "recovery", 2838.0),
    ("ALO", "recovery", 2571.0),
    ("Tune", "recovery", 161.0),
    ("Base", "avoidance", 520.0),
    ("ALO", "avoidance", 509.0),
    ("Tune", "avoidance", 163.0),
];

/// The paper's average latency of `mechanism` with `deadlock`.
fn paper_latency(mechanism: &str, deadlock: &str) -> Result<f64> {
    FIG_7_LATENCY
        .iter()
        .find(|(m, d, _)| *m == mechanism && *d == deadlock)
        .map(|l| l.2)
        .ok_or_else(|| crate::Error::Input(format!("no latency for {mechanism}, {deadlock}")))
}

/// The shortest latency a packet can have: its 16 flits' serialisation, cycles.
const LATENCY_FLOOR: f64 = 16.0;

/// Figs. 6 and 7: the average latencies the text gives, and Tune's over Base's.
fn fig7_claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for deadlock in names(grid, "deadlock")? {
        for mechanism in names(grid, "mechanism")? {
            // Exact numbers from another simulator of the same network: a quarter either way.
            claims.claim(
                Claim::new(
                    format!("fig7-{}-{deadlock}-latency", mechanism.to_lowercase()),
                    format!("average latency, {mechanism}, {deadlock}"),
                    FIG_7,
                    Rule::near(paper_latency(&mechanism, &deadlock)?, 0.25),
                )
                .shown(0, " cycles"),
            );
        }
        let (tune, base) = (
            paper_latency("Tune", &deadlock)?,
            paper_latency("Base", &deadlock)?,
        );
        claims.claim(
            Claim::new(
                format!("fig7-tune-over-base-{deadlock}"),
                format!("Tune's average latency over Base's, {deadlock}"),
                FIG_7,
                Rule::Ratio {
                    value: tune / base,
                    tolerance: 0.25,
                    floor: LATENCY_FLOOR,
                },
            )
            .shown(0, " cycles")
            .stated(format!("{:.3} ({tune:.0} / {base:.0} cycles)", tune / base)),
        );
    }
    claims
        .not_compared(
            FIG_7,
            "delivered throughput in the bursts",
            "Tune sustains it; Base and ALO ramp up, then collapse",
            "stated in words only; our series are plotted (fig7-*.png)",
        )
        .not_compared(
            FIG_7,
            "with recovery, Base and ALO saturate, drain through the escape path, then spurt",
            "20,000-21,000, 21,000-27,000 and 27,000-29,000 cycles",
            "moments of the paper's one run, whose burst schedule the text does not give in full",
        );
    Ok(claims)
}

fn fig7(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let mechanisms = names(grid, "mechanism")?;
    let mut found = Findings::default();
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
        found.files.extend(plot_series(
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
            found.set(
                format!("fig7-{}-{deadlock}-latency", mechanism.to_lowercase()),
                Ours::Value(latency(mechanism)),
            );
        }
        found.set(
            format!("fig7-tune-over-base-{deadlock}"),
            Ours::Ratio {
                num: latency("Tune"),
                den: latency("Base"),
            },
        );
    }
    Ok(found)
}

/// The congestion tree is an illustration: the paper gives no number for it.
fn tree_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    claims.not_compared(
        Source::new(Paper::SelfTuned, "Sec. 1"),
        "a congestion tree fanning out from a hot spot",
        "described in words, no figure",
        "the paper states no number for it: this experiment illustrates it, and its lines are \
         information",
    );
    Ok(claims)
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
    let mut found = Findings::default();
    for name in &variants {
        found.files.extend(crate::files::occupancy::plot(
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
    found
        .files
        .extend(plot_series(ctx, "tree-series", "Hot spot", &runs)?);
    let (base, tune) = (&reports["Base"], &reports["Tune"]);
    for (b, t) in base.occupancy.iter().zip(&tune.occupancy) {
        let in_tree =
            |per_router: &[f64]| per_router.iter().filter(|&&o| o > TREE_OCCUPANCY).count();
        found.info(
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
        );
    }
    let others = |r: &RunReport| {
        let per_node = &r.accepted_per_node;
        (per_node.iter().sum::<f64>() - per_node[hot]) / (per_node.len() - 1) as f64
    };
    found.info(
        format!("accepted at the hot node {hot} (flits/cycle; it can take 1)"),
        "-",
        format!(
            "Base {:.3}, Tune {:.3}",
            base.accepted_per_node[hot], tune.accepted_per_node[hot]
        ),
    );
    found.info(
        "accepted at the other nodes (mean, flits/node/cycle)",
        "-",
        format!("Base {:.3}, Tune {:.3}", others(base), others(tune)),
    );
    Ok(found)
}
