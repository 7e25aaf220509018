//! Each plot function writes a readable SVG and PNG and handles degenerate
//! input without panicking.

use std::fs;
use std::path::{Path, PathBuf};

use tailback_plot::{PlotError, Point, Series, latency_cdf, latency_throughput, node_heatmap};

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
    let paths = node_heatmap(&stem, "Per node", 8, 4, &values, "accepted (flits/cycle)").unwrap();
    assert_written(&paths, &stem, &["Per node", "accepted (flits/cycle)"]);
}

#[test]
fn node_heatmap_handles_degenerate_values() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, usize, &[f64], bool); 4] = [
        ("equal", 2, &[3.0; 4], false),
        ("some-nan", 2, &[f64::NAN, 1.0], false),
        ("all-nan", 2, &[f64::NAN, f64::INFINITY], true),
        ("empty", 0, &[], true),
    ];
    for (name, width, values, no_data) in cases {
        let stem = dir.path().join(name);
        let height = values.len().checked_div(width).unwrap_or(0);
        let paths = node_heatmap(&stem, name, width, height, values, "value").unwrap();
        assert_written(&paths, &stem, &[name]);
        assert_eq!(notes_no_data(&paths), no_data, "{name}");
    }
}

#[test]
fn node_heatmap_rejects_wrong_length() {
    let dir = tempfile::tempdir().unwrap();
    let stem = dir.path().join("bad");
    for (width, height) in [(3, 3), (usize::MAX, 2)] {
        let error = node_heatmap(&stem, "bad", width, height, &[1.0; 4], "v").unwrap_err();
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
