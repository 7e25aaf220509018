//! Errors of the command-line tool and their exit codes: those of the experiments crate, which
//! the runner shared by sweeps and experiments returns.

pub use tailback_experiments::{Error as CliError, Result as CliResult};
