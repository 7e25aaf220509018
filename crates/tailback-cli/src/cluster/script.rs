//! The job-array script: its `#SBATCH` options, from the command line's flags and a `[slurm]`
//! table in the sweep's configuration file (flags win), and the command each task runs.

use std::path::Path;

use crate::cli::SlurmArgs;
use crate::error::{CliError, CliResult};

/// Points per shard when neither `--shard-size` nor `[slurm] shard_size` says: shards hold at
/// most this many, evened out.
pub const DEFAULT_MOST_PER_SHARD: usize = 16;

/// The options of the job script.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    pub partition: Option<String>,
    pub time: Option<String>,
    pub mem: Option<String>,
    pub account: Option<String>,
    pub cpus_per_task: Option<u32>,
    /// More `#SBATCH` options, as written (`--qos=x`).
    pub extra: Vec<String>,
    pub shard_size: Option<usize>,
}

/// The keys a `[slurm]` table may hold.
const KEYS: [&str; 7] = [
    "partition",
    "time",
    "mem",
    "account",
    "cpus_per_task",
    "shard_size",
    "extra",
];

impl Options {
    /// The options of `flags`, and of `table` (a `[slurm]` table) where no flag gives them.
    pub fn resolve(flags: &SlurmArgs, table: Option<&toml::Value>) -> CliResult<Options> {
        let mut options = match table {
            None => Options::default(),
            Some(table) => from_table(table)?,
        };
        let flag = |f: &Option<String>, t: &mut Option<String>| {
            if f.is_some() {
                t.clone_from(f);
            }
        };
        flag(&flags.partition, &mut options.partition);
        flag(&flags.time, &mut options.time);
        flag(&flags.mem, &mut options.mem);
        flag(&flags.account, &mut options.account);
        if flags.cpus_per_task.is_some() {
            options.cpus_per_task = flags.cpus_per_task;
        }
        if let Some(size) = flags.shard_size {
            options.shard_size = Some(size as usize);
        }
        Ok(options)
    }

    /// The `#SBATCH` lines of these options (after the array and names).
    fn directives(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (name, value) in [
            ("partition", &self.partition),
            ("time", &self.time),
            ("mem", &self.mem),
            ("account", &self.account),
        ] {
            if let Some(value) = value {
                lines.push(format!("--{name}={value}"));
            }
        }
        if let Some(cpus) = self.cpus_per_task {
            lines.push(format!("--cpus-per-task={cpus}"));
        }
        lines.extend(self.extra.iter().cloned());
        lines
    }
}

/// The options of a `[slurm]` table.
fn from_table(table: &toml::Value) -> CliResult<Options> {
    let bad = |key: &str, what: &str| CliError::Input(format!("[slurm] {key}: {what}"));
    let toml::Value::Table(table) = table else {
        return Err(CliError::Input(
            "`slurm` in the configuration file must be a table ([slurm])".to_string(),
        ));
    };
    let mut options = Options::default();
    for (key, value) in table {
        // A string, or a number written bare (`time = 30` minutes, `mem = 4000` megabytes).
        let text = || match value {
            toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            toml::Value::Integer(n) if *n > 0 => Ok(n.to_string()),
            _ => Err(bad(key, "expected a non-empty string")),
        };
        let count = || match value {
            toml::Value::Integer(n) if *n >= 1 && *n <= i64::from(u32::MAX) => Ok(*n as u32),
            _ => Err(bad(key, "expected a whole number, at least 1")),
        };
        match key.as_str() {
            "partition" => options.partition = Some(text()?),
            "time" => options.time = Some(text()?),
            "mem" => options.mem = Some(text()?),
            "account" => options.account = Some(text()?),
            "cpus_per_task" | "cpus-per-task" => options.cpus_per_task = Some(count()?),
            "shard_size" | "shard-size" => options.shard_size = Some(count()? as usize),
            "extra" => {
                let toml::Value::Array(items) = value else {
                    return Err(bad(
                        key,
                        "expected a list of sbatch options, e.g. [\"--qos=x\"]",
                    ));
                };
                for item in items {
                    match item {
                        toml::Value::String(s) if s.starts_with('-') && !s.contains('\n') => {
                            options.extra.push(s.clone());
                        }
                        _ => {
                            return Err(bad(
                                key,
                                &format!("{item} is not an sbatch option such as \"--qos=x\""),
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(bad(
                    key,
                    &format!("unknown key; the known ones are {}", KEYS.join(", ")),
                ));
            }
        }
    }
    Ok(options)
}

/// Points per shard for `points` points: `asked`, or shards of at most
/// [`DEFAULT_MOST_PER_SHARD`] evened out (20 points: two shards of 10).
pub fn shard_size(points: usize, asked: Option<usize>) -> usize {
    asked.unwrap_or_else(|| {
        let shards = points.div_ceil(DEFAULT_MOST_PER_SHARD).max(1);
        points.div_ceil(shards).max(1)
    })
}

/// Slurm's form of a list of array indices: runs of consecutive ones as ranges (`0-2,5,7-9`).
pub fn array_spec(indices: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end = indices[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// `text` quoted for a POSIX shell.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What a job script is made of.
pub struct Script<'a> {
    pub job_name: &'a str,
    pub array: &'a str,
    /// The output directory (absolute).
    pub dir: &'a Path,
    /// The tailback binary (absolute).
    pub binary: &'a Path,
    pub options: &'a Options,
    /// What runs: "sweep of 8 points in 3 shards of up to 3".
    pub about: &'a str,
}

impl Script<'_> {
    /// The script's text.
    pub fn render(&self) -> String {
        let dir = self.dir.display().to_string();
        let mut text = String::from("#!/bin/bash\n");
        let mut directive = |line: String| text.push_str(&format!("#SBATCH {line}\n"));
        directive(format!("--job-name={}", self.job_name));
        directive(format!("--array={}", self.array));
        directive(format!("--output={dir}/slurm/logs/%A_%a.out"));
        for line in self.options.directives() {
            directive(line);
        }
        text.push_str(&format!(
            "#\n# Written by tailback {}: {}.\n# Each array task runs the points of one shard \
             into {dir}/shards/task-<task id>, resuming\n# its own earlier results and taking \
             points already done elsewhere. `tailback status {dir}`\n# follows the job; \
             `tailback merge {dir}` gathers the results when it is done.\n",
            env!("CARGO_PKG_VERSION"),
            self.about
        ));
        text.push_str(&format!(
            "exec {} shard {} --task \"$SLURM_ARRAY_TASK_ID\"\n",
            shell_quote(&self.binary.display().to_string()),
            shell_quote(&dir)
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_indices_become_ranges() {
        assert_eq!(array_spec(&[0, 1, 2]), "0-2");
        assert_eq!(array_spec(&[3, 7]), "3,7");
        assert_eq!(array_spec(&[0, 2, 3, 4, 9]), "0,2-4,9");
        assert_eq!(array_spec(&[5]), "5");
    }

    #[test]
    fn default_shards_hold_at_most_sixteen_points_evened_out() {
        assert_eq!(shard_size(8, None), 8);
        assert_eq!(shard_size(16, None), 16);
        assert_eq!(shard_size(20, None), 10);
        assert_eq!(shard_size(33, None), 11);
        assert_eq!(shard_size(33, Some(3)), 3);
    }

    #[test]
    fn flags_win_over_the_table_and_unknown_keys_are_refused() {
        let table: toml::Value = toml::from_str(
            "partition = \"long\"\ntime = 30\nextra = [\"--qos=low\"]\ncpus_per_task = 4",
        )
        .unwrap();
        let flags = SlurmArgs {
            partition: Some("short".into()),
            ..SlurmArgs::default()
        };
        let options = Options::resolve(&flags, Some(&table)).unwrap();
        assert_eq!(options.partition.as_deref(), Some("short"));
        assert_eq!(options.time.as_deref(), Some("30"));
        assert_eq!(options.cpus_per_task, Some(4));
        assert_eq!(options.extra, ["--qos=low"]);
        let wrong: toml::Value = toml::from_str("partiton = \"x\"").unwrap();
        let err = Options::resolve(&flags, Some(&wrong))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("partiton") && err.contains("unknown key"),
            "{err}"
        );
    }

    #[test]
    fn odd_paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/a/b-c_1.2"), "/a/b-c_1.2");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
