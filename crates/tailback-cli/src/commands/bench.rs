//! `tailback bench`: simulation speed on the reference configurations.

use serde::Serialize;
use tailback_core::reference::references;

use crate::cli::{BenchArgs, Format};
use crate::error::{CliError, CliResult};

/// Speed of one reference configuration (its fastest repetition).
#[derive(Serialize)]
struct Speed {
    name: &'static str,
    description: &'static str,
    nodes: usize,
    cycles: u64,
    wall_seconds: f64,
    cycles_per_second: f64,
    node_cycles_per_second: f64,
    flit_hops_per_second: f64,
    accepted: f64,
}

pub fn run(args: BenchArgs) -> CliResult {
    let selected: Vec<_> = references()
        .into_iter()
        .filter(|r| args.only.as_deref().is_none_or(|name| name == r.name))
        .collect();
    if selected.is_empty() {
        let names: Vec<&str> = references().iter().map(|r| r.name).collect();
        return Err(CliError::Input(format!(
            "--only {}: no such reference configuration; available: {}",
            args.only.unwrap_or_default(),
            names.join(", ")
        )));
    }
    let mut speeds = Vec::new();
    for reference in selected {
        let nodes = reference.config.node_count();
        let fastest = (0..args.repeat)
            .map(|_| tailback_core::run(&reference.config).map(|r| r.summary))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .min_by(|a, b| a.wall_seconds.total_cmp(&b.wall_seconds))
            .expect("at least one repetition");
        let speed = Speed {
            name: reference.name,
            description: reference.description,
            nodes,
            cycles: fastest.cycles,
            wall_seconds: fastest.wall_seconds,
            cycles_per_second: fastest.cycles as f64 / fastest.wall_seconds,
            node_cycles_per_second: fastest.node_cycles_per_second,
            flit_hops_per_second: fastest.flit_hops as f64 / fastest.wall_seconds,
            accepted: fastest.accepted,
        };
        if args.format == Format::Table {
            println!(
                "{:<8} {:>9.0} cycles/s  {:>7.2} M node-cycles/s  {:>7.2} M flit-hops/s  ({} cycles, best of {}; {})",
                speed.name,
                speed.cycles_per_second,
                speed.node_cycles_per_second / 1e6,
                speed.flit_hops_per_second / 1e6,
                speed.cycles,
                args.repeat,
                speed.description
            );
        }
        speeds.push(speed);
    }
    if args.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&speeds).map_err(anyhow::Error::from)?
        );
    }
    Ok(())
}
