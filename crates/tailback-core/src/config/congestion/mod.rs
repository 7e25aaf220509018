//! `[congestion]`: which congestion management mechanism runs, and its settings. The choice
//! ([`Mechanism`]) and the sum type ([`CongestionConfig`]) are generated from the list below;
//! each mechanism's settings, keys and checks have a module here, and the code that runs a
//! mechanism lives in `crate::congestion`.

mod entropy;
mod ib;
mod nifdy;
mod qcn;
mod self_tuned;

use std::fmt::Debug;

use serde::Serialize;

pub use entropy::{EntropyCircuit, EntropyConfig, EntropyModel};
pub use ib::{
    CctKind, CnpLane, Detect, Feedback, IbCcConfig, Ird, Level, MarkHops, Marking, MarkingRate,
    Notification, QCN_GD, QCN_WEIGHT, RootTest, Threshold, TimerKind, VictimMask,
};
pub use nifdy::NifdyConfig;
pub use qcn::QcnConfig;
pub use self_tuned::{Estimate, FullBuffer, SelfTunedConfig, SidebandKind, sideband_hops};

use super::reader::{Issues, Section, choice_enum};
use super::{Choice, Config};

/// What a mechanism's settings provide to be read from `[congestion]`.
pub(crate) trait Settings: Clone + Debug + PartialEq + Serialize {
    /// The keys under `[congestion]` they are read from; another mechanism's keys are refused.
    const KEYS: &'static [&'static str] = &[];

    /// Reads the settings of `mechanism` (only when it is the chosen one).
    fn read(s: &Section<'_>, mechanism: Mechanism) -> Self;

    /// Checks the settings of `mechanism` against the rest of the configuration.
    fn check(&self, _mechanism: Mechanism, _cfg: &Config, _issues: &Issues) {}
}

/// No settings (mechanisms without keys of their own).
impl Settings for () {
    fn read(_: &Section<'_>, _: Mechanism) {}
}

/// Generates, from the list of mechanisms (`Variant = "name" => Settings;`), the [`Mechanism`]
/// choice and the [`CongestionConfig`] sum type carrying each one's settings (serialized with
/// the settings' keys beside `mechanism`).
macro_rules! mechanisms {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $settings:ty;)+) => {
        choice_enum! {
            /// Congestion management mechanism.
            pub enum Mechanism { $($(#[$doc])* $variant = $name),+ }
        }

        /// `[congestion]`: the congestion management mechanism, with its settings (keys
        /// directly under `[congestion]`, next to `mechanism`).
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "mechanism")]
        pub enum CongestionConfig {
            $($(#[$doc])* #[serde(rename = $name)] $variant($settings)),+
        }

        impl CongestionConfig {
            /// Which mechanism runs.
            pub fn mechanism(&self) -> Mechanism {
                match self {
                    $(CongestionConfig::$variant(_) => Mechanism::$variant),+
                }
            }

            /// Checks the mechanism's settings against the rest of the configuration.
            pub(crate) fn check(&self, cfg: &Config, issues: &Issues) {
                match self {
                    $(CongestionConfig::$variant(settings) => {
                        settings.check(Mechanism::$variant, cfg, issues)
                    }),+
                }
            }
        }

        impl Mechanism {
            /// The keys under `[congestion]` the mechanism reads.
            fn keys(self) -> &'static [&'static str] {
                match self {
                    $(Mechanism::$variant => <$settings as Settings>::KEYS),+
                }
            }

            /// Reads the mechanism's settings.
            fn read_settings(self, s: &Section<'_>) -> CongestionConfig {
                match self {
                    $(Mechanism::$variant => {
                        CongestionConfig::$variant(<$settings as Settings>::read(s, self))
                    }),+
                }
            }
        }
    };
}

// The mechanisms `congestion.mechanism` chooses from: a mechanism's settings implement
// `Settings` in their own module here, and the mechanism is added with one line below and one
// in `crate::congestion` (the type that runs it).
mechanisms! {
    /// No congestion management.
    None = "none" => ();
    /// At-Least-One (Baydal et al.): local injection limitation at the source router.
    Alo = "alo" => ();
    /// Self-tuned global source throttling (Thottethodi et al.).
    SelfTuned = "self_tuned" => SelfTunedConfig;
    /// Entropy throttling on the global packet mobility ratio (Yokota et al.).
    Entropy = "entropy" => EntropyConfig;
    /// NIFDY (Callahan and Goldstein): admission control and in-order delivery at the
    /// network interface (needs `[processor]` and two logical networks).
    Nifdy = "nifdy" => NifdyConfig;
    /// NIFDY's buffering with its protocol off: the same total packet buffers, no acks.
    NifdyBuffersOnly = "nifdy_buffers_only" => NifdyConfig;
    /// InfiniBand congestion control (FECN marking at switches, BECN notifications, injection
    /// rate delays at channel adapters; needs the buffered fabric).
    IbCc = "ib_cc" => IbCcConfig;
    /// Quantized congestion notification (IEEE 802.1Qau): switches sample their queues and
    /// send quantized feedback to the sources, whose rate limiters cut and recover (needs the
    /// buffered fabric).
    Qcn = "qcn" => QcnConfig;
}

impl CongestionConfig {
    /// Reads `[congestion]`: the mechanism and its settings. A key of another mechanism is a
    /// problem naming the mechanisms it belongs to (and is not also "unknown").
    pub(crate) fn read(s: Section<'_>) -> CongestionConfig {
        let mechanism = s.choice("mechanism", Mechanism::None);
        let mut refused: Vec<&str> = Vec::new();
        for &(_, other) in Mechanism::CHOICES {
            for &key in other.keys() {
                if s.has(key) && !mechanism.keys().contains(&key) && !refused.contains(&key) {
                    refused.push(key);
                    let owners: Vec<String> = Mechanism::CHOICES
                        .iter()
                        .filter(|(_, m)| m.keys().contains(&key))
                        .map(|(name, _)| format!("\"{name}\""))
                        .collect();
                    s.value(key);
                    s.problem(
                        key,
                        format!(
                            "only applies when congestion.mechanism = {}",
                            owners.join(" or ")
                        ),
                    );
                }
            }
        }
        let congestion = mechanism.read_settings(&s);
        s.finish();
        congestion
    }
}

/// Reports, for a mechanism that needs a torus or mesh (its side-band network or circuit is
/// laid out along the dimensions), another topology as a problem; returns whether it is a cube.
fn require_cube(mechanism: Mechanism, cfg: &Config, issues: &Issues) -> bool {
    let kind = cfg.topology.kind;
    if !kind.is_cube() {
        issues.push(
            "congestion.mechanism".into(),
            Some(&toml::Value::String(mechanism.name().into())),
            format!(
                "needs topology.kind = \"torus\" or \"mesh\" (its side-band network is laid out \
                 along the dimensions); kind = \"{}\"",
                kind.name()
            ),
        );
    }
    kind.is_cube()
}
