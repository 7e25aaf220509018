//! Paper IV of Gran's thesis (E. G. Gran et al., "The scope of InfiniBand congestion
//! control"; in E. G. Gran, PhD thesis, University of Oslo, 2013): congestion forests on the
//! 648-node fat tree, with IB CC off and on: the silent forest (80 % contributors to 8 hot
//! spots, 20 % victims; Table II) beside its no-hot-spot baseline, the windy forests (a
//! fraction x of B nodes sending a share p to their hot spots; Figs. 5-8) and the moving
//! forests (hot spots that move every few milliseconds; Figs. 9-10).
//!
//! Jobs: built from `experiments/infiniband/forest.toml`, with the warm-up and measurement of
//! the grid (`warmup_us`, `measure_us`).
//!
//! - `silent.rs`: the silent forest and the victims alone (R6);
//! - `windy.rs`: the windy forests against p, and the CCT's top (R7, R8);
//! - `moving.rs`: the moving forests against the hot spots' lifetime (R9).

mod moving;
mod silent;
mod windy;

use std::collections::BTreeMap;

use tailback_core::stats::{ClassRate, RunReport, jain_index};

use super::infiniband::FOLDER;
use crate::claim::{Findings, Rule};
use crate::grid::Grid;
use crate::{Error, Experiment, Job, Result};

/// Paper IV's IB CC: Table I (threshold 15, Marking_Rate 0, Packet_Size 0, CCTI_Increase 1,
/// CCTI_Limit 127, CCTI_Min 0, CCTI_Timer 150 µs), QP level, two thresholds, and a CCT
/// "increased" from Paper III's (values not given): quadratic up to 150 µs at index 127.
const PAPER4_CC: [&str; 4] = [
    "congestion.mechanism=\"ib_cc\"",
    "congestion.marking_rate=0",
    "congestion.packet_size_bytes=0",
    "congestion.cct=\"quadratic\"",
];

/// A class's two halves of the window may differ by this much before a run counts as not
/// settled.
const STATIONARY: f64 = 0.05;

/// The experiments of Paper IV.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ib-silent",
            title: "Silent forest on the 648-node fat tree (80 % contributors to 8 hot spots, 20 % victims), IB CC off and on, beside the victims alone",
            source: "Gran et al., Paper IV of Gran's thesis, Table II",
            folder: &FOLDER,
            jobs: silent::jobs,
            claims: silent::claims,
            run: silent::run,
        },
        Experiment {
            name: "ib-windy",
            title: "Windy forests on the 648-node fat tree: x % B nodes sending p % to their hot spots (the rest 80 % C / 20 % V), IB CC off and on, against p",
            source: "Gran et al., Paper IV of Gran's thesis, Figs. 5-8",
            folder: &FOLDER,
            jobs: windy::jobs,
            claims: windy::claims,
            run: windy::run,
        },
        Experiment {
            name: "ib-moving",
            title: "Moving forests on the 648-node fat tree: 8 hot spots moving every 10 ms down to 1 ms, for three mixes of nodes, IB CC off and on",
            source: "Gran et al., Paper IV of Gran's thesis, Figs. 9 and 10",
            folder: &FOLDER,
            jobs: moving::jobs,
            claims: moving::claims,
            run: moving::run,
        },
    ]
}

/// A job of the forest with `settings`, measured as the grid says.
pub(super) fn forest_job(grid: &Grid, id: &str, settings: &[String]) -> Result<Job> {
    let warmup: f64 = grid.param("warmup_us")?;
    let measure: f64 = grid.param("measure_us")?;
    let mut all = vec![
        format!("sim.warmup_us={warmup}"),
        format!("sim.measure_us={measure}"),
    ];
    all.extend_from_slice(settings);
    grid.job(id.into(), &all)
}

/// A reading of what Paper IV leaves open, run beside the defaults at a few points: the CCT's
/// top (grid `cct_tops_us`) or the Port VL detection mode (grid `detect_modes`).
pub(super) struct Reading {
    /// The suffix of its runs' ids (`top80`, `per-voq`).
    pub(super) id: String,
    /// Its setting.
    pub(super) setting: String,
    /// In words, for the tables.
    pub(super) words: String,
}

/// The grid's readings: the CCT's tops, then the detection modes.
pub(super) fn readings(grid: &Grid) -> Result<Vec<Reading>> {
    let tops: Vec<f64> = grid.param("cct_tops_us")?;
    let modes: Vec<String> = grid.param("detect_modes")?;
    let tops = tops.into_iter().map(|top| Reading {
        id: format!("top{top}"),
        setting: format!("congestion.cct_top_us={top}"),
        words: format!("the CCT topping at {top} µs"),
    });
    let modes = modes.into_iter().map(|mode| Reading {
        id: mode.replace('_', "-"),
        setting: format!("congestion.detect=\"{mode}\""),
        words: format!("detection `{mode}`"),
    });
    Ok(tops.chain(modes).collect())
}

/// `settings` with Paper IV's IB CC.
pub(super) fn with_cc(settings: &[&str]) -> Vec<String> {
    PAPER4_CC
        .iter()
        .chain(settings)
        .map(|s| s.to_string())
        .collect()
}

/// What Table II reports of one run, Gbit/s per node: hot spots, the other nodes, all nodes,
/// and the network's total.
pub(super) struct Classes {
    pub(super) hot: f64,
    pub(super) others: f64,
    pub(super) all: f64,
    /// The lowest rate of a node that is not a hot spot.
    pub(super) lowest: f64,
    pub(super) total: f64,
    /// Whether each class kept its rate over the window.
    pub(super) stationary: bool,
}

impl Classes {
    pub(super) fn of(report: &RunReport) -> Result<Classes> {
        let missing = || Error::Input("a forest run without receive rates by class".into());
        let summary = &report.summary;
        let units = summary.units.ok_or_else(missing)?;
        let classes = summary.receive_by_class.ok_or_else(missing)?;
        let others = classes.others.ok_or_else(missing)?;
        let gbps = |c: &ClassRate| c.mean * units.link_gbps;
        Ok(Classes {
            hot: gbps(&classes.hot),
            others: gbps(&others),
            all: gbps(&classes.all),
            lowest: others.min * units.link_gbps,
            total: gbps(&classes.all) * classes.all.nodes as f64,
            stationary: [classes.hot, others]
                .iter()
                .all(|c| c.stationary(STATIONARY)),
        })
    }
}

/// Jain's index over what each contributor (a node sending to a hot spot) got through to the
/// hot spots over the measurement window, from the run's flows (NaN without any).
pub(super) fn contributors_jain(report: &RunReport) -> f64 {
    let mut sent: BTreeMap<u32, f64> = BTreeMap::new();
    for f in &report.flows {
        if report.hot_nodes.binary_search(&f.dst).is_ok() {
            *sent.entry(f.src).or_default() += f.accepted;
        }
    }
    jain_index(&sent.into_values().collect::<Vec<_>>()).unwrap_or(f64::NAN)
}

/// Whether every run settled, shown for information (ours against ours): `unsettled` are the
/// runs with a class whose two halves of the window differ by more than [`STATIONARY`].
pub(super) fn settled(found: &mut Findings, unsettled: &[String]) {
    found.info(
        format!(
            "every run settled (hot spots' and others' rates in the two halves of the window \
             within {:.0} %)",
            100.0 * STATIONARY
        ),
        "-",
        if unsettled.is_empty() {
            "yes".to_string()
        } else {
            format!("no: {}", unsettled.join(", "))
        },
    );
}

/// Tolerance of a per-node rate or a total that the congestion sets (not the offered load or a
/// link's capacity): ±15 %, the project's "≈", as the paper's switch internals, routing and
/// CCT are readings of what it does not publish.
pub(super) const RATE: f64 = 0.15;

/// Tolerance of a stated improvement factor of CC: ±25 %, as its denominator is a collapsed
/// rate (0.1 to 0.6 Gbit/s) that the unpublished switch arbitration sets.
pub(super) const FACTOR: f64 = 0.25;

/// A small signed change the paper states to one or two digits (+10 %, a 2.5 % loss): the
/// same sign, within half of it, so that no change fails.
pub(super) fn change(value: f64) -> Rule {
    Rule::Signed {
        value,
        tolerance: value.abs() / 2.0,
    }
}

/// A stated improvement factor of CC, judged when the rate without CC exceeds `floor`.
pub(super) fn factor(value: f64, floor: f64) -> Rule {
    Rule::Ratio {
        value,
        tolerance: FACTOR,
        floor,
    }
}

/// The smallest non-zero per-node rate a run can measure, Gbit/s: one 2048-byte packet per
/// node over the measured window.
pub(super) fn rate_floor(grid: &Grid) -> Result<f64> {
    let measure: f64 = grid.param("measure_us")?;
    Ok(2048.0 * 8.0 / (measure * 1e3))
}
