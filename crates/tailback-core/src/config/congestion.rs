//! `[congestion]`: which congestion management mechanism runs, and its settings. The choice
//! ([`Mechanism`]) and the sum type ([`CongestionConfig`]) are generated from the list of
//! registered mechanisms in `crate::congestion`; each mechanism's settings, keys and checks live
//! with the mechanism.

pub use crate::congestion::entropy_settings::{EntropyCircuit, EntropyConfig, EntropyModel};
pub use crate::congestion::nifdy_settings::NifdyConfig;
pub use crate::congestion::self_tuned_settings::{
    Estimate, FullBuffer, SelfTunedConfig, SidebandKind, sideband_hops,
};
pub use crate::congestion::{CongestionConfig, Mechanism};
