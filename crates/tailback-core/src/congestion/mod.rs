//! Congestion management mechanisms. Each one implements [`CongestionControl`] and talks to the
//! engine only through its hooks and the [`NetworkView`](crate::view::NetworkView).
//!
//! - [`Alo`]: At-Least-One local injection limitation.
//! - [`SelfTuned`]: self-tuned (or static-threshold) global throttling over a [`SideBand`].
//! - [`EntropyThrottling`]: throttling on the global packet mobility ratio.
//! - [`Nifdy`]: NIFDY's admission of packets at the network interface (and its buffers-only
//!   control).
//! - [`IbCc`]: InfiniBand congestion control, on the buffered (InfiniBand) fabric.
//!
//! A mechanism is one module: it implements [`CongestionControl`] and the crate's registration
//! trait (its settings with their keys, reader and checks, its description, how to build it),
//! and takes one line in the list below, which generates [`Mechanism`] and
//! [`CongestionConfig`].

mod alo;
mod entropy;
mod ib;
mod nifdy;
pub(crate) mod registry;
mod self_tuned;
mod sideband;

pub(crate) use entropy::settings as entropy_settings;
pub(crate) use ib::settings as ib_settings;
pub(crate) use nifdy::settings as nifdy_settings;
pub(crate) use self_tuned::settings as self_tuned_settings;

pub use alo::{Alo, alo_allows};
pub use entropy::{EntropyThrottling, refresh_cycles as entropy_refresh_cycles};
pub use ib::IbCc;
pub use ib::settings::IbCcConfig;
pub use nifdy::Nifdy;
pub use self_tuned::SelfTuned;
pub use sideband::{SideBand, Snapshot};

use crate::config::reader::Section;
use crate::config::{Config, EntropyConfig, NifdyConfig, SelfTunedConfig};
#[cfg(doc)]
use crate::hooks::CongestionControl;
use crate::hooks::NoControl;
use crate::topology::Topology;
use registry::{Registered, WithMechanism, mechanisms};

// The mechanisms `congestion.mechanism` chooses from: a mechanism implements
// `registry::Registered` in its own module and is added here with one line.
mechanisms! {
    /// No congestion management.
    None = "none" => NoControl, ();
    /// At-Least-One (Baydal et al.): local injection limitation at the source router.
    Alo = "alo" => Alo, ();
    /// Self-tuned global source throttling (Thottethodi et al.).
    SelfTuned = "self_tuned" => SelfTuned, SelfTunedConfig;
    /// Entropy throttling on the global packet mobility ratio (Yokota et al.).
    Entropy = "entropy" => EntropyThrottling, EntropyConfig;
    /// NIFDY (Callahan and Goldstein): admission control and in-order delivery at the
    /// network interface (needs `[processor]` and two logical networks).
    Nifdy = "nifdy" => Nifdy, NifdyConfig;
    /// NIFDY's buffering with its protocol off: the same total packet buffers, no acks.
    NifdyBuffersOnly = "nifdy_buffers_only" => nifdy::BuffersOnly, NifdyConfig;
    /// InfiniBand congestion control (FECN marking at switches, BECN notifications, injection
    /// rate delays at channel adapters; needs the buffered fabric).
    IbCc = "ib_cc" => IbCc, IbCcConfig;
}

impl Registered for NoControl {
    type Settings = ();
    type Control = NoControl;

    fn read(_: &Section<'_>) {}

    fn describe(_: &(), _: &str) -> Option<String> {
        None
    }

    fn build(_: &(), _: &Config, _: &Topology) -> NoControl {
        NoControl
    }
}

/// The configured mechanism in words, with its parameters where they identify a run (`None`
/// without a mechanism).
pub fn describe(congestion: &CongestionConfig) -> Option<String> {
    struct Describe;
    impl WithMechanism for Describe {
        type Output = Option<String>;
        fn apply<R: Registered>(self, name: &'static str, settings: &R::Settings) -> Self::Output {
            R::describe(settings, name)
        }
    }
    congestion.apply(Describe)
}

/// How stale a global mechanism's view of the network can be on `topology`: what the delay
/// is, and how many cycles (`None` for local mechanisms and ideal views).
pub fn view_staleness(congestion: &CongestionConfig, topology: &Topology) -> Option<(String, u64)> {
    struct Staleness<'a>(&'a Topology);
    impl WithMechanism for Staleness<'_> {
        type Output = Option<(String, u64)>;
        fn apply<R: Registered>(self, _: &'static str, settings: &R::Settings) -> Self::Output {
            R::staleness(settings, self.0)
        }
    }
    congestion.apply(Staleness(topology))
}
