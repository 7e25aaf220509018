//! `[congestion]`: which congestion management mechanism runs, and its settings. Each
//! mechanism's settings, keys and checks live with the mechanism (`crate::congestion`); this
//! module chooses among them.

use serde::Serialize;

use super::Choice;
use super::reader::{Issues, Section, choice_enum};
use crate::congestion::{entropy_settings, nifdy_settings, self_tuned_settings};

pub use crate::congestion::entropy_settings::{EntropyCircuit, EntropyConfig, EntropyModel};
pub use crate::congestion::nifdy_settings::NifdyConfig;
pub use crate::congestion::self_tuned_settings::{
    Estimate, FullBuffer, SelfTunedConfig, SidebandKind, sideband_hops,
};

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
}

impl CongestionConfig {
    /// Reads `[congestion]`: the mechanism and its settings. Keys of another mechanism are
    /// problems; every mechanism's keys are read, so none of them is also "unknown".
    pub(crate) fn read(s: Section<'_>) -> Self {
        let mechanism = s.choice("mechanism", Mechanism::None);
        let nifdy = matches!(mechanism, Mechanism::Nifdy | Mechanism::NifdyBuffersOnly);
        for (keys, applies, name) in [
            (
                &self_tuned_settings::KEYS[..],
                mechanism == Mechanism::SelfTuned,
                "\"self_tuned\"",
            ),
            (
                &entropy_settings::KEYS[..],
                mechanism == Mechanism::Entropy,
                "\"entropy\"",
            ),
            (
                &nifdy_settings::KEYS[..],
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
        let self_tuned = self_tuned_settings::read(&s);
        let entropy = entropy_settings::read(&s, mechanism == Mechanism::Entropy);
        let nifdy = nifdy_settings::read(&s, mechanism == Mechanism::NifdyBuffersOnly);
        let congestion = match mechanism {
            Mechanism::None => CongestionConfig::None,
            Mechanism::Alo => CongestionConfig::Alo,
            Mechanism::SelfTuned => CongestionConfig::SelfTuned(self_tuned),
            Mechanism::Entropy => CongestionConfig::Entropy(entropy),
            Mechanism::Nifdy => CongestionConfig::Nifdy(nifdy),
            Mechanism::NifdyBuffersOnly => CongestionConfig::NifdyBuffersOnly(nifdy),
        };
        s.finish();
        congestion
    }

    /// Checks the mechanism's settings against the rest of the configuration.
    pub(crate) fn check(&self, cfg: &super::Config, issues: &Issues) {
        let mechanism = self.mechanism();
        let topology = &cfg.topology;
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
        match self {
            CongestionConfig::SelfTuned(tuned) => {
                self_tuned_settings::check(tuned, topology, issues)
            }
            CongestionConfig::Nifdy(n) | CongestionConfig::NifdyBuffersOnly(n) => {
                nifdy_settings::check(n, mechanism.name(), cfg, issues)
            }
            _ => {}
        }
    }
}
