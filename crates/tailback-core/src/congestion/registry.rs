//! How a mechanism becomes choosable by name: it implements [`Registered`] (its settings, their
//! keys, reader and checks, its description, and how to build it) and takes one line in the
//! list of [`mechanisms!`](crate::congestion) in `congestion/mod.rs`. The macro generates the
//! [`Mechanism`] choice, the [`CongestionConfig`] sum type and the single dispatch from a
//! configured mechanism to code generic over its type ([`WithMechanism`]).

use std::fmt::Debug;

use serde::Serialize;

use crate::config::reader::{Issues, Section};
use crate::config::{Choice, Config, CongestionConfig, Mechanism};
use crate::hooks::CongestionControl;
use crate::topology::Topology;

/// What a mechanism provides to be chosen with `congestion.mechanism`.
pub(crate) trait Registered {
    /// Its settings: the keys under `[congestion]` beside `mechanism` (`()` when none).
    type Settings: Clone + Debug + PartialEq + Serialize;
    /// What the engine runs.
    type Control: CongestionControl;
    /// The keys under `[congestion]` it reads; another mechanism's keys are refused.
    const KEYS: &'static [&'static str] = &[];

    /// Reads its settings (only when it is the chosen mechanism).
    fn read(s: &Section<'_>) -> Self::Settings;

    /// Checks its settings against the rest of the configuration; `name` is the configured
    /// mechanism.
    fn check(_settings: &Self::Settings, _name: &str, _cfg: &Config, _issues: &Issues) {}

    /// The mechanism in words, with the parameters that identify a run.
    fn describe(_settings: &Self::Settings, name: &str) -> Option<String> {
        Some(format!("congestion management: {name}"))
    }

    /// How stale its view of `topology` can be: what the delay is, and how many cycles (`None`
    /// for local mechanisms and ideal views).
    fn staleness(_settings: &Self::Settings, _topology: &Topology) -> Option<(String, u64)> {
        None
    }

    /// The mechanism for the network of `cfg`.
    fn build(settings: &Self::Settings, cfg: &Config, topology: &Topology) -> Self::Control;
}

/// Work done with the configured mechanism, generic over its type
/// ([`CongestionConfig::apply`]).
pub(crate) trait WithMechanism {
    /// What the work produces.
    type Output;

    /// Does the work for mechanism `R`, configured as `name` with `settings`.
    fn apply<R: Registered>(self, name: &'static str, settings: &R::Settings) -> Self::Output;
}

/// Generates, from the list of registered mechanisms (`Variant = "name" => Registration,
/// Settings;`, where `Settings` is the registration's settings type), the [`Mechanism`] choice,
/// the [`CongestionConfig`] sum type carrying each one's settings (serialized with the
/// settings' keys beside `mechanism`), its reader and the dispatch [`CongestionConfig::apply`].
macro_rules! mechanisms {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $registration:ty, $settings:ty;)+) => {
        $crate::config::reader::choice_enum! {
            /// Congestion management mechanism.
            pub enum Mechanism { $($(#[$doc])* $variant = $name),+ }
        }

        /// `[congestion]`: the congestion management mechanism, with its settings (keys
        /// directly under `[congestion]`, next to `mechanism`).
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
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

            /// Does `work` for the configured mechanism.
            pub(crate) fn apply<W: $crate::congestion::registry::WithMechanism>(
                &self,
                work: W,
            ) -> W::Output {
                match self {
                    $(CongestionConfig::$variant(settings) => {
                        work.apply::<$registration>($name, settings)
                    }),+
                }
            }
        }

        impl Mechanism {
            /// The keys under `[congestion]` the mechanism reads.
            pub(crate) fn keys(self) -> &'static [&'static str] {
                use $crate::congestion::registry::Registered;
                match self {
                    $(Mechanism::$variant => <$registration>::KEYS),+
                }
            }

            /// Reads the mechanism's settings.
            pub(crate) fn read_settings(
                self,
                s: &$crate::config::reader::Section<'_>,
            ) -> CongestionConfig {
                use $crate::congestion::registry::Registered;
                match self {
                    $(Mechanism::$variant => CongestionConfig::$variant(<$registration>::read(s))),+
                }
            }
        }
    };
}
pub(crate) use mechanisms;

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

    /// Checks the mechanism's settings against the rest of the configuration.
    pub(crate) fn check(&self, cfg: &Config, issues: &Issues) {
        struct Check<'a>(&'a Config, &'a Issues);
        impl WithMechanism for Check<'_> {
            type Output = ();
            fn apply<R: Registered>(self, name: &'static str, settings: &R::Settings) {
                R::check(settings, name, self.0, self.1);
            }
        }
        self.apply(Check(cfg, issues));
    }
}

/// Reports, for a mechanism that needs a torus or mesh (its side-band network or circuit is
/// laid out along the dimensions), another topology as a problem; returns whether it is a cube.
pub(crate) fn require_cube(name: &str, cfg: &Config, issues: &Issues) -> bool {
    let kind = cfg.topology.kind;
    if !kind.is_cube() {
        issues.push(
            "congestion.mechanism".into(),
            Some(&toml::Value::String(name.into())),
            format!(
                "needs topology.kind = \"torus\" or \"mesh\" (its side-band network is laid out \
                 along the dimensions); kind = \"{}\"",
                kind.name()
            ),
        );
    }
    kind.is_cube()
}
