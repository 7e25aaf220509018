//! `ar-isolation`: the thesis's second open question for congested-flow isolation. "HFDI
//! mechanisms, like FBICM and the corresponding parts of CCFIT and EcoCC, relies on a
//! deterministic routing algorithm"; "just applying a well known HFDI ... mechanism to a network
//! using adaptive routing will not work".
//!
//! FBICM and CCFIT (FBICM with Paper IV's InfiniBand CC) run under deterministic routing, under
//! adaptive routing as they are (naive adaptivity: a tree's packets choose their routes like
//! any other) and under adaptive routing with our congestion-aware choices
//! (`fabric.isolation.tree_routing`: a packet whose destination a tree downstream lists follows
//! that tree, or takes the deterministic route), beside no isolation under both routings. On
//! Paper V's Case #4 with 4 trees (`ccfit-fig8`'s runs; no isolation is its 1Q), with HFDI and
//! EcoCC in their place on Paper VI's pattern #2 (`ecocc-table3`'s 64-node runs on VOQ
//! switches; no isolation is its 1VL), and on Paper IV's silent and windy (p = 60 %) forests
//! (`ib-silent`'s and `ib-windy`'s runs, shortened; no isolation is their VOQ switch), with
//! `d_mod_k` against `adaptive_up`; and on `ar-ibcc`'s
//! dragonfly (ours; no isolation is its VOQ switch) with `min` against `ugal_l`, FBICM's
//! thresholds scaled to its smaller pools. The seeds draw the same offered traffic for every
//! cell.

use std::collections::BTreeMap;

use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

use super::super::forests::{Classes, settled, with_cc};
use super::super::infiniband_cc::report;
use super::arbitration::{self, CASE4_TREES};
use super::{SourceRuns, dragonfly, seeds_param};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 2");

/// A network and workload the schemes run on.
struct Setting {
    id: String,
    name: String,
    network: Network,
}

/// Where a setting's runs come from.
#[derive(Clone, Copy)]
enum Network {
    /// Paper V's Case #4 with 4 trees: `ccfit-fig8`'s runs, by scheme id there.
    Case4,
    /// Paper VI's pattern #2 on 64 nodes: `ecocc-table3`'s runs on VOQ switches, by scheme id
    /// there.
    Pattern2,
    /// A Paper IV forest: the experiment and its runs without and with CC.
    Forest {
        experiment: &'static str,
        off: &'static str,
        on: &'static str,
    },
    /// The grid's dragonfly under the group shift at `load` times minimal routing's bound,
    /// with hot spots.
    Dragonfly { load: f64 },
}

impl Network {
    /// Its schemes: (id, name); `none` is its own switch without isolation.
    fn schemes(&self) -> &'static [(&'static str, &'static str); 3] {
        match self {
            Network::Pattern2 => &HPQ_SCHEMES,
            _ => &CFQ_SCHEMES,
        }
    }

    /// Its deterministic and its adaptive routing.
    fn routings(&self) -> [&'static str; 2] {
        match self {
            Network::Dragonfly { .. } => ["min", "ugal_l"],
            _ => ["d_mod_k", "adaptive_up"],
        }
    }
}

/// The settings a grid may name (id, name, network); `dragonfly` stands for one setting per
/// load of the grid's `dragonfly_loads`.
const NAMED: [(&str, &str, Network); 5] = [
    (
        "case4",
        "Paper V, Config #3, Case #4 with 4 trees (4-ary 3-tree)",
        Network::Case4,
    ),
    (
        "pattern2",
        "Paper VI, pattern #2 on 64 nodes (VOQ switches; 4-ary 3-tree)",
        Network::Pattern2,
    ),
    (
        "silent",
        "Paper IV, silent forest (648-node tree)",
        Network::Forest {
            experiment: "ib-silent",
            off: "forest-cc-off",
            on: "forest-cc-on",
        },
    ),
    (
        "p60",
        "Paper IV, windy forest, x = 100 %, p = 60 % (648-node tree)",
        Network::Forest {
            experiment: "ib-windy",
            off: "x100-p60-cc-off",
            on: "x100-p60-cc-on",
        },
    ),
    ("dragonfly", "dragonfly", Network::Dragonfly { load: 0.0 }),
];

/// Congested-flow queues: (id, name). `none` is the setting's own switch without isolation.
const CFQ_SCHEMES: [(&str, &str); 3] = [
    ("none", "no isolation"),
    ("fbicm", "FBICM"),
    ("ccfit", "CCFIT"),
];

/// Hot-packet queues (VOQ switches only: not on the dragonfly, where their cold-packet queues
/// would mix lanes).
const HPQ_SCHEMES: [(&str, &str); 3] = [
    ("none", "no isolation"),
    ("hfdi", "HFDI"),
    ("ecocc", "EcoCC"),
];

/// Paper VI's pattern #2 on 64 nodes and VOQ switches: `ecocc-table3`'s run prefix.
const PATTERN2_RUNS: &str = "spread-n3-p2-voq-";

/// A routing's name under a network's deterministic and adaptive routing `[det, ada]`.
type RoutingName = fn([&str; 2]) -> String;

/// The routings (id, name under deterministic and adaptive routing `[det, ada]`): the
/// deterministic one, the adaptive one as it is, and the adaptive one with our tree routing
/// (`follow`, `gather`, `gather-ep`: only with isolation).
const ROUTINGS: [(&str, RoutingName); 5] = [
    ("det", |[det, _]| det.to_string()),
    ("naive", |[_, ada]| ada.to_string()),
    ("follow", |[_, ada]| format!("{ada} following trees (ours)")),
    ("gather", |[det, ada]| {
        format!("{ada}, trees on {det}'s route (ours)")
    }),
    ("gather-ep", |[det, ada]| {
        format!("{ada}, adapters' trees on {det}'s route (ours)")
    }),
];

/// The settings of routing `id` on `network`.
fn routing_settings(id: &str, network: &Network) -> Vec<String> {
    let [det, ada] = network.routings();
    let algorithm = |a: &str| format!("routing.algorithm=\"{a}\"");
    let tree = |t: &str| format!("fabric.isolation.tree_routing=\"{t}\"");
    match id {
        "det" => match network {
            // The tree's runs are under d_mod_k already.
            Network::Dragonfly { .. } => vec![algorithm(det)],
            _ => vec![],
        },
        "naive" => vec![algorithm(ada)],
        "follow" => vec![algorithm(ada), tree("follow")],
        "gather" => vec![algorithm(ada), tree("deterministic")],
        _ => vec![
            algorithm(ada),
            tree("deterministic"),
            "fabric.isolation.tree_roots=\"endpoint\"".into(),
        ],
    }
}

/// The (scheme, routing) cells on `network`.
fn cells(network: &Network) -> impl Iterator<Item = (&'static str, &'static str)> {
    network.schemes().iter().flat_map(|&(scheme, _)| {
        ROUTINGS
            .iter()
            .filter(move |r| scheme != "none" || matches!(r.0, "det" | "naive"))
            .map(move |r| (scheme, r.0))
    })
}

/// The name of routing `id` on `network`.
fn routing_name(id: &str, network: &Network) -> String {
    ROUTINGS
        .iter()
        .find(|r| r.0 == id)
        .map_or(String::new(), |r| (r.1)(network.routings()))
}

/// The run of `scheme` under `routing` on `setting` with `seed`.
fn run_id(setting: &str, scheme: &str, routing: &str, seed: u64) -> String {
    format!("{setting}|{scheme}|{routing}|s{seed}")
}

/// The grid's settings, the dragonfly once per load.
fn settings(grid: &Grid) -> Result<Vec<Setting>> {
    let mut settings = Vec::new();
    for &(id, name, network) in grid.pick("settings", &NAMED, |s| s.0)? {
        if let Network::Dragonfly { .. } = network {
            for fly in dragonfly::studies(grid)? {
                settings.push(Setting {
                    id: fly.id,
                    name: format!("{} (ours)", fly.name),
                    network: Network::Dragonfly { load: fly.load },
                });
            }
        } else {
            settings.push(Setting {
                id: id.to_string(),
                name: name.to_string(),
                network,
            });
        }
    }
    Ok(settings)
}

/// FBICM's thresholds on the dragonfly: the same shares of its lanes' pools as the defaults
/// are of Paper V's 1024-block pools (detection 1/4, Stop 5/16, Go 1/8).
fn scaled_thresholds(pool: u32) -> [String; 3] {
    let share = |num: u32, den: u32| (f64::from(pool) * f64::from(num) / f64::from(den)).round();
    [
        format!("fabric.isolation.detect_blocks={}", share(1, 4)),
        format!("fabric.isolation.stop_blocks={}", share(5, 16)),
        format!("fabric.isolation.go_blocks={}", share(1, 8)),
    ]
}

/// The base run of `scheme` on `setting` with `seed`, before the routing is set.
fn base_runs(setting: &Setting, grid: &Grid) -> Result<BTreeMap<(String, u64), Job>> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut runs = BTreeMap::new();
    match setting.network {
        Network::Case4 | Network::Pattern2 => {
            // The source experiment, its runs' prefix, and its scheme without isolation.
            let (experiment, prefix, without) = match setting.network {
                Network::Case4 => ("ccfit-fig8", CASE4_TREES, "1q"),
                _ => ("ecocc-table3", PATTERN2_RUNS, "1vl"),
            };
            let source = SourceRuns::of(experiment, grid, &[("seeds", seeds_param(&seeds))])?;
            for &(scheme, _) in setting.network.schemes() {
                let theirs = if scheme == "none" { without } else { scheme };
                for &seed in &seeds {
                    let job = source.get(&format!("{prefix}{theirs}-s{seed}"))?;
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
            for &(scheme, _) in &CFQ_SCHEMES {
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
        Network::Dragonfly { load } => {
            let thresholds = scaled_thresholds(dragonfly::pool_blocks(grid)?);
            for &seed in &seeds {
                let workload = dragonfly::workload(grid, load, seed)?;
                for &(scheme, _) in &CFQ_SCHEMES {
                    let mut all = match scheme {
                        "ccfit" => with_cc(&[]),
                        _ => Vec::new(),
                    };
                    if scheme != "none" {
                        all.push("fabric.queues=\"nfq_cfq\"".into());
                        all.extend(thresholds.iter().cloned());
                    }
                    all.extend(workload.iter().cloned());
                    let job = dragonfly::job(grid, String::new(), &all)?;
                    runs.insert((scheme.to_string(), seed), job);
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
        for ((scheme, seed), base) in base_runs(&setting, grid)? {
            for &(routing, _) in ROUTINGS
                .iter()
                .filter(|r| cells(&setting.network).any(|c| c == (scheme.as_str(), r.0)))
            {
                let mut all = routing_settings(routing, &setting.network);
                all.push("record.flows=true".to_string());
                let id = run_id(&setting.id, &scheme, routing, seed);
                jobs.push(base.varied(id, &all)?);
            }
        }
    }
    Ok(jobs)
}

/// The thesis's doubt, per setting and isolating scheme: the victims fare worse under naive
/// adaptive routing than under deterministic routing; on the dragonfly also (fixed before its
/// first run) that the scheme adds less for them over no isolation under adaptive routing.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    let stated = "HFDI mechanisms, like FBICM and the corresponding parts of CCFIT and EcoCC, \
                  relies on a deterministic routing algorithm";
    for setting in settings(grid)? {
        let [higher, lower] = setting.network.routings();
        for &(scheme, name) in &setting.network.schemes()[1..] {
            claims.claim(
                Claim::new(
                    format!("{}-{scheme}-adaptive-victims", setting.id),
                    format!(
                        "{}, {name}: the victims' throughput, {higher} against {lower} as it is",
                        setting.name
                    ),
                    SEC_3_7,
                    Rule::Order { higher, lower },
                )
                .shown(3, " Gbit/s")
                .stated(stated),
            );
            if let Network::Dragonfly { .. } = setting.network {
                claims.claim(
                    Claim::new(
                        format!("{}-{scheme}-gain", setting.id),
                        format!(
                            "{}: what {name} adds to the victims' throughput over no isolation, \
                             under {higher} against under {lower} as it is",
                            setting.name
                        ),
                        SEC_3_7,
                        Rule::Order { higher, lower },
                    )
                    .shown(3, " Gbit/s")
                    .stated(stated),
                );
            }
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
            Network::Case4 | Network::Pattern2 => {
                let r = arbitration::Reading::of(report, spec)?;
                Reading {
                    victims: r.victims,
                    hot: r.hot,
                    refused,
                    settled: true,
                }
            }
            Network::Forest { .. } | Network::Dragonfly { .. } => {
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
            "\n{}\n{:<14}{:<54}{:>10}{:>10}{:>12}\n",
            setting.name, "scheme", "routing", "victims", "hot", "refused"
        ));
        let mut by_cell: BTreeMap<(&str, &str), Vec<Reading>> = BTreeMap::new();
        for (scheme, routing) in cells(&setting.network) {
            let mut readings = Vec::new();
            for &seed in &seeds {
                let id = run_id(&setting.id, scheme, routing, seed);
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
            let scheme_name = setting
                .network
                .schemes()
                .iter()
                .find(|s| s.0 == scheme)
                .map_or("", |s| s.1);
            text.push_str(&format!(
                "{scheme_name:<14}{:<54}{:>10.3}{:>10.3}{:>12.0}\n",
                routing_name(routing, &setting.network),
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
        for &(scheme, name) in &setting.network.schemes()[1..] {
            let paired = |a: Vec<f64>, b: Vec<f64>| Ours::Paired(a.into_iter().zip(b).collect());
            found.set(
                format!("{}-{scheme}-adaptive-victims", setting.id),
                paired(victims(scheme, "det"), victims(scheme, "naive")),
            );
            if let Network::Dragonfly { .. } = setting.network {
                let gain = |routing: &str| -> Vec<f64> {
                    victims(scheme, routing)
                        .iter()
                        .zip(victims("none", routing))
                        .map(|(with, without)| with - without)
                        .collect()
                };
                found.set(
                    format!("{}-{scheme}-gain", setting.id),
                    paired(gain("det"), gain("naive")),
                );
            }
            // Ours against both references, per seed: information.
            for (ours, reference) in [
                ("follow", "naive"),
                ("follow", "det"),
                ("gather", "naive"),
                ("gather", "det"),
                ("gather-ep", "naive"),
                ("gather-ep", "det"),
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
                        routing_name(ours, &setting.network),
                        routing_name(reference, &setting.network)
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
