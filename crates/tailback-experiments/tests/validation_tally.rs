//! The per-paper table that opens `docs/validation.md` is the one the tally command generates
//! from the committed snapshot of the experiments' full runs (nothing is simulated).

use std::path::PathBuf;

use tailback_experiments::all;
use tailback_experiments::tally::Snapshot;

const BEGIN: &str = "<!-- tally: begin (generated: tailback experiment tally --snapshot docs/validation-summaries.json) -->\n";
const END: &str = "<!-- tally: end -->";

fn docs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

#[test]
fn the_validation_table_is_the_tally_of_the_committed_snapshot() {
    let text = std::fs::read_to_string(docs().join("validation-summaries.json")).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = all().iter().map(|e| e.name).collect();
    for name in snapshot.experiments.keys() {
        assert!(
            names.contains(&name.as_str()),
            "the snapshot names {name}, no experiment"
        );
    }
    let doc = std::fs::read_to_string(docs().join("validation.md")).unwrap();
    let start = doc
        .find(BEGIN)
        .expect("docs/validation.md has the tally's begin marker")
        + BEGIN.len();
    let end = doc[start..].find(END).expect("and its end marker") + start;
    assert_eq!(
        &doc[start..end],
        snapshot.table(&names),
        "docs/validation.md's table is stale: paste the output of \
         `tailback experiment tally --snapshot docs/validation-summaries.json`"
    );
}
