//! End-to-end tests of `tailback report`: the static HTML report of experiments and sweeps.

mod common;
mod report_fixture;

use std::path::Path;

use report_fixture::{escaped, pages, report, results, tailback};
use serde_json::Value;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

/// The values of attribute `name` (`src`, `href`) in `html`.
fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .map(|(at, _)| {
            let rest = &html[at + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// The rows of the table with id `id` in `html`, each as its cells' HTML.
fn table_rows(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no table {id}"));
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let content = &cell[cell.find('>').unwrap() + 1..];
                    content[..content.find("</td>").unwrap()].to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_report_lists_every_entry_with_its_figures_tables_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = results(dir.path());

    // The experiment run rebuilt the report of its parent directory, and said where.
    let printed = fixture
        .experiment_stdout
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report printed: {}", fixture.experiment_stdout));
    let experiments_report = fixture.results.join("experiments/report/index.html");
    assert_eq!(Path::new(printed), experiments_report);
    assert!(read(&experiments_report).contains("self-tuned-fig4-quick"));
    // ... and recorded the version that wrote it.
    let summary = read_json(&fixture.experiment.join("summary.json"));
    assert_eq!(summary["tailback_version"], env!("CARGO_PKG_VERSION"));

    let index = report(&[&fixture.results], &[]);
    assert_eq!(index, fixture.results.join("report/index.html"));
    let html = read(&index);
    // Both entries, and not the experiments' own report.
    let rows = table_rows(&html, "entries");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows[0][0].contains("experiments/self-tuned-fig4-quick"),
        "{rows:?}"
    );
    assert_eq!(rows[0][1], "experiment");
    assert!(rows[0][2].contains("Thottethodi"), "{rows:?}");
    assert_eq!(rows[0][3], "2");
    let comparisons = summary["comparisons"].as_array().unwrap();
    // Claims are judged in a full run, not in this quick one (a one-seed ordering not even
    // there); lines without a verdict are information.
    let unjudged = comparisons
        .iter()
        .filter(|c| c["verdict"] == "not judged")
        .count();
    assert!(unjudged < comparisons.len(), "{comparisons:?}");
    assert_eq!(
        rows[0][4],
        match unjudged {
            0 => "no comparisons".to_string(),
            n => format!("{n} not judged"),
        }
    );
    assert!(rows[0][5].contains("quick"), "{rows:?}");
    assert!(rows[1][0].contains(">torus<"), "{rows:?}");
    assert_eq!(rows[1][1], "sweep");
    assert_eq!(rows[1][3], "4");

    let pages = pages(&index);
    assert_eq!(pages.len(), 3);
    for page in &pages {
        let html = read(page);
        let folder = page.parent().unwrap();
        // Every image is in the report; nothing is fetched from the network.
        for src in attributes(&html, "src") {
            assert!(
                folder.join(src).is_file(),
                "{}: {src} missing",
                page.display()
            );
        }
        for link in attributes(&html, "href") {
            assert!(
                !link.starts_with("http:")
                    && !link.starts_with("https:")
                    && !link.starts_with("//"),
                "{}: {link}",
                page.display()
            );
            if !link.starts_with("data:") {
                assert!(
                    folder.join(link).is_file(),
                    "{}: {link} missing",
                    page.display()
                );
            }
        }
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("<link rel=\"stylesheet\"") && !html.contains("@import"));
    }

    // The experiment's page: its figure with its data, the comparisons, how to run it again.
    let page = read(&pages[1]);
    assert!(page.contains("<img src=\"fig4.png\""), "{page}");
    assert!(page.contains("href=\"fig4.data.csv\""));
    let rows = table_rows(&page, "comparisons");
    assert_eq!(rows.len(), comparisons.len());
    for (row, comparison) in rows.iter().zip(comparisons) {
        assert_eq!(row[0], escaped(comparison["what"].as_str().unwrap()));
        let expected = if comparison.get("rule").is_some() {
            "not judged"
        } else {
            ""
        };
        assert_eq!(row[3], expected);
        assert_eq!(
            row[4],
            escaped(comparison.get("rule").and_then(Value::as_str).unwrap_or(""))
        );
    }
    assert!(page.contains(&format!(
        "tailback experiment run self-tuned-fig4 --quick --out {}",
        fixture.experiment.display()
    )));
    assert!(page.contains("<details>") && page.contains("[topology]"));
    assert!(page.contains(&format!(
        "written by</dt><dd>tailback {}",
        env!("CARGO_PKG_VERSION")
    )));

    // The sweep's page: its saturation, a row per point, both figures, its configuration
    // beside the page and the command that uses it.
    let page = read(&pages[2]);
    assert!(page.contains("not reached"), "{page}");
    let rows = table_rows(&page, "curves");
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0][0].as_str(), rows[1][0].as_str()), ("0.1", "0.3"));
    for figure in ["latency", "throughput"] {
        assert!(page.contains(&format!("<img src=\"{figure}.png\"")));
        assert!(page.contains(&format!("href=\"{figure}.data.csv\"")));
    }
    let sweep_folder = pages[2].parent().unwrap();
    let config = read(&sweep_folder.join("config.toml"));
    assert!(config.contains("k = 4"), "{config}");
    assert!(page.contains(&format!(
        "tailback sweep {} --vary traffic.rate=0.1,0.3 --seeds 2 --out {}",
        sweep_folder.join("config.toml").display(),
        fixture.sweep.display()
    )));
    assert!(page.contains("<dt>seeds</dt><dd>1, 2</dd>"), "{page}");

    // Built again, the report is the same, byte for byte.
    let before: Vec<String> = pages.iter().map(|p| read(p)).collect();
    assert_eq!(report(&[&fixture.results], &[]), index);
    let after: Vec<String> = pages.iter().map(|p| read(p)).collect();
    assert_eq!(before, after);

    // Judged comparisons: the verdict in words as well as in colour, counted in the index;
    // the results not compared listed with their reasons.
    let mut judged = summary.clone();
    judged["quick"] = Value::Bool(false);
    let lines = judged["comparisons"].as_array().unwrap().len();
    assert!(lines >= 3, "the fixture has {lines} comparisons");
    for (i, (agrees, verdict)) in [
        (true, "agrees"),
        (false, "differs"),
        (false, "not separated"),
    ]
    .into_iter()
    .enumerate()
    {
        judged["comparisons"][i]["agrees"] = Value::Bool(agrees);
        judged["comparisons"][i]["verdict"] = Value::from(verdict);
        judged["comparisons"][i]["rule"] = Value::from("a rule");
    }
    judged["not_compared"] = serde_json::json!([
        {"what": "the hardware jitter", "paper": "42 Mbit/s", "reason": "a property of the host"}
    ]);
    let unjudged = judged["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "not judged")
        .count();
    let counts = |first: &str| match unjudged {
        0 => first.to_string(),
        n => format!("{first}, {n} not judged"),
    };
    let write = |summary: &Value| {
        std::fs::write(
            fixture.experiment.join("summary.json"),
            serde_json::to_string(summary).unwrap(),
        )
        .unwrap();
    };
    write(&judged);
    let index = report(&[&fixture.results], &[]);
    let rows = table_rows(&read(&index), "entries");
    assert_eq!(rows[0][4], counts("1 agrees, 1 differs, 1 not separated"));
    assert!(rows[0][5].contains("full"), "{rows:?}");
    let page = read(&pages[1]);
    assert!(
        page.contains("<td class=\"verdict agrees\" data-sort=\"agrees\">\u{2713} agrees</td>")
    );
    assert!(
        page.contains("<td class=\"verdict differs\" data-sort=\"differs\">\u{2717} differs</td>")
    );
    assert!(page.contains("\u{2717} not separated</td>"), "{page}");
    assert_eq!(
        table_rows(&page, "not-compared"),
        [["the hardware jitter", "42 Mbit/s", "a property of the host"]]
    );
    // A summary written before verdicts and results not compared were recorded still loads:
    // its verdicts come from `agrees`.
    let mut older = judged.clone();
    for c in older["comparisons"].as_array_mut().unwrap() {
        c.as_object_mut().unwrap().remove("verdict");
    }
    older.as_object_mut().unwrap().remove("not_compared");
    write(&older);
    let index = report(&[&fixture.results], &[]);
    let rows = table_rows(&read(&index), "entries");
    assert_eq!(rows[0][4], counts("1 agrees, 2 differ"));
    let page = read(&pages[1]);
    assert!(!page.contains("not-compared"));
    write(&judged);
    assert!(page.contains(&format!("--out {}</pre>", fixture.experiment.display())));
    assert!(!page.contains(" --quick "));

    // One entry given directly, into another folder.
    let elsewhere = dir.path().join("elsewhere");
    let index = report(&[&fixture.sweep], &["--out", elsewhere.to_str().unwrap()]);
    let rows = table_rows(&read(&index), "entries");
    assert_eq!(rows.len(), 1);
    assert!(rows[0][0].contains(">torus<"));
}

#[test]
fn a_missing_or_empty_directory_or_a_foreign_out_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let output = tailback().arg("report").arg(&missing).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "").unwrap();
    let output = tailback().arg("report").arg(&empty).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains(&empty.display().to_string()), "{stderr}");
    assert!(stderr.contains("no experiment"), "{stderr}");
    assert!(
        !empty.join("report").exists(),
        "a report folder left behind"
    );

    // A folder that is not a report is not overwritten.
    let output = tailback()
        .arg("report")
        .arg(&empty)
        .arg("--out")
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("is not a tailback report"), "{stderr}");
    assert!(empty.join("notes.txt").is_file());
}
