//! The resumable parallel runner shared by sweeps and experiments: jobs run on a thread pool,
//! each result appended to `results.jsonl` (and to an optional sidecar such as the sweep's
//! `results.csv`) as soon as it finishes, so an interrupted batch keeps everything it finished.
//! On resume, and from donor result files, a stored result is reused when its job still exists
//! with the same configuration (compared by fingerprint); every other job runs.

pub mod jsonl;
pub mod lock;
pub mod progress;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tailback_core::config::{parse_assignment, set_path};
use tailback_core::spec::Spec;
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
    /// Run nothing: gather the results stored in `out` (with `resume`) and the donors, and
    /// fail, naming how many and which jobs have none, when any is missing (nothing is
    /// written then). Merging the results of a cluster's tasks must never simulate.
    pub offline: bool,
}

/// One simulation of a batch.
#[derive(Debug, Clone)]
pub struct Job {
    /// Unique within the batch.
    pub id: String,
    pub config: Spec,
    /// Keep only the summary and the time series (for grids of thousands of runs).
    pub summary_only: bool,
    /// The values that set this job apart (a sweep's swept keys, a grid's assignments), stored
    /// with its result as `values` so that each key reads as a column.
    pub values: Vec<(String, toml::Value)>,
}

impl Job {
    /// A job whose whole report is kept.
    pub fn new(id: String, config: Spec) -> Job {
        Job {
            id,
            config,
            summary_only: false,
            values: Vec::new(),
        }
    }

    /// This job with `assignments` (`key=value`) applied to its configuration, as job `id`:
    /// for an experiment that varies another experiment's runs.
    pub fn varied(&self, id: String, assignments: &[String]) -> Result<Job> {
        let mut table = toml::Table::try_from(&*self.config).map_err(anyhow::Error::from)?;
        let mut values = self.values.clone();
        for assignment in assignments {
            let (key, value) = parse_assignment(assignment).map_err(Error::Input)?;
            set_path(&mut table, &key, value.clone())?;
            values.push((key, value));
        }
        Ok(Job {
            id,
            config: Spec::from_table(&table)?,
            summary_only: self.summary_only,
            values,
        })
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
    /// The whole configuration it ran, every default filled in (absent from files written
    /// before it was stored).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    resolved_config: serde_json::Value,
    /// The job's distinguishing values by key ([`Job::values`]).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    values: serde_json::Map<String, serde_json::Value>,
    report: RunReport,
}

/// Stored results of the batch's jobs gathered from result files: one per job, with the
/// configuration the job has now, remembering where each came from and a fingerprint of its
/// numbers.
struct Found<'a> {
    /// Each job's configuration fingerprint.
    wanted: &'a BTreeMap<&'a str, String>,
    results: BTreeMap<String, (String, String, Stored)>,
}

impl<'a> Found<'a> {
    fn new(wanted: &'a BTreeMap<&'a str, String>) -> Found<'a> {
        Found {
            wanted,
            results: BTreeMap::new(),
        }
    }

    /// Adds the results of `path` for the batch's jobs as configured now, returning how many
    /// were new: a row equal to one already found (the same numbers, wall-clock time aside) is
    /// a duplicate and dropped; a row with other numbers is an error naming both places.
    fn read(&mut self, path: &Path) -> Result<usize> {
        let (mut added, mut duplicates) = (0, 0);
        for (line, stored) in jsonl::read::<Stored>(path)? {
            if self.wanted.get(stored.id.as_str()) != Some(&stored.config) {
                continue;
            }
            let place = format!("{}, line {line}", path.display());
            let numbers = numbers_fingerprint(&stored.report)?;
            match self.results.get(&stored.id) {
                Some((_, seen, _)) if *seen == numbers => duplicates += 1,
                Some((first, _, _)) => {
                    return Err(Error::Input(format!(
                        "conflicting results for point {}: {first} and {place} hold different \
                         numbers for the same configuration; remove the wrong one",
                        stored.id
                    )));
                }
                None => {
                    self.results
                        .insert(stored.id.clone(), (place, numbers, stored));
                    added += 1;
                }
            }
        }
        if duplicates > 0 {
            eprintln!(
                "warning: {duplicates} duplicate result rows in {} ignored",
                path.display()
            );
        }
        Ok(added)
    }

    /// The results, in job-id order.
    fn into_results(self) -> impl Iterator<Item = Stored> {
        self.results.into_values().map(|(_, _, stored)| stored)
    }
}

/// Fingerprint of a report's numbers without the wall-clock fields, the only ones that may
/// differ between two runs of one configuration.
fn numbers_fingerprint(report: &RunReport) -> Result<String> {
    let mut value = serde_json::to_value(report).map_err(anyhow::Error::from)?;
    if let Some(summary) = value.get_mut("summary").and_then(|s| s.as_object_mut()) {
        summary.remove("wall_seconds");
        summary.remove("node_cycles_per_second");
    }
    Ok(fnv(&value.to_string()))
}

/// FNV-1a fingerprint of a configuration's JSON form (stable across builds and platforms).
pub fn fingerprint(config: &Spec) -> Result<String> {
    Ok(fnv(
        &serde_json::to_string(config).map_err(anyhow::Error::from)?
    ))
}

/// FNV-1a hash of `text`, as 16 hexadecimal digits.
fn fnv(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The error of an offline batch with jobs that have no stored result: how many, and the
/// first few ids.
fn missing_message(missing: &[&str], total: usize, out: &Path) -> String {
    const SHOWN: usize = 5;
    let mut first: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|id| format!("`{id}`"))
        .collect();
    if missing.len() > SHOWN {
        first.push(format!("and {} more", missing.len() - SHOWN));
    }
    format!(
        "{} of {total} points missing in {} and the files gathered with it ({}); nothing is run \
         when only gathering results",
        missing.len(),
        out.display(),
        first.join(", ")
    )
}

/// The finished jobs stored in a `results.jsonl` file: id and configuration fingerprint (as
/// [`fingerprint`] gives it) of each readable line, in file order. A missing file holds none.
pub fn stored_points(path: &Path) -> Result<Vec<(String, String)>> {
    #[derive(Deserialize)]
    struct Point {
        id: String,
        config: String,
    }
    if !path.exists() {
        return Ok(Vec::new());
    }
    Ok(jsonl::read::<Point>(path)?
        .into_iter()
        .map(|(_, p)| (p.id, p.config))
        .collect())
}

/// FNV-1a fingerprint of any text, as 16 hexadecimal digits (the hash [`fingerprint`] uses).
pub fn fingerprint_text(text: &str) -> String {
    fnv(text)
}

/// Runs `jobs` (skipping those already stored, on resume, or found in a donor) and returns
/// every report by job id.
pub fn run_jobs(
    options: &RunOptions,
    jobs: &[Job],
    sidecar: Option<&mut dyn Sidecar>,
) -> Result<BTreeMap<String, RunReport>> {
    std::fs::create_dir_all(&options.out).map_err(|e| {
        Error::Failed(anyhow::anyhow!(
            "cannot create {}: {e}",
            options.out.display()
        ))
    })?;
    let _lock = lock::OutputLock::acquire(&options.out)?;
    let path = options.out.join("results.jsonl");
    let configs: BTreeMap<&str, String> = jobs
        .iter()
        .map(|j| Ok((j.id.as_str(), fingerprint(&j.config)?)))
        .collect::<Result<_>>()?;
    let mut found = Found::new(&configs);
    if path.exists() {
        if !options.resume {
            return Err(Error::Input(format!(
                "{} already holds results; pass --resume to keep them and run only what is \
                 missing, or --out to write elsewhere",
                options.out.display()
            )));
        }
        found.read(&path)?;
    }
    for donor in options.donors.iter().filter(|d| d.exists()) {
        let added = found.read(donor)?;
        if added > 0 {
            eprintln!("reusing {added} runs from {}", donor.display());
        }
    }
    let kept: Vec<Stored> = found.into_results().collect();
    if options.offline {
        let done: BTreeSet<&str> = kept.iter().map(|s| s.id.as_str()).collect();
        let missing: Vec<&str> = jobs
            .iter()
            .map(|j| j.id.as_str())
            .filter(|id| !done.contains(id))
            .collect();
        if !missing.is_empty() {
            return Err(Error::Input(missing_message(
                &missing,
                jobs.len(),
                &options.out,
            )));
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
        // Never more threads than points to run (`-j 2000` on two points starts two).
        .num_threads(options.threads.clamp(1, pending.len().max(1)))
        .build()
        .map_err(anyhow::Error::from)?;
    let bar = progress::points_bar(pending.len() as u64);
    let log = progress::LogLines::new();
    let total = pending.len();
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
                    resolved_config: serde_json::to_value(&job.config)
                        .map_err(anyhow::Error::from)?,
                    values: job
                        .values
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), serde_json::to_value(v)?)))
                        .collect::<serde_json::Result<_>>()
                        .map_err(anyhow::Error::from)?,
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
                let done = bar.position() as usize;
                log.tick(done as f64 / total as f64, || {
                    format!("{done} of {total} points done (last: {})", job.id)
                });
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
            offline: false,
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
        let stored: Vec<(usize, Stored)> = jsonl::read(&second.out.join("results.jsonl")).unwrap();
        let mut ids: Vec<&str> = stored.iter().map(|(_, s)| s.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
    }

    /// `results.jsonl` of `out` with line `line` (from 1) changed by `edit`.
    fn edit_line(out: &Path, line: usize, edit: impl Fn(&str) -> String) {
        let path = out.join("results.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == line {
                    edit(l)
                } else {
                    l.to_string()
                }
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }

    #[test]
    fn a_duplicated_row_is_kept_once_and_a_conflicting_one_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = options(dir.path().join("out"), Vec::new());
        let jobs = [job("a", 0.1), job("b", 0.1)];
        run_jobs(&opts, &jobs, None).unwrap();
        opts.resume = true;
        // The same row twice (as two resumed writers could leave it): kept once.
        edit_line(&opts.out, 1, |l| format!("{l}\n{l}"));
        run_jobs(&opts, &jobs, None).unwrap();
        let stored: Vec<(usize, Stored)> = jsonl::read(&opts.out.join("results.jsonl")).unwrap();
        assert_eq!(stored.len(), 2);
        // Other numbers for the same point and configuration: refused, both places named.
        edit_line(&opts.out, 1, |l| {
            let mut other: serde_json::Value = serde_json::from_str(l).unwrap();
            other["report"]["summary"]["offered"] = serde_json::json!(0.123);
            format!("{l}\n{other}")
        });
        let err = run_jobs(&opts, &jobs, None).unwrap_err().to_string();
        assert!(err.contains("conflicting results for point"), "{err}");
        assert!(err.contains("line 1") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn offline_gathers_stored_runs_and_refuses_naming_the_missing_without_running_or_writing() {
        let dir = tempfile::tempdir().unwrap();
        let first = options(dir.path().join("first"), Vec::new());
        let done = run_jobs(&first, &[job("a", 0.1), job("b", 0.1)], None).unwrap();
        let mut merged = options(
            dir.path().join("merged"),
            vec![first.out.join("results.jsonl")],
        );
        merged.offline = true;
        merged.resume = true;
        let jobs = [job("a", 0.1), job("b", 0.1), job("c", 0.1), job("d", 0.2)];
        let err = run_jobs(&merged, &jobs, None).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let err = err.to_string();
        assert!(err.starts_with("2 of 4 points missing"), "{err}");
        assert!(err.contains("`c`") && err.contains("`d`"), "{err}");
        assert!(
            !merged.out.join("results.jsonl").exists(),
            "nothing written"
        );
        // With every job stored somewhere, the reports are the stored ones.
        let reports = run_jobs(&merged, &jobs[..2], None).unwrap();
        let wall = |r: &RunReport| r.summary.wall_seconds;
        assert_eq!(wall(&reports["a"]), wall(&done["a"]));
        assert_eq!(wall(&reports["b"]), wall(&done["b"]));
        let ids: Vec<String> = stored_points(&merged.out.join("results.jsonl"))
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn a_directory_being_written_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path().join("out"), Vec::new());
        std::fs::create_dir_all(&opts.out).unwrap();
        let held = lock::OutputLock::acquire(&opts.out).unwrap();
        let err = run_jobs(&opts, &[job("a", 0.1)], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("being written by another tailback"), "{err}");
        assert!(!opts.out.join("results.jsonl").exists(), "nothing written");
        drop(held);
        run_jobs(&opts, &[job("a", 0.1)], None).unwrap();
    }
}
