//! Reproductions of published figures and tables, and the runner behind them and sweeps.
//!
//! An experiment is a set of simulation jobs described as data under `experiments/` (base
//! configurations and a `grids.toml`, embedded in the binary; see [`grid`]), run in parallel
//! with results written as they finish (resumable; see [`runner`]), then analysed: it writes
//! plots and tables and compares the paper's numbers with ours, each comparison judged by a
//! stated rule (a quick run judges none: it checks the pipeline and reproduces nothing).

pub mod atomic;
mod claim;
pub mod error;
mod experiment;
pub mod files;
pub mod grid;
mod outcome;
mod papers;
pub mod runner;
pub mod spread;
pub mod tally;

pub use claim::{
    Claim, Claims, Findings, Format, Judgement, MIN_ORDER_SEEDS, NotCompared, Ours, Paper,
    Rule as ClaimRule, Source, Tolerance,
};
pub use error::{Error, Result};
pub use experiment::{Context, Experiment};
pub use grid::{Folder, Grid};
pub use outcome::{Comparison, Outcome, Rule, Verdict, table};
pub use runner::{Job, RunOptions};

/// Every experiment, in catalogue order.
pub fn all() -> Vec<Experiment> {
    papers::all()
}

/// The experiment called `name`, if there is one.
pub fn named(name: &str) -> Option<Experiment> {
    all().into_iter().find(|e| e.name == name)
}
