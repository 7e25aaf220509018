//! The resumable parallel runner shared by sweeps and experiments: jobs run on a thread pool,
//! each result appended to `results.jsonl` (and to an optional sidecar such as the sweep's
//! `results.csv`) as soon as it finishes, so an interrupted batch keeps everything it finished.
//! On resume, and from donor result files, a stored result is reused when its job still exists
//! with the same configuration (compared by fingerprint); every other job runs.

mod jsonl;
mod progress;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tailback_core::config::Spec;
use tailback_core::stats::RunReport;

use crate::{Error, Result};

/// Where and how a batch of jobs runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output directory (holds `results.jsonl`).
    pub out: PathBuf,
    /// Simulations run at once.
    pub threads: usize,
    /// Keep the results already in `out` and run only the missing jobs.
    pub resume: bool,
    /// `results.jsonl` files of other batches: a job found there with the same id and
    /// configuration is copied instead of run again (missing files are skipped).
    pub donors: Vec<PathBuf>,
}

/// One simulation of a batch.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique within the batch.
    pub id: String,
    pub config: Spec,
    /// Keep only the summary and the time series (for grids of thousands of runs).
    pub summary_only: bool,
}

impl Job {
    /// A job whose whole report is kept.
    pub fn new(id: String, config: Spec) -> Job {
        Job {
            id,
            config,
            summary_only: false,
        }
    }
}

/// Another file written with every result, in the order results are stored: first the results
/// kept from before, then each finished job.
pub trait Sidecar: Send {
    /// Creates the file, once the output directory has been checked (nothing is written when
    /// the runner refuses to overwrite earlier results).
    fn open(&mut self) -> Result;
    /// Adds one result.
    fn write(&mut self, id: &str, report: &RunReport) -> Result;
}

/// A finished job as stored in `results.jsonl`.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    /// Fingerprint of the configuration it ran, so a resumed batch reruns jobs whose setup
    /// changed.
    config: String,
    report: RunReport,
}

/// FNV-1a fingerprint of a configuration's JSON form (stable across builds and platforms).
pub fn fingerprint(config: &Spec) -> Result<String> {
    let text = serde_json::to_string(config).map_err(anyhow::Error::from)?;
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    Ok(format!("{hash:016x}"))
}

/// Runs `jobs` (skipping those already stored, on resume, or found in a donor) and returns
/// every report by job id.
pub fn run_jobs(
    options: &RunOptions,
    jobs: &[Job],
    sidecar: Option<&mut dyn Sidecar>,
) -> Result<BTreeMap<String, RunReport>> {
    std::fs::create_dir_all(&options.out)
        .map_err(|e| Error::Input(format!("cannot create {}: {e}", options.out.display())))?;
    let path = options.out.join("results.jsonl");
    let configs: BTreeMap<&str, String> = jobs
        .iter()
        .map(|j| Ok((j.id.as_str(), fingerprint(&j.config)?)))
        .collect::<Result<_>>()?;
    let previous: Vec<Stored> = if path.exists() {
        if !options.resume {
            return Err(Error::Input(format!(
                "{} already holds results; pass --resume to keep them and run only what is \
                 missing, or --out to write elsewhere",
                options.out.display()
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
    for donor in options.donors.iter().filter(|d| d.exists()) {
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
    let lines = jsonl::JsonLines::create(&path, &kept)?;
    let mut sidecar = sidecar;
    if let Some(side) = sidecar.as_deref_mut() {
        side.open()?;
        for stored in &kept {
            side.write(&stored.id, &stored.report)?;
        }
    }
    let store = Mutex::new((lines, sidecar));
    let done: BTreeSet<&str> = kept.iter().map(|s| s.id.as_str()).collect();
    let pending: Vec<&Job> = jobs
        .iter()
        .filter(|j| !done.contains(j.id.as_str()))
        .collect();
    if !kept.is_empty() {
        eprintln!("{} of {} points already done", kept.len(), jobs.len());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .build()
        .map_err(anyhow::Error::from)?;
    let bar = progress::points_bar(pending.len() as u64);
    let finished: Vec<Stored> = pool.install(|| {
        pending
            .par_iter()
            .map(|job| -> Result<Stored> {
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
                let mut guard = store
                    .lock()
                    .map_err(|_| Error::Failed(anyhow::anyhow!("a worker panicked")))?;
                let (lines, sidecar) = &mut *guard;
                lines.append(&stored)?;
                if let Some(side) = sidecar.as_deref_mut() {
                    side.write(&stored.id, &stored.report)?;
                }
                bar.set_message(job.id.clone());
                bar.inc(1);
                Ok(stored)
            })
            .collect::<Result<_>>()
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
        let config = Spec::default().edited(|c| {
            c.sim.warmup_cycles = 100;
            c.sim.measure_cycles = 200;
            c.traffic.rate = rate;
        });
        Job::new(id.to_string(), config.unwrap())
    }

    fn options(out: PathBuf, donors: Vec<PathBuf>) -> RunOptions {
        RunOptions {
            out,
            threads: 1,
            resume: false,
            donors,
        }
    }

    #[test]
    fn runs_of_a_donor_with_the_same_configuration_are_copied_not_rerun() {
        let dir = tempfile::tempdir().unwrap();
        let first = options(dir.path().join("first"), Vec::new());
        let done = run_jobs(&first, &[job("a", 0.1), job("b", 0.1)], None).unwrap();
        let second = options(
            dir.path().join("second"),
            vec![
                first.out.join("results.jsonl"),
                dir.path().join("missing.jsonl"),
            ],
        );
        // `a` is the same job; `b` changed its configuration and must run again.
        let reports = run_jobs(&second, &[job("a", 0.1), job("b", 0.2)], None).unwrap();
        let wall = |r: &RunReport| r.summary.wall_seconds;
        assert_eq!(wall(&reports["a"]), wall(&done["a"]));
        assert_ne!(wall(&reports["b"]), wall(&done["b"]));
        assert!(reports["b"].summary.offered > done["b"].summary.offered);
        // The copied run is now stored in the second batch's own results.
        let stored: Vec<Stored> = jsonl::read(&second.out.join("results.jsonl")).unwrap();
        let mut ids: Vec<&str> = stored.iter().map(|s| s.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
    }
}
