//! Checks before a run starts: the memory it will need against what the machine has (or
//! `--max-memory`), and a warning when its length means hours of simulation.

use tailback_core::config::Config;
use tailback_core::sim::estimated_bytes;

use crate::error::{CliError, CliResult};

/// Node-cycles per second assumed for run-time estimates: between the reference machine's
/// benchmarks, 3.2 M (8 x 8 mesh, 1-flit packets) and 8.2 M (16 x 16 torus near saturation);
/// lighter loads run faster (26 M at a tenth of a flit per node and cycle; docs/performance.md).
const NODE_CYCLES_PER_SECOND: f64 = 5e6;

/// Runs estimated to take longer than this get a warning before they start, seconds.
const LONG_RUN: f64 = 3600.0;

/// Refuses when `copies` runs of the largest of `configs` at once would need more memory than
/// `max_memory` bytes, or without it than the machine has available.
pub fn check_memory<'a>(
    configs: impl IntoIterator<Item = &'a Config>,
    copies: usize,
    max_memory: Option<u64>,
) -> CliResult {
    match memory_shortfall(configs, copies, max_memory) {
        None => Ok(()),
        Some(shortfall) => Err(CliError::Input(format!(
            "{shortfall}; simulate a smaller network, run fewer jobs at once (-j), or pass \
             --max-memory SIZE (e.g. --max-memory 64G) to allow more"
        ))),
    }
}

/// What is missing when `copies` runs of the largest of `configs` at once need more memory than
/// `max_memory` bytes, or without it than the machine has available: "this run needs about
/// 70 GB but the machine has 21 GB available".
pub fn memory_shortfall<'a>(
    configs: impl IntoIterator<Item = &'a Config>,
    copies: usize,
    max_memory: Option<u64>,
) -> Option<String> {
    let each = configs.into_iter().map(estimated_bytes).fold(0.0, f64::max);
    let needed = each * copies as f64;
    let (limit, machine) = match max_memory {
        Some(bytes) => (bytes as f64, false),
        None => (available_memory()?, true),
    };
    if needed <= limit {
        return None;
    }
    let runs = if copies > 1 {
        format!(
            "{copies} runs at once need about {} ({} each)",
            size(needed),
            size(each)
        )
    } else {
        format!("this run needs about {}", size(needed))
    };
    Some(if machine {
        format!("{runs} but the machine has {} available", size(limit))
    } else {
        format!("{runs} but --max-memory allows {}", size(limit))
    })
}

/// Warns on standard error when `rounds` runs of `config` one after another (a sweep's share
/// per job) take hours.
pub fn warn_if_long(config: &Config, rounds: usize) {
    let sim = &config.sim;
    let cycles = (sim.warmup_cycles + sim.measure_cycles) as f64;
    let nodes = config.topology.layout.nodes();
    let seconds = cycles * nodes as f64 * rounds as f64 / NODE_CYCLES_PER_SECOND;
    if seconds > LONG_RUN {
        let share = if rounds > 1 {
            format!(" for {rounds} runs in a row on each job")
        } else {
            String::new()
        };
        eprintln!(
            "warning: a run simulates {cycles:.3e} cycles of {nodes} nodes: about {}{share} at \
             {:.0} million node-cycles per second per core (the reference machine under heavy \
             load; lighter loads run faster); lower sim.measure_cycles for a shorter run",
            duration(seconds),
            NODE_CYCLES_PER_SECOND / 1e6
        );
    }
}

/// Bytes the machine can still give without swapping (Linux's `MemAvailable`).
fn available_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Parses `--max-memory`: bytes, or a number with K, M, G or T (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let digits = upper.trim_end_matches(['B', 'I']);
    let (number, scale) = match digits.char_indices().last() {
        Some((i, 'K')) => (&digits[..i], 1u64 << 10),
        Some((i, 'M')) => (&digits[..i], 1 << 20),
        Some((i, 'G')) => (&digits[..i], 1 << 30),
        Some((i, 'T')) => (&digits[..i], 1 << 40),
        _ => (digits, 1),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a size; give bytes or e.g. 512M, 16G, 1T"))?;
    if !(value.is_finite() && value > 0.0 && value * scale as f64 <= u64::MAX as f64) {
        return Err(format!("`{text}` is not a size above zero"));
    }
    Ok((value * scale as f64) as u64)
}

/// Bytes in words: "3.4 GB".
pub fn size(bytes: f64) -> String {
    match bytes {
        b if b >= 1e12 => format!("{:.1} TB", b / 1e12),
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

/// Seconds in words: "3.2 hours", "41 days".
fn duration(seconds: f64) -> String {
    match seconds {
        s if s >= 2.0 * 86400.0 * 365.0 => format!("{:.0} years", s / (86400.0 * 365.0)),
        s if s >= 2.0 * 86400.0 => format!("{:.0} days", s / 86400.0),
        s => format!("{:.1} hours", s / 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("16G"), Ok(16 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        for bad in ["", "G", "-1G", "0", "lots", "1e30T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
