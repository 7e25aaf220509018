//! `[sim]`: warm-up, measurement window and drain.

use serde::Serialize;

use super::Units;
use super::reader::Section;

/// `[sim]`: warm-up, measurement window and drain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimConfig {
    /// Cycles simulated before measurement starts.
    pub warmup_cycles: u64,
    /// Length of the measurement window; packets created in it are measured.
    pub measure_cycles: u64,
    /// Cycles after the window to wait for measured packets; hitting it marks the run saturated.
    pub drain_cycles_max: u64,
    /// The run is declared unstable (saturated) when accepted throughput falls more than this
    /// fraction below offered throughput.
    pub stability_tolerance: f64,
    /// With steady (Bernoulli or periodic) sources, the run is also declared unstable when its
    /// mean latency is above this multiple of its zero-load latency (0: no latency test).
    pub stability_latency_factor: f64,
    /// With steady sources, the run is also declared unstable when the mean source-queue wait
    /// of the window's second half exceeds the first half's by more than this multiple of the
    /// zero-load latency: the source queues are growing (0: no test).
    pub stability_queue_growth: f64,
    /// Check flit and credit conservation every cycle (slow; for tests and debugging).
    pub check_invariants: bool,
}

impl SimConfig {
    /// Reads `[sim]`; with `units`, the durations may be given in µs instead.
    pub(crate) fn read(s: Section<'_>, units: Option<Units>) -> Self {
        const MAX_CYCLES: u64 = 1 << 40;
        let cfg = SimConfig {
            warmup_cycles: s.duration("warmup_cycles", "warmup_us", 10_000, (0, MAX_CYCLES), units),
            measure_cycles: s.duration(
                "measure_cycles",
                "measure_us",
                20_000,
                (1, MAX_CYCLES),
                units,
            ),
            drain_cycles_max: s.duration(
                "drain_cycles_max",
                "drain_max_us",
                20_000,
                (0, MAX_CYCLES),
                units,
            ),
            stability_tolerance: s.float(
                "stability_tolerance",
                0.05,
                |x| (0.0..1.0).contains(&x),
                "from 0 up to (not including) 1",
            ),
            stability_latency_factor: s.float(
                "stability_latency_factor",
                10.0,
                |x| x == 0.0 || (1.0..=1e9).contains(&x),
                "0 (no latency test) or from 1 to 1e9",
            ),
            stability_queue_growth: s.float(
                "stability_queue_growth",
                1.0,
                |x| (0.0..=1e9).contains(&x),
                "0 (no source-queue test) to 1e9",
            ),
            check_invariants: s.boolean("check_invariants", false),
        };
        s.finish();
        cfg
    }
}
