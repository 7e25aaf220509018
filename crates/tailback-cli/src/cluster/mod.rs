//! Sweeps and experiments on a Slurm cluster (`docs/cluster.md`): the points are planned as a
//! local run plans them, cut in plan order into shards, and submitted as one job array whose
//! task `I` runs shard `I` (`tailback shard DIR --task I`) into `DIR/shards/task-I` with the
//! normal resumable runner. `tailback status DIR` follows the shards, `tailback merge DIR`
//! gathers their results into the normal outputs.
//!
//! The files under the output directory `DIR`: `slurm/plan.json` ([`Plan`]),
//! `slurm/job.sh` (the last script submitted), `slurm/submissions.jsonl` (a line per
//! submission), `slurm/logs/` (each task's output) and `shards/task-I/results.jsonl`.

mod plan;
mod queue;
pub mod script;
mod shards;
mod submit;

pub use plan::*;
pub use queue::listed_tasks;
pub use script::array_spec;
pub use shards::*;
pub use submit::*;

/// The files of a submission, under its output directory.
const PLAN: &str = "slurm/plan.json";
const SCRIPT: &str = "slurm/job.sh";
const SUBMISSIONS: &str = "slurm/submissions.jsonl";
const LOGS: &str = "slurm/logs";
