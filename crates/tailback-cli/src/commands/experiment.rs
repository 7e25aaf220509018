//! `tailback experiment`: list the reproductions of published figures, or run one.

use std::path::{Path, PathBuf};

use serde::Serialize;

use tailback_experiments::runner::fingerprint;
use tailback_experiments::{
    self as experiments, Comparison, Context, Experiment, NotCompared, RunOptions,
};

use crate::cli::{
    ExperimentArgs, ExperimentCommand, ExperimentJobsArgs, ExperimentRunArgs, ExperimentTallyArgs,
};
use crate::error::{CliError, CliResult};

/// What `summary.json` holds. A quick run's comparisons carry no verdict (`agrees` is null)
/// but keep their values and rules.
#[derive(Serialize)]
struct Summary<'a> {
    experiment: &'a str,
    title: &'a str,
    source: &'a str,
    quick: bool,
    comparisons: &'a [Comparison],
    /// The results the paper states that are not compared, and why.
    not_compared: &'a [NotCompared],
    files: &'a [PathBuf],
    /// The version of tailback that wrote it.
    tailback_version: &'a str,
}

/// The default output directory of `experiment`: its name, with `-quick` for a quick run so
/// that a check never lands among (or is taken for) a reproduction.
fn default_out(experiment: &str, quick: bool) -> PathBuf {
    let dir = if quick {
        format!("{experiment}-quick")
    } else {
        experiment.to_string()
    };
    PathBuf::from("tailback-out/experiments").join(dir)
}

/// Refuses to write a full run where a quick one was summarised, or a quick run over a full
/// one: their runs would mix (and resuming keeps only the current batch's runs).
fn check_same_mode(out: &Path, quick: bool) -> CliResult {
    let path = out.join("summary.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let Some(earlier) = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|summary| summary.get("quick").and_then(serde_json::Value::as_bool))
    else {
        return Ok(());
    };
    if earlier == quick {
        return Ok(());
    }
    let (held, asked) = if earlier {
        ("a quick run (a pipeline check)", "a full run")
    } else {
        ("a full run", "a quick run")
    };
    Err(CliError::Input(format!(
        "{} records {held} in {}; {asked} there would mix with its results: pass another --out",
        path.display(),
        out.display()
    )))
}

pub fn run(args: ExperimentArgs) -> CliResult {
    match args.command {
        ExperimentCommand::List => {
            for e in experiments::all() {
                println!("{:<18} {} ({})", e.name, e.title, e.source);
            }
            Ok(())
        }
        ExperimentCommand::Run(args) => run_one(args),
        ExperimentCommand::Jobs(args) => list_jobs(args),
        ExperimentCommand::Tally(args) => tally(&args),
    }
}

/// The experiment called `name`.
pub(crate) fn find(name: &str) -> CliResult<Experiment> {
    experiments::named(name).ok_or_else(|| {
        let names: Vec<&str> = experiments::all().iter().map(|e| e.name).collect();
        CliError::Input(format!(
            "no experiment named `{name}`; available: {}",
            names.join(", ")
        ))
    })
}

/// Prints the jobs an experiment knows before running: id and configuration fingerprint.
fn list_jobs(args: ExperimentJobsArgs) -> CliResult {
    for job in find(&args.name)?.plan(args.quick)? {
        println!("{}\t{}", job.id, fingerprint(&job.config)?);
    }
    Ok(())
}

fn run_one(args: ExperimentRunArgs) -> CliResult {
    let experiment = find(&args.name)?;
    let out = args
        .out
        .unwrap_or_else(|| default_out(experiment.name, args.quick));
    check_same_mode(&out, args.quick)?;
    if args.slurm.slurm {
        crate::cluster::refuse_jobs(args.jobs)?;
        let jobs = experiment.plan(args.quick)?;
        return crate::cluster::submit_experiment(
            &args.slurm,
            &out,
            experiment.name,
            args.quick,
            &jobs,
            args.resume,
        );
    }
    // A directory run on a cluster (`--slurm`) and resumed here takes its shards' results.
    let donors = if args.resume {
        crate::cluster::shard_results(&out)?
    } else {
        Vec::new()
    };
    let ctx = Context {
        runs: RunOptions {
            out,
            // The runner starts no more threads than each stage has points.
            threads: crate::workers::threads(args.jobs, None),
            resume: args.resume,
            donors,
            offline: false,
        },
        quick: args.quick,
    };
    eprintln!(
        "{}: {} ({})",
        experiment.name, experiment.title, experiment.source
    );
    let outcome = experiment.execute(&ctx)?;
    write_outcome(&experiment, &ctx, &outcome)
}

/// `tailback merge` of an experiment submitted with `--slurm`: its analysis over the results
/// gathered by `runs` (offline: nothing is simulated), then its outputs as `run` writes them.
pub(crate) fn merge(name: &str, quick: bool, runs: RunOptions) -> CliResult {
    let experiment = find(name)?;
    check_same_mode(&runs.out, quick)?;
    let out = runs.out.clone();
    let ctx = Context { runs, quick };
    let outcome = experiment.execute(&ctx).map_err(|e| match e {
        CliError::Input(message) if message.contains("points missing") => CliError::Input(format!(
            "{message}\nThe planned points are all done: these runs belong to a later stage of \
             {name}, known only from the first results; run them here with `tailback experiment \
             run {name}{} --out {} --resume` (it gathers the shards' results)",
            if quick { " --quick" } else { "" },
            out.display()
        )),
        other => other,
    })?;
    write_outcome(&experiment, &ctx, &outcome)
}

/// Writes `summary.json` of a finished experiment and prints its comparisons and files.
fn write_outcome(
    experiment: &Experiment,
    ctx: &Context,
    outcome: &experiments::Outcome,
) -> CliResult {
    let summary_path = ctx.out().join("summary.json");
    super::write_json(
        &summary_path,
        &Summary {
            experiment: experiment.name,
            title: experiment.title,
            source: experiment.source,
            quick: ctx.quick,
            comparisons: &outcome.comparisons,
            not_compared: &outcome.not_compared,
            files: &outcome.files,
            tailback_version: env!("CARGO_PKG_VERSION"),
        },
    )?;
    if ctx.quick {
        println!("(quick mode: short runs for checking, not a reproduction; nothing is judged)");
    }
    print!("{}", experiments::table(&outcome.comparisons));
    if outcome.files.len() <= 6 {
        let written: Vec<String> = std::iter::once(&summary_path)
            .chain(&outcome.files)
            .map(|p| p.display().to_string())
            .collect();
        println!("wrote {}", written.join(", "));
    } else {
        println!(
            "wrote summary.json and {} plot files (listed in it) in {}",
            outcome.files.len(),
            ctx.out().display()
        );
    }
    update_report(ctx.out());
    Ok(())
}

/// Rebuilds the report of the experiments beside the one in `out` (its parent directory) and
/// prints where it is; the experiment stands whether or not that works.
fn update_report(out: &Path) {
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match crate::report::build(&[parent.to_path_buf()], None) {
        Ok(index) => println!("report: {}", index.display()),
        Err(e) => eprintln!("warning: the report was not updated: {e}"),
    }
}

/// Prints the per-paper tally of the full runs under `args.dirs` (or of a snapshot), writing
/// the snapshot when asked.
fn tally(args: &ExperimentTallyArgs) -> CliResult {
    let mut snapshot = match &args.snapshot {
        Some(path) => {
            let text =
                tailback_core::files::read_text(path, tailback_core::files::MAX_CONFIG_BYTES)
                    .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
            serde_json::from_str(&text).map_err(|e| {
                CliError::Input(format!("{}: not a tally snapshot: {e}", path.display()))
            })?
        }
        None if args.dirs.is_empty() => {
            return Err(CliError::Input(
                "give directories holding experiments' full runs, or --snapshot FILE".into(),
            ));
        }
        None => experiments::tally::Snapshot::default(),
    };
    if !args.dirs.is_empty() {
        for dir in crate::report::experiment_dirs(&args.dirs) {
            let path = dir.join("summary.json");
            let summary =
                crate::report::read_json(&path).map_err(|e| CliError::Input(format!("{e:#}")))?;
            if let Err(e) = snapshot.add(&summary) {
                eprintln!("skipped {}: {e}", path.display());
            }
        }
        if let Some(out) = &args.write_snapshot {
            super::write_json(out, &snapshot)?;
        }
    }
    let names: Vec<&str> = experiments::all().iter().map(|e| e.name).collect();
    print!("{}", snapshot.table(&names));
    Ok(())
}
