//! From sweep results to latency-throughput curves and a results table.

use super::Record;

/// The load axis: curves run along it, every other swept key makes a separate curve.
pub const LOAD_KEY: &str = "traffic.rate";

/// One curve: the points of one combination of the non-load swept values, averaged over
/// seeds, in order of offered load.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `router.vcs=4` (empty when only the load is swept).
    pub label: String,
    pub points: Vec<CurvePoint>,
    /// Saturation throughput: the highest accepted throughput among the points that did not
    /// saturate, when some point did. (Past saturation the mean accepted throughput can still
    /// grow, carried by nodes that avoid the bottleneck, so it is not the saturation point.)
    pub saturation: Option<f64>,
}

/// A point of a curve (means over seeds).
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    pub offered: f64,
    pub accepted: f64,
    pub latency: Option<f64>,
    /// Some seed of this point saturated.
    pub saturated: bool,
}

/// The records of one curve, grouped by point (one record per seed), in first-seen order.
struct Group<'a> {
    label: String,
    points: Vec<(String, Vec<&'a Record>)>,
}

/// Groups results into curves; `records` must be in plan order.
pub fn series(records: &[Record]) -> Vec<Series> {
    let mut groups: Vec<Group> = Vec::new();
    for record in records {
        let (load, other): (Vec<_>, Vec<_>) = record.point.iter().partition(|(k, _)| k == LOAD_KEY);
        let curve = join(&other);
        let point = join(&load);
        let index = match groups.iter().position(|g| g.label == curve) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    label: curve,
                    points: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let points = &mut groups[index].points;
        match points.iter_mut().find(|(p, _)| *p == point) {
            Some((_, seeds)) => seeds.push(record),
            None => points.push((point, vec![record])),
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let mut points: Vec<CurvePoint> = group
                .points
                .iter()
                .map(|(_, seeds)| average(seeds))
                .collect();
            points.sort_by(|a, b| a.offered.total_cmp(&b.offered));
            let saturation = points.iter().any(|p| p.saturated).then(|| {
                points
                    .iter()
                    .filter(|p| !p.saturated)
                    .map(|p| p.accepted)
                    .fold(0.0, f64::max)
            });
            Series {
                label: group.label,
                points,
                saturation,
            }
        })
        .collect()
}

fn join(values: &[&(String, toml::Value)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k}={}", plain(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as a label shows it: strings without quotes.
pub fn plain(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn average(seeds: &[&Record]) -> CurvePoint {
    let n = seeds.len() as f64;
    let mean = |f: &dyn Fn(&Record) -> f64| seeds.iter().map(|r| f(r)).sum::<f64>() / n;
    let latencies: Vec<f64> = seeds
        .iter()
        .filter_map(|r| r.summary.latency.mean)
        .collect();
    CurvePoint {
        offered: mean(&|r| r.summary.offered),
        accepted: mean(&|r| r.summary.accepted),
        latency: (!latencies.is_empty())
            .then(|| latencies.iter().sum::<f64>() / latencies.len() as f64),
        saturated: seeds.iter().any(|r| r.summary.saturated),
    }
}

/// The results as an aligned text table, one row per record.
pub fn table(keys: &[String], records: &[Record]) -> String {
    let mut header: Vec<String> = keys.to_vec();
    header.extend(["seed", "offered", "accepted", "latency", "p99", "saturated"].map(String::from));
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            let s = &r.summary;
            let mut row: Vec<String> = r.point.iter().map(|(_, v)| plain(v)).collect();
            row.extend([
                r.seed.to_string(),
                format!("{:.4}", s.offered),
                format!("{:.4}", s.accepted),
                s.latency.mean.map_or("-".into(), |l| format!("{l:.1}")),
                s.latency.p99.map_or("-".into(), |l| l.to_string()),
                if s.saturated { "yes" } else { "no" }.to_string(),
            ]);
            row
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            std::iter::once(&header)
                .chain(&rows)
                .map(|row| row[c].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    std::iter::once(&header)
        .chain(&rows)
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            cells.join("  ").trim_end().to_string() + "\n"
        })
        .collect()
}
