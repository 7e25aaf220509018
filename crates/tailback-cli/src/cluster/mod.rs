//! Sweeps and experiments on a Slurm cluster (`docs/cluster.md`): the points are planned as a
//! local run plans them, cut in plan order into shards, and submitted as one job array whose
//! task `I` runs shard `I` (`tailback shard DIR --task I`) into `DIR/shards/task-I` with the
//! normal resumable runner. `tailback status DIR` follows the shards, `tailback merge DIR`
//! gathers their results into the normal outputs.
//!
//! The files under the output directory `DIR`: `slurm/plan.json` ([`Plan`]),
//! `slurm/job.sh` (the last script submitted), `slurm/submissions.jsonl` (a line per
//! submission), `slurm/logs/` (each task's output) and `shards/task-I/results.jsonl`.

mod queue;
pub mod script;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use tailback_experiments::Job;
use tailback_experiments::runner::{self, fingerprint, lock};

use crate::cli::SlurmArgs;
use crate::error::{CliError, CliResult};
use crate::sweep::Manifest;

pub use queue::listed_tasks;
pub use script::array_spec;

/// What a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `tailback sweep`: the points of `sweep.json`.
    Sweep,
    /// `tailback experiment run`: the jobs the experiment knows before running.
    Experiment,
}

/// `slurm/plan.json`: what was submitted and how it is cut into shards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub kind: Kind,
    /// The experiment's name (experiments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// A `--quick` experiment.
    #[serde(default)]
    pub quick: bool,
    /// Points in all.
    pub points: usize,
    /// Shards (array tasks 0 to `shards - 1`).
    pub shards: usize,
    /// Points per shard (the last may hold fewer).
    pub shard_size: usize,
    /// Fingerprint of every point's id and configuration, in plan order: a task refuses to run
    /// when the points it rebuilds differ.
    pub jobs_fingerprint: String,
    /// The version of tailback that planned it; tasks of another version refuse to run.
    pub tailback_version: String,
    /// The binary the job script runs.
    pub binary: PathBuf,
    /// The command line that submitted it (for the hint to resubmit).
    pub command: Vec<String>,
}

const PLAN: &str = "slurm/plan.json";
const SCRIPT: &str = "slurm/job.sh";
const SUBMISSIONS: &str = "slurm/submissions.jsonl";
const LOGS: &str = "slurm/logs";

impl Plan {
    /// The plan in `dir`.
    pub fn load(dir: &Path) -> CliResult<Plan> {
        let path = dir.join(PLAN);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            CliError::Input(format!(
                "{} holds no Slurm plan ({}: {e}); it is written by `tailback sweep ... --slurm` \
                 or `tailback experiment run ... --slurm`",
                dir.display(),
                path.display()
            ))
        })?;
        serde_json::from_str(&text)
            .map_err(|e| CliError::Input(format!("{} is not a Slurm plan ({e})", path.display())))
    }

    fn save(&self, dir: &Path) -> CliResult {
        crate::commands::write_json(&dir.join(PLAN), self)?;
        Ok(())
    }

    /// The indices (in plan order) of shard `i`'s points.
    pub fn shard(&self, i: usize) -> Range<usize> {
        (i * self.shard_size).min(self.points)..((i + 1) * self.shard_size).min(self.points)
    }

    /// "sweep" or "experiment self-tuned-fig4 (quick)".
    pub fn what(&self) -> String {
        match (self.kind, &self.experiment) {
            (Kind::Experiment, Some(name)) if self.quick => format!("experiment {name} (quick)"),
            (Kind::Experiment, Some(name)) => format!("experiment {name}"),
            _ => "sweep".to_string(),
        }
    }

    /// The command that submits the shards with missing points again.
    pub fn resubmit_command(&self) -> String {
        let mut words: Vec<String> = self
            .command
            .iter()
            .skip(1)
            .filter(|w| *w != "--dry-run")
            .map(|w| script::shell_quote(w))
            .collect();
        if !words.iter().any(|w| w == "--resume") {
            words.push("--resume".to_string());
        }
        format!("tailback {}", words.join(" "))
    }

    /// Refuses a plan made by another version of tailback.
    pub fn check_version(&self, dir: &Path) -> CliResult {
        let ours = env!("CARGO_PKG_VERSION");
        if self.tailback_version != ours {
            return Err(CliError::Input(format!(
                "{} was planned by tailback {} and this is tailback {ours}: every task must run \
                 the same version (install it where all nodes see it, then resubmit with `{}`)",
                dir.join(PLAN).display(),
                self.tailback_version,
                self.resubmit_command()
            )));
        }
        Ok(())
    }
}

/// Refuses `-j` with `--slurm`: each array task runs `--cpus-per-task` simulations at once.
pub fn refuse_jobs(jobs: Option<usize>) -> CliResult {
    match jobs {
        Some(_) => Err(CliError::Input(
            "-j does not apply to --slurm: each array task runs --cpus-per-task simulations at \
             once"
                .to_string(),
        )),
        None => Ok(()),
    }
}

/// Fingerprint of the ids and configurations of `jobs`, in order.
pub fn jobs_fingerprint(jobs: &[Job]) -> CliResult<String> {
    let mut text = String::new();
    for job in jobs {
        text.push_str(&job.id);
        text.push('\t');
        text.push_str(&fingerprint(&job.config)?);
        text.push('\n');
    }
    Ok(runner::fingerprint_text(&text))
}

/// The points of the plan in `dir`, rebuilt as they were planned (a sweep's from its
/// `sweep.json`, an experiment's from its definition), checked against the plan.
pub fn planned_jobs(dir: &Path, plan: &Plan) -> CliResult<Vec<Job>> {
    let jobs = match plan.kind {
        Kind::Sweep => {
            let manifest = Manifest::load(dir)?;
            crate::commands::sweep::jobs(&crate::commands::sweep::planned(&manifest)?)
        }
        Kind::Experiment => {
            let name = plan.experiment.as_deref().ok_or_else(|| {
                CliError::Input(format!("{} names no experiment", dir.join(PLAN).display()))
            })?;
            crate::commands::experiment::find(name)?.plan(plan.quick)?
        }
    };
    if jobs.len() != plan.points || jobs_fingerprint(&jobs)? != plan.jobs_fingerprint {
        return Err(CliError::Input(format!(
            "the points of {} rebuilt now differ from those planned in {} ({} now, {} then): \
             the {} changed since it was submitted; submit it again into another directory",
            plan.what(),
            dir.join(PLAN).display(),
            jobs.len(),
            plan.points,
            match plan.kind {
                Kind::Sweep => "sweep.json",
                Kind::Experiment => "experiment's definition (another tailback build?)",
            }
        )));
    }
    Ok(jobs)
}

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

/// One submission, a line of `slurm/submissions.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Submission {
    pub job_id: String,
    /// The `--array` given.
    pub array: String,
    pub shards: Vec<usize>,
    /// Seconds since the Unix epoch.
    pub submitted: u64,
}

/// Every submission recorded in `dir`.
pub fn submissions(dir: &Path) -> CliResult<Vec<Submission>> {
    let path = dir.join(SUBMISSIONS);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Input(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

fn record_submission(dir: &Path, submission: &Submission) -> CliResult {
    use std::io::Write;
    let path = dir.join(SUBMISSIONS);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    writeln!(
        file,
        "{}",
        serde_json::to_string(submission).map_err(anyhow::Error::from)?
    )?;
    file.sync_all()?;
    Ok(())
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
        plan.resubmit_command(),
        dir.display()
    ))
}

/// What `--slurm` submits.
struct Request<'a> {
    kind: Kind,
    experiment: Option<String>,
    quick: bool,
    /// The job's name, and the start of the sentence saying what runs.
    job_name: String,
    jobs: &'a [Job],
    /// A sweep's manifest, written (or checked on resume) as `sweep` does.
    manifest: Option<&'a Manifest>,
}

/// `tailback sweep ... --slurm`.
pub fn submit_sweep(
    flags: &SlurmArgs,
    table: Option<&toml::Value>,
    out: &Path,
    manifest: &Manifest,
    jobs: &[Job],
    resume: bool,
) -> CliResult {
    let name = std::path::absolute(out)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "sweep".to_string());
    let request = Request {
        kind: Kind::Sweep,
        experiment: None,
        quick: false,
        job_name: format!("tailback-{name}"),
        jobs,
        manifest: Some(manifest),
    };
    submit(&request, flags, table, out, resume)
}

/// `tailback experiment run NAME ... --slurm`.
pub fn submit_experiment(
    flags: &SlurmArgs,
    out: &Path,
    name: &str,
    quick: bool,
    jobs: &[Job],
    resume: bool,
) -> CliResult {
    let request = Request {
        kind: Kind::Experiment,
        experiment: Some(name.to_string()),
        quick,
        job_name: format!("tailback-{name}{}", if quick { "-quick" } else { "" }),
        jobs,
        manifest: None,
    };
    submit(&request, flags, None, out, resume)
}

fn submit(
    request: &Request,
    flags: &SlurmArgs,
    table: Option<&toml::Value>,
    out: &Path,
    resume: bool,
) -> CliResult {
    let options = script::Options::resolve(flags, table)?;
    if !flags.dry_run && queue::find_program("sbatch").is_none() {
        return Err(queue::no_sbatch());
    }
    let jobs = request.jobs;
    if jobs.is_empty() {
        return Err(CliError::Input(
            "nothing to submit: no points planned".to_string(),
        ));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::Input(format!("cannot create {}: {e}", out.display())))?;
    let dir = out
        .canonicalize()
        .with_context(|| format!("resolving {}", out.display()))?;
    let _lock = lock::OutputLock::acquire(&dir)?;
    let fingerprint = jobs_fingerprint(jobs)?;
    let earlier = if dir.join(PLAN).exists() {
        Some(Plan::load(&dir)?)
    } else {
        None
    };
    let has_results = dir.join("results.jsonl").exists() || !shard_results(&dir)?.is_empty();
    let submitted = !submissions(&dir)?.is_empty();
    // A plan only written (by --dry-run) may be replaced; once tasks may have written, the
    // points and the shards stay as they were planned.
    let fixed = earlier.as_ref().filter(|_| has_results || submitted);
    if let Some(earlier) = fixed
        && (earlier.kind != request.kind
            || earlier.experiment != request.experiment
            || earlier.quick != request.quick
            || earlier.jobs_fingerprint != fingerprint)
    {
        return Err(CliError::Input(format!(
            "{} holds the Slurm plan of another {} (other points); submit into another --out",
            dir.display(),
            earlier.what()
        )));
    }
    if (has_results || submitted) && !resume {
        return Err(CliError::Input(format!(
            "{} already holds {}; pass --resume to submit only the shards with missing points, \
             or --out to write elsewhere",
            dir.display(),
            if has_results {
                "results"
            } else {
                "a submitted Slurm plan"
            }
        )));
    }
    if let Some(manifest) = request.manifest {
        manifest.record(&dir, resume)?;
    }
    let shard_size = match (fixed, options.shard_size) {
        (Some(e), Some(asked)) if asked != e.shard_size => {
            return Err(CliError::Input(format!(
                "{} was cut into shards of {} points; resubmit without --shard-size (or \
                 [slurm] shard_size), or submit into another --out",
                dir.display(),
                e.shard_size
            )));
        }
        (Some(e), _) => e.shard_size,
        (None, asked) => script::shard_size(jobs.len(), asked),
    };
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("finding the tailback binary")?;
    let plan = Plan {
        kind: request.kind,
        experiment: request.experiment.clone(),
        quick: request.quick,
        points: jobs.len(),
        shards: jobs.len().div_ceil(shard_size),
        shard_size,
        jobs_fingerprint: fingerprint,
        tailback_version: env!("CARGO_PKG_VERSION").to_string(),
        binary,
        command: std::env::args().collect(),
    };
    std::fs::create_dir_all(dir.join(LOGS))
        .with_context(|| format!("creating {}", dir.join(LOGS).display()))?;
    plan.save(&dir)?;

    let survey = survey(&dir, &plan, jobs)?;
    let busy: Vec<&ShardState> = survey
        .shards
        .iter()
        .filter(|s| s.missing() > 0 && s.busy())
        .collect();
    let todo: Vec<usize> = survey
        .shards
        .iter()
        .filter(|s| s.missing() > 0 && !s.busy())
        .map(|s| s.index)
        .collect();
    if !busy.is_empty() {
        eprintln!(
            "not resubmitted: shard{} {} (queued or running: {})",
            if busy.len() == 1 { "" } else { "s" },
            busy.iter()
                .map(|s| s.index.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            busy.iter()
                .map(|s| describe_busy(s))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    if todo.is_empty() {
        if busy.is_empty() {
            println!(
                "nothing is missing: all {} points of {} are done; gather them with `tailback \
                 merge {}`",
                plan.points,
                dir.display(),
                dir.display()
            );
        } else {
            println!(
                "nothing to submit: every shard with missing points is queued or running; \
                 `tailback status {}` follows them",
                dir.display()
            );
        }
        return Ok(());
    }
    let missing: usize = todo.iter().map(|&i| survey.shards[i].missing()).sum();
    let array = array_spec(&todo);
    let about = format!(
        "{} of {} points in {} shards of up to {}",
        plan.what(),
        plan.points,
        plan.shards,
        plan.shard_size
    );
    let text = script::Script {
        job_name: &request.job_name,
        array: &array,
        dir: &dir,
        binary: &plan.binary,
        options: &options,
        about: &about,
    }
    .render();
    let script_path = dir.join(SCRIPT);
    tailback_experiments::atomic::write(&script_path, text.as_bytes())
        .with_context(|| format!("writing {}", script_path.display()))?;
    if flags.dry_run {
        print!("{text}");
        eprintln!(
            "dry run: nothing submitted; wrote {} and {} ({} of {} shards, {missing} points to \
             run); submit it with `sbatch {}`, or run a shard here with `tailback shard {} \
             --task I`",
            dir.join(PLAN).display(),
            script_path.display(),
            todo.len(),
            plan.shards,
            script_path.display(),
            dir.display()
        );
        return Ok(());
    }
    let job_id = queue::sbatch(&script_path)?;
    record_submission(
        &dir,
        &Submission {
            job_id: job_id.clone(),
            array: array.clone(),
            shards: todo.clone(),
            submitted: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        },
    )?;
    println!(
        "submitted Slurm job {job_id}: array {array} ({} of {} shards, {missing} of {} points \
         to run) from {}",
        todo.len(),
        plan.shards,
        plan.points,
        script_path.display()
    );
    println!(
        "follow it with `tailback status {}`; when it is done, `tailback merge {}` writes the \
         results",
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// How a busy shard was seen busy.
pub fn describe_busy(shard: &ShardState) -> String {
    match (&shard.queued, shard.locked) {
        (Some(state), true) => format!("shard {}: lock held, squeue {state}", shard.index),
        (Some(state), false) => format!("shard {}: squeue {state}", shard.index),
        (None, _) => format!("shard {}: lock held", shard.index),
    }
}
