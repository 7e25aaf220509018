//! The job-array script: its `#SBATCH` options, from the command line's flags and a `[slurm]`
//! table in the sweep's configuration file (flags win), and the command each task runs.
//!
//! Every value that reaches the script is checked against what sbatch accepts and written so that
//! neither bash nor sbatch's reader of `#SBATCH` lines can take it for more than one argument: no
//! value may hold a control character (a newline would end the `#SBATCH` line and start a shell
//! line), and a value with characters beyond a plain set is quoted as sbatch unquotes it.

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
    /// More `#SBATCH` options (`--qos=x`); once resolved, checked and with their values quoted
    /// for sbatch where needed.
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
        options.check()?;
        options.extra = options
            .extra
            .iter()
            .map(|item| extra_directive(item))
            .collect::<CliResult<_>>()?;
        Ok(options)
    }

    /// Refuses a value sbatch would not accept, naming the option, the value and the form allowed
    /// (`extra` items are checked as they are written, by [`extra_directive`]).
    fn check(&self) -> CliResult {
        check_value(
            "partition",
            &self.partition,
            is_partition_list,
            "partition names of at most 128 letters, digits, '_', '.' and '-', separated by \
             commas",
        )?;
        check_value(
            "time",
            &self.time,
            is_time_limit,
            "minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes, \
             days-hours:minutes:seconds, or UNLIMITED",
        )?;
        check_value(
            "mem",
            &self.mem,
            is_memory_size,
            "a whole number with an optional unit K, M, G or T (e.g. 4000 or 4G)",
        )?;
        check_value(
            "account",
            &self.account,
            is_name,
            "an account name of at most 128 letters, digits, '_', '.' and '-'",
        )?;
        Ok(())
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

/// Refuses `value` of `option` unless `valid`, saying what is `allowed`.
fn check_value(
    option: &str,
    value: &Option<String>,
    valid: fn(&str) -> bool,
    allowed: &str,
) -> CliResult {
    match value {
        Some(value) if !valid(value) => Err(CliError::Input(format!(
            "Slurm option {option} = {}: expected {allowed}",
            shown(value)
        ))),
        _ => Ok(()),
    }
}

/// `value` as an error shows it: quoted, control characters escaped, a long one cut.
fn shown(value: &str) -> String {
    format!("{:?}", tailback_core::config::abbreviated(value))
}

/// The longest partition or account name accepted.
const LONGEST_NAME: usize = 128;

/// A Slurm name: letters, digits, `_`, `.` and `-`, at most [`LONGEST_NAME`] of them.
fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= LONGEST_NAME
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// One partition name or several separated by commas.
fn is_partition_list(text: &str) -> bool {
    text.split(',').all(is_name)
}

/// A time limit as sbatch reads `--time`: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`, or
/// `UNLIMITED`/`INFINITE`.
fn is_time_limit(text: &str) -> bool {
    if text.eq_ignore_ascii_case("unlimited") || text.eq_ignore_ascii_case("infinite") {
        return true;
    }
    let digits = |part: &str| {
        !part.is_empty() && part.len() <= 9 && part.chars().all(|c| c.is_ascii_digit())
    };
    let (days, clock) = match text.split_once('-') {
        Some((days, clock)) => (Some(days), clock),
        None => (None, text),
    };
    // One to three clock fields, with or without days.
    days.is_none_or(digits) && clock.split(':').count() <= 3 && clock.split(':').all(digits)
}

/// A memory size as sbatch reads `--mem`: a whole number with an optional unit.
fn is_memory_size(text: &str) -> bool {
    let number = text
        .strip_suffix(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't'])
        .unwrap_or(text);
    !number.is_empty() && number.len() <= 18 && number.chars().all(|c| c.is_ascii_digit())
}

/// The `#SBATCH` argument of an `extra` item: `--name` or `--name=value` (one dash for a
/// one-letter option), the value quoted for sbatch where needed.
fn extra_directive(item: &str) -> CliResult<String> {
    let bad = |why: &str| {
        CliError::Input(format!(
            "Slurm option extra item {}: {why}; expected an sbatch option such as \"--qos=x\" or \
             \"--exclusive\"",
            shown(item)
        ))
    };
    let (name, value) = match item.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (item, None),
    };
    let option = name
        .strip_prefix("--")
        .filter(|o| o.len() > 1)
        .or_else(|| name.strip_prefix('-').filter(|o| o.len() == 1));
    let Some(option) = option else {
        return Err(bad("not an option name"));
    };
    if !option.starts_with(|c: char| c.is_ascii_alphabetic())
        || !option
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(bad("an option name holds letters, digits and '-'"));
    }
    match value {
        None => Ok(name.to_string()),
        Some(value) if value.chars().any(char::is_control) => Err(bad(
            "a value may not hold a control character such as a newline",
        )),
        Some(value) => Ok(format!("{name}={}", sbatch_quote(value))),
    }
}

/// `text` as one argument of a `#SBATCH` line: as it is when plain, otherwise in double quotes
/// with `"` and `\` escaped, which sbatch's reader of these lines undoes (it also ends an
/// unquoted argument at white space or `#`). `text` holds no control character.
fn sbatch_quote(text: &str) -> String {
    if is_plain(text) {
        text.to_string()
    } else {
        let mut quoted = String::from("\"");
        for c in text.chars() {
            if c == '"' || c == '\\' {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
        quoted
    }
}

/// Refuses a path the job script must carry when it holds a control character (a newline would
/// end a `#SBATCH` or comment line).
pub fn check_script_path(what: &str, path: &Path) -> CliResult {
    let text = path.to_string_lossy();
    if text.chars().any(char::is_control) {
        return Err(CliError::Input(format!(
            "{what} {}: a Slurm job script cannot carry a path with a control character such \
             as a newline; choose another",
            shown(&text)
        )));
    }
    Ok(())
}

/// A job name sbatch shows plainly: `name` with every character but letters, digits, `_`, `.`
/// and `-` replaced by `_`.
pub fn job_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
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
                        toml::Value::String(s) => options.extra.push(s.clone()),
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

/// Whether `text` is written as it is by both the shell and sbatch: not empty, and only
/// letters, digits and `-_./=:,+@%`.
fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
}

/// `text` quoted for a POSIX shell (single quotes keep every character, a newline too).
pub fn shell_quote(text: &str) -> String {
    if is_plain(text) {
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
        directive(format!("--job-name={}", job_name(self.job_name)));
        directive(format!("--array={}", self.array));
        directive(format!(
            "--output={}",
            sbatch_quote(&format!("{dir}/slurm/logs/%A_%a.out"))
        ));
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

    /// The arguments sbatch reads from a `#SBATCH` line, as its own reader does: white space
    /// separates them, `"` and `'` quote, `\\` escapes the next character, an unquoted `#` ends
    /// the line.
    fn sbatch_arguments(line: &str) -> Vec<String> {
        let mut arguments = Vec::new();
        let mut chars = line.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek().is_none() {
                return arguments;
            }
            let (mut argument, mut quote, mut ended) = (String::new(), None, false);
            while let Some(&c) = chars.peek() {
                if quote.is_none() && c.is_whitespace() {
                    break;
                }
                chars.next();
                match (c, quote) {
                    ('\\', _) => argument.extend(chars.next()),
                    (c, Some(q)) if c == q => quote = None,
                    (c, Some(_)) => argument.push(c),
                    ('"' | '\'', None) => quote = Some(c),
                    ('#', None) => {
                        ended = true;
                        break;
                    }
                    (c, None) => argument.push(c),
                }
            }
            if !argument.is_empty() {
                arguments.push(argument);
            }
            if ended {
                return arguments;
            }
        }
    }

    /// The script of `options`; asserts that bash parses it without running a line but the
    /// last and that its `#SBATCH` block is whole: one line per option, each one argument.
    fn render_checked(options: &Options, dir: &Path) -> Vec<String> {
        let text = Script {
            job_name: "tailback-x",
            array: "0-2",
            dir,
            binary: Path::new("/opt/tail back/tailback"),
            options,
            about: "a test",
        }
        .render();
        let status = std::process::Command::new("bash")
            .args(["-n", "-c", &text])
            .status()
            .expect("bash runs");
        assert!(status.success(), "bash -n refused\n{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "#!/bin/bash");
        let block: Vec<&str> = lines[1..]
            .iter()
            .take_while(|l| l.starts_with("#SBATCH "))
            .copied()
            .collect();
        assert_eq!(block.len(), 3 + options.directives().len(), "{text}");
        // Only comments between the block and the one command.
        let rest = &lines[1 + block.len()..];
        assert!(
            rest[..rest.len() - 1].iter().all(|l| l.starts_with('#')),
            "{text}"
        );
        assert!(rest[rest.len() - 1].starts_with("exec "), "{text}");
        block
            .iter()
            .map(|line| {
                let arguments = sbatch_arguments(line.strip_prefix("#SBATCH ").unwrap());
                assert_eq!(arguments.len(), 1, "{line}");
                arguments[0].clone()
            })
            .collect()
    }

    /// Values with a newline, quotes, `$()` and backticks, in every option from flags and from
    /// the table: refused with the option named, or written as one intact `#SBATCH` argument.
    #[test]
    fn hostile_values_are_refused_or_written_as_one_argument() {
        let hostile = [
            "compute\ntouch /tmp/X",
            "compute\rtouch /tmp/X",
            "a\"b",
            "a'b",
            "$(touch /tmp/X)",
            "`touch /tmp/X`",
            "a b",
            "a#b",
            "",
        ];
        for value in hostile {
            for option in ["partition", "time", "mem", "account"] {
                let mut flags = SlurmArgs::default();
                let slot = match option {
                    "partition" => &mut flags.partition,
                    "time" => &mut flags.time,
                    "mem" => &mut flags.mem,
                    _ => &mut flags.account,
                };
                *slot = Some(value.to_string());
                let err = Options::resolve(&flags, None).unwrap_err().to_string();
                assert!(err.contains(option), "{option} = {value:?}: {err}");
                if value.is_empty() {
                    continue; // the table's "x" would be a fine name
                }
                let table = toml::Value::Table(toml::Table::from_iter([(
                    option.to_string(),
                    toml::Value::String(format!("x{value}")),
                )]));
                let err = Options::resolve(&SlurmArgs::default(), Some(&table))
                    .unwrap_err()
                    .to_string();
                assert!(err.contains(option), "[slurm] {option} = x{value:?}: {err}");
            }
            let item = format!("--comment={value}");
            let table: toml::Value = toml::Value::Table(toml::Table::from_iter([(
                "extra".to_string(),
                toml::Value::Array(vec![toml::Value::String(item.clone())]),
            )]));
            match Options::resolve(&SlurmArgs::default(), Some(&table)) {
                Err(err) => {
                    assert!(value.contains(char::is_control), "{item:?} refused: {err}");
                    assert!(err.to_string().contains("extra"), "{err}");
                }
                Ok(options) => {
                    let arguments = render_checked(&options, Path::new("/out/d"));
                    assert_eq!(arguments.last().unwrap(), &item);
                }
            }
            // An option name is never more than letters, digits and dashes.
            let names = [format!("--qos{value}=x"), format!("{value}--qos=x")];
            for item in names.iter().filter(|_| !value.is_empty()) {
                let table: toml::Value = toml::Value::Table(toml::Table::from_iter([(
                    "extra".to_string(),
                    toml::Value::Array(vec![toml::Value::String(item.clone())]),
                )]));
                assert!(
                    Options::resolve(&SlurmArgs::default(), Some(&table)).is_err(),
                    "{item:?}"
                );
            }
        }
    }

    /// Fuzzing of every Slurm option, from flags and from the table, with strings of shell and
    /// sbatch metacharacters, control characters and non-ASCII: each is refused naming its
    /// option, or its script passes `bash -n` with every value one intact `#SBATCH` argument.
    #[test]
    fn fuzzed_options_are_refused_or_written_intact() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};

        let piece = prop::sample::select(vec![
            "a", "Z", "9", "-", "_", ".", ",", ":", "=", "%", "@", "+", "/", " ", "\t", "\n", "\r",
            "\0", "\x1b", "'", "\"", "\\", "$", "$(", ")", "`", ";", "&", "|", "#", "*", "?", "[",
            "]", "{", "}", "<", ">", "!", "~", "é", "\u{202e}", "--", "G", "1-2:3",
        ]);
        let text = prop::collection::vec(piece, 0..12).prop_map(|parts| parts.concat());
        // An extra option's name: mostly a real one, so that its fuzzed value reaches the script.
        let name = prop_oneof![
            3 => prop::sample::select(vec!["comment", "qos", "x"]).prop_map(String::from),
            1 => text.clone(),
        ];
        // Which option: 0-3 the named ones, 4-7 an extra `--name=value` (the most open to
        // values), 8 an extra item as it comes.
        let case = (0usize..9, name, text);
        let written = std::cell::Cell::new(0);
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: 300,
                failure_persistence: None,
                ..Config::default()
            },
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        );
        runner
            .run(&case, |(which, name, value)| {
                let mut flags = SlurmArgs::default();
                let mut table = toml::Table::new();
                let option = ["partition", "time", "mem", "account"]
                    .get(which)
                    .unwrap_or(&"extra");
                match which {
                    0 => flags.partition = Some(value.clone()),
                    1 => flags.time = Some(value.clone()),
                    2 => flags.mem = Some(value.clone()),
                    3 => {
                        table.insert("account".into(), toml::Value::String(value.clone()));
                    }
                    4..=7 => {
                        let item = format!("--{name}={value}");
                        table.insert("extra".into(), toml::Value::Array(vec![item.into()]));
                    }
                    _ => {
                        table.insert(
                            "extra".into(),
                            toml::Value::Array(vec![value.clone().into()]),
                        );
                    }
                }
                let table = toml::Value::Table(table);
                match Options::resolve(&flags, Some(&table)) {
                    Err(err) => prop_assert!(err.to_string().contains(option), "{err}"),
                    Ok(options) => {
                        written.set(written.get() + 1);
                        let arguments = render_checked(&options, Path::new("/out/d"));
                        let expected = options.directives();
                        let expected: Vec<String> = expected
                            .iter()
                            .map(|d| sbatch_arguments(d).concat())
                            .collect();
                        prop_assert_eq!(&arguments[3..], &expected[..]);
                        if which >= 4 {
                            let given = table["extra"][0].as_str().unwrap().to_string();
                            prop_assert_eq!(arguments.last().unwrap(), &given);
                        }
                    }
                }
                Ok(())
            })
            .unwrap();
        // The fuzz reaches the script, not only the refusals.
        assert!(
            written.get() >= 30,
            "{} of 300 cases written",
            written.get()
        );
    }

    #[test]
    fn sbatch_forms_are_accepted_and_written_plainly() {
        let flags = SlurmArgs {
            partition: Some("short,long.2".into()),
            time: Some("1-12:30:00".into()),
            mem: Some("4G".into()),
            account: Some("proj_x-1".into()),
            ..SlurmArgs::default()
        };
        let table: toml::Value =
            toml::from_str("extra = [\"--qos=low\", \"--exclusive\", \"-N\"]").unwrap();
        let options = Options::resolve(&flags, Some(&table)).unwrap();
        let arguments = render_checked(&options, Path::new("/out/my sweep #1"));
        assert_eq!(
            arguments,
            [
                "--job-name=tailback-x",
                "--array=0-2",
                "--output=/out/my sweep #1/slurm/logs/%A_%a.out",
                "--partition=short,long.2",
                "--time=1-12:30:00",
                "--mem=4G",
                "--account=proj_x-1",
                "--qos=low",
                "--exclusive",
                "-N",
            ]
        );
        for time in ["30", "30:00", "2:00:00", "1-0", "1-2:3", "UNLIMITED"] {
            assert!(is_time_limit(time), "{time}");
        }
        for time in ["", "1:2:3:4", "1-", "-1", "a", "1--2", "1-2:3:4:5", "1:"] {
            assert!(!is_time_limit(time), "{time}");
        }
        for mem in ["4000", "4G", "0", "16t"] {
            assert!(is_memory_size(mem), "{mem}");
        }
        for mem in ["", "G", "4GB", "-1", "4 G"] {
            assert!(!is_memory_size(mem), "{mem}");
        }
    }

    #[test]
    fn job_names_and_paths_stay_on_their_lines() {
        assert_eq!(job_name("tailback-a b\n$(x)"), "tailback-a_b___x_");
        assert!(check_script_path("--out", Path::new("/a/b\nc")).is_err());
        assert!(check_script_path("--out", Path::new("/a/b c'$(x)")).is_ok());
        let long = "x".repeat(100_000);
        let err = Options::resolve(
            &SlurmArgs {
                account: Some(long),
                ..SlurmArgs::default()
            },
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.len() < 400 && err.contains("100000 characters"),
            "{err}"
        );
    }

    #[test]
    fn odd_paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/a/b-c_1.2"), "/a/b-c_1.2");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
