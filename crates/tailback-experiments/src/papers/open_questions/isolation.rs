//! `ar-isolation`: the thesis's second open question for congested-flow isolation. "HFDI
//! mechanisms, like FBICM and the corresponding parts of CCFIT and EcoCC, relies on a
//! deterministic routing algorithm"; "just applying a well known HFDI ... mechanism to a network
//! using adaptive routing will not work".
//!
//! FBICM and CCFIT (FBICM with Paper IV's InfiniBand CC) run under `d_mod_k`, under
//! `adaptive_up` as they are (naive adaptivity: a tree's packets choose their up ports like any
//! other) and under `adaptive_up` with our congestion-aware routing
//! (`fabric.isolation.tree_routing = "follow"`: a packet whose destination a tree downstream
//! lists takes only ports towards that tree), beside no isolation under both routings. On Paper
//! V's Case #4 with 4 trees (`ccfit-fig8`'s runs; no isolation is its 1Q) and on Paper IV's
//! silent and windy (p = 60 %) forests (`ib-silent`'s and `ib-windy`'s runs, shortened; no
//! isolation is their VOQ switch). The seeds draw the same offered traffic for every cell.

use std::collections::BTreeMap;

use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

use super::super::forests::{Classes, settled};
use super::super::infiniband_cc::report;
use super::arbitration::{self, CASE4_TREES};
use super::{SourceRuns, seeds_param};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 2");

/// A network and workload the schemes run on.
struct Setting {
    id: &'static str,
    name: &'static str,
    network: Network,
}

/// Where a setting's runs come from.
enum Network {
    /// Paper V's Case #4 with 4 trees: `ccfit-fig8`'s runs, by scheme id there.
    Case4,
    /// A Paper IV forest: the experiment and its runs without and with CC.
    Forest {
        experiment: &'static str,
        off: &'static str,
        on: &'static str,
    },
}

const SETTINGS: [Setting; 3] = [
    Setting {
        id: "case4",
        name: "Paper V, Config #3, Case #4 with 4 trees (4-ary 3-tree)",
        network: Network::Case4,
    },
    Setting {
        id: "silent",
        name: "Paper IV, silent forest (648-node tree)",
        network: Network::Forest {
            experiment: "ib-silent",
            off: "forest-cc-off",
            on: "forest-cc-on",
        },
    },
    Setting {
        id: "p60",
        name: "Paper IV, windy forest, x = 100 %, p = 60 % (648-node tree)",
        network: Network::Forest {
            experiment: "ib-windy",
            off: "x100-p60-cc-off",
            on: "x100-p60-cc-on",
        },
    },
];

/// The schemes: (id, name). `none` is the setting's own switch without isolation.
const SCHEMES: [(&str, &str); 3] = [
    ("none", "no isolation"),
    ("fbicm", "FBICM"),
    ("ccfit", "CCFIT"),
];

/// The routings: (id, name, settings); `follow` only with isolation.
const ROUTINGS: [(&str, &str, &[&str]); 4] = [
    ("det", "d_mod_k", &[]),
    (
        "naive",
        "adaptive_up",
        &["routing.algorithm=\"adaptive_up\""],
    ),
    (
        "follow",
        "adaptive_up following trees (ours)",
        &[
            "routing.algorithm=\"adaptive_up\"",
            "fabric.isolation.tree_routing=\"follow\"",
        ],
    ),
    (
        "gather",
        "adaptive_up, trees on d_mod_k (ours)",
        &[
            "routing.algorithm=\"adaptive_up\"",
            "fabric.isolation.tree_routing=\"deterministic\"",
        ],
    ),
];

/// The (scheme, routing) cells.
fn cells() -> impl Iterator<Item = (&'static str, &'static str)> {
    SCHEMES.iter().flat_map(|&(scheme, _)| {
        ROUTINGS
            .iter()
            .filter(move |r| scheme != "none" || !matches!(r.0, "follow" | "gather"))
            .map(move |r| (scheme, r.0))
    })
}

/// The name of routing `id`.
fn routing_name(id: &str) -> &'static str {
    ROUTINGS.iter().find(|r| r.0 == id).map_or("", |r| r.1)
}

/// The run of `scheme` under `routing` on `setting` with `seed`.
fn run_id(setting: &str, scheme: &str, routing: &str, seed: u64) -> String {
    format!("{setting}|{scheme}|{routing}|s{seed}")
}

/// The grid's settings.
fn settings(grid: &Grid) -> Result<Vec<&'static Setting>> {
    grid.pick("settings", &SETTINGS, |s| s.id)
}

/// The base run of `scheme` on `setting` with `seed`, before the routing is set.
fn base_runs(setting: &Setting, grid: &Grid) -> Result<BTreeMap<(String, u64), Job>> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut runs = BTreeMap::new();
    match setting.network {
        Network::Case4 => {
            let source = SourceRuns::of("ccfit-fig8", grid, &[("seeds", seeds_param(&seeds))])?;
            for &(scheme, _) in &SCHEMES {
                let theirs = if scheme == "none" { "1q" } else { scheme };
                for &seed in &seeds {
                    let job = source.get(&format!("{CASE4_TREES}{theirs}-s{seed}"))?;
                    runs.insert((scheme.to_string(), seed), job.clone());
                }
            }
        }
        Network::Forest {
            experiment,
            off,
            on,
        } => {
            let (warmup, measure): (f64, f64) = (
                grid.param("forest_warmup_us")?,
                grid.param("forest_measure_us")?,
            );
            let number = toml::Value::Float;
            let params = [
                ("warmup_us", number(warmup)),
                ("measure_us", number(measure)),
            ];
            let source = SourceRuns::of(experiment, grid, &params)?;
            for &(scheme, _) in &SCHEMES {
                let base = source.get(if scheme == "ccfit" { on } else { off })?;
                let queues: &[String] = if scheme == "none" {
                    &[]
                } else {
                    &["fabric.queues=\"nfq_cfq\"".to_string()]
                };
                for &seed in &seeds {
                    let mut all = queues.to_vec();
                    all.push(format!("seed={seed}"));
                    runs.insert(
                        (scheme.to_string(), seed),
                        base.varied(String::new(), &all)?,
                    );
                }
            }
        }
    }
    Ok(runs)
}

/// Every cell of every setting, per seed.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    for setting in settings(grid)? {
        for ((scheme, seed), base) in base_runs(setting, grid)? {
            for &(routing, _, routing_settings) in ROUTINGS
                .iter()
                .filter(|r| cells().any(|c| c == (scheme.as_str(), r.0)))
            {
                let all: Vec<String> = routing_settings
                    .iter()
                    .map(|s| s.to_string())
                    .chain(["record.flows=true".to_string()])
                    .collect();
                let id = run_id(setting.id, &scheme, routing, seed);
                jobs.push(base.varied(id, &all)?);
            }
        }
    }
    Ok(jobs)
}

/// The thesis's doubt, per setting and isolating scheme: the victims fare worse under naive
/// adaptive routing than under deterministic routing.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for setting in settings(grid)? {
        for &(scheme, name) in &SCHEMES[1..] {
            claims.claim(
                Claim::new(
                    format!("{}-{scheme}-adaptive-victims", setting.id),
                    format!(
                        "{}, {name}: the victims' throughput, d_mod_k against adaptive_up as \
                         it is",
                        setting.name
                    ),
                    SEC_3_7,
                    Rule::Order {
                        higher: "d_mod_k",
                        lower: "adaptive_up",
                    },
                )
                .shown(3, " Gbit/s")
                .stated(
                    "HFDI mechanisms, like FBICM and the corresponding parts of CCFIT and \
                     EcoCC, relies on a deterministic routing algorithm",
                ),
            );
        }
    }
    Ok(claims)
}

/// What one run shows: the victims and the hot traffic (Case #4: the flows neither from a hot
/// source nor to a hot destination, and the hot flows, together over the judged span, Gbit/s;
/// forests: per node that is not a hot spot, and per hot spot, Gbit/s), and the lines the
/// switches could not claim.
#[derive(Debug, Clone, Copy)]
struct Reading {
    victims: f64,
    hot: f64,
    refused: u64,
    settled: bool,
}

impl Reading {
    fn of(network: &Network, report: &RunReport, spec: &Spec) -> Result<Reading> {
        let refused = report
            .summary
            .mechanism_counts
            .get("cfq_claims_refused")
            .copied()
            .unwrap_or(0);
        Ok(match network {
            Network::Case4 => {
                let r = arbitration::Reading::of(report, spec)?;
                Reading {
                    victims: r.victims,
                    hot: r.hot,
                    refused,
                    settled: true,
                }
            }
            Network::Forest { .. } => {
                let c = Classes::of(report)?;
                Reading {
                    victims: c.others,
                    hot: c.hot,
                    refused,
                    settled: c.stationary,
                }
            }
        })
    }
}

/// Runs every cell; tabulates victims, hot traffic and refused claims per setting and cell,
/// and measures the claims and ours against both references on the paired seeds.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    let specs: BTreeMap<&str, &Spec> = jobs.iter().map(|j| (j.id.as_str(), &j.config)).collect();
    let mut found = Findings::default();
    let mut text = format!(
        "Victims and hot traffic (Case #4: the victim flows and the hot flows together over the \
         second half of the hot window; forests: per node that is not a hot spot and per hot \
         spot), Gbit/s, and CFQ claims refused for want of a free line; mean of {} seeds\n",
        seeds.len()
    );
    let mut csv = String::from("setting,scheme,routing,seed,victims_gbps,hot_gbps,refused\n");
    let mut unsettled = Vec::new();
    for setting in settings(grid)? {
        text.push_str(&format!(
            "\n{}\n{:<14}{:<38}{:>10}{:>10}{:>12}\n",
            setting.name, "scheme", "routing", "victims", "hot", "refused"
        ));
        let mut by_cell: BTreeMap<(&str, &str), Vec<Reading>> = BTreeMap::new();
        for (scheme, routing) in cells() {
            let mut readings = Vec::new();
            for &seed in &seeds {
                let id = run_id(setting.id, scheme, routing, seed);
                let r = Reading::of(&setting.network, report(&reports, &id)?, specs[&*id])?;
                csv.push_str(&format!(
                    "{},{scheme},{routing},{seed},{:.4},{:.4},{}\n",
                    setting.id, r.victims, r.hot, r.refused
                ));
                if !r.settled {
                    unsettled.push(id);
                }
                readings.push(r);
            }
            let mean = |f: fn(&Reading) -> f64| {
                readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64
            };
            let scheme_name = SCHEMES.iter().find(|s| s.0 == scheme).map_or("", |s| s.1);
            text.push_str(&format!(
                "{scheme_name:<14}{:<38}{:>10.3}{:>10.3}{:>12.0}\n",
                routing_name(routing),
                mean(|r| r.victims),
                mean(|r| r.hot),
                mean(|r| r.refused as f64),
            ));
            by_cell.insert((scheme, routing), readings);
        }
        let victims = |scheme: &str, routing: &str| -> Vec<f64> {
            by_cell[&(scheme, routing)]
                .iter()
                .map(|r| r.victims)
                .collect()
        };
        for &(scheme, name) in &SCHEMES[1..] {
            found.set(
                format!("{}-{scheme}-adaptive-victims", setting.id),
                Ours::Paired(
                    victims(scheme, "det")
                        .into_iter()
                        .zip(victims(scheme, "naive"))
                        .collect(),
                ),
            );
            // Ours against both references, per seed: information.
            for (ours, reference) in [
                ("follow", "naive"),
                ("follow", "det"),
                ("gather", "naive"),
                ("gather", "det"),
            ] {
                let diffs: Vec<f64> = victims(scheme, ours)
                    .iter()
                    .zip(victims(scheme, reference))
                    .map(|(x, b)| x - b)
                    .collect();
                found.info(
                    format!(
                        "{}, {name}: the victims, {} minus {} (Gbit/s, per-seed paired, 95 % \
                         interval)",
                        setting.name,
                        routing_name(ours),
                        routing_name(reference)
                    ),
                    "-",
                    Spread::of(&diffs).value(3),
                );
            }
        }
    }
    settled(&mut found, &unsettled);
    print!("{text}");
    for (name, body) in [("isolation.txt", &text), ("isolation.csv", &csv)] {
        let path = ctx.write_text(name, body)?;
        found.files.push(path);
    }
    Ok(found)
}
