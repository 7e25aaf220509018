//! The per-paper tally of verdicts: how many claims each paper's experiments judged, and how
//! many agree, differ, are not separated or are not compared. Read from the experiments'
//! `summary.json` files, or from a small snapshot of them (committed beside the validation
//! document, so that a test can check its table without running anything).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::claim::Paper;
use crate::{Error, Result};

/// One claim's verdict in a full run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The claim's id.
    pub id: String,
    /// The paper's key (`gran-iii`).
    pub paper: String,
    /// "agrees", "differs", "not separated" or "information".
    pub verdict: String,
}

/// What one experiment's full run judged and did not compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExperimentTally {
    /// The experiment.
    pub experiment: String,
    /// The tailback that wrote its summary.
    pub version: String,
    /// Its claims' verdicts.
    pub claims: Vec<Verdict>,
    /// For each result not compared, the paper's key.
    pub not_compared: Vec<String>,
}

/// The snapshot: every experiment's tally, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Tallies by experiment name.
    pub experiments: BTreeMap<String, ExperimentTally>,
}

impl Snapshot {
    /// Adds the experiment whose `summary.json` is `summary`. A quick run, or a summary
    /// written before claims named their paper, is refused (it judges nothing per paper).
    pub fn add(&mut self, summary: &Value) -> Result<()> {
        let text = |key: &str| summary.get(key).and_then(Value::as_str);
        let name = text("experiment")
            .ok_or_else(|| Error::Input("a summary.json without `experiment`".into()))?;
        if summary.get("quick").and_then(Value::as_bool) != Some(false) {
            return Err(Error::Input(format!(
                "{name}: a quick run (a pipeline check) judges nothing; run it in full"
            )));
        }
        let Some(not_compared) = summary.get("not_compared").and_then(Value::as_array) else {
            return Err(Error::Input(format!(
                "{name}: written before claims were declared (no `not_compared`); run it again \
                 with --resume to judge its stored results by the current rules"
            )));
        };
        let paper_of = |v: &Value| -> Option<String> {
            v.get("source")?.get("paper")?.as_str().map(String::from)
        };
        let mut claims = Vec::new();
        for c in summary
            .get("comparisons")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(id), Some(paper)) = (c.get("id").and_then(Value::as_str), paper_of(c)) else {
                continue;
            };
            let verdict = c.get("verdict").and_then(Value::as_str).unwrap_or_default();
            claims.push(Verdict {
                id: id.to_string(),
                paper,
                verdict: verdict.to_string(),
            });
        }
        let not_compared = not_compared
            .iter()
            .map(|n| paper_of(n).unwrap_or_default())
            .collect();
        self.experiments.insert(
            name.to_string(),
            ExperimentTally {
                experiment: name.to_string(),
                version: text("tailback_version").unwrap_or_default().to_string(),
                claims,
                not_compared,
            },
        );
        Ok(())
    }

    /// The validation document's summary table: a row per paper, then the experiments that
    /// have no full run in the snapshot. `experiments` are the names of every experiment.
    pub fn table(&self, experiments: &[&str]) -> String {
        let mut rows: BTreeMap<Paper, Row> = BTreeMap::new();
        for tally in self.experiments.values() {
            for c in &tally.claims {
                let Some(row) = Row::of(&mut rows, &c.paper, &tally.experiment) else {
                    continue;
                };
                match c.verdict.as_str() {
                    "agrees" => row.agree += 1,
                    "differs" => row.differ += 1,
                    "not separated" => row.apart += 1,
                    _ => row.info += 1,
                }
                if c.verdict != "information" {
                    row.judged += 1;
                }
            }
            for paper in &tally.not_compared {
                if let Some(row) = Row::of(&mut rows, paper, &tally.experiment) {
                    row.not_compared += 1;
                }
            }
        }
        let mut text = String::from(
            "| paper | judged | agree | differ | not separated | information | not compared | experiments |\n\
             |---|---:|---:|---:|---:|---:|---:|---|\n",
        );
        for (paper, r) in &rows {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                paper.name(),
                r.judged,
                r.agree,
                r.differ,
                r.apart,
                r.info,
                r.not_compared,
                r.experiments.join(", ")
            );
        }
        let missing: Vec<&str> = experiments
            .iter()
            .copied()
            .filter(|name| !self.experiments.contains_key(*name))
            .collect();
        if !missing.is_empty() {
            let _ = write!(
                text,
                "\nNot yet run in full with declared claims ({}): {}.\n",
                missing.len(),
                missing.join(", ")
            );
        }
        text
    }
}

/// One paper's counts in the table.
#[derive(Default)]
struct Row {
    judged: usize,
    agree: usize,
    differ: usize,
    apart: usize,
    info: usize,
    not_compared: usize,
    experiments: Vec<String>,
}

impl Row {
    /// The row of the paper keyed `key` (none for an unknown key), noting `experiment` in it.
    fn of<'a>(
        rows: &'a mut BTreeMap<Paper, Row>,
        key: &str,
        experiment: &str,
    ) -> Option<&'a mut Row> {
        let row = rows.entry(Paper::from_key(key)?).or_default();
        if !row.experiments.iter().any(|e| e == experiment) {
            row.experiments.push(experiment.to_string());
        }
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(name: &str, quick: bool) -> Value {
        json!({
            "experiment": name,
            "quick": quick,
            "tailback_version": "0.1.0",
            "comparisons": [
                {"id": "a", "verdict": "agrees", "source": {"paper": "gran-iii", "at": "T"}},
                {"id": "b", "verdict": "differs", "source": {"paper": "gran-iii", "at": "T"}},
                {"id": "c", "verdict": "not separated", "source": {"paper": "gran-i", "at": "T"}},
                {"id": "d", "verdict": "information", "source": {"paper": "gran-iii", "at": "T"}},
                {"what": "speed", "verdict": "information"}
            ],
            "not_compared": [{"what": "x", "paper": "1", "reason": "r", "source": {"paper": "gran-iii", "at": "T"}}]
        })
    }

    #[test]
    fn the_table_counts_each_papers_verdicts_and_names_what_is_missing() {
        let mut snapshot = Snapshot::default();
        snapshot.add(&summary("ib-testbed-s2", false)).unwrap();
        let table = snapshot.table(&["ib-testbed-s2", "ib-silent"]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[2].starts_with("| Gran's thesis, Paper I:"), "{table}");
        assert!(
            lines[2].ends_with("| 1 | 0 | 0 | 1 | 0 | 0 | ib-testbed-s2 |"),
            "{table}"
        );
        assert!(
            lines[3].ends_with("| 2 | 1 | 1 | 0 | 1 | 1 | ib-testbed-s2 |"),
            "{table}"
        );
        assert!(table.ends_with("(1): ib-silent.\n"), "{table}");
        // Round trip through the snapshot's JSON.
        let again: Snapshot =
            serde_json::from_str(&serde_json::to_string(&snapshot).unwrap()).unwrap();
        assert_eq!(again, snapshot);
    }

    #[test]
    fn quick_and_old_summaries_are_refused() {
        let mut snapshot = Snapshot::default();
        let err = snapshot.add(&summary("x", true)).unwrap_err();
        assert!(err.to_string().contains("quick"), "{err}");
        let mut old = summary("x", false);
        old.as_object_mut().unwrap().remove("not_compared");
        let err = snapshot.add(&old).unwrap_err();
        assert!(err.to_string().contains("--resume"), "{err}");
    }
}
