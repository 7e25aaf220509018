//! Self-tuned throttling's settings: the keys under `[congestion]` with
//! `mechanism = "self_tuned"`, read and checked against the network.

use serde::Serialize;

use super::{Mechanism, Settings, require_cube};
use crate::config::reader::{Issues, Section, choice_enum};
use crate::config::{Config, TopologyConfig, TopologyKind};

choice_enum! {
    /// How self-tuned throttling learns the global state.
    pub enum SidebandKind {
        /// A side-band network aggregating dimension by dimension: every `g` cycles each node
        /// learns the `g`-cycle-old totals.
        Dimensionwise = "dimensionwise",
        /// An instant, exact global view every cycle (for comparison).
        Ideal = "ideal",
    }
}

choice_enum! {
    /// How the current congestion is estimated from side-band snapshots.
    pub enum Estimate {
        /// Linear extrapolation from the last two snapshots.
        Extrapolate = "extrapolate",
        /// The last snapshot as is.
        Last = "last",
    }
}

choice_enum! {
    /// Which VC buffers count as full in the congestion estimate.
    pub enum FullBuffer {
        /// No free flit slot.
        Full = "full",
        /// At least one flit.
        Nonempty = "nonempty",
    }
}

/// Settings of self-tuned throttling (keys directly under `[congestion]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelfTunedConfig {
    /// A fixed threshold (full buffers) instead of self-tuning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_threshold: Option<u32>,
    /// Side-band model.
    pub sideband: SidebandKind,
    /// Side-band neighbour-to-neighbour delay `h`, cycles.
    pub hop_delay: u32,
    /// Congestion estimate between snapshots.
    pub estimate: Estimate,
    /// Which buffers count as full.
    pub full_buffer: FullBuffer,
    /// Cycles between tuning decisions; a multiple of the gather duration `g`. Absent: `3 g`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuning_period: Option<u32>,
    /// Threshold increment, as a fraction of all network VC buffers.
    pub increment: f64,
    /// Threshold decrement, as a fraction of all network VC buffers.
    pub decrement: f64,
    /// Initial threshold, as a fraction of all network VC buffers.
    pub initial_threshold: f64,
    /// A period's throughput below this fraction of the previous period's is a drop.
    pub drop_fraction: f64,
    /// Reset the threshold to `min(T_max, N_max)` when throughput falls well below the best.
    pub local_max_avoidance: bool,
    /// Consecutive resets after which the best throughput is forgotten (`r`).
    pub reset_limit: u32,
}

/// The keys that belong to self-tuned throttling.
const KEYS: [&str; 12] = [
    "static_threshold",
    "sideband",
    "hop_delay",
    "estimate",
    "full_buffer",
    "tuning_period",
    "increment",
    "decrement",
    "initial_threshold",
    "drop_fraction",
    "local_max_avoidance",
    "reset_limit",
];

/// Reads the self-tuned throttling keys.
fn read(s: &Section<'_>) -> SelfTunedConfig {
    let fraction = |key: &'static str, default: f64| {
        s.float(
            key,
            default,
            |x| x > 0.0 && x <= 1.0,
            "greater than 0 and at most 1",
        )
    };
    SelfTunedConfig {
        static_threshold: s.opt_int("static_threshold", 0, u32::MAX),
        sideband: s.choice("sideband", SidebandKind::Dimensionwise),
        hop_delay: s.int("hop_delay", 2, 1, 1000),
        estimate: s.choice("estimate", Estimate::Extrapolate),
        full_buffer: s.choice("full_buffer", FullBuffer::Full),
        tuning_period: s.opt_int("tuning_period", 1, 1_000_000),
        increment: fraction("increment", 0.01),
        decrement: fraction("decrement", 0.04),
        initial_threshold: fraction("initial_threshold", 0.01),
        drop_fraction: s.float(
            "drop_fraction",
            0.75,
            |x| x > 0.0 && x < 1.0,
            "between 0 and 1 (exclusive)",
        ),
        local_max_avoidance: s.boolean("local_max_avoidance", true),
        reset_limit: s.int("reset_limit", 5, 1, 1000),
    }
}

/// Side-band hops to aggregate along each dimension: half the ring on a torus, the whole line on
/// a mesh.
pub fn sideband_hops(dims: &[u32], wrap: bool) -> u32 {
    dims.iter().map(|&k| if wrap { k / 2 } else { k - 1 }).sum()
}

/// Checks the settings against the topology: the tuning period must be a whole number of
/// side-band gathers.
fn check(tuned: &SelfTunedConfig, topology: &TopologyConfig, issues: &Issues) {
    let wrap = topology.kind == TopologyKind::Torus;
    let gather = tuned.hop_delay * sideband_hops(&topology.dims, wrap);
    if let Some(period) = tuned.tuning_period
        && tuned.sideband == SidebandKind::Dimensionwise
        && period % gather != 0
    {
        issues.push(
            "congestion.tuning_period".into(),
            Some(&toml::Value::Integer(period.into())),
            format!("must be a multiple of the side-band gather duration g = {gather} cycles"),
        );
    }
}

impl Settings for SelfTunedConfig {
    const KEYS: &'static [&'static str] = &KEYS;

    fn read(s: &Section<'_>, _: Mechanism) -> SelfTunedConfig {
        read(s)
    }

    fn check(&self, mechanism: Mechanism, cfg: &Config, issues: &Issues) {
        if require_cube(mechanism, cfg, issues) {
            check(self, &cfg.topology, issues);
        }
    }
}
