//! Renders one sample of each plot into the directory given as argument
//! (default `plot-samples`), for eyeballing the output.

use std::path::PathBuf;

use tailback_plot::{
    Panel, PlotError, Point, Series, YScale, accepted_offered, latency_cdf, latency_offered, lines,
    node_heatmap, panels,
};

fn main() -> Result<(), PlotError> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or("plot-samples".into()));
    let curve = |label: &str, saturation: f64| Series {
        label: label.into(),
        points: (1..=12)
            .map(|i| {
                let offered = f64::from(i) * 0.05;
                let accepted = offered.min(saturation + 0.01 * f64::from(i % 3));
                let load = (offered / saturation).min(0.98);
                let marked = offered > saturation;
                let backlog = if marked { 800.0 * offered } else { 0.0 };
                Point {
                    x: accepted,
                    y: 20.0 / (1.0 - load) + backlog,
                    marked,
                    error: None,
                }
            })
            .collect(),
        saturation: Some(saturation),
    };
    let series = [
        curve("mesh 8x8, uniform, XY", 0.42),
        curve("mesh 8x8, transpose, XY", 0.27),
    ];
    let written = latency_offered(
        &dir.join("latency"),
        "Latency against offered load",
        &series,
    )?;
    println!("{written:?}");

    let cdf: Vec<(u64, f64)> = (0..60u32)
        .map(|i| {
            (
                u64::from(18 + i * i / 8),
                1.0 - (-f64::from(i) / 12.0).exp(),
            )
        })
        .collect();
    println!(
        "{:?}",
        latency_cdf(
            &dir.join("cdf"),
            "Latency distribution at load 0.3",
            &cdf,
            Some("12 of 5000 measured packets undelivered: missing from this distribution"),
        )?
    );

    // A load sweep with three seeds per point: means with 95% confidence
    // intervals, the last points past saturation; the second curve repeats
    // the first (both stay visible).
    let sweep = |label: &str, saturation: f64| Series {
        label: label.into(),
        points: (1..=10)
            .map(|i| {
                let offered = f64::from(i) * 0.06;
                let load = (offered / saturation).min(0.95);
                let past = offered > saturation;
                Point {
                    x: offered,
                    y: 25.0 / (1.0 - load) + if past { 600.0 * offered } else { 0.0 },
                    marked: past,
                    error: Some(1.0 + 4.0 * load * load + if past { 60.0 } else { 0.0 }),
                }
            })
            .collect(),
        saturation: Some(saturation),
    };
    let sweeps = [
        sweep("uniform", 0.42),
        sweep("uniform again", 0.42),
        sweep("transpose", 0.3),
    ];
    let written = latency_offered(&dir.join("latency-offered"), "Load sweep", &sweeps)?;
    println!("{written:?}");
    let accepted: Vec<Series> = sweeps
        .iter()
        .map(|s| Series {
            points: s
                .points
                .iter()
                .map(|p| Point {
                    y: p.x.min(s.saturation.unwrap_or(1.0) + 0.02 * p.x),
                    error: Some(0.01),
                    ..*p
                })
                .collect(),
            ..s.clone()
        })
        .collect();
    let written = accepted_offered(&dir.join("accepted-offered"), "Load sweep", &accepted)?;
    println!("{written:?}");

    let (width, height) = (8, 8);
    let values: Vec<f64> = (0..width * height)
        .map(|i| {
            let (x, y) = ((i % width) as f64 - 3.5, (i / width) as f64 - 3.5);
            0.45 - 0.01 * (x * x + y * y)
        })
        .collect();
    let written = node_heatmap(
        &dir.join("heatmap"),
        "Accepted throughput per node",
        (width, height),
        &values,
        "accepted throughput (flits/node/cycle)",
        None,
    )?;
    println!("{written:?}");

    let tail = |label: &str, saturation: f64, scale: f64| Series {
        label: label.into(),
        points: (1..=16)
            .map(|i| {
                let offered = f64::from(i) * 0.04;
                let load = (offered / saturation).min(0.97);
                Point {
                    x: offered,
                    y: scale * 30.0 / (1.0 - load),
                    marked: offered > saturation,
                    error: None,
                }
            })
            .collect(),
        saturation: Some(saturation),
    };
    let series = [
        tail("no congestion control", 0.38, 1.0),
        tail("global throttling", 0.45, 0.9),
        tail("ALO", 0.5, 0.8),
    ];
    let written = lines(
        &dir.join("lines"),
        "99th percentile latency vs. offered load",
        "offered load (flits/node/cycle)",
        "99th percentile packet latency (cycles)",
        &series,
        YScale::Auto,
    )?;
    println!("{written:?}");

    let cycles = |f: &dyn Fn(f64) -> f64| -> Vec<Point> {
        (0..400)
            .map(|i| {
                let t = 1000.0 + 50.0 * f64::from(i);
                Point {
                    x: t,
                    y: f(t),
                    marked: false,
                    error: None,
                }
            })
            .collect()
    };
    let wave = |t: f64| (t / 1500.0).sin();
    let time_series = |label: &str, points: Vec<Point>| Series {
        label: label.into(),
        points,
        saturation: None,
    };
    let stacked = [
        Panel {
            y_label: "delivered throughput (flits/node/cycle)".into(),
            series: vec![
                time_series("offered", cycles(&|t| 0.5 + 0.02 * wave(t))),
                time_series("delivered", cycles(&|t| 0.41 + 0.03 * wave(t * 1.7))),
            ],
            scale: YScale::Auto,
        },
        Panel {
            y_label: "throttling threshold".into(),
            series: vec![time_series("", cycles(&|t| 0.3 + 0.05 * wave(t * 0.6)))],
            scale: YScale::Linear,
        },
        Panel {
            y_label: "throttled fraction".into(),
            series: vec![time_series(
                "",
                cycles(&|t| (0.2 + 0.2 * wave(t * 2.3)).max(0.0)),
            )],
            scale: YScale::Linear,
        },
        Panel {
            y_label: "mean packet latency (cycles)".into(),
            series: vec![
                time_series("delivered", cycles(&|t| 40.0 + 30.0 * wave(t).abs())),
                time_series(
                    "sampled",
                    (0..8)
                        .map(|i| Point {
                            x: 2000.0 + 2400.0 * f64::from(i),
                            y: 30.0 * 2f64.powi(i),
                            marked: i > 5,
                            error: None,
                        })
                        .collect(),
                ),
            ],
            scale: YScale::Log,
        },
        Panel {
            y_label: "full buffers".into(),
            series: vec![time_series("delivered", cycles(&|_| 0.0))],
            scale: YScale::Linear,
        },
    ];
    let written = panels(
        &dir.join("panels"),
        "Global throttling over time",
        "cycle",
        &stacked,
        5,
    )?;
    println!("{written:?}");
    Ok(())
}
