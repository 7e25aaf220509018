//! Paper III's CCTI_Timer x Marking_Rate sweep (R3), and R3's shape under each reading of the
//! timer and of the injection rate delay.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;

use super::{CC_ON, CONTRIBUTORS, READINGS, report, spread};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::papers::infiniband::{Phases, Scenario, scenario_job};
use crate::{Context, Job, Result};

/// Scenario 1 with four flows from the start and the last contributor (H7) one phase later: the
/// timer sweep measures the phase after that addition, when all four contributors are active
/// (Paper III's Var is taken over those instants).
const SCENARIO_1_LAST_ADDED: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 1)],
};

/// Scenario 1 (the last contributor added after a phase), CC on, for every timer, marking rate
/// and seed of the grid, and for every reading at a few timers and one marking rate.
pub(super) fn sweep_jobs(grid: &Grid) -> Result<Vec<Job>> {
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

/// What one run of the sweep measures over the phase after the last contributor joined.
#[derive(Debug, Clone, Copy)]
struct Point {
    /// The victim's mean, Gbit/s (the phase's second half).
    victim: f64,
    /// The contributors' mean, Gbit/s (the phase's second half).
    contributors: f64,
    /// Paper III's Var: the variance of the contributors' spread per sample.
    var: f64,
    /// The mean of that spread, Gbit/s: how unfair the contributors are on average.
    unfair: f64,
}

/// The point of job `id`.
fn sweep_point(reports: &BTreeMap<String, RunReport>, grid: &Grid, id: &str) -> Result<Point> {
    let p = Phases::new(report(reports, id)?, grid)?;
    let deltas = contributor_deltas(&p);
    let (unfair, _, _) = spread(&deltas);
    let var = deltas.iter().map(|d| (d - unfair).powi(2)).sum::<f64>() / deltas.len().max(1) as f64;
    Ok(Point {
        victim: p.gbps((0, 3), 1),
        contributors: CONTRIBUTORS.iter().map(|&f| p.gbps(f, 1)).sum::<f64>() / 4.0,
        var,
        unfair,
    })
}

/// The spread (max - min) of the four contributors' throughput at each sampling instant of
/// the phase after the last contributor joined (Paper III's delta array).
fn contributor_deltas(p: &Phases) -> Vec<f64> {
    let samples: Vec<Vec<f64>> = CONTRIBUTORS
        .iter()
        .map(|&c| p.phase_samples(c, 1, usize::MAX))
        .collect();
    let n = samples.iter().map(Vec::len).min().unwrap_or(0);
    (0..n)
        .map(|t| {
            let (_, lo, hi) = spread(&samples.iter().map(|s| s[t]).collect::<Vec<_>>());
            hi - lo
        })
        .collect()
}

/// The id of a sweep job.
fn sweep_id(timer_us: f64, rate: u32, seed: u64) -> String {
    format!("timer{timer_us}-mr{rate}-seed{seed}")
}

/// The timer below which Paper III's victim collapses, µs.
const GOOD_TIMER_US: f64 = 150.0;

/// Paper III's victim collapsing below ≈ 150 µs, read as under half its 13 Gbit/s.
const COLLAPSES: Rule = Rule::AtMost {
    value: 6.5,
    bound: 6.5,
};

/// Paper III's victim limited by PCIe, ≈ 13 Gbit/s.
const AT_ITS_LIMIT: Rule = Rule::near(13.0, 0.05);

/// Paper III's victim (Fig. 11).
const FIG_11: Source = Source::new(Paper::GranIII, "Sec. VII, Fig. 11");
/// Paper III's contributors (Fig. 12).
const FIG_12: Source = Source::new(Paper::GranIII, "Sec. VII, Fig. 12");
/// Paper III's scenario 1 at a 2,000 µs timer (Fig. 13).
const FIG_13: Source = Source::new(Paper::GranIII, "Sec. VII, Fig. 13");
/// Paper III's Var (Fig. 14).
const FIG_14: Source = Source::new(Paper::GranIII, "Sec. VII, Fig. 14");
/// Paper III's parameter discussion.
const SEC_VII: Source = Source::new(Paper::GranIII, "Sec. VII");

/// A claim of the sweep printed in Gbit/s.
fn gbps(
    id: impl Into<String>,
    what: impl Into<String>,
    at: Source,
    rule: Rule,
    stated: &str,
) -> Claim {
    Claim::new(id, what, at, rule)
        .shown(2, " Gbit/s")
        .stated(stated)
}

/// What Paper III's section VII states of the CCTI_Timer x Marking_Rate sweep, and its shape
/// under each reading of the timer and the delay.
pub(super) fn sweep_claims(grid: &Grid) -> Result<Claims> {
    let rate: u32 = grid.param("readings_rate")?;
    let mut claims = Claims::default();
    claims
        .claim(gbps(
            "sweep-victim-low-timers",
            "the victim at its best timer under 150 µs and Marking_Rate",
            FIG_11,
            COLLAPSES,
            "collapses below ≈ 150 µs, no matter the Marking_Rate (HoL-blocked)",
        ))
        .claim(gbps(
            "sweep-low-timer-mr-order",
            "the victim below 150 µs, the lowest Marking_Rate against the highest",
            FIG_11,
            Rule::Order {
                higher: "the lowest rate",
                lower: "the highest rate",
            },
            "a low Marking_Rate matters particularly at low timers",
        ))
        .claim(gbps(
            "sweep-mr-sensitivity",
            "the victim's range over the Marking_Rates, timers under 150 µs against from 150 µs",
            FIG_11,
            Rule::Order {
                higher: "under 150 µs",
                lower: "from 150 µs",
            },
            "the victim becomes less sensitive to the Marking_Rate as the timer grows",
        ))
        .claim(gbps(
            "sweep-victim-good-timers",
            "the victim from 150 µs on (its lowest timer's mean over the rates)",
            FIG_11,
            AT_ITS_LIMIT,
            "limited only by PCIe (13 Gbit/s)",
        ))
        .claim(
            Claim::new(
                "sweep-contributors-flat",
                "the contributors' mean at the longest timer over at 150 µs, minus 1",
                FIG_12,
                // "Vary very little" (±10 %); halved would mean CC starves the link.
                Rule::Zero {
                    within: 0.1,
                    failing: -0.5,
                },
            )
            .shown(3, "")
            .stated("varies very little, even at 2,000 µs"),
        )
        .claim(gbps(
            "sweep-contributors-utilise",
            "the four contributors together at the longest timer",
            FIG_12,
            // The link's end node takes "just above 13" (Paper I); "able to utilize" as ≈.
            Rule::near(13.0, 0.1),
            "they utilise the congested link even at 2,000 µs",
        ))
        .claim(gbps(
            "sweep-2000-unfair",
            format!(
                "the contributors' mean spread (max - min per sample) after the last one \
                 joined, Marking_Rate {rate}: the longest timer against 150 µs"
            ),
            FIG_13,
            Rule::Order {
                higher: "the longest timer",
                lower: "150 µs",
            },
            "at 2,000 µs the contributors stay unfair for long stretches after each addition",
        ))
        .claim(
            Claim::new(
                "sweep-var-grows",
                "Var (mean over the rates), the longest timer against 150 µs",
                FIG_14,
                Rule::Order {
                    higher: "the longest timer",
                    lower: "150 µs",
                },
            )
            .shown(4, "")
            .stated("fairness is best when the timer is kept low"),
        );
    for (name, _) in READINGS {
        reading_claims(&mut claims, name, rate);
    }
    claims
        .not_compared(
            SEC_VII,
            "the victim, the contributors' mean and Var at each timer and Marking_Rate",
            "surfaces (Figs. 11, 12, 14), no numbers in the text",
            "digitised only; their shapes are judged, our values are in timer_sweep.csv",
        )
        .not_compared(
            SEC_VII,
            "the victim's best threshold",
            "the highest weight (15)",
            "the threshold is not swept here: Table I's 15 throughout",
        )
        .not_compared(
            SEC_VII,
            "the CCT i²·7/106² against the vendor's i²·7/95²",
            "a little less oscillation at the same mean",
            "not run: the sweep uses Table I's table only",
        );
    Ok(claims)
}

/// The claims of one reading of the timer and the delay at Marking_Rate `rate`.
fn reading_claims(claims: &mut Claims, name: &str, rate: u32) {
    let at = format!("reading {name}, Marking_Rate {rate}");
    claims
        .claim(gbps(
            format!("sweep-reading-{name}-low"),
            format!("{at}: the victim at the shortest timer (under 150 µs)"),
            FIG_11,
            COLLAPSES,
            "collapses below ≈ 150 µs",
        ))
        .claim(gbps(
            format!("sweep-reading-{name}-good"),
            format!("{at}: the victim at its lowest timer from 150 µs"),
            FIG_11,
            AT_ITS_LIMIT,
            "limited only by PCIe (13 Gbit/s)",
        ))
        .claim(
            Claim::new(
                format!("sweep-reading-{name}-var"),
                format!("{at}: Var, the longest timer against the shortest from 150 µs"),
                FIG_14,
                Rule::Order {
                    higher: "the longest timer",
                    lower: "the shortest from 150 µs",
                },
            )
            .shown(4, "")
            .stated("fairness is best when the timer is kept low"),
        );
}

/// The sweep's points by timer, rate and seed.
struct Sweep {
    timers: Vec<f64>,
    rates: Vec<u32>,
    seeds: Vec<u64>,
    points: BTreeMap<String, Point>,
}

impl Sweep {
    /// The point at `timer`, `rate` and `seed` (of reading `prefix`, "" for the grid).
    fn at(&self, prefix: &str, timer: f64, rate: u32, seed: u64) -> Point {
        self.points[&format!("{prefix}{}", sweep_id(timer, rate, seed))]
    }

    /// Per seed, `f` of the points' mean over the rates at `timer`.
    fn over_rates(&self, timer: f64, seed: u64, f: fn(&Point) -> f64) -> f64 {
        let values: Vec<f64> = self
            .rates
            .iter()
            .map(|&r| f(&self.at("", timer, r, seed)))
            .collect();
        spread(&values).0
    }

    /// The timers under (`good` false) or from (true) 150 µs.
    fn timers(&self, good: bool) -> Vec<f64> {
        self.timers
            .iter()
            .copied()
            .filter(|&t| (t >= GOOD_TIMER_US) == good)
            .collect()
    }

    /// Per seed, the mean over `timers` of `f` at each.
    fn per_seed(&self, timers: &[f64], f: impl Fn(f64, u64) -> f64) -> Vec<f64> {
        self.seeds
            .iter()
            .map(|&s| spread(&timers.iter().map(|&t| f(t, s)).collect::<Vec<_>>()).0)
            .collect()
    }
}

pub(super) fn sweep(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let mut points = BTreeMap::new();
    for job in jobs {
        points.insert(job.id.clone(), sweep_point(&reports, grid, &job.id)?);
    }
    let s = Sweep {
        timers: grid.param("timers_us")?,
        rates: grid.param("marking_rates")?,
        seeds: grid.param("seeds")?,
        points,
    };
    let mut found = Findings::default();
    found.files.push(write_table(ctx, &s)?);
    victim_findings(&mut found, &s);
    contributor_findings(&mut found, &s, grid.param("readings_rate")?);
    let csv = readings(ctx, grid, &s, &mut found)?;
    found.files.push(csv);
    Ok(found)
}

/// `timer_sweep.csv`: per timer and rate, the means over the seeds.
fn write_table(ctx: &Context, s: &Sweep) -> Result<PathBuf> {
    let mut table = String::from("timer_us,marking_rate,victim_gbps,contributor_gbps,var\n");
    for &timer in &s.timers {
        for &rate in &s.rates {
            let mean = |f: fn(&Point) -> f64| {
                spread(
                    &s.seeds
                        .iter()
                        .map(|&seed| f(&s.at("", timer, rate, seed)))
                        .collect::<Vec<_>>(),
                )
                .0
            };
            table.push_str(&format!(
                "{timer},{rate},{:.4},{:.4},{:.5}\n",
                mean(|p| p.victim),
                mean(|p| p.contributors),
                mean(|p| p.var)
            ));
        }
    }
    let csv = ctx.out().join("timer_sweep.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    Ok(csv)
}

/// The victim against the timer and the rate (Fig. 11).
fn victim_findings(found: &mut Findings, s: &Sweep) {
    let (low, good) = (s.timers(false), s.timers(true));
    if !low.is_empty() {
        let best: Vec<f64> = s
            .seeds
            .iter()
            .map(|&seed| {
                low.iter()
                    .flat_map(|&t| s.rates.iter().map(move |&r| (t, r)))
                    .map(|(t, r)| s.at("", t, r, seed).victim)
                    .fold(0.0, f64::max)
            })
            .collect();
        found.set("sweep-victim-low-timers", Ours::Seeds(best));
        if let (Some(&lo_rate), Some(&hi_rate)) = (s.rates.iter().min(), s.rates.iter().max()) {
            let at = |rate: u32| s.per_seed(&low, |t, seed| s.at("", t, rate, seed).victim);
            let pairs = at(lo_rate).into_iter().zip(at(hi_rate)).collect();
            found.set("sweep-low-timer-mr-order", Ours::Paired(pairs));
        }
    }
    let range = |timers: &[f64]| {
        s.per_seed(timers, |t, seed| {
            let v: Vec<f64> = s
                .rates
                .iter()
                .map(|&r| s.at("", t, r, seed).victim)
                .collect();
            let (_, lo, hi) = spread(&v);
            hi - lo
        })
    };
    if !low.is_empty() && !good.is_empty() {
        let pairs = range(&low).into_iter().zip(range(&good)).collect();
        found.set("sweep-mr-sensitivity", Ours::Paired(pairs));
    }
    if !good.is_empty() {
        let least: Vec<f64> = s
            .seeds
            .iter()
            .map(|&seed| {
                good.iter()
                    .map(|&t| s.over_rates(t, seed, |p| p.victim))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        found.set("sweep-victim-good-timers", Ours::Seeds(least));
    }
}

/// The contributors against the timer (Figs. 12-14), from 150 µs to the longest timer.
fn contributor_findings(found: &mut Findings, s: &Sweep, rate: u32) {
    let good = s.timers(true);
    let (Some(&first), Some(&last)) = (good.first(), good.last()) else {
        return;
    };
    if first == last {
        return;
    }
    let per_seed = |f: &dyn Fn(u64) -> f64| s.seeds.iter().map(|&seed| f(seed)).collect::<Vec<_>>();
    let contributors = |t: f64, seed: u64| s.over_rates(t, seed, |p| p.contributors);
    found.set(
        "sweep-contributors-flat",
        Ours::Seeds(per_seed(&|seed| {
            contributors(last, seed) / contributors(first, seed) - 1.0
        })),
    );
    found.set(
        "sweep-contributors-utilise",
        Ours::Seeds(per_seed(&|seed| 4.0 * contributors(last, seed))),
    );
    let var = |t: f64| per_seed(&|seed| s.over_rates(t, seed, |p| p.var));
    found.set(
        "sweep-var-grows",
        Ours::Paired(var(last).into_iter().zip(var(first)).collect()),
    );
    if s.rates.contains(&rate) {
        let unfair = |t: f64| per_seed(&|seed| s.at("", t, rate, seed).unfair);
        found.set(
            "sweep-2000-unfair",
            Ours::Paired(unfair(last).into_iter().zip(unfair(first)).collect()),
        );
    }
}

/// Each reading's claims, and a line per reading with the victim (Var) at each timer; writes
/// `timer_readings.csv`.
fn readings(ctx: &Context, grid: &Grid, s: &Sweep, found: &mut Findings) -> Result<PathBuf> {
    let timers: Vec<f64> = grid.param("readings_timers_us")?;
    let rate: u32 = grid.param("readings_rate")?;
    let mut table = String::from("reading,timer_us,victim_gbps,contributor_gbps,var\n");
    for (name, _) in READINGS {
        let prefix = format!("{name}-");
        let per_seed = |t: f64, f: fn(&Point) -> f64| -> Vec<f64> {
            s.seeds
                .iter()
                .map(|&seed| f(&s.at(&prefix, t, rate, seed)))
                .collect()
        };
        let mut line = Vec::new();
        for &t in &timers {
            let (v, c, var) = (
                per_seed(t, |p| p.victim),
                per_seed(t, |p| p.contributors),
                per_seed(t, |p| p.var),
            );
            let (v, c, var) = (spread(&v).0, spread(&c).0, spread(&var).0);
            table.push_str(&format!("{name},{t},{v:.4},{c:.4},{var:.5}\n"));
            line.push(format!("{t:.0} µs: {v:.2} ({var:.3})"));
        }
        found.info(
            format!(
                "reading {name}, Marking_Rate {rate}: the victim, Gbit/s (Var), against the timer"
            ),
            "collapses below 150 µs, at its limit from 150 µs, Var growing",
            line.join(", "),
        );
        let good: Vec<f64> = timers
            .iter()
            .copied()
            .filter(|&t| t >= GOOD_TIMER_US)
            .collect();
        if let Some(&t) = timers.iter().find(|&&t| t < GOOD_TIMER_US) {
            found.set(
                format!("sweep-reading-{name}-low"),
                Ours::Seeds(per_seed(t, |p| p.victim)),
            );
        }
        if let (Some(&first), Some(&last)) = (good.first(), good.last()) {
            found.set(
                format!("sweep-reading-{name}-good"),
                Ours::Seeds(per_seed(first, |p| p.victim)),
            );
            if first != last {
                let pairs = per_seed(last, |p| p.var)
                    .into_iter()
                    .zip(per_seed(first, |p| p.var));
                found.set(
                    format!("sweep-reading-{name}-var"),
                    Ours::Paired(pairs.collect()),
                );
            }
        }
    }
    let csv = ctx.out().join("timer_readings.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    Ok(csv)
}
