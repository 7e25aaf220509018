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
            check_invariants: s.boolean("check_invariants", false),
        };
        s.finish();
        cfg
    }
}
