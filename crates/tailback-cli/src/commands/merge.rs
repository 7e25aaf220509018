//! `tailback merge DIR`: the results of a sweep or experiment run on a cluster
//! (`DIR/results.jsonl` and every `DIR/shards/*/results.jsonl`) gathered into its normal
//! outputs, running nothing. A point found in several files is kept once; two different
//! results for one point (same id and configuration) are an error naming both files and
//! lines; missing points are refused with the command that resubmits them.

use tailback_experiments::{RunOptions, runner};

use crate::cli::MergeArgs;
use crate::cluster::{self, Kind, Plan};
use crate::commands::sweep;
use crate::error::CliResult;
use crate::sweep::{CsvFile, Manifest};

pub fn run(args: MergeArgs) -> CliResult {
    let dir = args.dir;
    let plan = Plan::load(&dir)?;
    let jobs = cluster::planned_jobs(&dir, &plan)?;
    let survey = cluster::survey(&dir, &plan, &jobs)?;
    if survey.done < jobs.len() {
        return Err(cluster::missing_error(&dir, &plan, &survey));
    }
    let options = RunOptions {
        out: dir.clone(),
        threads: 1,
        resume: true,
        donors: cluster::shard_results(&dir)?,
        offline: true,
    };
    match plan.kind {
        Kind::Sweep => {
            let manifest = Manifest::load(&dir)?;
            let points = sweep::planned(&manifest)?;
            let mut csv = CsvFile::new(&dir, &manifest, &points)?;
            let reports = runner::run_jobs(&options, &jobs, Some(&mut csv))?;
            sweep::write_outputs(&dir, &manifest, &points, &reports)
        }
        Kind::Experiment => {
            let name = plan.experiment.as_deref().unwrap_or_default();
            crate::commands::experiment::merge(name, plan.quick, options)
        }
    }
}
