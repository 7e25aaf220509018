//! Sweeps: every combination of the swept values, for each seed, run in parallel.

mod axis;
mod curves;
mod report;
mod store;

pub use axis::{Axis, parse_axis};
pub use curves::{plain, series, table};
pub use report::{plot, saturation_line, write_curves};
pub use store::{CsvFile, Manifest, Record};

use tailback_core::config::{ConfigIssue, set_path};
use tailback_core::spec::Spec;

/// One simulation of a sweep.
#[derive(Debug, Clone)]
pub struct Point {
    /// The swept values, in axis order.
    pub values: Vec<(String, toml::Value)>,
    pub seed: u64,
    pub config: Spec,
}

impl Point {
    /// `traffic.rate=0.05, router.vcs=4` (the swept values).
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Identifies the point across runs (for `--resume`).
    pub fn id(&self) -> String {
        format!("{}; seed={}", self.label(), self.seed)
    }
}

/// Every point of a sweep, validated, in order (first axis outermost, seeds innermost).
pub fn plan(base: &toml::Table, axes: &[Axis], seeds: u32) -> Result<Vec<Point>, Vec<ConfigIssue>> {
    let first_seed = Spec::from_table(base).map(|c| c.seed).unwrap_or(1);
    // Seeds are TOML integers: the last one must fit.
    let largest = i64::MAX as u64;
    if first_seed
        .checked_add(u64::from(seeds.max(1)) - 1)
        .is_none_or(|last| last > largest)
    {
        return Err(vec![ConfigIssue {
            path: "seed".to_string(),
            value: Some(first_seed.to_string()),
            message: format!(
                "--seeds {seeds} runs the seeds from {first_seed} on, past the largest seed \
                 {largest}; start from a smaller seed"
            ),
        }]);
    }
    let mut combos: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
    for axis in axes {
        combos = combos
            .into_iter()
            .flat_map(|combo| {
                axis.values.iter().map(move |v| {
                    let mut next = combo.clone();
                    next.push((axis.key.clone(), v.clone()));
                    next
                })
            })
            .collect();
    }
    let mut points = Vec::new();
    let mut issues = Vec::new();
    for values in combos {
        for seed in first_seed..first_seed + seeds as u64 {
            let mut table = base.clone();
            let applied = values
                .iter()
                .chain(std::iter::once(&(
                    "seed".to_string(),
                    toml::Value::Integer(seed as i64),
                )))
                .try_for_each(|(k, v)| set_path(&mut table, k, v.clone()));
            match applied.and_then(|()| Spec::from_table(&table)) {
                Ok(config) => points.push(Point {
                    values: values.clone(),
                    seed,
                    config,
                }),
                Err(error) => {
                    for issue in error.issues() {
                        if !issues.contains(issue) {
                            issues.push(issue.clone());
                        }
                    }
                }
            }
        }
    }
    if issues.is_empty() {
        Ok(points)
    } else {
        Err(issues)
    }
}
