//! Plots of Tailback results.
//!
//! Every plot is written twice from the same drawing code, as `<stem>.svg`
//! and `<stem>.png` (900 x 600 px). Text uses an embedded copy of DejaVu Sans,
//! so no system font libraries are needed. Non-finite values are skipped.
#![deny(missing_docs)]

mod cdf;
mod figure;
mod heatmap;
mod throughput;

use std::path::{Path, PathBuf};

/// One curve of a latency-throughput plot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// The points, connected by a line in this order.
    pub points: Vec<Point>,
    /// Estimated saturation throughput, drawn as a dashed vertical line.
    pub saturation: Option<f64>,
}

/// A point; `marked` points (e.g. runs that saturated) are drawn with a distinct marker.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    /// Accepted throughput (flits/node/cycle).
    pub x: f64,
    /// Mean packet latency (cycles).
    pub y: f64,
    /// Draw this point as a red cross instead of the series' marker.
    pub marked: bool,
}

/// Why a plot could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output directory could not be created.
    #[error("cannot create directory {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Drawing or writing a plot file failed.
    #[error("cannot draw {}: {message}", path.display())]
    Draw {
        /// The file being drawn.
        path: PathBuf,
        /// The plotters error, as text.
        message: String,
    },
    /// The embedded font could not be loaded.
    #[error("cannot load the embedded font")]
    Font,
    /// The number of heat map values does not match the grid.
    #[error(
        "heat map {}: {len} values for a {width} x {height} grid",
        stem.display()
    )]
    HeatmapSize {
        /// The output stem.
        stem: PathBuf,
        /// Grid width.
        width: usize,
        /// Grid height.
        height: usize,
        /// Number of values given.
        len: usize,
    },
}

/// Writes `<stem>.svg` and `<stem>.png`; returns the two paths.
///
/// Mean packet latency against accepted throughput, one line per series. The
/// latency axis is logarithmic when the largest latency is more than 20 times
/// the smallest.
pub fn latency_throughput(
    stem: &Path,
    title: &str,
    series: &[Series],
) -> Result<Vec<PathBuf>, PlotError> {
    figure::render(stem, &throughput::Throughput { title, series })
}

/// Latency distribution: the CDF as (latency cycles, cumulative fraction) pairs, increasing.
///
/// Writes `<stem>.svg` and `<stem>.png` with a step line; returns the two paths.
pub fn latency_cdf(
    stem: &Path,
    title: &str,
    cdf: &[(u64, f64)],
) -> Result<Vec<PathBuf>, PlotError> {
    figure::render(stem, &cdf::Cdf { title, cdf })
}

/// A heat map of one value per node on a 2-D grid (`width` x `height`, node
/// i at x = i % width, y = i / width), e.g. accepted throughput per node;
/// `value_label` names the colour scale.
///
/// Writes `<stem>.svg` and `<stem>.png`; returns the two paths. Fails with
/// [`PlotError::HeatmapSize`] unless `values.len() == width * height`.
pub fn node_heatmap(
    stem: &Path,
    title: &str,
    width: usize,
    height: usize,
    values: &[f64],
    value_label: &str,
) -> Result<Vec<PathBuf>, PlotError> {
    if width.checked_mul(height) != Some(values.len()) {
        return Err(PlotError::HeatmapSize {
            stem: stem.to_owned(),
            width,
            height,
            len: values.len(),
        });
    }
    let heatmap = heatmap::Heatmap {
        title,
        width,
        height,
        values,
        value_label,
    };
    figure::render(stem, &heatmap)
}
