//! What a submission runs: the plan of `slurm/plan.json` and the points it cuts into shards.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tailback_experiments::Job;
use tailback_experiments::runner::{self, fingerprint};

use crate::error::{CliError, CliResult};
use crate::sweep::Manifest;

use super::{PLAN, script};

/// What a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `tailback sweep`: the points of `sweep.json`.
    Sweep,
    /// `tailback experiment run`: the jobs the experiment knows before running.
    Experiment,
}

/// `slurm/plan.json`: what was submitted and how it is cut into shards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub kind: Kind,
    /// The experiment's name (experiments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// A `--quick` experiment.
    #[serde(default)]
    pub quick: bool,
    /// Points in all.
    pub points: usize,
    /// Shards (array tasks 0 to `shards - 1`).
    pub shards: usize,
    /// Points per shard (the last may hold fewer).
    pub shard_size: usize,
    /// Fingerprint of every point's id and configuration, in plan order: a task refuses to run
    /// when the points it rebuilds differ.
    pub jobs_fingerprint: String,
    /// The version of tailback that planned it; tasks of another version refuse to run.
    pub tailback_version: String,
    /// The binary the job script runs.
    pub binary: PathBuf,
    /// The command line that submitted it (for the hint to resubmit).
    pub command: Vec<String>,
}

impl Plan {
    /// The plan in `dir`.
    pub fn load(dir: &Path) -> CliResult<Plan> {
        let path = dir.join(PLAN);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            CliError::Input(format!(
                "{} holds no Slurm plan ({}: {e}); it is written by `tailback sweep ... --slurm` \
                 or `tailback experiment run ... --slurm`",
                dir.display(),
                path.display()
            ))
        })?;
        serde_json::from_str(&text)
            .map_err(|e| CliError::Input(format!("{} is not a Slurm plan ({e})", path.display())))
    }

    pub(super) fn save(&self, dir: &Path) -> CliResult {
        crate::commands::write_json(&dir.join(PLAN), self)?;
        Ok(())
    }

    /// The indices (in plan order) of shard `i`'s points.
    pub fn shard(&self, i: usize) -> Range<usize> {
        (i * self.shard_size).min(self.points)..((i + 1) * self.shard_size).min(self.points)
    }

    /// "sweep" or "experiment self-tuned-fig4 (quick)".
    pub fn what(&self) -> String {
        match (self.kind, &self.experiment) {
            (Kind::Experiment, Some(name)) if self.quick => format!("experiment {name} (quick)"),
            (Kind::Experiment, Some(name)) => format!("experiment {name}"),
            _ => "sweep".to_string(),
        }
    }

    /// The command that submits the shards with missing points of `dir` again: the command
    /// that planned them, with `--resume`, and `--out` naming `dir` (which may have been moved
    /// or copied since).
    pub fn resubmit_command(&self, dir: &Path) -> String {
        let mut words: Vec<String> = Vec::new();
        let mut args = self.command.iter().skip(1).filter(|w| *w != "--dry-run");
        while let Some(word) = args.next() {
            if word == "--out" {
                args.next();
            } else if !word.starts_with("--out=") {
                words.push(script::shell_quote(word));
            }
        }
        words.push("--out".to_string());
        words.push(script::shell_quote(&dir.display().to_string()));
        if !words.iter().any(|w| w == "--resume") {
            words.push("--resume".to_string());
        }
        format!("tailback {}", words.join(" "))
    }

    /// Refuses a plan made by another version of tailback.
    pub fn check_version(&self, dir: &Path) -> CliResult {
        let ours = env!("CARGO_PKG_VERSION");
        if self.tailback_version != ours {
            return Err(CliError::Input(format!(
                "{} was planned by tailback {} and this is tailback {ours}: every task must run \
                 the same version (install it where all nodes see it, then resubmit with `{}`)",
                dir.join(PLAN).display(),
                self.tailback_version,
                self.resubmit_command(dir)
            )));
        }
        Ok(())
    }
}

/// Fingerprint of the ids and configurations of `jobs`, in order.
pub fn jobs_fingerprint(jobs: &[Job]) -> CliResult<String> {
    let mut text = String::new();
    for job in jobs {
        text.push_str(&job.id);
        text.push('\t');
        text.push_str(&fingerprint(&job.config)?);
        text.push('\n');
    }
    Ok(runner::fingerprint_text(&text))
}

/// The points of the plan in `dir`, rebuilt as they were planned (a sweep's from its
/// `sweep.json`, an experiment's from its definition), checked against the plan.
pub fn planned_jobs(dir: &Path, plan: &Plan) -> CliResult<Vec<Job>> {
    let jobs = match plan.kind {
        Kind::Sweep => {
            let manifest = Manifest::load(dir)?;
            crate::commands::sweep::jobs(&crate::commands::sweep::planned(&manifest)?)
        }
        Kind::Experiment => {
            let name = plan.experiment.as_deref().ok_or_else(|| {
                CliError::Input(format!("{} names no experiment", dir.join(PLAN).display()))
            })?;
            crate::commands::experiment::find(name)?.plan(plan.quick)?
        }
    };
    if jobs.len() != plan.points || jobs_fingerprint(&jobs)? != plan.jobs_fingerprint {
        return Err(CliError::Input(format!(
            "the points of {} rebuilt now differ from those planned in {} ({} now, {} then): \
             the {} changed since it was submitted; submit it again into another directory",
            plan.what(),
            dir.join(PLAN).display(),
            jobs.len(),
            plan.points,
            match plan.kind {
                Kind::Sweep => "sweep.json",
                Kind::Experiment => "experiment's definition (another tailback build?)",
            }
        )));
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(command: &[&str]) -> Plan {
        Plan {
            kind: Kind::Sweep,
            experiment: None,
            quick: false,
            points: 8,
            shards: 3,
            shard_size: 3,
            jobs_fingerprint: String::new(),
            tailback_version: env!("CARGO_PKG_VERSION").to_string(),
            binary: PathBuf::from("/bin/tailback"),
            command: command.iter().map(|w| w.to_string()).collect(),
        }
    }

    /// A directory moved or copied since it was planned is named as it is now.
    #[test]
    fn resubmission_names_the_directory_as_it_is_now() {
        let copied = Path::new("/new place/s");
        for command in [
            &[
                "tailback",
                "sweep",
                "c.toml",
                "--out",
                "/old/s",
                "--slurm",
                "--dry-run",
            ][..],
            &["tailback", "sweep", "c.toml", "--out=/old/s", "--slurm"],
            &["tailback", "sweep", "c.toml", "--slurm"],
        ] {
            assert_eq!(
                plan(command).resubmit_command(copied),
                "tailback sweep c.toml --slurm --out '/new place/s' --resume",
                "{command:?}"
            );
        }
    }
}
