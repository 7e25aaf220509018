//! Priority flow control's pauses (`fabric.flow_control = "pfc"`): the paused time of every
//! switch output toward a switch and of every adapter, and the paused share of each window as a
//! heat map of ports over time (how far pauses spread).

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::stats::PauseMap;

/// Writes `<dir>/<prefix>pauses.csv` (a row per sender and lane that was paused: `switch`
/// outputs as `switch,port`, adapters as `node`; its paused cycles and their share of the run)
/// and, with windows, `<dir>/<prefix>pause_map.csv` (a row per window, a column per port) and
/// the heat map `<dir>/<prefix>pause_map.svg`/`.png`.
pub fn write(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    pauses: &PauseMap,
) -> anyhow::Result<Vec<PathBuf>> {
    let path = dir.join(format!("{prefix}pauses.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    writer.write_record([
        "sender",
        "switch",
        "port",
        "node",
        "lane",
        "paused_cycles",
        "share",
    ])?;
    let share = |cycles: u64| format!("{:.6}", cycles as f64 / pauses.cycles.max(1) as f64);
    for (&(_, switch, port), lanes) in pauses.ports.iter().zip(&pauses.paused_cycles) {
        for (lane, &cycles) in lanes.iter().enumerate().filter(|(_, c)| **c > 0) {
            let row = [
                "switch".to_string(),
                switch.to_string(),
                port.to_string(),
                String::new(),
                lane.to_string(),
                cycles.to_string(),
                share(cycles),
            ];
            writer.write_record(&row)?;
        }
    }
    for (node, lanes) in pauses.adapters.iter().enumerate() {
        for (lane, &cycles) in lanes.iter().enumerate().filter(|(_, c)| **c > 0) {
            let row = [
                "adapter".to_string(),
                String::new(),
                String::new(),
                node.to_string(),
                lane.to_string(),
                cycles.to_string(),
                share(cycles),
            ];
            writer.write_record(&row)?;
        }
    }
    writer.flush()?;
    let mut written = vec![path];
    if pauses.windows.is_empty() || pauses.ports.is_empty() {
        return Ok(written);
    }
    let path = dir.join(format!("{prefix}pause_map.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    let mut header = vec!["cycle".to_string()];
    header.extend(
        pauses
            .ports
            .iter()
            .map(|(_, switch, port)| format!("s{switch}p{port}")),
    );
    writer.write_record(&header)?;
    for (i, row) in pauses.windows.iter().enumerate() {
        let mut record = vec![((i as u64 + 1) * window).to_string()];
        record.extend(row.iter().map(|x| format!("{x:.4}")));
        writer.write_record(&record)?;
    }
    writer.flush()?;
    written.push(path);
    let values: Vec<f64> = pauses.windows.iter().flatten().copied().collect();
    written.extend(tailback_plot::time_heatmap(
        &dir.join(format!("{prefix}pause_map")),
        &format!("Paused share of each window per switch port: {title}"),
        (pauses.windows.len(), pauses.ports.len()),
        &values,
        (
            &format!("time (windows of {window} cycles)"),
            "switch output port toward a switch",
        ),
        "paused share of the window",
        Some((0.0, 1.0)),
    )?);
    Ok(written)
}
