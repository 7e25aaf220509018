//! E. G. Gran, "Congestion Management in Lossless Interconnection Networks" (PhD thesis,
//! University of Oslo, 2013), with congestion control off: the testbed scenarios of Paper III
//! (Gran et al., IPDPS 2010; simulated as in Paper I), the Type I and Type II networks of Paper
//! II, and its parking-lot analysis of a 4-ary 3-tree.
//!
//! Jobs: built here from `experiments/infiniband/base.toml` (and `alltoone-tree.toml`) with the
//! flows of each scenario, starting one phase (`phase_us`; 1 s, or 50 ms with `--quick`) apart.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;

use crate::grid::{Folder, Grid};
use crate::{Comparison, Context, Error, Experiment, Findings, Job, Result};

pub(super) static FOLDER: Folder = Folder {
    path: "experiments/infiniband",
    files: &[
        (
            "grids.toml",
            include_str!("../../../../experiments/infiniband/grids.toml"),
        ),
        (
            "base.toml",
            include_str!("../../../../experiments/infiniband/base.toml"),
        ),
        (
            "alltoone-tree.toml",
            include_str!("../../../../experiments/infiniband/alltoone-tree.toml"),
        ),
        (
            "forest.toml",
            include_str!("../../../../experiments/infiniband/forest.toml"),
        ),
    ],
};

/// The topology files of the experiments (name, text).
const TOPOLOGIES: [(&str, &str); 3] = [
    (
        "ib-testbed",
        include_str!("../../../../experiments/topologies/ib-testbed.topo"),
    ),
    (
        "ib-type1",
        include_str!("../../../../experiments/topologies/ib-type1.topo"),
    ),
    (
        "ccfit-config1",
        include_str!("../../../../experiments/topologies/ccfit-config1.topo"),
    ),
];

/// A scenario: its network, link rate and flows (source, destination, start phase), host
/// indices from 0 (H1 is node 0).
pub(super) struct Scenario {
    pub(super) topology: &'static str,
    pub(super) link: &'static str,
    pub(super) flows: &'static [(u32, u32, u32)],
}

/// Paper III scenario 1 and Paper II Type II: the victim H1 → H4, then H2, H3 (through the
/// switch link), H6 and H7 (local to S2) towards H5, one per phase.
pub(super) const SCENARIO_1: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 1), (2, 4, 2), (5, 4, 3), (6, 4, 4)],
};

/// Paper III scenario 2: three flows across the switch link to three different hosts.
pub(super) const SCENARIO_2: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 1), (2, 5, 2)],
};

/// Paper II Type I: one switch, equal links; H1 → H4, then H2, H3, H6, H7 towards H5.
pub(super) const TYPE_1: Scenario = Scenario {
    topology: "ib-type1",
    link: "ddr",
    flows: &[(0, 3, 0), (1, 4, 1), (2, 4, 2), (5, 4, 3), (6, 4, 4)],
};

/// The experiments of this thesis with congestion control off.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            name: "ib-testbed-s1-nocc",
            title: "InfiniBand testbed, scenario 1, CC off: the victim flow and the parking lot at the hot host's link",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 1; Gran's thesis Paper I, Figs. 7-8",
            folder: &FOLDER,
            jobs: |grid| scenario_jobs(grid, &SCENARIO_1),
            claims: crate::claim::undeclared,
            run: testbed_s1,
        },
        Experiment {
            name: "ib-testbed-s2-nocc",
            title: "InfiniBand testbed, scenario 2, CC off: three flows sharing the QDR link between the switches",
            source: "Gran et al., IPDPS 2010 (Paper III), scenario 2, Table II",
            folder: &FOLDER,
            jobs: |grid| scenario_jobs(grid, &SCENARIO_2),
            claims: crate::claim::undeclared,
            run: testbed_s2,
        },
        Experiment {
            name: "ib-type1-nocc",
            title: "Type I network (one switch), CC off: round robin shares the hot host's link equally among its inputs",
            source: "Gran et al., Paper II of Gran's thesis, Fig. 3",
            folder: &FOLDER,
            jobs: |grid| scenario_jobs(grid, &TYPE_1),
            claims: crate::claim::undeclared,
            run: type1,
        },
        Experiment {
            name: "ib-type2-nocc",
            title: "Type II network (two switches, double-rate link), CC off: the parking lot and the victim's head-of-line blocking",
            source: "Gran et al., Paper II of Gran's thesis, Fig. 9",
            folder: &FOLDER,
            jobs: |grid| scenario_jobs(grid, &SCENARIO_1),
            claims: crate::claim::undeclared,
            run: type2,
        },
        Experiment {
            name: "ib-alltoone-tree",
            title: "All-to-one on a 4-ary 3-tree with destination-mod-k routing, CC off: each source's share of the sink",
            source: "Gran et al., Paper II of Gran's thesis, Sec. 3.6 (parking-lot analysis, Fig. 10)",
            folder: &FOLDER,
            jobs: |grid| Ok(vec![grid.job("all-to-one".into(), &[])?]),
            claims: crate::claim::undeclared,
            run: all_to_one,
        },
    ]
}

/// The path of an embedded topology file, written once to the system's temporary directory
/// (named by its content, so concurrent runs and resumed ones agree on it).
pub(super) fn topology_file(name: &str) -> Result<String> {
    let (_, text) = TOPOLOGIES
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| Error::Input(format!("no embedded topology `{name}`")))?;
    let digest = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let dir = std::env::temp_dir().join("tailback-topologies");
    let path = dir.join(format!("{name}-{digest:016x}.topo"));
    if !path.is_file() {
        std::fs::create_dir_all(&dir).map_err(anyhow::Error::from)?;
        let partial = dir.join(format!("{name}-{digest:016x}.{}.part", std::process::id()));
        std::fs::write(&partial, text).map_err(anyhow::Error::from)?;
        std::fs::rename(&partial, &path).map_err(anyhow::Error::from)?;
    }
    Ok(path.display().to_string())
}

/// The single job of a scenario: its flows, one phase apart, for as many phases as flows.
fn scenario_jobs(grid: &Grid, scenario: &Scenario) -> Result<Vec<Job>> {
    Ok(vec![scenario_job(grid, scenario, "flows", &[])?])
}

/// The job `id` of a scenario with `settings` (`key=value`) added: its flows, one phase apart,
/// for as many phases as flows.
pub(super) fn scenario_job(
    grid: &Grid,
    scenario: &Scenario,
    id: &str,
    settings: &[String],
) -> Result<Job> {
    let phase: f64 = grid.param("phase_us")?;
    let window: f64 = grid.param("window_us")?;
    let flows: Vec<String> = scenario
        .flows
        .iter()
        .map(|&(src, dst, start)| {
            format!(
                "{{ src = {src}, dst = {dst}, start_us = {} }}",
                f64::from(start) * phase
            )
        })
        .collect();
    let phases = scenario.flows.iter().map(|f| f.2).max().unwrap_or(0) + 1;
    let mut extra = vec![
        format!("topology.file={:?}", topology_file(scenario.topology)?),
        format!("fabric.link={:?}", scenario.link),
        format!("traffic.flows=[{}]", flows.join(", ")),
        format!("sim.measure_us={}", f64::from(phases) * phase),
        format!("record.series_window_us={window}"),
    ];
    extra.extend_from_slice(settings);
    grid.job(id.into(), &extra)
}

/// Per-flow mean throughput in each phase (the second half of it, after the flows settle).
pub(super) struct Phases<'a> {
    report: &'a RunReport,
    windows_per_phase: usize,
}

impl<'a> Phases<'a> {
    pub(super) fn new(report: &'a RunReport, grid: &Grid) -> Result<Phases<'a>> {
        let phase: f64 = grid.param("phase_us")?;
        let window: f64 = grid.param("window_us")?;
        Ok(Phases {
            report,
            windows_per_phase: (phase / window).round() as usize,
        })
    }

    /// Flow `src` → `dst`'s mean Gbit/s over the second half of phase `phase` (0 if it
    /// delivered nothing).
    pub(super) fn gbps(&self, flow: (u32, u32), phase: u32) -> f64 {
        let samples = self.samples(flow, phase);
        if samples.is_empty() {
            return 0.0;
        }
        samples.iter().sum::<f64>() / samples.len() as f64
    }

    /// The flow's Gbit/s in the first `windows` windows of phase `phase`.
    pub(super) fn phase_samples(&self, flow: (u32, u32), phase: u32, windows: usize) -> Vec<f64> {
        let first = phase as usize * self.windows_per_phase;
        self.window_range(flow, first, first + windows.min(self.windows_per_phase))
    }

    /// The flow's Gbit/s in each window of phase `phase`'s second half.
    pub(super) fn samples(&self, (src, dst): (u32, u32), phase: u32) -> Vec<f64> {
        let first = phase as usize * self.windows_per_phase + self.windows_per_phase / 2;
        let last = (phase as usize + 1) * self.windows_per_phase;
        self.window_range((src, dst), first, last)
    }

    /// The flow's Gbit/s in windows `first..last`.
    fn window_range(&self, (src, dst): (u32, u32), first: usize, last: usize) -> Vec<f64> {
        let link = self.report.summary.units.map_or(1.0, |u| u.link_gbps);
        self.report
            .flows
            .iter()
            .find(|f| (f.src, f.dst) == (src, dst))
            .and_then(|f| f.windows.get(first..last.min(f.windows.len())))
            .unwrap_or(&[])
            .iter()
            .map(|r| r * link)
            .collect()
    }
}

/// Runs a scenario's job, plots its flows and returns the report.
fn run_scenario(ctx: &Context, jobs: &[Job], files: &mut Vec<PathBuf>) -> Result<RunReport> {
    let mut reports = run_scenarios(ctx, jobs, files)?;
    reports
        .remove("flows")
        .ok_or_else(|| Error::Input("the scenario's run is missing".into()))
}

/// Runs scenario jobs, plots the flows of each (files prefixed by the job's id, unless it is
/// `flows`) and returns the reports by job id.
pub(super) fn run_scenarios(
    ctx: &Context,
    jobs: &[Job],
    files: &mut Vec<PathBuf>,
) -> Result<BTreeMap<String, RunReport>> {
    let reports: BTreeMap<String, RunReport> = ctx.run(jobs)?;
    for job in jobs {
        let Some(report) = reports.get(&job.id) else {
            continue;
        };
        let prefix = if job.id == "flows" {
            String::new()
        } else {
            format!("{}-", job.id)
        };
        files.extend(crate::files::flows_and_port_vls(
            ctx.out(),
            &prefix,
            &job.id,
            job.config.record.series_window,
            report,
            job.config.fabric.units(),
        )?);
    }
    Ok(reports)
}

/// A host's name (H1 for node 0).
pub(super) fn host(node: u32) -> String {
    format!("H{}", node + 1)
}

fn testbed_s1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let report = run_scenario(ctx, jobs, &mut files)?;
    let p = Phases::new(&report, grid)?;
    let f = |i: usize| (SCENARIO_1.flows[i].0, SCENARIO_1.flows[i].1);
    let gbit = (2, " Gbit/s");
    let mut comparisons = vec![Comparison::numbers(
        "s1-f1-alone",
        "F1 (H1 -> H4) alone",
        13.0,
        p.gbps(f(0), 0),
        0.05,
        gbit,
    )];
    for i in 0..3 {
        let ours = p.gbps(f(i), 2);
        comparisons.push(
            Comparison::judged(
                format!("F{} with F1-F3 on", i + 1),
                "just under 7 Gbit/s",
                format!("{ours:.2} Gbit/s"),
                (6.0..7.0).contains(&ours),
                ">= 6 and < 7 Gbit/s",
            )
            .identified(&format!("s1-three-f{}", i + 1), Some(7.0), Some(ours)),
        );
    }
    for (i, paper) in [(0, 2.0), (1, 2.0), (2, 2.0), (3, 4.5), (4, 4.5)] {
        comparisons.push(Comparison::numbers(
            &format!("s1-five-f{}", i + 1),
            format!("F{} with all five on", i + 1),
            paper,
            p.gbps(f(i), 4),
            0.15,
            gbit,
        ));
    }
    comparisons.extend(sink_shares(&p, "s1", 4));
    Ok(Findings::legacy(comparisons, files))
}

/// The shares of H5's link with all four contributors on (Paper III Fig. 8, Paper II Fig. 9):
/// a third each for H6 and H7, a sixth each for H2 and H3, within 0.03.
pub(super) fn sink_shares(p: &Phases, prefix: &str, phase: u32) -> Vec<Comparison> {
    let contributors = [(1, 4), (2, 4), (5, 4), (6, 4)];
    let total: f64 = contributors.iter().map(|&c| p.gbps(c, phase)).sum();
    contributors
        .iter()
        .zip([1.0 / 6.0, 1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0])
        .map(|(&(src, dst), paper)| {
            let ours = p.gbps((src, dst), phase) / total;
            Comparison::judged(
                format!("{}'s share of H5's link", host(src)),
                format!("{paper:.3}"),
                format!("{ours:.3}"),
                (ours - paper).abs() <= 0.03,
                "within ±0.03 of the paper's",
            )
            .identified(
                &format!("{prefix}-share-{}", host(src).to_lowercase()),
                Some(paper),
                Some(ours),
            )
        })
        .collect()
}

fn testbed_s2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let report = run_scenario(ctx, jobs, &mut files)?;
    let p = Phases::new(&report, grid)?;
    let mut comparisons = Vec::new();
    let mut samples = Vec::new();
    for (i, &(src, dst, _)) in SCENARIO_2.flows.iter().enumerate() {
        comparisons.push(Comparison::numbers(
            &format!("s2-f{}", i + 1),
            format!(
                "F{} ({} -> {}) with all three on, mean",
                i + 1,
                host(src),
                host(dst)
            ),
            10.42764,
            p.gbps((src, dst), 2),
            0.03,
            (2, " Gbit/s"),
        ));
        samples.extend(p.samples((src, dst), 2));
    }
    if !samples.is_empty() {
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let sd = (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let (min, max) = samples
            .iter()
            .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        let window: f64 = grid.param("window_us")?;
        for (id, what, paper, ours) in [
            ("s2-sd", "standard deviation", 0.04203, sd),
            ("s2-min", "minimum", 9.83157, min),
            ("s2-max", "maximum", 11.07606, max),
        ] {
            comparisons.push(
                Comparison::info(
                    format!("{what} of the three flows' {window} µs samples"),
                    format!("{paper:.3} Gbit/s (hardware report intervals)"),
                    format!("{ours:.3} Gbit/s"),
                )
                .identified(id, Some(paper), Some(ours)),
            );
        }
    }
    Ok(Findings::legacy(comparisons, files))
}

fn type1(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let report = run_scenario(ctx, jobs, &mut files)?;
    let p = Phases::new(&report, grid)?;
    let gbit = (2, " Gbit/s");
    let mut comparisons = Vec::new();
    for phase in 0..5 {
        comparisons.push(Comparison::numbers(
            &format!("t1-h1-phase{phase}"),
            format!("H1 -> H4 in phase {phase}"),
            13.0,
            p.gbps((0, 3), phase),
            0.02,
            gbit,
        ));
    }
    // A lone contributor runs at its injection cap (13 Gbit/s); with n > 1 each gets 1/n of
    // the sink, 13.1 Gbit/s (the receive cap).
    for phase in 1..5 {
        let active = &TYPE_1.flows[1..=phase as usize];
        for &(src, dst, _) in active {
            let n = active.len();
            comparisons.push(Comparison::numbers(
                &format!("t1-{}-of-{n}", host(src).to_lowercase()),
                format!("{} with {n} contributor(s)", host(src)),
                if n == 1 { 13.0 } else { 13.1 / n as f64 },
                p.gbps((src, dst), phase),
                0.02,
                gbit,
            ));
        }
    }
    Ok(Findings::legacy(comparisons, files))
}

fn type2(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let mut files = Vec::new();
    let report = run_scenario(ctx, jobs, &mut files)?;
    let p = Phases::new(&report, grid)?;
    let mut comparisons = sink_shares(&p, "t2", 4);
    // Between 3 s and 4 s H6 alone gets as much as H2 and H3 together.
    let h6 = p.gbps((5, 4), 3);
    let h2_h3 = p.gbps((1, 4), 3) + p.gbps((2, 4), 3);
    comparisons.push(
        Comparison::judged(
            "H6 against H2 + H3 with three contributors",
            "equal",
            format!("{h6:.2} vs {h2_h3:.2} Gbit/s"),
            (h6 / h2_h3 - 1.0).abs() <= 0.05,
            "H6 within ±5 % of H2 + H3",
        )
        .identified("t2-h6-vs-h2h3", Some(1.0), Some(h6 / h2_h3)),
    );
    // The victim is blocked behind the contributors at S1 although it never uses H5's link.
    let victim = p.gbps((0, 3), 4);
    comparisons.push(
        Comparison::judged(
            "H1 -> H4 with four contributors (head-of-line blocked)",
            "far below 13 Gbit/s",
            format!("{victim:.2} Gbit/s"),
            victim < 6.5,
            "< 6.5 Gbit/s (half of 13)",
        )
        .identified("t2-victim", None, Some(victim)),
    );
    Ok(Findings::legacy(comparisons, files))
}

fn all_to_one(ctx: &Context, _: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let report = reports
        .values()
        .next()
        .ok_or_else(|| Error::Input("the all-to-one run is missing".into()))?;
    let to_sink: Vec<_> = report.flows.iter().filter(|f| f.dst == 0).collect();
    let total: f64 = to_sink.iter().map(|f| f.accepted).sum();
    let mut comparisons = Vec::new();
    // Sources 1-3 share the sink's switch, 4-15 its level-2 group, 16-63 the rest.
    for (id, what, range, ideal) in [
        (
            "tree-level1",
            "each of the 3 sources on the sink's switch",
            1..4,
            1.0 / 4.0,
        ),
        (
            "tree-level2",
            "each of the 12 sources one level up",
            4..16,
            1.0 / 64.0,
        ),
        (
            "tree-level3",
            "each of the 48 farthest sources",
            16..64,
            1.0 / 768.0,
        ),
    ] {
        let shares: Vec<f64> = to_sink
            .iter()
            .filter(|f| range.contains(&f.src))
            .map(|f| f.accepted / total)
            .collect();
        let worst = shares
            .iter()
            .map(|s| (s / ideal - 1.0).abs())
            .fold(0.0_f64, f64::max);
        let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
        comparisons.push(
            Comparison::judged(
                format!("share of the sink's link, {what}"),
                format!("1/{:.0}", 1.0 / ideal),
                format!(
                    "1/{:.1} (mean; worst source {:.1}% off)",
                    1.0 / mean,
                    100.0 * worst
                ),
                worst <= 0.05,
                "every source's share within ±5 % of the paper's",
            )
            .identified(id, Some(ideal), Some(mean)),
        );
    }
    Ok(Findings::legacy(comparisons, Vec::new()))
}
