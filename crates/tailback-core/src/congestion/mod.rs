//! Congestion management mechanisms. Each one implements [`CongestionControl`] and talks to the
//! engine only through its hooks and the [`NetworkView`](crate::view::NetworkView).
//!
//! - [`Alo`]: At-Least-One local injection limitation.
//! - [`SelfTuned`]: self-tuned (or static-threshold) global throttling over a [`SideBand`].
//! - [`EntropyThrottling`]: throttling on the global packet mobility ratio.
//! - [`Nifdy`]: NIFDY's admission of packets at the network interface (and its buffers-only
//!   control).

mod alo;
mod entropy;
mod nifdy;
mod self_tuned;
mod sideband;

pub(crate) use entropy::settings as entropy_settings;
pub(crate) use nifdy::settings as nifdy_settings;
pub(crate) use self_tuned::settings as self_tuned_settings;

pub use alo::{Alo, alo_allows};
pub use entropy::{EntropyThrottling, refresh_cycles as entropy_refresh_cycles};
pub use nifdy::Nifdy;
pub use self_tuned::SelfTuned;
pub use sideband::{SideBand, Snapshot};

use crate::config::{Choice, CongestionConfig};
#[cfg(doc)]
use crate::hooks::CongestionControl;
use crate::topology::Topology;

/// The configured mechanism in words, with its parameters where they identify a run (`None`
/// without a mechanism).
pub fn describe(congestion: &CongestionConfig) -> Option<String> {
    match congestion {
        CongestionConfig::None => None,
        CongestionConfig::Nifdy(n) => Some(nifdy::describe(n, true)),
        CongestionConfig::NifdyBuffersOnly(n) => Some(nifdy::describe(n, false)),
        other => Some(format!(
            "congestion management: {}",
            other.mechanism().name()
        )),
    }
}

/// How stale a global mechanism's view of the network can be on `topology`: what the delay
/// is, and how many cycles (`None` for local mechanisms and ideal views).
pub fn view_staleness(congestion: &CongestionConfig, topology: &Topology) -> Option<(String, u64)> {
    let cube = topology.cube()?;
    match congestion {
        CongestionConfig::SelfTuned(settings) => self_tuned::staleness(settings, cube),
        CongestionConfig::Entropy(settings) => entropy::staleness(settings, cube),
        _ => None,
    }
}
