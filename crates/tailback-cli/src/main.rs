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
mod workers;

use std::io::Write;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() {
    quiet_broken_pipes();
    report_output_failures();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => exit_after_clap(&error),
    };
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
    let code = match result {
        Ok(()) => 0,
        Err(error) => {
            // Standard error may be unwritable too (`2>/dev/full`): the status still tells.
            let _ = writeln!(std::io::stderr(), "error: {error}");
            error.exit_code()
        }
    };
    if let Err(error) = std::io::stdout().flush()
        && error.kind() != std::io::ErrorKind::BrokenPipe
    {
        stdout_failed(error);
    }
    std::process::exit(code);
}

/// Ends the process as clap would for `error` (help, version, or a usage error), except that
/// help or version text that cannot be written ends with status 1 rather than 0.
fn exit_after_clap(error: &clap::Error) -> ! {
    let printed = error
        .print()
        .and_then(|()| std::io::stdout().flush())
        .and_then(|()| std::io::stderr().flush());
    match printed {
        Err(e) if error.use_stderr() || e.kind() == std::io::ErrorKind::BrokenPipe => {
            std::process::exit(error.exit_code())
        }
        Err(e) => stdout_failed(e),
        Ok(()) => std::process::exit(error.exit_code()),
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
/// and exit status 1 rather than a panic message; so does a failure to write a warning or
/// progress to standard error, silently, since nothing can be said there.
fn report_output_failures() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(reason) = message.strip_prefix("failed printing to stdout: ") {
            stdout_failed(reason);
        }
        if message.starts_with("failed printing to stderr: ") {
            std::process::exit(1);
        }
        default(info);
    }));
}

/// Ends the process after standard output failed for `reason`: says so on standard error if it
/// can, with exit status 1.
fn stdout_failed(reason: impl std::fmt::Display) -> ! {
    let _ = writeln!(
        std::io::stderr(),
        "error: cannot write to standard output: {reason}"
    );
    std::process::exit(1);
}
