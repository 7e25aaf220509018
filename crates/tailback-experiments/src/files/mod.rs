//! Files drawn from run reports: time series, buffer-occupancy maps and pending packets per
//! receiver (shared by `tailback run` and the experiments).

pub mod occupancy;
pub mod pending;
pub mod series;
