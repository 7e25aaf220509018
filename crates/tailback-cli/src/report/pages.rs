//! The report's pages: the index of every entry, and a page per entry.

use std::fmt::Write;
use std::path::Path;

use super::entry::{Comparison, Entry, Experiment, Kind, Status, Sweep};
use super::html::{self, Cell, escape};

/// The index page, listing `entries` found under `dirs`.
pub fn index(entries: &[Entry], dirs: &[&Path]) -> String {
    let experiments = entries
        .iter()
        .filter(|e| matches!(e.kind, Kind::Experiment(_)))
        .count();
    let sweeps = entries.len() - experiments;
    let mut body = String::new();
    body.push_str("<h1>Tailback results</h1>\n");
    let roots: Vec<String> = dirs
        .iter()
        .map(|d| format!("<code>{}</code>", escape(&d.display().to_string())))
        .collect();
    let _ = writeln!(
        body,
        "<p class=\"lead\">{} and {} found under {}. Report built by tailback {}. \
         Click a column heading to sort.</p>",
        plural(experiments, "experiment", "experiments"),
        plural(sweeps, "sweep", "sweeps"),
        roots.join(", "),
        env!("CARGO_PKG_VERSION"),
    );
    let rows: Vec<Vec<Cell>> = entries.iter().map(index_row).collect();
    body.push_str(&html::table(
        "entries",
        &[
            "name",
            "kind",
            "title / source",
            "runs",
            "agreement",
            "mode",
        ],
        &rows,
    ));
    html::page("Tailback results", None, &body)
}

fn index_row(entry: &Entry) -> Vec<Cell> {
    let link = Cell {
        html: format!(
            "<a href=\"entries/{}/index.html\">{}</a>",
            escape(&entry.slug),
            escape(&entry.name)
        ),
        sort: Some(entry.name.clone()),
        ..Cell::default()
    };
    let runs = Cell::count(entry.runs.count);
    match &entry.kind {
        Kind::Experiment(e) => {
            let (agreement, class) = agreement(&e.comparisons);
            vec![
                link,
                Cell::text("experiment"),
                Cell::html(format!(
                    "{}<br><span class=\"muted\">{}</span>",
                    escape(&e.title),
                    escape(&e.source)
                )),
                runs,
                Cell {
                    html: escape(&agreement),
                    class: Some(class),
                    ..Cell::default()
                },
                mode(e.quick),
            ]
        }
        Kind::Sweep(s) => vec![
            link,
            Cell::text("sweep"),
            Cell::html(format!(
                "{} <span class=\"muted\">({})</span>",
                swept(s),
                plural(s.seeds as usize, "seed", "seeds")
            )),
            runs,
            Cell::text(""),
            Cell::text(""),
        ],
    }
}

fn mode(quick: bool) -> Cell {
    let (word, class) = if quick {
        ("quick", "quick")
    } else {
        ("full", "full")
    };
    Cell::html(format!("<span class=\"badge {class}\">{word}</span>"))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "7 agree, 1 differs, 2 not separated" (and how many are not judged), with the class of
/// the whole.
fn agreement(comparisons: &[Comparison]) -> (String, &'static str) {
    let count = |status: Status| comparisons.iter().filter(|c| c.status == status).count();
    let (agree, differ, apart) = (
        count(Status::Agrees),
        count(Status::Differs),
        count(Status::NotSeparated),
    );
    let unjudged = count(Status::NotJudged);
    let mut parts = Vec::new();
    if agree > 0 {
        parts.push(format!(
            "{agree} agree{}",
            if agree == 1 { "s" } else { "" }
        ));
    }
    if differ > 0 {
        parts.push(format!(
            "{differ} differ{}",
            if differ == 1 { "s" } else { "" }
        ));
    }
    if apart > 0 {
        parts.push(format!("{apart} not separated"));
    }
    if unjudged > 0 {
        parts.push(format!("{unjudged} not judged"));
    }
    if parts.is_empty() {
        parts.push("no comparisons".to_string());
    }
    let class = if differ + apart > 0 {
        "differs"
    } else if agree > 0 {
        "agrees"
    } else {
        "not-judged"
    };
    (parts.join(", "), class)
}

/// The verdict's label and class: the label says it, the colour repeats it. A comparison
/// shown for information has no verdict.
fn verdict(c: &Comparison) -> (&'static str, &'static str) {
    match c.status {
        Status::Agrees => ("\u{2713} agrees", "verdict agrees"),
        Status::Differs => ("\u{2717} differs", "verdict differs"),
        Status::NotSeparated => ("\u{2717} not separated", "verdict differs"),
        Status::NotJudged => ("not judged", "verdict not-judged"),
        Status::Info => ("", "verdict not-judged"),
    }
}

/// The page of `entry`, in `entries/<slug>/` of the report `out` (as given, for the commands
/// shown).
pub fn entry(entry: &Entry, out: &Path) -> String {
    let mut body = String::new();
    let _ = writeln!(body, "<h1>{}</h1>", escape(&entry.name));
    match &entry.kind {
        Kind::Experiment(e) => experiment_sections(&mut body, e),
        Kind::Sweep(s) => sweep_sections(&mut body, s),
    }
    figures(&mut body, entry);
    if let Kind::Sweep(s) = &entry.kind {
        curves(&mut body, s);
    }
    runs(&mut body, entry);
    match &entry.kind {
        Kind::Experiment(e) => experiment_config(&mut body, entry, e),
        Kind::Sweep(s) => sweep_config(&mut body, entry, s, out),
    }
    html::page(
        &format!("{} \u{2014} tailback report", entry.name),
        Some("../../index.html"),
        &body,
    )
}

fn experiment_sections(body: &mut String, e: &Experiment) {
    let _ = writeln!(
        body,
        "<p class=\"lead\">Experiment <code>{}</code>: {}<br><span class=\"muted\">{}</span> {}</p>",
        escape(&e.name),
        escape(&e.title),
        escape(&e.source),
        mode(e.quick).html,
    );
    if e.quick {
        body.push_str(
            "<p class=\"muted\">A quick run: short runs that check the pipeline, not a \
             reproduction; nothing is judged.</p>\n",
        );
    }
    let (summary, class) = agreement(&e.comparisons);
    let _ = writeln!(
        body,
        "<h2>Paper against ours</h2>\n<p><span class=\"verdict {class}\">{}</span></p>",
        escape(&summary)
    );
    let rows: Vec<Vec<Cell>> = e
        .comparisons
        .iter()
        .map(|c| {
            let (label, class) = verdict(c);
            vec![
                Cell::text(&c.what),
                Cell::text(&c.paper),
                Cell::text(&c.ours),
                Cell {
                    html: escape(label),
                    class: Some(class),
                    sort: Some(
                        label
                            .trim_start_matches(['\u{2713}', '\u{2717}', ' '])
                            .into(),
                    ),
                    ..Cell::default()
                },
                Cell::text(c.rule.as_deref().unwrap_or("")),
            ]
        })
        .collect();
    body.push_str(&html::table(
        "comparisons",
        &["what", "paper", "ours", "verdict", "rule"],
        &rows,
    ));
    if !e.not_compared.is_empty() {
        body.push_str(
            "<h2>Not compared</h2>\n<p class=\"muted\">Results the paper states that this \
             experiment does not compare, and why.</p>\n",
        );
        let rows: Vec<Vec<Cell>> = e
            .not_compared
            .iter()
            .map(|n| {
                vec![
                    Cell::text(&n.what),
                    Cell::text(&n.paper),
                    Cell::text(&n.reason),
                ]
            })
            .collect();
        body.push_str(&html::table(
            "not-compared",
            &["what", "paper", "why not"],
            &rows,
        ));
    }
}

/// A sweep's `--vary` arguments, as code.
fn swept(s: &Sweep) -> String {
    s.vary
        .iter()
        .map(|v| format!("<code>{}</code>", escape(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sweep_sections(body: &mut String, s: &Sweep) {
    let _ = writeln!(
        body,
        "<p class=\"lead\">Sweep of {} with {}.</p>",
        swept(s),
        plural(s.seeds as usize, "seed", "seeds"),
    );
    body.push_str("<h2>Saturation</h2>\n");
    if s.saturation.is_empty() {
        body.push_str("<p class=\"muted\">No curves yet (curves.json not written).</p>\n");
    } else {
        body.push_str("<ul class=\"saturation\" id=\"saturation\">\n");
        for (label, words) in &s.saturation {
            let label = if label.is_empty() {
                "saturation throughput".to_string()
            } else {
                format!("saturation throughput ({label})")
            };
            let _ = writeln!(
                body,
                "<li><b>{}</b>: {}</li>",
                escape(&label),
                escape(words)
            );
        }
        body.push_str("</ul>\n");
    }
}

fn curves(body: &mut String, s: &Sweep) {
    body.push_str("<h2>Curves</h2>\n");
    match &s.curves {
        None => body.push_str("<p class=\"muted\">No curves.csv yet.</p>\n"),
        Some(csv) => {
            let _ = writeln!(
                body,
                "<p class=\"muted\">A row per point: means over the seeds with the half-width of \
                 their 95% confidence interval (<a href=\"curves.csv\">curves.csv</a>, full \
                 precision).</p>"
            );
            let headings: Vec<&str> = csv.header.iter().map(String::as_str).collect();
            let rows: Vec<Vec<Cell>> = csv
                .rows
                .iter()
                .map(|row| row.iter().map(|v| Cell::value(v)).collect())
                .collect();
            body.push_str(&html::table("curves", &headings, &rows));
        }
    }
}

fn figures(body: &mut String, entry: &Entry) {
    body.push_str("<h2>Figures</h2>\n");
    if entry.figures.is_empty() {
        body.push_str("<p class=\"muted\">No figures.</p>\n");
    }
    for figure in &entry.figures {
        let name = figure.png.trim_end_matches(".png");
        let size = figure.size.map_or(String::new(), |(w, h)| {
            format!(" width=\"{w}\" height=\"{h}\"")
        });
        let data = figure.data.as_ref().map_or(String::new(), |csv| {
            format!(
                " \u{2014} data: <a href=\"{}\">{}</a>",
                escape(csv),
                escape(csv)
            )
        });
        let _ = writeln!(
            body,
            "<figure><img src=\"{}\" alt=\"Figure {}\"{size}>\
             <figcaption><code>{}</code>{data}</figcaption></figure>",
            escape(&figure.png),
            escape(name),
            escape(&figure.png),
        );
    }
}

fn runs(body: &mut String, entry: &Entry) {
    let runs = &entry.runs;
    body.push_str("<h2>Runs</h2>\n<dl class=\"facts\">\n");
    let mut fact = |term: &str, value: String| {
        let _ = writeln!(body, "<dt>{}</dt><dd>{value}</dd>", escape(term));
    };
    fact(
        "directory",
        format!("<code>{}</code>", escape(&entry.dir.display().to_string())),
    );
    fact("runs", runs.count.to_string());
    fact(
        "run time",
        format!(
            "{} <span class=\"muted\">(the runs' wall-clock times added up)</span>",
            escape(&html::duration(runs.wall_seconds))
        ),
    );
    fact(
        "seeds",
        if runs.seeds.is_empty() {
            "\u{2014}".to_string()
        } else {
            escape(&html::seeds(&runs.seeds))
        },
    );
    if let Kind::Experiment(e) = &entry.kind {
        fact(
            "written by",
            e.version.as_ref().map_or_else(
                || "<span class=\"muted\">version not recorded</span>".to_string(),
                |v| format!("tailback {}", escape(v)),
            ),
        );
    }
    fact(
        "report built by",
        format!("tailback {}", env!("CARGO_PKG_VERSION")),
    );
    body.push_str("</dl>\n");
}

/// A TOML table as text (JSON when it has no TOML form).
fn toml_text(table: &toml::Table) -> String {
    toml::to_string_pretty(table)
        .unwrap_or_else(|_| serde_json::to_string_pretty(table).unwrap_or_default())
}

fn experiment_config(body: &mut String, entry: &Entry, e: &Experiment) {
    body.push_str("<h2>Configuration</h2>\n");
    match &entry.runs.first {
        None => body.push_str("<p class=\"muted\">No runs recorded.</p>\n"),
        Some((id, config)) => {
            let text = serde_json::from_value::<toml::Table>(config.clone())
                .map(|t| toml_text(&t))
                .unwrap_or_else(|_| serde_json::to_string_pretty(config).unwrap_or_default());
            let distinct = entry.runs.configs.len();
            let _ = writeln!(
                body,
                "<details><summary>The first run's whole configuration (<code>{}</code>; {} \
                 in results.jsonl)</summary>\n<pre>{}</pre></details>",
                escape(id),
                plural(
                    distinct,
                    "distinct configuration",
                    "distinct configurations"
                ),
                escape(&text)
            );
        }
    }
    let mut command = format!("tailback experiment run {}", html::shell_quote(&e.name));
    if e.quick {
        command.push_str(" --quick");
    }
    let _ = write!(
        command,
        " --out {}",
        html::shell_quote(&entry.dir.display().to_string())
    );
    let _ = writeln!(
        body,
        "<h2>Regenerate</h2>\n<pre id=\"command\">{}</pre>",
        escape(&command)
    );
}

fn sweep_config(body: &mut String, entry: &Entry, s: &Sweep, out: &Path) {
    body.push_str("<h2>Configuration</h2>\n");
    let _ = writeln!(
        body,
        "<p>The base configuration (<a href=\"config.toml\">config.toml</a>), swept over {} \
         with {}:</p>\n<pre id=\"config\">{}</pre>",
        s.vary
            .iter()
            .map(|v| format!("<code>{}</code>", escape(v)))
            .collect::<Vec<_>>()
            .join(", "),
        plural(s.seeds as usize, "seed", "seeds"),
        escape(&toml_text(&s.config)),
    );
    for file in &s.missing_files {
        let _ = writeln!(
            body,
            "<p class=\"muted\">It names <code>{}</code>, a path relative to the directory the \
             sweep ran in, not found from where the report was built: make it absolute in \
             config.toml before running the command.</p>",
            escape(file)
        );
    }
    let config = out.join("entries").join(&entry.slug).join("config.toml");
    let mut command = format!(
        "tailback sweep {}",
        html::shell_quote(&config.display().to_string())
    );
    for vary in &s.vary {
        let _ = write!(command, " --vary {}", html::shell_quote(vary));
    }
    let _ = write!(
        command,
        " --seeds {} --out {}",
        s.seeds,
        html::shell_quote(&entry.dir.display().to_string())
    );
    let _ = writeln!(
        body,
        "<h2>Regenerate</h2>\n<pre id=\"command\">{}</pre>\n<p class=\"muted\">(A directory \
         that holds results is refused: give another <code>--out</code>, or add \
         <code>--resume</code> to run only the missing points there.)</p>",
        escape(&command)
    );
}

/// The base configuration of a sweep, for `config.toml`.
pub fn sweep_config_file(s: &Sweep) -> String {
    toml_text(&s.config)
}
