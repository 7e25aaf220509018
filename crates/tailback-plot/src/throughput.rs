//! Mean packet latency against accepted throughput, one curve per series.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::figure::{
    DrawResult, Figure, font, min_max, no_data, range_from_zero, titled, xy_chart,
};
use crate::{Point, Series};

const X_DESC: &str = "accepted throughput (flits/node/cycle)";
const Y_DESC: &str = "mean packet latency (cycles)";
/// Above this ratio of largest to smallest latency the y axis is logarithmic.
const LOG_RATIO: f64 = 20.0;
/// Series colours (colour-blind friendly); red is kept for marked points.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(140, 86, 75),
];
const MARKED: RGBColor = RGBColor(220, 0, 0);

/// The latency-throughput figure.
pub(crate) struct Throughput<'a> {
    pub title: &'a str,
    pub series: &'a [Series],
}

impl Figure for Throughput<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled(root, self.title)?;
        let x = range_from_zero(
            self.points()
                .map(|p| p.x)
                .chain(self.series.iter().filter_map(saturation)),
        );
        let latencies = || self.points().map(|p| p.y);
        match min_max(latencies()) {
            Some((lo, hi)) if lo > 0.0 && hi / lo > LOG_RATIO => {
                let y = lo / 1.25..hi * 1.25;
                let bold: &[f64] = if y.end / y.start > 1e4 {
                    &[1.0]
                } else {
                    &[1.0, 2.0, 5.0]
                };
                let ticks = decade_ticks(&y, bold);
                let light = decade_ticks(&y, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
                let y = y
                    .log_scale()
                    .with_key_points(ticks)
                    .with_light_points(light);
                self.draw_chart(&area, x, y)
            }
            _ => self.draw_chart(&area, x, range_from_zero(latencies())),
        }
    }
}

impl Throughput<'_> {
    /// All drawable points of all series.
    fn points(&self) -> impl Iterator<Item = &Point> {
        self.series.iter().flat_map(|s| finite(&s.points))
    }

    fn draw_chart<DB, Y>(&self, area: &DrawingArea<DB, Shift>, x: Range<f64>, y: Y) -> DrawResult
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = xy_chart(area, x, y, X_DESC, Y_DESC)?;
        for (series, &colour) in self.series.iter().zip(PALETTE.iter().cycle()) {
            draw_series(&mut chart, series, colour)?;
        }
        let mut marked = self.points().filter(|p| p.marked).peekable();
        if marked.peek().is_some() {
            let style = MARKED.stroke_width(2);
            chart
                .draw_series(marked.map(|p| Cross::new((p.x, p.y), 6, style)))?
                .label("saturated run")
                .legend(move |c| Cross::new(c, 6, style));
        }
        if !self.series.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(font(15))
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(160, 160, 160))
                .draw()?;
        }
        if self.points().next().is_none() {
            no_data(area)?;
        }
        Ok(())
    }
}

/// Draws one series: line, unmarked points and saturation line.
fn draw_series<DB, Y>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, Y>>,
    series: &Series,
    colour: RGBColor,
) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64>,
{
    let style = colour.stroke_width(2);
    let xy = |p: &Point| (p.x, p.y);
    let label = match saturation(series) {
        Some(x) => format!("{} (saturation ≈ {x:.3})", series.label),
        None => series.label.clone(),
    };
    chart
        .draw_series(LineSeries::new(finite(&series.points).map(xy), style))?
        .label(label)
        .legend(move |(x, y)| PathElement::new([(x - 12, y), (x + 12, y)], style));
    chart.draw_series(
        finite(&series.points)
            .filter(|p| !p.marked)
            .map(|p| Circle::new(xy(p), 4, colour.filled())),
    )?;
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

/// The values m·10^k within `range`, for the mantissas m.
fn decade_ticks(range: &Range<f64>, mantissas: &[f64]) -> Vec<f64> {
    let exponents = range.start.log10().floor() as i32..=range.end.log10().ceil() as i32;
    exponents
        .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|v| range.contains(v))
        .collect()
}

/// The points with finite coordinates.
fn finite(points: &[Point]) -> impl Iterator<Item = &Point> {
    points.iter().filter(|p| p.x.is_finite() && p.y.is_finite())
}

/// The series' saturation throughput, if given and finite.
fn saturation(series: &Series) -> Option<f64> {
    series.saturation.filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decade_ticks_lists_mantissas_within_range() {
        let ticks = decade_ticks(&(16.0..2500.0), &[1.0, 2.0, 5.0]);
        assert_eq!(ticks, [20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0]);
    }
}
