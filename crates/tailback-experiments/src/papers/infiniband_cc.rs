//! Gran's InfiniBand studies with congestion control on (E. G. Gran, "Congestion Management in
//! Lossless Interconnection Networks", PhD thesis, University of Oslo, 2013): the testbed
//! scenarios of Paper III (Gran et al., IPDPS 2010; simulated as in Paper I) with IB CC at
//! Paper III's Table I parameters, beside the same runs with it off.

use tailback_core::stats::RunReport;

use super::infiniband::{
    FOLDER, Phases, SCENARIO_1, SCENARIO_2, Scenario, TYPE_1, host, run_scenarios, scenario_job,
    sink_shares,
};
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Experiment, Job, Outcome, Result};

/// The setting that turns InfiniBand congestion control on (Table I's parameters are its
/// defaults).
const CC_ON: &str = "congestion.mechanism=\"ib_cc\"";

/// Scenario 1 with every flow from the start (the message-size sweep).
const SCENARIO_1_AT_ONCE: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 0)],
};

/// Scenario 1 with four flows from the start and the last contributor (H7) one phase later: the
/// timer sweep measures the phase after that addition, when all four contributors are active
/// (Paper III's Var is taken over those instants).
const SCENARIO_1_LAST_ADDED: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 1)],
};

/// Message sizes of the sweep, bytes (Paper III's Fig. 9 does not list its sizes).
const MESSAGE_BYTES: [u32; 5] = [1024, 4096, 16384, 65536, 262144];

/// The experiments with congestion control on.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ib-testbed-s1",
            title: "InfiniBand testbed, scenario 1, CC off and on: the victim freed, the parking lot gone, and the victim's gain at several message sizes",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 1, Figs. 7-9; Gran's thesis Paper I, Fig. 7",
            folder: &FOLDER,
            jobs: s1_jobs,
            run: s1,
        },
        Experiment {
            name: "ib-timer-sweep",
            title: "InfiniBand testbed, scenario 1 with all five flows (the last added after one phase), CC on: the victim, the contributors and their fairness against CCTI_Timer and Marking_Rate",
            source: "Gran et al., IPDPS 2010 (Paper III), section VII, Figs. 11-14",
            folder: &FOLDER,
            jobs: sweep_jobs,
            run: sweep,
        },
        Experiment {
            name: "ib-type1",
            title: "Type I network (one switch), CC off, with one threshold and with two thresholds several gaps apart: the newest flow ahead, and hysteresis restoring fairness",
            source: "Gran et al., Paper II of Gran's thesis, Figs. 3, 4 and 7",
            folder: &FOLDER,
            jobs: type1_jobs,
            run: type1,
        },
        Experiment {
            name: "ib-type2",
            title: "Type II network (two switches, double-rate link), CC off and on with Marking_Rate 1 and 10: the parking lot solved, and long unfair spells with rare marks",
            source: "Gran et al., Paper II of Gran's thesis, Figs. 9, 11 and 12",
            folder: &FOLDER,
            jobs: type2_jobs,
            run: type2,
        },
        Experiment {
            name: "ib-testbed-s2",
            title: "InfiniBand testbed, scenario 2, CC off and on: the cost of congestion control with no victim to save",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 2, Table II",
            folder: &FOLDER,
            jobs: |grid| off_and_on(grid, &SCENARIO_2),
            run: s2,
        },
    ]
}

/// Seeds of the runs with random marking (R3-R5: three, their spread printed).
const SEEDS: [u64; 3] = [1, 2, 3];

/// The contributors to H5 in the Type I and Type II scenarios, in the order they start
/// (phases 1 to 4).
const CONTRIBUTORS: [(u32, u32); 4] = [(1, 4), (2, 4), (5, 4), (6, 4)];

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

/// A scenario with congestion control off and on.
fn off_and_on(grid: &Grid, scenario: &Scenario) -> Result<Vec<Job>> {
    Ok(vec![
        scenario_job(grid, scenario, "cc-off", &[])?,
        scenario_job(grid, scenario, "cc-on", &[CC_ON.into()])?,
    ])
}

/// Scenario 1 off and on, and every flow from the start at each message size, off and on.
fn s1_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = off_and_on(grid, &SCENARIO_1)?;
    for bytes in MESSAGE_BYTES {
        // Room for two whole messages in each source queue, so that none is cut short.
        let packets = bytes.div_ceil(2048);
        let size = format!("traffic.message_bytes={bytes}");
        let queue = format!("nic.source_queue_packets={}", (2 * packets).max(64));
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1_AT_ONCE,
            &format!("msg-{bytes}-off"),
            &[size.clone(), queue.clone()],
        )?);
        jobs.push(scenario_job(
            grid,
            &SCENARIO_1_AT_ONCE,
            &format!("msg-{bytes}-on"),
            &[size, queue, CC_ON.into()],
        )?);
    }
    Ok(jobs)
}

/// The report of job `id`.
fn report<'a>(
    reports: &'a std::collections::BTreeMap<String, RunReport>,
    id: &str,
) -> Result<&'a RunReport> {
    reports
        .get(id)
        .ok_or_else(|| Error::Input(format!("the run `{id}` is missing")))
}

/// The standard deviation of `samples`.
fn sd(samples: &[f64]) -> f64 {
    let n = samples.len().max(1) as f64;
    let mean = samples.iter().sum::<f64>() / n;
    (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

fn s1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    let gbit = (2, " Gbit/s");
    let victim = (0, 3);
    let contributors = [(1, 4), (2, 4), (5, 4), (6, 4)];
    let mut comparisons = Vec::new();
    for phase in 0..5 {
        comparisons.push(Comparison::numbers(
            &format!("s1cc-f1-phase{phase}"),
            format!("CC on: the victim F1 (H1 -> H4) in phase {phase}"),
            13.0,
            on.gbps(victim, phase),
            0.05,
            gbit,
        ));
    }
    let total: f64 = contributors.iter().map(|&c| on.gbps(c, 4)).sum();
    for &(src, dst) in &contributors {
        let ours = on.gbps((src, dst), 4);
        comparisons.push(Comparison::numbers(
            &format!("s1cc-five-{}", host(src).to_lowercase()),
            format!("CC on: {} -> H5 with all five flows on", host(src)),
            13.0 / 4.0,
            ours,
            0.15,
            gbit,
        ));
        let share = ours / total;
        comparisons.push(
            Comparison::new(
                format!("CC on: {}'s share of H5's link", host(src)),
                "0.250 (the parking lot solved)",
                format!("{share:.3}"),
                Some((share - 0.25).abs() <= 0.04),
            )
            .identified(
                &format!("s1cc-share-{}", host(src).to_lowercase()),
                Some(0.25),
                Some(share),
            ),
        );
    }
    let two = on.gbps((1, 4), 2) + on.gbps((2, 4), 2);
    comparisons.push(
        Comparison::new(
            "CC on: F2 + F3 while they are the only contributors",
            "≈ 11 Gbit/s (hardware); ≈ 13 (Paper I's simulation)",
            format!("{two:.2} Gbit/s"),
            Some((9.35..=14.95).contains(&two)),
        )
        .identified("s1cc-two-contributors", Some(11.0), Some(two)),
    );
    // Each contributor's spread over time, averaged over the four.
    let spread = |p: &Phases| {
        contributors
            .iter()
            .map(|&c| sd(&p.samples(c, 4)))
            .sum::<f64>()
            / 4.0
    };
    let (sd_off, sd_on) = (spread(&off), spread(&on));
    comparisons.push(
        Comparison::new(
            "a contributor's throughput samples with all five flows, standard deviation off and on",
            "CC on: the contributors oscillate",
            format!("{sd_off:.3} off, {sd_on:.3} on (Gbit/s)"),
            Some(sd_on > 5.0 * sd_off.max(0.01)),
        )
        .identified("s1cc-oscillation", None, Some(sd_on)),
    );
    for bytes in MESSAGE_BYTES {
        let at = |state: &str| -> Result<f64> {
            let r = report(&reports, &format!("msg-{bytes}-{state}"))?;
            Ok(Phases::new(r, grid)?.gbps(victim, 0))
        };
        let (v_off, v_on) = (at("off")?, at("on")?);
        let gain = v_on / v_off.max(1e-9);
        comparisons.push(
            Comparison::new(
                format!("the victim's gain from CC with {bytes}-byte messages"),
                "≈ 10x (about an order of magnitude, hardware)",
                format!("{gain:.1}x ({v_off:.2} -> {v_on:.2} Gbit/s)"),
                Some(gain >= 5.0),
            )
            .identified(&format!("s1cc-msg-{bytes}-gain"), Some(10.0), Some(gain)),
        );
    }
    Ok(Outcome { comparisons, files })
}

fn s2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let on = Phases::new(report(&reports, "cc-on")?, grid)?;
    let flows: Vec<(u32, u32)> = SCENARIO_2.flows.iter().map(|&(s, d, _)| (s, d)).collect();
    let mut comparisons = Vec::new();
    let mut means = Vec::new();
    for (i, &flow) in flows.iter().enumerate() {
        let ours = on.gbps(flow, 2);
        means.push(ours);
        comparisons.push(Comparison::numbers(
            &format!("s2cc-f{}", i + 1),
            format!(
                "CC on: F{} ({} -> {}) with all three on, mean",
                i + 1,
                host(flow.0),
                host(flow.1)
            ),
            10.05855,
            ours,
            0.05,
            (2, " Gbit/s"),
        ));
    }
    let mean = |p: &Phases| flows.iter().map(|&f| p.gbps(f, 2)).sum::<f64>() / 3.0;
    let drop = 1.0 - mean(&on) / mean(&off);
    comparisons.push(
        Comparison::new(
            "CC on: the mean's drop from CC off",
            "3.5 % (10.43 -> 10.06 Gbit/s)",
            format!("{:.1} %", 100.0 * drop),
            Some((0.02..=0.06).contains(&drop)),
        )
        .identified("s2cc-drop", Some(0.0354), Some(drop)),
    );
    // Each flow's spread over time, averaged over the three (Table II's "All" pools them; the
    // flows' means are nearly equal, so the two agree).
    let spread = |p: &Phases| flows.iter().map(|&f| sd(&p.samples(f, 2))).sum::<f64>() / 3.0;
    let (sd_off, sd_on) = (spread(&off), spread(&on));
    let window: f64 = grid.param("window_us")?;
    comparisons.push(
        Comparison::new(
            format!("standard deviation of the {window} µs samples, CC on"),
            "1.770 Gbit/s (42 Mbit/s off: 42x)",
            format!("{sd_on:.3} Gbit/s ({sd_off:.3} off)"),
            Some(sd_on >= 10.0 * sd_off),
        )
        .identified("s2cc-sd", Some(1.77045), Some(sd_on)),
    );
    let (lo, hi) = means.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    });
    comparisons.push(
        Comparison::new(
            "CC on: the three flows' means, max / min",
            "fair (10.07, 10.12, 9.99)",
            format!("{:.3}", hi / lo),
            Some(hi / lo <= 1.05),
        )
        .identified("s2cc-fairness", Some(10.12461 / 9.986035), Some(hi / lo)),
    );
    Ok(Outcome { comparisons, files })
}

/// The mean, least and greatest of `values`.
fn spread(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len().max(1) as f64;
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    (values.iter().sum::<f64>() / n, lo, hi)
}

/// "mean (min-max)" of `values` with `digits` decimals.
fn with_spread(values: &[f64], digits: usize) -> String {
    let (mean, lo, hi) = spread(values);
    format!(
        "{mean:.digits$} ({lo:.digits$}-{hi:.digits$} over {} seeds)",
        values.len()
    )
}

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

/// The Type I scenario with CC off, and with each threshold variant over three seeds.
fn type1_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = vec![scenario_job(grid, &TYPE_1, "cc-off", &[])?];
    for (id, gap) in THRESHOLDS {
        for seed in SEEDS {
            jobs.push(scenario_job(
                grid,
                &TYPE_1,
                &format!("{id}-seed{seed}"),
                &[
                    CC_ON.into(),
                    format!("congestion.threshold_blocks={UPPER_BLOCKS}"),
                    format!("congestion.hysteresis_blocks={gap}"),
                    format!("seed={seed}"),
                ],
            )?);
        }
    }
    Ok(jobs)
}

fn type1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
    let mut files = Vec::new();
    let reports = run_scenarios(ctx, jobs, &mut files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    let mut comparisons = Vec::new();
    for phase in 2..5 {
        let r = ratio(&off, phase);
        comparisons.push(
            Comparison::new(
                format!("CC off: contributors' max / min with {phase} on"),
                "1 (equal shares)",
                format!("{r:.3}"),
                Some(r <= 1.02),
            )
            .identified(&format!("t1cc-off-ratio-{phase}"), Some(1.0), Some(r)),
        );
    }
    for (id, gap) in THRESHOLDS {
        let runs: Vec<Phases> = SEEDS
            .iter()
            .map(|seed| Phases::new(report(&reports, &format!("{id}-seed{seed}"))?, grid))
            .collect::<Result<_>>()?;
        for phase in 2..5 {
            let ratios: Vec<f64> = runs.iter().map(|p| ratio(p, phase)).collect();
            let (mean, _, _) = spread(&ratios);
            let (paper, agrees) = match gap {
                0 => (
                    "at least 1.3, the newest flow ahead (H6 about 2x H3)",
                    mean >= 1.3,
                ),
                16 | 32 => (
                    "above 1 (a gap of at most 1 MTU does not fix it)",
                    mean > 1.1,
                ),
                _ => ("at most 1.1 (equal shares)", mean <= 1.1),
            };
            comparisons.push(
                Comparison::new(
                    format!("{}: contributors' max / min with {phase} on", variant(gap)),
                    paper,
                    with_spread(&ratios, 2),
                    Some(agrees),
                )
                .identified(&format!("t1cc-{id}-ratio-{phase}"), None, Some(mean)),
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
                Comparison::new(
                    "one threshold: the newest contributor gets the most",
                    "yes (after each addition)",
                    format!("in {ahead} of {cases} phases and seeds"),
                    Some(3 * ahead >= 2 * cases),
                )
                .identified(
                    "t1cc-one-newest-ahead",
                    Some(1.0),
                    Some(ahead as f64 / cases as f64),
                ),
            );
        }
    }
    Ok(Outcome { comparisons, files })
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
fn type2_jobs(grid: &Grid) -> Result<Vec<Job>> {
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

fn type2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
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
        let values: Vec<f64> = mr1.iter().map(|p| shares(p, 4)[i]).collect();
        let (mean, _, _) = spread(&values);
        comparisons.push(
            Comparison::new(
                format!("Marking_Rate 1: {}'s share of H5's link", host(src)),
                "0.250 (equal)",
                with_spread(&values, 3),
                Some((mean - 0.25).abs() <= 0.04),
            )
            .identified(
                &format!("t2cc-mr1-share-{}", host(src).to_lowercase()),
                Some(0.25),
                Some(mean),
            ),
        );
    }
    let victim: Vec<f64> = mr1.iter().map(|p| p.gbps((0, 3), 4)).collect();
    let (v, _, _) = spread(&victim);
    comparisons.push(
        Comparison::new(
            "Marking_Rate 1: the victim H1 -> H4 with all contributors on",
            "unblocked (13 Gbit/s)",
            format!("{} Gbit/s", with_spread(&victim, 2)),
            Some(v >= 12.35),
        )
        .identified("t2cc-mr1-victim", Some(13.0), Some(v)),
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
        let (mean, _, _) = spread(&ratios);
        comparisons.push(
            Comparison::new(
                format!(
                    "{name}: contributors' max / min over the first {} ms after an addition (worst of three)",
                    windows as f64 * window / 1000.0
                ),
                paper,
                with_spread(&ratios, 2),
                Some(if unfair { mean > 1.3 } else { mean <= 1.3 }),
            )
            .identified(
                &format!("t2cc-{}-early-ratio", if unfair { "mr10" } else { "mr1" }),
                None,
                Some(mean),
            ),
        );
    }
    Ok(Outcome { comparisons, files })
}

/// The readings of the timer and of the injection rate delay the thesis leaves open (name,
/// settings): free-running or restarted by each BECN; a gap after the packet or start to start.
const READINGS: [(&str, &[&str]); 4] = [
    ("per-sl-gap", &[]),
    ("restart-gap", &["congestion.timer=\"per_flow_restart\""]),
    ("per-sl-start", &["congestion.ird=\"start_to_start\""]),
    (
        "restart-start",
        &[
            "congestion.timer=\"per_flow_restart\"",
            "congestion.ird=\"start_to_start\"",
        ],
    ),
];

/// Scenario 1 (the last contributor added after a phase), CC on, for every timer, marking rate
/// and seed of the grid, and for every reading at a few timers and one marking rate.
fn sweep_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let timers: Vec<f64> = grid.param("timers_us")?;
    let rates: Vec<u32> = grid.param("marking_rates")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut jobs = Vec::new();
    for &timer in &timers {
        for &rate in &rates {
            for &seed in &seeds {
                jobs.push(scenario_job(
                    grid,
                    &SCENARIO_1_LAST_ADDED,
                    &sweep_id(timer, rate, seed),
                    &[
                        CC_ON.into(),
                        format!("congestion.ccti_timer={timer}"),
                        format!("congestion.marking_rate={rate}"),
                        format!("seed={seed}"),
                    ],
                )?);
            }
        }
    }
    let reading_timers: Vec<f64> = grid.param("readings_timers_us")?;
    let reading_rate: u32 = grid.param("readings_rate")?;
    for (name, settings) in READINGS {
        for &timer in &reading_timers {
            for &seed in &seeds {
                let mut all = vec![
                    CC_ON.to_string(),
                    format!("congestion.ccti_timer={timer}"),
                    format!("congestion.marking_rate={reading_rate}"),
                    format!("seed={seed}"),
                ];
                all.extend(settings.iter().map(|s| s.to_string()));
                jobs.push(scenario_job(
                    grid,
                    &SCENARIO_1_LAST_ADDED,
                    &format!("{name}-{}", sweep_id(timer, reading_rate, seed)),
                    &all,
                )?);
            }
        }
    }
    Ok(jobs)
}

/// The victim's mean, the contributors' mean and Var of job `id`, over the phase after the
/// last contributor joined.
fn sweep_point(
    reports: &std::collections::BTreeMap<String, RunReport>,
    grid: &Grid,
    id: &str,
) -> Result<(f64, f64, f64)> {
    let p = Phases::new(report(reports, id)?, grid)?;
    Ok((
        p.gbps((0, 3), 1),
        CONTRIBUTORS.iter().map(|&f| p.gbps(f, 1)).sum::<f64>() / 4.0,
        treatment_variation(&p),
    ))
}

/// R3's shape under each reading of the timer and the delay: the victim's mean, the
/// contributors' mean and Var at each timer (`timer_readings.csv`), and whether the victim
/// collapses below 150 µs, keeps its rate from 150 µs on and Var grows with the timer.
fn readings(
    ctx: &Context,
    grid: &Grid,
    reports: &std::collections::BTreeMap<String, RunReport>,
    seeds: &[u64],
) -> Result<(Vec<Comparison>, std::path::PathBuf)> {
    let timers: Vec<f64> = grid.param("readings_timers_us")?;
    let rate: u32 = grid.param("readings_rate")?;
    let mut table = String::from("reading,timer_us,victim_gbps,contributor_gbps,var\n");
    let mut comparisons = Vec::new();
    for (name, _) in READINGS {
        let mut points = Vec::new();
        for &timer in &timers {
            let mut at = Vec::new();
            for &seed in seeds {
                let id = format!("{name}-{}", sweep_id(timer, rate, seed));
                at.push(sweep_point(reports, grid, &id)?);
            }
            let mean =
                |f: fn(&(f64, f64, f64)) -> f64| spread(&at.iter().map(f).collect::<Vec<_>>()).0;
            let point = (timer, mean(|p| p.0), mean(|p| p.1), mean(|p| p.2));
            table.push_str(&format!(
                "{name},{timer},{:.4},{:.4},{:.5}\n",
                point.1, point.2, point.3
            ));
            points.push(point);
        }
        let low = points.iter().filter(|p| p.0 < 150.0).all(|p| p.1 < 6.5);
        let good: Vec<_> = points.iter().filter(|p| p.0 >= 150.0).collect();
        let kept = good.iter().all(|p| p.1 >= 12.35);
        let grows = match (good.first(), good.last()) {
            (Some(first), Some(last)) => last.3 > first.3,
            _ => false,
        };
        let ours = points
            .iter()
            .map(|p| format!("{:.0} µs: {:.2} ({:.3})", p.0, p.1, p.3))
            .collect::<Vec<_>>()
            .join(", ");
        comparisons.push(
            Comparison::new(
                format!("reading {name}, Marking_Rate {rate}: the victim (Var) against the timer"),
                "collapses below 150 µs, at its limit from 150 µs, Var growing",
                ours,
                Some(low && kept && grows),
            )
            .identified(&format!("sweep-reading-{name}"), None, None),
        );
    }
    let csv = ctx.out().join("timer_readings.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    Ok((comparisons, csv))
}

/// The id of a sweep job.
fn sweep_id(timer_us: f64, rate: u32, seed: u64) -> String {
    format!("timer{timer_us}-mr{rate}-seed{seed}")
}

/// Paper III's treatment variation: the variance, over the sampling instants of the phase after
/// the last contributor joined, of the spread (max - min) of the four contributors' throughput.
fn treatment_variation(p: &Phases) -> f64 {
    let samples: Vec<Vec<f64>> = CONTRIBUTORS
        .iter()
        .map(|&c| p.phase_samples(c, 1, usize::MAX))
        .collect();
    let n = samples.iter().map(Vec::len).min().unwrap_or(0);
    let deltas: Vec<f64> = (0..n)
        .map(|t| {
            let (_, lo, hi) = spread(&samples.iter().map(|s| s[t]).collect::<Vec<_>>());
            hi - lo
        })
        .collect();
    let (mean, _, _) = spread(&deltas);
    deltas.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / deltas.len().max(1) as f64
}

fn sweep(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
    let timers: Vec<f64> = grid.param("timers_us")?;
    let rates: Vec<u32> = grid.param("marking_rates")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    // Per timer and rate, over the seeds: the victim's mean, the contributors' mean and Var.
    let mut table = String::from("timer_us,marking_rate,victim_gbps,contributor_gbps,var\n");
    let mut by_timer: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut victim_low_ok = true;
    for &timer in &timers {
        let (mut victims, mut contributors, mut vars) = (Vec::new(), Vec::new(), Vec::new());
        for &rate in &rates {
            let (mut v, mut c, mut var) = (Vec::new(), Vec::new(), Vec::new());
            for &seed in &seeds {
                let (victim, contributor, variation) =
                    sweep_point(&reports, grid, &sweep_id(timer, rate, seed))?;
                v.push(victim);
                c.push(contributor);
                var.push(variation);
            }
            let (v, c, var) = (spread(&v).0, spread(&c).0, spread(&var).0);
            table.push_str(&format!("{timer},{rate},{v:.4},{c:.4},{var:.5}\n"));
            if timer < 150.0 && v >= 6.5 {
                victim_low_ok = false;
            }
            victims.push(v);
            contributors.push(c);
            vars.push(var);
        }
        by_timer.push((
            timer,
            spread(&victims).0,
            spread(&contributors).0,
            spread(&vars).0,
        ));
    }
    let csv = ctx.out().join("timer_sweep.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    let low_timers = by_timer
        .iter()
        .filter(|t| t.0 < 150.0)
        .map(|t| format!("{:.0} µs: {:.2}", t.0, t.1))
        .collect::<Vec<_>>()
        .join(", ");
    let mut comparisons = vec![
        Comparison::new(
            "the victim below half its rate for every timer under 150 µs, at every rate",
            "it collapses (the tree re-forms)",
            low_timers,
            Some(victim_low_ok),
        )
        .identified("sweep-victim-low-timers", None, None),
    ];
    let good: Vec<&(f64, f64, f64, f64)> = by_timer.iter().filter(|t| t.0 >= 150.0).collect();
    if let (Some(first), Some(last)) = (good.first(), good.last()) {
        let flat = good.iter().all(|t| (t.2 / first.2 - 1.0).abs() <= 0.10);
        comparisons.push(
            Comparison::new(
                "the contributors' mean from 150 µs to the longest timer",
                "flat (within 10 %)",
                good.iter()
                    .map(|t| format!("{:.0} µs: {:.2}", t.0, t.2))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(flat),
            )
            .identified("sweep-contributors-flat", None, Some(last.2 / first.2)),
        );
        comparisons.push(
            Comparison::new(
                "the victim from 150 µs on",
                "at its PCIe limit (13 Gbit/s)",
                good.iter()
                    .map(|t| format!("{:.0} µs: {:.2}", t.0, t.1))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(good.iter().all(|t| t.1 >= 12.35)),
            )
            .identified("sweep-victim-good-timers", Some(13.0), Some(first.1)),
        );
        comparisons.push(
            Comparison::new(
                "the contributors' treatment variation (Var) from 150 µs to the longest timer",
                "grows with the timer (fairness best at low timers)",
                format!("{:.4} -> {:.4}", first.3, last.3),
                Some(last.3 > first.3),
            )
            .identified("sweep-var-grows", None, Some(last.3 / first.3.max(1e-12))),
        );
    }
    let (by_reading, readings_csv) = readings(ctx, grid, &reports, &seeds)?;
    comparisons.extend(by_reading);
    Ok(Outcome {
        comparisons,
        files: vec![csv, readings_csv],
    })
}
