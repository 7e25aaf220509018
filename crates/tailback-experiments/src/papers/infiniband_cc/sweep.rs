//! Paper III's CCTI_Timer x Marking_Rate sweep (R3), and R3's shape under each reading of the
//! timer and of the injection rate delay.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;

use super::{CC_ON, CONTRIBUTORS, READINGS, report, spread};
use crate::grid::Grid;
use crate::papers::infiniband::{Phases, Scenario, scenario_job};
use crate::{Comparison, Context, Findings, Job, Result};

/// Scenario 1 with four flows from the start and the last contributor (H7) one phase later: the
/// timer sweep measures the phase after that addition, when all four contributors are active
/// (Paper III's Var is taken over those instants).
const SCENARIO_1_LAST_ADDED: Scenario = Scenario {
    topology: "ib-testbed",
    link: "qdr",
    flows: &[(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 1)],
};

/// Scenario 1 (the last contributor added after a phase), CC on, for every timer, marking rate
/// and seed of the grid, and for every reading at a few timers and one marking rate.
pub(super) fn sweep_jobs(grid: &Grid) -> Result<Vec<Job>> {
    let timers: Vec<f64> = grid.param("timers_us")?;
    let rates: Vec<u32> = grid.param("marking_rates")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let mut jobs = Vec::new();
    for &timer in &timers {
        for &rate in &rates {
            for &seed in &seeds {
                jobs.push(scenario_job(
                    grid,
                    &SCENARIO_1_LAST_ADDED,
                    &sweep_id(timer, rate, seed),
                    &[
                        CC_ON.into(),
                        format!("congestion.ccti_timer={timer}"),
                        format!("congestion.marking_rate={rate}"),
                        format!("seed={seed}"),
                    ],
                )?);
            }
        }
    }
    let reading_timers: Vec<f64> = grid.param("readings_timers_us")?;
    let reading_rate: u32 = grid.param("readings_rate")?;
    for (name, settings) in READINGS {
        for &timer in &reading_timers {
            for &seed in &seeds {
                let mut all = vec![
                    CC_ON.to_string(),
                    format!("congestion.ccti_timer={timer}"),
                    format!("congestion.marking_rate={reading_rate}"),
                    format!("seed={seed}"),
                ];
                all.extend(settings.iter().map(|s| s.to_string()));
                jobs.push(scenario_job(
                    grid,
                    &SCENARIO_1_LAST_ADDED,
                    &format!("{name}-{}", sweep_id(timer, reading_rate, seed)),
                    &all,
                )?);
            }
        }
    }
    Ok(jobs)
}

/// The victim's mean, the contributors' mean and Var of job `id`, over the phase after the
/// last contributor joined.
fn sweep_point(
    reports: &BTreeMap<String, RunReport>,
    grid: &Grid,
    id: &str,
) -> Result<(f64, f64, f64)> {
    let p = Phases::new(report(reports, id)?, grid)?;
    Ok((
        p.gbps((0, 3), 1),
        CONTRIBUTORS.iter().map(|&f| p.gbps(f, 1)).sum::<f64>() / 4.0,
        treatment_variation(&p),
    ))
}

/// R3's shape under each reading of the timer and the delay: the victim's mean, the
/// contributors' mean and Var at each timer (`timer_readings.csv`), and whether the victim
/// collapses below 150 µs, keeps its rate from 150 µs on and Var grows with the timer.
fn readings(
    ctx: &Context,
    grid: &Grid,
    reports: &BTreeMap<String, RunReport>,
    seeds: &[u64],
) -> Result<(Vec<Comparison>, PathBuf)> {
    let timers: Vec<f64> = grid.param("readings_timers_us")?;
    let rate: u32 = grid.param("readings_rate")?;
    let mut table = String::from("reading,timer_us,victim_gbps,contributor_gbps,var\n");
    let mut comparisons = Vec::new();
    for (name, _) in READINGS {
        let mut points = Vec::new();
        for &timer in &timers {
            let mut at = Vec::new();
            for &seed in seeds {
                let id = format!("{name}-{}", sweep_id(timer, rate, seed));
                at.push(sweep_point(reports, grid, &id)?);
            }
            let mean =
                |f: fn(&(f64, f64, f64)) -> f64| spread(&at.iter().map(f).collect::<Vec<_>>()).0;
            let point = (timer, mean(|p| p.0), mean(|p| p.1), mean(|p| p.2));
            table.push_str(&format!(
                "{name},{timer},{:.4},{:.4},{:.5}\n",
                point.1, point.2, point.3
            ));
            points.push(point);
        }
        let low = points.iter().filter(|p| p.0 < 150.0).all(|p| p.1 < 6.5);
        let good: Vec<_> = points.iter().filter(|p| p.0 >= 150.0).collect();
        let kept = good.iter().all(|p| p.1 >= 12.35);
        let grows = match (good.first(), good.last()) {
            (Some(first), Some(last)) => last.3 > first.3,
            _ => false,
        };
        let ours = points
            .iter()
            .map(|p| format!("{:.0} µs: {:.2} ({:.3})", p.0, p.1, p.3))
            .collect::<Vec<_>>()
            .join(", ");
        comparisons.push(
            Comparison::judged(
                format!("reading {name}, Marking_Rate {rate}: the victim (Var) against the timer"),
                "collapses below 150 µs, at its limit from 150 µs, Var growing",
                ours,
                low && kept && grows,
                "victim (mean over seeds) < 6.5 Gbit/s at every timer < 150 µs and >= 12.35 at \
                 every timer >= 150 µs; Var at the longest timer > at the shortest >= 150 µs",
            )
            .identified(&format!("sweep-reading-{name}"), None, None),
        );
    }
    let csv = ctx.out().join("timer_readings.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    Ok((comparisons, csv))
}

/// The id of a sweep job.
fn sweep_id(timer_us: f64, rate: u32, seed: u64) -> String {
    format!("timer{timer_us}-mr{rate}-seed{seed}")
}

/// Paper III's treatment variation: the variance, over the sampling instants of the phase after
/// the last contributor joined, of the spread (max - min) of the four contributors' throughput.
fn treatment_variation(p: &Phases) -> f64 {
    let samples: Vec<Vec<f64>> = CONTRIBUTORS
        .iter()
        .map(|&c| p.phase_samples(c, 1, usize::MAX))
        .collect();
    let n = samples.iter().map(Vec::len).min().unwrap_or(0);
    let deltas: Vec<f64> = (0..n)
        .map(|t| {
            let (_, lo, hi) = spread(&samples.iter().map(|s| s[t]).collect::<Vec<_>>());
            hi - lo
        })
        .collect();
    let (mean, _, _) = spread(&deltas);
    deltas.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / deltas.len().max(1) as f64
}

pub(super) fn sweep(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let timers: Vec<f64> = grid.param("timers_us")?;
    let rates: Vec<u32> = grid.param("marking_rates")?;
    let seeds: Vec<u64> = grid.param("seeds")?;
    let reports = ctx.run(jobs)?;
    // Per timer and rate, over the seeds: the victim's mean, the contributors' mean and Var.
    let mut table = String::from("timer_us,marking_rate,victim_gbps,contributor_gbps,var\n");
    let mut by_timer: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut victim_low_ok = true;
    for &timer in &timers {
        let (mut victims, mut contributors, mut vars) = (Vec::new(), Vec::new(), Vec::new());
        for &rate in &rates {
            let (mut v, mut c, mut var) = (Vec::new(), Vec::new(), Vec::new());
            for &seed in &seeds {
                let (victim, contributor, variation) =
                    sweep_point(&reports, grid, &sweep_id(timer, rate, seed))?;
                v.push(victim);
                c.push(contributor);
                var.push(variation);
            }
            let (v, c, var) = (spread(&v).0, spread(&c).0, spread(&var).0);
            table.push_str(&format!("{timer},{rate},{v:.4},{c:.4},{var:.5}\n"));
            if timer < 150.0 && v >= 6.5 {
                victim_low_ok = false;
            }
            victims.push(v);
            contributors.push(c);
            vars.push(var);
        }
        by_timer.push((
            timer,
            spread(&victims).0,
            spread(&contributors).0,
            spread(&vars).0,
        ));
    }
    let csv = ctx.out().join("timer_sweep.csv");
    std::fs::write(&csv, &table).map_err(anyhow::Error::from)?;
    let low_timers = by_timer
        .iter()
        .filter(|t| t.0 < 150.0)
        .map(|t| format!("{:.0} µs: {:.2}", t.0, t.1))
        .collect::<Vec<_>>()
        .join(", ");
    let mut comparisons = vec![
        Comparison::judged(
            "the victim below half its rate for every timer under 150 µs, at every rate",
            "it collapses (the tree re-forms)",
            low_timers,
            victim_low_ok,
            "victim (mean over seeds) < 6.5 Gbit/s at every timer < 150 µs and every \
             Marking_Rate",
        )
        .identified("sweep-victim-low-timers", None, None),
    ];
    let good: Vec<&(f64, f64, f64, f64)> = by_timer.iter().filter(|t| t.0 >= 150.0).collect();
    if let (Some(first), Some(last)) = (good.first(), good.last()) {
        let flat = good.iter().all(|t| (t.2 / first.2 - 1.0).abs() <= 0.10);
        comparisons.push(
            Comparison::judged(
                "the contributors' mean from 150 µs to the longest timer",
                "flat (within 10 %)",
                good.iter()
                    .map(|t| format!("{:.0} µs: {:.2}", t.0, t.2))
                    .collect::<Vec<_>>()
                    .join(", "),
                flat,
                "at every timer >= 150 µs, within ±10 % of the value at the shortest of them",
            )
            .identified("sweep-contributors-flat", None, Some(last.2 / first.2)),
        );
        comparisons.push(
            Comparison::judged(
                "the victim from 150 µs on",
                "at its PCIe limit (13 Gbit/s)",
                good.iter()
                    .map(|t| format!("{:.0} µs: {:.2}", t.0, t.1))
                    .collect::<Vec<_>>()
                    .join(", "),
                good.iter().all(|t| t.1 >= 12.35),
                ">= 12.35 Gbit/s (95 % of 13) at every timer >= 150 µs",
            )
            .identified("sweep-victim-good-timers", Some(13.0), Some(first.1)),
        );
        comparisons.push(
            Comparison::judged(
                "the contributors' treatment variation (Var) from 150 µs to the longest timer",
                "grows with the timer (fairness best at low timers)",
                format!("{:.4} -> {:.4}", first.3, last.3),
                last.3 > first.3,
                "Var at the longest timer > at the shortest timer >= 150 µs",
            )
            .identified("sweep-var-grows", None, Some(last.3 / first.3.max(1e-12))),
        );
    }
    let (by_reading, readings_csv) = readings(ctx, grid, &reports, &seeds)?;
    comparisons.extend(by_reading);
    Ok(Findings::legacy(comparisons, vec![csv, readings_csv]))
}
