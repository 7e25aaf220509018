//! What the report shows of one experiment or sweep, read from the files in its directory.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;

/// An experiment's or a sweep's directory, read.
#[derive(Debug)]
pub struct Entry {
    /// Where it was found (under the directory given, as given).
    pub dir: PathBuf,
    /// Its path under the directory given (`/`-separated).
    pub name: String,
    /// The name of its folder in the report.
    pub slug: String,
    pub kind: Kind,
    pub runs: Runs,
    pub figures: Vec<Figure>,
}

#[derive(Debug)]
pub enum Kind {
    Experiment(Experiment),
    Sweep(Sweep),
}

/// From an experiment's `summary.json`.
#[derive(Debug)]
pub struct Experiment {
    pub name: String,
    pub title: String,
    pub source: String,
    pub quick: bool,
    /// The tailback that wrote it, when recorded.
    pub version: Option<String>,
    pub comparisons: Vec<Comparison>,
    /// The results the paper states that are not compared (none in summaries written before
    /// they were listed).
    pub not_compared: Vec<NotCompared>,
}

/// A line of the paper-against-ours table.
#[derive(Debug)]
pub struct Comparison {
    pub what: String,
    pub paper: String,
    pub ours: String,
    pub rule: Option<String>,
    pub status: Status,
}

/// What a comparison line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Agrees,
    Differs,
    /// An ordering the seeds do not separate (counts as differing).
    NotSeparated,
    /// A quick run's: the rule is kept, nothing judged.
    NotJudged,
    /// Shown for information.
    Info,
}

impl Status {
    /// From a comparison's `verdict` (written since ordering claims exist) or, in older
    /// summaries, its `agrees` and whether it has a rule.
    fn of(c: &Value) -> Status {
        match c.get("verdict").and_then(Value::as_str) {
            Some("agrees") => Status::Agrees,
            Some("differs") => Status::Differs,
            Some("not separated") => Status::NotSeparated,
            Some("not judged") => Status::NotJudged,
            Some(_) => Status::Info,
            None => match (c.get("agrees").and_then(Value::as_bool), c.get("rule")) {
                (Some(true), _) => Status::Agrees,
                (Some(false), _) => Status::Differs,
                (None, Some(r)) if !r.is_null() => Status::NotJudged,
                (None, _) => Status::Info,
            },
        }
    }
}

/// A result the paper states that the experiment does not compare, and why.
#[derive(Debug)]
pub struct NotCompared {
    pub what: String,
    pub paper: String,
    pub reason: String,
}

/// From a sweep's `sweep.json`, `curves.csv` and `curves.json`.
#[derive(Debug)]
pub struct Sweep {
    /// The base configuration.
    pub config: toml::Table,
    pub vary: Vec<String>,
    pub seeds: u64,
    /// `curves.csv`, when written.
    pub curves: Option<Csv>,
    /// Each curve's label and its saturation in words.
    pub saturation: Vec<(String, String)>,
    /// Files the configuration names by a relative path that is not found from here.
    pub missing_files: Vec<String>,
}

/// A CSV file's header and rows.
#[derive(Debug)]
pub struct Csv {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// What `results.jsonl` says about the runs.
#[derive(Debug, Default)]
pub struct Runs {
    pub count: usize,
    /// Sum of the runs' wall-clock times.
    pub wall_seconds: f64,
    pub seeds: BTreeSet<u64>,
    /// The distinct configuration fingerprints.
    pub configs: BTreeSet<String>,
    /// The first run's id and resolved configuration.
    pub first: Option<(String, Value)>,
}

/// A PNG figure of the directory and the CSV of its data.
#[derive(Debug)]
pub struct Figure {
    pub png: String,
    pub data: Option<String>,
    /// Width and height in pixels, read from the PNG header.
    pub size: Option<(u32, u32)>,
}

/// What the directory holds: an experiment (a `summary.json` with an `experiment` key) or a
/// sweep (a `sweep.json`), or neither.
pub fn kind_of(dir: &Path) -> Option<&'static str> {
    if dir.join("sweep.json").is_file() {
        return Some("sweep");
    }
    let summary = dir.join("summary.json");
    if summary.is_file() {
        let text = std::fs::read_to_string(&summary).ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        if value.get("experiment").is_some() {
            return Some("experiment");
        }
    }
    None
}

/// Reads the entry in `dir`, named `name`.
pub fn load(dir: &Path, name: String) -> anyhow::Result<Entry> {
    let kind = match kind_of(dir) {
        Some("sweep") => Kind::Sweep(load_sweep(dir)?),
        Some(_) => Kind::Experiment(load_experiment(dir)?),
        None => anyhow::bail!("{} holds no experiment or sweep", dir.display()),
    };
    Ok(Entry {
        dir: dir.to_path_buf(),
        name,
        slug: String::new(),
        kind,
        runs: load_runs(&dir.join("results.jsonl"))?,
        figures: figures(dir)?,
    })
}

/// The JSON file at `path`, its errors naming it.
pub fn read_json(path: &Path) -> anyhow::Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))
}

/// A JSON value as text: a string as it is, anything else as JSON (nothing for null).
fn text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn load_experiment(dir: &Path) -> anyhow::Result<Experiment> {
    let summary = read_json(&dir.join("summary.json"))?;
    let comparisons = summary
        .get("comparisons")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|c| Comparison {
                    what: text(c.get("what")),
                    paper: text(c.get("paper")),
                    ours: text(c.get("ours")),
                    rule: c
                        .get("rule")
                        .map(|r| text(Some(r)))
                        .filter(|r| !r.is_empty()),
                    status: Status::of(c),
                })
                .collect()
        })
        .unwrap_or_default();
    let not_compared = summary
        .get("not_compared")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|n| NotCompared {
                    what: text(n.get("what")),
                    paper: text(n.get("paper")),
                    reason: text(n.get("reason")),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Experiment {
        name: text(summary.get("experiment")),
        title: text(summary.get("title")),
        source: text(summary.get("source")),
        quick: summary
            .get("quick")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        version: summary
            .get("tailback_version")
            .and_then(Value::as_str)
            .map(String::from),
        comparisons,
        not_compared,
    })
}

/// `sweep.json`'s fields.
#[derive(Deserialize)]
struct Manifest {
    config: toml::Table,
    vary: Vec<String>,
    seeds: u64,
}

fn load_sweep(dir: &Path) -> anyhow::Result<Sweep> {
    let path = dir.join("sweep.json");
    let mut manifest: Manifest = serde_json::from_value(read_json(&path)?)
        .with_context(|| format!("reading {}", path.display()))?;
    let missing_files = absolute_files(&mut manifest.config);
    let curves_csv = dir.join("curves.csv");
    let curves = if curves_csv.is_file() {
        Some(read_csv(&curves_csv)?)
    } else {
        None
    };
    let curves_json = dir.join("curves.json");
    let saturation = if curves_json.is_file() {
        read_json(&curves_json)?
            .as_array()
            .map(|curves| curves.iter().map(saturation).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok(Sweep {
        config: manifest.config,
        vary: manifest.vary,
        seeds: manifest.seeds,
        curves,
        saturation,
        missing_files,
    })
}

/// Makes the files a sweep's configuration names (a topology file, a trace), which it holds
/// relative to the directory the sweep ran in, absolute when they are found from here, so that
/// the configuration works from the report's folder; returns those not found.
fn absolute_files(config: &mut toml::Table) -> Vec<String> {
    let mut missing = Vec::new();
    for (section, key) in [("topology", "file"), ("traffic", "trace_file")] {
        let Some(toml::Value::Table(section)) = config.get_mut(section) else {
            continue;
        };
        if let Some(toml::Value::String(file)) = section.get_mut(key)
            && Path::new(file.as_str()).is_relative()
        {
            match Path::new(file.as_str()).canonicalize() {
                Ok(absolute) => *file = absolute.display().to_string(),
                Err(_) => missing.push(file.clone()),
            }
        }
    }
    missing
}

fn read_csv(path: &Path) -> anyhow::Result<Csv> {
    let context = || format!("reading {}", path.display());
    let mut reader = csv::Reader::from_path(path).with_context(context)?;
    let header = reader
        .headers()
        .with_context(context)?
        .iter()
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(|row| row.map(|r| r.iter().map(String::from).collect()))
        .collect::<Result<_, _>>()
        .with_context(context)?;
    Ok(Csv { header, rows })
}

/// A curve of `curves.json`: its label and its saturation in words.
fn saturation(curve: &Value) -> (String, String) {
    let label = text(curve.get("label"));
    let judged = curve.get("saturation").unwrap_or(&Value::Null);
    let number = |key: &str| {
        judged
            .get(key)
            .and_then(Value::as_f64)
            .map_or_else(|| "?".to_string(), super::html::short_number)
    };
    let reason = text(judged.get("reason"));
    let words = match judged.get("judged").and_then(Value::as_str) {
        Some("not_reached") => "not reached: every point is stable".to_string(),
        Some("found") => format!(
            "{} flits/node/cycle, the highest stable point; unstable from offered {} ({reason})",
            number("throughput"),
            number("first_unstable_offered"),
        ),
        Some("below_lowest_load") => format!(
            "below the lowest load swept: unstable from offered {} ({reason})",
            number("lowest_offered"),
        ),
        _ => "not judged".to_string(),
    };
    (label, words)
}

/// The parts of a `results.jsonl` line the report reads.
#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    resolved_config: Option<Seeded>,
    #[serde(default)]
    report: Option<LineReport>,
}

#[derive(Deserialize)]
struct Seeded {
    #[serde(default)]
    seed: Option<u64>,
}

#[derive(Deserialize)]
struct LineReport {
    #[serde(default)]
    summary: Option<LineSummary>,
}

#[derive(Deserialize)]
struct LineSummary {
    #[serde(default)]
    wall_seconds: Option<f64>,
}

/// The first line's id and configuration.
#[derive(Deserialize)]
struct FirstLine {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    resolved_config: Option<Value>,
}

/// Reads `results.jsonl` (none yet: no runs). A line that does not parse, such as one cut off
/// by a crash, is not counted.
fn load_runs(path: &Path) -> anyhow::Result<Runs> {
    let mut runs = Runs::default();
    if !path.exists() {
        return Ok(runs);
    }
    tailback_experiments::runner::jsonl::read_each(path, |_, line, parsed: Line| {
        runs.count += 1;
        if let Some(seconds) = parsed
            .report
            .and_then(|r| r.summary)
            .and_then(|s| s.wall_seconds)
        {
            runs.wall_seconds += seconds;
        }
        if let Some(seed) = parsed.resolved_config.and_then(|c| c.seed) {
            runs.seeds.insert(seed);
        }
        if let Some(config) = parsed.config {
            runs.configs.insert(text(Some(&config)));
        }
        if runs.first.is_none()
            && let Ok(first) = serde_json::from_str::<FirstLine>(line)
            && let Some(config) = first.resolved_config
        {
            runs.first = Some((first.id.unwrap_or_default(), config));
        }
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(runs)
}

/// Every `.png` in `dir`, by name, with its `.data.csv` when there is one.
fn figures(dir: &Path) -> anyhow::Result<Vec<Figure>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".png") && !name.starts_with('.'))
        .collect();
    names.sort();
    Ok(names
        .into_iter()
        .map(|png| {
            let stem = png.trim_end_matches(".png");
            let data = format!("{stem}.data.csv");
            Figure {
                size: png_size(&dir.join(&png)),
                data: dir.join(&data).is_file().then_some(data),
                png,
            }
        })
        .collect())
}

/// A PNG's width and height, from its header.
fn png_size(path: &Path) -> Option<(u32, u32)> {
    let mut header = [0u8; 24];
    File::open(path).ok()?.read_exact(&mut header).ok()?;
    if &header[..8] != b"\x89PNG\r\n\x1a\n" || &header[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(header[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(header[20..24].try_into().ok()?);
    Some((width, height))
}
