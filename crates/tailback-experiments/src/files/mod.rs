//! Files drawn from run reports: time series, per-flow throughput, congestion per Port VL,
//! buffer-occupancy maps, pending packets per receiver and priority flow control's pauses (shared by `tailback run` and the
//! experiments).

pub mod flows;
pub mod occupancy;
pub mod pauses;
pub mod pending;
pub mod port_vls;
pub mod series;

use std::path::{Path, PathBuf};

use tailback_core::config::Units;
use tailback_core::stats::RunReport;

/// The per-flow files ([`flows::write`]) and the congestion per Port VL
/// ([`port_vls::write`], [`port_vls::write_congested`], [`port_vls::write_map`]) of `report`,
/// series windows of `window` cycles.
pub fn flows_and_port_vls(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    report: &RunReport,
    units: Option<Units>,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = flows::write(
        dir,
        prefix,
        title,
        window,
        &report.flows,
        report.flow_gauge.as_deref(),
        units,
    )?;
    written.extend(port_vls::write(
        dir,
        prefix,
        title,
        window,
        &report.port_vls,
        units,
    )?);
    written.extend(port_vls::write_congested(
        dir,
        prefix,
        &report.congested_port_vls,
    )?);
    if let Some(map) = &report.port_vl_map {
        written.extend(port_vls::write_map(dir, prefix, title, map)?);
    }
    Ok(written)
}
