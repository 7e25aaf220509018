//! What a sweep makes of its curves: `curves.csv` and `curves.json` (a row per point, means
//! over seeds with 95% confidence intervals), the two plots against offered load, and the
//! saturation line printed per curve.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tailback_experiments::spread::Spread;

use super::curves::{CurvePoint, LOAD_KEY, Saturation, Series, plain};
use crate::error::CliResult;

/// Writes `curves.csv` and `curves.json` in `dir`; returns their paths.
pub fn write_curves(dir: &Path, curves: &[Series]) -> CliResult<Vec<PathBuf>> {
    let csv_path = dir.join("curves.csv");
    let mut csv = csv::Writer::from_path(&csv_path).map_err(anyhow::Error::from)?;
    let keys: Vec<&str> = curves
        .first()
        .map(|s| s.values.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    let header = keys.iter().copied().chain([LOAD_KEY]).chain(CURVE_COLUMNS);
    csv.write_record(header).map_err(anyhow::Error::from)?;
    for curve in curves {
        for point in &curve.points {
            let values = curve.values.iter().map(|(_, v)| plain(v));
            let rate = point.rate.as_ref().map_or_else(String::new, plain);
            csv.write_record(values.chain([rate]).chain(csv_cells(point)))
                .map_err(anyhow::Error::from)?;
        }
    }
    csv.flush()?;
    let json_path = dir.join("curves.json");
    let document: Vec<Value> = curves.iter().map(curve_json).collect();
    crate::commands::write_json(&json_path, &document)?;
    Ok(vec![csv_path, json_path])
}

/// Columns of `curves.csv` after the swept keys.
const CURVE_COLUMNS: [&str; 12] = [
    "seeds",
    "offered_mean",
    "offered_ci95",
    "accepted_mean",
    "accepted_ci95",
    "latency_mean",
    "latency_ci95",
    "latency_p99_mean",
    "latency_p99_ci95",
    "saturated_seeds",
    "saturation_cause",
    "saturation_reason",
];

fn csv_cells(p: &CurvePoint) -> Vec<String> {
    let number = |x: Option<f64>| x.map_or_else(String::new, |x| x.to_string());
    let pair = |s: Option<&Spread>| [number(s.map(|s| s.mean)), number(s.and_then(|s| s.ci95))];
    let (cause, reason) = p
        .cause
        .as_ref()
        .map_or((String::new(), String::new()), |(c, r)| {
            (c.name().to_string(), r.clone())
        });
    [p.offered.n.to_string()]
        .into_iter()
        .chain(pair(Some(&p.offered)))
        .chain(pair(Some(&p.accepted)))
        .chain(pair(p.latency.as_ref()))
        .chain(pair(p.p99.as_ref()))
        .chain([p.saturated_seeds.to_string(), cause, reason])
        .collect()
}

fn spread_json(s: Option<&Spread>) -> Value {
    s.map_or(Value::Null, |s| json!({ "mean": s.mean, "ci95": s.ci95 }))
}

fn curve_json(curve: &Series) -> Value {
    let values: serde_json::Map<String, Value> = curve
        .values
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
        .collect();
    let saturation = match &curve.saturation {
        Saturation::NotReached => json!({ "judged": "not_reached" }),
        Saturation::Found {
            throughput,
            first_unstable: (offered, reason),
        } => json!({
            "judged": "found",
            "throughput": throughput,
            "first_unstable_offered": offered,
            "reason": reason,
        }),
        Saturation::BelowLowest {
            lowest: (offered, reason),
        } => json!({
            "judged": "below_lowest_load",
            "lowest_offered": offered,
            "reason": reason,
        }),
    };
    let points: Vec<Value> = curve
        .points
        .iter()
        .map(|p| {
            json!({
                "rate": p.rate.as_ref().map(|r| serde_json::to_value(r).unwrap_or(Value::Null)),
                "seeds": p.offered.n,
                "offered": spread_json(Some(&p.offered)),
                "accepted": spread_json(Some(&p.accepted)),
                "latency": spread_json(p.latency.as_ref()),
                "latency_p99": spread_json(p.p99.as_ref()),
                "saturated_seeds": p.saturated_seeds,
                "saturation_cause": p.cause.as_ref().map(|(c, _)| c.name()),
                "saturation_reason": p.cause.as_ref().map(|(_, r)| r),
            })
        })
        .collect();
    json!({
        "label": curve.label,
        "values": values,
        "saturation": saturation,
        "points": points,
    })
}

/// Draws latency and accepted throughput against offered load (`latency` and `throughput`
/// in `dir`): a line per curve, error bars for the 95% confidence intervals when several seeds
/// ran, unstable points drawn apart. `unnamed` labels a curve with no swept values. Returns
/// the files written.
pub fn plot(dir: &Path, title: &str, unnamed: &str, curves: &[Series]) -> CliResult<Vec<PathBuf>> {
    let lines = |y: &dyn Fn(&CurvePoint) -> Option<&Spread>| -> Vec<tailback_plot::Series> {
        curves
            .iter()
            .map(|s| tailback_plot::Series {
                label: if s.label.is_empty() {
                    unnamed.to_string()
                } else {
                    s.label.clone()
                },
                points: s
                    .points
                    .iter()
                    .filter_map(|p| {
                        y(p).map(|y| tailback_plot::Point {
                            x: p.offered.mean,
                            y: y.mean,
                            marked: p.saturated(),
                            error: y.ci95,
                        })
                    })
                    .collect(),
                saturation: s.saturation.throughput(),
            })
            .collect()
    };
    let mut written = tailback_plot::latency_offered(
        &dir.join("latency"),
        title,
        &lines(&|p| p.latency.as_ref()),
    )?;
    written.extend(tailback_plot::accepted_offered(
        &dir.join("throughput"),
        title,
        &lines(&|p| Some(&p.accepted)),
    )?);
    Ok(written)
}

/// What the sweep says about a curve's saturation, e.g. "saturation throughput (router.vcs=4):
/// 0.4992 flits/node/cycle, the highest stable point; unstable from offered 0.5480 (…)".
pub fn saturation_line(curve: &Series) -> String {
    let name = if curve.label.is_empty() {
        String::new()
    } else {
        format!(" ({})", curve.label)
    };
    match &curve.saturation {
        Saturation::NotReached => {
            let highest = curve.points.last().map_or(0.0, |p| p.offered.mean);
            format!(
                "saturation throughput{name}: not reached (every point stable, up to offered \
                 {highest:.4})"
            )
        }
        Saturation::Found {
            throughput,
            first_unstable: (offered, reason),
        } => format!(
            "saturation throughput{name}: {throughput:.4} flits/node/cycle, the highest stable \
             point; unstable from offered {offered:.4} ({reason})"
        ),
        Saturation::BelowLowest {
            lowest: (offered, reason),
        } => format!(
            "saturation throughput{name}: below the lowest load swept, no point was stable \
             (at offered {offered:.4}: {reason})"
        ),
    }
}
