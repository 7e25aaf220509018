//! Time series of runs: CSV files and stacked plots.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::stats::SeriesRow;
use tailback_plot::{Panel, Point, Series, YScale};

/// The engine's columns of a series row, before the mechanism's gauges.
const ENGINE_COLUMNS: [&str; 9] = [
    "cycle",
    "offered",
    "delivered",
    "in_flight_packets",
    "queued_packets",
    "full_buffers",
    "throttled_fraction",
    "deadlock_recoveries",
    "latency",
];

/// Writes `rows` as CSV to `path`: the engine's columns, then the mechanism's gauges (named as
/// in the first row); returns the path.
pub fn write_csv(path: &Path, rows: &[SeriesRow]) -> anyhow::Result<PathBuf> {
    let mut writer =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    let gauges: Vec<&str> = rows
        .first()
        .map(|row| row.gauges.iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    writer.write_record(ENGINE_COLUMNS.iter().chain(&gauges))?;
    let optional = |x: Option<f64>| x.map(|x| format!("{x:?}")).unwrap_or_default();
    for row in rows {
        let engine = [
            row.cycle.to_string(),
            format!("{:?}", row.offered),
            format!("{:?}", row.delivered),
            row.in_flight_packets.to_string(),
            row.queued_packets.to_string(),
            row.full_buffers.to_string(),
            format!("{:?}", row.throttled_fraction),
            row.deadlock_recoveries.to_string(),
            optional(row.latency),
        ];
        let values = gauges.iter().map(|name| optional(row.gauges.get(name)));
        writer.write_record(engine.into_iter().chain(values))?;
    }
    writer.flush()?;
    Ok(path.to_path_buf())
}

/// Plots labelled time series as stacked panels: delivered throughput, packets in flight,
/// full buffers, throttled fraction, then each gauge of the mechanisms (threshold, estimate,
/// ...). Panels whose values are all absent are left out.
pub fn plot(
    stem: &Path,
    title: &str,
    runs: &[(String, &[SeriesRow])],
) -> anyhow::Result<Vec<PathBuf>> {
    type Field<'a> = Box<dyn Fn(&SeriesRow) -> Option<f64> + 'a>;
    let mut fields: Vec<(String, Field)> = vec![
        (
            "delivered (flits/node/cycle)".into(),
            Box::new(|r| Some(r.delivered)),
        ),
        (
            "offered (flits/node/cycle)".into(),
            Box::new(|r| Some(r.offered)),
        ),
        (
            "packets in flight".into(),
            Box::new(|r| Some(r.in_flight_packets as f64)),
        ),
        (
            "full buffers".into(),
            Box::new(|r| Some(r.full_buffers as f64)),
        ),
        (
            "throttled fraction".into(),
            Box::new(|r| Some(r.throttled_fraction)),
        ),
    ];
    let mut gauges: Vec<&str> = Vec::new();
    for (_, rows) in runs {
        for (name, _) in rows.iter().flat_map(|r| r.gauges.iter()) {
            if !gauges.contains(&name) {
                gauges.push(name);
            }
        }
    }
    for name in gauges {
        fields.push((
            name.replace('_', " "),
            Box::new(move |r: &SeriesRow| r.gauges.get(name)),
        ));
    }
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
