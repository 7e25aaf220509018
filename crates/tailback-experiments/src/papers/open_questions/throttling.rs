//! `ar-ibcc`: the thesis's second open question for injection throttling. "When it comes to
//! injection throttling, it is not clear how the fact that adaptive routing detaches a packet
//! from a given path influences the marking of packets and the injection throttling scheme";
//! "just applying a well known HFDI or injection throttling based congestion management
//! mechanism to a network using adaptive routing will not work".
//!
//! The runs are Paper IV's forests on the 648-node tree as `ib-silent` and `ib-windy` run them
//! (the silent forest; the windy forest with every node a B node sending p = 30, 60 or 90 %
//! to its hot spot), CC off and on (Paper IV's), each under `d_mod_k` and `adaptive_up`, and
//! under adaptive routing also with our marking that spares packets routed to a congested Port
//! VL by choice (`congestion.mark_hops = "unchosen"`). The forests' roles and hot spots come
//! from the seed, so every cell of a seed sees the same offered traffic.

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::super::forests::{Classes, settled};
use super::super::infiniband_cc::report;
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::error::Error;
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 2");

/// The forests a grid may name.
const FORESTS: [Forest; 4] = [
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

/// The cells of a forest: (id, name, from the CC-on run, settings).
const CELLS: [(&str, &str, bool, &[&str]); 5] = [
    ("det-off", "d_mod_k, CC off", false, &[]),
    ("det-cc", "d_mod_k, IB CC", true, &[]),
    (
        "ada-off",
        "adaptive_up, CC off",
        false,
        &["routing.algorithm=\"adaptive_up\""],
    ),
    (
        "ada-cc",
        "adaptive_up, IB CC",
        true,
        &["routing.algorithm=\"adaptive_up\""],
    ),
    (
        "ada-unchosen",
        "adaptive_up, IB CC marking unchosen hops (ours)",
        true,
        &[
            "routing.algorithm=\"adaptive_up\"",
            "congestion.mark_hops=\"unchosen\"",
        ],
    ),
];

/// A forest: (id, name, source experiment, its CC-off and CC-on run ids).
type Forest = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// The forests of the grid.
fn forests(grid: &Grid) -> Result<Vec<&'static Forest>> {
    grid.param::<Vec<String>>("forests")?
        .iter()
        .map(|id| {
            FORESTS.iter().find(|f| f.0 == id).ok_or_else(|| {
                let known: Vec<&str> = FORESTS.iter().map(|f| f.0).collect();
                Error::Input(format!(
                    "forests: unknown forest `{id}` (known: {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// The run of `cell` on `forest` with `seed`.
fn run_id(forest: &str, cell: &str, seed: u64) -> String {
    format!("{forest}|{cell}|s{seed}")
}

/// The runs of the source experiment (its quick ones with the grid's `quick_sources`), by id.
fn sources(experiment: &str, grid: &Grid) -> Result<BTreeMap<String, Job>> {
    let quick: bool = grid.param("quick_sources")?;
    let experiment = crate::named(experiment)
        .ok_or_else(|| Error::Input(format!("no experiment `{experiment}`")))?;
    Ok(experiment
        .plan(quick)?
        .into_iter()
        .map(|job| (job.id.clone(), job))
        .collect())
}

/// Every cell of every forest of the grid, per seed.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut jobs = Vec::new();
    for &(forest, _, experiment, off, on) in forests(grid)? {
        let runs = sources(experiment, grid)?;
        let source = |id: &str| {
            runs.get(id)
                .ok_or_else(|| Error::Input(format!("{experiment} has no run `{id}`")))
        };
        for &seed in &seeds {
            for (cell, _, cc, settings) in CELLS {
                let mut all: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
                all.extend([format!("seed={seed}"), "record.flows=true".to_string()]);
                let base = source(if cc { on } else { off })?;
                jobs.push(base.varied(run_id(forest, cell, seed), &all)?);
            }
        }
    }
    Ok(jobs)
}

/// The thesis's doubt, per forest: with IB CC, the victims (the nodes that are not hot spots)
/// receive less under adaptive routing than under deterministic routing.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for &(forest, name, ..) in forests(grid)? {
        claims.claim(
            Claim::new(
                format!("{forest}-cc-adaptive-victims"),
                format!(
                    "{name}, IB CC on: receive rate per node that is not a hot spot, d_mod_k \
                     against adaptive_up"
                ),
                SEC_3_7,
                Rule::Order {
                    higher: "d_mod_k",
                    lower: "adaptive_up",
                },
            )
            .shown(3, " Gbit/s")
            .stated(
                "just applying ... injection throttling ... to a network using adaptive routing \
                 will not work",
            ),
        );
    }
    Ok(claims)
}

/// What one run shows.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// Gbit/s per node: hot spots, the other nodes; the network's total, Gbit/s.
    hot: f64,
    others: f64,
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
        let mut sent: BTreeMap<u32, f64> = BTreeMap::new();
        for f in &report.flows {
            if report.hot_nodes.binary_search(&f.dst).is_ok() {
                *sent.entry(f.src).or_default() += f.accepted;
            }
        }
        let (sum, squares) = sent
            .values()
            .fold((0.0, 0.0), |(s, q), &x| (s + x, q + x * x));
        let jain = if squares > 0.0 {
            sum * sum / (sent.len() as f64 * squares)
        } else {
            f64::NAN
        };
        Ok(Reading {
            hot: classes.hot,
            others: classes.others,
            total: classes.total,
            jain,
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

/// Runs every cell; tabulates hot spots, the other nodes, the total and the contributors'
/// fairness per forest and cell, and measures the claims on the paired seeds.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    let mut found = Findings::default();
    let mut text = format!(
        "Gbit/s per node (hot spots, the others), total Gbit/s, Jain's index over the \
         contributors' rates to their hot spots; mean of {} seeds\n",
        seeds.len()
    );
    let mut csv =
        String::from("forest,cell,seed,hot_gbps,others_gbps,total_gbps,jain,marks,settled\n");
    let mut unsettled = Vec::new();
    for &(forest, name, ..) in forests(grid)? {
        text.push_str(&format!(
            "\n{name}\n{:<50}{:>10}{:>10}{:>10}{:>8}{:>12}\n",
            "cell", "hot", "others", "total", "Jain", "marks"
        ));
        let mut by_cell: BTreeMap<&str, Vec<Reading>> = BTreeMap::new();
        for (cell, cell_name, _, _) in CELLS {
            let mut readings = Vec::new();
            for &seed in &seeds {
                let id = run_id(forest, cell, seed);
                let r = Reading::of(report(&reports, &id)?)?;
                csv.push_str(&format!(
                    "{forest},{cell},{seed},{:.4},{:.4},{:.2},{:.4},{},{}\n",
                    r.hot, r.others, r.total, r.jain, r.marks, r.settled
                ));
                if !r.settled {
                    unsettled.push(id);
                }
                readings.push(r);
            }
            let mean = |f: fn(&Reading) -> f64| {
                readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64
            };
            text.push_str(&format!(
                "{cell_name:<50}{:>10.3}{:>10.3}{:>10.1}{:>8.3}{:>12.0}\n",
                mean(|r| r.hot),
                mean(|r| r.others),
                mean(|r| r.total),
                mean(|r| r.jain),
                mean(|r| r.marks as f64),
            ));
            by_cell.insert(cell, readings);
        }
        let values = |cell: &str, f: fn(&Reading) -> f64| -> Vec<f64> {
            by_cell[cell].iter().map(f).collect()
        };
        found.set(
            format!("{forest}-cc-adaptive-victims"),
            Ours::Paired(
                values("det-cc", |r| r.others)
                    .into_iter()
                    .zip(values("ada-cc", |r| r.others))
                    .collect(),
            ),
        );
        // Ours against plain IB CC under adaptive routing, per seed: information.
        for (what, f) in [
            (
                "the other nodes (Gbit/s per node)",
                (|r: &Reading| r.others) as fn(&Reading) -> f64,
            ),
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
                    "{name}, adaptive_up: {what}, marking unchosen hops (ours) minus IB CC \
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
