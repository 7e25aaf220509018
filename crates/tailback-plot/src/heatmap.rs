//! One value per node of a 2-D grid, as coloured square cells.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::{
    DataWriter, DrawResult, Figure, cell, font, min_max, no_data, tick_label, titled,
};

/// Width of the colour bar strip, including its labels.
const BAR_STRIP: u32 = 140;
/// Width of the colour bar's tick labels and description.
const BAR_LABEL_AREA: u32 = 80;
const MARGIN: u32 = 15;
const X_LABEL_AREA: u32 = 50;
const Y_LABEL_AREA: u32 = 55;
/// At most this many tick labels per grid axis.
const MAX_TICKS: usize = 16;
/// Number of colour steps in the colour bar.
const BAR_STEPS: u32 = 128;
/// Colour of cells without a finite value.
const MISSING: RGBColor = RGBColor(200, 200, 200);
/// Samples of the viridis colour map at equal steps.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 45, 123),
    (59, 82, 139),
    (44, 114, 142),
    (33, 145, 140),
    (40, 174, 128),
    (94, 201, 98),
    (173, 220, 48),
    (253, 231, 37),
];

/// The node heat map figure.
pub(crate) struct Heatmap<'a> {
    pub title: &'a str,
    pub width: usize,
    pub height: usize,
    pub values: &'a [f64],
    pub value_label: &'a str,
    /// Fixed colour scale bounds (otherwise those of the finite values).
    pub range: Option<(f64, f64)>,
    /// Axis descriptions (x, y).
    pub axes: (&'a str, &'a str),
    /// Header of the data file: the columns of x, y and the value.
    pub columns: [&'a str; 3],
    /// Square cells (a spatial grid) or cells stretched to fill the area (a time line).
    pub square: bool,
}

impl Figure for Heatmap<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled(root, self.title)?;
        let (grid_area, bar_area) =
            area.split_horizontally(area.dim_in_pixel().0.saturating_sub(BAR_STRIP));
        let finite = min_max(self.values.iter().copied().filter(|v| v.is_finite()));
        let scale = finite.and(self.range).or(finite).map(ColourScale::new);
        self.draw_grid(&grid_area, scale)?;
        match scale {
            Some(scale) => draw_colour_bar(&bar_area, scale, self.value_label),
            None => no_data(&grid_area),
        }
    }

    fn write_data(&self, out: &mut DataWriter) -> csv::Result<()> {
        out.write_record(self.columns)?;
        for (i, &value) in self.values.iter().enumerate() {
            let (x, y) = (i % self.width, i / self.width);
            let value = cell(Some(value).filter(|v| v.is_finite()));
            out.write_record([x.to_string(), y.to_string(), value])?;
        }
        Ok(())
    }
}

impl Heatmap<'_> {
    /// Columns and rows of the drawn grid (at least one each).
    fn cells(&self) -> (f64, f64) {
        (self.width.max(1) as f64, self.height.max(1) as f64)
    }

    /// Extra horizontal and vertical margins that make the cells square.
    fn square_padding(&self, (width, height): (u32, u32)) -> (u32, u32) {
        if !self.square {
            return (0, 0);
        }
        let free_x = f64::from(width.saturating_sub(Y_LABEL_AREA + 2 * MARGIN));
        let free_y = f64::from(height.saturating_sub(X_LABEL_AREA + 2 * MARGIN));
        let (cols, rows) = self.cells();
        let cell = (free_x / cols).min(free_y / rows);
        let pad = |free: f64, n: f64| ((free - cell * n) / 2.0) as u32;
        (pad(free_x, cols), pad(free_y, rows))
    }

    fn draw_grid<DB>(&self, area: &DrawingArea<DB, Shift>, scale: Option<ColourScale>) -> DrawResult
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let (cols, rows) = self.cells();
        let (pad_x, pad_y) = self.square_padding(area.dim_in_pixel());
        let mut chart = ChartBuilder::on(area)
            .margin_left(MARGIN + pad_x)
            .margin_right(MARGIN + pad_x)
            .margin_top(MARGIN + pad_y)
            .margin_bottom(MARGIN + pad_y)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(-0.5..cols - 0.5, -0.5..rows - 0.5)?;
        let integer = |v: &f64| format!("{v:.0}");
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(self.axes.0)
            .y_desc(self.axes.1)
            .x_labels(self.width.clamp(1, MAX_TICKS))
            .y_labels(self.height.clamp(1, MAX_TICKS))
            .x_label_formatter(&integer)
            .y_label_formatter(&integer)
            .label_style(font(15))
            .axis_desc_style(font(18))
            .draw()?;
        chart.draw_series(self.values.iter().enumerate().map(|(i, &value)| {
            let (x, y) = ((i % self.width) as f64, (i / self.width) as f64);
            let colour = match scale {
                Some(scale) if value.is_finite() => scale.colour(value),
                _ => MISSING,
            };
            Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], colour.filled())
        }))?;
        Ok(())
    }
}

/// A vertical colour bar over the full height of `area`, with value ticks
/// on the right, titled `label`.
fn draw_colour_bar<DB>(area: &DrawingArea<DB, Shift>, scale: ColourScale, label: &str) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .margin_left(10)
        .margin_right(MARGIN)
        .margin_top(MARGIN)
        .margin_bottom(MARGIN + X_LABEL_AREA)
        .set_label_area_size(LabelAreaPosition::Right, BAR_LABEL_AREA)
        .build_cartesian_2d(0.0..1.0, scale.lo..scale.hi)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .set_tick_mark_size(LabelAreaPosition::Right, 5)
        .y_label_formatter(&tick_label)
        .y_desc(label)
        .label_style(font(15))
        .axis_desc_style(font(18))
        .draw()?;
    let step = (scale.hi - scale.lo) / f64::from(BAR_STEPS);
    chart.draw_series((0..BAR_STEPS).map(|i| {
        let bottom = scale.lo + step * f64::from(i);
        let colour = scale.colour(bottom + step / 2.0);
        Rectangle::new([(0.0, bottom), (1.0, bottom + step)], colour.filled())
    }))?;
    Ok(())
}

/// Maps values linearly onto the viridis colour map.
#[derive(Debug, Clone, Copy)]
struct ColourScale {
    lo: f64,
    hi: f64,
}

impl ColourScale {
    /// A scale from `lo` to `hi`; equal bounds are widened so that the single
    /// value maps to the middle colour, and bounds so far apart that their
    /// distance overflows are narrowed to keep it finite.
    fn new((lo, hi): (f64, f64)) -> Self {
        let (lo, hi) = (lo.max(-f64::MAX / 4.0), hi.min(f64::MAX / 4.0));
        if hi > lo {
            return Self { lo, hi };
        }
        let pad = if lo == 0.0 { 0.5 } else { lo.abs() / 10.0 };
        Self {
            lo: lo - pad,
            hi: hi + pad,
        }
    }

    fn colour(self, value: f64) -> RGBColor {
        let t = ((value - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        let position = t * (VIRIDIS.len() - 1) as f64;
        let i = (position as usize).min(VIRIDIS.len() - 2);
        let f = position - i as f64;
        let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
        RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_scale_spans_viridis() {
        let scale = ColourScale::new((2.0, 4.0));
        assert_eq!(scale.colour(2.0), RGBColor(68, 1, 84));
        assert_eq!(scale.colour(3.0), RGBColor(33, 145, 140));
        assert_eq!(scale.colour(4.0), RGBColor(253, 231, 37));
        assert_eq!(scale.colour(9.0), scale.colour(4.0));
    }

    #[test]
    fn extreme_bounds_keep_a_finite_span() {
        let scale = ColourScale::new((-f64::MAX, f64::MAX));
        assert!((scale.hi - scale.lo).is_finite());
        assert_eq!(scale.colour(f64::MAX), RGBColor(253, 231, 37));
        assert_eq!(scale.colour(-f64::MAX), RGBColor(68, 1, 84));
    }

    #[test]
    fn single_value_maps_to_middle_colour() {
        for value in [0.0, -3.0, 1e-9] {
            let scale = ColourScale::new((value, value));
            assert_eq!(scale.colour(value), RGBColor(33, 145, 140));
        }
    }
}
