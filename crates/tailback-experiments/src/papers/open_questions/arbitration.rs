//! `cfq-arbitration`: the thesis's third open question. An isolating switch arbitrates at each
//! input between the normal queue and the isolating queues (CFQs, HPQs) whose heads could go
//! to the same output: "the normal queue should be served first to avoid HoL blocking, yet
//! without starving the congested ones; ideally the arbitration scheme should be able to take
//! into account the situation at the root of the congestion tree".
//!
//! The runs are those of the existing experiments — Paper V's Config #1, Case #1
//! (`ccfit-fairness`) and Config #3, Case #4 with four trees (`ccfit-fig8`) under FBICM and
//! CCFIT, Paper VI's pattern #2 on 64 nodes (`ecocc-table3`, VOQ switches) under HFDI and
//! EcoCC — each repeated under every `fabric.isolation.arbitration` policy (same seeds, so
//! the same offered traffic). Victims are the flows neither from a hot source nor to a hot
//! destination (a destination of two or more fixed flows); the hot flows are the hot sources'
//! to those destinations. Both are read over the second half of the span in which every fixed
//! flow is on (Case #1: the last phase, as Paper V reads it; Case #4 and pattern #2: the hot
//! window).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use tailback_core::config::ProcessConfig;
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

use super::super::infiniband_cc::report;
use super::{SourceRuns, seeds_param};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::error::Error;
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 3");

/// A configuration of an existing experiment whose runs are repeated per policy.
struct Setting {
    /// Its id in run names.
    id: &'static str,
    /// Its name in tables.
    name: &'static str,
    /// The experiment whose runs it takes, and which of them (by run id).
    experiment: &'static str,
    keep: fn(&str) -> bool,
    /// The isolating schemes, by the id they have in those runs, and their names.
    schemes: [(&'static str, &'static str); 2],
    /// Whether an input can hold packets of both classes for one output (otherwise the policy
    /// cannot matter, and the thesis's claims are not judged there).
    mixes: bool,
}

/// Whether run `id` is of scheme `scheme` (`-{scheme}-` in it).
pub(super) fn of_scheme(id: &str, scheme: &str) -> bool {
    id.contains(&format!("-{scheme}-"))
}

/// Case #4 of Paper V with 4 trees (`ccfit-fig8`'s runs).
pub(super) const CASE4_TREES: &str = "t4-";

const SETTINGS: [Setting; 3] = [
    Setting {
        id: "case1",
        name: "Paper V, Config #1, Case #1 (two switches)",
        experiment: "ccfit-fairness",
        keep: |id| of_scheme(id, "fbicm") || of_scheme(id, "ccfit"),
        schemes: [("fbicm", "FBICM"), ("ccfit", "CCFIT")],
        mixes: false,
    },
    Setting {
        id: "case4",
        name: "Paper V, Config #3, Case #4 with 4 trees (4-ary 3-tree)",
        experiment: "ccfit-fig8",
        keep: |id| {
            id.starts_with(CASE4_TREES) && (of_scheme(id, "fbicm") || of_scheme(id, "ccfit"))
        },
        schemes: [("fbicm", "FBICM"), ("ccfit", "CCFIT")],
        mixes: true,
    },
    Setting {
        id: "pattern2",
        name: "Paper VI, pattern #2 on 64 nodes (VOQ switches)",
        experiment: "ecocc-table3",
        keep: |id| {
            id.starts_with("spread-n3-p2-voq-")
                && (id.contains("-voq-hfdi-") || id.contains("-voq-ecocc-"))
        },
        schemes: [("hfdi", "HFDI"), ("ecocc", "EcoCC")],
        mixes: true,
    },
];

/// The policies compared: (id, name, settings). The thesis's two poles first, then ours.
const POLICIES: [(&str, &str, &[&str]); 5] = [
    (
        "ready_order",
        "ready order (the papers')",
        &["fabric.isolation.arbitration=\"ready_order\""],
    ),
    (
        "normal_first",
        "normal first",
        &["fabric.isolation.arbitration=\"normal_first\""],
    ),
    (
        "round_robin",
        "round robin (ours)",
        &["fabric.isolation.arbitration=\"round_robin\""],
    ),
    (
        "root_weighted",
        "root weighted (ours)",
        &["fabric.isolation.arbitration=\"root_weighted\""],
    ),
    (
        "root_weighted_in_band",
        "root weighted, control in band (ours)",
        &[
            "fabric.isolation.arbitration=\"root_weighted\"",
            "fabric.isolation.control_in_band=true",
        ],
    ),
];

/// The run of `source` (a run id of the setting's experiment) under `policy`.
fn run_id(setting: &str, policy: &str, source: &str) -> String {
    format!("{setting}|{policy}|{source}")
}

/// The kept runs of `setting`'s experiment (its quick runs with the grid's `quick_sources`),
/// with the grid's seeds.
fn sources(setting: &Setting, grid: &Grid) -> Result<Vec<Job>> {
    let seeds = seeds_param(&grid.param::<Vec<u64>>("seeds")?);
    let runs = SourceRuns::of(setting.experiment, grid, &[("seeds", seeds)])?;
    Ok(runs
        .jobs
        .into_iter()
        .filter(|job| (setting.keep)(&job.id))
        .collect())
}

/// Every kept run of every setting, under every policy.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for setting in &SETTINGS {
        for source in sources(setting, grid)? {
            for (policy, _, settings) in POLICIES {
                let settings: Vec<String> = settings
                    .iter()
                    .chain(&["record.flows=true"])
                    .map(|s| s.to_string())
                    .collect();
                jobs.push(source.varied(run_id(setting.id, policy, &source.id), &settings)?);
            }
        }
    }
    Ok(jobs)
}

/// The claim of the thesis that serving the normal queue first carries more of the victims'
/// traffic than the papers' ready order, per setting where classes mix and scheme.
pub(super) fn claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for setting in SETTINGS.iter().filter(|s| s.mixes) {
        for (scheme, name) in setting.schemes {
            claims.claim(
                Claim::new(
                    format!("{}-{scheme}-normal-first-victims", setting.id),
                    format!(
                        "{}, {name}: the victims' throughput, normal first against ready order",
                        setting.name
                    ),
                    SEC_3_7,
                    Rule::Order {
                        higher: "normal first",
                        lower: "ready order",
                    },
                )
                .shown(2, " Gbit/s")
                .stated("the normal queue should be served first to avoid HoL blocking"),
            );
        }
    }
    Ok(claims)
}

/// Who is hot in a run, and the cycles its rates are read over.
#[derive(Debug)]
struct Roles {
    hot_destinations: BTreeSet<u32>,
    hot_sources: BTreeSet<u32>,
    judged: Range<u64>,
}

impl Roles {
    /// Reads the roles of a run of `spec`: its report's hot destinations (those of two or more
    /// fixed flows), the sources of fixed flows to them, and as the judged span the second
    /// half of the one in which every fixed flow is on.
    fn of(spec: &Spec, report: &RunReport) -> Result<Roles> {
        let ProcessConfig::Flows(flows) = &spec.traffic.process else {
            return Err(Error::Input(
                "cfq-arbitration needs runs of explicit flows".into(),
            ));
        };
        let hot_destinations: BTreeSet<u32> = report.hot_nodes.iter().copied().collect();
        let fixed: Vec<_> = flows
            .flows
            .iter()
            .filter(|f| f.dst.node().is_some())
            .collect();
        let hot_sources = fixed
            .iter()
            .filter(|f| f.dst.node().is_some_and(|d| hot_destinations.contains(&d)))
            .map(|f| f.src)
            .collect();
        let end = spec.sim.warmup_cycles + spec.sim.measure_cycles;
        let on = fixed.iter().map(|f| f.start).max().unwrap_or(0);
        let off = fixed
            .iter()
            .filter_map(|f| f.stop)
            .min()
            .unwrap_or(end)
            .min(end);
        Ok(Roles {
            hot_destinations,
            hot_sources,
            judged: on + (off.saturating_sub(on)) / 2..off,
        })
    }
}

/// What one run shows, in Gbit/s over the judged span.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Reading {
    /// The victims together.
    pub(super) victims: f64,
    /// The hot flows together, and the least of the hot sources (starvation).
    pub(super) hot: f64,
    pub(super) least_hot: f64,
    /// Rate messages (`root_weighted`).
    rates: u64,
}

impl Reading {
    /// Reads a run of `spec` (explicit flows, recorded per window).
    pub(super) fn of(report: &RunReport, spec: &Spec) -> Result<Reading> {
        let roles = Roles::of(spec, report)?;
        let gbps = report.summary.units.map_or(1.0, |u| u.link_gbps);
        let window = spec.record.series_window.max(1);
        let windows =
            roles.judged.start.div_ceil(window) as usize..(roles.judged.end / window) as usize;
        let rate = |values: &[f64]| -> f64 {
            let part = &values[windows.start.min(values.len())..windows.end.min(values.len())];
            gbps * part.iter().sum::<f64>() / windows.len().max(1) as f64
        };
        let mut reading = Reading {
            rates: report
                .summary
                .mechanism_counts
                .get("control_rates")
                .copied()
                .unwrap_or(0),
            ..Reading::default()
        };
        let mut per_hot_source: BTreeMap<u32, f64> =
            roles.hot_sources.iter().map(|&s| (s, 0.0)).collect();
        for f in &report.flows {
            let hot_source = roles.hot_sources.contains(&f.src);
            let hot_destination = roles.hot_destinations.contains(&f.dst);
            if hot_source && hot_destination {
                let r = rate(&f.windows);
                reading.hot += r;
                *per_hot_source.entry(f.src).or_default() += r;
            } else if !hot_source && !hot_destination {
                reading.victims += rate(&f.windows);
            }
        }
        reading.least_hot = per_hot_source
            .values()
            .copied()
            .fold(f64::INFINITY, f64::min);
        if !reading.least_hot.is_finite() {
            reading.least_hot = 0.0;
        }
        Ok(reading)
    }
}

/// Runs every setting under every policy; tabulates victims, hot flows and their least
/// source per scheme and policy, and measures the claims on the paired seeds.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let specs: BTreeMap<&str, &Spec> = jobs.iter().map(|j| (j.id.as_str(), &j.config)).collect();
    let mut found = Findings::default();
    let mut text = String::from(
        "Victims: flows neither from a hot source nor to a hot destination; hot: the hot \
         sources' flows to the hot destinations (Gbit/s, mean over seeds, second half of the \
         span with every fixed flow on)\n",
    );
    let mut csv = String::from(
        "setting,scheme,policy,source,victims_gbps,hot_gbps,least_hot_gbps,rate_messages\n",
    );
    for setting in &SETTINGS {
        let sources = sources(setting, grid)?;
        text.push_str(&format!(
            "\n{}\n{:<8}{:<40}{:>12}{:>12}{:>12}{:>10}\n",
            setting.name, "scheme", "policy", "victims", "hot", "least hot", "rates"
        ));
        for (scheme, scheme_name) in setting.schemes {
            let runs: Vec<&Job> = sources
                .iter()
                .filter(|j| of_scheme(&j.id, scheme))
                .collect();
            let mut by_policy: BTreeMap<&str, Vec<Reading>> = BTreeMap::new();
            for (policy, name, _) in POLICIES {
                let mut readings = Vec::new();
                for source in &runs {
                    let id = run_id(setting.id, policy, &source.id);
                    let reading = Reading::of(report(&reports, &id)?, specs[id.as_str()])?;
                    csv.push_str(&format!(
                        "{},{scheme},{policy},{},{:.4},{:.4},{:.4},{}\n",
                        setting.id,
                        source.id,
                        reading.victims,
                        reading.hot,
                        reading.least_hot,
                        reading.rates
                    ));
                    readings.push(reading);
                }
                let mean = |f: fn(&Reading) -> f64| {
                    readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64
                };
                text.push_str(&format!(
                    "{scheme_name:<8}{name:<40}{:>12.2}{:>12.2}{:>12.3}{:>10.0}\n",
                    mean(|r| r.victims),
                    mean(|r| r.hot),
                    mean(|r| r.least_hot),
                    mean(|r| r.rates as f64),
                ));
                by_policy.insert(policy, readings);
            }
            let paired = |f: fn(&Reading) -> f64, higher: &str, lower: &str| {
                Ours::Paired(
                    by_policy[higher]
                        .iter()
                        .map(f)
                        .zip(by_policy[lower].iter().map(f))
                        .collect(),
                )
            };
            if setting.mixes {
                found.set(
                    format!("{}-{scheme}-normal-first-victims", setting.id),
                    paired(|r| r.victims, "normal_first", "ready_order"),
                );
            }
            // Each policy against ready order: the per-seed paired difference.
            let against = |f: fn(&Reading) -> f64| {
                let base: Vec<f64> = by_policy["ready_order"].iter().map(f).collect();
                POLICIES[1..]
                    .iter()
                    .map(|(p, _, _)| {
                        let diffs: Vec<f64> = by_policy[p]
                            .iter()
                            .map(f)
                            .zip(&base)
                            .map(|(x, b)| x - b)
                            .collect();
                        let d = Spread::of(&diffs);
                        format!("{p} {}{}", if d.mean >= 0.0 { "+" } else { "" }, d.value(2))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            for (what, f) in [
                ("victims", (|r: &Reading| r.victims) as fn(&Reading) -> f64),
                ("hot flows (starvation would lower them)", |r: &Reading| {
                    r.hot
                }),
            ] {
                found.info(
                    format!(
                        "{}, {scheme_name}: {what}, each policy minus ready order (Gbit/s, \
                         per-seed paired, 95 % interval)",
                        setting.name
                    ),
                    "-",
                    against(f),
                );
            }
        }
    }
    print!("{text}");
    for (name, body) in [("arbitration.txt", &text), ("arbitration.csv", &csv)] {
        let path = ctx.write_text(name, body)?;
        found.files.push(path);
    }
    Ok(found)
}
