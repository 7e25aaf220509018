//! `tailback shard DIR --task I`: what each array task of a `--slurm` job runs. It rebuilds the
//! points of shard `I` exactly as they were planned and runs them with the normal resumable
//! runner into `DIR/shards/task-I` (its own results and lock: tasks never share a file),
//! resuming its own earlier results and copying points already done in `DIR/results.jsonl` or
//! another shard instead of running them again.

use std::time::Duration;

use tailback_experiments::{RunOptions, runner};

use crate::cli::ShardArgs;
use crate::cluster::{self, Plan};
use crate::error::{CliError, CliResult};

pub fn run(args: ShardArgs) -> CliResult {
    let dir = args.dir;
    let plan = Plan::load(&dir)?;
    plan.check_version(&dir)?;
    if args.task >= plan.shards {
        return Err(CliError::Input(format!(
            "{} is planned as tasks 0 to {}; there is no task {}",
            dir.display(),
            plan.shards.saturating_sub(1),
            args.task
        )));
    }
    let jobs = cluster::planned_jobs(&dir, &plan)?;
    let range = plan.shard(args.task);
    let mine = &jobs[range.clone()];
    let out = cluster::shard_dir(&dir, args.task);
    let own = out.join("results.jsonl");
    let donors = std::iter::once(dir.join("results.jsonl"))
        .chain(cluster::shard_results(&dir)?)
        .filter(|p| *p != own)
        .collect();
    let threads = std::env::var("SLURM_CPUS_PER_TASK")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1);
    eprintln!(
        "task {} of {}: {} points ({} to {} of {}) of the {}, {threads} at once, into {}",
        args.task,
        plan.shards,
        mine.len(),
        range.start + 1,
        range.end,
        plan.points,
        plan.what(),
        out.display()
    );
    let options = RunOptions {
        out: out.clone(),
        threads,
        resume: true,
        donors,
        offline: false,
    };
    // `tailback status` looks at the lock for an instant; a task starting just then waits for
    // it rather than failing. A real second writer keeps it and is refused.
    let mut tries = 0;
    let reports = loop {
        match runner::run_jobs(&options, mine, None) {
            Err(CliError::Busy(_)) if tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(500));
            }
            result => break result?,
        }
    };
    println!(
        "task {}: {} of {} points done in {}",
        args.task,
        reports.len(),
        mine.len(),
        own.display()
    );
    Ok(())
}
