//! What an experiment produced: its comparison with the paper, and the files it wrote.

use std::path::PathBuf;

use serde::Serialize;

/// One line of the comparison with the paper.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The quantity compared.
    pub what: String,
    /// The paper's value or claim.
    pub paper: String,
    /// Ours.
    pub ours: String,
    /// Whether ours agrees with the paper (`None`: nothing to judge).
    pub agrees: Option<bool>,
    /// A stable identifier, for scripts that follow a comparison across runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The paper's value as a number, where it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper_value: Option<f64>,
    /// Our value as a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ours_value: Option<f64>,
}

impl Comparison {
    /// A comparison line.
    pub fn new(
        what: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        agrees: Option<bool>,
    ) -> Self {
        Comparison {
            what: what.into(),
            paper: paper.into(),
            ours: ours.into(),
            agrees,
            id: None,
            paper_value: None,
            ours_value: None,
        }
    }

    /// A comparison of two numbers with a stable `id`: ours agrees when it is within
    /// `tolerance` (relative) of the paper's; both printed with `digits` decimals and `unit`.
    pub fn numbers(
        id: &str,
        what: impl Into<String>,
        paper: f64,
        ours: f64,
        tolerance: f64,
        (digits, unit): (usize, &str),
    ) -> Self {
        Comparison {
            id: Some(id.to_string()),
            paper_value: Some(paper),
            ours_value: Some(ours),
            ..Comparison::new(
                what,
                format!("{paper:.digits$}{unit}"),
                format!("{ours:.digits$}{unit}"),
                Some((ours / paper - 1.0).abs() <= tolerance),
            )
        }
    }

    /// This comparison with a stable `id` and, where known, the numbers behind it.
    pub fn identified(self, id: &str, paper: Option<f64>, ours: Option<f64>) -> Self {
        Comparison {
            id: Some(id.to_string()),
            paper_value: paper,
            ours_value: ours,
            ..self
        }
    }
}

/// What an experiment produced.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    /// The comparison with the paper.
    pub comparisons: Vec<Comparison>,
    /// Plots and tables written.
    pub files: Vec<PathBuf>,
}

/// The comparison as aligned text.
pub fn table(comparisons: &[Comparison]) -> String {
    let header = ["", "paper", "ours", ""];
    let rows: Vec<[String; 4]> = comparisons
        .iter()
        .map(|c| {
            let verdict = match c.agrees {
                Some(true) => "agrees",
                Some(false) => "DIFFERS",
                None => "",
            };
            [
                c.what.clone(),
                c.paper.clone(),
                c.ours.clone(),
                verdict.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..4)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 4]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut text = line(header);
    for row in &rows {
        text.push_str(&line([&row[0], &row[1], &row[2], &row[3]]));
    }
    text
}
