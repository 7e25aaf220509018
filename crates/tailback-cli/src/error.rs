//! Errors of the command-line tool and their exit codes.

use std::fmt;

use tailback_core::config::ConfigError;

/// A failure of a command.
#[derive(Debug)]
pub enum CliError {
    /// The user's input is wrong (configuration, arguments, output directory state): exit 2.
    Input(String),
    /// Something else failed (I/O, plotting): exit 1.
    Failed(anyhow::Error),
}

impl CliError {
    /// Process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(message) => f.write_str(message),
            CliError::Failed(error) => write!(f, "{error:#}"),
        }
    }
}

impl From<ConfigError> for CliError {
    fn from(error: ConfigError) -> Self {
        CliError::Input(error.to_string())
    }
}

impl From<anyhow::Error> for CliError {
    fn from(error: anyhow::Error) -> Self {
        CliError::Failed(error)
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> Self {
        CliError::Failed(error.into())
    }
}

impl From<tailback_plot::PlotError> for CliError {
    fn from(error: tailback_plot::PlotError) -> Self {
        CliError::Failed(anyhow::anyhow!(error))
    }
}

/// Result of a command.
pub type CliResult<T = ()> = Result<T, CliError>;
