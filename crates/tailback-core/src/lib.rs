//! Tailback core: a cycle-driven, flit-level simulator of lossless interconnection networks.
//!
//! Data flows one way: a configuration is read and validated once into a [`Spec`](spec::Spec), the network is built
//! ([`Topology`](topology::Topology), [`Routing`](routing::Routing), routers, NICs and the
//! [`Workload`](traffic::Workload)), the [`Simulation`](sim::Simulation) runs warm-up,
//! measurement and drain, and returns a [`RunReport`](stats::RunReport) whose
//! [`RunSummary`](stats::RunSummary) holds the headline numbers.
//!
//! ```
//! use tailback_core::spec::Spec;
//!
//! let spec = Spec::from_toml_str(
//!     "[topology]\nk = 4\n[traffic]\nrate = 0.1\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 500",
//!     "<example>",
//! )
//! .unwrap();
//! let summary = tailback_core::run(&spec).unwrap().summary;
//! assert!(!summary.saturated);
//! assert!((summary.accepted - summary.offered).abs() < 0.02);
//! ```
//!
//! Congestion management mechanisms plug in through the hooks of
//! [`CongestionControl`](hooks::CongestionControl).

#![deny(missing_docs)]

pub mod analysis;
pub mod cam_cost;
pub mod config;
pub mod congestion;
pub mod fabric;
pub mod files;
pub mod hooks;
pub mod ids;
pub mod packet;
pub mod predict;
pub mod ramp;
pub mod reference;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod spec;
pub mod stats;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod view;

mod bitset;
mod calendar;
mod event;
mod flit;
mod nic;
mod pause_clocks;
mod processor;
mod router;
mod switch;
mod table;

use std::io::{self, Write};

use config::ConfigError;
use congestion::registry::{Registered, WithMechanism};
use sim::Progress;
use sim::Simulation;
use spec::Spec;
use stats::RunReport;

/// Runs one simulation with the configured congestion mechanism.
pub fn run(spec: &Spec) -> Result<RunReport, ConfigError> {
    run_observed(spec, u64::MAX, |_| {})
}

/// Like [`run`], calling `observer` about every `every` simulated cycles.
pub fn run_observed(
    spec: &Spec,
    every: u64,
    observer: impl FnMut(&Progress),
) -> Result<RunReport, ConfigError> {
    Ok(run_with(spec, every, observer, None)?.0)
}

/// Like [`run_observed`], writing the trace of delivered packets to `trace` ([`trace`] module);
/// returns the report and the packets written (or the first write error).
pub fn run_traced(
    spec: &Spec,
    every: u64,
    observer: impl FnMut(&Progress),
    trace: Box<dyn Write + Send>,
) -> Result<(RunReport, io::Result<u64>), ConfigError> {
    run_with(spec, every, observer, Some(trace))
}

fn run_with(
    spec: &Spec,
    every: u64,
    observer: impl FnMut(&Progress),
    trace: Option<Box<dyn Write + Send>>,
) -> Result<(RunReport, io::Result<u64>), ConfigError> {
    use config::{FabricConfig, QueueKind};
    use switch::{Fifo, NfqCfq, Voq, VoqHpq, VoqNet};
    match &spec.fabric {
        FabricConfig::Vc => congestion::apply(
            &spec.congestion,
            Run {
                spec,
                every,
                observer,
                trace,
            },
        ),
        FabricConfig::Buffered(b) => match b.queues {
            QueueKind::Voq => run_buffered::<Voq>(spec, every, observer, trace),
            QueueKind::Fifo => run_buffered::<Fifo>(spec, every, observer, trace),
            QueueKind::VoqNet => run_buffered::<VoqNet>(spec, every, observer, trace),
            QueueKind::NfqCfq => run_buffered::<NfqCfq>(spec, every, observer, trace),
            QueueKind::VoqHpq => run_buffered::<VoqHpq>(spec, every, observer, trace),
        },
    }
}

/// Runs `spec` on buffered switches with queue scheme `S`, without a mechanism, with
/// InfiniBand congestion control or with QCN (the configuration refuses the others).
fn run_buffered<S: switch::QueueScheme>(
    spec: &Spec,
    every: u64,
    observer: impl FnMut(&Progress),
    trace: Option<Box<dyn Write + Send>>,
) -> Result<(RunReport, io::Result<u64>), ConfigError> {
    type On<S, C> = Simulation<C, switch::BufferedSwitches<S>>;
    match &spec.congestion {
        config::CongestionConfig::IbCc(settings) => {
            let sim = On::<S, _>::build_on(spec, |topology, _| {
                congestion::IbCc::build(settings, spec, topology)
            })?;
            Ok(drive(sim, every, observer, trace))
        }
        config::CongestionConfig::Qcn(settings) => {
            let sim = On::<S, _>::build_on(spec, |topology, _| {
                congestion::Qcn::build(settings, spec, topology)
            })?;
            Ok(drive(sim, every, observer, trace))
        }
        _ => {
            let sim = On::<S, _>::build_on(spec, |_, _| hooks::NoControl)?;
            Ok(drive(sim, every, observer, trace))
        }
    }
}

/// A run of the configured mechanism.
struct Run<'a, O> {
    spec: &'a Spec,
    every: u64,
    observer: O,
    trace: Option<Box<dyn Write + Send>>,
}

impl<O: FnMut(&Progress)> WithMechanism for Run<'_, O> {
    type Output = Result<(RunReport, io::Result<u64>), ConfigError>;

    fn apply<R: Registered>(self, _: &'static str, settings: &R::Settings) -> Self::Output {
        let sim = Simulation::build(self.spec, |topology, _| {
            R::build(settings, self.spec, topology)
        })?;
        Ok(drive(sim, self.every, self.observer, self.trace))
    }
}

/// Runs `sim`, writing its trace to `trace` if given.
#[allow(private_bounds)]
fn drive<C: hooks::CongestionControl, F: fabric::Fabric>(
    sim: Simulation<C, F>,
    every: u64,
    observer: impl FnMut(&Progress),
    trace: Option<Box<dyn Write + Send>>,
) -> (RunReport, io::Result<u64>) {
    match trace {
        Some(out) => sim.run_traced(every, observer, out),
        None => (sim.run_observed(every, observer), Ok(0)),
    }
}
