//! Time series of runs: CSV files and stacked plots.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::stats::SeriesRow;
use tailback_plot::{Panel, Point, Series, YScale};

/// The engine's columns of a series row, before the mechanism's gauges.
const ENGINE_COLUMNS: [&str; 10] = [
    "cycle",
    "offered",
    "delivered",
    "delivered_hot",
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
            optional(row.delivered_hot),
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

/// Plots labelled time series as stacked panels, a line per run: delivered and offered
/// throughput, packets in flight, packets waiting in source queues, full buffers, throttled
/// fraction, mean packet latency (logarithmic when it spans more than 20x), then each gauge
/// of the mechanisms (threshold, estimate, ...). Panels whose values are all absent are left
/// out, and so are those constant throughout (named with their value in a note under the
/// title). Each line is a centred moving average over `window` rows (1: the rows as they
/// are; see [`tailback_plot::panels`]).
///
/// Writes `<stem>.svg`, `<stem>.png` and the data drawn, `<stem>.data.csv`; returns their
/// paths.
pub fn plot(
    stem: &Path,
    title: &str,
    runs: &[(String, &[SeriesRow])],
    window: usize,
) -> anyhow::Result<Vec<PathBuf>> {
    type Field<'a> = Box<dyn Fn(&SeriesRow) -> Option<f64> + 'a>;
    let mut fields: Vec<(String, Field, YScale)> = vec![
        (
            "delivered (flits/node/cycle)".into(),
            Box::new(|r| Some(r.delivered)),
            YScale::Linear,
        ),
        (
            "delivered at the hot destinations (flits/node/cycle)".into(),
            Box::new(|r| r.delivered_hot),
            YScale::Linear,
        ),
        (
            "offered (flits/node/cycle)".into(),
            Box::new(|r| Some(r.offered)),
            YScale::Linear,
        ),
        (
            "packets in flight".into(),
            Box::new(|r| Some(r.in_flight_packets as f64)),
            YScale::Linear,
        ),
        (
            "packets in source queues".into(),
            Box::new(|r| Some(r.queued_packets as f64)),
            YScale::Linear,
        ),
        (
            "full buffers".into(),
            Box::new(|r| Some(r.full_buffers as f64)),
            YScale::Linear,
        ),
        (
            "throttled fraction".into(),
            Box::new(|r| Some(r.throttled_fraction)),
            YScale::Linear,
        ),
        (
            "mean packet latency (cycles)".into(),
            Box::new(|r| r.latency),
            YScale::Auto,
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
            YScale::Linear,
        ));
    }
    let panels: Vec<Panel> = fields
        .iter()
        .filter(|(_, field, _)| {
            runs.iter()
                .any(|(_, rows)| rows.iter().any(|r| field(r).is_some()))
        })
        .map(|(label, field, scale)| Panel {
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
                                error: None,
                            })
                        })
                        .collect(),
                    saturation: None,
                })
                .collect(),
            scale: *scale,
        })
        .collect();
    Ok(tailback_plot::panels(
        stem, title, "cycle", &panels, window,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tailback_core::stats::Gauges;

    fn row(i: u64) -> SeriesRow {
        SeriesRow {
            cycle: 100 * i,
            offered: 0.5,
            delivered: 0.4 + i as f64 / 1000.0,
            delivered_hot: None,
            in_flight_packets: 10 + i,
            queued_packets: i * i,
            full_buffers: 0,
            throttled_fraction: 0.0,
            deadlock_recoveries: 0,
            // No delivery in every fifth window; rising 1.5-fold a window.
            latency: (!i.is_multiple_of(5)).then(|| 20.0 * 1.5f64.powi(i as i32)),
            gauges: Gauges::new(&["threshold"], &[Some(i as f64)]),
        }
    }

    /// The rows of the data file of `paths` whose panel is `panel`, as (x, y).
    fn drawn(paths: &[PathBuf], panel: &str) -> Vec<(f64, f64)> {
        let mut reader = csv::Reader::from_path(&paths[2]).unwrap();
        reader
            .records()
            .map(|r| r.unwrap())
            .filter(|r| &r[0] == panel)
            .map(|r| (r[2].parse().unwrap(), r[3].parse().unwrap()))
            .collect()
    }

    #[test]
    fn plots_queues_and_latency_and_notes_constant_panels() {
        let rows: Vec<SeriesRow> = (1..=20).map(row).collect();
        let dir = tempfile::tempdir().unwrap();
        let runs = [("run".to_string(), rows.as_slice())];
        let paths = plot(&dir.path().join("series"), "t", &runs, 1).unwrap();
        assert_eq!(paths.len(), 3);
        let svg = std::fs::read_to_string(&paths[0]).unwrap();
        for text in [
            "packets in source queues",
            "mean packet latency (cycles)",
            "threshold",
            "constant: offered (flits/node/cycle) = 0.5, full buffers = 0, throttled fraction = 0",
        ] {
            assert!(svg.contains(text), "{text:?} missing");
        }
        // The latency spans far more than 20x: a logarithmic axis (decade ticks).
        assert!(svg.contains("\n100\n") && svg.contains("\n1000\n"));
        let queued = drawn(&paths, "packets in source queues");
        assert_eq!(queued.len(), 20);
        assert_eq!(queued[2], (300.0, 9.0));
        let latency = drawn(&paths, "mean packet latency (cycles)");
        assert_eq!(latency.len(), 16, "windows without deliveries are left out");

        let smoothed = plot(&dir.path().join("smoothed"), "t", &runs, 3).unwrap();
        let queued = drawn(&smoothed, "packets in source queues");
        assert_eq!(queued[2], (300.0, (4.0 + 9.0 + 16.0) / 3.0));
    }
}
