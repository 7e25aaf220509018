//! Whether a run was stable: the drain, throughput, latency and source-queue tests, and which
//! one a saturated run failed.
//!
//! Accepted throughput alone misses saturation when the window is short: past saturation the
//! source queues grow by only a few percent of the offered load per window, yet every packet
//! waits longer than the last. The latency and source-queue tests catch that (BookSim2 calls a
//! run unstable past 500 cycles of mean latency; here the limit is a multiple of the run's own
//! zero-load latency, so that it scales with the network).

use serde::{Deserialize, Serialize};

/// Which test a saturated run failed (the first, in the order of the variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SaturationCause {
    /// Measured packets were still undelivered when `sim.drain_cycles_max` ran out.
    DrainCap,
    /// Accepted throughput was more than `sim.stability_tolerance` below offered.
    Throughput,
    /// Mean latency was above `sim.stability_latency_factor` times the zero-load latency.
    Latency,
    /// Packets created in the window's second half waited at their sources longer than those
    /// of the first half, by more than `sim.stability_queue_growth` times the zero-load
    /// latency: the queues grew.
    SourceQueue,
    /// A ramp's smoothed throughput fell below its offered load.
    Ramp,
}

impl SaturationCause {
    /// The cause as it appears in JSON and CSV (`drain_cap`, `throughput`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SaturationCause::DrainCap => "drain_cap",
            SaturationCause::Throughput => "throughput",
            SaturationCause::Latency => "latency",
            SaturationCause::SourceQueue => "source_queue",
            SaturationCause::Ramp => "ramp",
        }
    }
}

/// The limits a run must stay within to count as stable (from `[sim]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limits {
    /// Largest shortfall of accepted below offered throughput, as a fraction of offered.
    pub tolerance: f64,
    /// Largest mean latency, as a multiple of the zero-load latency (0: no test).
    pub latency_factor: f64,
    /// Largest growth of the mean source-queue wait from the window's first half to its
    /// second, as a multiple of the zero-load latency (0: no test).
    pub queue_growth: f64,
    /// The traffic offers a steady load (Bernoulli or periodic sources), so that the latency
    /// and source-queue tests apply; bursts of collectives, traces and closed loops are judged
    /// by the drain and throughput tests only.
    pub steady: bool,
}

/// What the tests look at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Observed {
    /// Measured packets undelivered when the drain cap was hit, and measured packets; `None`
    /// when the run drained.
    pub undrained: Option<(u64, u64)>,
    pub offered: f64,
    pub accepted: f64,
    /// Mean latency of the delivered measured packets.
    pub latency: Option<f64>,
    /// Mean zero-load latency of the same packets' routes.
    pub zero_load: Option<f64>,
    /// Mean source-queue wait of the delivered measured packets created in the window's
    /// first and second halves.
    pub queue_wait: [Option<f64>; 2],
}

/// The first test `observed` fails, with a sentence saying why; `None` when the run was stable.
pub(crate) fn judge(observed: &Observed, limits: &Limits) -> Option<(SaturationCause, String)> {
    let o = observed;
    if let Some((undelivered, measured)) = o.undrained {
        return Some((
            SaturationCause::DrainCap,
            format!(
                "did not drain: saturated ({undelivered} of {measured} measured packets \
                 undelivered at the drain cap)"
            ),
        ));
    }
    if o.accepted < o.offered * (1.0 - limits.tolerance) {
        return Some((
            SaturationCause::Throughput,
            format!(
                "unstable: accepted {:.4} is more than {:.0}% below offered {:.4}",
                o.accepted,
                limits.tolerance * 100.0,
                o.offered
            ),
        ));
    }
    if !limits.steady {
        return None;
    }
    let zero_load = o.zero_load.filter(|z| *z > 0.0)?;
    if let Some(latency) = o.latency
        && limits.latency_factor > 0.0
        && latency > limits.latency_factor * zero_load
    {
        return Some((
            SaturationCause::Latency,
            format!(
                "unstable: mean latency {latency:.1} cycles is over {} times the zero-load \
                 latency {zero_load:.1}",
                limits.latency_factor
            ),
        ));
    }
    if let [Some(first), Some(second)] = o.queue_wait
        && limits.queue_growth > 0.0
        && second - first > limits.queue_growth * zero_load
    {
        return Some((
            SaturationCause::SourceQueue,
            format!(
                "unstable: source queues grew (packets created in the window's second half \
                 waited {second:.1} cycles at their sources, the first half's {first:.1})"
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        tolerance: 0.05,
        latency_factor: 10.0,
        queue_growth: 1.0,
        steady: true,
    };

    fn stable() -> Observed {
        Observed {
            undrained: None,
            offered: 0.4,
            accepted: 0.4,
            latency: Some(60.0),
            zero_load: Some(30.0),
            queue_wait: [Some(20.0), Some(24.0)],
        }
    }

    fn cause(o: Observed, limits: Limits) -> Option<SaturationCause> {
        judge(&o, &limits).map(|(cause, _)| cause)
    }

    #[test]
    fn a_run_within_every_limit_is_stable() {
        assert_eq!(cause(stable(), LIMITS), None);
    }

    #[test]
    fn each_limit_names_its_cause_in_order() {
        let latency = Observed {
            latency: Some(301.0),
            ..stable()
        };
        assert_eq!(cause(latency, LIMITS), Some(SaturationCause::Latency));
        let at_limit = Observed {
            latency: Some(300.0),
            ..stable()
        };
        assert_eq!(cause(at_limit, LIMITS), None);
        let growing = Observed {
            queue_wait: [Some(200.0), Some(231.0)],
            ..stable()
        };
        assert_eq!(cause(growing, LIMITS), Some(SaturationCause::SourceQueue));
        // Growth up to one zero-load latency is noise.
        let small = Observed {
            queue_wait: [Some(200.0), Some(230.0)],
            ..stable()
        };
        assert_eq!(cause(small, LIMITS), None);
        let short = Observed {
            accepted: 0.37,
            latency: Some(1000.0),
            ..stable()
        };
        assert_eq!(cause(short, LIMITS), Some(SaturationCause::Throughput));
        let undrained = Observed {
            undrained: Some((3, 100)),
            ..short
        };
        let (first, why) = judge(&undrained, &LIMITS).unwrap();
        assert_eq!(first, SaturationCause::DrainCap);
        assert!(why.contains("3 of 100"), "{why}");
    }

    #[test]
    fn bursty_traffic_and_zero_factors_skip_the_latency_and_queue_tests() {
        let slow = Observed {
            latency: Some(1000.0),
            queue_wait: [Some(0.0), Some(900.0)],
            ..stable()
        };
        let bursty = Limits {
            steady: false,
            ..LIMITS
        };
        assert_eq!(cause(slow, bursty), None);
        let off = Limits {
            latency_factor: 0.0,
            queue_growth: 0.0,
            ..LIMITS
        };
        assert_eq!(cause(slow, off), None);
        let latency_off = Limits {
            latency_factor: 0.0,
            ..LIMITS
        };
        assert_eq!(cause(slow, latency_off), Some(SaturationCause::SourceQueue));
    }
}
