//! `tailback`: run, sweep, check and benchmark interconnection network simulations.

mod cli;
mod commands;
mod describe;
mod error;
mod input;
mod progress;
mod sweep;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => commands::run::run(args),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Predict(args) => commands::predict::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Experiment(args) => commands::experiment::run(args),
    };
    if let Err(error) = result {
        eprintln!("error: {error}");
        std::process::exit(error.exit_code());
    }
}
