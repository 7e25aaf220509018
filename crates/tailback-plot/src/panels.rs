//! Panels of line charts stacked vertically over one shared x axis, with
//! one legend for all of them.

use std::collections::HashMap;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::figure::{
    DataWriter, DrawResult, Figure, NOTE_HEIGHT, SIZE, cell, font, min_max, no_data, shorten,
    styled_mesh, tick_label, titled_with_note,
};
use crate::lines::{
    Drawn, Frame, Layer, LogTicks, WithY, YAxis, draw_layers, drawable, error, finite,
    legend_label, past_saturation_entry, x_values, y_values,
};
use crate::style::{Canvas, Entry, Legend, Sample, Style, style};
use crate::{Panel, Point, Series};

/// Height of one panel, in pixels.
const PANEL_HEIGHT: u32 = 250;
/// Height added to the panels for the title and the x axis.
const EXTRA_HEIGHT: u32 = 90;
/// Margin left and right of each chart, and below the bottom one.
const MARGIN: u32 = 15;
/// Space above and below the legend.
const LEGEND_GAP: u32 = 4;
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

/// A panel ready to draw: smoothed, its axis resolved, and what its
/// drawable points are like.
struct Prepared {
    panel: Panel,
    axis: YAxis,
    /// Whether it has any drawable point.
    drawable: bool,
    /// The value of every drawable point (before smoothing) if they are all
    /// equal and have no error bars.
    constant: Option<f64>,
}

impl Prepared {
    fn new(panel: &Panel, window: usize) -> Self {
        let axis_of = |series: &[Series]| {
            let (centres, ends) = y_values(series);
            YAxis::new(panel.scale, &centres, &ends)
        };
        let raw = axis_of(&panel.series);
        let mut ys = panel
            .series
            .iter()
            .flat_map(|s| drawable(&s.points, &raw))
            .map(|p| (p.y, error(p)));
        let constant = ys.next().and_then(|(first, e)| {
            let equal = e.is_none() && ys.all(|(y, e)| y == first && e.is_none());
            equal.then_some(first)
        });
        let series: Vec<Series> = panel
            .series
            .iter()
            .map(|s| Series {
                points: smooth(&s.points, window),
                ..s.clone()
            })
            .collect();
        let axis = axis_of(&series);
        let drawable = series
            .iter()
            .any(|s| drawable(&s.points, &axis).next().is_some());
        Self {
            panel: Panel {
                series,
                ..panel.clone()
            },
            axis,
            drawable,
            constant,
        }
    }
}

/// The stacked-panels figure.
pub(crate) struct Panels<'a> {
    title: &'a str,
    x_desc: &'a str,
    panels: Vec<Prepared>,
    /// Indices of the panels drawn.
    shown: Vec<usize>,
    /// The constant panels left out, and their values.
    note: Option<String>,
    /// The style of each series of each panel.
    styles: Vec<Vec<Style>>,
    legend: Legend,
}

impl<'a> Panels<'a> {
    /// The figure of `panels`, each series smoothed over `window` points.
    pub(crate) fn new(title: &'a str, x_desc: &'a str, panels: &[Panel], window: usize) -> Self {
        let panels: Vec<Prepared> = panels.iter().map(|p| Prepared::new(p, window)).collect();
        let non_empty: Vec<usize> = (0..panels.len()).filter(|&i| panels[i].drawable).collect();
        let varying: Vec<usize> = non_empty
            .iter()
            .copied()
            .filter(|&i| panels[i].constant.is_none())
            .collect();
        let (shown, dropped) = if !varying.is_empty() {
            let dropped = non_empty
                .iter()
                .copied()
                .filter(|i| !varying.contains(i))
                .collect();
            (varying, dropped)
        } else if !non_empty.is_empty() {
            (non_empty, Vec::new())
        } else {
            ((0..panels.len()).collect(), Vec::new())
        };
        let note = (!dropped.is_empty()).then(|| {
            let constants: Vec<String> = dropped
                .iter()
                .map(|&i| {
                    let label = panels[i].panel.y_label.trim();
                    let label = if label.is_empty() {
                        format!("panel {}", i + 1)
                    } else {
                        label.to_owned()
                    };
                    format!(
                        "{label} = {}",
                        tick_label(&panels[i].constant.unwrap_or(0.0))
                    )
                })
                .collect();
            format!("constant: {}", constants.join(", "))
        });
        let all: Vec<&Panel> = panels.iter().map(|p| &p.panel).collect();
        let styles = styles(&all);
        let mut figure = Self {
            title,
            x_desc,
            panels,
            shown,
            note,
            styles,
            legend: Legend::new(Vec::new(), None),
        };
        figure.legend = Legend::new(figure.legend_entries(), Some(legend_width()));
        figure
    }

    /// The layers of the `i`-th panel.
    fn layers(&self, i: usize) -> Vec<Layer<'_>> {
        let prepared = &self.panels[i];
        prepared
            .panel
            .series
            .iter()
            .zip(&self.styles[i])
            .map(|(series, &style)| Layer {
                series,
                style,
                markers: drawable(&series.points, &prepared.axis).count() <= MAX_MARKERS,
            })
            .collect()
    }

    /// One entry per series label of the panels shown (the first series of
    /// that label tells how it looks), then one for the past-saturation
    /// points if any are drawn.
    fn legend_entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut marked = false;
        for &i in &self.shown {
            for layer in self.layers(i) {
                let axis = &self.panels[i].axis;
                marked |= drawable(&layer.series.points, axis).any(|p| p.marked);
                let label = layer.series.label.as_str();
                if label.is_empty() || seen.contains(&label) {
                    continue;
                }
                seen.push(label);
                entries.push(Entry {
                    label: legend_label(layer.series),
                    sample: Sample::Series {
                        style: layer.style,
                        marker: layer.markers,
                    },
                });
            }
        }
        if marked {
            entries.push(past_saturation_entry());
        }
        entries
    }

    /// Height of the legend strip above the panels.
    fn legend_height(&self) -> u32 {
        if self.legend.is_empty() {
            0
        } else {
            self.legend.size().1.max(0) as u32 + 2 * LEGEND_GAP
        }
    }
}

/// Widest legend row: the image less its margins.
fn legend_width() -> i32 {
    (SIZE.0 - 2 * MARGIN) as i32
}

impl Figure for Panels<'_> {
    fn size(&self) -> (u32, u32) {
        let count = u32::try_from(self.shown.len().max(1)).unwrap_or(u32::MAX);
        let note = if self.note.is_some() { NOTE_HEIGHT } else { 0 };
        let height = PANEL_HEIGHT
            .saturating_mul(count)
            .saturating_add(EXTRA_HEIGHT + note + self.legend_height());
        (SIZE.0, height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let mut area = titled_with_note(root, self.title, self.note.as_deref())?;
        if !self.legend.is_empty() {
            let (strip, rest) = area.split_vertically(self.legend_height());
            let left = (strip.dim_in_pixel().0 as i32 - self.legend.size().0) / 2;
            self.legend.draw(&strip, (left, LEGEND_GAP as i32))?;
            area = rest;
        }
        if self.shown.is_empty() {
            return no_data(&area);
        }
        let shown: Vec<&Panel> = self.shown.iter().map(|&i| &self.panels[i].panel).collect();
        let x = shared_x_range(&shown);

        // Equal chart heights: the bottom panel is higher by its x axis and
        // the first one takes the pixels left over by the division.
        let count = shown.len() as u32;
        let bottom_extra = MARGIN + X_AXIS - GAP_BOTTOM - X_TICKS;
        let free = area.dim_in_pixel().1.saturating_sub(bottom_extra);
        let height = free / count;
        let leftover = free - height * count;
        let breaks: Vec<u32> = (1..count).map(|i| leftover + i * height).collect();
        let areas = area.split_by_breakpoints([] as [u32; 0], breaks);

        let chart_height = height.saturating_sub(GAP_TOP + GAP_BOTTOM + X_TICKS);
        let descs = shown
            .iter()
            .map(|panel| Desc::fit(&area, &panel.y_label, chart_height))
            .collect::<DrawResult<Vec<_>>>()?;
        let desc_width = descs.iter().map(Desc::width).max().unwrap_or(0);
        let y_label_area = Y_TICK_LABELS + desc_width.max(Y_DESC_MIN);

        for (n, (&i, sub)) in self.shown.iter().zip(&areas).enumerate() {
            let layers = self.layers(i);
            let last = n + 1 == shown.len();
            let chart = PanelChart {
                area: sub,
                x: x.clone(),
                x_desc: last.then_some(self.x_desc),
                top_extra: if n == 0 { leftover } else { 0 },
                y_label_area,
                desc: &descs[n],
                layers: &layers,
                axis: &self.panels[i].axis,
            };
            self.panels[i].axis.apply(chart, PANEL_TICKS)?;
        }
        Ok(())
    }

    fn write_data(&self, out: &mut DataWriter) -> csv::Result<()> {
        out.write_record(["panel", "series", "x", "y", "error", "marked"])?;
        for prepared in &self.panels {
            for series in &prepared.panel.series {
                for p in drawable(&series.points, &prepared.axis) {
                    let [x, y, e] = [Some(p.x), Some(p.y), error(p)].map(cell);
                    out.write_record([
                        &prepared.panel.y_label,
                        &series.label,
                        &x,
                        &y,
                        &e,
                        &p.marked.to_string(),
                    ])?;
                }
            }
        }
        Ok(())
    }
}

/// The finite points of `points`, each one's y replaced by the mean y of the
/// `window` points centred on it: `(window - 1) / 2` before and `window / 2`
/// after, fewer at the ends. A window of 0 or 1 leaves them as they are.
pub(crate) fn smooth(points: &[Point], window: usize) -> Vec<Point> {
    let points: Vec<Point> = finite(points).copied().collect();
    if window <= 1 || points.len() < 2 {
        return points;
    }
    let (before, after) = ((window - 1) / 2, window / 2);
    let n = points.len();
    // Running sum of the y values in the window lo..hi.
    let (mut lo, mut hi, mut sum) = (0, 0, 0.0);
    let mut smoothed = Vec::with_capacity(n);
    for (i, p) in points.iter().enumerate() {
        let (from, to) = (i.saturating_sub(before), (i + after + 1).min(n));
        while hi < to {
            sum += points[hi].y;
            hi += 1;
        }
        while lo < from {
            sum -= points[lo].y;
            lo += 1;
        }
        smoothed.push(Point {
            y: sum / (hi - lo) as f64,
            ..*p
        });
    }
    smoothed
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
            .build_cartesian_2d(self.x.clone(), y)?;
        let mut mesh = styled_mesh(&mut chart);
        mesh.y_labels(Y_TICKS);
        match self.x_desc {
            Some(desc) => mesh.x_desc(desc),
            None => mesh.x_label_formatter(&no_label),
        };
        mesh.draw()?;
        let canvas = Canvas::new(chart.plotting_area().strip_coord_spec());
        let frame = Frame::new(canvas.area.dim_in_pixel(), self.x, self.axis.clone());
        let mut drawn = Drawn::untraced();
        draw_layers(&canvas, &frame, self.layers, &mut drawn)?;
        if !drawn.points {
            no_data(self.area)?;
        }
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let (x0, y0) = self.area.get_base_pixel();
        let left = xs.start - self.y_label_area as i32 - x0;
        let middle = (ys.start + ys.end) / 2 - y0;
        self.desc.draw(self.area, (left, middle))
    }
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

/// The x range covering all series of `panels`; a single value is widened,
/// no value at all gives `0..1`.
fn shared_x_range(panels: &[&Panel]) -> Range<f64> {
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

/// The style of each series of each panel: styles in order of appearance,
/// the same one for series with the same non-empty label, and for the n-th
/// unlabelled series of each panel (a single unlabelled run looks the same
/// in every panel).
fn styles(panels: &[&Panel]) -> Vec<Vec<Style>> {
    let mut by_key: HashMap<(&str, usize), Style> = HashMap::new();
    let mut next = 0;
    let mut take = || {
        next += 1;
        style(next - 1)
    };
    panels
        .iter()
        .map(|panel| {
            let mut unlabelled = 0;
            panel
                .series
                .iter()
                .map(|series| {
                    let key = match series.label.as_str() {
                        "" => {
                            unlabelled += 1;
                            ("", unlabelled)
                        }
                        label => (label, 0),
                    };
                    *by_key.entry(key).or_insert_with(&mut take)
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(ys: &[f64]) -> Vec<Point> {
        ys.iter()
            .enumerate()
            .map(|(i, &y)| Point {
                x: i as f64,
                y,
                marked: i == 1,
                error: None,
            })
            .collect()
    }

    fn series(label: &str, xs: &[f64]) -> Series {
        Series {
            label: label.into(),
            points: xs
                .iter()
                .map(|&x| Point {
                    x,
                    y: 1.0,
                    marked: false,
                    error: None,
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
        let all: Vec<&Panel> = panels.iter().collect();
        assert_eq!(shared_x_range(&all), 10.0..40.0);
        assert_eq!(shared_x_range(&[]), 0.0..1.0);
        assert_eq!(
            shared_x_range(&[&panel(vec![series("", &[0.0])])]),
            -0.5..0.5
        );
        assert_eq!(
            shared_x_range(&[&panel(vec![series("", &[100.0])])]),
            90.0..110.0
        );
    }

    #[test]
    fn labels_and_unlabelled_positions_keep_their_style_across_panels() {
        let panels = [
            panel(vec![series("a", &[]), series("", &[])]),
            panel(vec![series("", &[]), series("a", &[]), series("b", &[])]),
        ];
        let all: Vec<&Panel> = panels.iter().collect();
        let [first, second] = styles(&all).try_into().unwrap();
        assert_eq!(first, [style(0), style(1)]);
        assert_eq!(second, [style(1), style(0), style(2)]);
        // The second unlabelled series of a panel gets a style of its own.
        let two = panel(vec![series("", &[]), series("", &[])]);
        assert_eq!(styles(&[&two]), [[style(0), style(1)]]);
    }

    #[test]
    fn smoothing_averages_a_centred_window() {
        let ys = |points: Vec<Point>| points.iter().map(|p| p.y).collect::<Vec<_>>();
        let raw = points(&[0.0, 3.0, 6.0, 3.0, f64::NAN, 0.0]);
        // The non-finite point is left out before smoothing.
        assert_eq!(ys(smooth(&raw, 1)), [0.0, 3.0, 6.0, 3.0, 0.0]);
        assert_eq!(ys(smooth(&raw, 0)), ys(smooth(&raw, 1)));
        assert_eq!(ys(smooth(&raw, 3)), [1.5, 3.0, 4.0, 3.0, 1.5]);
        // Even windows reach one further after than before.
        assert_eq!(ys(smooth(&raw, 2)), [1.5, 4.5, 4.5, 1.5, 0.0]);
        // Wider than the series: the mean of everything in reach.
        assert_eq!(ys(smooth(&raw, 99)), [2.4; 5]);
        // x, marked and error are kept.
        let smoothed = smooth(&raw, 3);
        assert_eq!(smoothed[1].x, 1.0);
        assert!(smoothed[1].marked && !smoothed[0].marked);
    }

    #[test]
    fn empty_and_constant_panels_are_left_out_and_noted() {
        let constant = |label: &str, y: f64| Panel {
            y_label: label.into(),
            series: vec![Series {
                points: points(&[y, y, y]),
                ..Series::default()
            }],
            ..Panel::default()
        };
        let varying = Panel {
            y_label: "varying".into(),
            series: vec![Series {
                points: points(&[1.0, 2.0]),
                ..Series::default()
            }],
            ..Panel::default()
        };
        let panels = [
            constant("full buffers", 0.0),
            varying.clone(),
            Panel::default(),
            constant("throttled", 0.25),
        ];
        let figure = Panels::new("t", "x", &panels, 1);
        assert_eq!(figure.shown, [1]);
        assert_eq!(
            figure.note.as_deref(),
            Some("constant: full buffers = 0, throttled = 0.25")
        );
        // Smoothing does not hide a constant.
        let figure = Panels::new("t", "x", &panels, 2);
        assert_eq!(figure.shown, [1]);
        // Nothing varies: the constant panels are drawn, without a note.
        let figure = Panels::new("t", "x", &panels[2..], 1);
        assert_eq!((figure.shown.as_slice(), figure.note), (&[1][..], None));
        // Nothing to draw at all: every panel (says "no data").
        let figure = Panels::new("t", "x", &[Panel::default(), Panel::default()], 1);
        assert_eq!(figure.shown, [0, 1]);
    }
}
