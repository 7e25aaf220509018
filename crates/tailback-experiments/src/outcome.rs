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
