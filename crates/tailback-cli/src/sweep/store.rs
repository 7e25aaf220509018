//! Sweep results on disk beside the runner's `results.jsonl`: `results.csv` (the same results,
//! flat, a row per point, rewritten with the kept ones on resume and appended as points
//! finish) and `sweep.json` (what was swept, checked on `--resume`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tailback_core::stats::{RunReport, RunSummary};
use tailback_experiments::runner::Sidecar;

use super::Point;
use crate::error::{CliError, CliResult};

/// The result of one point.
#[derive(Debug, Clone, PartialEq)]
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

/// What is swept; a resumed sweep must sweep the same.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub config: toml::Table,
    pub vary: Vec<String>,
    pub seeds: u32,
}

impl Manifest {
    /// Writes `sweep.json` in `dir`; on resume over earlier results, checks instead that they
    /// come from this sweep (and leaves the file as it is). Without `resume`, earlier results
    /// are left alone (the runner refuses to overwrite them).
    pub fn record(&self, dir: &Path, resume: bool) -> CliResult {
        let path = dir.join("sweep.json");
        if dir.join("results.jsonl").exists() {
            return if resume {
                check_manifest(&path, self)
            } else {
                Ok(())
            };
        }
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        crate::commands::write_json(&path, self)?;
        Ok(())
    }
}

impl Manifest {
    /// The sweep recorded in `dir` (its `sweep.json`).
    pub fn load(dir: &Path) -> CliResult<Manifest> {
        let path = dir.join("sweep.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            CliError::Input(format!("{} is not a sweep manifest ({e})", path.display()))
        })
    }
}

/// `results.csv`: a row per finished point.
pub struct CsvFile<'a> {
    path: PathBuf,
    header: Vec<String>,
    csv: Option<csv::Writer<File>>,
    points: BTreeMap<String, &'a Point>,
}

impl<'a> CsvFile<'a> {
    /// `results.csv` in `dir`, for the points of `manifest` (created when the run starts).
    pub fn new(dir: &Path, manifest: &Manifest, points: &'a [Point]) -> CliResult<Self> {
        Ok(CsvFile {
            path: dir.join("results.csv"),
            header: csv_header(&manifest_keys(manifest)?),
            csv: None,
            points: points.iter().map(|p| (p.id(), p)).collect(),
        })
    }
}

impl Sidecar for CsvFile<'_> {
    fn open(&mut self) -> CliResult {
        let path = &self.path;
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut csv = csv::Writer::from_writer(file);
        csv.write_record(&self.header)
            .map_err(anyhow::Error::from)
            .and_then(|()| Ok(csv.flush()?))
            .with_context(|| format!("writing {}", path.display()))?;
        self.csv = Some(csv);
        Ok(())
    }

    fn write(&mut self, id: &str, report: &RunReport) -> CliResult {
        let (Some(csv), Some(point)) = (self.csv.as_mut(), self.points.get(id)) else {
            return Err(CliError::Failed(anyhow::anyhow!(
                "cannot write the result of `{id}` to {}",
                self.path.display()
            )));
        };
        csv.write_record(csv_row(&Record::new(point, report.summary.clone())))
            .map_err(anyhow::Error::from)
            .and_then(|()| Ok(csv.flush()?))
            .with_context(|| format!("writing {}", self.path.display()))?;
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
const COLUMNS: [&str; 20] = [
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
    "saturation_cause",
    "zero_load_latency",
    "detoured",
    "out_of_order",
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
            s.saturation_cause
                .map_or_else(String::new, |c| c.name().to_string()),
            opt(s.zero_load_latency),
            opt(s.detoured),
            s.out_of_order.to_string(),
            s.cycles.to_string(),
            s.wall_seconds.to_string(),
        ])
        .collect()
}
