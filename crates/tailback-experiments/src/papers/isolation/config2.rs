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
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Comparison, Context, Findings, Job, Result};

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

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let mut jobs = CASE_2.jobs(grid, None)?;
    jobs.extend(CASE_3.jobs(grid, None)?);
    Ok(jobs)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let window: f64 = grid.param("window_us")?;
    let case2 = CASE_2.rates(grid, &reports)?;
    let case3 = CASE_3.network_throughput(grid, &reports)?;
    let mut comparisons = fairness(&case2);
    comparisons.extend(throughput(&case3));
    let mut files = CASE_2.files(ctx, &case2, window)?;
    files.extend(CASE_3.files(ctx, &CASE_3.rates(grid, &reports)?, window)?);
    Ok(Findings::legacy(comparisons, files))
}

/// Fig. 10: fairness among the five flows with all of them on.
fn fairness(by: &BTreeMap<&str, FlowRates>) -> Vec<Comparison> {
    let unfair = |id: &str| by[id].unfairness(&ALL);
    let (q1, ith, fbicm, ccfit) = (
        unfair("1q"),
        unfair("ith"),
        unfair("fbicm"),
        unfair("ccfit"),
    );
    let listed = format!(
        "furthest from an equal share: 1Q {:.0} %, ITh {:.0} %, FBICM {:.0} %, CCFIT {:.0} %",
        100.0 * q1,
        100.0 * ith,
        100.0 * fbicm,
        100.0 * ccfit
    );
    let measure = "largest distance of a flow from the five flows' mean rate, last phase";
    vec![
        Comparison::judged(
            "Case #2, all five flows on: ITh fairer than 1Q",
            "ITh improves fairness",
            listed.clone(),
            ith < q1,
            format!("{measure}: ITh's < 1Q's"),
        )
        .identified("case2-ith-fairer", None, Some(ith)),
        Comparison::judged(
            "Case #2: FBICM unfair (less fair than CCFIT)",
            "FBICM unfair",
            listed.clone(),
            fbicm > ccfit,
            format!("{measure}: FBICM's > CCFIT's"),
        )
        .identified("case2-fbicm-unfair", None, Some(fbicm)),
        Comparison::judged(
            "Case #2: CCFIT the fairest of 1Q, ITh, FBICM and CCFIT (within 2 points)",
            "CCFIT best fairness",
            listed,
            ccfit <= q1.min(ith).min(fbicm) + 0.02,
            format!(
                "{measure}: CCFIT's <= the least of 1Q's, ITh's and FBICM's + 2 percentage points"
            ),
        )
        .identified("case2-ccfit-fairest", None, Some(ccfit)),
    ]
}

/// Fig. 7c: network throughput with all flows on and uniform traffic beside them (means over
/// the seeds, printed with their spread).
fn throughput(spreads: &BTreeMap<&str, Spread>) -> Vec<Comparison> {
    let listed = format!(
        "1Q {}, ITh {}, FBICM {}, CCFIT {}, VOQnet {} {}",
        spreads["1q"].value(3),
        spreads["ith"].value(3),
        spreads["fbicm"].value(3),
        spreads["ccfit"].value(3),
        spreads["voqnet"].value(3),
        spreads["1q"].note()
    );
    let by = |id: &str| spreads[id].mean;
    let isolated = by("fbicm").min(by("ccfit"));
    vec![
        Comparison::judged(
            "Case #3, last phase, normalised network throughput: ITh below FBICM and CCFIT \
             (slow to reach their level)",
            "ITh takes long to reach the others",
            listed.clone(),
            by("ith") < isolated,
            "ITh < FBICM and ITh < CCFIT",
        )
        .identified("case3-ith-slow", None, Some(by("ith")))
        .over_seeds(&spreads["ith"]),
        Comparison::judged(
            "Case #3: 1Q lowest",
            "1Q suffers",
            listed,
            by("1q") < by("ith").min(isolated),
            "1Q < ITh, FBICM and CCFIT",
        )
        .identified("case3-1q-lowest", None, Some(by("1q")))
        .over_seeds(&spreads["1q"]),
    ]
}
