//! Files drawn from run reports: time series, per-flow throughput, congestion per Port VL,
//! buffer-occupancy maps and pending packets per receiver (shared by `tailback run` and the
//! experiments).

pub mod flows;
pub mod occupancy;
pub mod pending;
pub mod port_vls;
pub mod series;
