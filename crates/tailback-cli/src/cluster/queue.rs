//! Slurm's commands: `sbatch` to submit, `squeue` to see which array tasks are queued or
//! running.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{CliError, CliResult};

/// The program `name` on `PATH`, if there is one.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The error when `sbatch` is not there.
pub fn no_sbatch() -> CliError {
    CliError::Input(
        "sbatch not found: Slurm's commands are not installed here (or not on PATH); submit from \
         a machine of the cluster, or pass --dry-run to write and print the job script without \
         submitting it"
            .to_string(),
    )
}

/// Submits `script` with `sbatch --parsable`; returns the job id.
pub fn sbatch(script: &Path) -> CliResult<String> {
    let output = Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => no_sbatch(),
            _ => CliError::Failed(anyhow::anyhow!("cannot run sbatch: {e}")),
        })?;
    if !output.status.success() {
        return Err(CliError::Input(format!(
            "sbatch refused {} ({}): {}",
            script.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    let id = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .and_then(|l| l.split(';').next())
        .unwrap_or("")
        .to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(CliError::Input(format!(
            "sbatch printed no job id for {} (it printed `{}`)",
            script.display(),
            stdout.trim()
        )));
    }
    Ok(id)
}

/// The array tasks of `jobs` that `squeue` lists (queued, running, or ending), by task index,
/// with their state (`PENDING`, `RUNNING`...), later jobs overriding earlier ones; `None`
/// when `squeue` is not available here.
pub fn listed_tasks(jobs: &[String]) -> Option<BTreeMap<usize, String>> {
    find_program("squeue")?;
    let mut tasks = BTreeMap::new();
    for job in jobs {
        // A job Slurm has forgotten makes squeue fail: it lists nothing, as it should.
        let Ok(output) = Command::new("squeue")
            .args(["-h", "-r", "-j", job, "-o", "%i %T"])
            .output()
        else {
            return None;
        };
        if !output.status.success() {
            continue;
        }
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let mut fields = line.split_whitespace();
            let (Some(id), Some(state)) = (fields.next(), fields.next()) else {
                continue;
            };
            let Some((_, index)) = id.split_once('_') else {
                continue;
            };
            for i in indices(index) {
                tasks.insert(i, state.to_string());
            }
        }
    }
    Some(tasks)
}

/// The indices of an array task's id part: `3`, or `[4-6,9%2]` for tasks not yet split out.
fn indices(text: &str) -> Vec<usize> {
    let text = text.trim_start_matches('[').trim_end_matches(']');
    let text = text.split('%').next().unwrap_or("");
    let mut all = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    all.extend(a..=b);
                }
            }
            None => all.extend(part.parse::<usize>().ok()),
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_task_ids_are_read_singly_and_in_ranges() {
        assert_eq!(indices("3"), [3]);
        assert_eq!(indices("[4-6,9%2]"), [4, 5, 6, 9]);
        assert!(indices("[]").is_empty());
    }
}
