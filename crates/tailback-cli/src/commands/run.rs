//! `tailback run`: one simulation, its summary table or JSON, summary.json and plots.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use tailback_core::config::Config;
use tailback_core::stats::{RunReport, RunSummary};
use tailback_core::topology::Layout;

use crate::cli::{Format, RunArgs};
use crate::describe;
use crate::error::{CliError, CliResult};
use crate::input::load_config;
use crate::progress;
use tailback_experiments::runner::lock::OutputLock;
use tailback_experiments::runner::progress::LogLines;

/// Files that show a directory holds earlier results, and whose they are.
const EARLIER_RESULTS: [(&str, &str); 4] = [
    ("summary.json", "an earlier run or experiment"),
    ("results.jsonl", "a sweep or experiment"),
    ("sweep.json", "a sweep"),
    ("slurm/plan.json", "a Slurm submission"),
];

/// Refuses to write into `out` when it holds the results of an earlier run, sweep or experiment.
fn refuse_earlier_results(out: &Path) -> CliResult {
    match EARLIER_RESULTS
        .iter()
        .find(|(file, _)| out.join(file).exists())
    {
        Some((file, whose)) => Err(CliError::Input(format!(
            "{} holds the results of {whose} ({file}); pass --force to write this run's over \
             them or choose another --out",
            out.display()
        ))),
        None => Ok(()),
    }
}

/// What `summary.json` holds: the resolved configuration and the results.
#[derive(Serialize)]
struct SummaryFile<'a> {
    config: &'a Config,
    summary: &'a RunSummary,
    latency_cdf: &'a [(u64, f64)],
    accepted_per_node: &'a [f64],
}

pub fn run(args: RunArgs) -> CliResult {
    let cfg = load_config(args.config.as_deref(), &args.source)?;
    if let Layout::File(file) = &cfg.topology.layout
        && tailback_core::analysis::file_cycle(
            file,
            cfg.routing.algorithm == tailback_core::config::RoutingAlgorithm::Adaptive,
        )
        .is_some()
    {
        eprintln!(
            "warning: the routes of {} can deadlock (their channel dependency graph has a cycle)",
            cfg.topology.file.as_deref().unwrap_or("the topology file")
        );
    }
    crate::budget::warn_if_long(&cfg, 1);
    crate::budget::check_memory([&*cfg], 1, args.memory.max_memory)?;
    let out = args
        .out
        .unwrap_or_else(|| PathBuf::from("tailback-out/run"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    // One writer at a time: a second run into the same directory is refused while this one
    // holds it, so its summary and plots always come from one run.
    let _lock = OutputLock::acquire(&out)?;
    if !args.force {
        refuse_earlier_results(&out)?;
    }
    let total = cfg.sim.warmup_cycles + cfg.sim.measure_cycles;
    let bar = progress::cycles_bar(total);
    let log = LogLines::new();
    let observer = |p: &tailback_core::sim::Progress| {
        bar.set_position(p.cycle);
        if p.cycle >= total {
            bar.set_message("draining");
        }
        log.tick((p.cycle as f64 / total.max(1) as f64).min(1.0), || {
            format!("cycle {} of {total}", p.cycle)
        });
    };
    let (report, traced) = match &args.trace_out {
        None => (tailback_core::run_observed(&cfg, 1000, observer)?, None),
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            let out = tailback_core::trace::create(path)
                .with_context(|| format!("creating trace {}", path.display()))?;
            let (report, written) = tailback_core::run_traced(&cfg, 1000, observer, out)?;
            let written = written.with_context(|| format!("writing trace {}", path.display()))?;
            (report, Some((path, written)))
        }
    };
    bar.finish_and_clear();
    let written = write_outputs(&out, &cfg, &report, args.smooth as usize)?;
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report.summary).map_err(anyhow::Error::from)?
        ),
        Format::Table => {
            println!("{}", describe::network(&cfg));
            println!("{}", describe::traffic(&cfg));
            if let Some(mechanism) = describe::mechanism(&cfg) {
                println!("{mechanism}");
            }
            print!("{}", describe::summary_table(&report.summary));
            let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
            println!("  {:<17}{}", "wrote", names.join(", "));
            if let Some((path, packets)) = traced {
                println!("  {:<17}{packets} packets to {}", "trace", path.display());
            }
        }
    }
    Ok(())
}

/// Writes summary.json, the latency distribution, for 2-D networks the per-node throughput
/// map, and the recorded series (their figure smoothed over `smooth` windows); returns the
/// files written.
fn write_outputs(
    out: &Path,
    cfg: &Config,
    report: &RunReport,
    smooth: usize,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let summary_path = out.join("summary.json");
    super::write_json(
        &summary_path,
        &SummaryFile {
            config: cfg,
            summary: &report.summary,
            latency_cdf: &report.latency_cdf,
            accepted_per_node: &report.accepted_per_node,
        },
    )?;
    let mut written = vec![summary_path];
    let title = describe::title(cfg);
    let summary = &report.summary;
    let undelivered = summary
        .packets_measured
        .saturating_sub(summary.packets_delivered);
    let note = if undelivered > 0 {
        Some(format!(
            "{undelivered} of {} measured packets undelivered: missing from this distribution",
            summary.packets_measured
        ))
    } else if summary.saturated {
        Some("saturated run: latencies grow with the run length".to_string())
    } else {
        None
    };
    written.extend(tailback_plot::latency_cdf(
        &out.join("latency_cdf"),
        &format!("Packet latency: {title}"),
        &report.latency_cdf,
        note.as_deref(),
    )?);
    if let [width, height] = cfg.topology.dims[..] {
        written.extend(tailback_plot::node_heatmap(
            &out.join("accepted_per_node"),
            &format!("Accepted throughput per node: {title}"),
            (width as usize, height as usize),
            &report.accepted_per_node,
            "flits/cycle",
            None,
        )?);
    }
    written.extend(tailback_experiments::files::occupancy::plot(
        out,
        "",
        &title,
        &cfg.topology.dims,
        &report.occupancy,
    )?);
    written.extend(tailback_experiments::files::pending::write(
        out,
        "",
        &title,
        cfg.record.series_window,
        &report.pending,
    )?);
    if let Some(pauses) = &report.pauses {
        written.extend(tailback_experiments::files::pauses::write(
            out,
            "",
            &title,
            cfg.record.series_window,
            pauses,
        )?);
    }
    written.extend(tailback_experiments::files::flows_and_port_vls(
        out,
        "",
        &title,
        cfg.record.series_window,
        report,
        cfg.fabric.units(),
    )?);
    if !report.series.is_empty() {
        written.push(tailback_experiments::files::series::write_csv(
            &out.join("series.csv"),
            &report.series,
        )?);
        written.extend(tailback_experiments::files::series::plot(
            &out.join("series"),
            &format!("Time series: {title}"),
            &[(String::new(), report.series.as_slice())],
            smooth,
        )?);
    }
    Ok(written)
}
