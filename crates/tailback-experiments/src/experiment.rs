//! An experiment: where it comes from, its grid, and how it runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tailback_core::stats::RunReport;

use crate::Result;
use crate::claim::{Claims, Findings};
use crate::grid::{Folder, Grid};
use crate::outcome::Outcome;
use crate::runner::{self, Job, RunOptions};

/// One reproducible experiment.
pub struct Experiment {
    /// Name used on the command line.
    pub name: &'static str,
    /// What it reproduces.
    pub title: &'static str,
    /// Where the original is: authors, venue, figure.
    pub source: &'static str,
    /// Its folder under `experiments/`, whose `grids.toml` describes its jobs.
    pub folder: &'static Folder,
    /// The jobs known before any simulation runs (usually the grid's); stages that depend on
    /// earlier results (a parameter search's confirmation runs, a trace's replays) are built
    /// by `run`.
    pub jobs: fn(&Grid) -> Result<Vec<Job>>,
    /// Every result the paper states for what it reproduces: the claims judged, with their
    /// rules, and the results not compared. Declared before any run (from the grid at most).
    pub claims: fn(&Grid) -> Result<Claims>,
    /// Runs the jobs and measures what the claims need.
    pub run: fn(&Context, &Grid, &[Job]) -> Result<Findings>,
}

impl Experiment {
    /// An experiment whose jobs are exactly its grid's.
    pub fn on_grid(
        name: &'static str,
        title: &'static str,
        source: &'static str,
        folder: &'static Folder,
        claims: fn(&Grid) -> Result<Claims>,
        run: fn(&Context, &Grid, &[Job]) -> Result<Findings>,
    ) -> Experiment {
        Experiment {
            name,
            title,
            source,
            folder,
            jobs: Grid::jobs,
            claims,
            run,
        }
    }

    /// Its grid, full or quick.
    pub fn grid(&self, quick: bool) -> Result<Grid> {
        self.folder.grid(self.name, quick)
    }

    /// Every result the paper states, full or quick (the quick grid may judge fewer).
    pub fn claims(&self, quick: bool) -> Result<Claims> {
        (self.claims)(&self.grid(quick)?)
    }

    /// The jobs known before any simulation runs, full or quick.
    pub fn plan(&self, quick: bool) -> Result<Vec<Job>> {
        (self.jobs)(&self.grid(quick)?)
    }

    /// Runs the experiment and analyses it. A quick run's comparisons are not judged (their
    /// values and rules are kept): short runs reproduce nothing.
    pub fn execute(&self, ctx: &Context) -> Result<Outcome> {
        let outcome = self.analyse(ctx)?;
        Ok(if ctx.quick {
            outcome.unjudged()
        } else {
            outcome
        })
    }

    /// Runs the experiment and analyses it, judging every comparison even in a quick run
    /// (for tests of the pipeline; a person reads [`Experiment::execute`]'s).
    pub fn analyse(&self, ctx: &Context) -> Result<Outcome> {
        let grid = self.grid(ctx.quick)?;
        let claims = (self.claims)(&grid)?;
        let jobs = (self.jobs)(&grid)?;
        claims.judge((self.run)(ctx, &grid, &jobs)?, ctx.quick)
    }
}

/// Where and how an experiment runs.
#[derive(Debug, Clone)]
pub struct Context {
    /// Output directory, threads, resume and donors of its runs.
    pub runs: RunOptions,
    /// Short runs and fewer points: a pipeline check, not a reproduction.
    pub quick: bool,
}

impl Context {
    /// The output directory.
    pub fn out(&self) -> &Path {
        &self.runs.out
    }

    /// The same context writing its runs to the subdirectory `name`.
    pub fn within(&self, name: &str) -> Context {
        let mut sub = self.clone();
        sub.runs.out = self.runs.out.join(name);
        sub
    }

    /// Writes `text` to the file `name` of the output directory; returns its path.
    pub fn write_text(&self, name: impl AsRef<Path>, text: &str) -> Result<PathBuf> {
        let path = self.out().join(name);
        std::fs::write(&path, text).map_err(anyhow::Error::from)?;
        Ok(path)
    }

    /// Runs `jobs` in the output directory; returns every report by job id.
    pub fn run(&self, jobs: &[Job]) -> Result<BTreeMap<String, RunReport>> {
        runner::run_jobs(&self.runs, jobs, None)
    }
}
