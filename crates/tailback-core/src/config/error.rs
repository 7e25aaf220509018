//! Configuration errors: every problem names the key path, the offending value and what is allowed.

use std::fmt;

/// One problem found in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// Dotted key path, e.g. `router.vcs`.
    pub path: String,
    /// The offending value as written (TOML syntax), when there is one.
    pub value: Option<String>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{} = {}: {}", self.path, abbreviated(v), self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// `text` as an error shows it: whole up to [`SHOWN_CHARS`] characters, otherwise its start
/// and its length ("xxx... (100002 characters)").
pub fn abbreviated(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_CHARS {
        text.to_string()
    } else {
        let head: String = text.chars().take(SHOWN_CHARS).collect();
        format!("{head}... ({count} characters)")
    }
}

/// The most characters of a value an issue shows; a longer value is cut, its length given.
const SHOWN_CHARS: usize = 100;

/// A configuration that could not be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The text is not valid TOML (or JSON).
    #[error("{source_name}: syntax error: {message}")]
    Syntax {
        /// Where the text came from (a file name or `<inline>`).
        source_name: String,
        /// The parser's message.
        message: String,
    },
    /// The text parsed but one or more values are invalid; all of them are listed.
    #[error("{}", format_issues(.0))]
    Invalid(Vec<ConfigIssue>),
}

impl ConfigError {
    /// The individual problems (empty for a syntax error).
    pub fn issues(&self) -> &[ConfigIssue] {
        match self {
            ConfigError::Invalid(issues) => issues,
            ConfigError::Syntax { .. } => &[],
        }
    }
}

fn format_issues(issues: &[ConfigIssue]) -> String {
    let mut s = format!(
        "invalid configuration ({} problem{}):",
        issues.len(),
        if issues.len() == 1 { "" } else { "s" }
    );
    for issue in issues {
        s.push_str("\n  - ");
        s.push_str(&issue.to_string());
    }
    s
}
