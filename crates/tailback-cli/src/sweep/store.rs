//! Sweep results on disk: `results.jsonl` (one JSON object per finished point, the source of
//! truth), `results.csv` (the same, flat), and `sweep.json` (what was swept, checked on
//! `--resume`). Every result is flushed as soon as its point finishes, so an interrupted sweep
//! keeps all finished points.

use std::fs::File;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tailback_core::stats::RunSummary;

use super::Point;
use crate::error::{CliError, CliResult};
use crate::jsonl::{self, JsonLines};

/// The result of one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`Point::id`].
    pub id: String,
    /// Swept key and value, in axis order.
    pub point: Vec<(String, toml::Value)>,
    pub seed: u64,
    pub summary: RunSummary,
}

impl Record {
    pub fn new(point: &Point, summary: RunSummary) -> Record {
        Record {
            id: point.id(),
            point: point.values.clone(),
            seed: point.seed,
            summary,
        }
    }
}

/// Open result files of a sweep.
pub struct Store {
    jsonl: JsonLines,
    csv: csv::Writer<File>,
}

/// What is swept; a resumed sweep must sweep the same.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub config: toml::Table,
    pub vary: Vec<String>,
    pub seeds: u32,
}

impl Store {
    /// Opens the result files in `dir` and returns the results already there. Without `resume`,
    /// existing results are an error (so nothing is overwritten by accident); with it, the
    /// sweep must be the one that wrote them.
    pub fn open(dir: &Path, manifest: &Manifest, resume: bool) -> CliResult<(Store, Vec<Record>)> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let jsonl_path = dir.join("results.jsonl");
        let manifest_path = dir.join("sweep.json");
        let previous = if jsonl_path.exists() {
            if !resume {
                return Err(CliError::Input(format!(
                    "{} already holds sweep results; pass --resume to continue that sweep or \
                     --out to write elsewhere",
                    dir.display()
                )));
            }
            check_manifest(&manifest_path, manifest)?;
            jsonl::read(&jsonl_path)?
        } else {
            Vec::new()
        };
        crate::commands::write_json(&manifest_path, manifest)?;
        // Rewrite both files from the valid records, dropping a line cut short by an interrupt.
        let jsonl = JsonLines::create(&jsonl_path, &previous)?;
        let csv_path = dir.join("results.csv");
        let file =
            File::create(&csv_path).with_context(|| format!("creating {}", csv_path.display()))?;
        let mut store = Store {
            jsonl,
            csv: csv::Writer::from_writer(file),
        };
        store
            .csv
            .write_record(csv_header(&manifest_keys(manifest)?))
            .map_err(anyhow::Error::from)?;
        for record in &previous {
            store.write_csv(record)?;
        }
        store.csv.flush()?;
        Ok((store, previous))
    }

    /// Appends one result to both files and flushes them.
    pub fn append(&mut self, record: &Record) -> CliResult {
        self.jsonl.append(record)?;
        self.write_csv(record)?;
        self.csv.flush()?;
        Ok(())
    }

    fn write_csv(&mut self, record: &Record) -> CliResult {
        self.csv
            .write_record(csv_row(record))
            .map_err(anyhow::Error::from)?;
        Ok(())
    }
}

/// The swept keys named by the manifest's `--vary` arguments.
fn manifest_keys(manifest: &Manifest) -> CliResult<Vec<String>> {
    manifest
        .vary
        .iter()
        .map(|v| super::parse_axis(v).map(|a| a.key).map_err(CliError::Input))
        .collect()
}

fn check_manifest(path: &Path, manifest: &Manifest) -> CliResult {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::Input(format!(
            "cannot resume: {} is unreadable ({e})",
            path.display()
        ))
    })?;
    let found: Manifest = serde_json::from_str(&text).map_err(|e| {
        CliError::Input(format!(
            "cannot resume: {} is not a sweep manifest ({e})",
            path.display()
        ))
    })?;
    if &found != manifest {
        return Err(CliError::Input(format!(
            "cannot resume: the results in {} come from a different sweep (configuration, --vary \
             or --seeds differ); use another --out",
            path.parent().unwrap_or(Path::new(".")).display()
        )));
    }
    Ok(())
}

/// Summary columns of `results.csv`, after the swept keys and the seed.
const COLUMNS: [&str; 16] = [
    "offered",
    "accepted",
    "accepted_min",
    "accepted_max",
    "latency_mean",
    "latency_p50",
    "latency_p99",
    "latency_max",
    "network_latency_mean",
    "source_queue_latency_mean",
    "hops_mean",
    "packets_measured",
    "packets_delivered",
    "saturated",
    "cycles",
    "wall_seconds",
];

fn csv_header(keys: &[String]) -> Vec<String> {
    keys.iter()
        .cloned()
        .chain(std::iter::once("seed".to_string()))
        .chain(COLUMNS.iter().map(|c| c.to_string()))
        .collect()
}

fn csv_row(record: &Record) -> Vec<String> {
    let s = &record.summary;
    let opt = |v: Option<f64>| v.map_or_else(String::new, |x| x.to_string());
    let opt_int = |v: Option<u64>| v.map_or_else(String::new, |x| x.to_string());
    let values = record.point.iter().map(|(_, v)| super::plain(v));
    values
        .chain([
            record.seed.to_string(),
            s.offered.to_string(),
            s.accepted.to_string(),
            s.accepted_per_node.min.to_string(),
            s.accepted_per_node.max.to_string(),
            opt(s.latency.mean),
            opt_int(s.latency.p50),
            opt_int(s.latency.p99),
            opt_int(s.latency.max),
            opt(s.network_latency.mean),
            opt(s.source_queue_latency.mean),
            opt(s.hops.mean),
            s.packets_measured.to_string(),
            s.packets_delivered.to_string(),
            s.saturated.to_string(),
            s.cycles.to_string(),
            s.wall_seconds.to_string(),
        ])
        .collect()
}

/// Appends `record` to the store shared by the sweep's workers.
pub fn append_shared(store: &std::sync::Mutex<Store>, record: &Record) -> CliResult {
    store
        .lock()
        .map_err(|_| CliError::Failed(anyhow::anyhow!("a sweep worker panicked")))?
        .append(record)
}
