//! From sweep results to latency-throughput curves and a results table.

use tailback_core::stats::SaturationCause;
use tailback_experiments::spread::Spread;

use super::Record;

/// The load axis: curves run along it, every other swept key makes a separate curve.
pub const LOAD_KEY: &str = "traffic.rate";

/// One curve: the points of one combination of the non-load swept values, each a mean over
/// seeds, in order of offered load.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `router.vcs=4` (empty when only the load is swept).
    pub label: String,
    /// The non-load swept values of this curve.
    pub values: Vec<(String, toml::Value)>,
    pub points: Vec<CurvePoint>,
    pub saturation: Saturation,
}

/// Where a curve saturates, judged point by point by the runs' stability tests (throughput,
/// latency against zero-load, growing source queues, the drain).
#[derive(Debug, Clone, PartialEq)]
pub enum Saturation {
    /// Every point was stable.
    NotReached,
    /// Some points were stable and some not.
    Found {
        /// The highest mean accepted throughput among the stable points. (Past saturation the
        /// mean accepted throughput can still grow, carried by nodes that avoid the
        /// bottleneck, so an unstable point's is not the saturation throughput.)
        throughput: f64,
        /// The lowest offered load of an unstable point, and why it is unstable.
        first_unstable: (f64, String),
    },
    /// No point was stable: the network saturates below the lowest load swept.
    BelowLowest {
        /// The lowest offered load swept, and why it is unstable.
        lowest: (f64, String),
    },
}

impl Saturation {
    /// The saturation throughput, when the curve has one.
    pub fn throughput(&self) -> Option<f64> {
        match self {
            Saturation::Found { throughput, .. } => Some(*throughput),
            _ => None,
        }
    }
}

/// A point of a curve: means over seeds with their 95% confidence intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// The swept load (`traffic.rate`), when it is swept.
    pub rate: Option<toml::Value>,
    pub offered: Spread,
    pub accepted: Spread,
    /// Mean packet latency, over the seeds that delivered packets.
    pub latency: Option<Spread>,
    /// 99th-percentile latency, over the same seeds.
    pub p99: Option<Spread>,
    /// Seeds whose run failed a stability test.
    pub saturated_seeds: usize,
    /// The first such seed's cause and reason.
    pub cause: Option<(SaturationCause, String)>,
}

impl CurvePoint {
    /// Some seed of this point saturated.
    pub fn saturated(&self) -> bool {
        self.saturated_seeds > 0
    }
}

/// The records of one curve, grouped by point (one record per seed), in first-seen order.
struct Group<'a> {
    label: String,
    values: Vec<(String, toml::Value)>,
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
                    values: other.into_iter().cloned().collect(),
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
                .map(|(_, seeds)| aggregate(seeds))
                .collect();
            points.sort_by(|a, b| a.offered.mean.total_cmp(&b.offered.mean));
            Series {
                label: group.label,
                values: group.values,
                saturation: saturation(&points),
                points,
            }
        })
        .collect()
}

/// Judges a curve's saturation from its points (sorted by offered load).
fn saturation(points: &[CurvePoint]) -> Saturation {
    let unstable = |p: &CurvePoint| {
        let why = p
            .cause
            .as_ref()
            .map_or_else(String::new, |(_, r)| r.clone());
        (p.offered.mean, why)
    };
    let Some(first) = points.iter().find(|p| p.saturated()) else {
        return Saturation::NotReached;
    };
    match points
        .iter()
        .filter(|p| !p.saturated())
        .map(|p| p.accepted.mean)
        .reduce(f64::max)
    {
        Some(throughput) => Saturation::Found {
            throughput,
            first_unstable: unstable(first),
        },
        None => Saturation::BelowLowest {
            lowest: unstable(first),
        },
    }
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

/// The seeds of one point as means with confidence intervals.
fn aggregate(seeds: &[&Record]) -> CurvePoint {
    let spread = |f: &dyn Fn(&Record) -> Option<f64>| {
        let values: Vec<f64> = seeds.iter().filter_map(|r| f(r)).collect();
        (!values.is_empty()).then(|| Spread::of(&values))
    };
    let all =
        |f: &dyn Fn(&Record) -> f64| Spread::of(&seeds.iter().map(|r| f(r)).collect::<Vec<_>>());
    let saturated: Vec<&&Record> = seeds.iter().filter(|r| r.summary.saturated).collect();
    CurvePoint {
        rate: seeds[0]
            .point
            .iter()
            .find(|(k, _)| k == LOAD_KEY)
            .map(|(_, v)| v.clone()),
        offered: all(&|r| r.summary.offered),
        accepted: all(&|r| r.summary.accepted),
        latency: spread(&|r| r.summary.latency.mean),
        p99: spread(&|r| r.summary.latency.p99.map(|x| x as f64)),
        saturated_seeds: saturated.len(),
        cause: saturated.first().map(|r| {
            (
                r.summary
                    .saturation_cause
                    .unwrap_or(SaturationCause::Throughput),
                r.summary.saturation_reason.clone().unwrap_or_default(),
            )
        }),
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
                match (s.saturated, s.saturation_cause) {
                    (false, _) => "no".to_string(),
                    (true, Some(cause)) => cause.name().to_string(),
                    (true, None) => "yes".to_string(),
                },
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

#[cfg(test)]
mod tests {
    use super::*;

    fn point(offered: f64, accepted: f64, unstable: bool) -> CurvePoint {
        CurvePoint {
            rate: None,
            offered: Spread::of(&[offered]),
            accepted: Spread::of(&[accepted]),
            latency: None,
            p99: None,
            saturated_seeds: usize::from(unstable),
            cause: unstable.then(|| (SaturationCause::Latency, "too slow".to_string())),
        }
    }

    #[test]
    fn saturation_is_the_best_stable_point_and_never_zero() {
        let stable = [point(0.1, 0.1, false), point(0.2, 0.2, false)];
        assert_eq!(saturation(&stable), Saturation::NotReached);
        let found = [
            point(0.1, 0.1, false),
            point(0.2, 0.2, false),
            point(0.3, 0.28, true),
        ];
        assert_eq!(
            saturation(&found),
            Saturation::Found {
                throughput: 0.2,
                first_unstable: (0.3, "too slow".to_string()),
            }
        );
        let none = [point(0.1, 0.09, true), point(0.2, 0.1, true)];
        let judged = saturation(&none);
        assert_eq!(
            judged,
            Saturation::BelowLowest {
                lowest: (0.1, "too slow".to_string()),
            }
        );
        assert_eq!(judged.throughput(), None);
    }
}
