//! InfiniBand units: with `fabric.link` set, a cycle is the time one 64-byte block takes on the
//! fastest links, and times and rates may be given in µs, ns and Gbit/s.

use serde::{Deserialize, Serialize};

use super::reader::Section;

/// Bytes per flow-control block (one flit of the buffered fabric).
pub const BLOCK_BYTES: u32 = 64;

/// The time and rate scale of a run whose fastest links carry `link_gbps` of data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Units {
    /// Data rate of the fastest links (one block per cycle), Gbit/s.
    pub link_gbps: f64,
    /// Nanoseconds per cycle.
    pub cycle_ns: f64,
}

impl Units {
    /// The units of links carrying `link_gbps` of data.
    pub fn new(link_gbps: f64) -> Units {
        Units {
            link_gbps,
            cycle_ns: f64::from(BLOCK_BYTES * 8) / link_gbps,
        }
    }

    /// Cycles in `ns` nanoseconds (to the nearest cycle).
    pub fn cycles(&self, ns: f64) -> f64 {
        (ns / self.cycle_ns).round()
    }

    /// Microseconds in `cycles` cycles.
    pub fn micros(&self, cycles: f64) -> f64 {
        cycles * self.cycle_ns / 1000.0
    }

    /// Gbit/s of a rate in blocks per cycle.
    pub fn gbps(&self, blocks_per_cycle: f64) -> f64 {
        blocks_per_cycle * self.link_gbps
    }

    /// Blocks per cycle of a rate in Gbit/s.
    pub fn blocks_per_cycle(&self, gbps: f64) -> f64 {
        gbps / self.link_gbps
    }
}

/// RoCEv2's bytes on the wire besides a packet's payload (the default of
/// `fabric.frame_overhead_bytes`): preamble and start delimiter 8, inter-frame gap 12, Ethernet
/// header 14, IPv4 header 20, UDP header 8, InfiniBand base transport header 12, invariant CRC 4
/// and frame check sequence 4.
pub const ROCEV2_OVERHEAD_BYTES: u32 = 82;

/// Blocks a packet carrying `payload` bytes takes on the wire with `overhead` bytes of framing:
/// rounded up to whole 64-byte blocks (the rounding is wire time the model spends and a real
/// link does not).
pub fn frame_blocks(payload: u32, overhead: u32) -> u32 {
    (payload + overhead).div_ceil(BLOCK_BYTES)
}

/// Named data rates, Gbit/s: InfiniBand's 4X (after 8b/10b coding), and Ethernet's (the MAC
/// rate, after 64b/66b coding; preamble, inter-frame gap and headers still count).
pub const NAMED_RATES: [(&str, f64); 9] = [
    ("sdr", 8.0),
    ("ddr", 16.0),
    ("qdr", 32.0),
    ("eth10", 10.0),
    ("eth25", 25.0),
    ("eth40", 40.0),
    ("eth100", 100.0),
    ("eth200", 200.0),
    ("eth400", 400.0),
];

/// Reads a data rate: one of [`NAMED_RATES`] or a number of Gbit/s (above 0, at most 10,000).
pub(crate) fn read_rate(s: &Section<'_>, key: &'static str) -> Option<f64> {
    let value = s.value(key)?;
    let rate = match value {
        toml::Value::String(name) => NAMED_RATES
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, gbps)| gbps),
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    };
    match rate {
        Some(gbps) if gbps > 0.0 && gbps <= 10_000.0 => Some(gbps),
        _ => {
            let names: Vec<String> = NAMED_RATES
                .iter()
                .map(|(name, gbps)| format!("\"{name}\" ({gbps} Gbit/s)"))
                .collect();
            s.problem(
                key,
                format!(
                    "must be one of {} or a number of Gbit/s above 0 and at most 10000",
                    names.join(", ")
                ),
            );
            None
        }
    }
}

impl Section<'_> {
    /// A duration given in cycles (`cycles_key`) or, with `units`, in time (`time_key`, whose
    /// name ends in `_us` or `_ns`); in cycles, within `lo..=hi`. Both keys, or a time without
    /// units, is a problem.
    pub(crate) fn duration(
        &self,
        cycles_key: &'static str,
        time_key: &'static str,
        default: u64,
        (lo, hi): (u64, u64),
        units: Option<Units>,
    ) -> u64 {
        let cycles = self.opt_int(cycles_key, lo, hi);
        let time = self.opt_float(time_key, |x| x >= 0.0, "of at least 0");
        let Some(time) = time else {
            return cycles.unwrap_or(default);
        };
        if cycles.is_some() {
            self.problem(
                time_key,
                format!(
                    "give {} or {}, not both",
                    self.path_of(cycles_key),
                    self.path_of(time_key)
                ),
            );
            return cycles.unwrap_or(default);
        }
        let Some(units) = units else {
            self.problem(
                time_key,
                "times need a time unit: set fabric.link (the cycle is one 64-byte block on the \
                 fastest links)",
            );
            return default;
        };
        let ns = if time_key.ends_with("_us") {
            time * 1000.0
        } else {
            time
        };
        let converted = units.cycles(ns);
        if converted < lo as f64 || converted > hi as f64 {
            self.problem(
                time_key,
                format!(
                    "is {converted} cycles of {} ns; must be from {lo} to {hi} cycles",
                    units.cycle_ns
                ),
            );
            return default;
        }
        converted as u64
    }
}

impl Section<'_> {
    /// An optional rate in blocks (flits) per cycle, greater than 0 and at most 1, given as
    /// such (`rate_key`) or, with `units`, in Gbit/s (`gbps_key`). Both keys, or Gbit/s without
    /// units, is a problem.
    pub(crate) fn opt_rate(
        &self,
        rate_key: &'static str,
        gbps_key: &'static str,
        units: Option<Units>,
    ) -> Option<f64> {
        let valid = |x: f64| x > 0.0 && x <= 1.0;
        let rate = self.opt_float(
            rate_key,
            valid,
            "greater than 0 and at most 1 (flits/cycle)",
        );
        let Some(gbps) = self.opt_float(gbps_key, |x| x > 0.0, "greater than 0 (Gbit/s)") else {
            return rate;
        };
        if rate.is_some() {
            self.problem(
                gbps_key,
                format!(
                    "give {} or {}, not both",
                    self.path_of(rate_key),
                    self.path_of(gbps_key)
                ),
            );
            return rate;
        }
        let Some(units) = units else {
            self.problem(
                gbps_key,
                "rates in Gbit/s need the link rate: set fabric.link",
            );
            return None;
        };
        let blocks = units.blocks_per_cycle(gbps);
        if !valid(blocks) {
            self.problem(
                gbps_key,
                format!(
                    "is {blocks} blocks per cycle; must be at most the fastest links' {} Gbit/s",
                    units.link_gbps
                ),
            );
            return None;
        }
        Some(blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_is_one_block_on_the_fastest_link() {
        let ddr = Units::new(16.0);
        assert_eq!(ddr.cycle_ns, 32.0);
        assert_eq!(Units::new(32.0).cycle_ns, 16.0);
        // 150 µs of CCTI timer at DDR: 4687.5 cycles, to the nearest.
        assert_eq!(ddr.cycles(150_000.0), 4688.0);
        assert_eq!(ddr.gbps(0.84375), 13.5);
        assert_eq!(ddr.blocks_per_cycle(13.6), 0.85);
        assert_eq!(ddr.micros(31_250.0), 1000.0);
    }
}
