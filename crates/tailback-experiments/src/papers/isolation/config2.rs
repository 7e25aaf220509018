//! Paper V's Config #2, Cases #2 and #3 (Figs. 7b, 7c and 10): a 2-ary 3-tree (8 nodes, 12
//! switches) of 2.5 GB/s links, five flows at 100 % joining one per phase (F1 all along, then
//! F0, F4, F2 and F3), and in Case #3 three more nodes sending to random destinations all
//! along. Paper V gives the five flows' ends only in a figure we do not have: ours are
//! **stand-ins** with the structure the text describes — every flow towards node 3, meeting
//! at node 3's link (a parking lot at its switch, where F0 is local), at the first switch's
//! up-link (F1, F4), at the second level (F2 from the other half of the tree) and at the
//! third switch's up-link (F2, F3): four congestion points. Case #3's uniform senders are
//! nodes 5, 6 and 7 as in the paper (node 5 also sends F3 from the last phase).

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::phased::{Case, FlowRates};
use super::{SCHEMES, order, paired};
use crate::claim::{Claim, Claims, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Findings, Job, Result};

/// The stand-in flows: F1, F0, F4, F2, F3 in the order they join.
const FLOWS: &[(u32, u32)] = &[(0, 3), (2, 3), (1, 3), (4, 3), (5, 3)];

const CASE_2: Case = Case {
    id: "case2",
    title: "Config #2, Case #2 (stand-in flows)",
    joining: FLOWS,
    uniform: &[],
};

const CASE_3: Case = Case {
    id: "case3",
    title: "Config #2, Case #3 (stand-in flows, uniform traffic from nodes 5-7)",
    joining: FLOWS,
    uniform: &[5, 6, 7],
};

/// Every joining flow.
const ALL: [usize; 5] = [0, 1, 2, 3, 4];

/// Paper V's fairness study on Config #2 (Fig. 10).
const FIG_10: Source = Source::new(Paper::GranV, "Sec. IV-C, Fig. 10");
/// Paper V's throughput of Config #2 (Figs. 7b and 7c).
const FIG_7: Source = Source::new(Paper::GranV, "Sec. IV-B, Figs. 7b and 7c");

/// Why the throughput of Case #2's flows is not compared.
const ONE_BOTTLENECK: &str = "our stand-in flows all end at node 3, so together they carry \
    that link's rate under every scheme that keeps it busy (1Q included, its local flow taking \
    half): the paper's flows (in a figure we do not have) load other links, ours cannot show \
    the difference";

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = CASE_2.jobs(grid, None)?;
    jobs.extend(CASE_3.jobs(grid, None)?);
    Ok(jobs)
}

/// What Paper V states of Cases #2 and #3.
pub(super) fn claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    let unfair = (0, " %");
    let throughput = (3, "");
    claims
        .claim(order(
            "case2-ith-fairer",
            "Case #2, all five flows on: the furthest flow's distance from an equal share, 1Q \
             against ITh (ITh improves fairness)",
            FIG_10,
            ("1Q", "ITh"),
            unfair,
        ))
        .claim(order(
            "case2-fbicm-unfair",
            "Case #2: the furthest flow's distance from an equal share, FBICM against CCFIT \
             (FBICM's unfairness dominant)",
            FIG_10,
            ("FBICM", "CCFIT"),
            unfair,
        ))
        .claim(order(
            "case2-ccfit-fairest",
            "Case #2: the furthest flow's distance from an equal share, ITh against CCFIT \
             (CCFIT the highest degree of fairness)",
            FIG_10,
            ("ITh", "CCFIT"),
            unfair,
        ))
        .claim(order(
            "case2-ccfit-fairer-than-1q",
            "Case #2: the furthest flow's distance from an equal share, 1Q against CCFIT",
            FIG_10,
            ("1Q", "CCFIT"),
            unfair,
        ))
        .not_compared(
            FIG_10,
            "Case #2: throughput, 1Q poor, ITh better, FBICM better still, CCFIT the best",
            "1Q < ITh < FBICM <= CCFIT (curves only)",
            ONE_BOTTLENECK,
        )
        .not_compared(
            FIG_7,
            "Case #2: the three CC techniques similar, 1Q struggles",
            "similar; 1Q below (curves only)",
            ONE_BOTTLENECK,
        )
        .claim(order(
            "case3-ith-slow",
            "Case #3, last phase: normalised network throughput, CCFIT against ITh (ITh slow \
             to reach the others' level)",
            FIG_7,
            ("CCFIT", "ITh"),
            throughput,
        ))
        .claim(order(
            "case3-ith-slow-fbicm",
            "Case #3, last phase: normalised network throughput, FBICM against ITh",
            FIG_7,
            ("FBICM", "ITh"),
            throughput,
        ))
        .claim(order(
            "case3-1q-lowest",
            "Case #3, last phase: normalised network throughput, the lowest of ITh, FBICM and \
             CCFIT against 1Q (1Q struggles)",
            FIG_7,
            ("the lowest of ITh, FBICM and CCFIT", "1Q"),
            throughput,
        ))
        .claim(
            Claim::new(
                "case3-similar",
                "Case #3, last phase: normalised network throughput, the lowest of ITh, FBICM \
                 and CCFIT below the highest",
                FIG_7,
                // "Similar" read as the usual ±15 % of "≈"; 30 % apart contradicts it.
                Rule::Zero {
                    within: 15.0,
                    failing: 30.0,
                },
            )
            .shown(1, " %")
            .stated("the three CC techniques all show similar results"),
        );
    Ok(claims)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let window: f64 = grid.param("window_us")?;
    let case2 = CASE_2.rates(grid, &reports)?;
    let case3 = CASE_3.network_throughput(grid, &reports)?;
    let mut found = Findings::with_files(CASE_2.files(ctx, &case2, window)?);
    found
        .files
        .extend(CASE_3.files(ctx, &CASE_3.rates(grid, &reports)?, window)?);
    fairness(&case2, &mut found);
    throughput(&case3, &mut found);
    Ok(found)
}

/// Fig. 10: fairness among the five flows with all of them on, per seed.
fn fairness(by: &BTreeMap<&str, FlowRates>, found: &mut Findings) {
    let unfair = |id: &str| by[id].per_seed(|f| 100.0 * f.unfairness(&ALL));
    found
        .set("case2-ith-fairer", paired(&unfair("1q"), &unfair("ith")))
        .set(
            "case2-fbicm-unfair",
            paired(&unfair("fbicm"), &unfair("ccfit")),
        )
        .set(
            "case2-ccfit-fairest",
            paired(&unfair("ith"), &unfair("ccfit")),
        )
        .set(
            "case2-ccfit-fairer-than-1q",
            paired(&unfair("1q"), &unfair("ccfit")),
        );
    found.info(
        "Case #2, all five on: each flow's bandwidth (GB/s, mean over the seeds) and the \
         furthest from an equal share",
        "-",
        SCHEMES
            .iter()
            .map(|s| {
                let f = &by[s.id];
                let rates: Vec<String> = ALL.iter().map(|&i| format!("{:.2}", f.last(i))).collect();
                format!(
                    "{} {} ({:.0} %)",
                    s.name,
                    rates.join("/"),
                    Spread::of(&unfair(s.id)).mean
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
    );
}

/// Fig. 7c: network throughput with all flows on and uniform traffic beside them, per seed.
fn throughput(by: &BTreeMap<&str, Vec<f64>>, found: &mut Findings) {
    let lowest: Vec<f64> = (0..by["ith"].len())
        .map(|seed| {
            ["ith", "fbicm", "ccfit"]
                .iter()
                .map(|id| by[id][seed])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let means: Vec<f64> = ["ith", "fbicm", "ccfit"]
        .iter()
        .map(|id| Spread::of(&by[id]).mean)
        .collect();
    let best = means.iter().copied().fold(0.0, f64::max);
    let worst = means.iter().copied().fold(f64::INFINITY, f64::min);
    found
        .set("case3-ith-slow", paired(&by["ccfit"], &by["ith"]))
        .set("case3-ith-slow-fbicm", paired(&by["fbicm"], &by["ith"]))
        .set("case3-1q-lowest", paired(&lowest, &by["1q"]))
        .set("case3-similar", Ours::Value(100.0 * (1.0 - worst / best)));
    found.info(
        "Case #3, last phase: normalised network throughput",
        "-",
        SCHEMES
            .iter()
            .map(|s| format!("{} {}", s.name, Spread::of(&by[s.id]).describe(3, "")))
            .collect::<Vec<_>>()
            .join(", "),
    );
}
