//! Buffer-occupancy heat maps: the congestion tree of a 2-D network at chosen cycles.

use std::path::{Path, PathBuf};

use tailback_core::stats::Occupancy;

/// Draws one heat map per snapshot, `<dir>/<prefix>occupancy_<cycle>.svg`/`.png`, on a common
/// 0-to-1 scale so maps compare directly. Nothing for networks that are not 2-D.
pub fn plot(
    dir: &Path,
    prefix: &str,
    title: &str,
    dims: &[u32],
    snapshots: &[Occupancy],
) -> anyhow::Result<Vec<PathBuf>> {
    let &[width, height] = dims else {
        return Ok(Vec::new());
    };
    let mut written = Vec::new();
    for snapshot in snapshots {
        written.extend(tailback_plot::node_heatmap(
            &dir.join(format!("{prefix}occupancy_{}", snapshot.cycle)),
            &format!("Buffer occupancy at cycle {}: {title}", snapshot.cycle),
            (width as usize, height as usize),
            &snapshot.per_router,
            "occupied fraction of input buffers",
            Some((0.0, 1.0)),
        )?);
    }
    Ok(written)
}
