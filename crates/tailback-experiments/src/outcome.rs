//! What an experiment produced: its comparison with the paper, and the files it wrote.

use std::path::PathBuf;

use serde::{Serialize, Serializer};

use crate::claim::{NotCompared, Source};
use crate::spread::Spread;

/// The rule a comparison is judged by, in words: what ours must satisfy to agree with the
/// paper ("within ±10 % of the paper's", "CCFIT < IBCC < none"). Never blank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Rule(String);

impl Rule {
    /// The rule `text`.
    ///
    /// # Panics
    ///
    /// If `text` is blank: a judged comparison says what it was judged by.
    pub fn new(text: impl Into<String>) -> Rule {
        let text = text.into();
        assert!(
            !text.trim().is_empty(),
            "a judged comparison states its rule"
        );
        Rule(text)
    }

    /// The rule in words.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a comparison line says about agreement with the paper.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Shown for information: nothing is judged.
    Info,
    /// Judged by `rule`: ours agrees with the paper or differs.
    Judged {
        /// Whether ours satisfies `rule`.
        agrees: bool,
        /// What ours must satisfy.
        rule: Rule,
    },
    /// An ordering judged by `rule` whose per-seed differences do not separate the two:
    /// counts as differing from the paper's clear ordering.
    NotSeparated {
        /// What ours must satisfy.
        rule: Rule,
    },
    /// Judged by `rule` in a full run; not judged in a quick run, which checks the pipeline
    /// and reproduces nothing.
    NotJudged {
        /// What ours would have to satisfy.
        rule: Rule,
    },
}

impl Verdict {
    /// Ours `agrees` with the paper, or not, by `rule`.
    ///
    /// # Panics
    ///
    /// If `rule` is blank.
    pub fn judged(agrees: bool, rule: impl Into<String>) -> Verdict {
        Verdict::Judged {
            agrees,
            rule: Rule::new(rule),
        }
    }

    /// An ordering `rule` the runs do not separate.
    pub fn not_separated(rule: impl Into<String>) -> Verdict {
        Verdict::NotSeparated {
            rule: Rule::new(rule),
        }
    }

    /// Whether ours agrees (`None`: nothing judged; "not separated" counts as differing).
    pub fn agrees(&self) -> Option<bool> {
        match self {
            Verdict::Judged { agrees, .. } => Some(*agrees),
            Verdict::NotSeparated { .. } => Some(false),
            Verdict::Info | Verdict::NotJudged { .. } => None,
        }
    }

    /// The rule judged by, or that would be in a full run.
    pub fn rule(&self) -> Option<&Rule> {
        match self {
            Verdict::Judged { rule, .. }
            | Verdict::NotSeparated { rule }
            | Verdict::NotJudged { rule } => Some(rule),
            Verdict::Info => None,
        }
    }

    /// The same rule, not judged (a quick run).
    pub fn unjudged(self) -> Verdict {
        match self {
            Verdict::Judged { rule, .. } | Verdict::NotSeparated { rule } => {
                Verdict::NotJudged { rule }
            }
            other => other,
        }
    }

    /// The verdict in the printed table.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Info => "",
            Verdict::Judged { agrees: true, .. } => "agrees",
            Verdict::Judged { agrees: false, .. } => "DIFFERS",
            Verdict::NotSeparated { .. } => "not separated",
            Verdict::NotJudged { .. } => "not judged",
        }
    }

    /// The verdict as `summary.json` writes it.
    pub fn key(&self) -> &'static str {
        match self {
            Verdict::Info => "information",
            Verdict::Judged { agrees: true, .. } => "agrees",
            Verdict::Judged { agrees: false, .. } => "differs",
            Verdict::NotSeparated { .. } => "not separated",
            Verdict::NotJudged { .. } => "not judged",
        }
    }
}

/// One line of the comparison with the paper.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The quantity compared.
    pub what: String,
    /// The paper's value or claim.
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// Whether ours agrees with the paper, and by which rule.
    pub verdict: Verdict,
    /// A stable identifier, for scripts that follow a comparison across runs.
    pub id: Option<String>,
    /// The paper's value as a number, where it gives one.
    pub paper_value: Option<f64>,
    /// Our value as a number.
    pub ours_value: Option<f64>,
    /// Where our value is a mean of several (over seeds, or over cases): the half-width of its
    /// 95 % confidence interval (none for a single value).
    pub ours_ci95: Option<f64>,
    /// Where our value is a mean over seeds: how many.
    pub seeds: Option<usize>,
    /// Where the paper states its value.
    pub source: Option<Source>,
}

/// The JSON form of a comparison (`agrees` kept as before: null when nothing is judged).
#[derive(Serialize)]
struct ComparisonJson<'a> {
    what: &'a str,
    paper: &'a str,
    ours: &'a str,
    agrees: Option<bool>,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a Rule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paper_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ours_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ours_ci95: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seeds: Option<usize>,
}

impl Serialize for Comparison {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ComparisonJson {
            what: &self.what,
            paper: &self.paper,
            ours: &self.ours,
            agrees: self.verdict.agrees(),
            verdict: self.verdict.key(),
            rule: self.verdict.rule(),
            source: self.source,
            id: self.id.as_deref(),
            paper_value: self.paper_value,
            ours_value: self.ours_value,
            ours_ci95: self.ours_ci95,
            seeds: self.seeds,
        }
        .serialize(serializer)
    }
}

impl Comparison {
    /// A comparison line.
    pub(crate) fn new(
        what: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        verdict: Verdict,
    ) -> Self {
        Comparison {
            what: what.into(),
            paper: paper.into(),
            ours: ours.into(),
            verdict,
            id: None,
            paper_value: None,
            ours_value: None,
            ours_ci95: None,
            seeds: None,
            source: None,
        }
    }

    /// A line shown for information, with nothing to judge.
    pub(crate) fn info(
        what: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
    ) -> Self {
        Comparison::new(what, paper, ours, Verdict::Info)
    }

    /// This comparison with a stable `id` and, where known, the numbers behind it.
    pub(crate) fn identified(self, id: &str, paper: Option<f64>, ours: Option<f64>) -> Self {
        Comparison {
            id: Some(id.to_string()),
            paper_value: paper,
            ours_value: ours,
            ..self
        }
    }

    /// This comparison with the place the paper states its value.
    pub(crate) fn sourced(self, source: Source) -> Self {
        Comparison {
            source: Some(source),
            ..self
        }
    }

    /// This comparison with our value a mean of several values spread as `spread` (the text
    /// of `ours` already says so); `seeds` when they are one per seed, counted in `seeds`.
    pub(crate) fn over(self, spread: &Spread, seeds: bool) -> Self {
        Comparison {
            ours_ci95: spread.ci95,
            seeds: seeds.then_some(spread.n),
            ..self
        }
    }

    /// The same comparison, not judged (a quick run): its rule kept, its verdict dropped.
    pub fn unjudged(self) -> Self {
        Comparison {
            verdict: self.verdict.unjudged(),
            ..self
        }
    }
}

/// What an experiment produced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    /// The comparison with the paper.
    pub comparisons: Vec<Comparison>,
    /// The results the paper states that are not compared, and why.
    pub not_compared: Vec<NotCompared>,
    /// Plots and tables written.
    pub files: Vec<PathBuf>,
}

impl Outcome {
    /// The same outcome with no comparison judged (a quick run).
    pub fn unjudged(self) -> Outcome {
        Outcome {
            comparisons: self
                .comparisons
                .into_iter()
                .map(Comparison::unjudged)
                .collect(),
            ..self
        }
    }
}

/// The comparison as aligned text: the quantity, the paper's value, ours, the verdict and the
/// rule it was judged by.
pub fn table(comparisons: &[Comparison]) -> String {
    const COLUMNS: usize = 5;
    let header = ["", "paper", "ours", "verdict", "rule"];
    let rows: Vec<[String; COLUMNS]> = comparisons
        .iter()
        .map(|c| {
            [
                c.what.clone(),
                c.paper.clone(),
                c.ours.clone(),
                c.verdict.label().to_string(),
                c.verdict
                    .rule()
                    .map_or(String::new(), |r| r.as_str().to_string()),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..COLUMNS)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; COLUMNS]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut text = line(header);
    for row in &rows {
        text.push_str(&line([&row[0], &row[1], &row[2], &row[3], &row[4]]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claim::{
        Claim, Claims, Findings, Ours, Paper, Rule as ClaimRule, Source as At, Tolerance,
    };

    const AT: At = At::new(Paper::GranV, "Fig. 9");

    fn near(id: &str, value: f64, tolerance: f64) -> Claim {
        Claim::new(
            id,
            id,
            AT,
            ClaimRule::Near {
                value,
                tolerance: Tolerance::Relative(tolerance),
            },
        )
    }

    /// A number, an ordering and a line for information, judged.
    fn sample() -> Vec<Comparison> {
        let mut claims = Claims::default();
        claims
            .claim(near("victim", 10.0, 0.05).shown(1, " Gbit/s"))
            .claim(Claim::new(
                "order",
                "CCFIT > 1Q",
                AT,
                ClaimRule::Order {
                    higher: "CCFIT",
                    lower: "1Q",
                },
            ));
        let mut found = Findings::default();
        found
            .set("victim", Ours::Value(10.4))
            .set(
                "order",
                Ours::Paired(vec![(0.9, 0.5), (0.92, 0.5), (0.88, 0.52)]),
            )
            .info("speed", "-", "2.1 M node-cycles/s");
        claims.judge(found, false).unwrap().comparisons
    }

    #[test]
    fn numbers_state_their_tolerance_as_the_rule() {
        let c = &sample()[0];
        assert_eq!(c.verdict.agrees(), Some(true));
        assert_eq!(
            c.verdict.rule().unwrap().as_str(),
            "within ±5 % of the paper's"
        );
        let mut claims = Claims::default();
        claims.claim(near("b", 1.0, 0.025));
        let mut found = Findings::default();
        found.set("b", Ours::Value(1.2));
        let off = &claims.judge(found, false).unwrap().comparisons[0];
        assert_eq!(off.verdict.label(), "DIFFERS");
        assert_eq!(
            off.verdict.rule().unwrap().as_str(),
            "within ±2.5 % of the paper's"
        );
    }

    #[test]
    fn the_table_shows_the_verdict_and_the_rule() {
        let text = table(&sample());
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert!(
            header.contains("verdict") && header.ends_with("rule"),
            "{header}"
        );
        let victim = lines.next().unwrap();
        assert!(
            victim.contains("agrees") && victim.ends_with("within ±5 % of the paper's"),
            "{victim}"
        );
        let order = lines.next().unwrap();
        assert!(
            order.contains("agrees") && order.contains("CCFIT above 1Q"),
            "{order}"
        );
        // Information: no verdict, no rule.
        assert!(lines.next().unwrap().ends_with("2.1 M node-cycles/s"));
        // Columns line up: the verdict starts at the same place on every judged line.
        let at: Vec<usize> = text
            .lines()
            .skip(1)
            .take(2)
            .map(|l| l[..l.find("agrees").unwrap()].chars().count())
            .collect();
        assert_eq!(at[0], at[1]);
    }

    #[test]
    fn an_unjudged_outcome_keeps_its_rules_and_values_but_no_verdict() {
        let outcome = Outcome {
            comparisons: sample(),
            ..Outcome::default()
        }
        .unjudged();
        let text = table(&outcome.comparisons);
        assert_eq!(text.matches("not judged").count(), 2, "{text}");
        assert!(
            !text.contains("agrees") && !text.contains("DIFFERS"),
            "{text}"
        );
        assert!(text.contains("10.4 Gbit/s") && text.contains("within ±5 %"));
        let json = serde_json::to_value(&outcome.comparisons).unwrap();
        assert_eq!(json[0]["agrees"], serde_json::Value::Null);
        assert_eq!(json[0]["verdict"], "not judged");
        assert_eq!(json[0]["rule"], "within ±5 % of the paper's");
        assert_eq!(json[0]["ours_value"], 10.4);
        assert_eq!(json[0]["source"]["paper"], "gran-v");
        assert!(json[2].get("rule").is_none());
        assert_eq!(json[2]["verdict"], "information");
    }

    #[test]
    fn json_keeps_agrees_and_adds_the_rule_the_spread_and_the_source() {
        let values = [0.40, 0.42, 0.44];
        let mut claims = Claims::default();
        claims.claim(near("s", 0.4, 0.1).shown(3, ""));
        let mut found = Findings::default();
        found.set("s", Ours::Seeds(values.to_vec()));
        let c = &claims.judge(found, false).unwrap().comparisons[0];
        assert!(
            c.ours.starts_with("0.420 ± 0.050 (95% CI, 3 seeds)"),
            "{}",
            c.ours
        );
        let json = serde_json::to_value(c).unwrap();
        assert_eq!(json["agrees"], true);
        assert_eq!(json["verdict"], "agrees");
        assert_eq!(json["rule"], "within ±10 % of the paper's");
        assert_eq!(json["seeds"], 3);
        assert_eq!(json["source"]["at"], "Fig. 9");
        let spread = Spread::of(&values);
        assert!((json["ours_ci95"].as_f64().unwrap() - spread.ci95.unwrap()).abs() < 1e-12);
        assert!((json["ours_value"].as_f64().unwrap() - 0.42).abs() < 1e-12);
    }

    #[test]
    fn an_ordering_the_seeds_do_not_separate_counts_as_differing() {
        let verdict = Verdict::not_separated("A above B");
        assert_eq!(verdict.agrees(), Some(false));
        assert_eq!(
            (verdict.label(), verdict.key()),
            ("not separated", "not separated")
        );
        assert_eq!(verdict.unjudged().label(), "not judged");
    }

    #[test]
    #[should_panic(expected = "states its rule")]
    fn a_judged_comparison_cannot_have_a_blank_rule() {
        let _ = Verdict::judged(true, "  ");
    }
}
