//! `tailback sweep`: a configuration over a grid of values, run in parallel, with results
//! written as they finish, resumable, aggregated over seeds and plotted against offered load.

use std::path::PathBuf;

use tailback_experiments::{Job, RunOptions, runner};

use crate::cli::SweepArgs;
use crate::describe;
use crate::error::{CliError, CliResult};
use crate::input::load_table;
use crate::sweep::{self, CsvFile, Manifest, Record, parse_axis};

pub fn run(args: SweepArgs) -> CliResult {
    let base = load_table(Some(&args.config), &args.source)?;
    let axes = args
        .vary
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
    let points = sweep::plan(&base, &axes, args.seeds).map_err(|issues| {
        CliError::Input(tailback_core::config::ConfigError::Invalid(issues).to_string())
    })?;
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let configs = || points.iter().map(|p| &*p.config);
    crate::budget::check_memory(configs(), threads.min(points.len()), args.memory.max_memory)?;
    if let Some(largest) = configs().max_by_key(|c| {
        (c.sim.warmup_cycles + c.sim.measure_cycles)
            .saturating_mul(c.topology.layout.nodes() as u64)
    }) {
        crate::budget::warn_if_long(largest, points.len().div_ceil(threads.max(1)));
    }
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("tailback-out/sweep"));
    let manifest = Manifest {
        config: base,
        vary: args.vary.clone(),
        seeds: args.seeds,
    };
    manifest.record(&out, args.resume)?;
    let jobs: Vec<Job> = points
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
        .collect();
    let options = RunOptions {
        out: out.clone(),
        threads,
        resume: args.resume,
        donors: Vec::new(),
    };
    let mut csv = CsvFile::new(&out, &manifest, &points)?;
    let reports = runner::run_jobs(&options, &jobs, Some(&mut csv))?;
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
    let mut written = sweep::write_curves(&out, &curves)?;
    written.extend(sweep::plot(&out, &title, &describe::shape(first), &curves)?);
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
