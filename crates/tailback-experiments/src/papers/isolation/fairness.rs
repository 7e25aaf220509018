//! Paper V's Config #1, Case #1 (Figs. 7a and 9; R10's fairness): on the two switches, the
//! victim F0 (node 0 -> 3) runs all along at 100 % of its link while contributors towards
//! node 4 join one per phase: F1 and F2 from the first switch (through the link between the
//! switches, like the victim), then F5 and F6, local to the second switch. Paper V lists the
//! last one as "F5 on [6, 10] ms" twice; F6 from the fourth phase is our reading [A].

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;

use super::phased::{Case, FlowRates};
use crate::grid::Grid;
use crate::{Comparison, Context, Findings, Job, Result};

/// The victim first, then the contributors in the order they join.
const CASE_1: Case = Case {
    id: "case1",
    title: "Config #1, Case #1",
    joining: &[(0, 3), (1, 4), (2, 4), (5, 4), (6, 4)],
    uniform: &[],
};

/// The contributors' indices in [`CASE_1`]: through the switch link, then local.
const CONTRIBUTORS: [usize; 4] = [1, 2, 3, 4];

/// Contributors within this fraction of an equal share count as fair (R10).
const FAIR: f64 = 0.15;

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let topology = super::super::infiniband::topology_file("ccfit-config1")?;
    CASE_1.jobs(grid, Some(&topology))
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let by_scheme = CASE_1.rates(grid, &reports)?;
    let comparisons = judge(&by_scheme);
    let files = CASE_1.files(ctx, &by_scheme, grid.param("window_us")?)?;
    Ok(Findings::legacy(comparisons, files))
}

/// The victim in the last phase.
fn victim(f: &FlowRates) -> f64 {
    f.last(0)
}

/// Local contributors (F5, F6) over the ones through the switch link (F1, F2).
fn parking_lot(f: &FlowRates) -> f64 {
    (f.last(3) + f.last(4)) / (f.last(1) + f.last(2)).max(1e-9)
}

/// The contributors in the last phase, and how far the furthest is from an equal share.
fn shares(f: &FlowRates) -> String {
    format!(
        "contributors {}, furthest {:.0} % from equal",
        CONTRIBUTORS
            .iter()
            .map(|&i| format!("{:.2}", f.last(i)))
            .collect::<Vec<_>>()
            .join("/"),
        100.0 * f.unfairness(&CONTRIBUTORS)
    )
}

/// "2.41 ± 0.03 GB/s" of `value` over `rates`' seeds (without the note on the seeds).
fn gb(rates: &FlowRates, value: impl Fn(&FlowRates) -> f64) -> String {
    format!("{} GB/s", rates.over_seeds(value).value(2))
}

/// Paper V's claims on Case #1.
fn judge(by: &BTreeMap<&str, FlowRates>) -> Vec<Comparison> {
    let (q1, ith, fbicm, ccfit) = (&by["1q"], &by["ith"], &by["fbicm"], &by["ccfit"]);
    let last = CASE_1.phases() - 1;
    let total = |phase: u32| move |f: &FlowRates| f.total(phase);
    let managed = [ith.total(last), fbicm.total(last), ccfit.total(last)];
    let best = managed.iter().copied().fold(0.0, f64::max);
    let worst = managed.iter().copied().fold(f64::INFINITY, f64::min);
    // The victims and the totals are means over the seeds, printed with their spread.
    let victim_over_seeds = |f: &FlowRates| f.over_seeds(victim);
    let note = victim_over_seeds(q1).note();
    let victim_line = |main: &FlowRates, other: (&str, &FlowRates)| {
        format!(
            "{} ({} {}) {note}",
            gb(main, victim),
            other.0,
            gb(other.1, victim)
        )
    };
    let fair_rule = format!(
        "each contributor within ±{:.0} % of the contributors' mean rate, last phase",
        100.0 * FAIR
    );
    vec![
        Comparison::judged(
            "1Q, all five flows on: the victim is head-of-line blocked (below half of 2.5 GB/s)",
            "victim cut",
            victim_over_seeds(q1).describe(2, " GB/s"),
            victim(q1) < 1.25,
            "victim < 1.25 GB/s (half of 2.5), last phase",
        )
        .identified("case1-1q-victim", None, Some(victim(q1)))
        .over_seeds(&victim_over_seeds(q1)),
        Comparison::judged(
            "1Q: parking lot (local contributors F5, F6 over F1, F2 through the switch link)",
            "local contributors get more (>= 1.5x)",
            format!("{:.2}x", parking_lot(q1)),
            parking_lot(q1) >= 1.5,
            "(F5 + F6) / (F1 + F2) >= 1.5, last phase",
        )
        .identified("case1-1q-parking-lot", None, Some(parking_lot(q1))),
        Comparison::judged(
            "ITh: the victim improves over 1Q",
            "victim improves",
            victim_line(ith, ("1Q", q1)),
            victim(ith) > victim(q1),
            "ITh's victim > 1Q's, last phase",
        )
        .identified("case1-ith-victim", None, Some(victim(ith)))
        .over_seeds(&victim_over_seeds(ith)),
        Comparison::judged(
            format!(
                "ITh: parking lot solved (contributors within {:.0} % of equal)",
                100.0 * FAIR
            ),
            "solved",
            shares(ith),
            ith.unfairness(&CONTRIBUTORS) <= FAIR,
            fair_rule.clone(),
        )
        .identified("case1-ith-fair", None, Some(ith.unfairness(&CONTRIBUTORS))),
        Comparison::judged(
            "FBICM: the victim improves even more than with ITh",
            "victim >= ITh's",
            victim_line(fbicm, ("ITh", ith)),
            victim(fbicm) >= victim(ith) - 0.05,
            "FBICM's victim >= ITh's - 0.05 GB/s, last phase",
        )
        .identified("case1-fbicm-victim", None, Some(victim(fbicm)))
        .over_seeds(&victim_over_seeds(fbicm)),
        Comparison::judged(
            "FBICM: the parking lot remains (at least as unequal as with 1Q)",
            "remains, worse",
            format!("{:.2}x (1Q {:.2}x)", parking_lot(fbicm), parking_lot(q1)),
            parking_lot(fbicm) >= parking_lot(q1) - 0.05,
            "FBICM's (F5 + F6) / (F1 + F2) >= 1Q's - 0.05, last phase",
        )
        .identified("case1-fbicm-parking-lot", None, Some(parking_lot(fbicm))),
        Comparison::judged(
            format!("CCFIT: contributors within {:.0} % of equal", 100.0 * FAIR),
            "fair",
            shares(ccfit),
            ccfit.unfairness(&CONTRIBUTORS) <= FAIR,
            fair_rule,
        )
        .identified(
            "case1-ccfit-fair",
            None,
            Some(ccfit.unfairness(&CONTRIBUTORS)),
        ),
        Comparison::judged(
            "CCFIT: the victim keeps its link's rate (at least 90 % of 2.5 GB/s), as with FBICM",
            "victim freed (isolation)",
            victim_line(ccfit, ("FBICM", fbicm)),
            victim(ccfit) >= 0.9 * 2.5,
            "CCFIT's victim >= 2.25 GB/s (90 % of 2.5), last phase",
        )
        .identified("case1-ccfit-victim", None, Some(victim(ccfit)))
        .over_seeds(&victim_over_seeds(ccfit)),
        Comparison::judged(
            "all flows together, last phase: ITh, FBICM and CCFIT end up similar (within 15 % \
             of the best), 1Q below them",
            "similar; 1Q suffers (Fig. 7a)",
            format!(
                "ITh {}, FBICM {}, CCFIT {}, 1Q {} {note}",
                gb(ith, total(last)),
                gb(fbicm, total(last)),
                gb(ccfit, total(last)),
                gb(q1, total(last))
            ),
            worst >= 0.85 * best && q1.total(last) < worst,
            "total of the joining flows, last phase: the lowest of ITh, FBICM and CCFIT >= 85 % \
             of the highest, and 1Q's < the lowest",
        )
        .identified("case1-end-similar", None, Some(worst / best)),
        Comparison::judged(
            "ITh dips while F0, F1 and F2 share the switch link (phase 2: all flows together, \
             below FBICM's)",
            "dip during [4, 6] ms",
            format!(
                "{} (FBICM {}) {note}",
                gb(ith, total(2)),
                gb(fbicm, total(2))
            ),
            ith.total(2) < fbicm.total(2),
            "total of the joining flows in phase 2 (second half): ITh's < FBICM's",
        )
        .identified("case1-ith-dip", None, Some(ith.total(2) / fbicm.total(2))),
    ]
}
