//! Congestion management mechanisms. Each one implements [`CongestionControl`] and talks to the
//! engine only through its hooks and the [`NetworkView`](crate::view::NetworkView).
//!
//! - [`Alo`]: At-Least-One local injection limitation.
//! - [`SelfTuned`]: self-tuned (or static-threshold) global throttling over a [`SideBand`].
//! - [`EntropyThrottling`]: throttling on the global packet mobility ratio.
//! - [`Nifdy`]: NIFDY's admission of packets at the network interface (and its buffers-only
//!   control).
//! - [`IbCc`]: InfiniBand congestion control, on the buffered (InfiniBand) fabric.
//! - [`Qcn`]: quantized congestion notification (IEEE 802.1Qau), on the buffered fabric.
//!
//! A mechanism is one module: it implements [`CongestionControl`] and the crate's registration
//! trait (its description, how to build it), and takes one line in `apply` below; its
//! settings, keys and checks live in `config/congestion/`.

mod alo;
mod entropy;
mod ib;
mod nifdy;
pub(crate) mod notify;
mod qcn;
pub(crate) mod registry;
mod self_tuned;
mod sideband;

pub use alo::{Alo, alo_allows};
pub use entropy::{EntropyThrottling, refresh_cycles as entropy_refresh_cycles};
pub use ib::IbCc;
pub use nifdy::Nifdy;
pub use qcn::Qcn;
pub use self_tuned::SelfTuned;
pub use sideband::{SideBand, Snapshot};

use crate::config::{Choice, Config, CongestionConfig};
#[cfg(doc)]
use crate::hooks::CongestionControl;
use crate::hooks::NoControl;
use crate::topology::Topology;
use registry::{Registered, WithMechanism};

/// Does `work` for the configured mechanism, with the type that runs it: one line per
/// mechanism of `config::Mechanism`.
pub(crate) fn apply<W: WithMechanism>(congestion: &CongestionConfig, work: W) -> W::Output {
    let name = congestion.mechanism().name();
    match congestion {
        CongestionConfig::None(s) => work.apply::<NoControl>(name, s),
        CongestionConfig::Alo(s) => work.apply::<Alo>(name, s),
        CongestionConfig::SelfTuned(s) => work.apply::<SelfTuned>(name, s),
        CongestionConfig::Entropy(s) => work.apply::<EntropyThrottling>(name, s),
        CongestionConfig::Nifdy(s) => work.apply::<Nifdy>(name, s),
        CongestionConfig::NifdyBuffersOnly(s) => work.apply::<nifdy::BuffersOnly>(name, s),
        CongestionConfig::IbCc(s) => work.apply::<IbCc>(name, s),
        CongestionConfig::Qcn(s) => work.apply::<Qcn>(name, s),
    }
}

impl Registered for NoControl {
    type Settings = ();
    type Control = NoControl;

    fn describe(_: &(), _: &str) -> Option<String> {
        None
    }

    fn build(_: &(), _: &Config, _: &Topology) -> NoControl {
        NoControl
    }
}

/// Cycles per block on each node's link (its ejection port's channel, both ways): what an
/// adapter's injection throttling measures rates against.
pub(crate) fn adapter_link_periods(topology: &Topology) -> Vec<u64> {
    (0..topology.node_count())
        .map(|n| {
            let port = topology.ejection_port(crate::ids::NodeId::new(n));
            u64::from(topology.ports()[port.index()].output_period)
        })
        .collect()
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
    apply(congestion, Describe)
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
    apply(congestion, Staleness(topology))
}
