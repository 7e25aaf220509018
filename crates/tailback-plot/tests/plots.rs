//! Each plot function writes a readable SVG and PNG and its data as CSV, and
//! handles degenerate input without panicking.

use std::fs;
use std::path::{Path, PathBuf};

use tailback_plot::{
    Panel, PlotError, Point, Series, YScale, accepted_offered, latency_cdf, latency_offered, lines,
    node_heatmap, node_time_heatmap, panels, port_heatmap,
};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Asserts that `paths` are `<stem>.svg`, `<stem>.png` and
/// `<stem>.data.csv`, that the PNG is a real image, that the data file has a
/// header and that the SVG contains every one of `texts`.
fn assert_written(paths: &[PathBuf], stem: &Path, texts: &[&str]) {
    let expected =
        ["svg", "png", "data.csv"].map(|ext| PathBuf::from(format!("{}.{ext}", stem.display())));
    assert_eq!(paths, expected);
    assert!(!data(paths).headers().unwrap().is_empty(), "no CSV header");
    let png = fs::read(&paths[1]).unwrap();
    assert!(png.starts_with(PNG_SIGNATURE), "not a PNG");
    assert!(
        png.len() > 4096,
        "PNG suspiciously small: {} bytes",
        png.len()
    );
    let svg = fs::read_to_string(&paths[0]).unwrap();
    for text in texts {
        assert!(svg.contains(text), "SVG lacks {text:?}");
    }
}

/// Whether the SVG of `paths` carries the "no data" note.
fn notes_no_data(paths: &[PathBuf]) -> bool {
    fs::read_to_string(&paths[0]).unwrap().contains("no data")
}

/// Width and height of the PNG at `path`, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let png = fs::read(path).unwrap();
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

/// The SVG of `paths`.
fn svg(paths: &[PathBuf]) -> String {
    fs::read_to_string(&paths[0]).unwrap()
}

/// A reader of the data file of `paths`.
fn data(paths: &[PathBuf]) -> csv::Reader<fs::File> {
    csv::Reader::from_path(&paths[2]).unwrap()
}

/// The header and rows of the data file of `paths`.
fn table(paths: &[PathBuf]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = data(paths);
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// A CSV cell as a number (`None` when empty).
fn number(cell: &str) -> Option<f64> {
    (!cell.is_empty()).then(|| cell.parse().unwrap())
}

/// Number of legends in the SVG of `paths` (each has a grey border).
fn legends(paths: &[PathBuf]) -> usize {
    svg(paths).matches(r##"stroke="#A0A0A0""##).count()
}

fn point(x: f64, y: f64, marked: bool) -> Point {
    Point {
        x,
        y,
        marked,
        error: None,
    }
}

fn series(label: &str, points: Vec<Point>, saturation: Option<f64>) -> Series {
    Series {
        label: label.into(),
        points,
        saturation,
    }
}

const THROUGHPUT_AXES: [&str; 2] = [
    "offered load (flits/node/cycle)",
    "mean packet latency (cycles)",
];

#[test]
fn latency_offered_draws_series_saturation_and_marked_points() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("throughput");
    let uniform = (1..=8)
        .map(|i| point(f64::from(i) * 0.05, 20.0 + f64::from(i * i), i == 8))
        .collect();
    let transpose = vec![point(0.1, 22.0, false), point(0.2, 40.0, true)];
    let all = [
        series("uniform", uniform, Some(0.42)),
        series("transpose", transpose, None),
    ];
    let paths = latency_offered(&stem, "Mesh 8x8", &all).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "Mesh 8x8",
            THROUGHPUT_AXES[0],
            THROUGHPUT_AXES[1],
            "uniform (saturation ≈ 0.420)",
            "transpose",
            "past saturation",
        ],
    );
    let (header, rows) = table(&paths);
    assert_eq!(
        header,
        ["series", "x", "y", "error", "marked", "saturation"]
    );
    assert_eq!(rows.len(), 10);
    let marked: Vec<&str> = rows
        .iter()
        .filter(|r| r[4] == "true")
        .map(|r| r[0].as_str())
        .collect();
    assert_eq!(marked, ["uniform", "transpose"]);
    assert!(
        rows.iter()
            .all(|r| r[5] == if r[0] == "uniform" { "0.42" } else { "" })
    );
}

#[test]
fn latency_offered_uses_log_axis_for_exploding_latency() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("log");
    let points = vec![point(0.1, 20.0, false), point(0.3, 2000.0, true)];
    let paths = latency_offered(&stem, "Log", &[series("s", points, None)]).unwrap();
    // 1-2-5 ticks of a log axis; a linear 0..2000 axis has no tick at 50.
    assert_written(&paths, &stem, &["\n50\n", "\n500\n", "\n1000\n"]);
}

#[test]
fn latency_offered_without_data_notes_no_data() {
    let dir = tempfile::tempdir().unwrap();
    let non_finite = vec![
        point(f64::NAN, 20.0, false),
        point(0.1, f64::INFINITY, true),
    ];
    let cases = [
        ("empty", vec![]),
        ("no-points", vec![series("none", vec![], None)]),
        (
            "non-finite",
            vec![series("nan", non_finite, Some(f64::NAN))],
        ),
    ];
    for (name, input) in cases {
        let stem = dir.path().join(name);
        let paths = latency_offered(&stem, name, &input).unwrap();
        assert_written(
            &paths,
            &stem,
            &[name, THROUGHPUT_AXES[0], THROUGHPUT_AXES[1]],
        );
        assert!(notes_no_data(&paths), "{name}");
    }
}

#[test]
fn latency_offered_handles_single_and_equal_points() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("single", vec![point(0.1, 25.0, false)]),
        (
            "equal",
            vec![point(0.2, 30.0, false), point(0.2, 30.0, true)],
        ),
        ("zero", vec![point(0.0, 0.0, false)]),
        (
            "mixed",
            vec![point(0.1, 25.0, false), point(f64::NAN, 1.0, false)],
        ),
    ];
    for (name, points) in cases {
        let stem = dir.path().join(name);
        let paths = latency_offered(&stem, name, &[series(name, points, Some(0.2))]).unwrap();
        assert_written(&paths, &stem, &[name, THROUGHPUT_AXES[1]]);
        assert!(!notes_no_data(&paths), "{name}");
    }
}

#[test]
fn latency_cdf_draws_distribution() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("cdf");
    let cdf: Vec<(u64, f64)> = (0..50u32)
        .map(|i| (u64::from(20 + i * 3), f64::from(i + 1) / 50.0))
        .collect();
    let paths = latency_cdf(&stem, "Latency CDF", &cdf, None).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "Latency CDF",
            "packet latency (cycles)",
            "fraction of packets",
        ],
    );
}

#[test]
fn latency_cdf_handles_degenerate_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("empty", vec![], true),
        ("non-finite", vec![(10, f64::NAN)], true),
        ("single", vec![(10, 1.0)], false),
        ("zero", vec![(0, 1.0), (0, 1.0)], false),
    ];
    for (name, cdf, no_data) in cases {
        let stem = dir.path().join(name);
        let paths = latency_cdf(&stem, name, &cdf, None).unwrap();
        assert_written(&paths, &stem, &[name, "fraction of packets"]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
    }
}

#[test]
fn node_heatmap_draws_grid_and_colour_bar() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("heatmap");
    let values: Vec<f64> = (0..32).map(|i| f64::from(i) / 32.0).collect();
    let paths = node_heatmap(
        &stem,
        "Per node",
        (8, 4),
        &values,
        "accepted (flits/cycle)",
        None,
    )
    .unwrap();
    assert_written(&paths, &stem, &["Per node", "accepted (flits/cycle)"]);
}

#[test]
fn node_heatmap_with_a_fixed_range_labels_its_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("fixed");
    let values = [0.2, 0.3, 0.4, 0.5];
    let paths = node_heatmap(&stem, "Fixed", (2, 2), &values, "share", Some((0.0, 1.0))).unwrap();
    // The colour bar runs over the fixed range: it has ticks below and above the values.
    let svg = fs::read_to_string(&paths[0]).unwrap();
    let texts: Vec<&str> = svg
        .split("</text>")
        .filter_map(|t| t.rsplit('>').next())
        .map(str::trim)
        .collect();
    for tick in ["0.1", "0.9"] {
        assert!(texts.contains(&tick), "no tick at {tick}: {texts:?}");
    }
}

#[test]
fn node_heatmap_handles_degenerate_values() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, usize, &[f64], bool); 5] = [
        ("equal", 2, &[3.0; 4], false),
        ("some-nan", 2, &[f64::NAN, 1.0], false),
        ("all-nan", 2, &[f64::NAN, f64::INFINITY], true),
        ("empty", 0, &[], true),
        ("extremes", 2, &[-f64::MAX, f64::MAX], false),
    ];
    for (name, width, values, no_data) in cases {
        let stem = dir.path().join(name);
        let height = values.len().checked_div(width).unwrap_or(0);
        let paths = node_heatmap(&stem, name, (width, height), values, "value", None).unwrap();
        assert_written(&paths, &stem, &[name]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
    }
}

#[test]
fn node_heatmap_rejects_wrong_length() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("bad");
    for (width, height) in [(3, 3), (usize::MAX, 2)] {
        let error = node_heatmap(&stem, "bad", (width, height), &[1.0; 4], "v", None).unwrap_err();
        assert!(
            matches!(error, PlotError::HeatmapSize { len: 4, .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("bad"), "{error}");
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn stem_keeps_dots_and_missing_directories_are_created() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("nested/dir/load.0.5");
    let paths = latency_cdf(&stem, "dots", &[(5, 1.0)], None).unwrap();
    assert_written(&paths, &stem, &["dots"]);
}

#[test]
fn unwritable_output_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("taken");
    fs::create_dir(dir.path().join("taken.svg")).unwrap();
    let error = latency_cdf(&stem, "t", &[(5, 1.0)], None).unwrap_err();
    assert!(matches!(error, PlotError::Draw { .. }), "{error:?}");
    assert!(error.to_string().contains("taken.svg"), "{error}");
}

const LINES_AXES: [&str; 2] = ["offered load", "99th percentile latency (cycles)"];

/// `lines` with the axes of [`LINES_AXES`].
fn draw_lines(stem: &Path, title: &str, series: &[Series], scale: YScale) -> Vec<PathBuf> {
    let [x, y] = LINES_AXES;
    lines(stem, title, x, y, series, scale).unwrap()
}

#[test]
fn lines_draws_labels_legend_saturation_and_marked_points() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("lines");
    let rising = |scale: f64| {
        (1..=6)
            .map(|i| point(f64::from(i) * 0.1, scale * f64::from(i), i == 6))
            .collect()
    };
    let all = [
        series("no control", rising(10.0), Some(0.45)),
        series("ALO", rising(8.0), Some(1250.0)),
        series("", rising(5.0), None),
    ];
    let paths = draw_lines(&stem, "Tail latency", &all, YScale::Auto);
    assert_written(
        &paths,
        &stem,
        &[
            "Tail latency",
            LINES_AXES[0],
            LINES_AXES[1],
            "no control (saturation ≈ 0.450)",
            "ALO (saturation ≈ 1250)",
            "past saturation",
        ],
    );
    assert_eq!(png_size(&paths[1]), (900, 600));
    assert_eq!(legends(&paths), 1);
    // Every point is drawn, the last of each series past saturation.
    let (_, rows) = table(&paths);
    assert_eq!(rows.len(), 18);
    let marked: Vec<f64> = rows
        .iter()
        .filter(|r| r[4] == "true")
        .map(|r| number(&r[1]).unwrap())
        .collect();
    assert_eq!(marked, [6.0 * 0.1; 3]);
}

#[test]
fn lines_auto_scale_is_log_when_values_span_more_than_20x() {
    let dir = tempfile::tempdir().unwrap();
    let spanning = [series(
        "s",
        vec![point(0.1, 20.0, false), point(0.3, 2000.0, false)],
        None,
    )];
    // 1-2-5 ticks of a log axis; a linear 0..2000 axis has no tick at 50.
    let log_ticks = ["\n50\n", "\n500\n"];
    let stem = dir.path().join("auto");
    let paths = draw_lines(&stem, "auto", &spanning, YScale::Auto);
    assert_written(&paths, &stem, &log_ticks);
    let paths = draw_lines(
        &dir.path().join("linear"),
        "linear",
        &spanning,
        YScale::Linear,
    );
    assert!(!svg(&paths).contains(log_ticks[0]));

    let narrow = [series(
        "s",
        vec![point(0.1, 100.0, false), point(0.3, 1900.0, false)],
        None,
    )];
    let paths = draw_lines(&dir.path().join("narrow"), "narrow", &narrow, YScale::Auto);
    assert!(!svg(&paths).contains(log_ticks[0]), "19x is linear");
    let stem = dir.path().join("forced");
    let paths = draw_lines(&stem, "forced", &narrow, YScale::Log);
    assert_written(&paths, &stem, &["\n200\n", "\n500\n", "\n1000\n"]);
}

#[test]
fn lines_handles_degenerate_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("empty", vec![], YScale::Auto, true),
        (
            "no-points",
            vec![series("none", vec![], None)],
            YScale::Auto,
            true,
        ),
        (
            "non-finite",
            vec![series(
                "nan",
                vec![
                    point(f64::NAN, 1.0, false),
                    point(1.0, f64::NEG_INFINITY, true),
                ],
                Some(f64::INFINITY),
            )],
            YScale::Auto,
            true,
        ),
        (
            "single",
            vec![series("one", vec![point(3.0, 7.0, true)], None)],
            YScale::Auto,
            false,
        ),
        (
            "equal",
            vec![series("eq", vec![point(2.0, 5.0, false); 3], Some(2.0))],
            YScale::Log,
            false,
        ),
        (
            "negative",
            vec![series(
                "neg",
                vec![point(-1.0, -4.0, false), point(-2.0, -4.0, false)],
                None,
            )],
            YScale::Linear,
            false,
        ),
        (
            "log-some-positive",
            vec![series(
                "mixed",
                vec![
                    point(1.0, -1.0, false),
                    point(2.0, 0.0, true),
                    point(3.0, 40.0, false),
                ],
                None,
            )],
            YScale::Log,
            false,
        ),
        (
            "log-none-positive",
            vec![series(
                "zeros",
                vec![point(1.0, 0.0, false), point(2.0, -3.0, true)],
                None,
            )],
            YScale::Log,
            true,
        ),
    ];
    for (name, input, scale, no_data) in cases {
        let stem = dir.path().join(name);
        let paths = draw_lines(&stem, name, &input, scale);
        assert_written(&paths, &stem, &[name, LINES_AXES[0], LINES_AXES[1]]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
    }
}

#[test]
fn lines_without_labels_has_no_legend() {
    let dir = tempfile::tempdir().unwrap();
    let unlabelled = series(
        "",
        vec![point(1.0, 2.0, false), point(2.0, 3.0, false)],
        None,
    );
    let two = [unlabelled.clone(), unlabelled];
    let paths = draw_lines(&dir.path().join("one"), "one", &two[..1], YScale::Auto);
    assert_eq!(legends(&paths), 0);
    // Nothing to name: no legend either.
    let paths = draw_lines(&dir.path().join("two"), "two", &two, YScale::Auto);
    assert_eq!(legends(&paths), 0);
    // A past-saturation point needs explaining.
    let mut marked = two[0].clone();
    marked.points[1].marked = true;
    let paths = draw_lines(
        &dir.path().join("marked"),
        "marked",
        &[marked],
        YScale::Auto,
    );
    assert_eq!(legends(&paths), 1);
    assert!(svg(&paths).contains("past saturation"));
}

/// A time series over cycles 1000, 1010, ...
fn over_time(label: &str, n: u32, y: impl Fn(f64) -> f64) -> Series {
    let points = (0..n)
        .map(|i| {
            let t = 1000.0 + 10.0 * f64::from(i);
            point(t, y(t), false)
        })
        .collect();
    series(label, points, None)
}

fn panel(y_label: &str, series: Vec<Series>, scale: YScale) -> Panel {
    Panel {
        y_label: y_label.into(),
        series,
        scale,
    }
}

/// Height of the legend strip above stacked panels, with one row.
const LEGEND_ROW: u32 = 40;
/// Height of the note under the title.
const NOTE: u32 = 26;

#[test]
fn panels_stack_charts_on_a_shared_x_axis() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("panels");
    let stacked = [
        panel(
            "delivered throughput (flits/node/cycle)",
            vec![
                over_time("offered", 200, |_| 0.5),
                over_time("delivered", 200, |t| 0.4 + t / 1e6),
            ],
            YScale::Auto,
        ),
        panel(
            "threshold",
            vec![over_time("", 200, |t| t / 1e4)],
            YScale::Linear,
        ),
        panel(
            "throttled",
            vec![over_time("", 50, |t| 0.25 + t / 1e5)],
            YScale::Auto,
        ),
    ];
    let paths = panels(&stem, "Throttling over time", "cycle", &stacked, 1).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "Throttling over time",
            "\ncycle\n",
            "threshold",
            "throttled",
            "offered",
            "\ndelivered\n",
        ],
    );
    assert_eq!(png_size(&paths[1]), (900, 3 * 250 + 90 + LEGEND_ROW));
    assert_eq!(legends(&paths), 1);
    // Markers (diamonds) only on the 50-point series (the legend shows
    // none: its series have none).
    assert_eq!(svg(&paths).matches("<polygon").count(), 50);
    assert_eq!(svg(&paths).matches("<circle").count(), 0);
    // The long y description is broken in two lines.
    let text = svg(&paths);
    assert!(text.contains("\ndelivered throughput\n") && text.contains("\n(flits/node/cycle)\n"));
}

#[test]
fn panels_share_one_legend_and_leave_out_empty_and_constant_panels() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("shared");
    let both = |scale: f64| {
        vec![
            over_time("first run", 100, move |t| scale * t),
            over_time("second run", 100, move |t| scale * (t + 500.0)),
        ]
    };
    let stacked = [
        panel("delivered", both(1.0), YScale::Linear),
        panel(
            "full buffers",
            vec![over_time("first run", 100, |_| 0.0)],
            YScale::Linear,
        ),
        panel("nothing here", vec![], YScale::Linear),
        panel("queued", both(2.0), YScale::Linear),
        panel(
            "stalls",
            vec![over_time("second run", 100, |_| 3.5)],
            YScale::Log,
        ),
    ];
    let paths = panels(&stem, "Shared", "cycle", &stacked, 1).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "constant: full buffers = 0, stalls = 3.5",
            "\ndelivered\n",
            "\nqueued\n",
        ],
    );
    let text = svg(&paths);
    for left_out in ["\nfull buffers\n", "nothing here", "\nstalls\n", "no data"] {
        assert!(!text.contains(left_out), "{left_out:?} drawn");
    }
    // One legend naming each run once, above two panels.
    assert_eq!(legends(&paths), 1);
    for label in ["\nfirst run\n", "\nsecond run\n"] {
        assert_eq!(text.matches(label).count(), 1, "{label:?}");
    }
    assert_eq!(png_size(&paths[1]), (900, 2 * 250 + 90 + NOTE + LEGEND_ROW));
    // The data file keeps the constant panels' points.
    let (header, rows) = table(&paths);
    assert_eq!(header, ["panel", "series", "x", "y", "error", "marked"]);
    let per_panel = |name: &str| rows.iter().filter(|r| r[0] == name).count();
    assert_eq!(per_panel("delivered"), 200);
    assert_eq!(per_panel("full buffers"), 100);
    assert_eq!(per_panel("stalls"), 100);
    assert_eq!(per_panel("nothing here"), 0);
}

#[test]
fn smoothed_panels_draw_and_record_a_centred_moving_average() {
    let dir = tempfile::tempdir().unwrap();
    // Alternating 0 and 3: a window of 3 gives 1 and 2 inside, 1.5 at the ends.
    let zigzag = over_time("z", 6, |t| {
        if (t as u32 / 10).is_multiple_of(2) {
            0.0
        } else {
            3.0
        }
    });
    let stacked = [panel("zigzag", vec![zigzag.clone()], YScale::Linear)];
    let y = |paths: &[PathBuf]| -> Vec<f64> {
        table(paths)
            .1
            .iter()
            .map(|r| number(&r[3]).unwrap())
            .collect()
    };
    let paths = panels(&dir.path().join("raw"), "raw", "cycle", &stacked, 1).unwrap();
    assert_eq!(y(&paths), [0.0, 3.0, 0.0, 3.0, 0.0, 3.0]);
    // A window of 0 leaves the series as they are too.
    let plain = panels(&dir.path().join("plain"), "raw", "cycle", &stacked, 0).unwrap();
    assert_eq!(y(&plain), y(&paths));
    let paths = panels(&dir.path().join("smooth"), "smooth", "cycle", &stacked, 3).unwrap();
    assert_eq!(y(&paths), [1.5, 1.0, 2.0, 1.0, 2.0, 1.5]);
    // x is kept.
    let xs: Vec<f64> = table(&paths)
        .1
        .iter()
        .map(|r| number(&r[2]).unwrap())
        .collect();
    let expected: Vec<f64> = zigzag.points.iter().map(|p| p.x).collect();
    assert_eq!(xs, expected);
}

#[test]
fn panels_use_log_axis_for_values_spanning_more_than_20x() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("log");
    let latency = over_time("", 100, |t| (t - 990.0) * 2.0);
    let paths = panels(
        &stem,
        "log",
        "cycle",
        &[panel("latency", vec![latency], YScale::Auto)],
        1,
    )
    .unwrap();
    // 1-2-5 ticks of a log axis over 20..2000; a linear one has no tick at 50.
    assert_written(&paths, &stem, &["\n50\n", "\n500\n"]);
    assert_eq!(png_size(&paths[1]), (900, 250 + 90));
}

#[test]
fn panels_handle_degenerate_input() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("none");
    let paths = panels(&stem, "no panels", "cycle", &[], 1).unwrap();
    assert_written(&paths, &stem, &["no panels"]);
    assert!(notes_no_data(&paths));
    assert_eq!(png_size(&paths[1]), (900, 250 + 90));

    let nan = series(
        "",
        vec![point(f64::NAN, 1.0, false), point(5.0, f64::INFINITY, true)],
        None,
    );
    // (name, panels, "no data", panels drawn, legend rows)
    let cases = [
        ("empty-panel", vec![Panel::default()], true, 1, 0),
        (
            "nan-only",
            vec![panel("y", vec![nan.clone()], YScale::Auto)],
            true,
            1,
            0,
        ),
        (
            "one-empty-of-two",
            vec![
                panel("", vec![over_time("", 10, |_| 1.0)], YScale::Log),
                panel("y", vec![], YScale::Auto),
            ],
            false,
            1,
            0,
        ),
        (
            "single-point",
            vec![panel(
                "y",
                vec![series("p", vec![point(7.0, 3.0, true)], Some(7.0))],
                YScale::Auto,
            )],
            false,
            1,
            1,
        ),
        (
            "all-equal",
            vec![
                panel(
                    "y",
                    vec![over_time("a", 1, |_| 0.0), over_time("b", 1, |_| 0.0)],
                    YScale::Auto,
                ),
                panel("z", vec![over_time("", 1, |_| 5.0)], YScale::Log),
            ],
            false,
            2,
            1,
        ),
        (
            "log-non-positive",
            vec![panel(
                "y",
                vec![over_time("", 100, |t| t - 1500.0), nan],
                YScale::Log,
            )],
            false,
            1,
            0,
        ),
    ];
    for (name, stacked, no_data, drawn, legend) in cases {
        let stem = dir.path().join(name);
        let paths = panels(&stem, name, "x", &stacked, 1).unwrap();
        assert_written(&paths, &stem, &[name]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
        assert!(!svg(&paths).contains("constant:"), "{name}");
        let height = 250 * drawn + 90 + legend * LEGEND_ROW;
        assert_eq!(png_size(&paths[1]), (900, height), "{name}");
    }
}

#[test]
fn node_time_heatmap_labels_time_and_nodes_and_checks_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("pending");
    // 5 samples of 3 nodes, sample after sample.
    let values: Vec<f64> = (0..15).map(f64::from).collect();
    let paths = node_time_heatmap(
        &stem,
        "Pending",
        (5, 3),
        &values,
        "time (windows of 100 cycles)",
        "packets",
        Some((0.0, 20.0)),
    )
    .unwrap();
    assert_written(
        &paths,
        &stem,
        &["Pending", "time (windows of 100 cycles)", "node"],
    );
    let error = node_time_heatmap(&stem, "bad", (4, 3), &values, "t", "v", None).unwrap_err();
    assert!(
        matches!(error, PlotError::HeatmapSize { len: 15, .. }),
        "{error:?}"
    );
}

#[test]
fn port_heatmap_lays_switches_out_by_port_and_greys_missing_ports() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("ports");
    // 2 switches of 3 ports, the second lacking its last port.
    let values = [0.0, 0.5, 1.0, 0.25, 1.0, f64::NAN];
    let paths = port_heatmap(&stem, "Tree", (3, 2), &values, "share", Some((0.0, 1.0))).unwrap();
    assert_written(&paths, &stem, &["Tree", "port", "switch"]);
    let (header, rows) = table(&paths);
    assert_eq!(header, ["port", "switch", "value"]);
    assert_eq!(rows[3], ["0", "1", "0.25"]);
    assert_eq!(rows[5], ["2", "1", ""]);
    let error = port_heatmap(&stem, "bad", (4, 2), &values, "v", None).unwrap_err();
    assert!(
        matches!(error, PlotError::HeatmapSize { len: 6, .. }),
        "{error:?}"
    );
}

/// The points of a line chart's data file, by series label.
fn drawn_points(paths: &[PathBuf]) -> Vec<(String, Point, Option<f64>)> {
    let (header, rows) = table(paths);
    assert_eq!(
        header,
        ["series", "x", "y", "error", "marked", "saturation"]
    );
    rows.iter()
        .map(|r| {
            let p = Point {
                x: number(&r[1]).unwrap(),
                y: number(&r[2]).unwrap(),
                error: number(&r[3]),
                marked: match r[4].as_str() {
                    "true" => true,
                    "false" => false,
                    other => panic!("marked: {other:?}"),
                },
            };
            (r[0].clone(), p, number(&r[5]))
        })
        .collect()
}

#[test]
fn line_data_files_round_trip_the_points_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let good = vec![
        Point {
            x: 0.1,
            y: 20.5,
            marked: false,
            error: Some(1.25),
        },
        Point {
            x: 0.2,
            y: 100.0 / 3.0,
            marked: false,
            error: None,
        },
        Point {
            x: 0.35,
            y: 480.0,
            marked: true,
            error: Some(60.0),
        },
    ];
    let mut given = good.clone();
    // Not drawn: a non-finite coordinate; drawn without its unusable error.
    given.push(point(f64::NAN, 1.0, false));
    given.push(Point {
        x: 0.4,
        y: 500.0,
        marked: true,
        error: Some(-3.0),
    });
    let mut expected_a = good.clone();
    expected_a.push(point(0.4, 500.0, true));
    let all = [
        series("a, with \"quotes\"", given, Some(0.3)),
        series("", good[..1].to_vec(), None),
    ];
    let mut expected: Vec<(String, Point, Option<f64>)> = expected_a
        .into_iter()
        .map(|p| (all[0].label.clone(), p, Some(0.3)))
        .collect();
    expected.push((String::new(), good[0], None));
    type Draw = fn(&Path, &str, &[Series]) -> Result<Vec<PathBuf>, PlotError>;
    let plots: [(&str, Draw); 3] = [
        ("offered", latency_offered),
        ("accepted", accepted_offered),
        ("lines", |stem, title, series| {
            lines(stem, title, "x", "y", series, YScale::Linear)
        }),
    ];
    for (name, draw) in plots {
        let stem = dir.path().join(name);
        let paths = draw(&stem, name, &all).unwrap();
        assert_written(&paths, &stem, &[name]);
        assert_eq!(drawn_points(&paths), expected, "{name}");
    }
    // On a logarithmic axis points at or below zero are not drawn.
    let zero = [series(
        "z",
        vec![point(1.0, 0.0, false), point(2.0, 5.0, false)],
        None,
    )];
    let paths = draw_lines(&dir.path().join("log"), "log", &zero, YScale::Log);
    let ys: Vec<f64> = drawn_points(&paths).iter().map(|(_, p, _)| p.y).collect();
    assert_eq!(ys, [5.0]);
}

#[test]
fn cdf_and_heat_map_data_files_hold_the_values_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let cdf = [(30, 0.5), (10, 0.25), (40, f64::NAN), (50, 1.5)];
    let paths = latency_cdf(&dir.path().join("cdf"), "cdf", &cdf, None).unwrap();
    let (header, rows) = table(&paths);
    assert_eq!(header, ["latency_cycles", "cumulative_fraction"]);
    assert_eq!(rows, [["10", "0.25"], ["30", "0.5"], ["50", "1.0"]]);

    let values = [0.5, f64::NAN, 1.0 / 3.0, 2.0, 3.0, 4.0];
    let paths = node_heatmap(&dir.path().join("map"), "map", (3, 2), &values, "v", None).unwrap();
    let (header, rows) = table(&paths);
    assert_eq!(header, ["x", "y", "value"]);
    assert_eq!(rows.len(), 6);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            (row[0].as_str(), row[1].as_str()),
            (&*(i % 3).to_string(), &*(i / 3).to_string())
        );
        let value = number(&row[2]);
        assert_eq!(value, Some(values[i]).filter(|v| v.is_finite()), "{i}");
    }

    // 2 samples of 3 nodes, sample after sample.
    let values = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0];
    let paths = node_time_heatmap(
        &dir.path().join("time"),
        "time",
        (2, 3),
        &values,
        "t",
        "v",
        None,
    )
    .unwrap();
    let (header, rows) = table(&paths);
    assert_eq!(header, ["time", "node", "value"]);
    let mut cells: Vec<(u32, u32, f64)> = rows
        .iter()
        .map(|r| {
            (
                r[0].parse().unwrap(),
                r[1].parse().unwrap(),
                number(&r[2]).unwrap(),
            )
        })
        .collect();
    cells.sort_by_key(|&(t, node, _)| (t, node));
    let expected: Vec<(u32, u32, f64)> =
        (0..6).map(|i| (i / 3, i % 3, values[i as usize])).collect();
    assert_eq!(cells, expected);
}

#[test]
fn error_bars_are_covered_by_the_y_axis() {
    let dir = tempfile::tempdir().unwrap();
    let rising = |error: Option<f64>| {
        let points = (1..=4)
            .map(|i| Point {
                x: f64::from(i),
                y: 10.0 + f64::from(i) * 2.0,
                marked: false,
                error: if i == 2 { error } else { None },
            })
            .collect();
        series("s", points, None)
    };
    let ticks = |paths: &[PathBuf]| -> Vec<f64> {
        svg(paths)
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next()?.trim().parse().ok())
            .collect()
    };
    let top = |paths: &[PathBuf]| ticks(paths).into_iter().fold(f64::MIN, f64::max);
    let plain = draw_lines(
        &dir.path().join("plain"),
        "p",
        &[rising(None)],
        YScale::Linear,
    );
    assert!(top(&plain) < 20.0, "{:?}", ticks(&plain));
    // y = 14 with an error of 50: the axis reaches 64 and below -36.
    let wide = draw_lines(
        &dir.path().join("wide"),
        "w",
        &[rising(Some(50.0))],
        YScale::Linear,
    );
    assert!(top(&wide) >= 60.0, "{:?}", ticks(&wide));
    assert!(
        ticks(&wide).iter().any(|&t| t <= -30.0),
        "{:?}",
        ticks(&wide)
    );
    // Logarithmic: the upper end counts, the lower end (below zero) is left
    // out and the axis stays logarithmic.
    let log = draw_lines(
        &dir.path().join("log"),
        "l",
        &[rising(Some(500.0))],
        YScale::Log,
    );
    assert!(top(&log) >= 500.0, "{:?}", ticks(&log));
    assert!(ticks(&log).iter().all(|&t| t >= 0.0), "{:?}", ticks(&log));
    assert!(svg(&log).contains("\n50\n"), "not logarithmic");
}

/// The `<name ...>` tags of `svg` containing `text`.
fn tags<'a>(svg: &'a str, name: &str, text: &str) -> Vec<&'a str> {
    svg.split('<')
        .filter(|tag| tag.starts_with(&format!("{name} ")) && tag.contains(text))
        .collect()
}

/// Number of pixels of exactly `colour` in the PNG of `paths`.
fn pixels_of(paths: &[PathBuf], colour: [u8; 3]) -> usize {
    let image = Image::read(&paths[1]);
    (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .filter(|&(x, y)| image.pixel(x, y) == colour)
        .count()
}

#[test]
fn identical_series_both_stay_visible() {
    let dir = tempfile::tempdir().unwrap();
    let curve = |label: &str| {
        let points = (0..=10)
            .map(|i| point(f64::from(i), f64::from(i * i), false))
            .collect();
        series(label, points, None)
    };
    let paths = draw_lines(
        &dir.path().join("twins"),
        "twins",
        &[curve("first"), curve("second")],
        YScale::Linear,
    );
    // The first series (blue) shows between the dashes of the second
    // (orange), drawn over it; its legend sample alone is far smaller.
    let (blue, orange) = ([0, 114, 178], [230, 159, 0]);
    assert!(pixels_of(&paths, blue) > 400, "{}", pixels_of(&paths, blue));
    assert!(
        pixels_of(&paths, orange) > 400,
        "{}",
        pixels_of(&paths, orange)
    );
    // Different marker shapes: circles for the first (polygons where cut at
    // the plotting area's edge), squares for the second; one more each in
    // the legend.
    let text = svg(&paths);
    let blue_polygons = tags(&text, "polygon", r##"fill="#0072B2""##);
    assert_eq!(
        tags(&text, "circle", "").len() + blue_polygons.len(),
        11 + 1
    );
    assert_eq!(tags(&text, "polygon", r##"fill="#E69F00""##).len(), 11 + 1);
}

#[test]
fn past_saturation_points_are_hollow_markers_in_the_series_colour() {
    let dir = tempfile::tempdir().unwrap();
    let all = [
        series(
            "circles",
            vec![
                point(0.1, 10.0, false),
                point(0.2, 20.0, false),
                point(0.3, 90.0, true),
            ],
            None,
        ),
        series(
            "squares",
            vec![point(0.1, 12.0, false), point(0.25, 80.0, true)],
            None,
        ),
    ];
    let paths = latency_offered(&dir.path().join("hollow"), "hollow", &all).unwrap();
    let text = svg(&paths);
    // Hollow: white inside, outlined in the series' colour; one more circle in
    // the legend's sample (grey).
    let white = r##"fill="#FFFFFF""##;
    assert_eq!(tags(&text, "circle", white).len(), 1 + 1);
    assert_eq!(tags(&text, "polygon", white).len(), 1);
    let outlined = tags(&text, "circle", r##"stroke="#0072B2" stroke-width="2""##);
    assert_eq!(outlined.len(), 1);
    assert!(outlined[0].contains(r##"fill="none""##));
    // Filled markers on the other points (one more in the legend).
    assert_eq!(tags(&text, "circle", r##"fill="#0072B2""##).len(), 2 + 1);
    assert_eq!(tags(&text, "polygon", r##"fill="#E69F00""##).len(), 1 + 1);
    assert!(text.contains("past saturation") && !text.contains("saturated run"));
    assert_eq!(legends(&paths), 1);
}

#[test]
fn offered_load_charts_name_their_axes_and_draw_the_ideal_line() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = [series(
        "uniform",
        vec![
            point(0.1, 0.1, false),
            point(0.5, 0.4, false),
            point(0.8, 0.41, true),
        ],
        None,
    )];
    let stem = dir.path().join("accepted");
    let paths = accepted_offered(&stem, "Accepted", &sweep).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "offered load (flits/node/cycle)",
            "accepted throughput (flits/node/cycle)",
            "accepted = offered",
            "past saturation",
        ],
    );
    // The y axis covers the ideal line over the x range (0.8 and more).
    let text = svg(&paths);
    assert!(text.contains("\n0.8\n"), "no tick at 0.8");
    let stem = dir.path().join("latency");
    let paths = latency_offered(&stem, "Latency", &sweep).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "offered load (flits/node/cycle)",
            "mean packet latency (cycles)",
        ],
    );
    assert!(!svg(&paths).contains("accepted = offered"));
}

#[test]
fn latency_cdf_can_carry_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let cdf = [(10, 0.5), (20, 1.0)];
    let note = "3 of 40 measured packets undelivered: missing from this distribution";
    let stem = dir.path().join("noted");
    let paths = latency_cdf(&stem, "Noted", &cdf, Some(note)).unwrap();
    assert_written(&paths, &stem, &["Noted", note]);
    let plain = latency_cdf(&dir.path().join("plain"), "Noted", &cdf, None).unwrap();
    assert!(!svg(&plain).contains("undelivered"));
    assert_eq!(png_size(&paths[1]), png_size(&plain[1]));
}

/// An RGB image decoded from a PNG file.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> Self {
        let decoder = png::Decoder::new(fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb, "{path:?}");
        assert_eq!(info.bit_depth, png::BitDepth::Eight, "{path:?}");
        buffer.truncate(info.buffer_size());
        Self {
            width: info.width as usize,
            height: info.height as usize,
            rgb: buffer,
        }
    }

    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let at = 3 * (y * self.width + x);
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }
}

/// A plot area of a chart image: columns `left..=right`, rows `top..=bottom`.
#[derive(Debug, Clone, Copy)]
struct Area {
    left: usize,
    top: usize,
    right: usize,
    bottom: usize,
}

impl Area {
    /// Whether `(x, y)` is inside, or within `slack` pixels of, the area.
    fn near(&self, (x, y): (usize, usize), slack: usize) -> bool {
        x + slack >= self.left
            && x <= self.right + slack
            && y + slack >= self.top
            && y <= self.bottom + slack
    }
}

const BLACK: [u8; 3] = [0, 0, 0];

/// The plot areas of a chart whose data do not cover its axes, found from the black axis
/// lines: each x axis is a long horizontal black run, the y axes share the column holding
/// the longest vertical black run.
fn plot_areas(image: &Image) -> Vec<Area> {
    let black = |x: usize, y: usize| image.pixel(x, y) == BLACK;
    let longest_run = |cells: &mut dyn Iterator<Item = bool>| {
        let (mut run, mut best, mut end) = (0, 0, 0);
        for (i, on) in cells.enumerate() {
            run = if on { run + 1 } else { 0 };
            if run > best {
                (best, end) = (run, i);
            }
        }
        (best, end)
    };
    let axis = (0..image.width)
        .max_by_key(|&x| longest_run(&mut (0..image.height).map(|y| black(x, y))).0)
        .unwrap();
    let mut areas = Vec::new();
    for y in 1..image.height {
        let (run, end) = longest_run(&mut (0..image.width).map(|x| black(x, y)));
        if run < image.width / 3 || !black(axis, y - 1) {
            continue;
        }
        let top = (0..y).rev().take_while(|&t| black(axis, t)).last().unwrap();
        areas.push(Area {
            left: axis + 1,
            top,
            right: end,
            bottom: y - 1,
        });
    }
    areas
}

/// The pixels outside `areas` (and `slack` pixels around them) where `a` and `b` differ.
fn differences_outside(a: &Image, b: &Image, areas: &[Area], slack: usize) -> Vec<(usize, usize)> {
    assert_eq!((a.width, a.height), (b.width, b.height));
    (0..a.height)
        .flat_map(|y| (0..a.width).map(move |x| (x, y)))
        .filter(|&p| !areas.iter().any(|area| area.near(p, slack)))
        .filter(|&(x, y)| a.pixel(x, y) != b.pixel(x, y))
        .collect()
}

/// A dense, wildly swinging series: `n` points over x = 0..n, alternating between about
/// `high` and about `low`.
fn swinging(label: &str, n: u32, (low, high): (f64, f64), seed: u32) -> Series {
    let points = (0..n)
        .map(|i| {
            let wobble = f64::from((i * 7919 + seed * 104_729) % 101) / 100.0;
            let y = if i.is_multiple_of(2) {
                high * (0.9 + wobble / 10.0)
            } else {
                low * (1.0 + wobble)
            };
            point(f64::from(i), y, false)
        })
        .collect();
    series(label, points, None)
}

/// A series with the same label and extremes as `dense` but a straight, evenly sampled
/// line from its smallest to its largest point (no sharp turns; no markers in panels).
fn straight_like(dense: &Series) -> Series {
    let xs = dense.points.iter().map(|p| p.x);
    let ys = dense.points.iter().map(|p| p.y);
    let (x0, x1) = (
        xs.clone().fold(f64::INFINITY, f64::min),
        xs.fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = (
        ys.clone().fold(f64::INFINITY, f64::min),
        ys.fold(f64::NEG_INFINITY, f64::max),
    );
    let points = (0..=100)
        .map(|i| {
            let t = f64::from(i) / 100.0;
            point(x0 + t * (x1 - x0), y0 + t * (y1 - y0), false)
        })
        .collect();
    series(&dense.label, points, None)
}

#[test]
fn dense_lines_and_edge_markers_stay_inside_their_panels() {
    let dir = tempfile::tempdir().unwrap();
    // Several points per pixel column, swinging across the whole panel; a short series
    // (drawn with markers) whose first and last points sit on the ends of the x range.
    let dense = [
        panel(
            "linear",
            vec![
                swinging("first", 4000, (1.0, 1000.0), 1),
                swinging("second", 4000, (5.0, 800.0), 2),
            ],
            YScale::Linear,
        ),
        panel(
            "log",
            vec![swinging("first", 4000, (1e-3, 1e4), 3)],
            YScale::Log,
        ),
        panel(
            "edges",
            vec![swinging("second", 40, (0.0, 10.0), 4)],
            YScale::Linear,
        ),
    ];
    let mut edges = dense[2].series[0].clone();
    let last = edges.points.len() - 1;
    edges.points[last].x = 3999.0;
    let dense = [
        dense[0].clone(),
        dense[1].clone(),
        panel("edges", vec![edges], YScale::Linear),
    ];
    let reference: Vec<Panel> = dense
        .iter()
        .map(|p| {
            panel(
                &p.y_label,
                p.series.iter().map(straight_like).collect(),
                p.scale,
            )
        })
        .collect();
    let drawn = panels(&dir.path().join("dense"), "dense", "cycle", &dense, 1).unwrap();
    let plain = panels(&dir.path().join("plain"), "dense", "cycle", &reference, 1).unwrap();
    let (drawn, plain) = (Image::read(&drawn[1]), Image::read(&plain[1]));
    let areas = plot_areas(&plain);
    assert_eq!(areas.len(), 3, "{areas:?}");
    let outside = differences_outside(&drawn, &plain, &areas, 0);
    assert!(
        outside.is_empty(),
        "{} pixels drawn outside the panels, e.g. {:?}",
        outside.len(),
        &outside[..outside.len().min(10)]
    );

    // The same for a single chart (markers on every point).
    let dense = [swinging("first", 3000, (1.0, 1000.0), 5)];
    let reference = [straight_like(&dense[0])];
    let drawn = draw_lines(
        &dir.path().join("dense-lines"),
        "dense",
        &dense,
        YScale::Linear,
    );
    let plain = draw_lines(
        &dir.path().join("plain-lines"),
        "dense",
        &reference,
        YScale::Linear,
    );
    let (drawn, plain) = (Image::read(&drawn[1]), Image::read(&plain[1]));
    let areas = plot_areas(&plain);
    assert_eq!(areas.len(), 1, "{areas:?}");
    let outside = differences_outside(&drawn, &plain, &areas, 0);
    assert!(
        outside.is_empty(),
        "{} pixels drawn outside the chart, e.g. {:?}",
        outside.len(),
        &outside[..outside.len().min(10)]
    );
}
