//! Yokota, Ootsu and Ohkawa, "Enhancing Entropy Throttling", IEICE Trans. 2016: collective
//! speed-ups (Fig. 6, section 6.7), Table 2, the ramp-load curves of Figs. 12/13 and the
//! start-up staircase of Fig. 11(b).
//!
//! Jobs: `experiments/entropy/grids.toml` on `network.toml` (32 x 32 torus, 3 VCs, datelines
//! at 0 and 16, 15-flit buffers, 8-flit packets, one hop per cycle). The throttling settings
//! are built here: the parameter search crosses the grid's value lists by model, and its
//! confirmation runs depend on its results.
//!
//! The parameter search runs the paper's grids once per (pattern, setting), with seed 1 also for
//! the random cases (rand, rpar, gt_a): the paper's 100 repetitions of every point of a
//! 7,098-point grid are out of reach. The winners of random cases are then rerun with more
//! seeds and reported by their mean.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use tailback_core::stats::{RunReport, SeriesRow};
use tailback_plot::{Point, Series, YScale};

use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source, Tolerance};
use crate::grid::{Folder, Grid};
use crate::{Context, Experiment, Job, Result};

static FOLDER: Folder = Folder {
    path: "experiments/entropy",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../experiments/entropy/grids.toml"),
        ),
        (
            "network.toml",
            include_str!("../../../../experiments/entropy/network.toml"),
        ),
    ],
};

/// The paper's traffic patterns: (its abbreviation, our pattern).
const PATTERNS: [(&str, &str); 8] = [
    ("trns", "transpose"),
    ("shfl", "perfect_shuffle"),
    ("bcmp", "bit_complement"),
    ("brev", "bit_reverse"),
    ("brot", "bit_rotation"),
    ("torn", "tornado_index"),
    ("rand", "uniform"),
    ("rpar", "random_pair"),
];

/// The experiments of this paper.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "entropy-fig6",
            title: "Collective communication: speed-ups of base, hyst, gt_a and gt_x over no throttling, average best and individual best, eight patterns (grid search)",
            source: "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016, Figs. 4-6, section 5.3",
            folder: &FOLDER,
            jobs: search_all_models,
            claims: fig6_claims,
            run: fig6,
        },
        Experiment {
            name: "entropy-table2",
            title: "gt_a individual best: mean and standard deviation of the collective duration over 100 seeds",
            source: "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016, Table 2, section 6.6",
            folder: &FOLDER,
            jobs: search_gt_a,
            claims: table2_claims,
            run: table2,
        },
        Experiment {
            name: "entropy-fig12",
            title: "Ramp load, uniform traffic: throughput and latency of no throttling, base(90,30), base(100,30) and hyst(70,90,30), critical load ratios",
            source: "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016, Figs. 12 and 13, section 6.4",
            folder: &FOLDER,
            jobs: ramp_jobs,
            claims: fig12_claims,
            run: fig12,
        },
        Experiment {
            name: "entropy-fig11",
            title: "Start-up staircase of in-flight packets (perfect shuffle, first 220 cycles) and time series of Ra, valid buffers and throttled nodes",
            source: "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016, Figs. 8, 9 and 11",
            folder: &FOLDER,
            jobs: start_up_jobs,
            claims: fig11_claims,
            run: fig11,
        },
        Experiment {
            name: "entropy-practical",
            title: "Collective speed-ups with the circuit on a virtual control channel (cycle stealing)",
            source: "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016, section 6.7, Fig. 15",
            folder: &FOLDER,
            jobs: search_all_models,
            claims: practical_claims,
            run: practical,
        },
    ]
}

/// A throttling model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Model {
    Noth,
    Base,
    Hyst,
    GtA,
    GtX,
}

impl Model {
    const THROTTLED: [Model; 4] = [Model::Base, Model::Hyst, Model::GtA, Model::GtX];

    fn name(self) -> &'static str {
        match self {
            Model::Noth => "noth",
            Model::Base => "base",
            Model::Hyst => "hyst",
            Model::GtA => "gt_a",
            Model::GtX => "gt_x",
        }
    }
}

/// One parameter set: thresholds and `r_n` in percent, guard time in cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Setting {
    model: Model,
    guard: u32,
    on: u32,
    off: u32,
    rn: u32,
}

impl Setting {
    const NOTH: Setting = Setting {
        model: Model::Noth,
        guard: 0,
        on: 0,
        off: 0,
        rn: 0,
    };

    fn new(model: Model, guard: u32, on: u32, off: u32, rn: u32) -> Setting {
        Setting {
            model,
            guard,
            on,
            off,
            rn,
        }
    }

    /// `key=value` settings of the congestion section.
    fn assignments(&self) -> Vec<String> {
        let mut sets = vec![];
        if self.model == Model::Noth {
            return sets;
        }
        sets.push("congestion.mechanism=entropy".into());
        sets.push(format!("congestion.model={}", self.model.name()));
        sets.push(format!("congestion.r_n={}", self.rn));
        if self.model == Model::Base {
            sets.push(format!("congestion.r_th={}", self.on));
        } else {
            sets.push(format!("congestion.r_on={}", self.on));
            sets.push(format!("congestion.r_off={}", self.off));
        }
        if matches!(self.model, Model::GtA | Model::GtX) {
            sets.push(format!("congestion.guard_time={}", self.guard));
        }
        sets
    }
}

/// The paper's notation: base(Rth,Rn), hyst(Ron,Roff,Rn), gt_x(tG,Ron,Roff,Rn).
impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.model.name();
        match self.model {
            Model::Noth => write!(f, "noth"),
            Model::Base => write!(f, "{name}({},{})", self.on, self.rn),
            Model::Hyst => write!(f, "{name}({},{},{})", self.on, self.off, self.rn),
            Model::GtA | Model::GtX => write!(
                f,
                "{name}({},{},{},{})",
                self.guard, self.on, self.off, self.rn
            ),
        }
    }
}

/// The parameter values searched (the grid's `thresholds`, `releases` and `guards`).
struct Space {
    thresholds: Vec<u32>,
    releases: Vec<u32>,
    guards: Vec<u32>,
}

impl Space {
    fn of(grid: &Grid) -> Result<Space> {
        Ok(Space {
            thresholds: grid.param("thresholds")?,
            releases: grid.param("releases")?,
            guards: grid.param("guards")?,
        })
    }
}

impl Space {
    /// Every setting of `model`.
    fn settings(&self, model: Model) -> Vec<Setting> {
        let guards: &[u32] = match model {
            Model::Noth => return vec![Setting::NOTH],
            Model::GtA | Model::GtX => &self.guards,
            Model::Base | Model::Hyst => &[0],
        };
        let mut out = Vec::new();
        for &guard in guards {
            for &on in &self.thresholds {
                // base has one threshold: r_on = r_off = r_th.
                let offs = if model == Model::Base {
                    &[on][..]
                } else {
                    &self.thresholds
                };
                for &off in offs {
                    for &rn in &self.releases {
                        out.push(Setting::new(model, guard, on, off, rn));
                    }
                }
            }
        }
        out
    }
}

/// Whether a run of `pattern` under `setting` depends on the seed.
fn is_random(pattern: &str, setting: &Setting) -> bool {
    matches!(pattern, "rand" | "rpar") || setting.model == Model::GtA
}

/// The collective job of one pattern, setting and seed; its id is `pattern|setting|seed`.
fn collective_job(grid: &Grid, pattern: &str, setting: &Setting, seed: u64) -> Result<Job> {
    let ours = PATTERNS
        .iter()
        .find(|(abbr, _)| *abbr == pattern)
        .map_or(pattern, |(_, ours)| ours);
    let mut sets = vec![format!("traffic.pattern={ours}"), format!("seed={seed}")];
    sets.extend(setting.assignments());
    if setting.model != Model::Noth {
        let circuit: String = grid.param("circuit")?;
        sets.push(format!("congestion.circuit={circuit}"));
    }
    grid.job(format!("{pattern}|{setting}|{seed}"), &sets)
}

/// Collective durations of one case over seeds.
#[derive(Debug, Clone)]
struct Duration {
    mean: f64,
    std: f64,
    /// The duration of each seed run, by seed.
    by_seed: BTreeMap<u64, f64>,
}

impl Duration {
    fn of(by_seed: BTreeMap<u64, f64>) -> Duration {
        let values: Vec<f64> = by_seed.values().copied().collect();
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        Duration {
            mean,
            std: var.sqrt(),
            by_seed,
        }
    }

    /// The durations of every seed run.
    fn samples(&self) -> Vec<f64> {
        self.by_seed.values().copied().collect()
    }

    /// The duration of `seed`; a case run once (one that does not depend on the seed) stands
    /// for every seed.
    fn at(&self, seed: u64) -> Option<f64> {
        match self.by_seed.len() {
            1 => self.by_seed.values().next().copied(),
            _ => self.by_seed.get(&seed).copied(),
        }
    }
}

/// Per seed, the durations of `a` and of `b` (the same seed: the same random numbers).
fn paired(a: &Duration, b: &Duration) -> Vec<(f64, f64)> {
    let seeds: BTreeSet<u64> = a.by_seed.keys().chain(b.by_seed.keys()).copied().collect();
    seeds
        .into_iter()
        .filter_map(|s| Some((a.at(s)?, b.at(s)?)))
        .collect()
}

/// Collective durations by (pattern, setting label).
type Durations = BTreeMap<(String, String), Duration>;

/// Durations by (pattern, setting) over whatever seeds `reports` holds.
fn durations(reports: &BTreeMap<String, RunReport>) -> Durations {
    let mut samples: BTreeMap<(String, String), BTreeMap<u64, f64>> = BTreeMap::new();
    for (id, report) in reports {
        let mut parts = id.split('|');
        let (Some(pattern), Some(setting), Some(Ok(seed))) =
            (parts.next(), parts.next(), parts.next().map(str::parse))
        else {
            continue;
        };
        // A run cut off by the cycle cap counts with the cycles it ran.
        let cycles = report
            .summary
            .duration_cycles
            .unwrap_or(report.summary.cycles);
        samples
            .entry((pattern.to_string(), setting.to_string()))
            .or_default()
            .insert(seed, cycles as f64);
    }
    samples
        .into_iter()
        .map(|(key, by_seed)| (key, Duration::of(by_seed)))
        .collect()
}

/// The grid search: every pattern under noth and every setting of `models`, seed 1.
fn search_jobs(grid: &Grid, models: &[Model]) -> Result<Vec<Job>> {
    let space = Space::of(grid)?;
    let mut jobs = Vec::new();
    for (pattern, _) in PATTERNS {
        for &model in [Model::Noth].iter().chain(models) {
            for setting in space.settings(model) {
                jobs.push(collective_job(grid, pattern, &setting, 1)?);
            }
        }
    }
    Ok(jobs)
}

/// The grid search of every throttled model.
fn search_all_models(grid: &Grid) -> Result<Vec<Job>> {
    search_jobs(grid, &Model::THROTTLED)
}

/// The grid search of gt_a (Table 2).
fn search_gt_a(grid: &Grid) -> Result<Vec<Job>> {
    search_jobs(grid, &[Model::GtA])
}

/// `ctx` taking the runs of the `entropy-fig6` grid search found beside its output directory
/// (Table 2's gt_a grid and every noth run are part of it): `entropy-fig6`, or
/// `entropy-fig6-quick` for a quick run, as the default directories are named.
fn sharing_fig6(ctx: &Context) -> Context {
    let mut shared = ctx.clone();
    let fig6 = if ctx.quick {
        "entropy-fig6-quick"
    } else {
        "entropy-fig6"
    };
    if let Some(parent) = ctx.out().parent()
        && !ctx.out().ends_with(fig6)
    {
        shared
            .runs
            .donors
            .push(parent.join(fig6).join("results.jsonl"));
    }
    shared
}

/// The chosen settings of one model: per pattern (individual best) and one for all (average
/// best).
struct Choice {
    model: Model,
    /// In the order of [`PATTERNS`].
    individual: Vec<Option<Setting>>,
    average: Option<Setting>,
}

impl Choice {
    /// The setting used for pattern `i`: its individual best, or the average best.
    fn setting(&self, individual: bool, i: usize) -> Option<Setting> {
        if individual {
            self.individual[i]
        } else {
            self.average
        }
    }
}

/// Geometric mean.
fn gmean(values: &[f64]) -> f64 {
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len().max(1) as f64).exp()
}

/// Picks individual-best and average-best settings of every model from seed-1 durations.
fn choose(space: &Space, models: &[Model], durations: &Durations) -> Vec<Choice> {
    let noth = |p: &str| durations[&(p.to_string(), "noth".to_string())].mean;
    let duration = |p: &str, s: &Setting| {
        durations
            .get(&(p.to_string(), s.to_string()))
            .map(|d| d.mean)
    };
    models
        .iter()
        .map(|&model| {
            let settings = space.settings(model);
            let individual = PATTERNS
                .iter()
                .map(|(p, _)| {
                    settings
                        .iter()
                        .filter_map(|s| duration(p, s).map(|d| (*s, noth(p) / d)))
                        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
                        .map(|(s, _)| s)
                })
                .collect();
            let average = settings
                .iter()
                .filter_map(|s| {
                    let ups: Option<Vec<f64>> = PATTERNS
                        .iter()
                        .map(|(p, _)| duration(p, s).map(|d| noth(p) / d))
                        .collect();
                    ups.map(|u| (*s, u))
                })
                .max_by(|a, b| gmean(&a.1).total_cmp(&gmean(&b.1)).then(b.0.cmp(&a.0)))
                .map(|(s, _)| s);
            Choice {
                model,
                individual,
                average,
            }
        })
        .collect()
}

/// Reruns the random cases among the winners with more seeds (in `confirm/`) and returns the
/// durations with those means in place of the seed-1 values.
fn confirm(
    ctx: &Context,
    grid: &Grid,
    choices: &[Choice],
    mut durations: Durations,
) -> Result<Durations> {
    let mut cases: Vec<(&str, Setting)> = Vec::new();
    for (i, (p, _)) in PATTERNS.iter().enumerate() {
        cases.push((p, Setting::NOTH));
        for choice in choices {
            cases.extend(choice.setting(true, i).map(|s| (*p, s)));
            cases.extend(choice.setting(false, i).map(|s| (*p, s)));
        }
    }
    cases.retain(|(p, s)| is_random(p, s));
    cases.sort();
    cases.dedup();
    let seeds: u64 = grid.param("confirm_seeds")?;
    let mut jobs = Vec::new();
    for (p, s) in &cases {
        for seed in 1..=seeds {
            jobs.push(collective_job(grid, p, s, seed)?);
        }
    }
    durations.extend(self::durations(&ctx.within("confirm").run(&jobs)?));
    Ok(durations)
}

/// Speed-up tables of the chosen settings, rescored with confirmed durations; returns the text
/// and, per model, (individual-best g.mean, average-best g.mean).
fn speedup_tables(choices: &[Choice], durations: &Durations) -> (String, Vec<(Model, f64, f64)>) {
    let d = |i: usize, s: &Setting| durations[&(PATTERNS[i].0.to_string(), s.to_string())].mean;
    let speedup = |i: usize, s: &Setting| d(i, &Setting::NOTH) / d(i, s);
    let gmeans = |individual: bool| -> Vec<f64> {
        choices
            .iter()
            .map(|c| {
                let ups: Vec<f64> = (0..PATTERNS.len())
                    .filter_map(|i| c.setting(individual, i).map(|s| speedup(i, &s)))
                    .collect();
                gmean(&ups)
            })
            .collect()
    };
    let mut text = String::new();
    for (kind, individual) in [("average best", false), ("individual best", true)] {
        text.push_str(&format!(
            "\n{kind}: duration in cycles (speed-up over noth)\n{:<6}{:>10}",
            "", "noth"
        ));
        for c in choices {
            text.push_str(&format!("{:>16}", c.model.name()));
        }
        text.push('\n');
        for (i, (p, _)) in PATTERNS.iter().enumerate() {
            text.push_str(&format!("{p:<6}{:>10.1}", d(i, &Setting::NOTH)));
            for c in choices {
                match c.setting(individual, i) {
                    Some(s) => text.push_str(&format!("{:>9.1} ({:.2})", d(i, &s), speedup(i, &s))),
                    None => text.push_str(&format!("{:>16}", "-")),
                }
            }
            text.push('\n');
        }
        text.push_str(&format!("{:<16}", "g.mean"));
        for g in gmeans(individual) {
            text.push_str(&format!("{g:>16.3}"));
        }
        text.push('\n');
    }
    text.push_str("\nsettings (average best; individual best per pattern)\n");
    for c in choices {
        let average = c.average.map_or("-".to_string(), |s| s.to_string());
        let individual: Vec<String> = PATTERNS
            .iter()
            .zip(&c.individual)
            .filter_map(|((p, _), s)| s.map(|s| format!("{p} {s}")))
            .collect();
        text.push_str(&format!(
            "{}: {average}; {}\n",
            c.model.name(),
            individual.join(", ")
        ));
    }
    let means = choices
        .iter()
        .zip(gmeans(true))
        .zip(gmeans(false))
        .map(|((c, individual), average)| (c.model, individual, average))
        .collect();
    (text, means)
}

/// Sec. 5.3 and Fig. 6: the collective speed-ups with the ideal circuit.
const FIG_6: Source = Source::new(Paper::Entropy, "Sec. 5.3, Fig. 6");
/// Sec. 6.7 and Fig. 15: the circuit on a virtual control channel.
const FIG_15: Source = Source::new(Paper::Entropy, "Sec. 6.7, Fig. 15");

/// How far a g.mean speed-up may be from the paper's, as a fraction of the paper's gain
/// (speed-up - 1), either way: no gain always fails. The paper gives exact numbers, but each is
/// the best of thousands of settings on a network rebuilt from its description (arbitration
/// and the circuit's wiring left open) with 10 seeds for the random cases where it ran 100.
const GAIN_TOLERANCE: f64 = 0.25;

/// How far a collective duration may be from the paper's: ±10 % (a number of cycles on a
/// network rebuilt from the paper's description).
const DURATION_TOLERANCE: f64 = 0.1;

/// The paper's g.mean speed-up `value` (average or individual best), within a quarter of its
/// gain.
fn speedup_claim(id: String, what: String, source: Source, value: f64) -> Claim {
    Claim::new(
        id,
        what,
        source,
        Rule::Near {
            value,
            tolerance: Tolerance::Absolute(GAIN_TOLERANCE * (value - 1.0)),
        },
    )
    .shown(3, "x")
}

/// The g.mean speed-ups of the best model, average and individual best, as `prefix-gmean-*`.
fn gmean_claims(claims: &mut Claims, prefix: &str, source: Source, paper: (f64, f64)) {
    for (kind, value) in [("average", paper.0), ("individual", paper.1)] {
        claims.claim(speedup_claim(
            format!("{prefix}-gmean-{kind}-best"),
            format!("g.mean speed-up over noth, {kind} best (best model)"),
            source,
            value,
        ));
    }
}

/// A duration the paper gives, in cycles.
fn duration_claim(id: &str, what: &str, source: Source, value: f64) -> Claim {
    Claim::new(id, what, source, Rule::near(value, DURATION_TOLERANCE)).shown(1, " cycles")
}

/// The patterns on which the paper finds gt_x not the best model.
const GT_X_LOSES: [&str; 2] = ["trns", "bcmp"];

/// What Sec. 5.3 states of Fig. 6.
fn fig6_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    gmean_claims(&mut claims, "fig6", FIG_6, (1.331, 1.465));
    claims
        .claim(
            speedup_claim(
                "fig6-torn-speedup".into(),
                "torn: speed-up of gt_x's individual best over noth".into(),
                FIG_6,
                1056.0 / 333.0,
            )
            .stated("3.17x (1056 -> 333 cycles), the best of any pattern"),
        )
        .claim(duration_claim(
            "fig6-torn-noth",
            "torn: duration without throttling",
            FIG_6,
            1056.0,
        ))
        .claim(duration_claim(
            "fig6-torn-gt-x",
            "torn: duration under gt_x's individual best",
            FIG_6,
            333.0,
        ))
        .claim(
            // One of the guard times 4, 8 and 16: ±0.5 is the paper's exactly.
            Claim::new(
                "fig6-torn-gt-x-guard",
                "torn: guard time tG of gt_x's individual best",
                FIG_6,
                Rule::Near {
                    value: 16.0,
                    tolerance: Tolerance::Absolute(0.5),
                },
            )
            .shown(1, " cycles")
            .stated("16 cycles"),
        )
        .claim(
            // "No significant improvement": within 5 % of none, where throttling gains 30-90 %
            // on the other patterns (Fig. 6).
            Claim::new(
                "fig6-trns-gain",
                "trns: best speed-up of any model (individual best) - 1",
                Source::new(Paper::Entropy, "Sec. 6.6 (of Fig. 6)"),
                Rule::Zero {
                    within: 0.05,
                    failing: 0.3,
                },
            )
            .shown(3, "")
            .stated("none: no variant achieves a significant improvement"),
        );
    for (p, _) in PATTERNS {
        let (higher, lower) = if GT_X_LOSES.contains(&p) {
            ("gt_x", "the best other model")
        } else {
            ("the best other model", "gt_x")
        };
        claims.claim(
            Claim::new(
                format!("fig6-gt-x-{p}"),
                format!("{p}: duration of the individual best, {higher} against {lower}"),
                FIG_6,
                Rule::Order { higher, lower },
            )
            .shown(1, " cycles")
            .stated(if GT_X_LOSES.contains(&p) {
                "another model shorter than gt_x (gt_x the best except on trns and bcmp)"
            } else {
                "gt_x the shortest (the best except on trns and bcmp)"
            }),
        );
    }
    claims
        .not_compared(
            FIG_6,
            "each pattern's duration under each model (the bars)",
            "Fig. 6's bars",
            "digitised only (no number in the text); ours in speedups.txt",
        )
        .not_compared(
            Source::new(Paper::Entropy, "Sec. 5.2, Figs. 4 and 5"),
            "distribution of the speed-ups over the settings, and of the best settings",
            "Figs. 4 and 5",
            "digitised only (no number in the text)",
        )
        .not_compared(
            Source::new(Paper::Entropy, "Sec. 6.2 (of Fig. 6)"),
            "hysteresis contributes only on rand",
            "hyst above base on rand only",
            "read off Fig. 6 (digitised only); ours per model and pattern in speedups.txt",
        )
        .not_compared(
            FIG_6,
            "torn has the largest speed-up of any pattern",
            "3.17x on torn",
            "the same result as fig6-torn-speedup, judged there; our largest is shown for \
             information",
        );
    Ok(claims)
}

/// What Sec. 6.7 states of Fig. 15.
fn practical_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    gmean_claims(&mut claims, "practical", FIG_15, (1.077, 1.134));
    claims
        .not_compared(
            FIG_15,
            "each pattern's duration under each model (the bars)",
            "Fig. 15's bars",
            "digitised only (no number in the text); ours in speedups-vcc.txt",
        )
        .not_compared(
            FIG_15,
            "cycle stealing degrades the circuit: gains below Fig. 6's",
            "1.077 / 1.134 against 1.331 / 1.465",
            "the ideal circuit's speed-ups are entropy-fig6's; both experiments compare theirs \
             with the paper's numbers",
        );
    Ok(claims)
}

/// The outcome of a collective search: the chosen settings, their durations (random cases
/// over the confirmation seeds) and, per model, (individual-best g.mean, average-best
/// g.mean).
struct Search {
    choices: Vec<Choice>,
    durations: Durations,
    means: Vec<(Model, f64, f64)>,
}

impl Search {
    /// The durations of `pattern` under `setting`.
    fn duration(&self, pattern: &str, setting: &Setting) -> &Duration {
        &self.durations[&(pattern.to_string(), setting.to_string())]
    }

    /// The individual best of every model on pattern `i`, with its duration.
    fn individual_bests(&self, i: usize) -> Vec<(Model, Setting, &Duration)> {
        let p = PATTERNS[i].0;
        self.choices
            .iter()
            .filter_map(|c| c.individual[i].map(|s| (c.model, s, self.duration(p, &s))))
            .collect()
    }
}

/// The collective search with one circuit: every setting at seed 1, the winners' random
/// cases confirmed, the speed-up tables written to `stem.txt`.
fn collective_search(
    ctx: &Context,
    grid: &Grid,
    jobs: &[Job],
    stem: &str,
    found: &mut Findings,
) -> Result<Search> {
    eprintln!("{} collective runs in the grid search", jobs.len());
    let seed_one = durations(&sharing_fig6(ctx).run(jobs)?);
    let choices = choose(&Space::of(grid)?, &Model::THROTTLED, &seed_one);
    let durations = confirm(ctx, grid, &choices, seed_one)?;
    let (text, means) = speedup_tables(&choices, &durations);
    println!("{text}");
    let path = ctx.write_text(format!("{stem}.txt"), &text)?;
    found.files.push(path);
    Ok(Search {
        choices,
        durations,
        means,
    })
}

/// Our g.mean speed-ups of the best model as `prefix-gmean-*`, and every model's for
/// information.
fn set_gmeans(found: &mut Findings, prefix: &str, search: &Search) {
    let best =
        |pick: fn(&(Model, f64, f64)) -> f64| search.means.iter().map(pick).fold(0.0, f64::max);
    found.set(
        format!("{prefix}-gmean-average-best"),
        Ours::Value(best(|m| m.2)),
    );
    found.set(
        format!("{prefix}-gmean-individual-best"),
        Ours::Value(best(|m| m.1)),
    );
    let per_model: Vec<String> = search
        .means
        .iter()
        .map(|(m, i, a)| format!("{} {a:.3}/{i:.3}", m.name()))
        .collect();
    found.info(
        "g.mean speed-up per model, average/individual best",
        "-",
        per_model.join(", "),
    );
}

fn fig6(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let search = collective_search(ctx, grid, jobs, "speedups", &mut found)?;
    set_gmeans(&mut found, "fig6", &search);
    set_torn(&mut found, &search);
    let mut largest = (0.0, "-", Model::Noth);
    for (i, (p, _)) in PATTERNS.iter().enumerate() {
        let noth = search.duration(p, &Setting::NOTH).mean;
        let bests = search.individual_bests(i);
        for &(model, _, d) in &bests {
            if noth / d.mean > largest.0 {
                largest = (noth / d.mean, p, model);
            }
        }
        if *p == "trns" {
            let gain = bests.iter().map(|b| noth / b.2.mean).fold(0.0, f64::max) - 1.0;
            found.set("fig6-trns-gain", Ours::Value(gain));
        }
        set_gt_x_order(&mut found, p, &bests);
    }
    found.info(
        "the largest individual-best speed-up",
        "3.17x, gt_x on torn",
        format!("{:.2}x, {} on {}", largest.0, largest.2.name(), largest.1),
    );
    Ok(found)
}

/// Tornado under gt_x's individual best against no throttling.
fn set_torn(found: &mut Findings, search: &Search) {
    let Some(i) = PATTERNS.iter().position(|(p, _)| *p == "torn") else {
        return;
    };
    let Some((_, s, d)) = search
        .individual_bests(i)
        .into_iter()
        .find(|b| b.0 == Model::GtX)
    else {
        return;
    };
    let noth = search.duration("torn", &Setting::NOTH).mean;
    found
        .set("fig6-torn-speedup", Ours::Value(noth / d.mean))
        .set("fig6-torn-noth", Ours::Value(noth))
        .set("fig6-torn-gt-x", Ours::Value(d.mean))
        .set("fig6-torn-gt-x-guard", Ours::Value(f64::from(s.guard)));
}

/// On pattern `p`, gt_x's individual best against the shortest of the other models', per seed
/// (a case that does not depend on the seed ran once and stands for every seed).
fn set_gt_x_order(found: &mut Findings, p: &str, bests: &[(Model, Setting, &Duration)]) {
    let gt_x = bests.iter().find(|b| b.0 == Model::GtX);
    let other = bests
        .iter()
        .filter(|b| b.0 != Model::GtX)
        .min_by(|a, b| a.2.mean.total_cmp(&b.2.mean));
    if let (Some(x), Some(o)) = (gt_x, other) {
        // The paper's higher duration first.
        let pairs = if GT_X_LOSES.contains(&p) {
            paired(x.2, o.2)
        } else {
            paired(o.2, x.2)
        };
        found.set(format!("fig6-gt-x-{p}"), Ours::Paired(pairs));
        found.info(
            format!("{p}: the best other model"),
            "-",
            format!("{} {:.1} cycles, gt_x {:.1}", o.1, o.2.mean, x.2.mean),
        );
    }
}

fn practical(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut found = Findings::default();
    let search = collective_search(ctx, grid, jobs, "speedups-vcc", &mut found)?;
    set_gmeans(&mut found, "practical", &search);
    Ok(found)
}

/// The paper's Table 2: (pattern, [(mean, std) for tG = 4, 8, 16]).
const TABLE2: [(&str, [(f64, f64); 3]); 8] = [
    ("trns", [(1300.8, 0.37), (1301.0, 0.0), (1301.0, 0.0)]),
    ("shfl", [(1500.2, 37.03), (1455.9, 34.46), (1438.4, 20.30)]),
    ("bcmp", [(844.0, 15.49), (815.8, 16.26), (796.5, 14.40)]),
    ("brev", [(1670.8, 21.24), (1685.6, 23.61), (1674.6, 18.79)]),
    ("brot", [(1393.5, 18.54), (1389.2, 13.45), (1379.0, 14.08)]),
    ("torn", [(696.9, 21.13), (643.3, 10.38), (642.0, 6.50)]),
    ("rand", [(611.1, 24.58), (603.8, 22.97), (594.2, 20.56)]),
    ("rpar", [(880.4, 51.86), (867.6, 46.49), (865.0, 61.27)]),
];

/// The guard times of Table 2's columns.
const TABLE2_GUARDS: [u32; 3] = [4, 8, 16];

/// Sec. 6.6 and Table 2.
const TABLE_2: Source = Source::new(Paper::Entropy, "Sec. 6.6, Table 2");

/// How far a standard deviation over 100 seeds may be from the paper's: about three times the
/// sampling error of such a standard deviation (≈ 7 %), rounded up.
const SD_TOLERANCE: f64 = 0.25;

/// What Table 2 states: each cell's mean duration and standard deviation over seeds.
fn table2_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for (p, row) in TABLE2 {
        for (&g, &(mean, sd)) in TABLE2_GUARDS.iter().zip(&row) {
            claims.claim(duration_claim(
                &format!("table2-{p}-tg{g}-mean"),
                &format!("{p}, tG = {g}: mean duration over seeds"),
                TABLE_2,
                mean,
            ));
            let what = format!("{p}, tG = {g}: standard deviation of the duration");
            let rule = if p == "trns" {
                // "Almost zero": under one cycle, the duration's resolution (the paper's 0.37
                // is a few of its seeds a cycle or two apart); 15 cycles is the other
                // patterns' scale.
                Rule::Zero {
                    within: 1.0,
                    failing: 15.0,
                }
            } else {
                Rule::near(sd, SD_TOLERANCE)
            };
            let claim =
                Claim::new(format!("table2-{p}-tg{g}-sd"), what, TABLE_2, rule).shown(2, " cycles");
            claims.claim(if p == "trns" {
                claim.stated(format!("{sd:.2} cycles (almost zero: a stiff pattern)"))
            } else {
                claim
            });
        }
    }
    claims.not_compared(
        TABLE_2,
        "the standard deviation does not grow with the guard time",
        "no correlation (against the authors' expectation)",
        "stated in words, no number; every cell's standard deviation is compared above",
    );
    Ok(claims)
}

fn table2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    eprintln!("{} collective runs in the gt_a grid search", jobs.len());
    let seed_one = durations(&sharing_fig6(ctx).run(jobs)?);
    let space = Space::of(grid)?;
    let candidates = space.settings(Model::GtA);
    let seeds: u64 = grid.param("seeds")?;
    // Individual best per pattern and guard time, then `seeds` repetitions of each.
    let mut best: Vec<(&str, u32, Setting)> = Vec::new();
    for (p, _) in PATTERNS {
        for &g in &space.guards {
            let winner = candidates
                .iter()
                .filter(|s| s.guard == g)
                .filter_map(|s| {
                    seed_one
                        .get(&(p.to_string(), s.to_string()))
                        .map(|d| (*s, d.mean))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            if let Some((s, _)) = winner {
                best.push((p, g, s));
            }
        }
    }
    let mut repeat = Vec::new();
    for (p, _, s) in &best {
        for seed in 1..=seeds {
            repeat.push(collective_job(grid, p, s, seed)?);
        }
    }
    let repeated = durations(&ctx.within("repeats").run(&repeat)?);
    let cell = |p: &str, g: u32| {
        best.iter()
            .find(|(bp, bg, _)| *bp == p && *bg == g)
            .and_then(|(_, _, s)| repeated.get(&(p.to_string(), s.to_string())))
    };
    let mut found = Findings::default();
    let mut text = format!(
        "gt_a individual best over {seeds} seeds: mean / std dev of the duration (cycles); paper in brackets\n{:<6}{:>28}{:>28}{:>28}\n",
        "", "tG = 4", "tG = 8", "tG = 16"
    );
    for (p, paper) in TABLE2 {
        text.push_str(&format!("{p:<6}"));
        for (&g, (mean, sd)) in TABLE2_GUARDS.iter().zip(paper) {
            let Some(d) = cell(p, g) else {
                text.push_str(&format!("{:>28}", "-"));
                continue;
            };
            text.push_str(&format!(
                "{:>28}",
                format!("{:.1}/{:.2} [{mean:.1}/{sd:.2}]", d.mean, d.std)
            ));
            found
                .set(format!("table2-{p}-tg{g}-mean"), Ours::Seeds(d.samples()))
                .set(format!("table2-{p}-tg{g}-sd"), Ours::Value(d.std));
        }
        text.push('\n');
    }
    println!("{text}");
    let path = ctx.write_text("table2.txt", &text)?;
    found.files.push(path);
    let runs: usize = repeated.values().map(|d| d.by_seed.len()).sum();
    found.info("runs behind the table", "-", runs.to_string());
    Ok(found)
}

/// The settings of the ramp-load comparison.
fn ramp_settings() -> [Setting; 4] {
    [
        Setting::NOTH,
        Setting::new(Model::Base, 0, 90, 90, 30),
        Setting::new(Model::Base, 0, 100, 100, 30),
        Setting::new(Model::Hyst, 0, 70, 90, 30),
    ]
}

/// One ramp-load job per setting, named by it.
fn ramp_jobs(grid: &Grid) -> Result<Vec<Job>> {
    ramp_settings()
        .iter()
        .map(|s| grid.job(s.to_string(), &s.assignments()))
        .collect()
}

fn fig12(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let slope: f64 = grid.param("slope")?;
    let smoothing: usize = grid.param("smoothing")?;
    let window: u64 = grid.param("window")?;
    let reports = ctx.run(jobs)?;
    let curve = |rows: &[SeriesRow], y: fn(&SeriesRow) -> Option<f64>| -> Vec<Point> {
        let offered = tailback_core::ramp::nominal_offered(rows, window, slope);
        let values: Vec<f64> = rows.iter().map(|r| y(r).unwrap_or(f64::NAN)).collect();
        let (offered, values) = (
            tailback_core::ramp::smooth(&offered, smoothing),
            smooth_present(&values, smoothing),
        );
        offered
            .iter()
            .zip(values)
            .skip(smoothing.saturating_sub(1))
            .filter(|(_, y)| y.is_finite())
            .map(|(&x, y)| Point {
                x,
                y,
                marked: false,
                error: None,
            })
            .collect()
    };
    let mut throughput = Vec::new();
    let mut latency = Vec::new();
    for s in ramp_settings() {
        let label = s.to_string();
        let rows = &reports[&label].series;
        throughput.push(Series {
            label: label.clone(),
            points: curve(rows, |r| Some(r.delivered)),
            saturation: reports[&label].summary.critical_load,
        });
        latency.push(Series {
            label,
            points: curve(rows, |r| r.latency),
            saturation: None,
        });
    }
    let mut files = tailback_plot::lines(
        &ctx.out().join("fig12-throughput"),
        "Ramp load, uniform: smoothed throughput (critical load dashed)",
        "offered load (flits/node/cycle)",
        "throughput (flits/node/cycle)",
        &throughput,
        YScale::Linear,
    )?;
    files.extend(tailback_plot::lines(
        &ctx.out().join("fig12-latency"),
        "Ramp load, uniform: smoothed average latency",
        "offered load (flits/node/cycle)",
        "latency (cycles)",
        &latency,
        YScale::Log,
    )?);
    let mut found = Findings::with_files(files);
    let critical = |s: &Setting| reports[&s.to_string()].summary.critical_load;
    let [noth, base90, base100, hyst] = ramp_settings();
    found.info(
        "critical load, noth",
        "-",
        critical(&noth).map_or("none up to 0.3".into(), |c| format!("{c:.4}")),
    );
    // No critical load up to the ramp's end differs from the paper's.
    let ours = |s: &Setting| critical(s).unwrap_or(f64::NAN);
    found
        .set("fig12-critical-base90", Ours::Value(ours(&base90)))
        .set("fig12-critical-hyst", Ours::Value(ours(&hyst)))
        .set(
            "fig12-base100-earlier",
            Ours::Paired(vec![(ours(&base90), ours(&base100))]),
        )
        .set(
            "fig12-hyst-above-base",
            Ours::Paired(vec![(ours(&hyst), ours(&base90))]),
        );
    Ok(found)
}

/// Sec. 6.4, Fig. 12: base(90,30) against base(100,30).
const FIG_12: Source = Source::new(Paper::Entropy, "Sec. 6.4, Fig. 12");
/// Sec. 6.4, Fig. 13: base(90,30) against hyst(70,90,30).
const FIG_13: Source = Source::new(Paper::Entropy, "Sec. 6.4, Fig. 13");

/// A critical load the paper gives: a knee found on a smoothed ramp, ±15 %.
fn critical_claim(id: &str, setting: &str, value: f64) -> Claim {
    Claim::new(
        id,
        format!("critical load ratio, {setting}"),
        FIG_13,
        Rule::near(value, 0.15),
    )
    .shown(4, "")
}

/// What Sec. 6.4 states of Figs. 12 and 13 (one ramp per setting: the orderings are shown, not
/// judged).
fn fig12_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    claims
        .claim(critical_claim(
            "fig12-critical-base90",
            "base(90,30)",
            0.0505,
        ))
        .claim(critical_claim(
            "fig12-critical-hyst",
            "hyst(70,90,30)",
            0.0532,
        ))
        .claim(
            Claim::new(
                "fig12-base100-earlier",
                "base(100,30) saturates earlier than base(90,30)",
                FIG_12,
                Rule::Order {
                    higher: "base(90,30)",
                    lower: "base(100,30)",
                },
            )
            .shown(4, "")
            .stated("base(100,30) fails to achieve a high critical load"),
        )
        .claim(
            Claim::new(
                "fig12-hyst-above-base",
                "hysteresis raises the critical load over base",
                FIG_13,
                Rule::Order {
                    higher: "hyst(70,90,30)",
                    lower: "base(90,30)",
                },
            )
            .shown(4, "")
            .stated("improved (0.0505 -> 0.0532)"),
        )
        .not_compared(
            FIG_12,
            "base(90,30) and base(100,30) give the same, shortest collective duration",
            "the same duration",
            "a collective result: this experiment runs ramps, and entropy-fig6 lists only each \
             model's winners",
        )
        .not_compared(
            FIG_12,
            "the throughput and latency curves",
            "Figs. 12 and 13(a)",
            "digitised only; ours plotted in fig12-throughput and fig12-latency",
        )
        .not_compared(
            FIG_13,
            "near the threshold base oscillates more often than hyst; alike when heavily \
             congested",
            "Figs. 13(b) and (c)",
            "stated in words only, no number",
        );
    Ok(claims)
}

/// Moving average over the values present (NaN: no sample in that window).
fn smooth_present(values: &[f64], window: usize) -> Vec<f64> {
    let present: Vec<f64> = values
        .iter()
        .map(|v| if v.is_nan() { 0.0 } else { *v })
        .collect();
    let counts: Vec<f64> = values
        .iter()
        .map(|v| f64::from(u8::from(!v.is_nan())))
        .collect();
    let (sums, ns) = (
        tailback_core::ramp::smooth(&present, window),
        tailback_core::ramp::smooth(&counts, window),
    );
    sums.iter()
        .zip(ns)
        .map(|(s, n)| if n > 0.0 { s / n } else { f64::NAN })
        .collect()
}

/// The settings of the start-up comparison: the paper's average-best thresholds.
fn start_up_settings() -> [Setting; 6] {
    [
        Setting::NOTH,
        Setting::new(Model::Base, 0, 90, 90, 30),
        Setting::new(Model::Hyst, 0, 70, 90, 30),
        Setting::new(Model::GtX, 4, 70, 90, 30),
        Setting::new(Model::GtX, 8, 70, 90, 30),
        Setting::new(Model::GtX, 16, 70, 90, 30),
    ]
}

/// The start-up jobs: perfect shuffle and bit complement under every start-up setting; ids
/// `pattern|setting`.
fn start_up_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for (pattern, ours) in [("shfl", "perfect_shuffle"), ("bcmp", "bit_complement")] {
        for s in start_up_settings() {
            let mut sets = vec![format!("traffic.pattern={ours}")];
            sets.extend(s.assignments());
            jobs.push(grid.job(format!("{pattern}|{s}"), &sets)?);
        }
    }
    Ok(jobs)
}

/// Sec. 6.3, Fig. 11(b): the start-up staircase.
const FIG_11: Source = Source::new(Paper::Entropy, "Sec. 6.3, Fig. 11(b)");

/// The paper's start-up steps per setting of [`start_up_settings`] (none given for noth).
const PAPER_STEPS: [Option<u32>; 6] = [None, Some(4), Some(4), Some(3), Some(2), Some(2)];

/// The claim id of the start-up steps of `setting`.
fn steps_id(setting: &Setting) -> String {
    let slug: String = setting
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!(
        "fig11-steps-{}",
        slug.trim_end_matches('-').replace("--", "-")
    )
}

/// What Sec. 6.3 (and 6.1) state of the start-up and the time series.
fn fig11_claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for (s, paper) in start_up_settings().iter().zip(PAPER_STEPS) {
        if let Some(steps) = paper {
            // A count: ±0.5 is the paper's exactly.
            claims.claim(
                Claim::new(
                    steps_id(s),
                    format!("start-up steps, shfl, {s}"),
                    FIG_11,
                    Rule::Near {
                        value: f64::from(steps),
                        tolerance: Tolerance::Absolute(0.5),
                    },
                )
                .shown(1, "")
                .stated(steps.to_string()),
            );
        }
    }
    let figs_8_9 = Source::new(Paper::Entropy, "Sec. 6.1, Figs. 8 and 9");
    claims
        .not_compared(
            FIG_11,
            "packets in flight rise by 1,024 every 8 cycles at the start",
            "1,024 per 8 cycles",
            "by construction: every node starts an 8-flit packet at once (ours 1,022: shuffle's \
             two fixed points send nothing); plotted in fig11b-start-up",
        )
        .not_compared(
            figs_8_9,
            "without throttling the packets in flight jump and drain slowly; with it they \
             oscillate",
            "Figs. 8 and 11(a)",
            "stated in words only; ours plotted in series-shfl and series-bcmp",
        )
        .not_compared(
            figs_8_9,
            "Ra hovers around 80 % under throttling (bcmp, base's individual best)",
            "about 80 %",
            "Fig. 9's setting (base's individual best for bcmp) is not given, and Ra settles \
             near the setting's threshold; ours plotted in series-bcmp",
        );
    Ok(claims)
}

fn fig11(ctx: &Context, _: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let mut found = Findings::default();
    let mut ours_steps = Vec::new();
    for (s, paper) in start_up_settings().iter().zip(PAPER_STEPS) {
        let rows = &reports[&format!("shfl|{s}")].series;
        let first: Vec<SeriesRow> = rows.iter().take(220).cloned().collect();
        let steps = tailback_core::stats::injection_waves(&first, 1024);
        ours_steps.push((s.to_string(), first));
        match paper {
            Some(_) => found.set(steps_id(s), Ours::Value(steps as f64)),
            None => found.info(format!("start-up steps, shfl, {s}"), "-", steps.to_string()),
        };
    }
    let staircase: Vec<(String, &[SeriesRow])> = ours_steps
        .iter()
        .map(|(name, rows)| (name.clone(), rows.as_slice()))
        .collect();
    let in_flight: Vec<Series> = staircase
        .iter()
        .map(|(name, rows)| Series {
            label: name.clone(),
            points: rows
                .iter()
                .map(|r| Point {
                    x: r.cycle as f64,
                    y: r.in_flight_packets as f64,
                    marked: false,
                    error: None,
                })
                .collect(),
            saturation: None,
        })
        .collect();
    found.files.extend(tailback_plot::lines(
        &ctx.out().join("fig11b-start-up"),
        "Perfect shuffle collective: packets in flight, first 220 cycles",
        "cycle",
        "packets in flight",
        &in_flight,
        YScale::Linear,
    )?);
    // Whole runs (Figs. 8, 9, 11a): in-flight packets, Ra, valid buffers, throttled nodes.
    for pattern in ["shfl", "bcmp"] {
        let runs: Vec<(String, &[SeriesRow])> = start_up_settings()
            .iter()
            .map(|s| {
                let r = &reports[&format!("{pattern}|{s}")];
                (s.to_string(), r.series.as_slice())
            })
            .collect();
        found.files.extend(crate::files::series::plot(
            &ctx.out().join(format!("series-{pattern}")),
            &format!("Collective, {pattern}: time series"),
            &runs,
            1,
        )?);
        for (name, rows) in &runs {
            let safe: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            found.files.push(crate::files::series::write_csv(
                &ctx.out().join(format!("series-{pattern}-{safe}.csv")),
                rows,
            )?);
        }
        let durations: Vec<String> = start_up_settings()
            .iter()
            .map(|s| {
                let r = &reports[&format!("{pattern}|{s}")];
                format!(
                    "{s} {}",
                    r.summary.duration_cycles.unwrap_or(r.summary.cycles)
                )
            })
            .collect();
        found.info(
            format!("{pattern}: collective duration (cycles)"),
            "-",
            durations.join(", "),
        );
    }
    Ok(found)
}
