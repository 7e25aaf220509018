//! Line charts: the drawing shared by every chart of [`Series`] (lines,
//! markers, error bars, saturation lines, past-saturation points, all cut
//! to the plotting area), y-axis scaling, legend placement, the data file,
//! and the single-chart figure behind `lines` and its fixed-axis variants.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::figure::{
    DataWriter, DrawResult, Figure, cell, min_max, no_data, range_from_zero, titled, xy_chart,
};
use crate::geometry::{Px, Rect};
use crate::style::{
    Canvas, Dash, Entry, LINE_WIDTH, Legend, PAST_SATURATION, SOLID, Sample, Style, style,
};
use crate::{Point, Series, YScale};

/// [`YScale::Auto`]: above this ratio of largest to smallest value the y
/// axis is logarithmic.
const LOG_RATIO: f64 = 20.0;
/// Dash pattern of saturation lines.
const SATURATION_DASH: Dash = &[8.0, 6.0];
/// Colour and legend text of the ideal line of `accepted_offered`.
const IDEAL: RGBColor = RGBColor(150, 150, 150);
const IDEAL_LABEL: &str = "accepted = offered";
/// Half the width of an error bar's caps, in pixels.
const CAP: f64 = 3.0;
/// Distance of a legend from the plotting area's edges.
const LEGEND_OFFSET: i32 = 5;
/// Corners tried for the legend, in order of preference.
const LEGEND_CORNERS: [Corner; 4] = [
    Corner::UpperLeft,
    Corner::UpperRight,
    Corner::LowerRight,
    Corner::LowerLeft,
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
    /// Draw the line y = x ("accepted = offered"), covered by the y axis.
    pub ideal: bool,
}

impl Lines<'_> {
    fn x_range(&self) -> Range<f64> {
        range_from_zero(x_values(self.series))
    }

    fn axis(&self) -> YAxis {
        let (centres, mut ends) = y_values(self.series);
        if self.ideal {
            ends.push(self.x_range().end);
        }
        YAxis::new(self.scale, &centres, &ends)
    }
}

impl Figure for Lines<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled(root, self.title)?;
        let axis = self.axis();
        let layers: Vec<Layer> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, series)| Layer {
                series,
                style: style(i),
                markers: true,
            })
            .collect();
        let chart = LinesChart {
            figure: self,
            area: &area,
            x: self.x_range(),
            layers: &layers,
            axis: &axis,
        };
        axis.apply(chart, CHART_TICKS)
    }

    fn write_data(&self, out: &mut DataWriter) -> csv::Result<()> {
        write_series(out, self.series, &self.axis())
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
        let chart = xy_chart(self.area, self.x.clone(), y, x_desc, y_desc)?;
        let canvas = Canvas::new(chart.plotting_area().strip_coord_spec());
        let frame = Frame::new(canvas.area.dim_in_pixel(), self.x, self.axis.clone());
        let mut drawn = Drawn::traced();
        if self.figure.ideal {
            let (start, end) = (frame.x.start, frame.x.end);
            let line = [frame.px(start, start), frame.px(end, end)];
            drawn.trace(&canvas.polyline(&line, IDEAL, 1, SOLID)?);
        }
        draw_layers(&canvas, &frame, self.layers, &mut drawn)?;
        if !drawn.points {
            no_data(self.area)?;
        }
        let mut entries = legend_entries(self.layers, drawn.marked);
        if self.figure.ideal {
            entries.push(Entry {
                label: IDEAL_LABEL.into(),
                sample: Sample::Thin(IDEAL),
            });
        }
        let legend = Legend::new(entries, None);
        if !legend.is_empty() {
            let at = legend_position(&canvas.clip, legend.size(), &drawn.samples);
            legend.draw(&canvas.area, at)?;
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

/// The y values a chart of `series` must cover: the finite points' (which
/// decide whether [`YScale::Auto`] is logarithmic), and the ends of their
/// error bars.
pub(crate) fn y_values(series: &[Series]) -> (Vec<f64>, Vec<f64>) {
    let points = || series.iter().flat_map(|s| finite(&s.points));
    let centres = points().map(|p| p.y).collect();
    let ends = points()
        .filter_map(|p| error(p).map(|e| [p.y - e, p.y + e]))
        .flatten()
        .collect();
    (centres, ends)
}

/// A series as drawn: its style and whether its points get markers.
pub(crate) struct Layer<'a> {
    pub series: &'a Series,
    pub style: Style,
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
    /// The axis showing the points at heights `centres` and the error bar
    /// ends `ends` (all finite), scaled as `scale` says: whether
    /// [`YScale::Auto`] is logarithmic depends on `centres` only, and a
    /// logarithmic axis leaves out values that are not positive.
    pub(crate) fn new(scale: YScale, centres: &[f64], ends: &[f64]) -> Self {
        let log = match scale {
            YScale::Linear => false,
            YScale::Log => true,
            YScale::Auto => {
                matches!(min_max(centres.iter().copied()), Some((lo, hi)) if lo > 0.0 && hi / lo > LOG_RATIO)
            }
        };
        let values = centres.iter().chain(ends).copied();
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

    /// Where `y` lies on the axis, from 0 at its start to 1 at its end.
    fn fraction(&self, y: f64) -> f64 {
        match self {
            Self::Linear(range) => (y - range.start) / (range.end - range.start),
            Self::Log(range) => (y.ln() - range.start.ln()) / (range.end.ln() - range.start.ln()),
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

/// Maps data to pixels of a plotting area (as plotters does: the ends of
/// the ranges on its first and last pixel).
pub(crate) struct Frame {
    width: f64,
    height: f64,
    x: Range<f64>,
    y: YAxis,
}

impl Frame {
    /// The frame of a plotting area of `(width, height)` pixels.
    pub(crate) fn new((width, height): (u32, u32), x: Range<f64>, y: YAxis) -> Self {
        Self {
            width: f64::from(width.max(1) - 1),
            height: f64::from(height.max(1) - 1),
            x,
            y,
        }
    }

    /// The pixel of the data point `(x, y)`.
    pub(crate) fn px(&self, x: f64, y: f64) -> Px {
        let fx = (x - self.x.start) / (self.x.end - self.x.start);
        (fx * self.width, (1.0 - self.y.fraction(y)) * self.height)
    }
}

/// What drawing series produced: whether any point was drawn, whether any
/// of them was past saturation, and (when traced) pixels along everything
/// drawn, a few pixels apart.
pub(crate) struct Drawn {
    pub points: bool,
    pub marked: bool,
    samples: Vec<BackendCoord>,
    traced: bool,
}

impl Drawn {
    /// Records what is drawn, without tracing it.
    pub(crate) fn untraced() -> Self {
        Self {
            points: false,
            marked: false,
            samples: Vec::new(),
            traced: false,
        }
    }

    /// Records what is drawn, tracing it (for placing a legend).
    fn traced() -> Self {
        Self {
            traced: true,
            ..Self::untraced()
        }
    }

    fn trace(&mut self, pieces: &[Vec<Px>]) {
        if !self.traced {
            return;
        }
        for piece in pieces {
            let pixels: Vec<BackendCoord> = piece.iter().map(|&p| coord(p)).collect();
            self.samples.extend(pixels.first());
            for pair in pixels.windows(2) {
                interpolate(pair[0], pair[1], &mut self.samples);
            }
        }
    }

    fn point(&mut self, at: Px) {
        if self.traced {
            self.samples.push(coord(at));
        }
    }
}

/// The backend pixel nearest to `p`.
fn coord((x, y): Px) -> BackendCoord {
    (x.round() as i32, y.round() as i32)
}

/// Draws `layers` on `canvas` through `frame`: first the saturation lines,
/// then each series in turn (error bars, line, markers), later series over
/// earlier ones.
pub(crate) fn draw_layers<DB: DrawingBackend>(
    canvas: &Canvas<DB>,
    frame: &Frame,
    layers: &[Layer],
    drawn: &mut Drawn,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    for layer in layers {
        if let Some(x) = saturation(layer.series) {
            let (px, _) = frame.px(x, 0.0);
            let line = [(px, canvas.clip.top), (px, canvas.clip.bottom)];
            drawn.trace(&canvas.polyline(&line, layer.style.colour, 1, SATURATION_DASH)?);
        }
    }
    for layer in layers {
        draw_layer(canvas, frame, layer, drawn)?;
    }
    Ok(())
}

/// Draws one series: error bars, then the line (dashed as the series' style
/// says, and into past-saturation points dashed alike for all series), then
/// markers: filled ones on ordinary points if the layer has markers, hollow
/// ones on past-saturation points always.
fn draw_layer<DB: DrawingBackend>(
    canvas: &Canvas<DB>,
    frame: &Frame,
    layer: &Layer,
    drawn: &mut Drawn,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let Layer {
        series,
        style,
        markers,
    } = *layer;
    let colour = style.colour;
    let points: Vec<&Point> = drawable(&series.points, &frame.y).collect();
    let pixels: Vec<Px> = points.iter().map(|p| frame.px(p.x, p.y)).collect();
    drawn.points |= !points.is_empty();

    for (p, &at) in points.iter().zip(&pixels) {
        let Some(e) = error(p) else {
            continue;
        };
        let top = frame.px(p.x, p.y + e);
        let bottom = frame.y.shows(p.y - e).then(|| frame.px(p.x, p.y - e));
        drawn.trace(&canvas.polyline(&[bottom.unwrap_or(at), top], colour, 1, SOLID)?);
        for (x, y) in [Some(top), bottom].into_iter().flatten() {
            canvas.polyline(&[(x - CAP, y), (x + CAP, y)], colour, 1, SOLID)?;
        }
    }

    // Runs of segments of one kind: a segment is past saturation if the
    // point it leads to is.
    let mut start = 0;
    while start + 1 < points.len() {
        let past = points[start + 1].marked;
        let mut end = start + 1;
        while end + 1 < points.len() && points[end + 1].marked == past {
            end += 1;
        }
        let dash = if past { PAST_SATURATION } else { style.dash };
        let run = &pixels[start..=end];
        drawn.trace(&canvas.polyline(run, colour, LINE_WIDTH, dash)?);
        start = end;
    }

    for (p, &at) in points.iter().zip(&pixels) {
        if p.marked {
            canvas.marker(style.marker, at, colour, true)?;
            drawn.marked = true;
        } else if markers {
            canvas.marker(style.marker, at, colour, false)?;
        } else {
            continue;
        }
        drawn.point(at);
    }
    Ok(())
}

/// The legend entries of `layers`: one per labelled series, then one for
/// the past-saturation points if any were drawn.
fn legend_entries(layers: &[Layer], marked: bool) -> Vec<Entry> {
    let mut entries: Vec<Entry> = layers
        .iter()
        .filter(|layer| !layer.series.label.is_empty())
        .map(|layer| Entry {
            label: legend_label(layer.series),
            sample: Sample::Series {
                style: layer.style,
                marker: layer.markers,
            },
        })
        .collect();
    if marked {
        entries.push(past_saturation_entry());
    }
    entries
}

/// The legend entry of past-saturation points.
pub(crate) fn past_saturation_entry() -> Entry {
    Entry {
        label: crate::style::PAST_SATURATION_LABEL.into(),
        sample: Sample::PastSaturation,
    }
}

/// The legend text of a series.
pub(crate) fn legend_label(series: &Series) -> String {
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

/// A corner of the plotting area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Corner {
    UpperLeft,
    UpperRight,
    LowerRight,
    LowerLeft,
}

/// The top left corner of a legend of `(width, height)` in the corner of
/// `area` where it covers the fewest of `samples`; the first of
/// [`LEGEND_CORNERS`] on a tie.
fn legend_position(
    area: &Rect,
    (width, height): (i32, i32),
    samples: &[BackendCoord],
) -> BackendCoord {
    let at = |corner: Corner| {
        let left = match corner {
            Corner::UpperLeft | Corner::LowerLeft => area.left as i32 + LEGEND_OFFSET,
            _ => area.right as i32 - width - LEGEND_OFFSET,
        };
        let top = match corner {
            Corner::UpperLeft | Corner::UpperRight => area.top as i32 + LEGEND_OFFSET,
            _ => area.bottom as i32 - height - LEGEND_OFFSET,
        };
        (left, top)
    };
    let covered = |corner: &Corner| {
        let (left, top) = at(*corner);
        let pad = 6;
        let x = left - pad..left + width + pad;
        let y = top - pad..top + height + pad;
        samples
            .iter()
            .filter(|(px, py)| x.contains(px) && y.contains(py))
            .count()
    };
    let best = LEGEND_CORNERS.iter().min_by_key(|c| covered(c));
    at(best.copied().unwrap_or(Corner::UpperLeft))
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

/// Writes the drawn points of `series` on `axis`: a row per point with the
/// columns `series,x,y,error,marked,saturation`.
fn write_series(out: &mut DataWriter, series: &[Series], axis: &YAxis) -> csv::Result<()> {
    out.write_record(["series", "x", "y", "error", "marked", "saturation"])?;
    for s in series {
        let saturation = cell(saturation(s));
        for p in drawable(&s.points, axis) {
            let [x, y, e] = [Some(p.x), Some(p.y), error(p)].map(cell);
            out.write_record([&s.label, &x, &y, &e, &p.marked.to_string(), &saturation])?;
        }
    }
    Ok(())
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
pub(crate) fn finite(points: &[Point]) -> impl Iterator<Item = &Point> + Clone {
    points.iter().filter(|p| plottable(p.x) && plottable(p.y))
}

/// The points that can be drawn on `axis`.
pub(crate) fn drawable<'a>(
    points: &'a [Point],
    axis: &'a YAxis,
) -> impl Iterator<Item = &'a Point> + Clone {
    finite(points).filter(|p| axis.shows(p.y))
}

/// The half-width of the point's error bar, if it has one that can be drawn
/// (positive, and both ends plottable).
pub(crate) fn error(p: &Point) -> Option<f64> {
    p.error
        .filter(|&e| e > 0.0 && plottable(e) && plottable(p.y + e) && plottable(p.y - e))
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
        let axis = |values: &[f64]| YAxis::new(YScale::Auto, values, &[]);
        assert_eq!(axis(&[10.0, 300.0]), YAxis::Log(8.0..375.0));
        assert!(matches!(axis(&[10.0, 200.0]), YAxis::Linear(_)));
        assert!(matches!(axis(&[0.0, 10.0, 300.0]), YAxis::Linear(_)));
        assert!(matches!(axis(&[]), YAxis::Linear(_)));
    }

    #[test]
    fn log_scale_skips_non_positive_values_and_keeps_two_ticks() {
        let axis = YAxis::new(YScale::Log, &[-1.0, 0.0, 10.0, 1000.0], &[]);
        assert_eq!(axis, YAxis::Log(8.0..1250.0));
        assert!(!axis.shows(0.0) && axis.shows(1e-9) && !axis.shows(1e-310));
        // A single value is widened to whole decades.
        assert_eq!(
            YAxis::new(YScale::Log, &[30.0], &[]),
            YAxis::Log(10.0..100.0)
        );
        assert_eq!(YAxis::new(YScale::Log, &[5.0], &[]), YAxis::Log(1.0..10.0));
        // Nothing positive: an arbitrary decade.
        assert_eq!(YAxis::new(YScale::Log, &[0.0], &[]), YAxis::Log(0.8..12.5));
    }

    fn with_error(y: f64, error: f64) -> Series {
        Series {
            label: String::new(),
            points: vec![Point {
                x: 1.0,
                y,
                marked: false,
                error: Some(error),
            }],
            saturation: None,
        }
    }

    #[test]
    fn error_bars_widen_the_y_range() {
        let axis = |series: Series, scale| {
            let (centres, ends) = y_values(&[series]);
            YAxis::new(scale, &centres, &ends)
        };
        let YAxis::Linear(range) = axis(with_error(10.0, 5.0), YScale::Linear) else {
            panic!("linear");
        };
        assert!(range.start == 0.0 && range.end >= 15.0);
        let YAxis::Linear(range) = axis(with_error(10.0, 30.0), YScale::Linear) else {
            panic!("linear");
        };
        assert!(range.start <= -20.0 && range.end >= 40.0);
        // Logarithmic: the upper end widens the range, a lower end at or
        // below zero is left out.
        assert_eq!(axis(with_error(10.0, 990.0), YScale::Log), {
            YAxis::new(YScale::Log, &[10.0, 1000.0], &[])
        });
        assert_eq!(
            axis(with_error(100.0, 50.0), YScale::Log),
            YAxis::new(YScale::Log, &[50.0, 150.0], &[])
        );
        // Auto decides on the points alone: a wide error bar keeps it linear.
        assert!(matches!(
            axis(with_error(10.0, 990.0), YScale::Auto),
            YAxis::Linear(_)
        ));
        // Unusable errors draw nothing and widen nothing.
        for e in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            assert_eq!(y_values(&[with_error(10.0, e)]).1, Vec::<f64>::new(), "{e}");
        }
    }

    #[test]
    fn frame_maps_range_ends_to_the_first_and_last_pixels() {
        let frame = Frame::new((101, 51), 0.0..10.0, YAxis::Log(1.0..100.0));
        assert_eq!(frame.px(0.0, 1.0), (0.0, 50.0));
        assert_eq!(frame.px(10.0, 100.0), (100.0, 0.0));
        let (x, y) = frame.px(5.0, 10.0);
        assert!((x - 50.0).abs() < 1e-9 && (y - 25.0).abs() < 1e-9);
    }

    #[test]
    fn legend_goes_to_the_emptiest_corner() {
        let area = Rect {
            left: 0.0,
            top: 0.0,
            right: 400.0,
            bottom: 300.0,
        };
        let size = (100, 50);
        assert_eq!(legend_position(&area, size, &[]), (5, 5));
        let upper_left = [(20, 20), (30, 30)];
        assert_eq!(legend_position(&area, size, &upper_left), (295, 5));
        let upper = [(20, 20), (380, 20)];
        assert_eq!(legend_position(&area, size, &upper), (295, 245));
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
