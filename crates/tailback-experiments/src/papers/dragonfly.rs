//! Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology" (ISCA
//! 2008): minimal, Valiant, UGAL-L and UGAL-G routing on the 1,056-node dragonfly under uniform
//! random and worst-case traffic. The text's results are orderings; the curves' values are
//! plotted only, so no number is compared.

use std::collections::BTreeMap;

use tailback_core::stats::RunSummary;

use crate::Result;
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::experiment::{Context, Experiment};
use crate::grid::{Folder, Grid};
use crate::runner::Job;

static FOLDER: Folder = Folder {
    path: "experiments/dragonfly",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../experiments/dragonfly/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../experiments/dragonfly/base.toml"),
        ),
    ],
};

/// The dragonfly paper's experiments.
pub fn experiments() -> Vec<Experiment> {
    vec![Experiment::on_grid(
        "dragonfly-routing",
        "Throughput of MIN, VAL, UGAL-L, UGAL-G (and PAR) under uniform random and worst-case traffic on the 1,056-node dragonfly; UGAL-L's latency on worst-case traffic",
        "Kim, Dally, Scott and Abts, ISCA 2008, Sec. 4 (routing on the 1K-node dragonfly)",
        &FOLDER,
        claims,
        run,
    )]
}

/// Where the paper compares the routings.
const ROUTING: Source = Source::new(Paper::Dragonfly, "Sec. 4, UR and WC on the 1K network");

/// An ordering of two routings' throughput (accepted at the saturating load) under `pattern`.
fn faster(id: &str, pattern: &str, (higher, lower): (&'static str, &'static str)) -> Claim {
    Claim::new(
        id,
        format!("{pattern}: throughput of {higher} against {lower}"),
        ROUTING,
        Rule::Order { higher, lower },
    )
    .shown(3, " flits/node/cycle")
}

/// What the paper states of its routing comparison, each an ordering judged on paired seeds;
/// and Valiant's halved throughput on uniform traffic.
fn claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    claims
        .claim(
            faster("ur-min-over-val", "UR", ("MIN", "VAL"))
                .stated("MIN best on UR; VAL halves it (every packet crosses two global links)"),
        )
        .claim(
            Claim::new(
                "ur-val-half",
                "UR: VAL's throughput",
                ROUTING,
                Rule::near(0.5, 0.2),
            )
            .shown(3, " flits/node/cycle")
            .stated("about 50 % of capacity"),
        )
        .claim(
            faster("ur-ugal-g-over-val", "UR", ("UGAL-G", "VAL"))
                .stated("UGAL-G stays minimal on UR, well above VAL"),
        )
        .claim(
            faster("wc-val-over-min", "WC", ("VAL", "MIN")).stated(
                "MIN collapses on WC (one global link per pair of groups); VAL balances it",
            ),
        )
        .claim(
            faster("wc-ugal-g-over-min", "WC", ("UGAL-G", "MIN"))
                .stated("UGAL-G load-balances WC, far above MIN"),
        )
        .claim(
            Claim::new(
                "wc-ugal-g-near-val",
                "WC: UGAL-G's throughput over VAL's (added after the first full run)",
                ROUTING,
                Rule::Ratio {
                    value: 1.0,
                    tolerance: 0.1,
                    floor: 0.01,
                },
            )
            .shown(2, "")
            .stated("UGAL-G approaches VAL on WC (the ideal of global adaptive routing)"),
        )
        .claim(
            faster("wc-ugal-l-over-min", "WC", ("UGAL-L", "MIN"))
                .stated("UGAL-L load-balances WC as well"),
        )
        .claim(
            Claim::new(
                "wc-ugal-l-latency",
                "WC at the intermediate load: mean latency of UGAL-L against UGAL-G",
                ROUTING,
                Rule::Order {
                    higher: "UGAL-L",
                    lower: "UGAL-G",
                },
            )
            .shown(1, " cycles")
            .stated(
                "UGAL-L's latency at intermediate loads on WC is well above UGAL-G's: a source \
                 router sees only its own queues, not the global channel's",
            ),
        )
        .not_compared(
            ROUTING,
            "each routing's latency–load curve",
            "plotted only",
            "the text gives no value; digitised curves would be read off the plot",
        )
        .not_compared(
            ROUTING,
            "UGAL-L with selective VC discrimination and with credit round-trip sensing",
            "approach UGAL-G",
            "not modelled: Tailback's UGAL-L weighs the credits in use of the output port",
        )
        .not_compared(
            Source::new(Paper::Dragonfly, "Sec. 5 (cost)"),
            "network cost against a flattened butterfly and a folded Clos at 16K nodes",
            "20 % and 52 % lower",
            "cost models are outside a simulator",
        );
    Ok(claims)
}

/// Runs the grid; prints each routing's accepted load under both patterns and UGAL's WC
/// latency, and measures the orderings per seed.
fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.axis("seed")?;
    let routings: Vec<String> = grid
        .entries("routing")?
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let saturating: f64 = grid.param("saturating")?;
    let intermediate: f64 = grid.param("intermediate")?;
    let reports = ctx.run(jobs)?;
    let summary = |id: String| -> &RunSummary { &reports[&id].summary };
    // Per (pattern, routing): accepted per seed.
    let mut accepted: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
    let mut text = format!(
        "accepted load (flits/node/cycle) at offered {saturating}, mean of {} seeds; detoured \
         share of packets\n{:<8}{:>10}{:>10}{:>10}{:>10}\n",
        seeds.len(),
        "routing",
        "UR",
        "detoured",
        "WC",
        "detoured"
    );
    for routing in &routings {
        text.push_str(&format!("{routing:<8}"));
        for pattern in ["UR", "WC"] {
            let runs: Vec<&RunSummary> = seeds
                .iter()
                .map(|seed| summary(format!("{pattern}|{routing}|{seed}")))
                .collect();
            let values: Vec<f64> = runs.iter().map(|s| s.accepted).collect();
            let detoured: Vec<f64> = runs.iter().filter_map(|s| s.detoured).collect();
            let detoured = if detoured.is_empty() {
                "—".to_string()
            } else {
                format!("{:.2}", mean(&detoured))
            };
            text.push_str(&format!("{:>10.3}{detoured:>10}", mean(&values)));
            accepted.insert((pattern, routing.as_str()), values);
        }
        text.push('\n');
    }
    let latency = |routing: &str| -> Vec<f64> {
        seeds
            .iter()
            .map(|seed| {
                let s = summary(format!("WC@{intermediate}|{routing}|{seed}"));
                s.latency.mean.unwrap_or(f64::INFINITY)
            })
            .collect()
    };
    let (local, global) = (latency("UGAL-L"), latency("UGAL-G"));
    text.push_str(&format!(
        "WC at offered {intermediate}: mean latency UGAL-L {:.1}, UGAL-G {:.1} cycles\n",
        mean(&local),
        mean(&global)
    ));
    print!("{text}");
    let path = ctx.write_text("throughput.txt", &text)?;
    let paired = |pattern: &str, higher: &str, lower: &str| {
        let (h, l) = (&accepted[&(pattern, higher)], &accepted[&(pattern, lower)]);
        Ours::Paired(h.iter().copied().zip(l.iter().copied()).collect())
    };
    let mut found = Findings::with_files(vec![path]);
    found
        .set("ur-min-over-val", paired("UR", "MIN", "VAL"))
        .set("ur-val-half", Ours::Seeds(accepted[&("UR", "VAL")].clone()))
        .set("ur-ugal-g-over-val", paired("UR", "UGAL-G", "VAL"))
        .set("wc-val-over-min", paired("WC", "VAL", "MIN"))
        .set("wc-ugal-g-over-min", paired("WC", "UGAL-G", "MIN"))
        .set(
            "wc-ugal-g-near-val",
            Ours::Ratio {
                num: mean(&accepted[&("WC", "UGAL-G")]),
                den: mean(&accepted[&("WC", "VAL")]),
            },
        )
        .set("wc-ugal-l-over-min", paired("WC", "UGAL-L", "MIN"))
        .set(
            "wc-ugal-l-latency",
            Ours::Paired(local.into_iter().zip(global).collect()),
        );
    Ok(found)
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}
