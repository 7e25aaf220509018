//! Running an experiment's jobs in parallel, with results kept on disk as they finish.

use std::collections::{BTreeMap, BTreeSet};
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
    /// `results.jsonl` files of other experiments: a job found there with the same id and
    /// configuration is copied instead of run again (missing files are skipped).
    pub donors: Vec<PathBuf>,
}

/// One simulation of an experiment.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique within the experiment.
    pub id: String,
    pub config: Config,
    /// Keep only the summary and the time series (for grids of thousands of runs).
    pub summary_only: bool,
}

impl Job {
    /// A job whose whole report is kept.
    pub fn new(id: String, config: Config) -> Job {
        Job {
            id,
            config,
            summary_only: false,
        }
    }
}

/// A finished job as stored in `results.jsonl`.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    /// Fingerprint of the configuration it ran, so a resumed experiment reruns jobs whose
    /// setup changed.
    config: String,
    report: RunReport,
}

/// FNV-1a fingerprint of a configuration's JSON form (stable across builds and platforms).
fn fingerprint(config: &Config) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string(config)?;
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    Ok(format!("{hash:016x}"))
}

/// Runs `jobs` (skipping those already stored, on resume) and returns every report by job id.
pub fn run_jobs(ctx: &Context, jobs: &[Job]) -> CliResult<BTreeMap<String, RunReport>> {
    std::fs::create_dir_all(&ctx.out)
        .map_err(|e| CliError::Input(format!("cannot create {}: {e}", ctx.out.display())))?;
    let path = ctx.out.join("results.jsonl");
    let configs: BTreeMap<&str, String> = jobs
        .iter()
        .map(|j| Ok((j.id.as_str(), fingerprint(&j.config)?)))
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
    let mut kept: Vec<Stored> = previous
        .into_iter()
        .filter(|s| configs.get(s.id.as_str()) == Some(&s.config))
        .collect();
    for donor in ctx.donors.iter().filter(|d| d.exists()) {
        let have: BTreeSet<String> = kept.iter().map(|s| s.id.clone()).collect();
        let before = kept.len();
        kept.extend(
            jsonl::read::<Stored>(donor)?
                .into_iter()
                .filter(|s| configs.get(s.id.as_str()) == Some(&s.config) && !have.contains(&s.id)),
        );
        if kept.len() > before {
            eprintln!(
                "reusing {} runs from {}",
                kept.len() - before,
                donor.display()
            );
        }
    }
    let store = Mutex::new(JsonLines::create(&path, &kept)?);
    let done: BTreeSet<&str> = kept.iter().map(|s| s.id.as_str()).collect();
    let pending: Vec<&Job> = jobs
        .iter()
        .filter(|j| !done.contains(j.id.as_str()))
        .collect();
    if !kept.is_empty() {
        eprintln!("{} of {} runs already done", kept.len(), jobs.len());
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
                let mut report = tailback_core::run(&job.config)?;
                if job.summary_only {
                    report.latency_cdf = Vec::new();
                    report.accepted_per_node = Vec::new();
                    report.occupancy = Vec::new();
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, rate: f64) -> Job {
        let mut config = Config::default();
        config.sim.warmup_cycles = 100;
        config.sim.measure_cycles = 200;
        config.traffic.rate = rate;
        Job::new(id.to_string(), config)
    }

    fn context(out: PathBuf, donors: Vec<PathBuf>) -> Context {
        Context {
            out,
            jobs: 1,
            resume: false,
            quick: true,
            donors,
        }
    }

    #[test]
    fn runs_of_a_donor_with_the_same_configuration_are_copied_not_rerun() {
        let dir = tempfile::tempdir().unwrap();
        let first = context(dir.path().join("first"), Vec::new());
        let done = run_jobs(&first, &[job("a", 0.1), job("b", 0.1)]).unwrap();
        let second = context(
            dir.path().join("second"),
            vec![
                first.out.join("results.jsonl"),
                dir.path().join("missing.jsonl"),
            ],
        );
        // `a` is the same job; `b` changed its configuration and must run again.
        let reports = run_jobs(&second, &[job("a", 0.1), job("b", 0.2)]).unwrap();
        let wall = |r: &RunReport| r.summary.wall_seconds;
        assert_eq!(wall(&reports["a"]), wall(&done["a"]));
        assert_ne!(wall(&reports["b"]), wall(&done["b"]));
        assert!(reports["b"].summary.offered > done["b"].summary.offered);
        // The copied run is now stored in the second experiment's own results.
        let stored: Vec<Stored> = jsonl::read(&second.out.join("results.jsonl")).unwrap();
        let mut ids: Vec<&str> = stored.iter().map(|s| s.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
    }
}
