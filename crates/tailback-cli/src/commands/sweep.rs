//! `tailback sweep`: a configuration over a grid of values, run in parallel, with results
//! written as they finish, resumable, aggregated over seeds and plotted against offered load.
//! With `--slurm` the points are submitted to a cluster instead (`crate::cluster`), and
//! `tailback merge` writes the same outputs from the cluster's results ([`write_outputs`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tailback_core::stats::RunReport;
use tailback_experiments::{Job, RunOptions, runner};

use crate::cli::SweepArgs;
use crate::cluster;
use crate::describe;
use crate::error::{CliError, CliResult};
use crate::input::load_table_and_slurm;
use crate::sweep::{self, Axis, CsvFile, Manifest, Point, Record, parse_axis};

pub fn run(args: SweepArgs) -> CliResult {
    let (base, slurm_table) = load_table_and_slurm(Some(&args.config), &args.source)?;
    let (axes, _) = axes(&args.vary)?;
    let points = plan(&base, &axes, args.seeds, args.max_points)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("tailback-out/sweep"));
    let manifest = Manifest {
        config: base,
        vary: args.vary.clone(),
        seeds: args.seeds,
    };
    if args.slurm.slurm {
        crate::cluster::refuse_jobs(args.jobs)?;
        return cluster::submit_sweep(
            &args.slurm,
            slurm_table.as_ref(),
            &out,
            &manifest,
            &jobs(&points),
            args.resume,
        );
    }
    let threads = crate::workers::threads(args.jobs, Some(points.len()));
    let configs = || points.iter().map(|p| &*p.config);
    crate::budget::check_memory(configs(), threads, args.memory.max_memory)?;
    if let Some(largest) = configs().max_by_key(|c| {
        (c.sim.warmup_cycles + c.sim.measure_cycles)
            .saturating_mul(c.topology.layout.nodes() as u64)
    }) {
        crate::budget::warn_if_long(largest, points.len().div_ceil(threads.max(1)));
    }
    manifest.record(&out, args.resume)?;
    let options = RunOptions {
        out: out.clone(),
        threads,
        resume: args.resume,
        // A sweep begun on a cluster and resumed here takes the shards' results.
        donors: if args.resume {
            cluster::shard_results(&out)?
        } else {
            Vec::new()
        },
        offline: false,
    };
    let mut csv = CsvFile::new(&out, &manifest, &points)?;
    let reports = runner::run_jobs(&options, &jobs(&points), Some(&mut csv))?;
    write_outputs(&out, &manifest, &points, &reports)
}

/// The axes of `--vary` arguments and their keys, refusing a key given twice.
pub fn axes(vary: &[String]) -> CliResult<(Vec<Axis>, Vec<String>)> {
    let axes = vary
        .iter()
        .map(|v| parse_axis(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::Input)?;
    let keys: Vec<String> = axes.iter().map(|a| a.key.clone()).collect();
    if let Some(key) = keys
        .iter()
        .enumerate()
        .find_map(|(i, k)| keys[..i].contains(k).then_some(k))
    {
        return Err(CliError::Input(format!("--vary {key} is given twice")));
    }
    Ok((axes, keys))
}

/// Every point of the sweep, validated ([`sweep::plan`]); refused, before any point is made,
/// when there would be more than `max_points`.
pub fn plan(
    base: &toml::Table,
    axes: &[Axis],
    seeds: u32,
    max_points: u64,
) -> CliResult<Vec<Point>> {
    let count = crate::workers::point_count(axes.iter().map(|a| a.values.len()), seeds);
    if count.is_none_or(|count| count > max_points) {
        let factors: Vec<String> = axes
            .iter()
            .map(|a| format!("{} values of {}", a.values.len(), a.key))
            .chain((seeds > 1).then(|| format!("{seeds} seeds")))
            .collect();
        return Err(CliError::Input(format!(
            "the sweep would run {} points ({}), more than the {max_points} allowed; sweep \
             fewer values, or pass --max-points N to allow more",
            count.map_or_else(|| "more than 2^64".to_string(), |c| c.to_string()),
            factors.join(" x ")
        )));
    }
    sweep::plan(base, axes, seeds).map_err(|issues| {
        CliError::Input(tailback_core::config::ConfigError::Invalid(issues).to_string())
    })
}

/// The points of the sweep recorded in `manifest` (accepted, with their count, when it was
/// recorded).
pub fn planned(manifest: &Manifest) -> CliResult<Vec<Point>> {
    let (axes, _) = axes(&manifest.vary)?;
    plan(&manifest.config, &axes, manifest.seeds, u64::MAX)
}

/// The runner's job of each point, in plan order.
pub fn jobs(points: &[Point]) -> Vec<Job> {
    points
        .iter()
        .map(|p| Job {
            id: p.id(),
            config: p.config.clone(),
            summary_only: true,
            values: p
                .values
                .iter()
                .cloned()
                .chain([("seed".to_string(), toml::Value::Integer(p.seed as i64))])
                .collect(),
        })
        .collect()
}

/// The outputs of a sweep whose results are in (`results.jsonl` and `results.csv` written by
/// the runner): prints the table of points, writes the curves and their plots, and prints each
/// curve's saturation line and the files written.
pub fn write_outputs(
    out: &Path,
    manifest: &Manifest,
    points: &[Point],
    reports: &BTreeMap<String, RunReport>,
) -> CliResult {
    let (_, keys) = axes(&manifest.vary)?;
    // Every result in plan order.
    let records: Vec<Record> = points
        .iter()
        .filter_map(|p| {
            reports
                .get(&p.id())
                .map(|r| Record::new(p, r.summary.clone()))
        })
        .collect();
    print!("{}", sweep::table(&keys, &records));

    let curves = sweep::series(&records);
    let first = &points[0].config;
    let title = if keys.iter().any(|k| k == "traffic.pattern") {
        describe::shape(first)
    } else {
        format!(
            "{}, {} traffic",
            describe::shape(first),
            describe::pattern(first)
        )
    };
    let mut written = sweep::write_curves(out, &curves)?;
    written.extend(sweep::plot(out, &title, &describe::shape(first), &curves)?);
    for curve in &curves {
        println!("{}", sweep::saturation_line(curve));
    }
    println!(
        "wrote {}, {}, {}",
        out.join("results.csv").display(),
        out.join("results.jsonl").display(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
