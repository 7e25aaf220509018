//! Job grids as data: each paper's folder under `experiments/` holds its base configurations
//! and a `grids.toml` describing every experiment's jobs. The files are embedded in the binary,
//! so experiments run from any directory.
//!
//! `grids.toml`:
//!
//! - `base`: configuration files of the folder merged in order (an experiment may replace the
//!   list); `set`: `key=value` assignments of every job; `summary_only`: keep only summaries;
//!   `params`: named values of every experiment; `quick.set` and `quick.params`: what `--quick`
//!   adds or changes for every experiment.
//! - `[sets]`: named assignment lists; `"@name"` in any assignment list stands for one.
//! - `[[overlays.NAME]]`: the variants of a dimension, each a `name`, its `set`, and any other
//!   keys as variables.
//! - `[axes.NAME]`: the values of a dimension (`values`, a list or `{ step, count }` for the
//!   multiples `step * 1..=count`), and `quick`, the values `--quick` uses instead.
//! - `[experiments.NAME]`: `base` and `summary_only` (replacing the file's), `set`, `params`
//!   (named values for templates and for the analysis, over the file's), `quick.set` and
//!   `quick.params` (what `--quick` changes), and `[[experiments.NAME.jobs]]`
//!   blocks: `dimensions` (overlay or axis names, first outermost), `only` (the variants of an
//!   overlay to keep), `set` and the job `id`. Each block's jobs are every combination of its
//!   dimensions.
//!
//! Assignments and ids are templates: `{name}` is replaced by the variant name or axis value of
//! the dimension `name`, or else by a variable of a chosen variant, or else by a parameter;
//! `{name:.N}` prints a number with `N` decimals. A job that sets one key twice is an error, so
//! the order of assignments never matters.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use tailback_core::config::{merge_tables, parse_assignment, parse_table, set_path};
use tailback_core::spec::Spec;
use toml::{Table, Value};

use crate::runner::Job;
use crate::{Error, Result};

/// One paper's embedded folder under `experiments/`.
pub struct Folder {
    /// Its path in the repository, for messages.
    pub path: &'static str,
    /// Its files: (name, text); `grids.toml` among them.
    pub files: &'static [(&'static str, &'static str)],
}

impl Folder {
    /// The text of one of the folder's files.
    fn text(&self, name: &str) -> Result<&'static str> {
        self.files
            .iter()
            .find(|(file, _)| *file == name)
            .map(|(_, text)| *text)
            .ok_or_else(|| Error::Input(format!("{}/{name} is not embedded", self.path)))
    }

    /// The configuration tree of one of the folder's files.
    fn table(&self, name: &str) -> Result<Table> {
        Ok(parse_table(
            self.text(name)?,
            &format!("{}/{name}", self.path),
        )?)
    }

    /// The grid of `experiment`, with what `--quick` changes applied when `quick`.
    pub fn grid(&self, experiment: &str, quick: bool) -> Result<Grid> {
        let file: GridFile = toml::from_str(self.text("grids.toml")?)
            .map_err(|e| Error::Input(format!("{}/grids.toml: {e}", self.path)))?;
        let spec = file.experiments.get(experiment).ok_or_else(|| {
            Error::Input(format!("{}/grids.toml has no `{experiment}`", self.path))
        })?;
        let mut base = Table::new();
        for name in spec.base.as_ref().unwrap_or(&file.base) {
            merge_tables(&mut base, self.table(name)?);
        }
        let mut set = file.set.clone();
        set.extend(spec.set.iter().cloned());
        let mut params = file.params.clone();
        params.extend(spec.params.clone());
        if quick {
            set.extend(file.quick.set.iter().cloned());
            set.extend(spec.quick.set.iter().cloned());
            params.extend(file.quick.params.clone());
            params.extend(spec.quick.params.clone());
        }
        Ok(Grid {
            base,
            set: expand(&set, &file.sets)?,
            params,
            summary_only: spec.summary_only.unwrap_or(file.summary_only),
            blocks: spec
                .jobs
                .iter()
                .map(|block| {
                    Ok(Block {
                        set: expand(&block.set, &file.sets)?,
                        ..block.clone()
                    })
                })
                .collect::<Result<_>>()?,
            dimensions: dimensions(&file, quick)?,
        })
    }
}

/// `grids.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    #[serde(default)]
    base: Vec<String>,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    summary_only: bool,
    #[serde(default)]
    params: Table,
    #[serde(default)]
    quick: Quick,
    #[serde(default)]
    sets: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    overlays: BTreeMap<String, Vec<Table>>,
    #[serde(default)]
    axes: BTreeMap<String, AxisSpec>,
    #[serde(default)]
    experiments: BTreeMap<String, ExperimentSpec>,
}

/// What `--quick` changes.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Quick {
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    params: Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisSpec {
    values: Values,
    quick: Option<Values>,
}

/// An axis's values: listed, or the multiples `step * 1..=count`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Values {
    List(Vec<Value>),
    Multiples { step: f64, count: u32 },
}

impl Values {
    fn list(&self) -> Vec<Value> {
        match self {
            Values::List(values) => values.clone(),
            Values::Multiples { step, count } => (1..=*count)
                .map(|i| Value::Float(f64::from(i) * step))
                .collect(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentSpec {
    base: Option<Vec<String>>,
    #[serde(default)]
    set: Vec<String>,
    summary_only: Option<bool>,
    #[serde(default)]
    params: Table,
    #[serde(default)]
    quick: Quick,
    #[serde(default)]
    jobs: Vec<Block>,
}

/// A block of jobs: every combination of its dimensions.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Block {
    dimensions: Vec<String>,
    #[serde(default)]
    only: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    set: Vec<String>,
    id: String,
}

/// One variant of a dimension: an overlay's entry or an axis value.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The overlay entry's name, or the axis value as text.
    pub name: String,
    /// The value `{dimension}` stands for.
    value: Value,
    /// Assignments (after `@` expansion, before filling).
    set: Vec<String>,
    /// Other keys of an overlay entry.
    vars: Table,
}

impl Entry {
    /// The variable `name` of this entry (an axis value is its dimension's variable).
    pub fn var<T: DeserializeOwned>(&self, name: &str) -> Result<T> {
        let value = self.vars.get(name).ok_or_else(|| {
            Error::Input(format!("variant `{}` has no variable `{name}`", self.name))
        })?;
        convert(value, name)
    }

    /// The value `{dimension}` stands for, converted.
    pub fn value<T: DeserializeOwned>(&self) -> Result<T> {
        convert(&self.value, &self.name)
    }
}

/// An experiment's grid, ready to expand into jobs.
pub struct Grid {
    base: Table,
    set: Vec<String>,
    params: Table,
    summary_only: bool,
    blocks: Vec<Block>,
    dimensions: BTreeMap<String, Vec<Entry>>,
}

impl Grid {
    /// Every job of every block, in order (first dimension outermost).
    pub fn jobs(&self) -> Result<Vec<Job>> {
        self.points()?
            .into_iter()
            .map(|(id, assignments)| self.job_with(id, &assignments))
            .collect()
    }

    /// Every job of every block as its id and its assignments, filled, the grid's own first.
    pub fn points(&self) -> Result<Vec<(String, Vec<String>)>> {
        let mut points = Vec::new();
        for block in &self.blocks {
            let mut combos: Vec<Vec<(&str, &Entry)>> = vec![Vec::new()];
            for dimension in &block.dimensions {
                let keep = block.only.get(dimension);
                let entries: Vec<&Entry> = self
                    .entries(dimension)?
                    .iter()
                    .filter(|e| keep.is_none_or(|names| names.contains(&e.name)))
                    .collect();
                combos = combos
                    .into_iter()
                    .flat_map(|combo| {
                        entries.iter().map(move |&entry| {
                            let mut next = combo.clone();
                            next.push((dimension.as_str(), entry));
                            next
                        })
                    })
                    .collect();
            }
            for combo in combos {
                let mut vars = self.params.clone();
                for (dimension, entry) in &combo {
                    vars.extend(entry.vars.clone());
                    vars.insert(dimension.to_string(), entry.value.clone());
                }
                let assignments = self
                    .set
                    .iter()
                    .chain(&block.set)
                    .chain(combo.iter().flat_map(|(_, e)| &e.set))
                    .map(|s| fill(s, &vars))
                    .collect::<Result<Vec<_>>>()?;
                points.push((fill(&block.id, &vars)?, assignments));
            }
        }
        Ok(points)
    }

    /// The configuration of the base files with the grid's own assignments (those of every job,
    /// filled from the parameters) and `extra` applied: for jobs built in code.
    pub fn configure(&self, extra: &[String]) -> Result<Spec> {
        let mut assignments = self
            .set
            .iter()
            .map(|s| fill(s, &self.params))
            .collect::<Result<Vec<_>>>()?;
        assignments.extend(extra.iter().cloned());
        self.build(&assignments)
    }

    /// A job built in code: [`Grid::configure`] with `extra`.
    pub fn job(&self, id: String, extra: &[String]) -> Result<Job> {
        Ok(Job {
            id,
            config: self.configure(extra)?,
            summary_only: self.summary_only,
            values: values(extra)?,
        })
    }

    /// A job of the base files with exactly `assignments` applied.
    pub fn job_with(&self, id: String, assignments: &[String]) -> Result<Job> {
        Ok(Job {
            id,
            config: self.build(assignments)?,
            summary_only: self.summary_only,
            values: values(assignments)?,
        })
    }

    /// The configuration of the base files with exactly `assignments` applied.
    pub fn build(&self, assignments: &[String]) -> Result<Spec> {
        let mut table = self.base.clone();
        let mut seen: Vec<String> = Vec::new();
        for assignment in assignments {
            let (key, value) = parse_assignment(assignment).map_err(Error::Input)?;
            if seen.contains(&key) {
                return Err(Error::Input(format!("a job sets `{key}` twice")));
            }
            set_path(&mut table, &key, value)?;
            seen.push(key);
        }
        Ok(Spec::from_table(&table)?)
    }

    /// This grid with parameter `name` set to `value` (for an experiment that reruns another's
    /// jobs with other seeds).
    pub fn with_param(mut self, name: &str, value: toml::Value) -> Grid {
        self.params.insert(name.to_string(), value);
        self
    }

    /// The entries of `table` that parameter `name` lists by their `id`, in its order; an
    /// unknown id is an error naming the known ones.
    pub fn pick<'a, T>(
        &self,
        name: &str,
        table: &'a [T],
        id: impl Fn(&T) -> &str,
    ) -> Result<Vec<&'a T>> {
        self.param::<Vec<String>>(name)?
            .iter()
            .map(|wanted| {
                table.iter().find(|t| id(t) == wanted).ok_or_else(|| {
                    let known: Vec<&str> = table.iter().map(&id).collect();
                    Error::Input(format!(
                        "{name}: unknown `{wanted}` (known: {})",
                        known.join(", ")
                    ))
                })
            })
            .collect()
    }

    /// The parameter `name`, converted.
    pub fn param<T: DeserializeOwned>(&self, name: &str) -> Result<T> {
        let value = self
            .params
            .get(name)
            .ok_or_else(|| Error::Input(format!("the grid has no parameter `{name}`")))?;
        convert(value, name)
    }

    /// The variants of a dimension, in order.
    pub fn entries(&self, dimension: &str) -> Result<&[Entry]> {
        self.dimensions
            .get(dimension)
            .map(Vec::as_slice)
            .ok_or_else(|| Error::Input(format!("the grid has no dimension `{dimension}`")))
    }

    /// The values of an axis, converted.
    pub fn axis<T: DeserializeOwned>(&self, name: &str) -> Result<Vec<T>> {
        self.entries(name)?.iter().map(Entry::value).collect()
    }
}

/// Every overlay and axis of the file as entries.
fn dimensions(file: &GridFile, quick: bool) -> Result<BTreeMap<String, Vec<Entry>>> {
    let mut all = BTreeMap::new();
    for (name, entries) in &file.overlays {
        let entries = entries
            .iter()
            .map(|table| {
                let mut vars = table.clone();
                let name = match vars.remove("name") {
                    Some(Value::String(name)) => name,
                    _ => return Err(Error::Input(format!("an entry of `{name}` has no name"))),
                };
                let set: Vec<String> = match vars.remove("set") {
                    Some(value) => convert(&value, "set")?,
                    None => Vec::new(),
                };
                Ok(Entry {
                    value: Value::String(name.clone()),
                    name,
                    set: expand(&set, &file.sets)?,
                    vars,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        all.insert(name.clone(), entries);
    }
    for (name, axis) in &file.axes {
        let values = match (&axis.quick, quick) {
            (Some(values), true) => values.list(),
            _ => axis.values.list(),
        };
        let entries = values
            .into_iter()
            .map(|value| Entry {
                name: text(&value, None),
                value,
                set: Vec::new(),
                vars: Table::new(),
            })
            .collect();
        all.insert(name.clone(), entries);
    }
    Ok(all)
}

/// `sets` with every `@name` replaced by the named list.
fn expand(sets: &[String], named: &BTreeMap<String, Vec<String>>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for set in sets {
        match set.strip_prefix('@') {
            Some(name) => out.extend(expand(
                named
                    .get(name)
                    .ok_or_else(|| Error::Input(format!("no assignment list `{name}`")))?,
                named,
            )?),
            None => out.push(set.clone()),
        }
    }
    Ok(out)
}

/// `template` with `{name}` and `{name:.N}` replaced from `vars`; braces around anything that
/// is not a name (such as an inline table) are kept.
fn fill(template: &str, vars: &Table) -> Result<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}');
        let field = close.map(|c| &after[..c]);
        let (name, decimals) = match field.map(|f| f.split_once(":.").unwrap_or((f, ""))) {
            Some((name, decimals))
                if !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                (name, decimals)
            }
            _ => {
                out.push('{');
                rest = after;
                continue;
            }
        };
        let value = vars
            .get(name)
            .ok_or_else(|| Error::Input(format!("`{template}`: nothing named `{name}`")))?;
        let decimals =
            if decimals.is_empty() {
                None
            } else {
                Some(decimals.parse::<usize>().map_err(|_| {
                    Error::Input(format!("`{template}`: bad precision `{decimals}`"))
                })?)
            };
        out.push_str(&text(value, decimals));
        rest = &after[close.map_or(0, |c| c + 1)..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A value as an assignment or id shows it: strings bare, numbers as Rust prints them.
fn text(value: &Value, decimals: Option<usize>) -> String {
    match (value, decimals) {
        (Value::String(s), _) => s.clone(),
        (Value::Float(x), Some(d)) => format!("{x:.d$}"),
        (Value::Integer(i), Some(d)) => format!("{:.d$}", *i as f64),
        (Value::Float(x), None) => x.to_string(),
        (Value::Integer(i), None) => i.to_string(),
        (other, _) => other.to_string(),
    }
}

fn convert<T: DeserializeOwned>(value: &Value, name: &str) -> Result<T> {
    value
        .clone()
        .try_into()
        .map_err(|e| Error::Input(format!("`{name}`: {e}")))
}

/// `key=value` assignments as values by key.
fn values(assignments: &[String]) -> Result<Vec<(String, toml::Value)>> {
    assignments
        .iter()
        .map(|a| parse_assignment(a).map_err(Error::Input))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_names_and_precision_and_keep_other_braces() {
        let vars: Table = toml::from_str("load = 0.15000000000000002\nnet = \"torus\"").unwrap();
        assert_eq!(
            fill("traffic.rate={load}", &vars).unwrap(),
            "traffic.rate=0.15000000000000002"
        );
        assert_eq!(fill("{net}@{load:.2}", &vars).unwrap(), "torus@0.15");
        assert_eq!(fill("x=[{ a = 1 }]", &vars).unwrap(), "x=[{ a = 1 }]");
        assert!(fill("{missing}", &vars).is_err());
    }

    #[test]
    fn multiples_are_computed_as_step_times_index() {
        let values = Values::Multiples {
            step: 0.05,
            count: 3,
        }
        .list();
        assert_eq!(values[2], Value::Float(3.0 * 0.05));
    }
}
