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

pub use alo::{Alo, alo_allows};
pub use entropy::{EntropyThrottling, refresh_cycles as entropy_refresh_cycles};
pub use nifdy::Nifdy;
pub use self_tuned::SelfTuned;
pub use sideband::{SideBand, Snapshot};

#[cfg(doc)]
use crate::hooks::CongestionControl;
