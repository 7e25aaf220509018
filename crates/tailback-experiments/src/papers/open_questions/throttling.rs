//! `ar-ibcc`: the thesis's second open question for injection throttling. "When it comes to
//! injection throttling, it is not clear how the fact that adaptive routing detaches a packet
//! from a given path influences the marking of packets and the injection throttling scheme";
//! "just applying a well known HFDI or injection throttling based congestion management
//! mechanism to a network using adaptive routing will not work".
//!
//! Two networks. Paper IV's forests on the 648-node tree as `ib-silent` and `ib-windy` run them
//! (the silent forest; the windy forest with every node a B node sending p = 30, 60 or 90 % to
//! its hot spot), under `d_mod_k` and `adaptive_up`. And the 1,056-node dragonfly (ours):
//! every node sends to the next group at a multiple of what minimal routing can carry there,
//! and from the end of the group shift's warm-up an eighth of the nodes also send to 4 hot
//! spots at full rate, under `min` and `ugal_l`. Each with CC off and on (Paper IV's), and under
//! adaptive routing also with our marking that spares packets routed to a congested Port VL by
//! choice (`congestion.mark_hops = "unchosen"`). Roles and hot spots come from the seed, so
//! every cell of a seed sees the same offered traffic.

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::super::forests::{Classes, contributors_jain, settled, with_cc};
use super::super::infiniband_cc::report;
use super::{SourceRuns, dragonfly};
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 2");

/// The forests a grid may name: (id, name, source experiment, its CC-off and CC-on run ids).
const FORESTS: [(&str, &str, &str, &str, &str); 4] = [
    (
        "silent",
        "silent forest",
        "ib-silent",
        "forest-cc-off",
        "forest-cc-on",
    ),
    (
        "p30",
        "windy forest, x = 100 %, p = 30 %",
        "ib-windy",
        "x100-p30-cc-off",
        "x100-p30-cc-on",
    ),
    (
        "p60",
        "windy forest, x = 100 %, p = 60 %",
        "ib-windy",
        "x100-p60-cc-off",
        "x100-p60-cc-on",
    ),
    (
        "p90",
        "windy forest, x = 100 %, p = 90 %",
        "ib-windy",
        "x100-p90-cc-off",
        "x100-p90-cc-on",
    ),
];

/// A network and workload the question is asked on.
enum Network {
    /// A forest on the 648-node tree as another experiment runs it: the experiment and its
    /// runs without and with CC.
    Tree {
        experiment: &'static str,
        off: &'static str,
        on: &'static str,
    },
    /// The grid's dragonfly, every node sending to the next group at `load` times what minimal
    /// routing carries per node there, and hot spots from the end of the warm-up.
    Dragonfly { load: f64 },
}

/// One network and workload of the grid.
struct Study {
    id: String,
    name: String,
    network: Network,
}

impl Study {
    /// Its deterministic and its adaptive routing.
    fn routings(&self) -> [&'static str; 2] {
        match self.network {
            Network::Tree { .. } => ["d_mod_k", "adaptive_up"],
            Network::Dragonfly { .. } => ["min", "ugal_l"],
        }
    }
}

/// The studies of the grid: its `forests`, then the dragonfly at each of its `dragonfly_loads`.
fn studies(grid: &Grid) -> Result<Vec<Study>> {
    let mut studies = Vec::new();
    for &(id, name, experiment, off, on) in grid.pick("forests", &FORESTS, |f| f.0)? {
        studies.push(Study {
            id: id.into(),
            name: name.into(),
            network: Network::Tree {
                experiment,
                off,
                on,
            },
        });
    }
    for fly in dragonfly::studies(grid)? {
        studies.push(Study {
            id: fly.id,
            name: fly.name,
            network: Network::Dragonfly { load: fly.load },
        });
    }
    Ok(studies)
}

/// A cell of a study: routing, CC, marking.
struct Cell {
    id: &'static str,
    adaptive: bool,
    cc: bool,
    /// Marking only unchosen hops (ours).
    unchosen: bool,
}

/// The cells of every study.
const CELLS: [Cell; 5] = [
    Cell {
        id: "det-off",
        adaptive: false,
        cc: false,
        unchosen: false,
    },
    Cell {
        id: "det-cc",
        adaptive: false,
        cc: true,
        unchosen: false,
    },
    Cell {
        id: "ada-off",
        adaptive: true,
        cc: false,
        unchosen: false,
    },
    Cell {
        id: "ada-cc",
        adaptive: true,
        cc: true,
        unchosen: false,
    },
    Cell {
        id: "ada-unchosen",
        adaptive: true,
        cc: true,
        unchosen: true,
    },
];

impl Cell {
    /// Its name in tables, under `routings` (deterministic, adaptive).
    fn name(&self, [det, ada]: [&str; 2]) -> String {
        let routing = if self.adaptive { ada } else { det };
        match (self.cc, self.unchosen) {
            (false, _) => format!("{routing}, CC off"),
            (true, false) => format!("{routing}, IB CC"),
            (true, true) => format!("{routing}, IB CC marking unchosen hops (ours)"),
        }
    }

    /// Its routing and marking settings; a tree's cells take CC from their source run.
    fn settings(&self, study: &Study) -> Vec<String> {
        let [det, ada] = study.routings();
        let mut settings = Vec::new();
        if let Network::Dragonfly { .. } = study.network {
            if self.cc {
                settings = with_cc(&[]);
            }
            settings.push(format!("routing.algorithm=\"{det}\""));
        }
        if self.adaptive {
            settings.retain(|s| !s.starts_with("routing.algorithm"));
            settings.push(format!("routing.algorithm=\"{ada}\""));
        }
        if self.unchosen {
            settings.push("congestion.mark_hops=\"unchosen\"".into());
        }
        settings
    }
}

/// The run of `cell` on `study` with `seed`.
fn run_id(study: &str, cell: &str, seed: u64) -> String {
    format!("{study}|{cell}|s{seed}")
}

/// Every cell of every study of the grid, per seed.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut jobs = Vec::new();
    for study in studies(grid)? {
        match study.network {
            Network::Tree {
                experiment,
                off,
                on,
            } => {
                let runs = SourceRuns::of(experiment, grid, &[])?;
                for &seed in &seeds {
                    for cell in &CELLS {
                        let mut all = cell.settings(&study);
                        all.extend([format!("seed={seed}"), "record.flows=true".to_string()]);
                        let base = runs.get(if cell.cc { on } else { off })?;
                        jobs.push(base.varied(run_id(&study.id, cell.id, seed), &all)?);
                    }
                }
            }
            Network::Dragonfly { load } => {
                for &seed in &seeds {
                    let workload = dragonfly::workload(grid, load, seed)?;
                    for cell in &CELLS {
                        let mut all = cell.settings(&study);
                        all.extend(workload.iter().cloned());
                        jobs.push(dragonfly::job(
                            grid,
                            run_id(&study.id, cell.id, seed),
                            &all,
                        )?);
                    }
                }
            }
        }
    }
    Ok(jobs)
}

/// The thesis's doubt, per study: with IB CC, the victims (the nodes that are not hot spots)
/// receive less under adaptive routing than under deterministic routing; on the dragonfly also
/// (fixed before its first run) that CC adds less for them under adaptive routing.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for study in studies(grid)? {
        let [higher, lower] = study.routings();
        let (id, name) = (&study.id, &study.name);
        claims.claim(
            Claim::new(
                format!("{id}-cc-adaptive-victims"),
                format!(
                    "{name}, IB CC on: receive rate per node that is not a hot spot, {higher} \
                     against {lower}"
                ),
                SEC_3_7,
                Rule::Order { higher, lower },
            )
            .shown(3, " Gbit/s")
            .stated(
                "just applying ... injection throttling ... to a network using adaptive routing \
                 will not work",
            ),
        );
        if let Network::Dragonfly { .. } = study.network {
            claims.claim(
                Claim::new(
                    format!("{id}-cc-gain"),
                    format!(
                        "{name}: what IB CC adds to the receive rate per node that is not a hot \
                         spot, under {higher} against under {lower}"
                    ),
                    SEC_3_7,
                    Rule::Order { higher, lower },
                )
                .shown(3, " Gbit/s")
                .stated(
                    "the adaptivity of the routing algorithm disturbs the fundamental \
                     assumptions made by the congestion management mechanisms",
                ),
            );
        }
    }
    Ok(claims)
}

/// What one run shows.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// Gbit/s per node: hot spots, the other nodes, the lowest of the other nodes; the
    /// network's total, Gbit/s.
    hot: f64,
    others: f64,
    lowest: f64,
    total: f64,
    /// Jain's fairness index over the rates the contributors (nodes sending to a hot spot)
    /// get through to their hot spots.
    jain: f64,
    /// Packets marked (FECN).
    marks: u64,
    /// Whether both classes kept their rate over the window.
    settled: bool,
}

impl Reading {
    fn of(report: &RunReport) -> Result<Reading> {
        let classes = Classes::of(report)?;
        Ok(Reading {
            hot: classes.hot,
            others: classes.others,
            lowest: classes.lowest,
            total: classes.total,
            jain: contributors_jain(report),
            marks: report
                .summary
                .mechanism_counts
                .get("marks")
                .copied()
                .unwrap_or(0),
            settled: classes.stationary,
        })
    }
}

/// Runs every cell; tabulates hot spots, the other nodes (mean and lowest), the total and the
/// contributors' fairness per study and cell, and measures the claims on the paired seeds.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    let mut found = Findings::default();
    let mut text = format!(
        "Gbit/s per node (hot spots, the others, the lowest of the others), total Gbit/s, \
         Jain's index over the contributors' rates to their hot spots; mean of {} seeds\n",
        seeds.len()
    );
    let mut csv = String::from(
        "study,cell,seed,hot_gbps,others_gbps,lowest_gbps,total_gbps,jain,marks,settled\n",
    );
    let mut unsettled = Vec::new();
    for study in studies(grid)? {
        let (id, name, routings) = (&study.id, &study.name, study.routings());
        text.push_str(&format!(
            "\n{name}\n{:<52}{:>9}{:>9}{:>9}{:>9}{:>8}{:>12}\n",
            "cell", "hot", "others", "lowest", "total", "Jain", "marks"
        ));
        let mut by_cell: BTreeMap<&str, Vec<Reading>> = BTreeMap::new();
        for cell in &CELLS {
            let mut readings = Vec::new();
            for &seed in &seeds {
                let run = run_id(id, cell.id, seed);
                let r = Reading::of(report(&reports, &run)?)?;
                csv.push_str(&format!(
                    "{id},{},{seed},{:.4},{:.4},{:.4},{:.2},{:.4},{},{}\n",
                    cell.id, r.hot, r.others, r.lowest, r.total, r.jain, r.marks, r.settled
                ));
                if !r.settled {
                    unsettled.push(run);
                }
                readings.push(r);
            }
            let mean = |f: fn(&Reading) -> f64| {
                readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64
            };
            text.push_str(&format!(
                "{:<52}{:>9.3}{:>9.3}{:>9.3}{:>9.1}{:>8.3}{:>12.0}\n",
                cell.name(routings),
                mean(|r| r.hot),
                mean(|r| r.others),
                mean(|r| r.lowest),
                mean(|r| r.total),
                mean(|r| r.jain),
                mean(|r| r.marks as f64),
            ));
            by_cell.insert(cell.id, readings);
        }
        let values = |cell: &str, f: fn(&Reading) -> f64| -> Vec<f64> {
            by_cell[cell].iter().map(f).collect()
        };
        let others = |cell: &str| values(cell, |r| r.others);
        found.set(
            format!("{id}-cc-adaptive-victims"),
            Ours::Paired(others("det-cc").into_iter().zip(others("ada-cc")).collect()),
        );
        if let Network::Dragonfly { .. } = study.network {
            let gain = |off: &str, on: &str| -> Vec<f64> {
                others(on)
                    .iter()
                    .zip(others(off))
                    .map(|(a, b)| a - b)
                    .collect()
            };
            found.set(
                format!("{id}-cc-gain"),
                Ours::Paired(
                    gain("det-off", "det-cc")
                        .into_iter()
                        .zip(gain("ada-off", "ada-cc"))
                        .collect(),
                ),
            );
        }
        // Ours against plain IB CC under adaptive routing, per seed: information.
        let ada = routings[1];
        for (what, f) in [
            (
                "the other nodes (Gbit/s per node)",
                (|r: &Reading| r.others) as fn(&Reading) -> f64,
            ),
            ("the lowest of the other nodes (Gbit/s)", |r: &Reading| {
                r.lowest
            }),
            ("the hot spots (Gbit/s per node)", |r: &Reading| r.hot),
            ("the total (Gbit/s)", |r: &Reading| r.total),
            ("Jain's index over the contributors", |r: &Reading| r.jain),
        ] {
            let diffs: Vec<f64> = values("ada-unchosen", f)
                .iter()
                .zip(values("ada-cc", f))
                .map(|(x, b)| x - b)
                .collect();
            found.info(
                format!(
                    "{name}, {ada}: {what}, marking unchosen hops (ours) minus IB CC \
                     (per-seed paired, 95 % interval)"
                ),
                "-",
                Spread::of(&diffs).value(3),
            );
        }
    }
    settled(&mut found, &unsettled);
    print!("{text}");
    for (name, body) in [("throttling.txt", &text), ("throttling.csv", &csv)] {
        let path = ctx.write_text(name, body)?;
        found.files.push(path);
    }
    Ok(found)
}
