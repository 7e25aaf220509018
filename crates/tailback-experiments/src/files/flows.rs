//! Per-flow throughput (`record.flows`): CSV files and a plot of each flow's throughput over
//! time.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::config::Units;
use tailback_core::stats::FlowStats;
use tailback_plot::{Point, Series, YScale};

/// Most flows drawn in the throughput-over-time plot (more make it unreadable; the CSV files
/// hold them all).
pub const MAX_PLOTTED: usize = 16;

/// Writes `<dir>/<prefix>flows.csv` (a row per flow: `src`, `dst`, `accepted` in flits/cycle
/// over the measurement window, and with `units` `gbps`) and, with a time series,
/// `<dir>/<prefix>flow_series.csv` (a row per flow and window: `cycle` at the window's start,
/// `src`, `dst`, `rate` in flits/cycle, with `units` also `time_us` and `gbps`) and the plot
/// `<dir>/<prefix>flows.svg`/`.png` of up to [`MAX_PLOTTED`] flows (in Gbit/s over ms with
/// `units`); nothing without flows.
pub fn write(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    flows: &[FlowStats],
    units: Option<Units>,
) -> anyhow::Result<Vec<PathBuf>> {
    if flows.is_empty() {
        return Ok(Vec::new());
    }
    let totals = dir.join(format!("{prefix}flows.csv"));
    let mut writer =
        csv::Writer::from_path(&totals).with_context(|| format!("writing {}", totals.display()))?;
    let gbps = |rate: f64| units.map(|u| format!("{:?}", u.gbps(rate)));
    let mut header = vec!["src", "dst", "accepted"];
    header.extend(units.map(|_| "gbps"));
    writer.write_record(&header)?;
    for flow in flows {
        let mut record = vec![
            flow.src.to_string(),
            flow.dst.to_string(),
            format!("{:?}", flow.accepted),
        ];
        record.extend(gbps(flow.accepted));
        writer.write_record(&record)?;
    }
    writer.flush()?;
    let mut written = vec![totals];
    if window == 0 || flows.iter().all(|f| f.windows.is_empty()) {
        return Ok(written);
    }
    let series_path = dir.join(format!("{prefix}flow_series.csv"));
    let mut writer = csv::Writer::from_path(&series_path)
        .with_context(|| format!("writing {}", series_path.display()))?;
    let mut header = vec!["cycle", "src", "dst", "rate"];
    header.extend(units.map_or(&[][..], |_| &["time_us", "gbps"][..]));
    writer.write_record(&header)?;
    for flow in flows {
        for (i, &rate) in flow.windows.iter().enumerate() {
            let cycle = i as u64 * window;
            let mut record = vec![
                cycle.to_string(),
                flow.src.to_string(),
                flow.dst.to_string(),
                format!("{rate:?}"),
            ];
            if let Some(u) = units {
                record.push(format!("{:?}", u.micros(cycle as f64)));
                record.push(format!("{:?}", u.gbps(rate)));
            }
            writer.write_record(&record)?;
        }
    }
    writer.flush()?;
    written.push(series_path);
    let series: Vec<Series> = flows
        .iter()
        .take(MAX_PLOTTED)
        .map(|flow| Series {
            label: format!("{} → {}", flow.src, flow.dst),
            points: flow
                .windows
                .iter()
                .enumerate()
                .map(|(i, &y)| {
                    let cycle = (i as u64 * window) as f64;
                    Point {
                        x: units.map_or(cycle, |u| u.micros(cycle) / 1000.0),
                        y: units.map_or(y, |u| u.gbps(y)),
                        marked: false,
                    }
                })
                .collect(),
            saturation: None,
        })
        .collect();
    let shown = if flows.len() > MAX_PLOTTED {
        format!(" (first {MAX_PLOTTED} of {} flows)", flows.len())
    } else {
        String::new()
    };
    written.extend(tailback_plot::lines(
        &dir.join(format!("{prefix}flows")),
        &format!("Throughput per flow{shown}: {title}"),
        if units.is_some() {
            "time (ms)"
        } else {
            "cycle"
        },
        if units.is_some() {
            "flow throughput (Gbit/s)"
        } else {
            "flow throughput (flits/cycle)"
        },
        &series,
        YScale::Linear,
    )?);
    Ok(written)
}
