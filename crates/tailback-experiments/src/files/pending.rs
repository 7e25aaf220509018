//! Pending packets per receiver over time (`record.pending_per_receiver`): a CSV file and a
//! heat map, the picture of Callahan and Goldstein's Fig. 5.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::stats::Pending;

/// Packets at which the heat map's colour scale tops out (the paper shades 20 or more black).
pub const SCALE_TOP: f64 = 20.0;

/// Writes `<dir>/<prefix>pending.csv` (a row per window: its end cycle, then one column per
/// node) and the heat map `<dir>/<prefix>pending.svg`/`.png`; nothing without samples.
pub fn write(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    samples: &[Pending],
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(first) = samples.first() else {
        return Ok(Vec::new());
    };
    let nodes = first.per_receiver.len();
    let path = dir.join(format!("{prefix}pending.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    let mut header = vec!["cycle".to_string()];
    header.extend((0..nodes).map(|n| format!("node_{n}")));
    writer.write_record(&header)?;
    for sample in samples {
        let mut record = vec![sample.cycle.to_string()];
        record.extend(sample.per_receiver.iter().map(u32::to_string));
        writer.write_record(&record)?;
    }
    writer.flush()?;
    let values: Vec<f64> = samples
        .iter()
        .flat_map(|s| s.per_receiver.iter().map(|&p| f64::from(p)))
        .collect();
    let mut written = vec![path];
    written.extend(tailback_plot::node_time_heatmap(
        &dir.join(format!("{prefix}pending")),
        &format!("Pending packets per receiver: {title}"),
        (samples.len(), nodes),
        &values,
        &format!("time (windows of {window} cycles)"),
        "packets on their way to the node",
        Some((0.0, SCALE_TOP)),
    )?);
    Ok(written)
}
