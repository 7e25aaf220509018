//! Panels of line charts stacked vertically over one shared x axis.

use std::collections::HashMap;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::Panel;
use crate::figure::{DrawResult, Figure, SIZE, font, min_max, no_data, styled_mesh, titled};
use crate::lines::{
    Layer, LogTicks, PALETTE, WithY, YAxis, draw_layers, drawable, x_values, y_values,
};

/// Height of one panel, in pixels.
const PANEL_HEIGHT: u32 = 250;
/// Height added to the panels for the title and the x axis.
const EXTRA_HEIGHT: u32 = 90;
/// Margin left and right of each chart, and below the bottom one.
const MARGIN: u32 = 15;
/// Space above each chart, and below each chart but the bottom one.
const GAP_TOP: u32 = 10;
const GAP_BOTTOM: u32 = 4;
/// Height of the x axis below the bottom chart (tick labels, description).
const X_AXIS: u32 = 50;
/// Height of the x axis below the other charts (tick marks only).
const X_TICKS: u32 = 6;
/// Width of the y tick labels, left of which the description goes.
const Y_TICK_LABELS: u32 = 55;
/// Width reserved for a y description, at least.
const Y_DESC_MIN: u32 = 20;
/// Font sizes of a one-line y description, then of a two-line one.
const DESC_ONE_LINE: [u32; 4] = [18, 17, 16, 15];
const DESC_TWO_LINES: [u32; 7] = [18, 17, 16, 15, 14, 13, 12];
/// A series with more drawable points than this gets no point markers.
const MAX_MARKERS: usize = 60;
/// At most this many y tick labels on a linear axis.
const Y_TICKS: usize = 7;
/// Log-axis ticks of a panel (fewer than on a full-size chart).
const PANEL_TICKS: LogTicks = LogTicks {
    one_two_five_up_to: 200.0,
    max: 8,
};

/// The stacked-panels figure.
pub(crate) struct Panels<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub panels: &'a [Panel],
}

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        let count = u32::try_from(self.panels.len().max(1)).unwrap_or(u32::MAX);
        let height = PANEL_HEIGHT
            .saturating_mul(count)
            .saturating_add(EXTRA_HEIGHT);
        (SIZE.0, height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let area = titled(root, self.title)?;
        if self.panels.is_empty() {
            return no_data(&area);
        }
        let x = shared_x_range(self.panels);
        let colours = colours(self.panels);

        // Equal chart heights: the bottom panel is higher by its x axis and
        // the first one takes the pixels left over by the division.
        let count = self.panels.len() as u32;
        let bottom_extra = MARGIN + X_AXIS - GAP_BOTTOM - X_TICKS;
        let free = area.dim_in_pixel().1.saturating_sub(bottom_extra);
        let height = free / count;
        let leftover = free - height * count;
        let breaks: Vec<u32> = (1..count).map(|i| leftover + i * height).collect();
        let areas = area.split_by_breakpoints([] as [u32; 0], breaks);

        let chart_height = height.saturating_sub(GAP_TOP + GAP_BOTTOM + X_TICKS);
        let descs = self
            .panels
            .iter()
            .map(|panel| Desc::fit(&area, &panel.y_label, chart_height))
            .collect::<DrawResult<Vec<_>>>()?;
        let desc_width = descs.iter().map(Desc::width).max().unwrap_or(0);
        let y_label_area = Y_TICK_LABELS + desc_width.max(Y_DESC_MIN);

        for (i, ((panel, sub), colours)) in self.panels.iter().zip(&areas).zip(&colours).enumerate()
        {
            let axis = YAxis::new(panel.scale, y_values(&panel.series));
            let layers: Vec<Layer> = panel
                .series
                .iter()
                .zip(colours)
                .map(|(series, &colour)| Layer {
                    series,
                    colour,
                    markers: drawable(&series.points, &axis).count() <= MAX_MARKERS,
                })
                .collect();
            let last = i + 1 == self.panels.len();
            let chart = PanelChart {
                area: sub,
                x: x.clone(),
                x_desc: last.then_some(self.x_desc),
                top_extra: if i == 0 { leftover } else { 0 },
                y_label_area,
                desc: &descs[i],
                layers: &layers,
                axis: &axis,
            };
            axis.apply(chart, PANEL_TICKS)?;
        }
        Ok(())
    }
}

/// One panel being drawn, waiting for its y coordinate.
struct PanelChart<'a, DB: DrawingBackend> {
    area: &'a DrawingArea<DB, Shift>,
    x: Range<f64>,
    /// The x axis description, for the bottom panel only.
    x_desc: Option<&'a str>,
    /// Extra space above the chart.
    top_extra: u32,
    y_label_area: u32,
    desc: &'a Desc,
    layers: &'a [Layer<'a>],
    axis: &'a YAxis,
}

impl<DB: DrawingBackend> WithY for PanelChart<'_, DB>
where
    DB::ErrorType: 'static,
{
    fn with_y<Y>(self, y: Y) -> DrawResult
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let bottom = self.x_desc.is_some();
        let mut chart = ChartBuilder::on(self.area)
            .margin_left(MARGIN)
            .margin_right(MARGIN)
            .margin_top(GAP_TOP + self.top_extra)
            .margin_bottom(if bottom { MARGIN } else { GAP_BOTTOM })
            .x_label_area_size(if bottom { X_AXIS } else { X_TICKS })
            .y_label_area_size(self.y_label_area)
            .build_cartesian_2d(self.x, y)?;
        let mut mesh = styled_mesh(&mut chart);
        mesh.y_labels(Y_TICKS);
        match self.x_desc {
            Some(desc) => mesh.x_desc(desc),
            None => mesh.x_label_formatter(&no_label),
        };
        mesh.draw()?;
        if !draw_layers(&mut chart, self.layers, self.axis)? {
            no_data(self.area)?;
        }
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let (x0, y0) = self.area.get_base_pixel();
        let left = xs.start - self.y_label_area as i32 - x0;
        let middle = (ys.start + ys.end) / 2 - y0;
        self.desc.draw(self.area, (left, middle))
    }
}

/// `text`, or its longest beginning followed by "…" that `fits`.
fn shorten(text: &str, fits: impl Fn(&str) -> DrawResult<bool>) -> DrawResult<String> {
    if fits(text)? {
        return Ok(text.to_owned());
    }
    let mut ends: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    while let Some(end) = ends.pop() {
        let short = format!("{}…", text[..end].trim_end());
        if fits(&short)? {
            return Ok(short);
        }
    }
    Ok("…".to_owned())
}

/// An empty tick label.
fn no_label(_: &f64) -> String {
    String::new()
}

/// A y axis description fitted to the chart height: font size and lines.
#[derive(Debug, Clone, PartialEq)]
struct Desc {
    size: u32,
    lines: Vec<String>,
}

impl Desc {
    /// `text` in one line if it fits into `room` pixels at a size of at
    /// least 15, else in two lines (broken at a space) as large as fits down
    /// to 12, else cut short with "…" at 12.
    fn fit<DB: DrawingBackend>(
        area: &DrawingArea<DB, Shift>,
        text: &str,
        room: u32,
    ) -> DrawResult<Self>
    where
        DB::ErrorType: 'static,
    {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Self {
                size: DESC_ONE_LINE[0],
                lines: Vec::new(),
            });
        }
        let width = |text: &str, size: u32| {
            area.estimate_text_size(text, &font(size).into())
                .map(|s| s.0)
        };
        for size in DESC_ONE_LINE {
            if width(text, size)? <= room {
                return Ok(Self {
                    size,
                    lines: vec![text.to_owned()],
                });
            }
        }
        // Break at the space giving the shortest longer line.
        let mut best: Option<(u32, &str, &str)> = None;
        for (at, _) in text.match_indices(' ') {
            let (first, second) = (text[..at].trim_end(), text[at..].trim_start());
            let longer = width(first, 18)?.max(width(second, 18)?);
            if best.is_none_or(|(w, ..)| longer < w) {
                best = Some((longer, first, second));
            }
        }
        let smallest = *DESC_TWO_LINES.last().unwrap_or(&12);
        let lines = match best {
            Some((_, first, second)) => {
                for size in DESC_TWO_LINES {
                    if width(first, size)?.max(width(second, size)?) <= room {
                        return Ok(Self {
                            size,
                            lines: vec![first.to_owned(), second.to_owned()],
                        });
                    }
                }
                vec![first, second]
            }
            None => vec![text],
        };
        let lines = lines
            .into_iter()
            .map(|line| shorten(line, |text| Ok(width(text, smallest)? <= room)))
            .collect::<DrawResult<_>>()?;
        Ok(Self {
            size: smallest,
            lines,
        })
    }

    /// Distance between the lines' left edges (rotated: tops).
    fn line_step(&self) -> u32 {
        self.size * 5 / 4
    }

    /// Horizontal room taken by the rotated lines.
    fn width(&self) -> u32 {
        self.line_step() * self.lines.len() as u32
    }

    /// Draws the lines rotated to read upwards, the first one leftmost,
    /// starting at `left` and centred on `middle`.
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (left, middle): (i32, i32),
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let style = TextStyle::from(font(self.size))
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (i, line) in self.lines.iter().enumerate() {
            let x = left + (i as u32 * self.line_step()) as i32;
            area.draw_text(line, &style, (x, middle))?;
        }
        Ok(())
    }
}

/// The x range covering all series of all panels; a single value is
/// widened, no value at all gives `0..1`.
fn shared_x_range(panels: &[Panel]) -> Range<f64> {
    match min_max(panels.iter().flat_map(|panel| x_values(&panel.series))) {
        None => 0.0..1.0,
        Some((lo, hi)) if hi > lo => lo..hi,
        Some((value, _)) => {
            let pad = if value == 0.0 {
                0.5
            } else {
                value.abs() / 10.0
            };
            value - pad..value + pad
        }
    }
}

/// The colour of each series of each panel: palette colours in order of
/// appearance, the same one for series with the same non-empty label.
fn colours(panels: &[Panel]) -> Vec<Vec<RGBColor>> {
    let mut by_label: HashMap<&str, RGBColor> = HashMap::new();
    let mut next = 0;
    let mut take = || {
        next += 1;
        PALETTE[(next - 1) % PALETTE.len()]
    };
    panels
        .iter()
        .map(|panel| {
            panel
                .series
                .iter()
                .map(|series| match series.label.as_str() {
                    "" => take(),
                    label => *by_label.entry(label).or_insert_with(&mut take),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Point, Series};

    fn series(label: &str, xs: &[f64]) -> Series {
        Series {
            label: label.into(),
            points: xs
                .iter()
                .map(|&x| Point {
                    x,
                    y: 1.0,
                    marked: false,
                })
                .collect(),
            saturation: None,
        }
    }

    fn panel(series: Vec<Series>) -> Panel {
        Panel {
            series,
            ..Panel::default()
        }
    }

    #[test]
    fn x_range_is_the_union_of_all_panels() {
        let panels = [
            panel(vec![series("a", &[10.0, 20.0])]),
            panel(vec![]),
            panel(vec![series("b", &[15.0, 40.0, f64::NAN])]),
        ];
        assert_eq!(shared_x_range(&panels), 10.0..40.0);
        assert_eq!(shared_x_range(&[]), 0.0..1.0);
        assert_eq!(
            shared_x_range(&[panel(vec![series("", &[0.0])])]),
            -0.5..0.5
        );
        assert_eq!(
            shared_x_range(&[panel(vec![series("", &[100.0])])]),
            90.0..110.0
        );
    }

    #[test]
    fn shortening_keeps_the_longest_fitting_beginning() {
        let fits = |limit: usize| move |text: &str| Ok(text.chars().count() <= limit);
        assert_eq!(shorten("abcdef", fits(6)).unwrap(), "abcdef");
        assert_eq!(shorten("abc defé", fits(5)).unwrap(), "abc…");
        assert_eq!(shorten("abcdéf", fits(6 - 1)).unwrap(), "abcd…");
        assert_eq!(shorten("abc", fits(0)).unwrap(), "…");
    }

    #[test]
    fn labels_keep_their_colour_across_panels() {
        let panels = [
            panel(vec![series("a", &[]), series("", &[])]),
            panel(vec![series("", &[]), series("a", &[]), series("b", &[])]),
        ];
        let [first, second] = colours(&panels).try_into().unwrap();
        assert_eq!(first, [PALETTE[0], PALETTE[1]]);
        assert_eq!(second, [PALETTE[2], PALETTE[0], PALETTE[3]]);
    }
}
