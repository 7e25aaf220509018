//! Line charts: the drawing shared by every chart of [`Series`] (lines,
//! markers, saturation lines, marked points, legend placement), y-axis
//! scaling, and the single-chart figure behind `lines` and
//! `latency_throughput`.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::figure::{
    DrawResult, Figure, font, min_max, no_data, range_from_zero, titled, xy_chart,
};
use crate::{Point, Series, YScale};

/// [`YScale::Auto`]: above this ratio of largest to smallest value the y
/// axis is logarithmic.
const LOG_RATIO: f64 = 20.0;
/// Series colours (colour-blind friendly); red is kept for marked points.
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(140, 86, 75),
    RGBColor(117, 112, 179),
    RGBColor(102, 166, 30),
    RGBColor(128, 128, 128),
];
const MARKED: RGBColor = RGBColor(220, 0, 0);
/// Legend entry of the marked points.
const MARKED_LABEL: &str = "saturated run";
/// Radius of a series' point marker and half size of a marked point's cross.
const MARKER_RADIUS: i32 = 4;
const CROSS_SIZE: i32 = 6;
/// Legend layout, as plotters draws it: font size, width of the sample
/// line, margin around the entries, distance from the chart's edges.
const LEGEND_FONT: u32 = 15;
const LEGEND_SAMPLE: i32 = 30;
const LEGEND_MARGIN: i32 = 10;
const LEGEND_OFFSET: i32 = 5;
/// Corners tried for the legend, in order of preference.
const LEGEND_CORNERS: [SeriesLabelPosition; 4] = [
    SeriesLabelPosition::UpperLeft,
    SeriesLabelPosition::UpperRight,
    SeriesLabelPosition::LowerRight,
    SeriesLabelPosition::LowerLeft,
];
/// Log-axis ticks of a full-size chart.
const CHART_TICKS: LogTicks = LogTicks {
    one_two_five_up_to: 1e4,
    max: 24,
};

/// A pixel position on the backend.
type BackendCoord = (i32, i32);

/// The single-chart line figure.
pub(crate) struct Lines<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub series: &'a [Series],
    pub scale: YScale,
}

impl Figure for Lines<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled(root, self.title)?;
        let x = range_from_zero(x_values(self.series));
        let axis = YAxis::new(self.scale, y_values(self.series));
        let layers: Vec<Layer> = self
            .series
            .iter()
            .zip(PALETTE.iter().cycle())
            .map(|(series, &colour)| Layer {
                series,
                colour,
                markers: true,
            })
            .collect();
        let chart = LinesChart {
            figure: self,
            area: &area,
            x,
            layers: &layers,
            axis: &axis,
        };
        axis.apply(chart, CHART_TICKS)
    }
}

/// A [`Lines`] figure being drawn, waiting for its y coordinate.
struct LinesChart<'a, DB: DrawingBackend> {
    figure: &'a Lines<'a>,
    area: &'a DrawingArea<DB, Shift>,
    x: Range<f64>,
    layers: &'a [Layer<'a>],
    axis: &'a YAxis,
}

impl<DB: DrawingBackend> WithY for LinesChart<'_, DB>
where
    DB::ErrorType: 'static,
{
    fn with_y<Y>(self, y: Y) -> DrawResult
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let (x_desc, y_desc) = (self.figure.x_desc, self.figure.y_desc);
        let mut chart = xy_chart(self.area, self.x, y, x_desc, y_desc)?;
        if !draw_layers(&mut chart, self.layers, self.axis)? {
            no_data(self.area)?;
        }
        Ok(())
    }
}

/// The x values a chart of `series` must cover: finite points and
/// saturation lines.
pub(crate) fn x_values(series: &[Series]) -> impl Iterator<Item = f64> + Clone {
    series
        .iter()
        .flat_map(|s| finite(&s.points).map(|p| p.x).chain(saturation(s)))
}

/// The y values of the finite points of `series`.
pub(crate) fn y_values(series: &[Series]) -> impl Iterator<Item = f64> + Clone {
    series.iter().flat_map(|s| finite(&s.points)).map(|p| p.y)
}

/// A series as drawn: its colour and whether its points get markers.
pub(crate) struct Layer<'a> {
    pub series: &'a Series,
    pub colour: RGBColor,
    pub markers: bool,
}

/// Something to draw once the y coordinate is known (plotters gives linear
/// and logarithmic axes different types).
pub(crate) trait WithY {
    /// Draws with `y` as the y coordinate.
    fn with_y<Y>(self, y: Y) -> DrawResult
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>;
}

/// Tick placement on a logarithmic axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogTicks {
    /// Ticks at 1, 2 and 5 times powers of ten up to this ratio of the
    /// axis' end to its start, beyond only at powers of ten.
    pub one_two_five_up_to: f64,
    /// At most this many labelled ticks: beyond, only every n-th power of ten.
    pub max: usize,
}

/// A y axis with its range resolved from the data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum YAxis {
    /// Linear over the range.
    Linear(Range<f64>),
    /// Logarithmic over the (positive) range.
    Log(Range<f64>),
}

impl YAxis {
    /// The axis showing `values` (finite) scaled as `scale` says.
    pub(crate) fn new(scale: YScale, values: impl Iterator<Item = f64> + Clone) -> Self {
        let log = match scale {
            YScale::Linear => false,
            YScale::Log => true,
            YScale::Auto => {
                matches!(min_max(values.clone()), Some((lo, hi)) if lo > 0.0 && hi / lo > LOG_RATIO)
            }
        };
        if !log {
            return Self::Linear(range_from_zero(values));
        }
        let (lo, hi) = min_max(values.filter(|&v| v >= MIN_LOG)).unwrap_or((1.0, 10.0));
        let range = lo / 1.25..hi * 1.25;
        if decade_ticks(&range, &[1.0, 2.0, 5.0]).len() >= 2 {
            return Self::Log(range);
        }
        // Too narrow for two labelled ticks: widen to whole decades.
        let decade = |v: f64, round: fn(f64) -> f64| 10f64.powf(round(v.log10()));
        Self::Log(decade(range.start, f64::floor)..decade(range.end, f64::ceil))
    }

    /// Whether a point at height `y` (finite) can be drawn on this axis.
    pub(crate) fn shows(&self, y: f64) -> bool {
        match self {
            Self::Linear(_) => true,
            Self::Log(_) => y >= MIN_LOG,
        }
    }

    /// Draws `chart` with this axis as its y coordinate; a logarithmic axis
    /// gets labelled ticks as `ticks` says and light lines at every m·10^k.
    pub(crate) fn apply(&self, chart: impl WithY, ticks: LogTicks) -> DrawResult {
        match self {
            Self::Linear(range) => chart.with_y(range.clone()),
            Self::Log(range) => {
                let bold: &[f64] = if range.end / range.start > ticks.one_two_five_up_to {
                    &[1.0]
                } else {
                    &[1.0, 2.0, 5.0]
                };
                let mut labelled = decade_ticks(range, bold);
                if labelled.len() > ticks.max {
                    let step = labelled.len().div_ceil(ticks.max.max(1));
                    labelled = labelled.into_iter().step_by(step).collect();
                }
                let light = decade_ticks(range, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
                let y = range
                    .clone()
                    .log_scale()
                    .with_key_points(labelled)
                    .with_light_points(light);
                chart.with_y(y)
            }
        }
    }
}

/// Draws `layers` on `chart`: each series' line, point markers and
/// saturation line, then the marked points as red crosses, then the legend
/// (unless there is a single series with an empty label and no marked
/// point) in the corner hiding the least data. Returns whether any point
/// was drawn.
pub(crate) fn draw_layers<'a, DB, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    layers: &[Layer],
    axis: &YAxis,
) -> DrawResult<bool>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64>,
{
    for layer in layers {
        draw_layer(chart, layer, axis)?;
    }
    let marked: Vec<(f64, f64)> = layers
        .iter()
        .flat_map(|layer| drawable(&layer.series.points, axis))
        .filter(|p| p.marked)
        .map(xy)
        .collect();
    if !marked.is_empty() {
        let style = MARKED.stroke_width(2);
        chart
            .draw_series(marked.iter().map(|&p| Cross::new(p, CROSS_SIZE, style)))?
            .label(MARKED_LABEL)
            .legend(move |c| Cross::new(c, CROSS_SIZE, style));
    }
    let labelled = layers.iter().any(|layer| !layer.series.label.is_empty());
    if layers.len() > 1 || labelled || !marked.is_empty() {
        let mut labels: Vec<String> = layers.iter().map(|l| legend_label(l.series)).collect();
        if !marked.is_empty() {
            labels.push(MARKED_LABEL.into());
        }
        let position = legend_position(chart, layers, axis, &labels)?;
        chart
            .configure_series_labels()
            .position(position)
            .label_font(font(LEGEND_FONT))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .draw()?;
    }
    Ok(layers
        .iter()
        .any(|layer| drawable(&layer.series.points, axis).next().is_some()))
}

/// Draws one series: line, unmarked points (if it has markers) and
/// saturation line.
fn draw_layer<DB, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    layer: &Layer,
    axis: &YAxis,
) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64>,
{
    let Layer {
        series,
        colour,
        markers,
    } = *layer;
    let style = colour.stroke_width(2);
    chart
        .draw_series(LineSeries::new(
            drawable(&series.points, axis).map(xy),
            style,
        ))?
        .label(legend_label(series))
        .legend(move |(x, y)| PathElement::new([(x - 12, y), (x + 12, y)], style));
    if markers {
        chart.draw_series(
            drawable(&series.points, axis)
                .filter(|p| !p.marked)
                .map(|p| Circle::new(xy(p), MARKER_RADIUS, colour.filled())),
        )?;
    }
    if let Some(x) = saturation(series) {
        let y = chart.y_range();
        chart.draw_series(DashedLineSeries::new(
            [(x, y.start), (x, y.end)],
            8,
            6,
            style,
        ))?;
    }
    Ok(())
}

/// The legend text of a series.
fn legend_label(series: &Series) -> String {
    match saturation(series) {
        Some(x) => format!("{} (saturation ≈ {})", series.label, short_number(x)),
        None => series.label.clone(),
    }
}

/// `x` with three decimals below 1 (0.420), else three significant digits
/// (4.20, 42.0, 420, 4200).
fn short_number(x: f64) -> String {
    let magnitude = x.abs().log10().floor();
    let decimals = if x == 0.0 || magnitude >= -3.0 {
        (2.0 - magnitude).clamp(0.0, 3.0)
    } else {
        2.0 - magnitude
    };
    format!("{x:.*}", decimals as usize)
}

/// The corner of the plotting area where a legend of `labels` covers the
/// fewest samples of the drawn lines, points and saturation lines; the
/// first of [`LEGEND_CORNERS`] on a tie.
fn legend_position<DB, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    layers: &[Layer],
    axis: &YAxis,
    labels: &[String],
) -> DrawResult<SeriesLabelPosition>
where
    DB: DrawingBackend,
    Y: Ranged<ValueType = f64>,
{
    let mut text = MultiLineText::<BackendCoord, &str>::new((0, 0), font(LEGEND_FONT));
    for label in labels {
        text.push_line(label.as_str());
    }
    let (width, height) = text.estimate_dimension()?;
    let (width, height) = (
        width + LEGEND_SAMPLE + 2 * LEGEND_MARGIN,
        height + 2 * LEGEND_MARGIN,
    );
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let samples = trace(chart, layers, axis);
    let covered = |position: &SeriesLabelPosition| {
        let left = match position {
            SeriesLabelPosition::UpperLeft | SeriesLabelPosition::LowerLeft => {
                xs.start + LEGEND_OFFSET
            }
            _ => xs.end - width - LEGEND_OFFSET,
        };
        let top = match position {
            SeriesLabelPosition::UpperLeft | SeriesLabelPosition::UpperRight => {
                ys.start + LEGEND_OFFSET
            }
            _ => ys.end - height - LEGEND_OFFSET,
        };
        let pad = CROSS_SIZE;
        let x = left - pad..left + width + pad;
        let y = top - pad..top + height + pad;
        samples
            .iter()
            .filter(|(px, py)| x.contains(px) && y.contains(py))
            .count()
    };
    let best = LEGEND_CORNERS.iter().min_by_key(|p| covered(p));
    Ok(best.cloned().unwrap_or(SeriesLabelPosition::UpperLeft))
}

/// Pixels along everything `layers` draw, a few pixels apart.
fn trace<DB, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    layers: &[Layer],
    axis: &YAxis,
) -> Vec<BackendCoord>
where
    DB: DrawingBackend,
    Y: Ranged<ValueType = f64>,
{
    let mut samples = Vec::new();
    let y = chart.y_range();
    for layer in layers {
        let pixels: Vec<BackendCoord> = drawable(&layer.series.points, axis)
            .map(|p| chart.backend_coord(&xy(p)))
            .collect();
        samples.extend(pixels.first());
        for pair in pixels.windows(2) {
            interpolate(pair[0], pair[1], &mut samples);
        }
        if let Some(x) = saturation(layer.series) {
            let top = chart.backend_coord(&(x, y.end));
            samples.push(top);
            interpolate(top, chart.backend_coord(&(x, y.start)), &mut samples);
        }
    }
    samples
}

/// Appends points from `a` (excluded) to `b` (included), 3 pixels apart.
fn interpolate(a: BackendCoord, b: BackendCoord, samples: &mut Vec<BackendCoord>) {
    let (dx, dy) = (
        i64::from(b.0) - i64::from(a.0),
        i64::from(b.1) - i64::from(a.1),
    );
    let steps = (dx.abs().max(dy.abs()) / 3).clamp(1, 2000);
    samples.extend((1..=steps).map(|i| {
        let at = |from: i32, delta: i64| (i64::from(from) + delta * i / steps) as i32;
        (at(a.0, dx), at(a.1, dy))
    }));
}

/// The values m·10^k within `range`, for the mantissas m.
fn decade_ticks(range: &Range<f64>, mantissas: &[f64]) -> Vec<f64> {
    let exponents = range.start.log10().floor() as i32..=range.end.log10().ceil() as i32;
    exponents
        .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|v| range.contains(v))
        .collect()
}

fn xy(p: &Point) -> (f64, f64) {
    (p.x, p.y)
}

/// Larger magnitudes are skipped like non-finite values: axis ranges with
/// headroom around them would overflow (and plotters then never finishes).
const MAX_MAGNITUDE: f64 = 1e300;

/// Smaller values are skipped on a logarithmic axis (like non-positive ones).
const MIN_LOG: f64 = 1.0 / MAX_MAGNITUDE;

/// Whether `v` can be plotted: finite and not absurdly large.
fn plottable(v: f64) -> bool {
    v.abs() <= MAX_MAGNITUDE
}

/// The points with plottable coordinates.
fn finite(points: &[Point]) -> impl Iterator<Item = &Point> + Clone {
    points.iter().filter(|p| plottable(p.x) && plottable(p.y))
}

/// The points that can be drawn on `axis`.
pub(crate) fn drawable<'a>(
    points: &'a [Point],
    axis: &'a YAxis,
) -> impl Iterator<Item = &'a Point> + Clone {
    finite(points).filter(|p| axis.shows(p.y))
}

/// The series' saturation throughput, if given and plottable.
fn saturation(series: &Series) -> Option<f64> {
    series.saturation.filter(|&x| plottable(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decade_ticks_lists_mantissas_within_range() {
        let ticks = decade_ticks(&(16.0..2500.0), &[1.0, 2.0, 5.0]);
        assert_eq!(ticks, [20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0]);
    }

    #[test]
    fn auto_scale_is_log_beyond_ratio_20_of_positive_values() {
        let axis = |values: &[f64]| YAxis::new(YScale::Auto, values.iter().copied());
        assert_eq!(axis(&[10.0, 300.0]), YAxis::Log(8.0..375.0));
        assert!(matches!(axis(&[10.0, 200.0]), YAxis::Linear(_)));
        assert!(matches!(axis(&[0.0, 10.0, 300.0]), YAxis::Linear(_)));
        assert!(matches!(axis(&[]), YAxis::Linear(_)));
    }

    #[test]
    fn log_scale_skips_non_positive_values_and_keeps_two_ticks() {
        let axis = YAxis::new(YScale::Log, [-1.0, 0.0, 10.0, 1000.0].into_iter());
        assert_eq!(axis, YAxis::Log(8.0..1250.0));
        assert!(!axis.shows(0.0) && axis.shows(1e-9) && !axis.shows(1e-310));
        // A single value is widened to whole decades.
        assert_eq!(
            YAxis::new(YScale::Log, [30.0].into_iter()),
            YAxis::Log(10.0..100.0)
        );
        assert_eq!(
            YAxis::new(YScale::Log, [5.0].into_iter()),
            YAxis::Log(1.0..10.0)
        );
        // Nothing positive: an arbitrary decade.
        assert_eq!(
            YAxis::new(YScale::Log, [0.0].into_iter()),
            YAxis::Log(0.8..12.5)
        );
    }

    #[test]
    fn short_numbers_keep_three_significant_digits() {
        let cases = [
            (0.42, "0.420"),
            (0.05, "0.050"),
            (4.2, "4.20"),
            (420.0, "420"),
            (12345.0, "12345"),
            (0.0, "0.000"),
            (-0.25, "-0.250"),
            (0.00012, "0.000120"),
        ];
        for (x, text) in cases {
            assert_eq!(short_number(x), text, "{x}");
        }
    }

    #[test]
    fn interpolation_reaches_the_end_in_small_steps() {
        let mut samples = Vec::new();
        interpolate((0, 0), (10, -4), &mut samples);
        assert_eq!(samples.len(), 3);
        assert_eq!(samples.last(), Some(&(10, -4)));
        samples.clear();
        interpolate((5, 5), (5, 5), &mut samples);
        assert_eq!(samples, [(5, 5)]);
    }
}
