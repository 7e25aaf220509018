//! Running an experiment's jobs in parallel, with results kept on disk as they finish.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tailback_core::config::Config;
use tailback_core::stats::RunReport;

use crate::error::{CliError, CliResult};
use crate::jsonl::{self, JsonLines};
use crate::progress;

/// Where and how an experiment runs.
#[derive(Debug, Clone)]
pub struct Context {
    /// Output directory.
    pub out: PathBuf,
    /// Simulations run at once.
    pub jobs: usize,
    /// Keep the results already in `out` and run only the missing jobs.
    pub resume: bool,
    /// Short runs and fewer points: a smoke test, not a reproduction.
    pub quick: bool,
}

/// One simulation of an experiment.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique within the experiment.
    pub id: String,
    pub config: Config,
}

/// A finished job as stored in `results.jsonl`.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    /// The configuration it ran, so a resumed experiment reruns jobs whose setup changed.
    config: serde_json::Value,
    report: RunReport,
}

/// Runs `jobs` (skipping those already stored, on resume) and returns every report by job id.
pub fn run_jobs(ctx: &Context, jobs: &[Job]) -> CliResult<BTreeMap<String, RunReport>> {
    std::fs::create_dir_all(&ctx.out)
        .map_err(|e| CliError::Input(format!("cannot create {}: {e}", ctx.out.display())))?;
    let path = ctx.out.join("results.jsonl");
    let configs: BTreeMap<&str, serde_json::Value> = jobs
        .iter()
        .map(|j| Ok((j.id.as_str(), serde_json::to_value(&j.config)?)))
        .collect::<Result<_, serde_json::Error>>()
        .map_err(anyhow::Error::from)?;
    let previous: Vec<Stored> = if path.exists() {
        if !ctx.resume {
            return Err(CliError::Input(format!(
                "{} already holds results; pass --resume to keep them and run only what is \
                 missing, or --out to write elsewhere",
                ctx.out.display()
            )));
        }
        jsonl::read(&path)?
    } else {
        Vec::new()
    };
    // Keep only results of jobs that still exist with the same configuration.
    let kept: Vec<Stored> = previous
        .into_iter()
        .filter(|s| configs.get(s.id.as_str()) == Some(&s.config))
        .collect();
    let store = Mutex::new(JsonLines::create(&path, &kept)?);
    let pending: Vec<&Job> = jobs
        .iter()
        .filter(|j| !kept.iter().any(|s| s.id == j.id))
        .collect();
    if !kept.is_empty() {
        eprintln!(
            "resuming: {} of {} runs already done",
            kept.len(),
            jobs.len()
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(ctx.jobs.max(1))
        .build()
        .map_err(anyhow::Error::from)?;
    let bar = progress::points_bar(pending.len() as u64);
    let finished: Vec<Stored> = pool.install(|| {
        pending
            .par_iter()
            .map(|job| -> CliResult<Stored> {
                let report = tailback_core::run(&job.config)?;
                let stored = Stored {
                    id: job.id.clone(),
                    config: configs[job.id.as_str()].clone(),
                    report,
                };
                store
                    .lock()
                    .map_err(|_| CliError::Failed(anyhow::anyhow!("a worker panicked")))?
                    .append(&stored)?;
                bar.set_message(job.id.clone());
                bar.inc(1);
                Ok(stored)
            })
            .collect::<CliResult<_>>()
    })?;
    bar.finish_and_clear();
    Ok(kept
        .into_iter()
        .chain(finished)
        .map(|s| (s.id, s.report))
        .collect())
}
