//! The shards of a plan on disk: their directories, which points are done, running or
//! missing, and the error that names what is missing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tailback_experiments::Job;
use tailback_experiments::runner::{self, fingerprint, lock};

use crate::error::{CliError, CliResult};

use super::{Plan, listed_tasks, queue, submissions};

/// The directory of shard `i`'s results.
pub fn shard_dir(dir: &Path, i: usize) -> PathBuf {
    dir.join("shards").join(format!("task-{i}"))
}

/// Every shard directory under `dir` (`shards/task-I`), by task index.
fn shard_dirs(dir: &Path) -> CliResult<Vec<(usize, PathBuf)>> {
    let shards = dir.join("shards");
    let entries = match std::fs::read_dir(&shards) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Input(format!(
                "cannot read {}: {e}",
                shards.display()
            )));
        }
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if let Some(i) = name
            .to_str()
            .and_then(|n| n.strip_prefix("task-"))
            .and_then(|n| n.parse::<usize>().ok())
            && entry.path().is_dir()
        {
            found.push((i, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// The `results.jsonl` of every shard under `dir` that has one, by task index (the donors that
/// gather a cluster's results).
pub fn shard_results(dir: &Path) -> CliResult<Vec<PathBuf>> {
    Ok(shard_dirs(dir)?
        .into_iter()
        .map(|(_, d)| d.join("results.jsonl"))
        .filter(|p| p.exists())
        .collect())
}

/// The ids of `jobs` with a result for their configuration in `dir/results.jsonl` or in any
/// shard's.
pub fn done(dir: &Path, jobs: &[Job]) -> CliResult<BTreeSet<String>> {
    let wanted: BTreeMap<&str, String> = jobs
        .iter()
        .map(|j| Ok((j.id.as_str(), fingerprint(&j.config)?)))
        .collect::<CliResult<_>>()?;
    let mut done = BTreeSet::new();
    for path in std::iter::once(dir.join("results.jsonl")).chain(shard_results(dir)?) {
        for (id, config) in runner::stored_points(&path)? {
            if wanted.get(id.as_str()) == Some(&config) {
                done.insert(id);
            }
        }
    }
    Ok(done)
}

/// The state of one shard.
#[derive(Debug, Clone)]
pub struct ShardState {
    pub index: usize,
    pub points: usize,
    pub done: usize,
    /// Its first missing points' ids.
    pub missing_ids: Vec<String>,
    /// Its task is writing now (its lock is held).
    pub locked: bool,
    /// Its array task's state in `squeue` (`PENDING`, `RUNNING`...), when listed.
    pub queued: Option<String>,
}

impl ShardState {
    pub fn missing(&self) -> usize {
        self.points - self.done
    }

    /// A task of it is queued or running.
    pub fn busy(&self) -> bool {
        self.locked || self.queued.is_some()
    }

    /// A task of it is running now.
    pub fn running(&self) -> bool {
        self.locked || self.queued.as_deref().is_some_and(|s| s != "PENDING")
    }
}

/// How shards were found running, for the reader.
pub struct Survey {
    pub shards: Vec<ShardState>,
    /// `squeue` answered.
    pub asked_squeue: bool,
    pub done: usize,
}

/// Every shard's state: points done (anywhere), whether its task writes now (its lock), and
/// its array task's state in `squeue` for the jobs submitted from `dir`.
pub fn survey(dir: &Path, plan: &Plan, jobs: &[Job]) -> CliResult<Survey> {
    let done = done(dir, jobs)?;
    let job_ids: Vec<String> = submissions(dir)?.into_iter().map(|s| s.job_id).collect();
    let listed = if job_ids.is_empty() {
        Some(BTreeMap::new()).filter(|_| queue::find_program("squeue").is_some())
    } else {
        listed_tasks(&job_ids)
    };
    let mut shards = Vec::new();
    for i in 0..plan.shards {
        let range = plan.shard(i);
        let missing_ids: Vec<String> = jobs[range.clone()]
            .iter()
            .filter(|j| !done.contains(&j.id))
            .map(|j| j.id.clone())
            .collect();
        shards.push(ShardState {
            index: i,
            points: range.len(),
            done: range.len() - missing_ids.len(),
            missing_ids,
            locked: lock::is_held(&shard_dir(dir, i))?,
            queued: listed.as_ref().and_then(|l| l.get(&i).cloned()),
        });
    }
    Ok(Survey {
        shards,
        asked_squeue: listed.is_some(),
        done: done.len(),
    })
}

/// The error of `merge` while points are missing.
pub fn missing_error(dir: &Path, plan: &Plan, survey: &Survey) -> CliError {
    let short: Vec<&ShardState> = survey.shards.iter().filter(|s| s.missing() > 0).collect();
    let missing: usize = short.iter().map(|s| s.missing()).sum();
    let first: Vec<String> = short
        .iter()
        .flat_map(|s| s.missing_ids.iter())
        .take(3)
        .map(|id| format!("`{id}`"))
        .collect();
    let busy: Vec<String> = short
        .iter()
        .filter(|s| s.busy())
        .map(|s| s.index.to_string())
        .collect();
    CliError::Input(format!(
        "{missing} of {} points missing (shard{} {}; first {}); merge runs nothing: {}resubmit \
         with `{}`, then merge again (`tailback status {}` follows it)",
        plan.points,
        if short.len() == 1 { "" } else { "s" },
        short
            .iter()
            .map(|s| s.index.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        first.join(", "),
        if busy.is_empty() {
            String::new()
        } else {
            format!(
                "shard{} {} still queued or running; wait for them, or ",
                if busy.len() == 1 { " is" } else { "s are" },
                busy.join(", ")
            )
        },
        plan.resubmit_command(dir),
        dir.display()
    ))
}

/// How a busy shard was seen busy.
pub fn describe_busy(shard: &ShardState) -> String {
    match (&shard.queued, shard.locked) {
        (Some(state), true) => format!("shard {}: lock held, squeue {state}", shard.index),
        (Some(state), false) => format!("shard {}: squeue {state}", shard.index),
        (None, _) => format!("shard {}: lock held", shard.index),
    }
}
