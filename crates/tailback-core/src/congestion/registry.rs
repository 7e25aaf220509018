//! How a configured mechanism runs: the type that runs it implements [`Registered`] (its
//! description, how to build it) and takes one line in the dispatch of
//! [`apply`](super::apply) in `congestion/mod.rs`, beside its settings' line in
//! `config/congestion/mod.rs`.

use std::fmt::Debug;

use serde::Serialize;

use crate::config::Config;
use crate::hooks::CongestionControl;
use crate::topology::Topology;

/// What a mechanism provides to run when `congestion.mechanism` chooses it.
pub(crate) trait Registered {
    /// Its settings: the keys under `[congestion]` beside `mechanism` (`()` when none).
    type Settings: Clone + Debug + PartialEq + Serialize;
    /// What the engine runs.
    type Control: CongestionControl;

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

/// Work done with the configured mechanism, generic over its type ([`apply`](super::apply)).
pub(crate) trait WithMechanism {
    /// What the work produces.
    type Output;

    /// Does the work for mechanism `R`, configured as `name` with `settings`.
    fn apply<R: Registered>(self, name: &'static str, settings: &R::Settings) -> Self::Output;
}
