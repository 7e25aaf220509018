//! Time series of runs: CSV files and stacked plots.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::stats::SeriesRow;
use tailback_plot::{Panel, Point, Series, YScale};

/// Writes `rows` as CSV to `path`; returns the path.
pub fn write_csv(path: &Path, rows: &[SeriesRow]) -> anyhow::Result<PathBuf> {
    let mut writer =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    for row in rows {
        writer.serialize(row)?;
    }
    writer.flush()?;
    Ok(path.to_path_buf())
}

/// Plots labelled time series as stacked panels: delivered throughput, packets in flight,
/// full buffers, throttled fraction, and (when a mechanism has one) the threshold. Panels whose
/// values are all absent are left out.
pub fn plot(
    stem: &Path,
    title: &str,
    runs: &[(String, &[SeriesRow])],
) -> anyhow::Result<Vec<PathBuf>> {
    type Field = fn(&SeriesRow) -> Option<f64>;
    let fields: [(&str, Field); 9] = [
        ("delivered (flits/node/cycle)", |r| Some(r.delivered)),
        ("offered (flits/node/cycle)", |r| Some(r.offered)),
        ("packets in flight", |r| Some(r.in_flight_packets as f64)),
        ("full buffers", |r| Some(r.full_buffers as f64)),
        ("throttled fraction", |r| Some(r.throttled_fraction)),
        ("threshold", |r| r.threshold),
        ("estimate (self-tuned: full buffers; entropy: Ra)", |r| {
            r.estimate
        }),
        ("valid buffers per router (Nv/Nr)", |r| r.valid_per_router),
        ("nodes in throttling mode", |r| r.throttled_nodes),
    ];
    let panels: Vec<Panel> = fields
        .iter()
        .filter(|(_, field)| {
            runs.iter()
                .any(|(_, rows)| rows.iter().any(|r| field(r).is_some()))
        })
        .map(|(label, field)| Panel {
            y_label: label.to_string(),
            series: runs
                .iter()
                .map(|(name, rows)| Series {
                    label: name.clone(),
                    points: rows
                        .iter()
                        .filter_map(|r| {
                            field(r).map(|y| Point {
                                x: r.cycle as f64,
                                y,
                                marked: false,
                            })
                        })
                        .collect(),
                    saturation: None,
                })
                .collect(),
            scale: YScale::Linear,
        })
        .collect();
    Ok(tailback_plot::panels(stem, title, "cycle", &panels)?)
}
