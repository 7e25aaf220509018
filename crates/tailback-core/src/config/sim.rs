//! `[sim]`: warm-up, measurement window and drain.

use serde::Serialize;

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
    pub(crate) fn read(s: Section<'_>) -> Self {
        const MAX_CYCLES: u64 = 1 << 40;
        let cfg = SimConfig {
            warmup_cycles: s.int("warmup_cycles", 10_000, 0, MAX_CYCLES),
            measure_cycles: s.int("measure_cycles", 20_000, 1, MAX_CYCLES),
            drain_cycles_max: s.int("drain_cycles_max", 20_000, 0, MAX_CYCLES),
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
