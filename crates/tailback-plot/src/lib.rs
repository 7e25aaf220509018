//! Plots of Tailback results.
//!
//! Every plot is written twice from the same drawing code, as `<stem>.svg`
//! and `<stem>.png` (900 x 600 px; [`panels`] grows with the number of
//! panels). Text uses an embedded copy of DejaVu Sans, so no system font
//! libraries are needed. Non-finite values are skipped, and so are absurd
//! ones in line charts (magnitudes beyond 1e300, or below 1e-300 on a
//! logarithmic axis).
#![deny(missing_docs)]

mod cdf;
mod figure;
mod heatmap;
mod lines;
mod panels;

use std::path::{Path, PathBuf};

/// One curve of a line chart ([`latency_throughput`], [`lines`], [`panels`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// The points, connected by a line in this order.
    pub points: Vec<Point>,
    /// Estimated saturation throughput (an x value), drawn as a dashed
    /// vertical line and given in the legend.
    pub saturation: Option<f64>,
}

/// A point; `marked` points (e.g. runs that saturated) are drawn with a distinct marker.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    /// Horizontal position; accepted throughput (flits/node/cycle) in
    /// [`latency_throughput`].
    pub x: f64,
    /// Vertical position; mean packet latency (cycles) in
    /// [`latency_throughput`].
    pub y: f64,
    /// Draw this point as a red cross (legend: "saturated run") instead of
    /// the series' marker.
    pub marked: bool,
}

/// How a y axis is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum YScale {
    /// Linear, always covering zero.
    Linear,
    /// Logarithmic; points whose y is zero or negative are skipped.
    Log,
    /// Logarithmic when every value is positive and the largest is more than
    /// 20 times the smallest, otherwise linear (the rule of
    /// [`latency_throughput`]).
    #[default]
    Auto,
}

/// One panel of a stacked chart (see [`panels`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Panel {
    /// Description of the panel's y axis.
    pub y_label: String,
    /// The curves drawn in this panel.
    pub series: Vec<Series>,
    /// How the panel's y axis is scaled.
    pub scale: YScale,
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
/// the smallest. This is [`lines`] with fixed axis descriptions and
/// [`YScale::Auto`].
pub fn latency_throughput(
    stem: &Path,
    title: &str,
    series: &[Series],
) -> Result<Vec<PathBuf>, PlotError> {
    lines(
        stem,
        title,
        "accepted throughput (flits/node/cycle)",
        "mean packet latency (cycles)",
        series,
        YScale::Auto,
    )
}

/// A generic line chart: each series is a labelled line through its points
/// with a marker on each point; marked points are drawn as red crosses and a
/// series' `saturation` as a dashed vertical line.
///
/// Both axes cover zero; the y axis is scaled as `scale` says. The legend
/// (placed in the corner of the chart that hides the least data) is drawn
/// unless there is a single series with an empty label and no marked point.
/// Writes `<stem>.svg` and `<stem>.png` (900 x 600 px); returns the two
/// paths.
pub fn lines(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    scale: YScale,
) -> Result<Vec<PathBuf>, PlotError> {
    let lines = lines::Lines {
        title,
        x_desc: x_label,
        y_desc: y_label,
        series,
        scale,
    };
    figure::render(stem, &lines)
}

/// Panels stacked vertically over one shared x axis, e.g. time series of
/// delivered throughput, threshold and throttled fraction over cycles.
///
/// The x range is the union of all series of all panels (not forced to
/// include zero), labelled below the bottom panel only. Each panel has its
/// own y axis (scaled as its `scale` says, linear ones covering zero) and its
/// own legend, drawn if it has more than one series or a non-empty label.
/// Series are drawn as in [`lines`], except that a series with more than 60
/// points gets no markers (marked points are still drawn). A series label
/// used in several panels keeps its colour. A panel without drawable points
/// says "no data"; so does the figure when there are no panels.
///
/// Writes `<stem>.svg` and `<stem>.png`, 900 px wide and 250 px high per
/// panel plus 90 px for title and x axis; returns the two paths.
pub fn panels(
    stem: &Path,
    title: &str,
    x_label: &str,
    panels: &[Panel],
) -> Result<Vec<PathBuf>, PlotError> {
    let figure = panels::Panels {
        title,
        x_desc: x_label,
        panels,
    };
    figure::render(stem, &figure)
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
/// `value_label` names the colour scale, which spans `range` (values outside
/// take the end colours; maps drawn with the same range compare directly) or,
/// when `None`, the finite values.
///
/// Writes `<stem>.svg` and `<stem>.png`; returns the two paths. Fails with
/// [`PlotError::HeatmapSize`] unless `values.len() == width * height`.
pub fn node_heatmap(
    stem: &Path,
    title: &str,
    (width, height): (usize, usize),
    values: &[f64],
    value_label: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<PathBuf>, PlotError> {
    check_grid(stem, width, height, values)?;
    let heatmap = heatmap::Heatmap {
        title,
        width,
        height,
        values,
        value_label,
        range,
        axes: ("x", "y"),
        square: true,
    };
    figure::render(stem, &heatmap)
}

/// Fails unless `values` fills a `width` x `height` grid.
fn check_grid(stem: &Path, width: usize, height: usize, values: &[f64]) -> Result<(), PlotError> {
    if width.checked_mul(height) == Some(values.len()) {
        Ok(())
    } else {
        Err(PlotError::HeatmapSize {
            stem: stem.to_owned(),
            width,
            height,
            len: values.len(),
        })
    }
}

/// A heat map of one value per node over time: `rows` nodes (y) by `columns` samples (x,
/// described by `time_label`); sample `t`'s values are `values[t * rows..(t + 1) * rows]`. The colour scale spans `range` like
/// [`node_heatmap`]'s; cells stretch to fill the picture.
///
/// Writes `<stem>.svg` and `<stem>.png`; returns the two paths. Fails with
/// [`PlotError::HeatmapSize`] unless `values.len() == rows * columns`.
pub fn node_time_heatmap(
    stem: &Path,
    title: &str,
    (columns, rows): (usize, usize),
    values: &[f64],
    time_label: &str,
    value_label: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<PathBuf>, PlotError> {
    check_grid(stem, columns, rows, values)?;
    // The grid is drawn row by row (cell i at x = i % width): transpose to node-major rows.
    let by_node: Vec<f64> = (0..rows)
        .flat_map(|node| (0..columns).map(move |t| values[t * rows + node]))
        .collect();
    let heatmap = heatmap::Heatmap {
        title,
        width: columns,
        height: rows,
        values: &by_node,
        value_label,
        range,
        axes: (time_label, "node"),
        square: false,
    };
    figure::render(stem, &heatmap)
}
