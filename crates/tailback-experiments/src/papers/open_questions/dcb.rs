//! `dcb-question`: the thesis's first open question. Data Center Bridging's congestion
//! notification (IEEE 802.1Qau, QCN) throttles like IB CC with "two notable differences that
//! could potentially improve the efficiency": the notification goes "directly from a switch
//! back to a contributing source", so "the feedback loop is shortened", and it carries "a
//! quantized feedback about congestion". "It would be interesting to study how these two
//! potential improvements ... actually play out in practice."
//!
//! Asked on the fabric the thesis studied (credits, buffered switches), so only the two
//! differences change: IB CC and QCN each in four cells, notifications forward (via the
//! destination) or backward (from the switch), feedback binary or quantized, all with their
//! notifications on a priority lane; and CC off. Beside them, not judged: QCN's binary
//! notification standing for other feedback values, and its timer read as 15 µs instead of the
//! standard's 15 ms.
//!
//! Three scenarios, each with an onset: the testbed's scenario 1 with the four contributors
//! starting together once the victim has run alone (`testbed`); Paper II's Type II network (the
//! same testbed) with the contributors joining one phase apart, the parking lot (`parking`);
//! Paper IV's silent forest on the 648-node tree with its hot sources starting after the
//! victims' traffic has settled (`forest`). The metrics are defined in `docs/validation.md`.

use std::collections::BTreeMap;

use tailback_core::config::Units;
use tailback_core::stats::{RunReport, jain_index};

use super::super::forests::{contributors_jain, with_cc};
use super::super::infiniband_cc::{CONTRIBUTORS, report, sd};
use super::SourceRuns;
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Context, Error, Job, Result};

/// Where the thesis asks the question.
const SEC_3_7: Source = Source::new(Paper::GranThesis, "Sec. 3.7 (Future Work), question 1");

/// Microseconds per series window: the metrics' 1 ms.
const WINDOW_US: f64 = 1000.0;

/// How long the victim must stay at 90 % of its pre-onset rate to count as recovered, and the
/// span before the onset its rate is measured over (µs).
const HOLD_US: f64 = 5000.0;

/// The share of the pre-onset rate that counts as recovered.
const RECOVERED: f64 = 0.9;

/// The testbed's victim flow (H1 to H4).
const VICTIM: (u32, u32) = (0, 3);

/// Hot-spot throughput may change by this much (%) for a difference to cost nothing.
const HOT_TOLERANCE: f64 = 5.0;

/// A scenario of the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scenario {
    /// The testbed's scenario 1, contributors starting together at the onset.
    Testbed,
    /// The testbed as Paper II's Type II network: contributors one phase apart.
    Parking,
    /// Paper IV's silent forest, hot sources starting at the onset.
    Forest,
}

/// Every scenario a grid may name: (id, name, scenario).
const SCENARIOS: [(&str, &str, Scenario); 3] = [
    (
        "testbed",
        "testbed scenario 1, four contributors starting together",
        Scenario::Testbed,
    ),
    (
        "parking",
        "parking lot (Paper II's Type II network), contributors one phase apart",
        Scenario::Parking,
    ),
    (
        "forest",
        "silent forest on the 648-node tree",
        Scenario::Forest,
    ),
];

/// A scenario's times (µs): the onset (the first overload), the last contributor's start
/// and the end of the run.
#[derive(Debug, Clone, Copy)]
struct Times {
    onset: f64,
    last_start: f64,
    end: f64,
}

impl Times {
    /// The span of the steady readings: the second half from the last start to the end.
    fn steady(&self) -> (f64, f64) {
        ((self.last_start + self.end) / 2.0, self.end)
    }
}

/// A scenario's times from the grid: `testbed_onset_us`/`testbed_end_us`, `parking_phase_us`
/// (the victim alone, then a contributor each phase: the second one is the onset),
/// `forest_onset_us`/`forest_end_us`.
fn times(grid: &Grid, scenario: Scenario) -> Result<Times> {
    let onset_and_end = |scenario: &str| -> Result<Times> {
        let onset: f64 = grid.param(&format!("{scenario}_onset_us"))?;
        Ok(Times {
            onset,
            last_start: onset,
            end: grid.param(&format!("{scenario}_end_us"))?,
        })
    };
    match scenario {
        Scenario::Testbed => onset_and_end("testbed"),
        Scenario::Parking => {
            let phase: f64 = grid.param("parking_phase_us")?;
            Ok(Times {
                onset: 2.0 * phase,
                last_start: 4.0 * phase,
                end: 5.0 * phase,
            })
        }
        Scenario::Forest => onset_and_end("forest"),
    }
}

/// The mechanism of a cell.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mechanism {
    Off,
    IbCc,
    Qcn,
}

/// A cell: the mechanism, where its notifications go, what they carry, and further settings.
struct Cell {
    id: &'static str,
    name: &'static str,
    mechanism: Mechanism,
    backward: bool,
    quantized: bool,
    extra: &'static [&'static str],
}

impl Cell {
    const fn new(
        id: &'static str,
        name: &'static str,
        mechanism: Mechanism,
        backward: bool,
        quantized: bool,
    ) -> Cell {
        Cell {
            id,
            name,
            mechanism,
            backward,
            quantized,
            extra: &[],
        }
    }

    /// Its congestion settings (IB CC's on the forest are Paper IV's).
    fn settings(&self, scenario: Scenario) -> Vec<String> {
        let mut settings = match (self.mechanism, scenario) {
            (Mechanism::Off, _) => return Vec::new(),
            (Mechanism::IbCc, Scenario::Forest) => with_cc(&[]),
            (Mechanism::IbCc, _) => vec!["congestion.mechanism=\"ib_cc\"".into()],
            (Mechanism::Qcn, _) => vec!["congestion.mechanism=\"qcn\"".into()],
        };
        let notification = if self.backward { "backward" } else { "forward" };
        let feedback = if self.quantized {
            "quantized"
        } else {
            "binary"
        };
        settings.extend([
            "congestion.cnp_vl=\"priority\"".to_string(),
            format!("congestion.notification=\"{notification}\""),
            format!("congestion.feedback=\"{feedback}\""),
        ]);
        settings.extend(self.extra.iter().map(|s| s.to_string()));
        settings
    }
}

/// The cells: CC off, the four of IB CC and of QCN, and QCN's readings beside them.
const CELLS: [Cell; 12] = [
    Cell::new("off", "CC off", Mechanism::Off, false, false),
    Cell::new(
        "ib-fwd-bin",
        "IB CC: forward, binary (IB CC's own)",
        Mechanism::IbCc,
        false,
        false,
    ),
    Cell::new(
        "ib-bwd-bin",
        "IB CC: backward, binary",
        Mechanism::IbCc,
        true,
        false,
    ),
    Cell::new(
        "ib-fwd-quant",
        "IB CC: forward, quantized",
        Mechanism::IbCc,
        false,
        true,
    ),
    Cell::new(
        "ib-bwd-quant",
        "IB CC: backward, quantized",
        Mechanism::IbCc,
        true,
        true,
    ),
    Cell::new(
        "qcn-fwd-bin",
        "QCN: forward, binary",
        Mechanism::Qcn,
        false,
        false,
    ),
    Cell::new(
        "qcn-bwd-bin",
        "QCN: backward, binary (as 32)",
        Mechanism::Qcn,
        true,
        false,
    ),
    Cell::new(
        "qcn-fwd-quant",
        "QCN: forward, quantized",
        Mechanism::Qcn,
        false,
        true,
    ),
    Cell::new(
        "qcn-bwd-quant",
        "QCN: backward, quantized (802.1Qau's own)",
        Mechanism::Qcn,
        true,
        true,
    ),
    Cell {
        extra: &["congestion.binary_feedback=16"],
        ..Cell::new(
            "qcn-bwd-bin16",
            "QCN: backward, binary as 16",
            Mechanism::Qcn,
            true,
            false,
        )
    },
    Cell {
        extra: &["congestion.binary_feedback=63"],
        ..Cell::new(
            "qcn-bwd-bin63",
            "QCN: backward, binary as 63",
            Mechanism::Qcn,
            true,
            false,
        )
    },
    Cell {
        extra: &["congestion.timer_ms=0.015"],
        ..Cell::new(
            "qcn-bwd-quant-t15us",
            "QCN: backward, quantized, timer 15 us",
            Mechanism::Qcn,
            true,
            true,
        )
    },
];

/// The cell `id`.
fn cell(id: &str) -> &'static Cell {
    CELLS
        .iter()
        .find(|c| c.id == id)
        .expect("the differences name cells of CELLS")
}

/// One difference of the question, within one mechanism: (id, name, the cell without it, the
/// cell with it). IB CC's start from IB CC's own cell (forward, binary), QCN's from the
/// standard's (backward, quantized), so each is the one difference from the mechanism as it is.
const DIFFERENCES: [(&str, &str, &str, &str); 4] = [
    (
        "ib-backward",
        "IB CC, binary: backward against forward",
        "ib-fwd-bin",
        "ib-bwd-bin",
    ),
    (
        "ib-quantized",
        "IB CC, forward: quantized against binary",
        "ib-fwd-bin",
        "ib-fwd-quant",
    ),
    (
        "qcn-backward",
        "QCN, quantized: backward against forward",
        "qcn-fwd-quant",
        "qcn-bwd-quant",
    ),
    (
        "qcn-quantized",
        "QCN, backward: quantized against binary",
        "qcn-bwd-bin",
        "qcn-bwd-quant",
    ),
];

/// The scenarios of the grid's `scenarios`.
fn scenarios(grid: &Grid) -> Result<Vec<(&'static str, &'static str, Scenario)>> {
    Ok(grid
        .pick("scenarios", &SCENARIOS, |s| s.0)?
        .into_iter()
        .copied()
        .collect())
}

/// The run of `cell` on `scenario` with `seed`.
fn run_id(scenario: &str, cell: &str, seed: u64) -> String {
    format!("{scenario}|{cell}|s{seed}")
}

/// The flows of the testbed scenarios: the victim from the start, the contributors at `starts`
/// (µs).
fn testbed_flows(starts: [f64; 4]) -> String {
    let mut flows = vec![format!(
        "{{ src = {}, dst = {}, start_us = 0 }}",
        VICTIM.0, VICTIM.1
    )];
    for ((src, dst), start) in CONTRIBUTORS.iter().zip(starts) {
        flows.push(format!(
            "{{ src = {src}, dst = {dst}, start_us = {start} }}"
        ));
    }
    format!("traffic.flows=[{}]", flows.join(", "))
}

/// The settings every run of `scenario` shares (times in the cycles of `units`): its traffic,
/// a run to its end with the measurement window over the steady span, 1 ms series, flows, two
/// lanes, and the Port VLs watched from the start.
fn scenario_settings(scenario: Scenario, t: Times, units: Units) -> Vec<String> {
    let (from, to) = t.steady();
    let cycles = |us: f64| units.cycles(us * 1000.0).round() as u64;
    let mut settings = vec![
        format!("sim.warmup_cycles={}", cycles(from)),
        format!("sim.measure_cycles={}", cycles(to - from)),
        "sim.drain_cycles_max=0".into(),
        format!("record.series_window={}", cycles(WINDOW_US)),
        "record.flows=true".into(),
        "record.congested_port_vls=true".into(),
        "record.port_vl_span=\"run\"".into(),
        "router.vcs=2".into(),
    ];
    match scenario {
        Scenario::Testbed => settings.push(testbed_flows([t.onset; 4])),
        Scenario::Parking => {
            let phase = t.onset / 2.0;
            settings.push(testbed_flows([1.0, 2.0, 3.0, 4.0].map(|k| k * phase)));
        }
        Scenario::Forest => {
            settings.push(format!("traffic.forest.hot_start_us={}", t.onset));
            settings.push("record.flow_totals_only=true".into());
        }
    }
    settings
}

/// Every cell of every scenario of the grid, per seed.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut jobs = Vec::new();
    for (id, _, scenario) in scenarios(grid)? {
        let t = times(grid, scenario)?;
        let (runs, off, on) = match scenario {
            Scenario::Forest => (
                SourceRuns::of("ib-silent", grid, &[])?,
                "forest-cc-off",
                "forest-cc-on",
            ),
            _ => (
                SourceRuns::of("ib-testbed-s1", grid, &[])?,
                "cc-off",
                "cc-off",
            ),
        };
        for &seed in &seeds {
            for cell in &CELLS {
                let base = runs.get(if cell.mechanism == Mechanism::IbCc {
                    on
                } else {
                    off
                })?;
                let units = base.config.fabric.units().ok_or_else(|| {
                    Error::Input(format!("{}: a run without fabric.link", base.id))
                })?;
                let mut all = scenario_settings(scenario, t, units);
                all.extend(cell.settings(scenario));
                all.push(format!("seed={seed}"));
                jobs.push(base.varied(run_id(id, cell.id, seed), &all)?);
            }
        }
    }
    Ok(jobs)
}

/// What one run shows.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// Milliseconds from the onset until the victims' rate first stays at 90 % of its
    /// pre-onset rate for 5 ms (censored at the latest start that could: then `recovered` is
    /// false).
    recovery_ms: f64,
    recovered: bool,
    /// Gbit/s over the steady span: the victim (per victim node on the forest) and the hot spot
    /// (per hot spot on the forest).
    victim: f64,
    hot: f64,
    /// Jain's index over the contributors' rates over the steady span.
    jain: f64,
    /// Mean over the contributors of the standard deviation of their 1 ms rates over the
    /// steady span, Gbit/s (NaN on the forest, whose flows keep no series).
    oscillation: f64,
    /// The most blocks queued at a Port VL over the run (at the tree's root), KB.
    peak_kb: f64,
}

impl Reading {
    fn of(report: &RunReport, scenario: Scenario, t: Times) -> Result<Reading> {
        let units = report
            .summary
            .units
            .ok_or_else(|| Error::Input("a run without link units".into()))?;
        let gbps = units.link_gbps;
        let index = |us: f64| (us / WINDOW_US).round() as usize;
        let (steady_from, steady_to) = t.steady();
        let steady = index(steady_from)..index(steady_to);
        let (victims, contributors): (Vec<f64>, Vec<Vec<f64>>) = match scenario {
            Scenario::Forest => (forest_victims(report, gbps)?, Vec::new()),
            _ => {
                let flow = |pair: (u32, u32)| -> Vec<f64> {
                    report
                        .flows
                        .iter()
                        .find(|f| (f.src, f.dst) == pair)
                        .map(|f| f.windows.iter().map(|r| r * gbps).collect())
                        .unwrap_or_default()
                };
                (
                    flow(VICTIM),
                    CONTRIBUTORS.iter().map(|&c| flow(c)).collect(),
                )
            }
        };
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
        let span = |xs: &[f64], r: std::ops::Range<usize>| -> Vec<f64> {
            (r.start..r.end)
                .map(|i| xs.get(i).copied().unwrap_or(0.0))
                .collect()
        };
        let (recovery_ms, recovered) = recovery(&victims, index(t.onset), index(t.end));
        let victim = mean(&span(&victims, steady.clone()));
        let (hot, jain, oscillation) = match scenario {
            Scenario::Forest => {
                let hot: Vec<f64> = report
                    .series
                    .iter()
                    .map(|r| r.delivered_hot.unwrap_or(0.0) * gbps)
                    .collect();
                (
                    mean(&span(&hot, steady.clone())),
                    contributors_jain(report),
                    f64::NAN,
                )
            }
            _ => {
                let rates: Vec<Vec<f64>> = contributors
                    .iter()
                    .map(|c| span(c, steady.clone()))
                    .collect();
                let means: Vec<f64> = rates.iter().map(|r| mean(r)).collect();
                let oscillation =
                    rates.iter().map(|r| sd(r)).sum::<f64>() / rates.len().max(1) as f64;
                let jain = jain_index(&means).unwrap_or(f64::NAN);
                (means.iter().sum(), jain, oscillation)
            }
        };
        let pool_kb = 64.0 * 1000.0 / 1024.0;
        let peak_kb = report
            .port_vl_map
            .as_ref()
            .map_or(0.0, |m| m.loads.iter().map(|l| l.peak).fold(0.0, f64::max))
            * pool_kb;
        Ok(Reading {
            recovery_ms,
            recovered,
            victim,
            hot,
            jain,
            oscillation,
            peak_kb,
        })
    }
}

/// The forest's victims, per node that is not a hot spot, Gbit/s in each 1 ms window.
fn forest_victims(report: &RunReport, gbps: f64) -> Result<Vec<f64>> {
    let nodes = report.accepted_per_node.len() as f64;
    let hot = report.hot_nodes.len() as f64;
    if hot == 0.0 || hot >= nodes {
        return Err(Error::Input("a forest run without hot spots".into()));
    }
    Ok(report
        .series
        .iter()
        .map(|r| {
            let all = r.delivered * nodes;
            let to_hot = r.delivered_hot.unwrap_or(0.0) * hot;
            (all - to_hot) / (nodes - hot) * gbps
        })
        .collect())
}

/// Milliseconds from window `onset` until `rates` first stay at [`RECOVERED`] of their mean
/// over the [`HOLD_US`] before it for [`HOLD_US`], and whether they did before window `end`
/// (if not: the latest start that could still have held, a lower bound).
fn recovery(rates: &[f64], onset: usize, end: usize) -> (f64, bool) {
    let hold = (HOLD_US / WINDOW_US).round() as usize;
    let before = &rates[onset.saturating_sub(hold).min(rates.len())..onset.min(rates.len())];
    let floor = RECOVERED * before.iter().sum::<f64>() / before.len().max(1) as f64;
    let end = end.min(rates.len());
    let last = end.saturating_sub(hold).max(onset);
    let found =
        (onset..=last).find(|&k| k + hold <= end && rates[k..k + hold].iter().all(|&r| r >= floor));
    let ms = |k: usize| (k - onset) as f64 * WINDOW_US / 1000.0;
    match found {
        Some(k) => (ms(k), true),
        None => (ms(last), false),
    }
}

/// A claim that a difference helps: what `what` measures is higher without the difference than
/// with it, per seed.
fn lower_claim(id: String, what: String, stated: &'static str) -> Claim {
    Claim::new(
        id,
        what,
        SEC_3_7,
        Rule::Order {
            higher: "without it",
            lower: "with it",
        },
    )
    .stated(stated)
}

/// The thesis's expectations, fixed before the first run, per scenario and difference: the
/// difference makes the victims recover sooner, and keeps the hot spot's throughput within 5 %;
/// backward notification keeps the root's peak queue lower (the shorter loop reacts before it
/// grows); quantized feedback makes the contributors' rates oscillate less (not on the forest,
/// whose flows keep no series).
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for (id, name, scenario) in scenarios(grid)? {
        for (diff, what, _, _) in DIFFERENCES {
            claims.claim(
                lower_claim(
                    format!("{id}-{diff}-recovery"),
                    format!("{name}, {what}: time until the victims recover"),
                    "the feedback loop is shortened ... could potentially improve the efficiency",
                )
                .shown(1, " ms"),
            );
            if diff.ends_with("backward") {
                claims.claim(
                    lower_claim(
                        format!("{id}-{diff}-peak"),
                        format!("{name}, {what}: the root's peak queue"),
                        "the feedback loop is shortened",
                    )
                    .shown(0, " KB"),
                );
            } else if scenario != Scenario::Forest {
                claims.claim(
                    lower_claim(
                        format!("{id}-{diff}-oscillation"),
                        format!(
                            "{name}, {what}: the contributors' oscillation (SD of their 1 ms \
                             rates)"
                        ),
                        "a quantized feedback about congestion ... the severity of congestion",
                    )
                    .shown(2, " Gbit/s"),
                );
            }
            claims.claim(
                Claim::new(
                    format!("{id}-{diff}-hot"),
                    format!("{name}, {what}: change in the hot spot's throughput"),
                    SEC_3_7,
                    Rule::Zero {
                        within: HOT_TOLERANCE,
                        failing: 2.0 * HOT_TOLERANCE,
                    },
                )
                .shown(1, " %")
                .stated("could potentially improve the efficiency"),
            );
        }
    }
    Ok(claims)
}

/// The columns of the table: (heading, width, decimals, value).
type Column = (&'static str, usize, usize, fn(&Reading) -> f64);

const COLUMNS: [Column; 6] = [
    ("recovery ms", 12, 1, |r| r.recovery_ms),
    ("victim", 9, 2, |r| r.victim),
    ("hot", 9, 2, |r| r.hot),
    ("Jain", 8, 3, |r| r.jain),
    ("oscill.", 9, 2, |r| r.oscillation),
    ("peak KB", 10, 0, |r| r.peak_kb),
];

/// Runs every cell; tabulates the metrics per scenario and cell (means over the seeds), and
/// measures each difference on the paired seeds.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    let mut found = Findings::default();
    let mut text = format!(
        "Recovery (ms from the onset until the victims stay at 90 % of their pre-onset rate for \
         5 ms; > : not within the run), victim and hot spot (Gbit/s, per node on the forest), \
         Jain's index over the contributors, their oscillation (Gbit/s) and the root's peak \
         queue (KB); steady readings over the second half after the last start; mean of {} \
         seeds\n",
        seeds.len()
    );
    let mut csv = String::from(
        "scenario,cell,seed,recovery_ms,recovered,victim_gbps,hot_gbps,jain,oscillation_gbps,peak_kb\n",
    );
    for (id, name, scenario) in scenarios(grid)? {
        let t = times(grid, scenario)?;
        text.push_str(&format!("\n{name}\n{:<44}", "cell"));
        for (heading, width, _, _) in COLUMNS {
            text.push_str(&format!("{heading:>width$}"));
        }
        text.push('\n');
        let mut by_cell: BTreeMap<&str, Vec<Reading>> = BTreeMap::new();
        for cell in &CELLS {
            let mut readings = Vec::new();
            for &seed in &seeds {
                let r = Reading::of(report(&reports, &run_id(id, cell.id, seed))?, scenario, t)?;
                csv.push_str(&format!(
                    "{id},{},{seed},{:.1},{},{:.4},{:.4},{:.4},{:.4},{:.1}\n",
                    cell.id,
                    r.recovery_ms,
                    r.recovered,
                    r.victim,
                    r.hot,
                    r.jain,
                    r.oscillation,
                    r.peak_kb
                ));
                readings.push(r);
            }
            let censored = if readings.iter().all(|r| r.recovered) {
                ' '
            } else {
                '>'
            };
            text.push_str(&format!("{:<44}", cell.name));
            for (i, (_, width, decimals, f)) in COLUMNS.into_iter().enumerate() {
                let mean = readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64;
                let value = format!("{mean:.decimals$}");
                if i == 0 {
                    text.push_str(&format!("{:>width$}", format!("{censored}{value}")));
                } else {
                    text.push_str(&format!("{value:>width$}"));
                }
            }
            text.push('\n');
            by_cell.insert(cell.id, readings);
        }
        let paired = |without: &str, with: &str, f: fn(&Reading) -> f64| -> Ours {
            Ours::Paired(
                by_cell[without]
                    .iter()
                    .zip(&by_cell[with])
                    .map(|(a, b)| (f(a), f(b)))
                    .collect(),
            )
        };
        for (diff, _, without, with) in DIFFERENCES {
            found.set(
                format!("{id}-{diff}-recovery"),
                paired(without, with, |r| r.recovery_ms),
            );
            if diff.ends_with("backward") {
                found.set(
                    format!("{id}-{diff}-peak"),
                    paired(without, with, |r| r.peak_kb),
                );
            } else if scenario != Scenario::Forest {
                found.set(
                    format!("{id}-{diff}-oscillation"),
                    paired(without, with, |r| r.oscillation),
                );
            }
            let changes: Vec<f64> = by_cell[without]
                .iter()
                .zip(&by_cell[with])
                .map(|(a, b)| 100.0 * (b.hot - a.hot) / a.hot.max(1e-9))
                .collect();
            found.set(format!("{id}-{diff}-hot"), Ours::Seeds(changes));
        }
        // The readings of QCN's binary notification and timer beside the standard's: shown.
        for (reading, home) in [
            ("qcn-bwd-bin16", "qcn-bwd-bin"),
            ("qcn-bwd-bin63", "qcn-bwd-bin"),
            ("qcn-bwd-quant-t15us", "qcn-bwd-quant"),
        ] {
            for (what, f) in [
                (
                    "recovery (ms)",
                    (|r: &Reading| r.recovery_ms) as fn(&Reading) -> f64,
                ),
                ("victim (Gbit/s)", |r: &Reading| r.victim),
                ("hot spot (Gbit/s)", |r: &Reading| r.hot),
            ] {
                let diffs: Vec<f64> = by_cell[reading]
                    .iter()
                    .zip(&by_cell[home])
                    .map(|(a, b)| f(a) - f(b))
                    .collect();
                found.info(
                    format!(
                        "{name}: {what}, {} minus {} (per-seed paired, 95 % interval)",
                        cell(reading).name,
                        cell(home).name
                    ),
                    "-",
                    Spread::of(&diffs).value(2),
                );
            }
        }
    }
    print!("{text}");
    for (name, body) in [("dcb.txt", &text), ("dcb.csv", &csv)] {
        let path = ctx.write_text(name, body)?;
        found.files.push(path);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_is_the_first_window_that_holds_ninety_percent_for_five_ms() {
        // 5 windows at 10 before the onset (window 5), a dip, a spike that does not hold,
        // then 9.5 from window 10 on.
        let mut rates = vec![10.0; 5];
        rates.extend([1.0, 2.0, 9.0, 3.0, 4.0]);
        rates.extend([9.5; 8]);
        assert_eq!(recovery(&rates, 5, rates.len()), (5.0, true));
        // Cut short before the hold ends: not recovered, censored at the latest start.
        assert_eq!(recovery(&rates, 5, 13), (3.0, false));
        // No dip at all: recovered at once.
        assert_eq!(recovery(&[10.0; 12], 5, 12), (0.0, true));
    }
}
