//! Cumulative distribution of packet latency.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::{
    DataWriter, DrawResult, Figure, cell, no_data, range_from_zero, titled_with_note, xy_chart,
};

const X_DESC: &str = "packet latency (cycles)";
const Y_DESC: &str = "fraction of packets";
const COLOUR: RGBColor = RGBColor(0, 114, 178);

/// The latency CDF figure.
pub(crate) struct Cdf<'a> {
    pub title: &'a str,
    pub cdf: &'a [(u64, f64)],
    /// A line under the title.
    pub note: Option<&'a str>,
}

impl Cdf<'_> {
    /// The points drawn: finite fractions (clamped to 0..=1), by latency.
    fn points(&self) -> Vec<(u64, f64)> {
        let mut points: Vec<(u64, f64)> = self
            .cdf
            .iter()
            .filter(|(_, fraction)| fraction.is_finite())
            .map(|&(latency, fraction)| (latency, fraction.clamp(0.0, 1.0)))
            .collect();
        points.sort_by_key(|p| p.0);
        points
    }
}

impl Figure for Cdf<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled_with_note(root, self.title, self.note)?;
        let points: Vec<(f64, f64)> = self
            .points()
            .into_iter()
            .map(|(latency, fraction)| (latency as f64, fraction))
            .collect();
        let x = range_from_zero(points.iter().map(|p| p.0));
        let mut chart = xy_chart(&area, x, 0.0..1.0, X_DESC, Y_DESC)?;
        if points.is_empty() {
            return no_data(&area);
        }
        chart.draw_series(LineSeries::new(staircase(&points), COLOUR.stroke_width(2)))?;
        Ok(())
    }

    fn write_data(&self, out: &mut DataWriter) -> csv::Result<()> {
        out.write_record(["latency_cycles", "cumulative_fraction"])?;
        for (latency, fraction) in self.points() {
            out.write_record([latency.to_string(), cell(Some(fraction))])?;
        }
        Ok(())
    }
}

/// The corners of the step function through `points`, starting from zero.
fn staircase(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut previous = 0.0;
    points
        .iter()
        .flat_map(|&(x, y)| {
            let step = [(x, previous), (x, y)];
            previous = y;
            step
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staircase_rises_vertically_at_each_latency() {
        let steps = staircase(&[(10.0, 0.5), (20.0, 1.0)]);
        assert_eq!(steps, [(10.0, 0.0), (10.0, 0.5), (20.0, 0.5), (20.0, 1.0)]);
    }
}
