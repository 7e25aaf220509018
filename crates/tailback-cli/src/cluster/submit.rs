//! Submitting a plan as a Slurm job array: the script, `sbatch`, the record of submissions,
//! and resubmitting only the shards with missing points.

use std::path::Path;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use tailback_experiments::Job;
use tailback_experiments::runner::lock;

use crate::cli::SlurmArgs;
use crate::error::{CliError, CliResult};
use crate::sweep::Manifest;

use super::{
    Kind, LOGS, PLAN, Plan, SCRIPT, SUBMISSIONS, ShardState, array_spec, describe_busy,
    jobs_fingerprint, queue, script, shard_results, survey,
};

/// Refuses `-j` with `--slurm`: each array task runs `--cpus-per-task` simulations at once.
pub fn refuse_jobs(jobs: Option<u32>) -> CliResult {
    match jobs {
        Some(_) => Err(CliError::Input(
            "-j does not apply to --slurm: each array task runs --cpus-per-task simulations at \
             once"
                .to_string(),
        )),
        None => Ok(()),
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
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let dir = out
        .canonicalize()
        .with_context(|| format!("resolving {}", out.display()))?;
    script::check_script_path("--out", &dir)?;
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
    script::check_script_path("the tailback binary", &binary)?;
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
