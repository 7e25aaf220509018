//! `tailback experiment`: list the reproductions of published figures, or run one.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::{ExperimentArgs, ExperimentCommand, ExperimentRunArgs};
use crate::error::{CliError, CliResult};
use crate::experiments::{self, Comparison, Context};

/// What `summary.json` holds.
#[derive(Serialize)]
struct Summary<'a> {
    experiment: &'a str,
    title: &'a str,
    source: &'a str,
    quick: bool,
    comparisons: &'a [Comparison],
    files: &'a [PathBuf],
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
    }
}

fn run_one(args: ExperimentRunArgs) -> CliResult {
    let all = experiments::all();
    let Some(experiment) = all.iter().find(|e| e.name == args.name) else {
        let names: Vec<&str> = all.iter().map(|e| e.name).collect();
        return Err(CliError::Input(format!(
            "no experiment named `{}`; available: {}",
            args.name,
            names.join(", ")
        )));
    };
    let ctx = Context {
        out: args
            .out
            .unwrap_or_else(|| PathBuf::from("tailback-out/experiments").join(experiment.name)),
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        resume: args.resume,
        quick: args.quick,
        donors: Vec::new(),
    };
    eprintln!(
        "{}: {} ({})",
        experiment.name, experiment.title, experiment.source
    );
    let outcome = (experiment.run)(&ctx)?;
    let summary_path = ctx.out.join("summary.json");
    super::write_json(
        &summary_path,
        &Summary {
            experiment: experiment.name,
            title: experiment.title,
            source: experiment.source,
            quick: ctx.quick,
            comparisons: &outcome.comparisons,
            files: &outcome.files,
        },
    )?;
    if ctx.quick {
        println!("(quick mode: short runs for checking, not a reproduction)");
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
            ctx.out.display()
        );
    }
    Ok(())
}
