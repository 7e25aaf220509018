//! `tailback`: run, sweep, check and benchmark interconnection network simulations.

mod budget;
mod cli;
mod cluster;
mod commands;
mod describe;
mod error;
mod input;
mod progress;
mod report;
mod sweep;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() {
    quiet_broken_pipes();
    report_stdout_failures();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => commands::run::run(args),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Predict(args) => commands::predict::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Experiment(args) => commands::experiment::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Shard(args) => commands::shard::run(args),
        Command::Merge(args) => commands::merge::run(args),
        Command::Status(args) => commands::status::run(args),
    };
    if let Err(error) = result {
        eprintln!("error: {error}");
        std::process::exit(error.exit_code());
    }
}

/// A closed pipe on standard output (`tailback ... | head`) ends the process quietly, as it
/// ends other command-line tools (killed by SIGPIPE, exit status 141 in a shell), instead of
/// a panic; the result files written so far are complete.
fn quiet_broken_pipes() {
    #[cfg(unix)]
    // SAFETY: restores the default disposition of SIGPIPE before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Any other failure to write to standard output (a full disk) ends with a one-line error
/// and exit status 1 rather than a panic message.
fn report_stdout_failures() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(reason) = message.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: cannot write to standard output: {reason}");
            std::process::exit(1);
        }
        default(info);
    }));
}
