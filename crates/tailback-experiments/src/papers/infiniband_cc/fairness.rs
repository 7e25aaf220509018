//! Paper II's fairness studies with IB CC: one threshold against hysteresis on the Type I
//! network (R4), and the parking lot on the Type II network with Marking_Rate 1 and 10 (R5).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::{CC_ON, CONTRIBUTORS, READINGS, SEEDS, report, spread};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source, Tolerance};
use crate::grid::Grid;
use crate::papers::infiniband::{
    Phases, SCENARIO_1, T2_FIG_9, TYPE_1, run_scenarios, scenario_job, set_shares, share_claims,
};
use crate::spread::Spread;
use crate::{Context, Job, Result};

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

/// Paper II's Type I network with CC off.
const FIG_3: Source = Source::new(Paper::GranII, "Sec. IV, Fig. 3");
/// Paper II's Type I network with one threshold.
const FIG_4: Source = Source::new(Paper::GranII, "Sec. IV-A, Fig. 4");
/// Paper II's Type I network with two thresholds.
const FIG_7: Source = Source::new(Paper::GranII, "Sec. IV-B, Fig. 7");
/// Paper II's common thresholds.
const SEC_IV_C: Source = Source::new(Paper::GranII, "Sec. IV-C");
/// Paper II's Type II network with Marking_Rate 1.
const FIG_11: Source = Source::new(Paper::GranII, "Sec. V, Fig. 11");
/// Paper II's Type II network with Marking_Rate 10 and the timer ten times as long.
const FIG_12: Source = Source::new(Paper::GranII, "Sec. V, Fig. 12");
/// Paper II's hardware run of the Type II network.
const FIG_13: Source = Source::new(Paper::GranII, "Sec. VI, Fig. 13");

/// The contributors active in `phase` and their greatest over least mean throughput.
fn ratio(p: &Phases, phase: u32) -> f64 {
    let rates: Vec<f64> = CONTRIBUTORS[..phase as usize]
        .iter()
        .map(|&c| p.gbps(c, phase))
        .collect();
    let (_, lo, hi) = spread(&rates);
    hi / lo.max(1e-9)
}

/// The newest contributor of `phase` and the best of the older ones, Gbit/s.
fn newest_and_best_older(p: &Phases, phase: u32) -> (f64, f64) {
    let (newest, older) = CONTRIBUTORS[..phase as usize]
        .split_last()
        .expect("a phase with contributors");
    let best = older.iter().map(|&c| p.gbps(c, phase)).fold(0.0, f64::max);
    (p.gbps(*newest, phase), best)
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

/// "Equal shares": the contributors' max / min within 10 % of 1, against the one threshold's
/// 2 (H6 twice H3).
const EQUAL: Rule = Rule::Zero {
    within: 0.1,
    failing: 1.0,
};

/// One threshold with three contributors: H6 twice H3 and H2 between them, a max / min of 2
/// ("twice" read as ±15 %).
const TWICE: Rule = Rule::near(2.0, 0.15);

/// What Paper II states of the Type I network with CC off, one threshold and two.
pub(super) fn type1_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for phase in 2..5 {
        claims.claim(
            Claim::new(
                format!("t1cc-off-ratio-{phase}"),
                format!("CC off: contributors' max / min - 1 with {phase} on"),
                FIG_3,
                Rule::Zero {
                    within: 0.02,
                    failing: 0.5,
                },
            )
            .shown(3, "")
            .stated("0: evenly shared (round robin is fair)"),
        );
    }
    one_threshold_claims(&mut claims);
    for (id, gap) in &THRESHOLDS[1..] {
        for phase in 2..5 {
            let what = format!("{}: contributors' max / min", variant(*gap));
            let claim = if *gap <= 32 {
                Claim::new(
                    format!("t1cc-{id}-ratio-{phase}"),
                    format!("{what} with {phase} on, against a gap of 3 MTU"),
                    FIG_7,
                    Rule::Order {
                        higher: "this gap",
                        lower: "a gap of 3 MTU",
                    },
                )
                .shown(3, "")
                .stated("unfair: a hysteresis of more than one MTU is needed")
            } else {
                Claim::new(
                    format!("t1cc-{id}-ratio-{phase}"),
                    format!("{what} - 1 with {phase} on"),
                    FIG_7,
                    EQUAL,
                )
                .shown(3, "")
                .stated("0: all contributors settle quickly for their fair share")
            };
            claims.claim(claim);
        }
    }
    for (reading, _) in &READINGS[1..] {
        claims
            .claim(
                Claim::new(
                    format!("t1cc-{reading}-one-ratio"),
                    format!("reading {reading}, one threshold: contributors' max / min with 3 on"),
                    FIG_4,
                    TWICE,
                )
                .shown(2, "")
                .stated("2 (H6 twice H3, H2 between)"),
            )
            .claim(
                Claim::new(
                    format!("t1cc-{reading}-gap97-ratio"),
                    format!(
                        "reading {reading}, {}: contributors' max / min - 1, worst of 2, 3, 4 on",
                        variant(97)
                    ),
                    FIG_7,
                    EQUAL,
                )
                .shown(3, "")
                .stated("0: equal shares"),
            );
    }
    claims.not_compared(
        SEC_IV_C,
        "one threshold per VoQ against one common threshold on their summed occupancy",
        "quite similar",
        "not run here: the detection is the summed occupancy, as in Paper II's hardware \
         comparison (one-seed per-VoQ runs are in docs/validation.md)",
    );
    Ok(claims)
}

/// Paper II's one-threshold results (Fig. 4), which do not reproduce here.
fn one_threshold_claims(claims: &mut Claims) {
    let gbps = |id: &str, what: &str, rule: Rule, stated: &str| {
        Claim::new(id, what, FIG_4, rule)
            .shown(2, " Gbit/s")
            .stated(stated)
    };
    claims
        .claim(gbps(
            "t1cc-one-h3-phase2",
            "one threshold: H3 with 2 contributors",
            // "A little more than 7": 7 to 7.5.
            Rule::Near {
                value: 7.25,
                tolerance: Tolerance::Absolute(0.25),
            },
            "a little more than 7 Gbit/s",
        ))
        .claim(gbps(
            "t1cc-one-h3-over-h2",
            "one threshold: H3 - H2 with 2 contributors",
            // "About 1 Gbit/s": ±25 %.
            Rule::Signed {
                value: 1.0,
                tolerance: 0.25,
            },
            "about 1 Gbit/s higher",
        ))
        .claim(
            Claim::new(
                "t1cc-one-ratio-3",
                "one threshold: contributors' max / min with 3 on",
                FIG_4,
                TWICE,
            )
            .shown(2, "")
            .stated("2 (H6 twice H3, H2 between)"),
        )
        .claim(gbps(
            "t1cc-one-h2-phase3",
            "one threshold: H2 with 3 contributors",
            // "A little less than 5": 4.5 to 5.
            Rule::Near {
                value: 4.75,
                tolerance: Tolerance::Absolute(0.25),
            },
            "a little less than 5 Gbit/s",
        ));
    for phase in 2..5 {
        claims.claim(
            Claim::new(
                format!("t1cc-one-newest-ahead-{phase}"),
                format!(
                    "one threshold, {phase} on: the newest contributor against the best older one"
                ),
                FIG_4,
                Rule::Order {
                    higher: "the newest",
                    lower: "the best older one",
                },
            )
            .shown(2, " Gbit/s")
            .stated("the largest share always goes to the last flow added"),
        );
    }
}

pub(super) fn type1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let reports = run_scenarios(ctx, jobs, &mut found.files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    for phase in 2..5 {
        found.set(
            format!("t1cc-off-ratio-{phase}"),
            Ours::Value(ratio(&off, phase) - 1.0),
        );
    }
    let ratios = |runs: &[Phases], phase: u32| -> Vec<f64> {
        runs.iter().map(|p| ratio(p, phase)).collect()
    };
    let one = variant_runs(&reports, grid, "one")?;
    let gbps = |flow: (u32, u32), phase: u32| -> Vec<f64> {
        one.iter().map(|p| p.gbps(flow, phase)).collect()
    };
    let (h2, h3) = (CONTRIBUTORS[0], CONTRIBUTORS[1]);
    found.set("t1cc-one-h3-phase2", Ours::Seeds(gbps(h3, 2)));
    let lead: Vec<f64> = gbps(h3, 2)
        .into_iter()
        .zip(gbps(h2, 2))
        .map(|(a, b)| a - b)
        .collect();
    found.set("t1cc-one-h3-over-h2", Ours::Seeds(lead));
    found.set("t1cc-one-ratio-3", Ours::Seeds(ratios(&one, 3)));
    found.set("t1cc-one-h2-phase3", Ours::Seeds(gbps(h2, 3)));
    for phase in 2..5 {
        let pairs = one.iter().map(|p| newest_and_best_older(p, phase));
        found.set(
            format!("t1cc-one-newest-ahead-{phase}"),
            Ours::Paired(pairs.collect()),
        );
        found.info(
            format!("one threshold: contributors' max / min with {phase} on"),
            "unfair",
            Spread::of(&ratios(&one, phase)).describe(2, ""),
        );
    }
    let widest = variant_runs(&reports, grid, "gap97")?;
    for (id, gap) in &THRESHOLDS[1..] {
        let runs = variant_runs(&reports, grid, id)?;
        for phase in 2..5 {
            let ours = if *gap <= 32 {
                let paired = ratios(&runs, phase).into_iter().zip(ratios(&widest, phase));
                Ours::Paired(paired.collect())
            } else {
                Ours::Seeds(ratios(&runs, phase).iter().map(|r| r - 1.0).collect())
            };
            found.set(format!("t1cc-{id}-ratio-{phase}"), ours);
        }
    }
    for (reading, _) in &READINGS[1..] {
        let one = variant_runs(&reports, grid, &format!("{reading}-one"))?;
        found.set(
            format!("t1cc-{reading}-one-ratio"),
            Ours::Seeds(ratios(&one, 3)),
        );
        let gap = variant_runs(&reports, grid, &format!("{reading}-gap97"))?;
        let worst = gap
            .iter()
            .map(|p| (2..5).map(|phase| ratio(p, phase)).fold(0.0, f64::max) - 1.0);
        found.set(
            format!("t1cc-{reading}-gap97-ratio"),
            Ours::Seeds(worst.collect()),
        );
        for (name, runs, paper) in [
            (
                "one threshold".to_string(),
                &one,
                "unfair (H6 twice H3 with 3 on)",
            ),
            (variant(97), &gap, "equal shares"),
        ] {
            let by_phase: Vec<String> = (2..5)
                .map(|phase| Spread::of(&ratios(runs, phase)).value(2))
                .collect();
            found.info(
                format!("reading {reading}, {name}: contributors' max / min with 2, 3, 4 on"),
                paper,
                by_phase.join(", "),
            );
        }
    }
    Ok(found)
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

/// The contributors' shares of H5's link in `phase`.
fn shares(p: &Phases, phase: u32) -> Vec<f64> {
    let rates: Vec<f64> = CONTRIBUTORS.iter().map(|&c| p.gbps(c, phase)).collect();
    let total: f64 = rates.iter().sum();
    rates.iter().map(|r| r / total.max(1e-9)).collect()
}

/// H6 and H7's share of H5's link with all four contributors on.
fn local_share(p: &Phases) -> f64 {
    let rates: Vec<f64> = CONTRIBUTORS.iter().map(|&c| p.gbps(c, 4)).collect();
    (rates[2] + rates[3]) / rates.iter().sum::<f64>().max(1e-9)
}

/// What Paper II states of the Type II network with CC off, Marking_Rate 1 and 10.
pub(super) fn type2_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    share_claims(&mut claims, "t2cc-off", T2_FIG_9);
    for &(src, _) in &CONTRIBUTORS {
        let h = crate::papers::infiniband::host(src);
        claims.claim(
            Claim::new(
                format!("t2cc-mr1-share-{}", h.to_lowercase()),
                format!("Marking_Rate 1: {h}'s share of H5's link"),
                FIG_11,
                Rule::Near {
                    value: 0.25,
                    tolerance: Tolerance::Absolute(0.04),
                },
            )
            .shown(3, "")
            .stated("0.250 (the four contributors equalized)"),
        );
    }
    claims
        .claim(
            Claim::new(
                "t2cc-mr1-victim",
                "Marking_Rate 1: the victim H1 -> H4 with all contributors on",
                FIG_11,
                Rule::near(13.0, 0.05),
            )
            .shown(2, " Gbit/s")
            .stated("13 Gbit/s (the HoL blocking is gone)"),
        )
        .claim(
            Claim::new(
                "t2cc-mr10-early-ratio",
                "contributors' max / min soon after an addition (worst of three), Marking_Rate \
                 10 with the timer x10 against Marking_Rate 1",
                FIG_12,
                Rule::Order {
                    higher: "Marking_Rate 10",
                    lower: "Marking_Rate 1",
                },
            )
            .shown(2, "")
            .stated("an unfairness for an extended period each time a contributor is added"),
        )
        .claim(
            Claim::new(
                "t2cc-mr10-parking",
                "H6 + H7's share of H5's link with all four on, CC off against Marking_Rate 10",
                FIG_12,
                Rule::Order {
                    higher: "CC off",
                    lower: "Marking_Rate 10",
                },
            )
            .shown(3, "")
            .stated("the parking lot still to some degree solved"),
        )
        .not_compared(
            FIG_13,
            "the hardware's Type II network with CC on against the simulation (Fig. 11)",
            "a strong correlation",
            "a hardware figure with no number in the text (digitised only)",
        );
    Ok(claims)
}

pub(super) fn type2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let reports = run_scenarios(ctx, jobs, &mut found.files)?;
    let off = Phases::new(report(&reports, "cc-off")?, grid)?;
    set_shares(&mut found, &off, "t2cc-off", 4);
    let runs = |prefix: &str| -> Result<Vec<Phases>> {
        SEEDS
            .iter()
            .map(|seed| Phases::new(report(&reports, &format!("{prefix}-seed{seed}"))?, grid))
            .collect()
    };
    let (mr1, mr10) = (runs("mr1")?, runs("mr10")?);
    for (i, &(src, _)) in CONTRIBUTORS.iter().enumerate() {
        let h = crate::papers::infiniband::host(src).to_lowercase();
        found.set(
            format!("t2cc-mr1-share-{h}"),
            Ours::Seeds(mr1.iter().map(|p| shares(p, 4)[i]).collect()),
        );
    }
    found.set(
        "t2cc-mr1-victim",
        Ours::Seeds(mr1.iter().map(|p| p.gbps((0, 3), 4)).collect()),
    );
    // A tenth of a second of windows after each addition, as long as the phase allows.
    let window: f64 = grid.param("window_us")?;
    let phase_us: f64 = grid.param("phase_us")?;
    let windows = ((100_000.0_f64).min(phase_us / 2.0) / window).round() as usize;
    let worst_early = |runs: &[Phases]| -> Vec<f64> {
        runs.iter()
            .map(|p| {
                (2..5)
                    .map(|phase| early_ratio(p, phase, windows))
                    .fold(0.0, f64::max)
            })
            .collect()
    };
    let (early1, early10) = (worst_early(&mr1), worst_early(&mr10));
    found.info(
        format!(
            "Marking_Rate 1: contributors' max / min over the first {} ms after an addition \
             (worst of three)",
            windows as f64 * window / 1000.0
        ),
        "fair soon after each addition",
        Spread::of(&early1).describe(2, ""),
    );
    found.set(
        "t2cc-mr10-early-ratio",
        Ours::Paired(early10.into_iter().zip(early1).collect()),
    );
    let off_share = local_share(&off);
    found.set(
        "t2cc-mr10-parking",
        Ours::Paired(mr10.iter().map(|p| (off_share, local_share(p))).collect()),
    );
    let mr10_shares: Vec<String> = (0..4)
        .map(|i| {
            let s: Vec<f64> = mr10.iter().map(|p| shares(p, 4)[i]).collect();
            Spread::of(&s).value(3)
        })
        .collect();
    found.info(
        "Marking_Rate 10: the four contributors' shares of H5's link (H2, H3, H6, H7)",
        "the parking lot still to some degree solved",
        mr10_shares.join(", "),
    );
    Ok(found)
}
