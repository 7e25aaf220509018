//! Renders one sample of each plot into the directory given as argument
//! (default `plot-samples`), for eyeballing the output.

use std::path::PathBuf;

use tailback_plot::{PlotError, Point, Series, latency_cdf, latency_throughput, node_heatmap};

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
                }
            })
            .collect(),
        saturation: Some(saturation),
    };
    let series = [
        curve("mesh 8x8, uniform, XY", 0.42),
        curve("mesh 8x8, transpose, XY", 0.27),
    ];
    let written = latency_throughput(&dir.join("throughput"), "Latency vs. throughput", &series)?;
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
        latency_cdf(&dir.join("cdf"), "Latency distribution at load 0.3", &cdf)?
    );

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
        width,
        height,
        &values,
        "accepted throughput (flits/node/cycle)",
    )?;
    println!("{written:?}");
    Ok(())
}
