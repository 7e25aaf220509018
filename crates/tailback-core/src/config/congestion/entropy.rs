//! Entropy throttling's settings: the keys under `[congestion]` with `mechanism = "entropy"`.

use serde::Serialize;

use super::{Mechanism, Settings, require_cube};
use crate::config::Config;
use crate::config::reader::{Issues, Section, choice_enum};

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

/// The keys that belong to entropy throttling.
const KEYS: [&str; 7] = [
    "model",
    "r_th",
    "r_on",
    "r_off",
    "r_n",
    "guard_time",
    "circuit",
];

/// Reads the entropy throttling keys; a key that does not belong to the chosen model is a
/// problem.
fn read(s: &Section<'_>) -> EntropyConfig {
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
        if s.has(key) && !applies {
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

impl Settings for EntropyConfig {
    const KEYS: &'static [&'static str] = &KEYS;

    fn read(s: &Section<'_>, _: Mechanism) -> EntropyConfig {
        read(s)
    }

    fn check(&self, mechanism: Mechanism, cfg: &Config, issues: &Issues) {
        require_cube(mechanism, cfg, issues);
    }
}
