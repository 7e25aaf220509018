//! Paper V's Config #1, Case #1 (Figs. 7a and 9; R10's fairness): on the two switches, the
//! victim F0 (node 0 -> 3) runs all along at 100 % of its link while contributors towards
//! node 4 join one per phase: F1 and F2 from the first switch (through the link between the
//! switches, like the victim), then F5 and F6, local to the second switch. Paper V lists the
//! last one as "F5 on [6, 10] ms" twice; F6 from the fourth phase is our reading [A].

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::phased::{Case, FlowRates};
use super::{SCHEMES, order, paired};
use crate::claim::{Claim, Claims, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::{Context, Findings, Job, Result};

/// The victim first, then the contributors in the order they join.
const CASE_1: Case = Case {
    id: "case1",
    title: "Config #1, Case #1",
    joining: &[(0, 3), (1, 4), (2, 4), (5, 4), (6, 4)],
    uniform: &[],
};

/// The contributors' indices in [`CASE_1`]: through the switch link, then local.
const CONTRIBUTORS: [usize; 4] = [1, 2, 3, 4];

/// Contributors within this many percent of an equal share count as fair (the plan's reading
/// of "solved"; the paper gives no number).
const FAIR: f64 = 15.0;

/// The furthest contributor's distance from an equal share (%) when the local contributors
/// get twice the remote ones (1Q's parking lot): a distance that contradicts "solved".
const PARKING_LOT: f64 = 100.0 / 3.0;

/// Paper V's fairness study on Config #1 (Fig. 9).
const FIG_9: Source = Source::new(Paper::GranV, "Sec. IV-C, Fig. 9");
/// Paper V's throughput of Config #1 (Fig. 7a).
const FIG_7A: Source = Source::new(Paper::GranV, "Sec. IV-B, Fig. 7a");

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let topology = super::super::infiniband::topology_file("ccfit-config1")?;
    CASE_1.jobs(grid, Some(&topology))
}

/// What Paper V states of Case #1.
pub(super) fn claims(_: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    let fair = |id: &str, name: &str, paper: &str| {
        Claim::new(
            id,
            format!("{name}: the contributors' furthest distance from an equal share, all five on"),
            FIG_9,
            Rule::Zero {
                within: FAIR,
                failing: PARKING_LOT,
            },
        )
        .shown(0, " %")
        .stated(format!("{paper} (no number; read as within {FAIR} %)"))
    };
    let gbs = (2, " GB/s");
    claims
        .claim(
            Claim::new(
                "case1-1q-victim",
                "1Q, all five flows on: the victim F0",
                FIG_9,
                Rule::AtMost {
                    value: 1.25,
                    bound: 1.25,
                },
            )
            .shown(2, " GB/s")
            .stated("head-of-line blocked (no number; read as below half of its 2.5 GB/s)"),
        )
        .claim(order(
            "case1-1q-parking-lot",
            "1Q, all five on: the local contributors F5 + F6 against F1 + F2 through the \
             switch link",
            FIG_9,
            ("F5 + F6", "F1 + F2"),
            gbs,
        ))
        .claim(order(
            "case1-ith-victim",
            "all five on: the victim with ITh against 1Q (ITh improves it)",
            FIG_9,
            ("ITh", "1Q"),
            gbs,
        ))
        .claim(fair("case1-ith-fair", "ITh", "parking lot solved"))
        .claim(order(
            "case1-fbicm-victim",
            "all five on: the victim with FBICM against ITh (improved even compared to ITh)",
            FIG_9,
            ("FBICM", "ITh"),
            gbs,
        ))
        .claim(order(
            "case1-fbicm-parking-lot-remains",
            "FBICM, all five on: the local contributors F5 + F6 against F1 + F2 (the parking \
             lot prevails)",
            FIG_9,
            ("F5 + F6", "F1 + F2"),
            gbs,
        ))
        .claim(order(
            "case1-fbicm-parking-lot",
            "all five on: (F5 + F6) / (F1 + F2) with FBICM against 1Q (the unfairness has \
             increased)",
            FIG_9,
            ("FBICM", "1Q"),
            (2, "x"),
        ))
        .claim(fair(
            "case1-ccfit-fair",
            "CCFIT",
            "parking lot solved (Sec. IV-C's summing up)",
        ))
        .claim(
            Claim::new(
                "case1-ccfit-victim",
                "CCFIT, all five on: the victim F0",
                FIG_9,
                Rule::AtLeast {
                    value: 2.5,
                    bound: 2.25,
                },
            )
            .shown(2, " GB/s")
            .stated("HoL blocking eliminated: its link's 2.5 GB/s (read as at least 90 %)"),
        )
        .claim(
            Claim::new(
                "case1-end-similar",
                "all five on, all flows together: the lowest of ITh, FBICM and CCFIT below the \
                 highest",
                FIG_7A,
                // "Similar" read as the usual ±15 % of "≈"; 30 % apart contradicts it.
                Rule::Zero {
                    within: 15.0,
                    failing: 30.0,
                },
            )
            .shown(1, " %")
            .stated("the three CC techniques all show similar results"),
        )
        .claim(order(
            "case1-1q-suffers",
            "all five on, all flows together: the lowest of ITh, FBICM and CCFIT against 1Q",
            FIG_7A,
            ("the lowest of ITh, FBICM and CCFIT", "1Q"),
            gbs,
        ))
        .claim(order(
            "case1-ith-dip",
            "all flows together in [4, 6] ms (F0, F1 and F2 share the switch link): FBICM \
             against ITh (ITh drops)",
            FIG_7A,
            ("FBICM", "ITh"),
            gbs,
        ))
        .not_compared(
            FIG_9,
            "each flow's bandwidth against time",
            "curves only",
            "the paper gives no numbers: the statements of its text are judged, our curves \
             are plotted (case1-<scheme>.svg)",
        );
    Ok(claims)
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let by_scheme = CASE_1.rates(grid, &reports)?;
    let mut found =
        Findings::with_files(CASE_1.files(ctx, &by_scheme, grid.param("window_us")?)?);
    measure(&by_scheme, &mut found);
    Ok(found)
}

/// The victim in the last phase.
fn victim(f: &FlowRates) -> f64 {
    f.last(0)
}

/// The local contributors (F5, F6) in the last phase.
fn local(f: &FlowRates) -> f64 {
    f.last(3) + f.last(4)
}

/// The contributors through the switch link (F1, F2) in the last phase.
fn remote(f: &FlowRates) -> f64 {
    f.last(1) + f.last(2)
}

/// Local contributors over the ones through the switch link.
fn parking_lot(f: &FlowRates) -> f64 {
    local(f) / remote(f).max(1e-9)
}

/// Our values for Case #1's claims: per seed where the claim is an ordering.
fn measure(by: &BTreeMap<&str, FlowRates>, found: &mut Findings) {
    let (q1, ith, fbicm, ccfit) = (&by["1q"], &by["ith"], &by["fbicm"], &by["ccfit"]);
    let last = CASE_1.phases() - 1;
    let managed = [ith, fbicm, ccfit];
    let lowest_managed: Vec<f64> = (0..q1.per_seed(victim).len())
        .map(|seed| {
            managed
                .iter()
                .map(|f| f.per_seed(|r| r.total(last))[seed])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let totals: Vec<f64> = managed.iter().map(|f| f.total(last)).collect();
    let best = totals.iter().copied().fold(0.0, f64::max);
    let worst = totals.iter().copied().fold(f64::INFINITY, f64::min);
    let unfair = |f: &FlowRates| Ours::Value(100.0 * f.unfairness(&CONTRIBUTORS));
    found
        .set("case1-1q-victim", Ours::Seeds(q1.per_seed(victim)))
        .set(
            "case1-1q-parking-lot",
            paired(&q1.per_seed(local), &q1.per_seed(remote)),
        )
        .set(
            "case1-ith-victim",
            paired(&ith.per_seed(victim), &q1.per_seed(victim)),
        )
        .set("case1-ith-fair", unfair(ith))
        .set(
            "case1-fbicm-victim",
            paired(&fbicm.per_seed(victim), &ith.per_seed(victim)),
        )
        .set(
            "case1-fbicm-parking-lot-remains",
            paired(&fbicm.per_seed(local), &fbicm.per_seed(remote)),
        )
        .set(
            "case1-fbicm-parking-lot",
            paired(&fbicm.per_seed(parking_lot), &q1.per_seed(parking_lot)),
        )
        .set("case1-ccfit-fair", unfair(ccfit))
        .set("case1-ccfit-victim", Ours::Seeds(ccfit.per_seed(victim)))
        .set(
            "case1-end-similar",
            Ours::Value(100.0 * (1.0 - worst / best)),
        )
        .set(
            "case1-1q-suffers",
            paired(&lowest_managed, &q1.per_seed(|f| f.total(last))),
        )
        .set(
            "case1-ith-dip",
            paired(
                &fbicm.per_seed(|f| f.total(2)),
                &ith.per_seed(|f| f.total(2)),
            ),
        );
    found.info(
        "all five on: the victim, then the contributors F1/F2/F5/F6 (GB/s, mean over the seeds)",
        "-",
        SCHEMES
            .iter()
            .map(|s| format!("{} {}", s.name, flows(&by[s.id])))
            .collect::<Vec<_>>()
            .join("; "),
    );
}

/// The victim and the contributors in the last phase, GB/s.
fn flows(f: &FlowRates) -> String {
    let contributors: Vec<String> = CONTRIBUTORS
        .iter()
        .map(|&i| format!("{:.2}", f.last(i)))
        .collect();
    format!("{:.2}, {}", victim(f), contributors.join("/"))
}
