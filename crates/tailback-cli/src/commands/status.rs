//! `tailback status DIR`: how far a sweep or experiment submitted with `--slurm` has come:
//! points done (in `DIR/results.jsonl` or any shard), running and missing, per shard and in
//! total, and the Slurm jobs submitted.

use crate::cli::StatusArgs;
use crate::cluster::{self, Plan};
use crate::error::CliResult;

pub fn run(args: StatusArgs) -> CliResult {
    let dir = args.dir;
    let plan = Plan::load(&dir)?;
    let jobs = cluster::planned_jobs(&dir, &plan)?;
    let survey = cluster::survey(&dir, &plan, &jobs)?;
    println!(
        "{}: {} of {} points in {} shards of up to {} (planned by tailback {})",
        dir.display(),
        plan.what(),
        plan.points,
        plan.shards,
        plan.shard_size,
        plan.tailback_version
    );
    let submissions = cluster::submissions(&dir)?;
    if submissions.is_empty() {
        println!("Slurm jobs: none submitted");
    } else {
        println!(
            "Slurm jobs: {}",
            submissions
                .iter()
                .map(|s| format!("{} (array {})", s.job_id, s.array))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    println!(
        "{:>5}  {:>6}  {:>6}  {:>7}  {:>7}  state",
        "shard", "points", "done", "running", "missing"
    );
    let (mut running, mut missing) = (0, 0);
    for shard in &survey.shards {
        let (run, miss) = if shard.running() {
            (shard.missing(), 0)
        } else {
            (0, shard.missing())
        };
        running += run;
        missing += miss;
        let state = match (&shard.queued, shard.locked) {
            _ if shard.missing() == 0 => "done".to_string(),
            (Some(state), true) => format!("running (lock held; squeue: {state})"),
            (None, true) => "running (lock held)".to_string(),
            (Some(state), false) if state == "PENDING" => "queued (squeue: PENDING)".to_string(),
            (Some(state), false) => format!("running (squeue: {state})"),
            (None, false) if shard.done > 0 => "incomplete".to_string(),
            (None, false) => "not run".to_string(),
        };
        println!(
            "{:>5}  {:>6}  {:>6}  {:>7}  {:>7}  {state}",
            shard.index, shard.points, shard.done, run, miss
        );
    }
    println!(
        "{:>5}  {:>6}  {:>6}  {:>7}  {:>7}",
        "total", plan.points, survey.done, running, missing
    );
    println!(
        "(done: found in {}/results.jsonl or a shard's; running: the shard's .tailback.lock is \
         held by a task writing{})",
        dir.display(),
        if survey.asked_squeue {
            ", or squeue lists its array task as running"
        } else {
            "; squeue is not available here, so queued tasks are not known"
        }
    );
    if running + missing == 0 {
        println!(
            "all done: `tailback merge {}` writes the results",
            dir.display()
        );
    } else if missing > 0 && !survey.shards.iter().any(|s| s.missing() > 0 && s.busy()) {
        println!(
            "resubmit the missing points with `{}`",
            plan.resubmit_command(&dir)
        );
    }
    Ok(())
}
