//! Congested-flow isolation against injection throttling: Paper V of Gran's thesis (J.
//! Escudero-Sahuquillo, E. G. Gran et al., "Combining congested-flow isolation and injection
//! throttling in HPC interconnection networks" (CCFIT), ICPP 2011; in E. G. Gran, PhD thesis,
//! University of Oslo, 2013). Five schemes on input-queued switches with 64 KB per input:
//! one queue per input (1Q), virtual output queues with InfiniBand congestion control (ITh),
//! a normal queue and two congested-flow queues (FBICM), the same with InfiniBand congestion
//! control marking from the root queues (CCFIT), and a queue per destination (VOQnet).
//!
//! Jobs: built from `experiments/isolation/` (`base.toml` with `config1.toml` or `tree.toml`)
//! with each scheme's settings and the flows of each case.
//!
//! - `phased.rs`: flows joining one per phase (Cases #1-#3), their rates and plots;
//! - `fairness.rs`: Config #1, Case #1: the victim and the parking lot (Figs. 7a and 9);
//! - `config2.rs`: Config #2, Cases #2 and #3 with stand-in flows (Figs. 7b, 7c and 10);
//! - `trees.rs`: Config #3, Case #4: uniform traffic with 1, 4 or 6 congestion trees (Fig. 8).

mod config2;
mod fairness;
mod phased;
mod trees;

use std::path::PathBuf;

use tailback_plot::{Point, Series, YScale};

use crate::claim::{Claim, Ours, Rule};
use crate::grid::Folder;
use crate::{Context, Experiment, Result, Source};

pub(super) static FOLDER: Folder = Folder {
    path: "experiments/isolation",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../../experiments/isolation/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../../experiments/isolation/base.toml"),
        ),
        (
            "config1.toml",
            include_str!("../../../../../experiments/isolation/config1.toml"),
        ),
        (
            "tree.toml",
            include_str!("../../../../../experiments/isolation/tree.toml"),
        ),
        (
            "config2.toml",
            include_str!("../../../../../experiments/isolation/config2.toml"),
        ),
    ],
};

/// InfiniBand congestion control as Paper V runs it for ITh and CCFIT: High/Low 4/2 packets
/// (each input's queue for an output, or root CFQ, compared on its own), CCTI_Timer 8 µs
/// restarted by each BECN, per-destination (queue-pair) state, Marking_Rate "85 %" read as a
/// marking probability of 0.85 [A], BECNs on a priority lane.
const THROTTLING: [&str; 10] = [
    "congestion.mechanism=\"ib_cc\"",
    "congestion.detect=\"per_voq\"",
    "congestion.threshold_blocks=128",
    "congestion.hysteresis_blocks=64",
    "congestion.marking_probability=0.85",
    "congestion.ccti_timer=8",
    "congestion.timer=\"per_flow_restart\"",
    "congestion.level=\"qp\"",
    "congestion.cnp_vl=\"priority\"",
    "router.vcs=2",
];

/// A technique Paper V (or Paper VI) compares.
pub(super) struct Scheme {
    /// Its id in run names and files.
    pub(super) id: &'static str,
    /// Its name in the paper.
    pub(super) name: &'static str,
    /// Its fabric settings.
    fabric: &'static [&'static str],
    /// Its InfiniBand congestion control settings (none: it does not throttle).
    throttling: &'static [&'static str],
}

impl Scheme {
    /// The technique `id` (`name` in the paper) with these fabric and throttling settings.
    pub(super) const fn new(
        id: &'static str,
        name: &'static str,
        fabric: &'static [&'static str],
        throttling: &'static [&'static str],
    ) -> Scheme {
        Scheme {
            id,
            name,
            fabric,
            throttling,
        }
    }

    /// Its settings.
    pub(super) fn settings(&self) -> Vec<String> {
        self.fabric
            .iter()
            .chain(self.throttling)
            .map(|s| s.to_string())
            .collect()
    }
}

/// The five techniques, weakest expected first.
pub(super) const SCHEMES: [Scheme; 5] = [
    Scheme::new("1q", "1Q", &["fabric.queues=\"fifo\""], &[]),
    Scheme::new("ith", "ITh", &["fabric.queues=\"voq\""], &THROTTLING),
    Scheme::new("fbicm", "FBICM", &["fabric.queues=\"nfq_cfq\""], &[]),
    Scheme::new(
        "ccfit",
        "CCFIT",
        &["fabric.queues=\"nfq_cfq\""],
        &THROTTLING,
    ),
    // 64 queues of 4 KB (64 blocks) each: 256 KB per input.
    Scheme::new("voqnet", "VOQnet", &VOQNET, &[]),
];

/// VOQnet as Paper V sizes it: a queue of 64 blocks (4 KB) per destination.
pub(super) const VOQNET: [&str; 3] = [
    "fabric.queues=\"voqnet\"",
    "fabric.voqnet_queue_blocks=64",
    "router.vc_buffer_flits=4096",
];

/// The experiments of Paper V.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ccfit-fairness",
            title: "Two switches (Config #1, Case #1): a victim flow and four contributors joining one by one towards a hot host, under 1Q, ITh, FBICM, CCFIT and VOQnet",
            source: "Escudero-Sahuquillo, Gran et al., ICPP 2011 (Paper V of Gran's thesis), Figs. 7a and 9",
            folder: &FOLDER,
            jobs: fairness::jobs,
            claims: fairness::claims,
            run: fairness::run,
        },
        Experiment {
            name: "ccfit-fig7",
            title: "2-ary 3-tree (Config #2, Cases #2 and #3): five flows joining one by one into four congestion points (stand-in flows), alone and beside uniform traffic, under 1Q, ITh, FBICM, CCFIT and VOQnet",
            source: "Escudero-Sahuquillo, Gran et al., ICPP 2011 (Paper V of Gran's thesis), Figs. 7b, 7c and 10",
            folder: &FOLDER,
            jobs: config2::jobs,
            claims: config2::claims,
            run: config2::run,
        },
        Experiment {
            name: "ccfit-fig8",
            title: "4-ary 3-tree (Config #3, Case #4): 75 % uniform traffic with 25 % of the nodes forming 1, 4 or 6 congestion trees for 1 ms, under 1Q, ITh, FBICM, CCFIT and VOQnet",
            source: "Escudero-Sahuquillo, Gran et al., ICPP 2011 (Paper V of Gran's thesis), Fig. 8",
            folder: &FOLDER,
            jobs: trees::jobs,
            claims: trees::claims,
            run: trees::run,
        },
    ]
}

/// The claim `id` that the paper puts `higher` clearly above `lower` (judged on per-seed
/// paired differences), numbers printed with `digits` decimals and `unit`.
pub(super) fn order(
    id: impl Into<String>,
    what: impl Into<String>,
    source: Source,
    (higher, lower): (&'static str, &'static str),
    (digits, unit): (usize, &'static str),
) -> Claim {
    Claim::new(id, what, source, Rule::Order { higher, lower }).shown(digits, unit)
}

/// Per seed, the value of what the paper puts above and of what it puts below.
pub(super) fn paired(higher: &[f64], lower: &[f64]) -> Ours {
    Ours::Paired(higher.iter().copied().zip(lower.iter().copied()).collect())
}

/// The mean of `values` (0 for none).
pub(super) fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Normalised throughput against time, a line per (name, value per window of `window` µs),
/// written to `stem`.
pub(super) fn plot_throughput<'a>(
    ctx: &Context,
    stem: &str,
    title: &str,
    lines: impl Iterator<Item = (&'a str, &'a [f64])>,
    window: f64,
) -> Result<Vec<PathBuf>> {
    let series: Vec<Series> = lines
        .map(|(name, values)| line(name, values, window))
        .collect();
    Ok(tailback_plot::lines(
        &ctx.out().join(stem),
        title,
        "time (ms)",
        "delivered / capacity",
        &series,
        YScale::Linear,
    )?)
}

/// A line through one value per window of `window` µs, against time in ms.
pub(super) fn line(label: &str, values: &[f64], window: f64) -> Series {
    Series {
        label: label.into(),
        points: values
            .iter()
            .enumerate()
            .map(|(i, &y)| Point {
                x: (i as f64 + 1.0) * window / 1000.0,
                y,
                marked: false,
                error: None,
            })
            .collect(),
        saturation: None,
    }
}
