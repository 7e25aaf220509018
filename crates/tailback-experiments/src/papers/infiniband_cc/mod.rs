//! Gran's InfiniBand studies with congestion control on (E. G. Gran, "Congestion Management in
//! Lossless Interconnection Networks", PhD thesis, University of Oslo, 2013), beside the same
//! runs with it off: the testbed scenarios of Paper III (Gran et al., IPDPS 2010; simulated as
//! in Paper I) and its timer sweep, and the fairness studies of Paper II, with IB CC at Paper
//! III's Table I parameters unless a study varies them.
//!
//! - `testbed.rs`: scenarios 1 and 2 (R1, R2) and the message-size sweep;
//! - `sweep.rs`: the CCTI_Timer x Marking_Rate sweep under each reading (R3);
//! - `fairness.rs`: one threshold against hysteresis, and the parking lot with Marking_Rate 1
//!   and 10 (R4, R5).

mod fairness;
mod sweep;
mod testbed;

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::infiniband::{FOLDER, SCENARIO_2, Scenario, scenario_job};
use crate::grid::Grid;
use crate::{Error, Experiment, Job, Result};

/// The setting that turns InfiniBand congestion control on (Table I's parameters are its
/// defaults).
pub(super) const CC_ON: &str = "congestion.mechanism=\"ib_cc\"";

/// Seeds of the runs with random marking (R3-R5: three, their means printed with a 95 %
/// confidence interval).
pub(super) const SEEDS: [u64; 3] = [1, 2, 3];

/// The contributors to H5 in the Type I and Type II scenarios, in the order they start
/// (phases 1 to 4).
pub(super) const CONTRIBUTORS: [(u32, u32); 4] = [(1, 4), (2, 4), (5, 4), (6, 4)];

/// The readings of the timer and of the injection rate delay the thesis leaves open (name,
/// settings): free-running or restarted by each BECN; a gap after the packet or start to start.
/// The default comes first: the timer Paper III describes ("maintained separately for each SL of
/// a port", decrementing every associated flow), which no flow's BECN restarts; the text does not
/// decide the delay, so the gap after the packet is kept and start to start shown beside it.
pub(super) const READINGS: [(&str, &[&str]); 4] = [
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

/// The experiments with congestion control on.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ib-testbed-s1",
            title: "InfiniBand testbed, scenario 1, CC off and on: the victim freed, the parking lot gone, and the victim's gain at several message sizes",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 1, Figs. 7-9; Gran's thesis Paper I, Fig. 7",
            folder: &FOLDER,
            jobs: testbed::s1_jobs,
            claims: testbed::s1_claims,
            run: testbed::s1,
        },
        Experiment {
            name: "ib-timer-sweep",
            title: "InfiniBand testbed, scenario 1 with all five flows (the last added after one phase), CC on: the victim, the contributors and their fairness against CCTI_Timer and Marking_Rate",
            source: "Gran et al., IPDPS 2010 (Paper III), section VII, Figs. 11-14",
            folder: &FOLDER,
            jobs: sweep::sweep_jobs,
            claims: sweep::sweep_claims,
            run: sweep::sweep,
        },
        Experiment {
            name: "ib-type1",
            title: "Type I network (one switch), CC off, with one threshold and with two thresholds several gaps apart: the newest flow ahead, and hysteresis restoring fairness",
            source: "Gran et al., Paper II of Gran's thesis, Figs. 3, 4 and 7",
            folder: &FOLDER,
            jobs: fairness::type1_jobs,
            claims: fairness::type1_claims,
            run: fairness::type1,
        },
        Experiment {
            name: "ib-type2",
            title: "Type II network (two switches, double-rate link), CC off and on with Marking_Rate 1 and 10: the parking lot solved, and long unfair spells with rare marks",
            source: "Gran et al., Paper II of Gran's thesis, Figs. 9, 11 and 12",
            folder: &FOLDER,
            jobs: fairness::type2_jobs,
            claims: fairness::type2_claims,
            run: fairness::type2,
        },
        Experiment {
            name: "ib-testbed-s2",
            title: "InfiniBand testbed, scenario 2, CC off and on: the cost of congestion control with no victim to save",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 2, Table II",
            folder: &FOLDER,
            jobs: |grid| off_and_on(grid, &SCENARIO_2),
            claims: testbed::s2_claims,
            run: testbed::s2,
        },
    ]
}

/// A scenario with congestion control off and on.
pub(super) fn off_and_on(grid: &Grid, scenario: &Scenario) -> Result<Vec<Job>> {
    Ok(vec![
        scenario_job(grid, scenario, "cc-off", &[])?,
        scenario_job(grid, scenario, "cc-on", &[CC_ON.into()])?,
    ])
}

/// The report of job `id`.
pub(super) fn report<'a>(
    reports: &'a BTreeMap<String, RunReport>,
    id: &str,
) -> Result<&'a RunReport> {
    reports
        .get(id)
        .ok_or_else(|| Error::Input(format!("the run `{id}` is missing")))
}

/// The standard deviation of `samples`.
pub(super) fn sd(samples: &[f64]) -> f64 {
    let n = samples.len().max(1) as f64;
    let mean = samples.iter().sum::<f64>() / n;
    (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// The mean, least and greatest of `values`.
pub(super) fn spread(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len().max(1) as f64;
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    (values.iter().sum::<f64>() / n, lo, hi)
}
