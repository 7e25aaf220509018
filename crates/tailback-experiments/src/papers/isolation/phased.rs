//! Flows that join one per phase (Paper V's Cases #1-#3): the jobs of every scheme and seed,
//! each flow's bandwidth per phase, and the per-flow and total plots.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tailback_core::stats::RunReport;
use tailback_plot::{Series, YScale};

use super::super::infiniband_cc::report;
use super::{SCHEMES, Scheme, line, mean};
use crate::grid::Grid;
use crate::{Context, Error, Job, Result};

/// A case: flows joining one per phase, and flows running all along beside them.
pub(super) struct Case {
    /// Its id in run names and files.
    pub(super) id: &'static str,
    /// Its title in plots.
    pub(super) title: &'static str,
    /// The flows (source, destination), in the order they join.
    pub(super) joining: &'static [(u32, u32)],
    /// Sources of flows to uniformly random destinations, from the start.
    pub(super) uniform: &'static [u32],
}

impl Case {
    /// Phases: one per joining flow.
    pub(super) fn phases(&self) -> u32 {
        self.joining.len() as u32
    }

    fn run_id(&self, scheme: &str, seed: u64) -> String {
        format!("{}-{scheme}-s{seed}", self.id)
    }

    /// The jobs of every scheme and seed on `topology` (a `topology.file` setting, or none).
    pub(super) fn jobs(&self, grid: &Grid, topology: Option<&str>) -> Result<Vec<Job>> {
        let phase: f64 = grid.param("phase_us")?;
        let window: f64 = grid.param("window_us")?;
        let flows: Vec<String> = self
            .joining
            .iter()
            .enumerate()
            .map(|(i, (src, dst))| {
                format!(
                    "{{ src = {src}, dst = {dst}, start_us = {} }}",
                    i as f64 * phase
                )
            })
            .chain(
                self.uniform
                    .iter()
                    .map(|src| format!("{{ src = {src}, dst = \"uniform\" }}")),
            )
            .collect();
        let mut jobs = Vec::new();
        for scheme in &SCHEMES {
            for seed in grid.param::<Vec<u64>>("seeds")? {
                let mut settings: Vec<String> = topology
                    .map(|file| format!("topology.file={file:?}"))
                    .into_iter()
                    .collect();
                settings.extend([
                    format!("traffic.flows=[{}]", flows.join(", ")),
                    format!("sim.measure_us={}", f64::from(self.phases()) * phase),
                    format!("record.series_window_us={window}"),
                    format!("seed={seed}"),
                ]);
                settings.extend(scheme.settings());
                jobs.push(grid.job(self.run_id(scheme.id, seed), &settings)?);
            }
        }
        Ok(jobs)
    }

    /// Each scheme's runs (one per grid seed), and the series windows per phase.
    fn runs<'a>(
        &self,
        grid: &Grid,
        reports: &'a BTreeMap<String, RunReport>,
    ) -> Result<(usize, BTreeMap<&'static str, Vec<&'a RunReport>>)> {
        let phase: f64 = grid.param("phase_us")?;
        let window: f64 = grid.param("window_us")?;
        let seeds: Vec<u64> = grid.param("seeds")?;
        let mut by_scheme = BTreeMap::new();
        for scheme in &SCHEMES {
            let runs = seeds
                .iter()
                .map(|&seed| report(reports, &self.run_id(scheme.id, seed)))
                .collect::<Result<Vec<_>>>()?;
            by_scheme.insert(scheme.id, runs);
        }
        Ok(((phase / window).round() as usize, by_scheme))
    }

    /// Each scheme's flow rates, mean over the grid's seeds.
    pub(super) fn rates(
        &self,
        grid: &Grid,
        reports: &BTreeMap<String, RunReport>,
    ) -> Result<BTreeMap<&'static str, FlowRates>> {
        let (per_phase, by_scheme) = self.runs(grid, reports)?;
        by_scheme
            .into_iter()
            .map(|(id, runs)| {
                let rates = FlowRates::of(&runs, self.joining, self.phases(), per_phase)?;
                Ok((id, rates))
            })
            .collect()
    }

    /// Each scheme's delivered traffic (all flows, over the capacity of the nodes' links) in
    /// the second half of the last phase, per grid seed.
    pub(super) fn network_throughput(
        &self,
        grid: &Grid,
        reports: &BTreeMap<String, RunReport>,
    ) -> Result<BTreeMap<&'static str, Vec<f64>>> {
        let (per_phase, by_scheme) = self.runs(grid, reports)?;
        let last = self.phases() as usize;
        let (first, end) = ((last - 1) * per_phase + per_phase / 2, last * per_phase);
        Ok(by_scheme
            .into_iter()
            .map(|(id, runs)| {
                let values: Vec<f64> = runs
                    .iter()
                    .map(|r| {
                        let rows = &r.series;
                        let part: Vec<f64> = rows[first.min(rows.len())..end.min(rows.len())]
                            .iter()
                            .map(|r| r.delivered)
                            .collect();
                        mean(&part)
                    })
                    .collect();
                (id, values)
            })
            .collect())
    }

    /// The per-phase table, a per-flow plot per scheme and the plot of all flows together.
    pub(super) fn files(
        &self,
        ctx: &Context,
        by: &BTreeMap<&str, FlowRates>,
        window: f64,
    ) -> Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        let mut table = String::from("scheme,phase,flow,gbyte_per_s\n");
        for scheme in &SCHEMES {
            let rates = &by[scheme.id];
            for p in 0..self.phases() {
                for (i, (src, dst)) in self.joining.iter().enumerate() {
                    table.push_str(&format!(
                        "{},{p},{src}->{dst},{:.4}\n",
                        scheme.id,
                        rates.phase(i, p)
                    ));
                }
            }
            files.extend(self.plot_flows(ctx, scheme, rates, window)?);
        }
        let path = ctx.write_text(format!("{}.csv", self.id), &table)?;
        files.push(path);
        files.extend(self.plot_totals(ctx, by, window)?);
        Ok(files)
    }

    /// One scheme's flows' bandwidth against time (Paper V's Figs. 9 and 10).
    fn plot_flows(
        &self,
        ctx: &Context,
        scheme: &Scheme,
        rates: &FlowRates,
        window: f64,
    ) -> Result<Vec<PathBuf>> {
        let series: Vec<Series> = self
            .joining
            .iter()
            .enumerate()
            .map(|(i, (src, dst))| line(&format!("{src} -> {dst}"), &rates.windows[i], window))
            .collect();
        Ok(tailback_plot::lines(
            &ctx.out().join(format!("{}-{}", self.id, scheme.id)),
            &format!("{}, {}: flow bandwidth", self.title, scheme.name),
            "time (ms)",
            "GB/s",
            &series,
            YScale::Linear,
        )?)
    }

    /// Every scheme's delivered bandwidth of the joining flows against time (Fig. 7).
    fn plot_totals(
        &self,
        ctx: &Context,
        by: &BTreeMap<&str, FlowRates>,
        window: f64,
    ) -> Result<Vec<PathBuf>> {
        let series: Vec<Series> = SCHEMES
            .iter()
            .map(|scheme| {
                let rates = &by[scheme.id];
                let len = rates.windows.iter().map(Vec::len).min().unwrap_or(0);
                let total: Vec<f64> = (0..len)
                    .map(|i| rates.windows.iter().map(|w| w[i]).sum())
                    .collect();
                line(scheme.name, &total, window)
            })
            .collect();
        Ok(tailback_plot::lines(
            &ctx.out().join(format!("{}-total", self.id)),
            &format!("{}: delivered bandwidth of the joining flows", self.title),
            "time (ms)",
            "GB/s",
            &series,
            YScale::Linear,
        )?)
    }
}

/// The joining flows' bandwidth of one scheme, GB/s, mean over its seeds.
pub(super) struct FlowRates {
    /// Per flow, in joining order: GB/s per window.
    windows: Vec<Vec<f64>>,
    windows_per_phase: usize,
    phases: u32,
    /// Per seed, the same per flow and window (missing windows 0, as in the mean).
    per_seed: Vec<Vec<Vec<f64>>>,
}

impl FlowRates {
    fn of(
        runs: &[&RunReport],
        flows: &[(u32, u32)],
        phases: u32,
        windows_per_phase: usize,
    ) -> Result<FlowRates> {
        let mut windows: Vec<Vec<f64>> = Vec::new();
        let mut per_seed: Vec<Vec<Vec<f64>>> = vec![Vec::new(); runs.len()];
        for &flow in flows {
            let per_run: Vec<Vec<f64>> = runs
                .iter()
                .map(|report| {
                    let gbyte = report.summary.units.map_or(1.0, |u| u.link_gbps / 8.0);
                    report
                        .flows
                        .iter()
                        .find(|f| (f.src, f.dst) == flow)
                        .map(|f| f.windows.iter().map(|w| w * gbyte).collect())
                        .unwrap_or_default()
                })
                .collect();
            let len = per_run.iter().map(Vec::len).max().unwrap_or(0);
            let value = |run: &Vec<f64>, i: usize| run.get(i).copied().unwrap_or(0.0);
            for (seed, run) in per_seed.iter_mut().zip(&per_run) {
                seed.push((0..len).map(|i| value(run, i)).collect());
            }
            windows.push(
                (0..len)
                    .map(|i| mean(&per_run.iter().map(|r| value(r, i)).collect::<Vec<_>>()))
                    .collect(),
            );
        }
        if windows.first().is_none_or(Vec::is_empty) {
            return Err(Error::Input("a run without per-flow throughput".into()));
        }
        Ok(FlowRates {
            windows,
            windows_per_phase,
            phases,
            per_seed,
        })
    }

    /// `value` of each seed's rates, in the grid's seed order (for a value linear in the
    /// rates, such as a flow's or the total's, their mean is `value` of the mean rates).
    pub(super) fn per_seed(&self, value: impl Fn(&FlowRates) -> f64) -> Vec<f64> {
        self.per_seed
            .iter()
            .map(|windows| {
                value(&FlowRates {
                    windows: windows.clone(),
                    windows_per_phase: self.windows_per_phase,
                    phases: self.phases,
                    per_seed: Vec::new(),
                })
            })
            .collect()
    }

    /// Flow `i`'s mean GB/s over the second half of phase `phase`.
    pub(super) fn phase(&self, i: usize, phase: u32) -> f64 {
        let w = self.windows_per_phase;
        let first = phase as usize * w + w / 2;
        let last = ((phase as usize + 1) * w).min(self.windows[i].len());
        mean(&self.windows[i][first.min(last)..last])
    }

    /// Flow `i` in the last phase (every flow on).
    pub(super) fn last(&self, i: usize) -> f64 {
        self.phase(i, self.phases - 1)
    }

    /// The largest relative distance of flows `flows` from an equal share of what they get
    /// together, in the last phase.
    pub(super) fn unfairness(&self, flows: &[usize]) -> f64 {
        let rates: Vec<f64> = flows.iter().map(|&i| self.last(i)).collect();
        let fair = mean(&rates);
        rates
            .iter()
            .map(|x| (x / fair - 1.0).abs())
            .fold(0.0, f64::max)
    }

    /// All joining flows together in phase `phase`, GB/s.
    pub(super) fn total(&self, phase: u32) -> f64 {
        (0..self.windows.len()).map(|i| self.phase(i, phase)).sum()
    }
}
