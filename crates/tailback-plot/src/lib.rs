//! Plots of Tailback results.
//!
//! Every plot is written twice from the same drawing code, as `<stem>.svg`
//! and `<stem>.png` (900 x 600 px; [`panels`] grows with the number of
//! panels). Text uses an embedded copy of DejaVu Sans, so no system font
//! libraries are needed. Non-finite values are skipped, and so are absurd
//! ones in line charts (magnitudes beyond 1e300, or below 1e-300 on a
//! logarithmic axis). Lines, markers and error bars are cut to the chart's
//! plotting area.
//!
//! # Data files
//!
//! Beside its pictures every plot writes the data it draws, as CSV with a
//! header row, to `<stem>.data.csv` (not `<stem>.csv`, which is often the
//! caller's own data file). The paths returned are the SVG, the PNG and the
//! data file, in this order. Numbers are written in their shortest form that
//! reads back exactly; an absent value is an empty cell. The columns:
//!
//! - line charts ([`lines`], [`latency_offered`],
//!   [`accepted_offered`]): `series,x,y,error,marked,saturation`, a row per
//!   point drawn (points that cannot be drawn are left out): the series'
//!   label, the point's coordinates, its error bar's half-width, whether it
//!   is marked (`true`/`false`) and the series' saturation;
//! - stacked panels ([`panels`]):
//!   `panel,series,x,y,error,marked`, the same per point with the panel's y
//!   label first; y is the smoothed value, and the points of panels left out
//!   as constant are included;
//! - latency distributions ([`latency_cdf`]):
//!   `latency_cycles,cumulative_fraction`, a row per step drawn;
//! - [`node_heatmap`]: `x,y,value`, a row per node;
//! - [`node_time_heatmap`]: `time,node,value`, a row per node and sample
//!   (`time` is the sample's index).
//!
//! # Series styles
//!
//! The series of a chart are told apart by colour, marker shape (circle,
//! square, triangle, diamond, ...) and dash pattern (solid, dashed, dotted,
//! dash-dotted), each cycling through its own list, and are drawn in order:
//! a series drawn over an identical earlier one leaves it visible in the
//! gaps of its dashes and around its markers. (A line too dense to show a
//! dash pattern, swinging to and fro within a few pixels, is drawn solid.)
#![deny(missing_docs)]

mod cdf;
mod figure;
mod geometry;
mod heatmap;
mod lines;
mod panels;
mod style;

use std::path::{Path, PathBuf};

/// One curve of a line chart ([`lines`], [`latency_offered`], [`panels`]).
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

/// A point of a [`Series`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    /// Horizontal position; offered load (flits/node/cycle) in
    /// [`latency_offered`].
    pub x: f64,
    /// Vertical position; mean packet latency (cycles) in
    /// [`latency_offered`].
    pub y: f64,
    /// The point is past saturation (e.g. a run that saturated): it is drawn
    /// as a hollow marker of the series' shape and colour, the line into it
    /// is dashed, and the legend explains it as "past saturation".
    pub marked: bool,
    /// Half-width of an error bar on `y` (e.g. a 95% confidence interval),
    /// drawn as a vertical bar with caps in the series' colour and covered by
    /// the y axis; on a logarithmic axis a lower end at or below zero is left
    /// out. `None` (or a value that is not positive) draws none.
    pub error: Option<f64>,
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
    /// [`latency_offered`]).
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
    /// The data file could not be written.
    #[error("cannot write {}: {message}", path.display())]
    Data {
        /// The data file.
        path: PathBuf,
        /// The CSV error, as text.
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

/// Mean packet latency against offered load, one line per series: [`lines`]
/// with fixed axis descriptions and [`YScale::Auto`]: the latency axis is
/// logarithmic when the largest latency is more than 20 times the smallest.
/// Points past saturation (`marked`) are drawn hollow, with a dashed line
/// into them.
///
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns
/// `series,x,y,error,marked,saturation`); returns the three paths.
pub fn latency_offered(
    stem: &Path,
    title: &str,
    series: &[Series],
) -> Result<Vec<PathBuf>, PlotError> {
    lines(
        stem,
        title,
        "offered load (flits/node/cycle)",
        "mean packet latency (cycles)",
        series,
        YScale::Auto,
    )
}

/// Accepted throughput against offered load, one line per series, over the
/// ideal line y = x (thin and grey, legend "accepted = offered"); a linear
/// y axis covering the ideal line over the whole x range. Otherwise as
/// [`lines`].
///
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns
/// `series,x,y,error,marked,saturation`; the ideal line is not data);
/// returns the three paths.
pub fn accepted_offered(
    stem: &Path,
    title: &str,
    series: &[Series],
) -> Result<Vec<PathBuf>, PlotError> {
    let figure = lines::Lines {
        title,
        x_desc: "offered load (flits/node/cycle)",
        y_desc: "accepted throughput (flits/node/cycle)",
        series,
        scale: YScale::Linear,
        ideal: true,
    };
    figure::render(stem, &figure)
}

/// A generic line chart: each series is a line through its points with a
/// marker on each point, styled as the [series styles](crate#series-styles)
/// say.
///
/// Points past saturation (`marked`) get a hollow marker, and the line into
/// them is dashed; error bars are drawn where points have an `error`; a
/// series' `saturation` is a thin dashed vertical line. Both axes cover zero
/// (and the error bars); the y axis is scaled as `scale` says. The legend
/// (placed in the corner of the chart that hides the least data) has an
/// entry per labelled series and one for past-saturation points if any are
/// drawn; it is left out when that makes no entry.
///
/// Writes `<stem>.svg`, `<stem>.png` (900 x 600 px) and `<stem>.data.csv`
/// (columns `series,x,y,error,marked,saturation`, a row per point drawn, see
/// the [data files](crate#data-files)); returns the three paths.
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
        ideal: false,
    };
    figure::render(stem, &lines)
}

/// Panels stacked vertically over one shared x axis, e.g. time series of
/// delivered throughput, threshold and throttled fraction over cycles, each
/// series smoothed by a centred moving average over `window` samples.
///
/// Smoothing replaces each point's y by the mean y of the `window`
/// consecutive (finite) points of its series centred on it: `(window - 1) /
/// 2` before it and `window / 2` after, fewer at the ends of the series; x,
/// error and marked are kept. A window of 0 or 1 leaves the series as they
/// are.
///
/// Panels without drawable points are left out, and so are panels whose
/// drawable points all have the same y (before smoothing) and no error
/// bars: a note under the title lists them with their value ("constant:
/// full buffers = 0, ..."). Panels are kept when leaving them out would
/// leave none: constant panels are then drawn, and when no panel has any
/// drawable point each says "no data" (so does the figure without panels).
///
/// The x range is the union of all series of the panels drawn (not forced
/// to include zero), labelled below the bottom panel only. Each panel has
/// its own y axis (scaled as its `scale` says, linear ones covering zero).
/// Series are drawn as in [`lines`], except that a series with more than 60
/// points gets no markers (past-saturation points still get theirs). A
/// series label used in several panels keeps its style (and so does the
/// n-th unlabelled series of each panel), and one legend above the panels
/// has an entry per label (and one for past-saturation points if any are
/// drawn).
///
/// Writes `<stem>.svg` and `<stem>.png`, 900 px wide and 250 px high per
/// panel drawn plus 90 px for title and x axis, plus the note's line and the
/// legend's rows if any; and `<stem>.data.csv` (columns
/// `panel,series,x,y,error,marked`, see the [data files](crate#data-files)).
/// Returns the three paths.
pub fn panels(
    stem: &Path,
    title: &str,
    x_label: &str,
    panels: &[Panel],
    window: usize,
) -> Result<Vec<PathBuf>, PlotError> {
    // The legend's layout measures text: the font must be there.
    figure::register_embedded_font()?;
    let figure = panels::Panels::new(title, x_label, panels, window);
    figure::render(stem, &figure)
}

/// Latency distribution: the CDF as (latency cycles, cumulative fraction)
/// pairs, increasing, drawn as a step line, with `note` (if any) in a line
/// under the title, e.g. to say which packets the distribution leaves out.
///
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns
/// `latency_cycles,cumulative_fraction`, a row per step drawn: finite
/// fractions, clamped to 0..=1, by latency); returns the three paths.
pub fn latency_cdf(
    stem: &Path,
    title: &str,
    cdf: &[(u64, f64)],
    note: Option<&str>,
) -> Result<Vec<PathBuf>, PlotError> {
    figure::render(stem, &cdf::Cdf { title, cdf, note })
}

/// A heat map of one value per node on a 2-D grid (`width` x `height`, node
/// i at x = i % width, y = i / width), e.g. accepted throughput per node;
/// `value_label` names the colour scale, which spans `range` (values outside
/// take the end colours; maps drawn with the same range compare directly) or,
/// when `None`, the finite values.
///
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns
/// `x,y,value`, a row per node, the value empty where not finite); returns
/// the three paths. Fails with [`PlotError::HeatmapSize`] unless
/// `values.len() == width * height`.
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
        columns: ["x", "y", "value"],
        square: true,
    };
    figure::render(stem, &heatmap)
}

/// A heat map of one value per switch port: `ports` columns (x) by `switches` rows (y), switch
/// `s`'s port `p` at `values[s * ports + p]`; NaN cells (ports a switch lacks) are grey. The
/// colour scale spans `range` like [`node_heatmap`]'s; cells stretch to fill the picture.
///
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns `port,switch,value`);
/// returns the three paths. Fails with [`PlotError::HeatmapSize`] unless `values.len() ==
/// ports * switches`.
pub fn port_heatmap(
    stem: &Path,
    title: &str,
    (ports, switches): (usize, usize),
    values: &[f64],
    value_label: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<PathBuf>, PlotError> {
    check_grid(stem, ports, switches, values)?;
    let heatmap = heatmap::Heatmap {
        title,
        width: ports,
        height: switches,
        values,
        value_label,
        range,
        axes: ("port", "switch"),
        columns: ["port", "switch", "value"],
        square: false,
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
/// Writes `<stem>.svg`, `<stem>.png` and `<stem>.data.csv` (columns
/// `time,node,value`, a row per node and sample, `time` being the sample's
/// index and the value empty where not finite); returns the three paths.
/// Fails with [`PlotError::HeatmapSize`] unless `values.len() == rows *
/// columns`.
pub fn node_time_heatmap(
    stem: &Path,
    title: &str,
    (columns, rows): (usize, usize),
    values: &[f64],
    time_label: &str,
    value_label: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<PathBuf>, PlotError> {
    time_heatmap(
        stem,
        title,
        (columns, rows),
        values,
        (time_label, "node"),
        value_label,
        range,
    )
}

/// A value per time step and row (a node, a port) as a heat map with time along the x axis:
/// `values` holds `columns` time steps of `rows` values each, step after step; `labels` name
/// the time axis and the rows.
pub fn time_heatmap(
    stem: &Path,
    title: &str,
    (columns, rows): (usize, usize),
    values: &[f64],
    labels: (&str, &str),
    value_label: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<PathBuf>, PlotError> {
    check_grid(stem, columns, rows, values)?;
    // The grid is drawn row by row (cell i at x = i % width): transpose to row-major rows.
    let by_row: Vec<f64> = (0..rows)
        .flat_map(|row| (0..columns).map(move |t| values[t * rows + row]))
        .collect();
    let heatmap = heatmap::Heatmap {
        title,
        width: columns,
        height: rows,
        values: &by_row,
        value_label,
        range,
        axes: labels,
        columns: ["time", labels.1, "value"],
        square: false,
    };
    figure::render(stem, &heatmap)
}
