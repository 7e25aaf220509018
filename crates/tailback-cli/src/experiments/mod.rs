//! Reproductions of published figures and tables (`tailback experiment`).
//!
//! An experiment is a set of simulation jobs built from a configuration under `experiments/`
//! (embedded in the binary), run in parallel with results written as they finish (resumable),
//! then analysed: it writes plots and `summary.json` and prints the paper's numbers beside ours.

mod entropy;
mod nifdy;
mod predictor;
mod runner;
mod self_tuned;

use std::path::PathBuf;

use serde::Serialize;

pub use runner::{Context, Job, run_jobs};

use tailback_core::config::{Config, parse_assignment, set_path};

use crate::error::{CliError, CliResult};

/// One reproducible experiment.
pub struct Experiment {
    /// Name used on the command line.
    pub name: &'static str,
    /// What it reproduces.
    pub title: &'static str,
    /// Where the original is.
    pub source: &'static str,
    /// Runs the jobs and analyses them.
    pub run: fn(&Context) -> CliResult<Outcome>,
}

/// One line of the comparison with the paper.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The quantity compared.
    pub what: String,
    /// The paper's value or claim.
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// Whether ours agrees with the paper (`None`: nothing to judge).
    pub agrees: Option<bool>,
}

impl Comparison {
    pub fn new(
        what: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        agrees: Option<bool>,
    ) -> Self {
        Comparison {
            what: what.into(),
            paper: paper.into(),
            ours: ours.into(),
            agrees,
        }
    }
}

/// What an experiment produced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    /// The comparison with the paper.
    pub comparisons: Vec<Comparison>,
    /// Plots and tables written.
    pub files: Vec<PathBuf>,
}

/// Every experiment, in catalogue order.
pub fn all() -> Vec<Experiment> {
    let mut all = self_tuned::experiments();
    all.extend(entropy::experiments());
    all.extend(nifdy::experiments());
    all.extend(predictor::experiments());
    all
}

/// The configuration of `table` with the `key=value` assignments applied.
fn configure<'a>(
    table: &toml::Table,
    assignments: impl IntoIterator<Item = &'a &'a str>,
) -> CliResult<Config> {
    let mut table = table.clone();
    for assignment in assignments {
        let (key, value) = parse_assignment(assignment).map_err(CliError::Input)?;
        set_path(&mut table, &key, value)?;
    }
    Ok(Config::from_table(&table)?)
}

/// The comparison as aligned text.
pub fn table(comparisons: &[Comparison]) -> String {
    let header = ["", "paper", "ours", ""];
    let rows: Vec<[String; 4]> = comparisons
        .iter()
        .map(|c| {
            let verdict = match c.agrees {
                Some(true) => "agrees",
                Some(false) => "DIFFERS",
                None => "",
            };
            [
                c.what.clone(),
                c.paper.clone(),
                c.ours.clone(),
                verdict.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..4)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 4]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut text = line(header);
    for row in &rows {
        text.push_str(&line([&row[0], &row[1], &row[2], &row[3]]));
    }
    text
}
