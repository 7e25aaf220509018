//! Paper II's fairness studies with IB CC: one threshold against hysteresis on the Type I
//! network (R4), and the parking lot on the Type II network with Marking_Rate 1 and 10 (R5).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::{CC_ON, CONTRIBUTORS, READINGS, SEEDS, report, spread};
use crate::grid::Grid;
use crate::papers::infiniband::{
    Phases, SCENARIO_1, TYPE_1, host, run_scenarios, scenario_job, sink_shares,
};
use crate::spread::Spread;
use crate::{Comparison, Context, Findings, Job, Result};

/// Paper II's threshold variants on the Type I network: one threshold, or two with a gap of
/// half, one, two and three MTU (plus a block), all with the same upper threshold (id,
/// hysteresis blocks).
const THRESHOLDS: [(&str, u32); 5] = [
    ("one", 0),
    ("gap16", 16),
    ("gap32", 32),
    ("gap64", 64),
    ("gap97", 97),
];

/// The upper threshold of every Type I variant, blocks: the default's (the weight-15 value
/// raised to the 97-block gap plus an MTU).
const UPPER_BLOCKS: u32 = 129;

/// The contributors active in `phase` and their greatest over least mean throughput.
fn ratio(p: &Phases, phase: u32) -> f64 {
    let rates: Vec<f64> = CONTRIBUTORS[..phase as usize]
        .iter()
        .map(|&c| p.gbps(c, phase))
        .collect();
    let (_, lo, hi) = spread(&rates);
    hi / lo.max(1e-9)
}

/// Whether the newest contributor of `phase` gets the most.
fn newest_ahead(p: &Phases, phase: u32) -> bool {
    let active = &CONTRIBUTORS[..phase as usize];
    let newest = p.gbps(active[active.len() - 1], phase);
    active.iter().all(|&c| p.gbps(c, phase) <= newest)
}

/// The variants run under every reading of the timer and the delay: one threshold, and the
/// widest gap.
const READING_VARIANTS: [(&str, u32); 2] = [THRESHOLDS[0], THRESHOLDS[4]];

/// The Type I scenario with CC off, with each threshold variant over three seeds, and with one
/// threshold and the widest gap under the other readings of the timer and the delay.
pub(super) fn type1_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = vec![scenario_job(grid, &TYPE_1, "cc-off", &[])?];
    let variant_job = |id: &str, gap: u32, seed: u64, reading: &[&str]| {
        let mut settings = vec![
            CC_ON.into(),
            format!("congestion.threshold_blocks={UPPER_BLOCKS}"),
            format!("congestion.hysteresis_blocks={gap}"),
            format!("seed={seed}"),
        ];
        settings.extend(reading.iter().map(|s| s.to_string()));
        scenario_job(grid, &TYPE_1, &format!("{id}-seed{seed}"), &settings)
    };
    for (id, gap) in THRESHOLDS {
        for seed in SEEDS {
            jobs.push(variant_job(id, gap, seed, &[])?);
        }
    }
    for (reading, settings) in &READINGS[1..] {
        for (id, gap) in READING_VARIANTS {
            for seed in SEEDS {
                jobs.push(variant_job(
                    &format!("{reading}-{id}"),
                    gap,
                    seed,
                    settings,
                )?);
            }
        }
    }
    Ok(jobs)
}

/// The runs of variant `id` (prefixed by its reading, but for the default), one per seed.
fn variant_runs<'a>(
    reports: &'a BTreeMap<String, RunReport>,
    grid: &Grid,
    id: &str,
) -> Result<Vec<Phases<'a>>> {
    SEEDS
        .iter()
        .map(|seed| Phases::new(report(reports, &format!("{id}-seed{seed}"))?, grid))
        .collect()
}

/// What Paper II says of the contributors' max/min with a hysteresis of `gap` blocks, whether
/// `value` agrees, and the bound it is judged by.
fn paper_ratio(gap: u32, value: f64) -> (&'static str, bool, &'static str) {
    match gap {
        0 => (
            "at least 1.3, the newest flow ahead (H6 about 2x H3)",
            value >= 1.3,
            ">= 1.3",
        ),
        16 | 32 => (
            "above 1 (a gap of at most 1 MTU does not fix it)",
            value > 1.1,
            "> 1.1",
        ),
        _ => ("at most 1.1 (equal shares)", value <= 1.1, "<= 1.1"),
    }
}

pub(super) fn type1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let mut comparisons = Vec::new();
    for phase in 2..5 {
        let r = ratio(&off, phase);
        comparisons.push(
            Comparison::judged(
                format!("CC off: contributors' max / min with {phase} on"),
                "1 (equal shares)",
                format!("{r:.3}"),
                r <= 1.02,
                "max / min <= 1.02",
            )
            .identified(&format!("t1cc-off-ratio-{phase}"), Some(1.0), Some(r)),
        );
    }
    for (id, gap) in THRESHOLDS {
        let runs = variant_runs(&reports, grid, id)?;
        for phase in 2..5 {
            let ratios: Vec<f64> = runs.iter().map(|p| ratio(p, phase)).collect();
            let over_seeds = Spread::of(&ratios);
            let (paper, agrees, bound) = paper_ratio(gap, over_seeds.mean);
            comparisons.push(
                Comparison::judged(
                    format!("{}: contributors' max / min with {phase} on", variant(gap)),
                    paper,
                    over_seeds.describe(2, ""),
                    agrees,
                    format!("mean over the seeds {bound}"),
                )
                .identified(
                    &format!("t1cc-{id}-ratio-{phase}"),
                    None,
                    Some(over_seeds.mean),
                )
                .over_seeds(&over_seeds),
            );
        }
        if gap == 0 {
            let ahead = runs
                .iter()
                .flat_map(|p| (2..5).map(move |phase| newest_ahead(p, phase)))
                .filter(|&a| a)
                .count();
            let cases = runs.len() * 3;
            comparisons.push(
                Comparison::judged(
                    "one threshold: the newest contributor gets the most",
                    "yes (after each addition)",
                    format!("in {ahead} of {cases} phases and seeds"),
                    3 * ahead >= 2 * cases,
                    "in at least 2/3 of the phases and seeds",
                )
                .identified(
                    "t1cc-one-newest-ahead",
                    Some(1.0),
                    Some(ahead as f64 / cases as f64),
                ),
            );
        }
    }
    for (reading, _) in &READINGS[1..] {
        for (id, gap) in READING_VARIANTS {
            let runs = variant_runs(&reports, grid, &format!("{reading}-{id}"))?;
            let spreads: Vec<Spread> = (2..5)
                .map(|phase| Spread::of(&runs.iter().map(|p| ratio(p, phase)).collect::<Vec<_>>()))
                .collect();
            let worst = spreads.iter().map(|s| s.mean).fold(0.0, f64::max);
            let (paper, agrees, bound) = paper_ratio(gap, worst);
            let ours = spreads
                .iter()
                .map(|s| s.value(2))
                .collect::<Vec<_>>()
                .join(", ");
            comparisons.push(
                Comparison::judged(
                    format!(
                        "reading {reading}, {}: contributors' max / min with 2, 3, 4 on",
                        variant(gap)
                    ),
                    paper,
                    format!("{ours} {}", spreads[0].note()),
                    agrees,
                    format!("the greatest of the three phases' means over the seeds {bound}"),
                )
                .identified(
                    &format!("t1cc-{reading}-{id}-ratio"),
                    None,
                    Some(worst),
                ),
            );
        }
    }
    Ok(Findings::legacy(comparisons, files))
}

/// A threshold variant in words.
fn variant(gap: u32) -> String {
    match gap {
        0 => "one threshold".into(),
        _ => format!(
            "two thresholds {gap} blocks apart ({:.1} MTU)",
            f64::from(gap) / 32.0
        ),
    }
}

/// The Type II scenario (scenario 1's flows) with CC off, with Marking_Rate 1, and with
/// Marking_Rate 10 and a timer ten times as long (Paper II's Fig. 12), over three seeds.
pub(super) fn type2_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = vec![scenario_job(grid, &SCENARIO_1, "cc-off", &[])?];
    for seed in SEEDS {
        let seed_key = format!("seed={seed}");
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1,
            &format!("mr1-seed{seed}"),
            &[CC_ON.into(), seed_key.clone()],
        )?);
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1,
            &format!("mr10-seed{seed}"),
            &[
                CC_ON.into(),
                "congestion.marking_rate=10".into(),
                "congestion.ccti_timer=1500".into(),
                seed_key,
            ],
        )?);
    }
    Ok(jobs)
}

/// The contributors' shares of H5's link in `phase`.
fn shares(p: &Phases, phase: u32) -> Vec<f64> {
    let rates: Vec<f64> = CONTRIBUTORS.iter().map(|&c| p.gbps(c, phase)).collect();
    let total: f64 = rates.iter().sum();
    rates.iter().map(|r| r / total.max(1e-9)).collect()
}

/// The contributors' greatest over least throughput in the first `windows` windows after
/// phase `phase` starts.
fn early_ratio(p: &Phases, phase: u32, windows: usize) -> f64 {
    let rates: Vec<f64> = CONTRIBUTORS[..phase as usize]
        .iter()
        .map(|&c| {
            let samples = p.phase_samples(c, phase, windows);
            samples.iter().sum::<f64>() / samples.len().max(1) as f64
        })
        .collect();
    let (_, lo, hi) = spread(&rates);
    hi / lo.max(1e-9)
}

pub(super) fn type2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let mut comparisons = sink_shares(&off, "t2cc-off", 4);
    let runs = |prefix: &str| -> Result<Vec<Phases>> {
        SEEDS
            .iter()
            .map(|seed| Phases::new(report(&reports, &format!("{prefix}-seed{seed}"))?, grid))
            .collect()
    };
    let (mr1, mr10) = (runs("mr1")?, runs("mr10")?);
    for (i, &(src, _)) in CONTRIBUTORS.iter().enumerate() {
        let values = Spread::of(&mr1.iter().map(|p| shares(p, 4)[i]).collect::<Vec<_>>());
        comparisons.push(
            Comparison::judged(
                format!("Marking_Rate 1: {}'s share of H5's link", host(src)),
                "0.250 (equal)",
                values.describe(3, ""),
                (values.mean - 0.25).abs() <= 0.04,
                "mean over the seeds within ±0.04 of 0.250",
            )
            .identified(
                &format!("t2cc-mr1-share-{}", host(src).to_lowercase()),
                Some(0.25),
                Some(values.mean),
            )
            .over_seeds(&values),
        );
    }
    let victim = Spread::of(&mr1.iter().map(|p| p.gbps((0, 3), 4)).collect::<Vec<_>>());
    comparisons.push(
        Comparison::judged(
            "Marking_Rate 1: the victim H1 -> H4 with all contributors on",
            "unblocked (13 Gbit/s)",
            victim.describe(2, " Gbit/s"),
            victim.mean >= 12.35,
            "mean over the seeds >= 12.35 Gbit/s (95 % of 13)",
        )
        .identified("t2cc-mr1-victim", Some(13.0), Some(victim.mean))
        .over_seeds(&victim),
    );
    // A tenth of a second of windows after each addition, as long as the phase allows.
    let window: f64 = grid.param("window_us")?;
    let phase_us: f64 = grid.param("phase_us")?;
    let windows = ((100_000.0_f64).min(phase_us / 2.0) / window).round() as usize;
    for (name, runs, paper, unfair) in [
        (
            "Marking_Rate 1",
            &mr1,
            "fair soon after each addition",
            false,
        ),
        (
            "Marking_Rate 10, timer x10",
            &mr10,
            "unfair for a long time after each addition",
            true,
        ),
    ] {
        let ratios: Vec<f64> = runs
            .iter()
            .map(|p| {
                (2..5)
                    .map(|phase| early_ratio(p, phase, windows))
                    .fold(0.0, f64::max)
            })
            .collect();
        let over_seeds = Spread::of(&ratios);
        let mean = over_seeds.mean;
        comparisons.push(
            Comparison::judged(
                format!(
                    "{name}: contributors' max / min over the first {} ms after an addition (worst of three)",
                    windows as f64 * window / 1000.0
                ),
                paper,
                over_seeds.describe(2, ""),
                if unfair { mean > 1.3 } else { mean <= 1.3 },
                if unfair {
                    "mean over the seeds > 1.3"
                } else {
                    "mean over the seeds <= 1.3"
                },
            )
            .identified(
                &format!("t2cc-{}-early-ratio", if unfair { "mr10" } else { "mr1" }),
                None,
                Some(mean),
            )
            .over_seeds(&over_seeds),
        );
    }
    Ok(Findings::legacy(comparisons, files))
}
