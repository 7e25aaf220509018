//! Each plot function writes a readable SVG and PNG and handles degenerate
//! input without panicking.

use std::fs;
use std::path::{Path, PathBuf};

use tailback_plot::{
    Panel, PlotError, Point, Series, YScale, latency_cdf, latency_throughput, lines, node_heatmap,
    node_time_heatmap, panels,
};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Asserts that `paths` are `<stem>.svg` and `<stem>.png`, that the PNG is a
/// real image and that the SVG contains every one of `texts`.
fn assert_written(paths: &[PathBuf], stem: &Path, texts: &[&str]) {
    let expected = ["svg", "png"].map(|ext| PathBuf::from(format!("{}.{ext}", stem.display())));
    assert_eq!(paths, expected);
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

/// Number of legends in the SVG of `paths` (each has a grey border).
fn legends(paths: &[PathBuf]) -> usize {
    svg(paths).matches(r##"stroke="#A0A0A0""##).count()
}

fn point(x: f64, y: f64, marked: bool) -> Point {
    Point { x, y, marked }
}

fn series(label: &str, points: Vec<Point>, saturation: Option<f64>) -> Series {
    Series {
        label: label.into(),
        points,
        saturation,
    }
}

const THROUGHPUT_AXES: [&str; 2] = [
    "accepted throughput (flits/node/cycle)",
    "mean packet latency (cycles)",
];

#[test]
fn latency_throughput_draws_series_saturation_and_marked_points() {
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
    let paths = latency_throughput(&stem, "Mesh 8x8", &all).unwrap();
    assert_written(
        &paths,
        &stem,
        &[
            "Mesh 8x8",
            THROUGHPUT_AXES[0],
            THROUGHPUT_AXES[1],
            "uniform (saturation ≈ 0.420)",
            "transpose",
            "saturated run",
        ],
    );
}

#[test]
fn latency_throughput_uses_log_axis_for_exploding_latency() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("log");
    let points = vec![point(0.1, 20.0, false), point(0.3, 2000.0, true)];
    let paths = latency_throughput(&stem, "Log", &[series("s", points, None)]).unwrap();
    // 1-2-5 ticks of a log axis; a linear 0..2000 axis has no tick at 50.
    assert_written(&paths, &stem, &["\n50\n", "\n500\n", "\n1000\n"]);
}

#[test]
fn latency_throughput_without_data_notes_no_data() {
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
        let paths = latency_throughput(&stem, name, &input).unwrap();
        assert_written(
            &paths,
            &stem,
            &[name, THROUGHPUT_AXES[0], THROUGHPUT_AXES[1]],
        );
        assert!(notes_no_data(&paths), "{name}");
    }
}

#[test]
fn latency_throughput_handles_single_and_equal_points() {
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
        let paths = latency_throughput(&stem, name, &[series(name, points, Some(0.2))]).unwrap();
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
    let paths = latency_cdf(&stem, "Latency CDF", &cdf).unwrap();
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
        let paths = latency_cdf(&stem, name, &cdf).unwrap();
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
    let paths = latency_cdf(&stem, "dots", &[(5, 1.0)]).unwrap();
    assert_written(&paths, &stem, &["dots"]);
}

#[test]
fn unwritable_output_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("taken");
    fs::create_dir(dir.path().join("taken.svg")).unwrap();
    let error = latency_cdf(&stem, "t", &[(5, 1.0)]).unwrap_err();
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
            "saturated run",
        ],
    );
    assert_eq!(png_size(&paths[1]), (900, 600));
    assert_eq!(legends(&paths), 1);
    // Markers on unmarked points only: 3 x 5.
    assert_eq!(svg(&paths).matches("<circle").count(), 15);
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
    let paths = draw_lines(&dir.path().join("two"), "two", &two, YScale::Auto);
    assert_eq!(legends(&paths), 1);
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
        panel("throttled", vec![over_time("", 50, |_| 0.25)], YScale::Auto),
    ];
    let paths = panels(&stem, "Throttling over time", "cycle", &stacked).unwrap();
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
    assert_eq!(png_size(&paths[1]), (900, 3 * 250 + 90));
    // Only the first panel has more than one series or a label.
    assert_eq!(legends(&paths), 1);
    // Markers only on the 50-point series.
    assert_eq!(svg(&paths).matches("<circle").count(), 50);
    // The long y description is broken in two lines.
    let text = svg(&paths);
    assert!(text.contains("\ndelivered throughput\n") && text.contains("\n(flits/node/cycle)\n"));
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
    let paths = panels(&stem, "no panels", "cycle", &[]).unwrap();
    assert_written(&paths, &stem, &["no panels"]);
    assert!(notes_no_data(&paths));
    assert_eq!(png_size(&paths[1]), (900, 250 + 90));

    let nan = series(
        "",
        vec![point(f64::NAN, 1.0, false), point(5.0, f64::INFINITY, true)],
        None,
    );
    let cases = [
        ("empty-panel", vec![Panel::default()], true),
        (
            "nan-only",
            vec![panel("y", vec![nan.clone()], YScale::Auto)],
            true,
        ),
        (
            "one-empty-of-two",
            vec![
                panel("", vec![over_time("", 10, |_| 1.0)], YScale::Log),
                panel("y", vec![], YScale::Auto),
            ],
            true,
        ),
        (
            "single-point",
            vec![panel(
                "y",
                vec![series("p", vec![point(7.0, 3.0, true)], Some(7.0))],
                YScale::Auto,
            )],
            false,
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
        ),
        (
            "log-non-positive",
            vec![panel(
                "y",
                vec![over_time("", 100, |t| t - 1500.0), nan],
                YScale::Log,
            )],
            false,
        ),
    ];
    for (name, stacked, no_data) in cases {
        let stem = dir.path().join(name);
        let paths = panels(&stem, name, "x", &stacked).unwrap();
        assert_written(&paths, &stem, &[name]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
        let height = 250 * stacked.len() as u32 + 90;
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
