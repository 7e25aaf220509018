//! Per-flow throughput (`record.flows`): CSV files and plots of each flow's throughput, and of
//! the mechanism's per-flow value (IB CC's CCTI), over time.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::config::Units;
use tailback_core::stats::FlowStats;
use tailback_plot::{Point, Series, YScale};

/// Most flows (or Port VLs) drawn in a plot over time (more make it unreadable; the CSV files
/// hold them all).
pub const MAX_PLOTTED: usize = 16;

/// Writes `<dir>/<prefix>flows.csv` (a row per flow: `src`, `dst`, `accepted` in flits/cycle
/// over the measurement window, with `units` `gbps`, and `out_of_order`) and, with a time series,
/// `<dir>/<prefix>flow_series.csv` (a row per flow and window: `cycle` at the window's start,
/// `src`, `dst`, `rate` in flits/cycle, with `units` also `time_us` and `gbps`, and the
/// mechanism's per-flow value under its name `gauge` at the window's end, empty before the
/// flow's first delivery) and the plots `<dir>/<prefix>flows.svg`/`.png` and
/// `<dir>/<prefix>flows_<gauge>.svg`/`.png` of up to [`MAX_PLOTTED`] flows (over ms with
/// `units`); nothing without flows.
pub fn write(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    flows: &[FlowStats],
    gauge: Option<&str>,
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
    header.push("out_of_order");
    writer.write_record(&header)?;
    for flow in flows {
        let mut record = vec![
            flow.src.to_string(),
            flow.dst.to_string(),
            format!("{:?}", flow.accepted),
        ];
        record.extend(gbps(flow.accepted));
        record.push(flow.out_of_order.to_string());
        writer.write_record(&record)?;
    }
    writer.flush()?;
    let mut written = vec![totals];
    if window == 0 || flows.iter().all(|f| f.windows.is_empty()) {
        return Ok(written);
    }
    let gauge = gauge.filter(|_| flows.iter().any(|f| !f.gauge.is_empty()));
    let series_path = dir.join(format!("{prefix}flow_series.csv"));
    let mut writer = csv::Writer::from_path(&series_path)
        .with_context(|| format!("writing {}", series_path.display()))?;
    let mut header = vec!["cycle", "src", "dst", "rate"];
    header.extend(units.map_or(&[][..], |_| &["time_us", "gbps"][..]));
    header.extend(gauge);
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
            if gauge.is_some() {
                let value = flow.gauge.get(i).copied().flatten();
                record.push(value.map_or_else(String::new, |v| format!("{v:?}")));
            }
            writer.write_record(&record)?;
        }
    }
    writer.flush()?;
    written.push(series_path);
    let label = |flow: &FlowStats| format!("{} → {}", flow.src, flow.dst);
    let shown = if flows.len() > MAX_PLOTTED {
        format!(" (first {MAX_PLOTTED} of {} flows)", flows.len())
    } else {
        String::new()
    };
    let axis = TimeAxis { window, units };
    let rates = flows.iter().take(MAX_PLOTTED).map(|flow| {
        let values = flow
            .windows
            .iter()
            .map(|&y| Some(units.map_or(y, |u| u.gbps(y))));
        axis.series(label(flow), values)
    });
    written.extend(axis.plot(
        &dir.join(format!("{prefix}flows")),
        &format!("Throughput per flow{shown}: {title}"),
        if units.is_some() {
            "flow throughput (Gbit/s)"
        } else {
            "flow throughput (flits/cycle)"
        },
        &rates.collect::<Vec<_>>(),
    )?);
    if let Some(name) = gauge {
        let values = flows
            .iter()
            .take(MAX_PLOTTED)
            .map(|flow| axis.series(label(flow), flow.gauge.iter().copied()));
        written.extend(axis.plot(
            &dir.join(format!("{prefix}flows_{name}")),
            &format!("{name} per flow{shown}: {title}"),
            name,
            &values.collect::<Vec<_>>(),
        )?);
    }
    Ok(written)
}

/// The x axis of plots over series windows: cycles, or ms with `units`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeAxis {
    /// Cycles per window.
    pub(crate) window: u64,
    pub(crate) units: Option<Units>,
}

impl TimeAxis {
    /// A line of one value per window (at the window's start; `None`: no point).
    pub(crate) fn series(
        &self,
        label: String,
        values: impl Iterator<Item = Option<f64>>,
    ) -> Series {
        Series {
            label,
            points: values
                .enumerate()
                .filter_map(|(i, y)| {
                    let cycle = (i as u64 * self.window) as f64;
                    y.map(|y| Point {
                        x: self.units.map_or(cycle, |u| u.micros(cycle) / 1000.0),
                        y,
                        marked: false,
                        error: None,
                    })
                })
                .collect(),
            saturation: None,
        }
    }

    /// Draws `series` against time at `stem`.
    pub(crate) fn plot(
        &self,
        stem: &Path,
        title: &str,
        y_label: &str,
        series: &[Series],
    ) -> anyhow::Result<Vec<PathBuf>> {
        let x_label = if self.units.is_some() {
            "time (ms)"
        } else {
            "cycle"
        };
        Ok(tailback_plot::lines(
            stem,
            title,
            x_label,
            y_label,
            series,
            YScale::Linear,
        )?)
    }
}
