//! `[congestion]`: which congestion management mechanism runs, and its settings.

use serde::Serialize;

use super::Choice;
use super::reader::{Section, choice_enum};

choice_enum! {
    /// Congestion management mechanism.
    pub enum Mechanism {
        /// No congestion management.
        None = "none",
        /// At-Least-One (Baydal et al.): local injection limitation at the source router.
        Alo = "alo",
        /// Self-tuned global source throttling (Thottethodi et al.).
        SelfTuned = "self_tuned",
        /// Entropy throttling on the global packet mobility ratio (Yokota et al.).
        Entropy = "entropy",
        /// NIFDY (Callahan and Goldstein): admission control and in-order delivery at the
        /// network interface (needs `[processor]` and two logical networks).
        Nifdy = "nifdy",
        /// NIFDY's buffering with its protocol off: the same total packet buffers, no acks.
        NifdyBuffersOnly = "nifdy_buffers_only",
    }
}

choice_enum! {
    /// Entropy throttling's decision rule.
    pub enum EntropyModel {
        /// One threshold `r_th`: throttle while the mobility ratio is below it.
        Base = "base",
        /// Hysteresis: start below `r_on`, stop at or above `r_off`.
        Hyst = "hyst",
        /// Hysteresis plus a guard time after each injection, uniform in [0, 2 `guard_time`].
        GtA = "gt_a",
        /// Hysteresis plus a fixed guard time after each injection.
        GtX = "gt_x",
    }
}

choice_enum! {
    /// How the entropy circuit delivers the global valid/active buffer counts to the routers.
    pub enum EntropyCircuit {
        /// Exact totals of the current cycle at every router.
        Ideal = "ideal",
        /// Reduction and broadcast registers, one hop per cycle on dedicated wires.
        Registers = "registers",
        /// The same registers on the data links, only in cycles no data flit uses the link.
        Vcc = "vcc",
    }
}

/// Settings of entropy throttling (keys directly under `[congestion]`). Thresholds are percent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntropyConfig {
    /// Decision rule.
    pub model: EntropyModel,
    /// `base`: throttle while the mobility ratio is below this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r_th: Option<u32>,
    /// Hysteresis models: an unthrottled node starts throttling when the ratio is below this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r_on: Option<u32>,
    /// Hysteresis models: a throttled node stops when the ratio is at or above this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r_off: Option<u32>,
    /// Forced release: no throttling while valid buffers are fewer than `r_n` percent of the
    /// routers.
    pub r_n: u32,
    /// Guard-time models: the (mean) guard time in cycles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard_time: Option<u32>,
    /// How the global counts reach the routers.
    pub circuit: EntropyCircuit,
}

impl EntropyConfig {
    /// The (start, stop) thresholds in percent: `base` uses `r_th` for both.
    pub fn thresholds(&self) -> (u32, u32) {
        match self.model {
            EntropyModel::Base => {
                let th = self.r_th.unwrap_or(90);
                (th, th)
            }
            _ => (self.r_on.unwrap_or(70), self.r_off.unwrap_or(90)),
        }
    }
}

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

/// `[congestion]`: the congestion management mechanism, with its settings (keys directly under
/// `[congestion]`, next to `mechanism`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "mechanism", rename_all = "snake_case")]
pub enum CongestionConfig {
    /// No congestion management.
    None,
    /// At-Least-One local injection limitation.
    Alo,
    /// Self-tuned (or static-threshold) global throttling.
    SelfTuned(SelfTunedConfig),
    /// Entropy throttling.
    Entropy(EntropyConfig),
    /// NIFDY.
    Nifdy(NifdyConfig),
    /// NIFDY's buffers with its protocol off.
    NifdyBuffersOnly(NifdyConfig),
}

impl CongestionConfig {
    /// Which mechanism runs.
    pub fn mechanism(&self) -> Mechanism {
        match self {
            CongestionConfig::None => Mechanism::None,
            CongestionConfig::Alo => Mechanism::Alo,
            CongestionConfig::SelfTuned(_) => Mechanism::SelfTuned,
            CongestionConfig::Entropy(_) => Mechanism::Entropy,
            CongestionConfig::Nifdy(_) => Mechanism::Nifdy,
            CongestionConfig::NifdyBuffersOnly(_) => Mechanism::NifdyBuffersOnly,
        }
    }

    /// NIFDY's settings, with or without its protocol.
    pub fn nifdy(&self) -> Option<&NifdyConfig> {
        match self {
            CongestionConfig::Nifdy(n) | CongestionConfig::NifdyBuffersOnly(n) => Some(n),
            _ => None,
        }
    }
}

/// Settings of NIFDY (keys directly under `[congestion]`), named as in the paper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NifdyConfig {
    /// Entries of the outstanding packet table: scalar packets in flight per node (`nifdy`
    /// only; absent in buffers-only mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub o: Option<u32>,
    /// Packets the outgoing pool holds.
    pub b: u32,
    /// Bulk dialogs a receiver grants at once.
    pub d: u32,
    /// Window of a bulk dialog: unacknowledged packets, and reorder buffers at the receiver.
    pub w: u32,
    /// Length of an ack packet, flits.
    pub ack_flits: u32,
    /// A packet asks for a bulk dialog when at least this many packets of its message follow.
    pub bulk_request_packets: u32,
}

impl NifdyConfig {
    /// Buffers-only mode's packet buffers, (pool, arrivals queue): the unit's buffers (the pool
    /// and `d` reorder windows of `w` packets) and an `arrivals`-packet arrivals queue together,
    /// split evenly with the odd one to the arrivals queue.
    pub fn buffers_only_split(&self, arrivals: u32) -> (u32, u32) {
        let total = self.b + self.d * self.w + arrivals;
        (total / 2, total.div_ceil(2))
    }
}

/// The keys that belong to entropy throttling.
const ENTROPY_KEYS: [&str; 7] = [
    "model",
    "r_th",
    "r_on",
    "r_off",
    "r_n",
    "guard_time",
    "circuit",
];

/// The keys that belong to NIFDY.
const NIFDY_KEYS: [&str; 6] = ["o", "b", "d", "w", "ack_flits", "bulk_request_packets"];

/// The keys that belong to self-tuned throttling.
const SELF_TUNED_KEYS: [&str; 12] = [
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

impl CongestionConfig {
    pub(crate) fn read(s: Section<'_>) -> Self {
        let mechanism = s.choice("mechanism", Mechanism::None);
        let self_tuned = mechanism == Mechanism::SelfTuned;
        let entropy = mechanism == Mechanism::Entropy;
        let nifdy = matches!(mechanism, Mechanism::Nifdy | Mechanism::NifdyBuffersOnly);
        for (keys, applies, name) in [
            (&SELF_TUNED_KEYS[..], self_tuned, "\"self_tuned\""),
            (&ENTROPY_KEYS[..], entropy, "\"entropy\""),
            (
                &NIFDY_KEYS[..],
                nifdy,
                "\"nifdy\" or \"nifdy_buffers_only\"",
            ),
        ] {
            for &key in keys {
                if s.has(key) && !applies {
                    s.problem(
                        key,
                        format!("only applies when congestion.mechanism = {name}"),
                    );
                }
            }
        }
        // Every mechanism's keys are read (a key of another mechanism was reported above, and
        // is not unknown), and the chosen mechanism keeps its settings.
        let self_tuned_settings = read_self_tuned(&s);
        let entropy_settings = read_entropy(&s, entropy);
        let nifdy_settings = read_nifdy(&s, mechanism == Mechanism::NifdyBuffersOnly);
        let congestion = match mechanism {
            Mechanism::None => CongestionConfig::None,
            Mechanism::Alo => CongestionConfig::Alo,
            Mechanism::SelfTuned => CongestionConfig::SelfTuned(self_tuned_settings),
            Mechanism::Entropy => CongestionConfig::Entropy(entropy_settings),
            Mechanism::Nifdy => CongestionConfig::Nifdy(nifdy_settings),
            Mechanism::NifdyBuffersOnly => CongestionConfig::NifdyBuffersOnly(nifdy_settings),
        };
        s.finish();
        congestion
    }
}

/// Reads the self-tuned throttling keys.
fn read_self_tuned(s: &Section<'_>) -> SelfTunedConfig {
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

/// Reads the NIFDY keys (defaults: the paper's conclusion, O = 8, B = 16, D = 1, W = 8).
fn read_nifdy(s: &Section<'_>, buffers_only: bool) -> NifdyConfig {
    if buffers_only && s.has("o") {
        s.problem(
            "o",
            "only applies when congestion.mechanism = \"nifdy\" (buffers-only mode has no \
             outstanding packet table)",
        );
    }
    let cfg = NifdyConfig {
        o: Some(s.int("o", 8, 1, 1024)).filter(|_| !buffers_only),
        b: s.int("b", 16, 1, 1 << 16),
        d: s.int("d", 1, 0, 255),
        w: s.int("w", 8, 0, 255),
        ack_flits: s.int("ack_flits", 4, 1, 4096),
        bulk_request_packets: s.int("bulk_request_packets", 2, 1, 1 << 20),
    };
    if cfg.d > 0 && cfg.w == 0 {
        s.problem(
            "w",
            format!(
                "must be at least 1 when receivers grant bulk dialogs (d = {})",
                cfg.d
            ),
        );
    }
    cfg
}

/// Reads the entropy throttling keys; with `chosen` (the mechanism is entropy throttling), a key
/// that does not belong to the chosen model is a problem.
fn read_entropy(s: &Section<'_>, chosen: bool) -> EntropyConfig {
    let model = s.choice("model", EntropyModel::Base);
    let hysteresis = model != EntropyModel::Base;
    let guarded = matches!(model, EntropyModel::GtA | EntropyModel::GtX);
    for (key, applies, models) in [
        ("r_th", !hysteresis, "model = \"base\""),
        (
            "r_on",
            hysteresis,
            "the hysteresis models (hyst, gt_a, gt_x)",
        ),
        (
            "r_off",
            hysteresis,
            "the hysteresis models (hyst, gt_a, gt_x)",
        ),
        ("guard_time", guarded, "the guard-time models (gt_a, gt_x)"),
    ] {
        if chosen && s.has(key) && !applies {
            s.problem(
                key,
                format!("only applies to {models}; model = \"{model}\""),
            );
        }
    }
    let percent = |key: &'static str, default: u32| s.int(key, default, 0, 100);
    EntropyConfig {
        model,
        r_th: Some(percent("r_th", 90)).filter(|_| !hysteresis),
        r_on: Some(percent("r_on", 70)).filter(|_| hysteresis),
        r_off: Some(percent("r_off", 90)).filter(|_| hysteresis),
        r_n: percent("r_n", 30),
        guard_time: Some(s.int("guard_time", 8, 0, 1_000_000)).filter(|_| guarded),
        circuit: s.choice("circuit", EntropyCircuit::Registers),
    }
}

/// Side-band hops to aggregate along each dimension: half the ring on a torus, the whole line on
/// a mesh.
pub fn sideband_hops(dims: &[u32], wrap: bool) -> u32 {
    dims.iter().map(|&k| if wrap { k / 2 } else { k - 1 }).sum()
}

impl CongestionConfig {
    /// Checks the settings against the topology: the tuning period must be a whole number of
    /// side-band gathers.
    pub(crate) fn check(&self, topology: &super::TopologyConfig, issues: &super::reader::Issues) {
        let mechanism = self.mechanism();
        if !topology.kind.is_cube()
            && matches!(mechanism, Mechanism::SelfTuned | Mechanism::Entropy)
        {
            issues.push(
                "congestion.mechanism".into(),
                Some(&toml::Value::String(mechanism.name().into())),
                format!(
                    "needs topology.kind = \"torus\" or \"mesh\" (its side-band network is laid \
                     out along the dimensions); kind = \"{}\"",
                    topology.kind.name()
                ),
            );
            return;
        }
        let CongestionConfig::SelfTuned(tuned) = self else {
            return;
        };
        let wrap = topology.kind == super::TopologyKind::Torus;
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
}
