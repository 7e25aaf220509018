//! The open questions of Gran's thesis (E. G. Gran, PhD thesis, University of Oslo, 2013, Sec.
//! 3.7 "Future Work"), answered with experiments on the buffered (InfiniBand-style) fabric:
//! whether QCN's shorter loop and quantized feedback improve on IB CC (the first question),
//! what adaptive routing does to a congestion tree (chapter 2.3's argument, the ground the
//! second question stands on), and how to arbitrate between normal and congested-flow queues.
//!
//! - `tree.rs`: `ar-congestion-tree`, where the tree's root is and how wide the tree grows
//!   under deterministic and adaptive up-routing (Figs. 2.7 and 2.8);
//! - `arbitration.rs`: `cfq-arbitration`, the third question: how an isolating switch's
//!   output chooses between an input's normal and isolating queues, on Papers V's and VI's
//!   runs;
//! - `throttling.rs`: `ar-ibcc`, the second question for injection throttling: InfiniBand
//!   congestion control under deterministic and adaptive routing on Paper IV's forests and on
//!   a dragonfly;
//! - `isolation.rs`: `ar-isolation`, the second question for congested-flow isolation: FBICM
//!   and CCFIT under deterministic routing, naive adaptive routing and our congestion-aware
//!   adaptive routing on Paper V's Case #4, Paper IV's forests and the dragonfly, and HFDI and
//!   EcoCC on Paper VI's pattern #2;
//! - `dcb.rs`: `dcb-question`, the first question: QCN's two differences from IB CC
//!   (notifications from the switch, quantized feedback), one at a time, on the testbed, the
//!   parking lot and the silent forest;
//! - `dragonfly.rs`: the dragonfly workload (ours) of `ar-ibcc` and `ar-isolation`.

mod arbitration;
mod dcb;
mod dragonfly;
mod isolation;
mod throttling;
mod tree;

use crate::grid::{Folder, Grid};
use crate::{Error, Experiment, Job, Result};

static FOLDER: Folder = Folder {
    path: "experiments/open-questions",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../../experiments/open-questions/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../../experiments/open-questions/base.toml"),
        ),
        (
            "dragonfly.toml",
            include_str!("../../../../../experiments/open-questions/dragonfly.toml"),
        ),
    ],
};

/// The experiments on the thesis's open questions.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "dcb-question",
            title: "QCN (IEEE 802.1Qau) against IB CC one difference at a time: notifications sent back by the switch or forward via the destination, quantized or binary feedback, on the testbed's scenario 1, the parking lot and the silent forest on the 648-node tree",
            source: "Gran's thesis (University of Oslo, 2013), Sec. 3.7, question 1",
            folder: &FOLDER,
            jobs: dcb::jobs,
            claims: dcb::claims,
            run: dcb::run,
        },
        Experiment {
            name: "ar-congestion-tree",
            title: "Where the congestion tree's root is and how wide the tree grows when 12 hosts send to one, deterministic against adaptive up-routing, on the 4-ary 3-tree and the 648-node tree (CC off)",
            source: "Gran's thesis (University of Oslo, 2013), Ch. 2.3, Figs. 2.7 and 2.8",
            folder: &FOLDER,
            jobs: tree::jobs,
            claims: tree::claims,
            run: tree::run,
        },
        Experiment {
            name: "cfq-arbitration",
            title: "Normal against congested-flow queues at an isolating switch's inputs: ready order, normal first, round robin and root-weighted turns on Paper V's Cases #1 and #4 (FBICM, CCFIT) and Paper VI's pattern #2 (HFDI, EcoCC)",
            source: "Gran's thesis (University of Oslo, 2013), Sec. 3.7, question 3",
            folder: &FOLDER,
            jobs: arbitration::jobs,
            claims: arbitration::claims,
            run: arbitration::run,
        },
        Experiment {
            name: "ar-ibcc",
            title: "InfiniBand congestion control under deterministic and adaptive routing on Paper IV's silent and windy forests (648-node tree, d_mod_k against adaptive_up) and on a 1,056-node dragonfly under group shift with 4 hot spots (min against ugal_l), and a marking of ours that spares packets routed to a congested port by choice",
            source: "Gran's thesis (University of Oslo, 2013), Sec. 3.7, question 2",
            folder: &FOLDER,
            jobs: throttling::jobs,
            claims: throttling::claims,
            run: throttling::run,
        },
        Experiment {
            name: "ar-isolation",
            title: "Congested-flow isolation under deterministic routing, under adaptive routing as it is, and under adaptive routing that keeps a known tree's packets on it (two designs of ours), beside no isolation: FBICM and CCFIT on Paper V's Case #4 (4 trees), Paper IV's silent and windy forests and a 1,056-node dragonfly (min against ugal_l); HFDI and EcoCC on Paper VI's pattern #2",
            source: "Gran's thesis (University of Oslo, 2013), Sec. 3.7, question 2",
            folder: &FOLDER,
            jobs: isolation::jobs,
            claims: isolation::claims,
            run: isolation::run,
        },
    ]
}

/// Another experiment's runs, which an open-question experiment varies.
struct SourceRuns {
    experiment: String,
    jobs: Vec<Job>,
}

impl SourceRuns {
    /// The runs of `experiment` (its quick ones with the grid's `quick_sources`), with its
    /// grid's parameters `params` replaced.
    fn of(experiment: &str, grid: &Grid, params: &[(&str, toml::Value)]) -> Result<SourceRuns> {
        let quick: bool = grid.param("quick_sources")?;
        let found = crate::named(experiment)
            .ok_or_else(|| Error::Input(format!("no experiment `{experiment}`")))?;
        let mut source = found.grid(quick)?;
        for (name, value) in params {
            source = source.with_param(name, value.clone());
        }
        Ok(SourceRuns {
            experiment: experiment.to_string(),
            jobs: (found.jobs)(&source)?,
        })
    }

    /// Run `id`.
    fn get(&self, id: &str) -> Result<&Job> {
        self.jobs
            .iter()
            .find(|j| j.id == id)
            .ok_or_else(|| Error::Input(format!("{} has no run `{id}`", self.experiment)))
    }
}

/// `seeds` as a grid parameter.
fn seeds_param(seeds: &[u64]) -> toml::Value {
    toml::Value::Array(
        seeds
            .iter()
            .map(|&s| toml::Value::Integer(s as i64))
            .collect(),
    )
}
