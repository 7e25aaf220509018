//! Paper VI's synthetic patterns (R11): normalised throughput against time on 4-ary 3-, 4- and
//! 5-trees for patterns #1-#3 (Fig. 7), the input ports without a free hot-packet queue
//! (Supplement Fig. 10), and the average gains of Table 3 — EcoCC's on VOQ switches and
//! CCFIT's on single-read-port switches, where Paper V's schemes stand for the other columns
//! (1Q for 1VL, ITh for IB-ITh, FBICM for HFDI). "Average gain" is not defined [A]: here the
//! ratio of mean normalised throughputs over the hot window, minus one.

use std::collections::BTreeMap;

use tailback_core::stats::RunReport;
use tailback_plot::YScale;

use super::super::infiniband_cc::report;
use super::super::isolation::Scheme;
use super::super::isolation::{self, line, mean, plot_throughput};
use super::SCHEMES;
use super::patterns::{Split, flows, roles};
use crate::grid::Grid;
use crate::spread::Spread;
use crate::{Comparison, Context, Findings, Job, Result};

/// The gauge of input pools whose hot-packet queues are all claimed.
const NO_FREE_HPQ: &str = "pools_without_free_cfq";

/// Nodes of a 4-ary tree of `levels` levels.
fn nodes(levels: u32) -> u32 {
    4u32.pow(levels)
}

/// The run of `scheme` on `levels` levels under `pattern`, `split` and `seed`.
fn run_id(split: Split, levels: u32, pattern: u32, scheme: &str, seed: u64) -> String {
    format!("{}-n{levels}-p{pattern}-{scheme}-s{seed}", split.id())
}

/// The hot window and the length of the runs, from the grid (µs).
struct Timing {
    start: f64,
    stop: f64,
    end: f64,
    window: f64,
}

impl Timing {
    fn read(grid: &Grid) -> Result<Timing> {
        Ok(Timing {
            start: grid.param("hot_start_us")?,
            stop: grid.param("hot_stop_us")?,
            end: grid.param("end_us")?,
            window: grid.param("window_us")?,
        })
    }

    /// The series windows of the hot window.
    fn judged(&self) -> std::ops::Range<usize> {
        (self.start / self.window).round() as usize..(self.stop / self.window).round() as usize
    }
}

/// The job of `settings` (a scheme's) on `levels` levels under `pattern`, `split` and `seed`.
fn job(
    grid: &Grid,
    timing: &Timing,
    (split, levels, pattern, seed): (Split, u32, u32, u64),
    id: String,
    settings: Vec<String>,
) -> Result<Job> {
    let roles = roles(nodes(levels), pattern, seed);
    let mut all = vec![
        format!("topology.n={levels}"),
        flows(nodes(levels), &roles, split, timing.start, timing.stop),
        format!("sim.measure_us={}", timing.end),
        "sim.drain_max_us=0".to_string(),
        format!("record.series_window_us={}", timing.window),
        format!("seed={seed}"),
    ];
    all.extend(settings);
    grid.job(id, &all)
}

pub(super) fn fig7_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let timing = Timing::read(grid)?;
    let split: Split = grid.param("split")?;
    let mut jobs = Vec::new();
    for levels in grid.param::<Vec<u32>>("sizes")? {
        for pattern in grid.param::<Vec<u32>>("patterns")? {
            for scheme in &SCHEMES {
                for seed in grid.param::<Vec<u64>>("seeds")? {
                    let id = run_id(split, levels, pattern, scheme.id, seed);
                    let case = (split, levels, pattern, seed);
                    jobs.push(job(grid, &timing, case, id, scheme.settings())?);
                }
            }
        }
    }
    let ((levels, pattern), readings) = sensitivity(grid)?;
    for (reading, settings) in readings {
        for scheme in SCHEMES.iter().filter(|s| READ_SCHEMES.contains(&s.id)) {
            for seed in grid.param::<Vec<u64>>("seeds")? {
                let id = run_id(
                    split,
                    levels,
                    pattern,
                    &format!("{}-{reading}", scheme.id),
                    seed,
                );
                let mut all = scheme.settings();
                all.extend(settings.iter().cloned());
                jobs.push(job(grid, &timing, (split, levels, pattern, seed), id, all)?);
            }
        }
    }
    Ok(jobs)
}

/// The schemes the readings of Fig. 7 are run for.
const READ_SCHEMES: [&str; 2] = ["hfdi", "ecocc"];

/// A reading of what Paper VI leaves open: its name and settings.
type Reading = (String, Vec<String>);

/// The size and pattern the readings are run on, and the readings.
fn sensitivity(grid: &Grid) -> Result<((u32, u32), Vec<Reading>)> {
    Ok((grid.param("sensitivity")?, grid.param("readings")?))
}

/// One scheme's runs of one case, over its seeds.
struct Curve {
    /// Normalised throughput per window, mean over the seeds.
    windows: Vec<f64>,
    /// Mean normalised throughput over the hot window, per seed.
    judged: Vec<f64>,
    /// Input pools without a free hot-packet queue per window, mean over the seeds (empty
    /// for schemes without them).
    exhausted: Vec<f64>,
}

impl Curve {
    /// The runs `ids` of `reports`, judged over the windows `judged`.
    fn of(
        reports: &BTreeMap<String, RunReport>,
        ids: &[String],
        judged: std::ops::Range<usize>,
    ) -> Result<Curve> {
        let runs = ids
            .iter()
            .map(|id| report(reports, id))
            .collect::<Result<Vec<_>>>()?;
        let per_window = |value: &dyn Fn(&tailback_core::stats::SeriesRow) -> Option<f64>| {
            let len = runs.iter().map(|r| r.series.len()).min().unwrap_or(0);
            (0..len)
                .map_while(|i| {
                    let values: Option<Vec<f64>> =
                        runs.iter().map(|r| value(&r.series[i])).collect();
                    values.map(|v| mean(&v))
                })
                .collect::<Vec<f64>>()
        };
        let judged = runs
            .iter()
            .map(|r| {
                let delivered: Vec<f64> = r.series.iter().map(|row| row.delivered).collect();
                mean(&delivered[judged.start.min(delivered.len())..judged.end.min(delivered.len())])
            })
            .collect();
        Ok(Curve {
            windows: per_window(&|row| Some(row.delivered)),
            judged,
            exhausted: per_window(&|row| row.gauges.get(NO_FREE_HPQ)),
        })
    }

    /// Mean normalised throughput over the hot window, over the seeds.
    fn judged(&self) -> Spread {
        Spread::of(&self.judged)
    }
}

/// The name of scheme `id` (of Paper VI, or of Paper V for the single-read-port switch).
fn scheme_name(id: &str) -> &str {
    SCHEMES
        .iter()
        .chain(isolation::SCHEMES.iter())
        .find(|s| s.id == id)
        .map_or(id, |s| s.name)
}

pub(super) fn fig7(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let timing = Timing::read(grid)?;
    let split: Split = grid.param("split")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut comparisons = Vec::new();
    let mut files = Vec::new();
    let mut table = String::from("levels,pattern,scheme,seed,judged_throughput\n");
    let mut series_csv =
        String::from("levels,pattern,scheme,time_us,throughput,pools_without_free_hpq\n");
    for levels in grid.param::<Vec<u32>>("sizes")? {
        let mut exhaustion = Vec::new();
        for pattern in grid.param::<Vec<u32>>("patterns")? {
            let mut curves = BTreeMap::new();
            for scheme in &SCHEMES {
                let ids: Vec<String> = seeds
                    .iter()
                    .map(|&s| run_id(split, levels, pattern, scheme.id, s))
                    .collect();
                let curve = Curve::of(&reports, &ids, timing.judged())?;
                for (seed, value) in seeds.iter().zip(&curve.judged) {
                    table.push_str(&format!(
                        "{levels},{pattern},{},{seed},{value:.4}\n",
                        scheme.id
                    ));
                }
                for (i, w) in curve.windows.iter().enumerate() {
                    let exhausted = curve
                        .exhausted
                        .get(i)
                        .map_or(String::new(), |e| format!("{e:.2}"));
                    series_csv.push_str(&format!(
                        "{levels},{pattern},{},{},{w:.4},{exhausted}\n",
                        scheme.id,
                        (i as f64 + 1.0) * timing.window
                    ));
                }
                curves.insert(scheme.id, curve);
            }
            comparisons.extend(judge_fig7(levels, pattern, &curves, timing.judged()));
            files.extend(plot_throughput(
                ctx,
                &format!("fig7-n{levels}-p{pattern}"),
                &format!(
                    "4-ary {levels}-tree ({} nodes), pattern #{pattern}: normalised throughput",
                    nodes(levels)
                ),
                SCHEMES.iter().map(|s| (s.name, &curves[s.id].windows[..])),
                timing.window,
            )?);
            for id in ["hfdi", "ecocc"] {
                let name = SCHEMES.iter().find(|s| s.id == id).map_or(id, |s| s.name);
                exhaustion.push(line(
                    &format!("{name}, pattern #{pattern}"),
                    &curves[id].exhausted,
                    timing.window,
                ));
            }
        }
        files.extend(tailback_plot::lines(
            &ctx.out().join(format!("hpqs-n{levels}")),
            &format!(
                "4-ary {levels}-tree ({} nodes): input ports without a free hot-packet queue",
                nodes(levels)
            ),
            "time (ms)",
            "input ports",
            &exhaustion,
            YScale::Linear,
        )?);
    }
    let ((levels, pattern), readings) = sensitivity(grid)?;
    for (reading, settings) in readings {
        let mut values = Vec::new();
        for scheme in READ_SCHEMES {
            let ids: Vec<String> = seeds
                .iter()
                .map(|&s| run_id(split, levels, pattern, &format!("{scheme}-{reading}"), s))
                .collect();
            let curve = Curve::of(&reports, &ids, timing.judged())?;
            for (seed, value) in seeds.iter().zip(&curve.judged) {
                table.push_str(&format!(
                    "{levels},{pattern},{scheme}-{reading},{seed},{value:.4}\n"
                ));
            }
            let before = timing.judged().start;
            let exhausted = mean(&curve.exhausted[..before.min(curve.exhausted.len())]);
            values.push((curve.judged(), exhausted));
        }
        let (hfdi, ecocc): (&(Spread, f64), &(Spread, f64)) = (&values[0], &values[1]);
        comparisons.push(
            Comparison::info(
                format!(
                    "{} nodes, pattern #{pattern}, HFDI / EcoCC with `{}`: mean normalised \
                     throughput in the hot window (ports without a free HPQ before it)",
                    nodes(levels),
                    settings.join(", ")
                ),
                "(sensitivity; Paper VI: HTh 4 packets, no credit test)",
                format!(
                    "{} ({:.1}) / {} ({:.1}) {}",
                    hfdi.0.value(3),
                    hfdi.1,
                    ecocc.0.value(3),
                    ecocc.1,
                    hfdi.0.note()
                ),
            )
            .identified(&format!("fig7-{reading}"), None, Some(hfdi.0.mean))
            .over_seeds(&hfdi.0),
        );
    }
    for (name, text) in [("fig7.csv", table), ("fig7-series.csv", series_csv)] {
        let path = ctx.out().join(name);
        std::fs::write(&path, text).map_err(anyhow::Error::from)?;
        files.push(path);
    }
    Ok(Findings::legacy(comparisons, files))
}

/// Paper VI's claims for one size and pattern.
fn judge_fig7(
    levels: u32,
    pattern: u32,
    curves: &BTreeMap<&str, Curve>,
    judged: std::ops::Range<usize>,
) -> Vec<Comparison> {
    let spread = |id: &str| curves[id].judged();
    let at = |id: &str| spread(id).mean;
    let (vl1, ith, hfdi, ecocc, voqnet) =
        (at("1vl"), at("ith"), at("hfdi"), at("ecocc"), at("voqnet"));
    let listed = format!(
        "VOQnet {}, EcoCC {}, HFDI {}, IB-ITh {}, 1VL {} {}",
        spread("voqnet").value(3),
        spread("ecocc").value(3),
        spread("hfdi").value(3),
        spread("ith").value(3),
        spread("1vl").value(3),
        spread("ecocc").note()
    );
    let case = format!("{} nodes, pattern #{pattern}", nodes(levels));
    let what =
        |claim: &str| format!("{case}, mean normalised throughput in the hot window: {claim}");
    let id = |name: &str| format!("fig7-n{levels}-p{pattern}-{name}");
    let mut out = Vec::new();
    if pattern == 1 {
        let close = |x: f64| (x / voqnet - 1.0).abs() <= 0.10;
        out.push(
            Comparison::judged(
                what("EcoCC ~ HFDI ~ VOQnet (within 10 % of VOQnet)"),
                "EcoCC ~ HFDI ~ VOQnet",
                listed.clone(),
                close(ecocc) && close(hfdi),
                "EcoCC and HFDI each within ±10 % of VOQnet",
            )
            .identified(&id("isolation"), None, Some(ecocc / voqnet)),
        );
        out.push(
            Comparison::judged(
                what("IB-ITh below EcoCC and HFDI, above 1VL"),
                "EcoCC ~ HFDI >> IB-ITh > 1VL",
                listed,
                ith < ecocc.min(hfdi) && ith > vl1,
                "IB-ITh < EcoCC, IB-ITh < HFDI, and IB-ITh > 1VL",
            )
            .identified(&id("order"), None, Some(ith))
            .over_seeds(&spread("ith")),
        );
    } else {
        out.push(
            Comparison::judged(
                what("EcoCC above HFDI and IB-ITh, 1VL lowest"),
                "EcoCC >> HFDI; IB-ITh poor; 1VL worst",
                listed,
                ecocc > hfdi && ecocc > ith && vl1 < ith.min(hfdi).min(ecocc),
                "EcoCC > HFDI and EcoCC > IB-ITh, and 1VL < IB-ITh, HFDI and EcoCC",
            )
            .identified(&id("order"), None, Some(ecocc))
            .over_seeds(&spread("ecocc")),
        );
        let exhausted = |id: &str| {
            let e = &curves[id].exhausted;
            mean(&e[judged.start.min(e.len())..judged.end.min(e.len())])
        };
        let (e_hfdi, e_ecocc) = (exhausted("hfdi"), exhausted("ecocc"));
        out.push(
            Comparison::judged(
                format!(
                    "{case}: input ports without a free hot-packet queue, mean over the hot \
                     window (Supplement Fig. 10)"
                ),
                "HFDI many, EcoCC far fewer",
                format!("HFDI {e_hfdi:.1}, EcoCC {e_ecocc:.1}"),
                e_ecocc < e_hfdi,
                "EcoCC < HFDI",
            )
            .identified(&id("hpqs"), None, Some(e_ecocc)),
        );
    }
    out
}

/// Pattern #2, the pattern of Table 3.
const TABLE3_PATTERN: u32 = 2;

/// The single-read-port switch of Table 3's CCFIT column (iSLIP, one iteration).
const SINGLE_PORT: [&str; 2] = ["fabric.read_ports=1", "fabric.islip_iterations=1"];

/// Table 3's columns: the scheme whose gain is given, on its switch, and the schemes in the
/// rows (1VL, IB-ITh, HFDI, VOQnet) on the same switch.
struct Column {
    /// The scheme and switch, in run ids.
    id: &'static str,
    /// The gaining scheme's id, and the ids standing for the rows.
    gaining: &'static str,
    rows: [&'static str; 4],
    /// Paper VI's gains (%) over the rows on configurations #1 and #2.
    paper: [[f64; 4]; 2],
}

const COLUMNS: [Column; 2] = [
    Column {
        id: "voq",
        gaining: "ecocc",
        rows: ["1vl", "ith", "hfdi", "voqnet"],
        paper: [[58.0, 55.0, 29.0, 0.0], [83.0, 75.0, 43.0, 0.0]],
    },
    Column {
        id: "single",
        gaining: "ccfit",
        rows: ["1q", "ith", "fbicm", "voqnet"],
        paper: [[67.0, 46.0, 10.0, -8.0], [60.0, 51.0, 20.0, -33.0]],
    },
];

/// Table 3's row names.
const ROWS: [&str; 4] = ["1VL", "IB-ITh", "HFDI", "VOQnet"];

/// The schemes of `column`, with their settings.
fn column_schemes(column: &Column) -> Vec<(&'static str, Vec<String>)> {
    let own = |scheme: &Scheme| (scheme.id, scheme.settings());
    if column.id == "voq" {
        return SCHEMES.iter().map(own).collect();
    }
    isolation::SCHEMES
        .iter()
        .map(|s| {
            let mut settings = s.settings();
            settings.extend(SINGLE_PORT.iter().map(|x| x.to_string()));
            (s.id, settings)
        })
        .collect()
}

/// The run of `scheme` on `column`'s switch.
fn table3_id(split: Split, levels: u32, column: &Column, scheme: &str, seed: u64) -> String {
    run_id(
        split,
        levels,
        TABLE3_PATTERN,
        &format!("{}-{scheme}", column.id),
        seed,
    )
}

pub(super) fn table3_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let timing = Timing::read(grid)?;
    let mut jobs = Vec::new();
    for split in grid.param::<Vec<Split>>("splits")? {
        for levels in grid.param::<Vec<u32>>("sizes")? {
            for column in &COLUMNS {
                for (scheme, settings) in column_schemes(column) {
                    for seed in grid.param::<Vec<u64>>("seeds")? {
                        let id = table3_id(split, levels, column, scheme, seed);
                        let case = (split, levels, TABLE3_PATTERN, seed);
                        jobs.push(job(grid, &timing, case, id, settings.clone())?);
                    }
                }
            }
        }
    }
    Ok(jobs)
}

pub(super) fn table3(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let reports = ctx.run(jobs)?;
    let timing = Timing::read(grid)?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut comparisons = Vec::new();
    let mut table = String::from("split,levels,switch,scheme,seed,judged_throughput\n");
    let mut gains = String::from("split,levels,gaining,over,paper_percent,ours_percent\n");
    for split in grid.param::<Vec<Split>>("splits")? {
        for levels in grid.param::<Vec<u32>>("sizes")? {
            let conf = if levels == 3 { 0 } else { 1 };
            for column in &COLUMNS {
                let mut judged = BTreeMap::new();
                for (scheme, _) in column_schemes(column) {
                    let ids: Vec<String> = seeds
                        .iter()
                        .map(|&s| table3_id(split, levels, column, scheme, s))
                        .collect();
                    let curve = Curve::of(&reports, &ids, timing.judged())?;
                    for (seed, value) in seeds.iter().zip(&curve.judged) {
                        table.push_str(&format!(
                            "{},{levels},{},{scheme},{seed},{value:.4}\n",
                            split.id(),
                            column.id
                        ));
                    }
                    judged.insert(scheme, curve.judged());
                }
                let mean_of = |scheme: &str| judged[scheme].mean;
                let gaining = mean_of(column.gaining);
                let name = if column.gaining == "ecocc" {
                    "EcoCC"
                } else {
                    "CCFIT"
                };
                for (i, row) in column.rows.iter().enumerate() {
                    let ours = 100.0 * (gaining / mean_of(row) - 1.0);
                    let paper = column.paper[conf][i];
                    gains.push_str(&format!(
                        "{},{levels},{},{row},{paper},{ours:.1}\n",
                        split.id(),
                        column.gaining
                    ));
                    comparisons.push(
                        Comparison::judged(
                            format!(
                                "{} nodes, pattern #2 ({} hot sources): {name}'s average gain \
                                 over {} (within 15 points)",
                                nodes(levels),
                                split.id().replace('_', " "),
                                ROWS[i]
                            ),
                            format!("{paper:+.0} %"),
                            format!("{ours:+.1} %"),
                            (ours - paper).abs() <= 15.0,
                            "within ±15 percentage points of the paper's",
                        )
                        .identified(
                            &format!(
                                "table3-{}-n{levels}-{}-over-{row}",
                                split.id(),
                                column.gaining
                            ),
                            Some(paper),
                            Some(ours),
                        ),
                    );
                }
                let ranked: Vec<&str> = column.rows[..3]
                    .iter()
                    .copied()
                    .chain([column.gaining])
                    .collect();
                let order: Vec<f64> = ranked.iter().map(|r| mean_of(r)).collect();
                let rule = format!(
                    "strictly rising: {}",
                    ranked
                        .iter()
                        .map(|r| scheme_name(r))
                        .collect::<Vec<_>>()
                        .join(" < ")
                );
                comparisons.push(
                    Comparison::judged(
                        format!(
                            "{} nodes, pattern #2 ({} hot sources), {} switch: mean normalised \
                             throughput rises 1VL < IB-ITh < HFDI < {name}",
                            nodes(levels),
                            split.id().replace('_', " "),
                            if column.id == "voq" {
                                "VOQ"
                            } else {
                                "single-read-port"
                            }
                        ),
                        "1VL < IB-ITh < HFDI < gaining scheme",
                        format!(
                            "{} {}",
                            ranked
                                .iter()
                                .map(|r| judged[r].value(3))
                                .collect::<Vec<_>>()
                                .join(" / "),
                            judged[column.gaining].note()
                        ),
                        order.windows(2).all(|w| w[0] < w[1]),
                        rule,
                    )
                    .identified(
                        &format!("table3-{}-n{levels}-{}-order", split.id(), column.id),
                        None,
                        Some(gaining),
                    )
                    .over_seeds(&judged[column.gaining]),
                );
            }
        }
    }
    let mut files = Vec::new();
    for (name, text) in [("table3.csv", table), ("table3-gains.csv", gains)] {
        let path = ctx.out().join(name);
        std::fs::write(&path, text).map_err(anyhow::Error::from)?;
        files.push(path);
    }
    Ok(Findings::legacy(comparisons, files))
}
