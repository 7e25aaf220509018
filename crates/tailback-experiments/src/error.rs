//! Errors of experiments and runs, split by whose fault they are (the exit code tells).

use std::fmt;

use tailback_core::config::ConfigError;

/// A failure of an experiment, a sweep or a command.
#[derive(Debug)]
pub enum Error {
    /// The user's input is wrong (configuration, flags, the files and directories given):
    /// exit 2.
    Input(String),
    /// Another tailback is writing the output directory (its lock is held): exit 1.
    Busy(String),
    /// Something else failed while running (I/O, plotting, simulation): exit 1.
    Failed(anyhow::Error),
}

impl Error {
    /// Process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Busy(_) | Error::Failed(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(message) | Error::Busy(message) => f.write_str(message),
            Error::Failed(error) => write!(f, "{error:#}"),
        }
    }
}

impl From<ConfigError> for Error {
    fn from(error: ConfigError) -> Self {
        Error::Input(error.to_string())
    }
}

impl From<anyhow::Error> for Error {
    fn from(error: anyhow::Error) -> Self {
        Error::Failed(error)
    }
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::Failed(error.into())
    }
}

impl From<tailback_plot::PlotError> for Error {
    fn from(error: tailback_plot::PlotError) -> Self {
        Error::Failed(anyhow::anyhow!(error))
    }
}

/// Result of an experiment, a sweep or a command.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;
