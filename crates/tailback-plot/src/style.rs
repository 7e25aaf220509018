//! How series look (colour, marker shape, dash pattern) and drawing in
//! pixels: clipped lines and markers, and legends.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::figure::{DrawResult, font};
use crate::geometry::{Px, Rect, clip_polygon, clip_polyline, dashes, thin};

/// Series colours (colour-blind friendly), in order of use.
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

/// The shape of a series' point markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Plus,
}

/// Marker shapes, in order of use.
const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Plus,
];

/// A dash pattern: lengths in pixels of dash, gap, dash, gap, ...; empty
/// for a solid line.
pub(crate) type Dash = &'static [f64];

/// Dash patterns, in order of use: solid, dashed, dotted, dash-dotted.
const DASHES: [Dash; 4] = [&[], &[9.0, 5.0], &[2.0, 4.0], &[9.0, 4.0, 2.0, 4.0]];

/// A solid line.
pub(crate) const SOLID: Dash = &[];

/// The line into a past-saturation point.
pub(crate) const PAST_SATURATION: Dash = &[4.0, 4.0];

/// Legend text of the past-saturation points.
pub(crate) const PAST_SATURATION_LABEL: &str = "past saturation";

/// Colour of the legend sample of the past-saturation points.
const NEUTRAL: RGBColor = RGBColor(90, 90, 90);

/// A dashed line is drawn solid when cut into more dashes than twice its
/// number of corners plus this.
const MAX_EXTRA_DASHES: usize = 200;

/// Width of series lines.
pub(crate) const LINE_WIDTH: u32 = 2;

/// How one series is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Style {
    pub colour: RGBColor,
    pub marker: Marker,
    pub dash: Dash,
}

/// The style of the `index`-th series: colour, marker shape and dash pattern
/// each cycle through their own list, so that neighbours differ in all three
/// and a series drawn over an identical earlier one leaves it visible (in
/// the gaps of its dashes and around its markers).
pub(crate) fn style(index: usize) -> Style {
    Style {
        colour: PALETTE[index % PALETTE.len()],
        marker: MARKERS[index % MARKERS.len()],
        dash: DASHES[index % DASHES.len()],
    }
}

impl Marker {
    /// Radius of the circle, at scale 1.
    const RADIUS: f64 = 4.0;

    /// Half the width of the square holding the marker at `scale`.
    fn reach(self, scale: f64) -> f64 {
        scale
            * match self {
                Self::Circle => Self::RADIUS,
                Self::Square => 3.6,
                Self::TriangleUp | Self::TriangleDown => 5.0,
                Self::Diamond | Self::Plus => 5.0,
            }
    }

    /// The outline of the marker centred on `centre` at `scale`, as a polygon.
    fn outline(self, (x, y): Px, scale: f64) -> Vec<Px> {
        let r = self.reach(scale);
        let at = |points: &[(f64, f64)]| -> Vec<Px> {
            points.iter().map(|&(dx, dy)| (x + dx, y + dy)).collect()
        };
        match self {
            Self::Circle => (0..24)
                .map(|i| {
                    let angle = f64::from(i) * std::f64::consts::TAU / 24.0;
                    (x + r * angle.cos(), y + r * angle.sin())
                })
                .collect(),
            Self::Square => at(&[(-r, -r), (r, -r), (r, r), (-r, r)]),
            Self::TriangleUp => at(&[(0.0, -r), (r, 0.8 * r), (-r, 0.8 * r)]),
            Self::TriangleDown => at(&[(0.0, r), (r, -0.8 * r), (-r, -0.8 * r)]),
            Self::Diamond => at(&[(0.0, -r), (r, 0.0), (0.0, r), (-r, 0.0)]),
            Self::Plus => {
                let t = 0.32 * r;
                at(&[
                    (-t, -r),
                    (t, -r),
                    (t, -t),
                    (r, -t),
                    (r, t),
                    (t, t),
                    (t, r),
                    (-t, r),
                    (-t, t),
                    (-r, t),
                    (-r, -t),
                    (-t, -t),
                ])
            }
        }
    }
}

/// Scale of hollow (past-saturation) markers: a little larger than filled ones.
const HOLLOW_SCALE: f64 = 1.25;

/// The backend pixel nearest to `p`.
fn pixel((x, y): Px) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// Drawing on an area in its own pixel coordinates, everything cut to a
/// rectangle (the plotting area of a chart).
pub(crate) struct Canvas<DB: DrawingBackend> {
    pub area: DrawingArea<DB, Shift>,
    pub clip: Rect,
}

impl<DB: DrawingBackend> Canvas<DB>
where
    DB::ErrorType: 'static,
{
    /// A canvas over the whole of `area`, clipped to it.
    pub(crate) fn new(area: DrawingArea<DB, Shift>) -> Self {
        let (width, height) = area.dim_in_pixel();
        let clip = Rect {
            left: 0.0,
            top: 0.0,
            right: f64::from(width.max(1) - 1),
            bottom: f64::from(height.max(1) - 1),
        };
        Self { area, clip }
    }

    /// Draws the polyline through `points` `width` pixels wide with the dash
    /// pattern `dash`, cut to the clipping rectangle (shrunk so that the
    /// line's width stays inside); returns the pieces drawn.
    pub(crate) fn polyline(
        &self,
        points: &[Px],
        colour: RGBColor,
        width: u32,
        dash: Dash,
    ) -> DrawResult<Vec<Vec<Px>>> {
        let inside = self.clip.inset(f64::from(width) / 2.0 + 0.5);
        let style = colour.stroke_width(width);
        let pieces = clip_polyline(&thin(points), &inside);
        let mut cut: Vec<Vec<Px>> = pieces.iter().flat_map(|p| dashes(p, dash)).collect();
        // A line swinging to and fro over a few pixels has no visible dash
        // pattern, only a great many dashes: draw it solid.
        let corners: usize = pieces.iter().map(Vec::len).sum();
        if cut.len() > 2 * corners + MAX_EXTRA_DASHES {
            cut = pieces;
        }
        for dash in &cut {
            let path: Vec<(i32, i32)> = dash.iter().copied().map(pixel).collect();
            self.area.draw(&PathElement::new(path, style))?;
        }
        Ok(cut)
    }

    /// Draws `marker` centred on `centre`: filled in `colour`, or hollow
    /// (white inside, outlined in `colour`); cut to the clipping rectangle.
    pub(crate) fn marker(
        &self,
        marker: Marker,
        centre: Px,
        colour: RGBColor,
        hollow: bool,
    ) -> DrawResult {
        let scale = if hollow { HOLLOW_SCALE } else { 1.0 };
        let reach = marker.reach(scale);
        if !self.clip.inset(-reach - 1.0).contains(centre) {
            return Ok(());
        }
        let fill = if hollow { WHITE } else { colour };
        let whole = self.clip.holds(centre, reach + 1.5);
        if whole && marker == Marker::Circle {
            let (c, r) = (pixel(centre), reach.round() as i32);
            self.area.draw(&Circle::new(c, r, fill.filled()))?;
            if hollow {
                self.area
                    .draw(&Circle::new(c, r, colour.stroke_width(LINE_WIDTH)))?;
            }
            return Ok(());
        }
        let outline = marker.outline(centre, scale);
        let shape = if whole {
            outline.clone()
        } else {
            clip_polygon(&outline, &self.clip)
        };
        if shape.len() >= 3 {
            let corners: Vec<(i32, i32)> = shape.into_iter().map(pixel).collect();
            self.area.draw(&Polygon::new(corners, fill.filled()))?;
        }
        if hollow {
            let mut closed = outline;
            closed.extend(closed.first().copied());
            self.polyline(&closed, colour, LINE_WIDTH, SOLID)?;
        }
        Ok(())
    }
}

/// What a legend entry shows left of its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sample {
    /// A series: its line, and its marker if its points have markers.
    Series { style: Style, marker: bool },
    /// Past-saturation points: a dashed line into a hollow marker.
    PastSaturation,
    /// A thin solid line of `colour`.
    Thin(RGBColor),
}

/// One line of a legend.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub label: String,
    pub sample: Sample,
}

/// Legend layout: font size, width of a sample, gap between sample and
/// text, gap between entries in a row, row height, padding inside the box.
const FONT: u32 = 15;
const SAMPLE: i32 = 30;
const SAMPLE_GAP: i32 = 6;
const ENTRY_GAP: i32 = 18;
const ROW: i32 = 20;
const PADDING: i32 = 8;
/// Border colour of legends (tests count legends by it).
const BORDER: RGBColor = RGBColor(160, 160, 160);

/// Entries laid out in rows inside a framed box.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Legend {
    entries: Vec<Entry>,
    /// Each row's entries, as (index, left edge relative to the box).
    rows: Vec<Vec<(usize, i32)>>,
    width: i32,
}

impl Legend {
    /// Lays out `entries` in rows no wider than `max_width` (`None`: one
    /// entry per row).
    pub(crate) fn new(entries: Vec<Entry>, max_width: Option<i32>) -> Self {
        let mut rows: Vec<Vec<(usize, i32)>> = Vec::new();
        let mut width = 0;
        let mut x = 0;
        for (i, entry) in entries.iter().enumerate() {
            let w = SAMPLE + SAMPLE_GAP + text_width(&entry.label);
            let fits = max_width.is_some_and(|max| x + ENTRY_GAP + w <= max - 2 * PADDING);
            match rows.last_mut() {
                Some(row) if fits => {
                    x += ENTRY_GAP;
                    row.push((i, PADDING + x));
                    x += w;
                }
                _ => {
                    rows.push(vec![(i, PADDING)]);
                    x = w;
                }
            }
            width = width.max(x);
        }
        Self {
            entries,
            rows,
            width: width + 2 * PADDING,
        }
    }

    /// Whether there is nothing to show.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Width and height of the box in pixels.
    pub(crate) fn size(&self) -> (i32, i32) {
        (self.width, self.rows.len() as i32 * ROW + 2 * PADDING - 4)
    }

    /// Draws the legend with its box's top left corner at `(left, top)` of
    /// `area`.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (left, top): (i32, i32),
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        if self.is_empty() {
            return Ok(());
        }
        let (width, height) = self.size();
        let corners = [(left, top), (left + width, top + height)];
        area.draw(&Rectangle::new(corners, WHITE.mix(0.85).filled()))?;
        area.draw(&Rectangle::new(corners, BORDER.stroke_width(1)))?;
        let text = TextStyle::from(font(FONT)).pos(Pos::new(HPos::Left, VPos::Center));
        let canvas = Canvas::new(area.clone());
        for (r, row) in self.rows.iter().enumerate() {
            let y = f64::from(top + PADDING - 2 + r as i32 * ROW + ROW / 2);
            for &(i, x) in row {
                let entry = &self.entries[i];
                let x = f64::from(left + x);
                let line = [(x, y), (x + f64::from(SAMPLE), y)];
                let middle = (x + f64::from(SAMPLE) / 2.0, y);
                match entry.sample {
                    Sample::Series { style, marker } => {
                        canvas.polyline(&line, style.colour, LINE_WIDTH, style.dash)?;
                        if marker {
                            canvas.marker(style.marker, middle, style.colour, false)?;
                        }
                    }
                    Sample::PastSaturation => {
                        canvas.polyline(&line, NEUTRAL, LINE_WIDTH, PAST_SATURATION)?;
                        canvas.marker(Marker::Circle, middle, NEUTRAL, true)?;
                    }
                    Sample::Thin(colour) => {
                        canvas.polyline(&line, colour, 1, SOLID)?;
                    }
                }
                let at = (x as i32 + SAMPLE + SAMPLE_GAP, y as i32);
                area.draw_text(&entry.label, &text, at)?;
            }
        }
        Ok(())
    }
}

/// Width in pixels of `text` in the legend font.
fn text_width(text: &str) -> i32 {
    font(FONT)
        .box_size(text)
        .map_or(8 * text.chars().count() as i32, |(w, _)| w as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_styles_differ_in_colour_marker_and_dash() {
        for i in 0..12 {
            let (a, b) = (style(i), style(i + 1));
            assert_ne!(a.colour, b.colour, "{i}");
            assert_ne!(a.marker, b.marker, "{i}");
            assert_ne!(a.dash, b.dash, "{i}");
        }
        // The first series is solid with round markers.
        assert_eq!(style(0).dash, SOLID);
        assert_eq!(style(0).marker, Marker::Circle);
        // No two of the first 60 series look the same.
        for i in 0..60 {
            for j in i + 1..60 {
                assert_ne!(style(i), style(j), "{i} {j}");
            }
        }
    }

    #[test]
    fn marker_outlines_stay_within_their_reach() {
        for marker in MARKERS {
            for scale in [1.0, HOLLOW_SCALE] {
                let reach = marker.reach(scale);
                let outline = marker.outline((10.0, 20.0), scale);
                assert!(outline.len() >= 3);
                for (x, y) in outline {
                    assert!((x - 10.0).abs() <= reach + 1e-9, "{marker:?}");
                    assert!((y - 20.0).abs() <= reach + 1e-9, "{marker:?}");
                }
            }
        }
    }

    #[test]
    fn legend_rows_wrap_at_the_given_width() {
        let entry = |label: &str| Entry {
            label: label.into(),
            sample: Sample::Thin(BLACK),
        };
        let entries: Vec<Entry> = ["a", "a", "a"].into_iter().map(entry).collect();
        let column = Legend::new(entries.clone(), None);
        assert_eq!(column.rows.len(), 3);
        let row = Legend::new(entries.clone(), Some(1000));
        assert_eq!(row.rows.len(), 1);
        assert!(row.size().0 > column.size().0 && row.size().1 < column.size().1);
        let one = SAMPLE + SAMPLE_GAP + text_width("a") + 2 * PADDING;
        let two = Legend::new(entries, Some(one + ENTRY_GAP + one - 2 * PADDING));
        assert_eq!(two.rows.len(), 2);
    }
}
