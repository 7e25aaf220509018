//! Congestion per Port VL over time (buffered switches whose mechanism detects congestion):
//! a CSV file and a plot of the most congested Port VLs.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tailback_core::config::Units;
use tailback_core::stats::{PortVl, PortVlLoad, PortVlMap, PortVlSeries};

use super::flows::{MAX_PLOTTED, TimeAxis};

/// Writes `<dir>/<prefix>port_vls.csv` (a row per Port VL and window: `cycle` at the window's
/// start, with `units` `time_us`, `switch`, `port`, `vl`, `congested` — the fraction of the
/// window spent in the congestion state — and `marks`, packets marked in the window) and the
/// plot `<dir>/<prefix>port_vls.svg`/`.png` of the [`MAX_PLOTTED`] Port VLs congested longest;
/// nothing without Port VL series.
pub fn write(
    dir: &Path,
    prefix: &str,
    title: &str,
    window: u64,
    port_vls: &[PortVlSeries],
    units: Option<Units>,
) -> anyhow::Result<Vec<PathBuf>> {
    if port_vls.is_empty() || window == 0 {
        return Ok(Vec::new());
    }
    let path = dir.join(format!("{prefix}port_vls.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    let mut header = vec!["cycle"];
    header.extend(units.map(|_| "time_us"));
    header.extend(["switch", "port", "vl", "congested", "marks"]);
    writer.write_record(&header)?;
    for s in port_vls {
        for (i, (congested, marks)) in s.congested.iter().zip(&s.marks).enumerate() {
            let cycle = i as u64 * window;
            let mut record = vec![cycle.to_string()];
            record.extend(units.map(|u| format!("{:?}", u.micros(cycle as f64))));
            record.extend([
                s.switch.to_string(),
                s.port.to_string(),
                s.vl.to_string(),
                format!("{congested:?}"),
                marks.to_string(),
            ]);
            writer.write_record(&record)?;
        }
    }
    writer.flush()?;
    let mut longest: Vec<&PortVlSeries> = port_vls.iter().collect();
    longest.sort_by(|a, b| {
        let total = |s: &PortVlSeries| s.congested.iter().sum::<f64>();
        total(b).total_cmp(&total(a))
    });
    let axis = TimeAxis { window, units };
    let series: Vec<_> = longest
        .iter()
        .take(MAX_PLOTTED)
        .map(|s| {
            axis.series(
                format!("switch {} port {} VL {}", s.switch, s.port, s.vl),
                s.congested.iter().map(|&c| Some(c)),
            )
        })
        .collect();
    let shown = if port_vls.len() > MAX_PLOTTED {
        format!(" ({MAX_PLOTTED} longest of {})", port_vls.len())
    } else {
        String::new()
    };
    let mut written = vec![path];
    written.extend(axis.plot(
        &dir.join(format!("{prefix}port_vls")),
        &format!("Congested time per Port VL{shown}: {title}"),
        "fraction of the window congested",
        &series,
    )?);
    Ok(written)
}

/// Writes `<dir>/<prefix>congested_port_vls.csv` (`switch`, `port`, `vl`: the Port VLs
/// congested over the second half of the measurement window, `record.congested_port_vls`);
/// nothing when none was.
pub fn write_congested(
    dir: &Path,
    prefix: &str,
    congested: &[PortVl],
) -> anyhow::Result<Vec<PathBuf>> {
    if congested.is_empty() {
        return Ok(Vec::new());
    }
    let path = dir.join(format!("{prefix}congested_port_vls.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    writer.write_record(["switch", "port", "vl"])?;
    for p in congested {
        writer.write_record([p.switch.to_string(), p.port.to_string(), p.vl.to_string()])?;
    }
    writer.flush()?;
    Ok(vec![path])
}

/// Writes `<dir>/<prefix>port_vl_map.csv` (`switch`, `port`, `vl`, `congested` — the share of
/// samples at least half an input pool — `queued`, the mean queued blocks over a pool, and
/// `peak`, the most at a sample over a pool, for the Port VLs that had anything queued) and two heat maps, switches by row: each port's
/// congested share (`<dir>/<prefix>port_vl_map.svg`/`.png`), and its mean queued blocks over a
/// pool (`port_vl_queued`), which also shows the trees' thinner branches: the congestion trees
/// at a glance.
pub fn write_map(
    dir: &Path,
    prefix: &str,
    title: &str,
    map: &PortVlMap,
) -> anyhow::Result<Vec<PathBuf>> {
    let path = dir.join(format!("{prefix}port_vl_map.csv"));
    let mut writer =
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))?;
    writer.write_record(["switch", "port", "vl", "congested", "queued", "peak"])?;
    for l in &map.loads {
        writer.write_record([
            l.at.switch.to_string(),
            l.at.port.to_string(),
            l.at.vl.to_string(),
            format!("{:?}", l.congested),
            format!("{:?}", l.queued),
            format!("{:?}", l.peak),
        ])?;
    }
    writer.flush()?;
    let draw = |stem: &str, what: &str, scale: &str, value: fn(&PortVlLoad) -> f64| {
        let (ports, cells) = map.grid(value);
        tailback_plot::port_heatmap(
            &dir.join(format!("{prefix}{stem}")),
            &format!("{what}: {title}"),
            (ports, map.ports.len()),
            &cells,
            scale,
            Some((0.0, 1.0)),
        )
    };
    let mut written = vec![path];
    written.extend(draw(
        "port_vl_map",
        "Congested Port VLs",
        "share of samples (window's second half) at least half a pool",
        |l| l.congested,
    )?);
    written.extend(draw(
        "port_vl_queued",
        "Queued blocks per Port VL",
        "mean queued blocks over a pool (window's second half)",
        |l| l.queued,
    )?);
    Ok(written)
}
