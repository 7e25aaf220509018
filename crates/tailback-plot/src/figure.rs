//! Output plumbing shared by all plots: the embedded font, rendering one
//! figure to both backends and its data to CSV, and small drawing helpers.

use std::error::Error;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::data::float::FloatPrettyPrinter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};
use plotters_backend::{BackendColor, BackendStyle, BackendTextStyle, DrawingErrorKind};

use crate::PlotError;

/// Font family under which the embedded font is registered; used for all text.
const FONT_FAMILY: &str = "sans-serif";
const FONT_BYTES: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
/// Default image size in pixels (SVG user units).
pub(crate) const SIZE: (u32, u32) = (900, 600);
/// What is appended to a figure's stem to name its data file.
pub(crate) const DATA_SUFFIX: &str = "data.csv";

/// What drawing code returns; errors of either backend are boxed.
pub(crate) type DrawResult<T = ()> = Result<T, Box<dyn Error + Send + Sync>>;

/// Where a figure writes its data.
pub(crate) type DataWriter = csv::Writer<fs::File>;

/// A plot that can be drawn on any plotters backend.
pub(crate) trait Figure {
    /// Draws the whole figure on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;

    /// Image size in pixels (SVG user units).
    fn size(&self) -> (u32, u32) {
        SIZE
    }

    /// Writes the data drawn, as CSV records with a header.
    fn write_data(&self, out: &mut DataWriter) -> csv::Result<()>;
}

/// Draws `figure` to `<stem>.svg` and `<stem>.png` and writes its data to
/// `<stem>.data.csv`, creating the parent directory if needed; returns the
/// three paths.
pub(crate) fn render(stem: &Path, figure: &impl Figure) -> Result<Vec<PathBuf>, PlotError> {
    register_embedded_font()?;
    if let Some(dir) = stem.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|source| PlotError::Io {
            path: dir.to_owned(),
            source,
        })?;
    }
    let size = figure.size();
    let svg = with_suffix(stem, "svg");
    draw_to(&svg, SVGBackend::new(&svg, size), figure)?;
    let png = with_suffix(stem, "png");
    draw_to(&png, Joinless(BitMapBackend::new(&png, size)), figure)?;
    let data = with_suffix(stem, DATA_SUFFIX);
    write_data(&data, figure)?;
    Ok(vec![svg, png, data])
}

fn write_data(path: &Path, figure: &impl Figure) -> Result<(), PlotError> {
    let error = |error: csv::Error| PlotError::Data {
        path: path.to_owned(),
        message: error.to_string(),
    };
    let mut out = csv::Writer::from_path(path).map_err(error)?;
    figure.write_data(&mut out).map_err(error)?;
    out.flush().map_err(|e| error(e.into()))
}

/// `value` as CSV text: the shortest form that reads back as the same
/// number; empty for `None`.
pub(crate) fn cell(value: Option<f64>) -> String {
    value.map(|v| format!("{v:?}")).unwrap_or_default()
}

/// Registers the embedded font (once); text cannot be drawn or measured
/// before.
pub(crate) fn register_embedded_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| register_font(FONT_FAMILY, FontStyle::Normal, FONT_BYTES).is_ok());
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// `stem` with `.extension` appended (not substituted: `run.0.5` stays intact).
fn with_suffix(stem: &Path, extension: &str) -> PathBuf {
    let mut path = stem.as_os_str().to_owned();
    path.push(".");
    path.push(extension);
    path.into()
}

fn draw_to<DB: DrawingBackend>(
    path: &Path,
    backend: DB,
    figure: &impl Figure,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let root = backend.into_drawing_area();
    figure
        .draw(&root)
        .and_then(|()| Ok(root.present()?))
        .map_err(|error| PlotError::Draw {
            path: path.to_owned(),
            message: error.to_string(),
        })
}

/// A backend drawing wide paths segment by segment, with round joints.
///
/// Plotters turns a wide path into a single polygon whose corners, at sharp
/// turns (a dense, swinging time series), shoot far beyond the points, out
/// of the chart. Vector output is left to the backend (SVG strokes limit
/// their mitres); this wraps the bitmap one.
struct Joinless<DB>(DB);

impl<DB: DrawingBackend> DrawingBackend for Joinless<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: (i32, i32),
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: (i32, i32),
        to: (i32, i32),
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: (i32, i32),
        bottom_right: (i32, i32),
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = (i32, i32)>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let width = style.stroke_width();
        if width <= 1 {
            return self.0.draw_path(path, style);
        }
        let points: Vec<(i32, i32)> = path.into_iter().collect();
        for pair in points.windows(2) {
            self.0.draw_line(pair[0], pair[1], style)?;
        }
        let joints = points.get(1..points.len().saturating_sub(1)).unwrap_or(&[]);
        for &joint in joints {
            self.0.draw_circle(joint, width / 2, &style.color(), true)?;
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: (i32, i32),
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = (i32, i32)>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: (i32, i32),
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_text(text, style, pos)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: (i32, i32),
        (width, height): (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(pos, (width, height), src)
    }
}

/// The embedded font at `size` pixels.
pub(crate) fn font(size: u32) -> FontDesc<'static> {
    (FONT_FAMILY, size).into_font()
}

/// Clears `root` and draws `title` on top; returns the area below the title.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    root.titled(title, font(24))
}

/// Height of a note line under the title.
pub(crate) const NOTE_HEIGHT: u32 = 26;
const NOTE_FONT: u32 = 16;
const NOTE_COLOUR: RGBColor = RGBColor(70, 70, 70);

/// Clears `root`, draws `title` on top and `note` (if any) in a line below
/// it; returns the area below them.
pub(crate) fn titled_with_note<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    note: Option<&str>,
) -> DrawResult<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let area = titled(root, title)?;
    let Some(note) = note.map(str::trim).filter(|note| !note.is_empty()) else {
        return Ok(area);
    };
    let (top, rest) = area.split_vertically(NOTE_HEIGHT);
    let (width, height) = top.dim_in_pixel();
    let room = width.saturating_sub(30);
    let text = shorten(note, |text| {
        Ok(font(NOTE_FONT)
            .box_size(text)
            .map_or(true, |(w, _)| w <= room))
    })?;
    let style = TextStyle::from(font(NOTE_FONT))
        .color(&NOTE_COLOUR)
        .pos(Pos::new(HPos::Center, VPos::Center));
    top.draw_text(&text, &style, (width as i32 / 2, height as i32 / 2))?;
    Ok(rest)
}

/// `text`, or its longest beginning followed by "…" that `fits`.
pub(crate) fn shorten(text: &str, fits: impl Fn(&str) -> DrawResult<bool>) -> DrawResult<String> {
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

/// Writes "no data" in the middle of `area`.
pub(crate) fn no_data<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (width, height) = area.dim_in_pixel();
    let style = TextStyle::from(font(28))
        .color(&RGBColor(120, 120, 120))
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text("no data", &style, (width as i32 / 2, height as i32 / 2))?;
    Ok(())
}

/// An x-y chart filling `area`, with light grid lines, tick labels and axis
/// descriptions already drawn.
pub(crate) fn xy_chart<'a, DB, Y>(
    area: &'a DrawingArea<DB, Shift>,
    x: Range<f64>,
    y: Y,
    x_desc: &str,
    y_desc: &str,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y::CoordDescType>>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(75)
        .build_cartesian_2d(x, y)?;
    styled_mesh(&mut chart)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    Ok(chart)
}

/// The mesh configuration shared by all x-y charts: light grid lines and
/// tick labels without superfluous decimals; add descriptions and draw.
pub(crate) fn styled_mesh<'a, 'b, DB, X, Y>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut mesh = chart.configure_mesh();
    mesh.x_label_formatter(&tick_label)
        .y_label_formatter(&tick_label)
        .label_style(font(15))
        .axis_desc_style(font(18))
        .max_light_lines(4)
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(210, 210, 210));
    mesh
}

/// A tick label without superfluous decimals ("0", "0.25", "1000"); very
/// small or large magnitudes in scientific notation ("2e-6", "1.5e7").
pub(crate) fn tick_label(value: &f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-4..1e7).contains(&magnitude) {
        let text = format!("{value:.3e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    FloatPrettyPrinter {
        allow_scientific: false,
        min_decimal: 0,
        max_decimal: 5,
    }
    .print(*value)
}

/// Smallest and largest value, or `None` for no values.
pub(crate) fn min_max(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// An axis range covering zero and all `values` (finite), with some headroom
/// above; `0..1` when there is nothing to cover.
pub(crate) fn range_from_zero(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values
        .into_iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi > lo {
        lo..hi + 0.08 * (hi - lo)
    } else {
        0.0..1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_have_no_superfluous_decimals() {
        assert_eq!(tick_label(&0.0), "0");
        assert_eq!(tick_label(&0.25), "0.25");
        assert_eq!(tick_label(&1000.0), "1000");
        assert_eq!(tick_label(&0.0001), "0.0001");
        assert_eq!(tick_label(&9_000_000.0), "9000000");
        assert_eq!(tick_label(&(2.0 * 10f64.powi(-6))), "2e-6");
        assert_eq!(tick_label(&-0.000025), "-2.5e-5");
        assert_eq!(tick_label(&15_000_000.0), "1.5e7");
    }

    #[test]
    fn range_from_zero_covers_zero_and_values() {
        assert_eq!(range_from_zero([]), 0.0..1.0);
        assert_eq!(range_from_zero([0.0]), 0.0..1.0);
        let range = range_from_zero([2.0, 5.0]);
        assert!(range.start == 0.0 && range.end > 5.0);
        assert!(range_from_zero([-1.0]).contains(&-1.0));
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
    fn cells_read_back_as_the_same_number() {
        for value in [0.1, 1.0 / 3.0, 1e-300, 12345.0, -2.5e17] {
            assert_eq!(cell(Some(value)).parse::<f64>().unwrap(), value);
        }
        assert_eq!(cell(None), "");
    }

    #[test]
    fn suffix_is_appended_not_substituted() {
        assert_eq!(
            with_suffix(Path::new("a/load.0.5"), "svg"),
            Path::new("a/load.0.5.svg")
        );
    }
}
