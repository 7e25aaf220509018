//! Paper V's Config #1, Case #1 (Figs. 7a and 9; R10's fairness): on the two switches, the
//! victim F0 (node 0 -> 3) runs all along at 100 % of its link while contributors towards
//! node 4 join one per phase: F1 and F2 from the first switch (through the link between the
//! switches, like the victim), then F5 and F6, local to the second switch. Paper V lists the
//! last one as "F5 on [6, 10] ms" twice; F6 from the fourth phase is our reading [A].

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;
use tailback_plot::{Point, Series, YScale};

use super::{SCHEMES, Scheme, mean};
use crate::grid::Grid;
use crate::{Comparison, Context, Error, Job, Outcome, Result};

/// The victim, and the contributors in the order they join (phases 1 to 4).
const VICTIM: (u32, u32) = (0, 3);
const CONTRIBUTORS: [(u32, u32); 4] = [(1, 4), (2, 4), (5, 4), (6, 4)];
/// The phases: the victim alone, then one more contributor in each.
const PHASES: u32 = 5;
/// Contributors within this fraction of an equal share count as fair (R10).
const FAIR: f64 = 0.15;

fn id(scheme: &str, seed: u64) -> String {
    format!("{scheme}-s{seed}")
}

pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let phase: f64 = grid.param("phase_us")?;
    let window: f64 = grid.param("window_us")?;
    let flows: Vec<String> = std::iter::once(VICTIM)
        .chain(CONTRIBUTORS)
        .enumerate()
        .map(|(i, (src, dst))| {
            format!(
                "{{ src = {src}, dst = {dst}, start_us = {} }}",
                i as f64 * phase
            )
        })
        .collect();
    let topology = super::super::infiniband::topology_file("ccfit-config1")?;
    let mut jobs = Vec::new();
    for scheme in &SCHEMES {
        for seed in grid.param::<Vec<u64>>("seeds")? {
            let mut settings = vec![
                format!("topology.file={topology:?}"),
                format!("traffic.flows=[{}]", flows.join(", ")),
                format!("sim.measure_us={}", f64::from(PHASES) * phase),
                format!("record.series_window_us={window}"),
                format!("seed={seed}"),
            ];
            settings.extend(scheme.settings());
            jobs.push(grid.job(id(scheme.id, seed), &settings)?);
        }
    }
    Ok(jobs)
}

/// One scheme's flows, GB/s, mean over its seeds.
struct Flows {
    /// Per flow (victim first, then the contributors): GB/s per window.
    windows: Vec<Vec<f64>>,
    windows_per_phase: usize,
}

impl Flows {
    fn of(runs: &[&RunReport], windows_per_phase: usize) -> Result<Flows> {
        let mut windows: Vec<Vec<f64>> = Vec::new();
        for flow in std::iter::once(VICTIM).chain(CONTRIBUTORS) {
            let mut per_run = Vec::new();
            for report in runs {
                let gbyte = report.summary.units.map_or(1.0, |u| u.link_gbps / 8.0);
                let stats = report
                    .flows
                    .iter()
                    .find(|f| (f.src, f.dst) == flow)
                    .map(|f| f.windows.iter().map(|w| w * gbyte).collect::<Vec<_>>())
                    .unwrap_or_default();
                per_run.push(stats);
            }
            let len = per_run.iter().map(Vec::len).max().unwrap_or(0);
            let value = |run: &Vec<f64>, i: usize| run.get(i).copied().unwrap_or(0.0);
            windows.push(
                (0..len)
                    .map(|i| mean(&per_run.iter().map(|r| value(r, i)).collect::<Vec<_>>()))
                    .collect(),
            );
        }
        if windows[0].is_empty() {
            return Err(Error::Input("a run without per-flow throughput".into()));
        }
        Ok(Flows {
            windows,
            windows_per_phase,
        })
    }

    /// Flow `i`'s mean GB/s over the second half of phase `phase`.
    fn phase(&self, i: usize, phase: u32) -> f64 {
        let w = self.windows_per_phase;
        let first = phase as usize * w + w / 2;
        let last = ((phase as usize + 1) * w).min(self.windows[i].len());
        mean(&self.windows[i][first.min(last)..last])
    }

    /// The victim in the last phase.
    fn victim(&self) -> f64 {
        self.phase(0, PHASES - 1)
    }

    /// The contributors in the last phase.
    fn contributors(&self) -> [f64; 4] {
        [1, 2, 3, 4].map(|i| self.phase(i, PHASES - 1))
    }

    /// The largest relative distance of a contributor from an equal share of what they get.
    fn unfairness(&self) -> f64 {
        let c = self.contributors();
        let fair = mean(&c);
        c.iter().map(|x| (x / fair - 1.0).abs()).fold(0.0, f64::max)
    }

    /// Local contributors (F5, F6) over the ones through the switch link (F1, F2).
    fn parking_lot(&self) -> f64 {
        let c = self.contributors();
        (c[2] + c[3]) / (c[0] + c[1]).max(1e-9)
    }

    /// All flows together in phase `phase`, GB/s.
    fn total(&self, phase: u32) -> f64 {
        (0..self.windows.len()).map(|i| self.phase(i, phase)).sum()
    }
}

pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Outcome> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    let phase: f64 = grid.param("phase_us")?;
    let window: f64 = grid.param("window_us")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let per_phase = (phase / window).round() as usize;
    let mut by_scheme = BTreeMap::new();
    for scheme in &SCHEMES {
        let runs = seeds
            .iter()
            .map(|&seed| {
                let name = id(scheme.id, seed);
                reports
                    .get(&name)
                    .ok_or_else(|| Error::Input(format!("the run `{name}` is missing")))
            })
            .collect::<Result<Vec<_>>>()?;
        by_scheme.insert(scheme.id, Flows::of(&runs, per_phase)?);
    }
    let comparisons = judge(&by_scheme);
    let mut files = Vec::new();
    let mut table = String::from("scheme,phase,flow,gbyte_per_s\n");
    for scheme in &SCHEMES {
        let flows = &by_scheme[scheme.id];
        for p in 0..PHASES {
            for (i, (src, dst)) in std::iter::once(VICTIM).chain(CONTRIBUTORS).enumerate() {
                table.push_str(&format!(
                    "{},{p},{src}->{dst},{:.4}\n",
                    scheme.id,
                    flows.phase(i, p)
                ));
            }
        }
        files.extend(plot_flows(ctx, scheme, flows, window)?);
    }
    let path = ctx.out().join("fairness.csv");
    std::fs::write(&path, table).map_err(anyhow::Error::from)?;
    files.push(path);
    files.extend(plot_totals(ctx, &by_scheme, window)?);
    Ok(Outcome { comparisons, files })
}

/// Paper V's claims on Case #1.
fn judge(by: &BTreeMap<&str, Flows>) -> Vec<Comparison> {
    let (q1, ith, fbicm, ccfit) = (&by["1q"], &by["ith"], &by["fbicm"], &by["ccfit"]);
    let gb = |x: f64| format!("{x:.2} GB/s");
    let fair = |f: &Flows| {
        format!(
            "contributors {}, furthest {:.0} % from equal",
            f.contributors()
                .iter()
                .map(|x| format!("{x:.2}"))
                .collect::<Vec<_>>()
                .join("/"),
            100.0 * f.unfairness()
        )
    };
    vec![
        Comparison::new(
            "1Q, all five flows on: the victim is head-of-line blocked (below half of 2.5 GB/s)",
            "victim cut",
            gb(q1.victim()),
            Some(q1.victim() < 1.25),
        )
        .identified("case1-1q-victim", None, Some(q1.victim())),
        Comparison::new(
            "1Q: parking lot (local contributors F5, F6 over F1, F2 through the switch link)",
            "local contributors get more (>= 1.5x)",
            format!("{:.2}x", q1.parking_lot()),
            Some(q1.parking_lot() >= 1.5),
        )
        .identified("case1-1q-parking-lot", None, Some(q1.parking_lot())),
        Comparison::new(
            "ITh: the victim improves over 1Q",
            "victim improves",
            format!("{} (1Q {})", gb(ith.victim()), gb(q1.victim())),
            Some(ith.victim() > q1.victim()),
        )
        .identified("case1-ith-victim", None, Some(ith.victim())),
        Comparison::new(
            format!(
                "ITh: parking lot solved (contributors within {:.0} % of equal)",
                100.0 * FAIR
            ),
            "solved",
            fair(ith),
            Some(ith.unfairness() <= FAIR),
        )
        .identified("case1-ith-fair", None, Some(ith.unfairness())),
        Comparison::new(
            "FBICM: the victim improves even more than with ITh",
            "victim >= ITh's",
            format!("{} (ITh {})", gb(fbicm.victim()), gb(ith.victim())),
            Some(fbicm.victim() >= ith.victim() - 0.05),
        )
        .identified("case1-fbicm-victim", None, Some(fbicm.victim())),
        Comparison::new(
            "FBICM: the parking lot remains (at least as unequal as with 1Q)",
            "remains, worse",
            format!("{:.2}x (1Q {:.2}x)", fbicm.parking_lot(), q1.parking_lot()),
            Some(fbicm.parking_lot() >= q1.parking_lot() - 0.05),
        )
        .identified("case1-fbicm-parking-lot", None, Some(fbicm.parking_lot())),
        Comparison::new(
            format!("CCFIT: contributors within {:.0} % of equal", 100.0 * FAIR),
            "fair",
            fair(ccfit),
            Some(ccfit.unfairness() <= FAIR),
        )
        .identified("case1-ccfit-fair", None, Some(ccfit.unfairness())),
        {
            let last = PHASES - 1;
            let managed = [ith.total(last), fbicm.total(last), ccfit.total(last)];
            let best = managed.iter().copied().fold(0.0, f64::max);
            let worst = managed.iter().copied().fold(f64::INFINITY, f64::min);
            Comparison::new(
                "all flows together, last phase: ITh, FBICM and CCFIT end up similar (within \
                 15 % of the best), 1Q below them",
                "similar; 1Q suffers (Fig. 7a)",
                format!(
                    "ITh {}, FBICM {}, CCFIT {}, 1Q {}",
                    gb(managed[0]),
                    gb(managed[1]),
                    gb(managed[2]),
                    gb(q1.total(last))
                ),
                Some(worst >= 0.85 * best && q1.total(last) < worst),
            )
            .identified("case1-end-similar", None, Some(worst / best))
        },
        Comparison::new(
            "CCFIT: the victim keeps its link's rate (at least 90 % of 2.5 GB/s), as with FBICM",
            "victim freed (isolation)",
            format!("{} (FBICM {})", gb(ccfit.victim()), gb(fbicm.victim())),
            Some(ccfit.victim() >= 0.9 * 2.5),
        )
        .identified("case1-ccfit-victim", None, Some(ccfit.victim())),
        Comparison::new(
            "ITh dips while F0, F1 and F2 share the switch link (phase 2: all flows together, \
             below FBICM's)",
            "dip during [4, 6] ms",
            format!("{} (FBICM {})", gb(ith.total(2)), gb(fbicm.total(2))),
            Some(ith.total(2) < fbicm.total(2)),
        )
        .identified("case1-ith-dip", None, Some(ith.total(2) / fbicm.total(2))),
    ]
}

/// Fig. 9 for one scheme: each flow's bandwidth against time.
fn plot_flows(ctx: &Context, scheme: &Scheme, flows: &Flows, window: f64) -> Result<Vec<PathBuf>> {
    let series: Vec<Series> = std::iter::once(VICTIM)
        .chain(CONTRIBUTORS)
        .enumerate()
        .map(|(i, (src, dst))| line(&format!("{src} -> {dst}"), &flows.windows[i], window))
        .collect();
    Ok(tailback_plot::lines(
        &ctx.out().join(format!("fairness-{}", scheme.id)),
        &format!("Config #1, Case #1, {}: flow bandwidth", scheme.name),
        "time (ms)",
        "GB/s",
        &series,
        YScale::Linear,
    )?)
}

/// Fig. 7a: every scheme's total delivered bandwidth against time.
fn plot_totals(ctx: &Context, by: &BTreeMap<&str, Flows>, window: f64) -> Result<Vec<PathBuf>> {
    let series: Vec<Series> = SCHEMES
        .iter()
        .map(|scheme| {
            let flows = &by[scheme.id];
            let len = flows.windows.iter().map(Vec::len).min().unwrap_or(0);
            let total: Vec<f64> = (0..len)
                .map(|i| flows.windows.iter().map(|w| w[i]).sum())
                .collect();
            line(scheme.name, &total, window)
        })
        .collect();
    Ok(tailback_plot::lines(
        &ctx.out().join("fairness-total"),
        "Config #1, Case #1: delivered bandwidth of all flows",
        "time (ms)",
        "GB/s",
        &series,
        YScale::Linear,
    )?)
}

/// A line through one value per window.
fn line(label: &str, values: &[f64], window: f64) -> Series {
    Series {
        label: label.into(),
        points: values
            .iter()
            .enumerate()
            .map(|(i, &y)| Point {
                x: (i as f64 + 1.0) * window / 1000.0,
                y,
                marked: false,
            })
            .collect(),
        saturation: None,
    }
}
