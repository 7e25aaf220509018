//! The offered workload: per-source packet creation times and destinations.
//!
//! Each source owns two random streams (creation times and destinations) derived from the run
//! seed and its node index, so the packets a source offers depend only on the seed and the
//! traffic settings — never on the network or on congestion management.

mod pattern;

pub use pattern::Destinations;
pub(crate) use pattern::check_pattern;

use rand::RngExt;
use rand_distr::{Distribution, Geometric};

use crate::config::{ProcessKind, TrafficConfig};
use crate::rng::{self, Purpose, StreamRng};
use crate::topology::CubeShape;

/// A cycle that never comes.
pub const NEVER: u64 = u64::MAX;

/// When packets are created.
#[derive(Debug, Clone)]
pub enum Process {
    /// Geometric inter-arrival times: a packet in each cycle with probability `p`.
    Bernoulli(Geometric),
    /// A packet every `interval` cycles from a random phase, each delayed by up to
    /// `jitter * interval`.
    Periodic {
        /// Cycles between packets.
        interval: f64,
        /// Fraction of the interval by which each packet may be delayed.
        jitter: f64,
    },
    /// No packets.
    Silent,
}

/// A packet as its source creates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offered {
    /// Creation cycle.
    pub created: u64,
    /// Destination node.
    pub dst: u32,
    /// Length in flits.
    pub flits: u32,
}

#[derive(Debug, Clone)]
struct Source {
    arrivals: StreamRng,
    destinations: StreamRng,
    /// Creation time of the next packet.
    next: u64,
    /// Periodic: index of the next packet and the random phase.
    count: u64,
    phase: f64,
}

/// Packet sources for every node.
#[derive(Debug, Clone)]
pub struct Workload {
    destinations: Destinations,
    process: Process,
    packet_flits: u32,
    sources: Vec<Source>,
}

impl Workload {
    /// Builds the sources of every node of `shape`.
    pub fn new(cfg: &TrafficConfig, shape: &CubeShape, seed: u64) -> Workload {
        let packets_per_cycle = cfg.rate / cfg.packet_flits as f64;
        let process = if packets_per_cycle <= 0.0 {
            Process::Silent
        } else {
            match cfg.process {
                ProcessKind::Bernoulli => Process::Bernoulli(
                    Geometric::new(packets_per_cycle.min(1.0))
                        .expect("a validated rate gives a probability in [0, 1]"),
                ),
                ProcessKind::Periodic => Process::Periodic {
                    interval: 1.0 / packets_per_cycle,
                    jitter: cfg.jitter.unwrap_or(0.0),
                },
            }
        };
        let sources = (0..shape.nodes() as u64)
            .map(|node| {
                let mut s = Source {
                    arrivals: rng::stream(seed, node, Purpose::Arrivals),
                    destinations: rng::stream(seed, node, Purpose::Destinations),
                    next: 0,
                    count: 0,
                    phase: 0.0,
                };
                if let Process::Periodic { interval, .. } = process {
                    s.phase = s.arrivals.random::<f64>() * interval;
                }
                s.next = first_time(&process, &mut s);
                s
            })
            .collect();
        Workload {
            destinations: Destinations::new(cfg, shape, seed),
            process,
            packet_flits: cfg.packet_flits,
            sources,
        }
    }

    /// The destination pattern.
    pub fn destinations(&self) -> &Destinations {
        &self.destinations
    }

    /// Creation time of `node`'s next packet ([`NEVER`] if none).
    #[inline]
    pub fn next_time(&self, node: usize) -> u64 {
        self.sources[node].next
    }

    /// Takes `node`'s next packet and draws the one after it.
    pub fn take(&mut self, node: usize) -> Offered {
        let source = &mut self.sources[node];
        let created = source.next;
        let dst = self
            .destinations
            .pick(node as u32, &mut source.destinations);
        source.next = match &self.process {
            Process::Bernoulli(geometric) => created
                .saturating_add(1)
                .saturating_add(geometric.sample(&mut source.arrivals)),
            Process::Periodic { .. } => periodic_time(&self.process, source),
            Process::Silent => NEVER,
        };
        Offered {
            created,
            dst,
            flits: self.packet_flits,
        }
    }
}

fn first_time(process: &Process, source: &mut Source) -> u64 {
    match process {
        Process::Bernoulli(geometric) => geometric.sample(&mut source.arrivals),
        Process::Periodic { .. } => periodic_time(process, source),
        Process::Silent => NEVER,
    }
}

/// Time of periodic packet number `source.count` (then advances the count). Packet `i` falls in
/// `[phase + i T, phase + (i + jitter) T)`, so times never go backwards.
fn periodic_time(process: &Process, source: &mut Source) -> u64 {
    let Process::Periodic { interval, jitter } = *process else {
        unreachable!("periodic_time on a non-periodic process")
    };
    let offset = if jitter > 0.0 {
        source.arrivals.random::<f64>() * jitter
    } else {
        0.0
    };
    let t = source.phase + (source.count as f64 + offset) * interval;
    source.count += 1;
    t as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn workload(rate: f64, process: ProcessKind, jitter: f64) -> Workload {
        let cfg = TrafficConfig {
            rate,
            process,
            jitter: Some(jitter).filter(|_| process == ProcessKind::Periodic),
            ..Config::default().traffic
        };
        Workload::new(&cfg, &CubeShape::new(vec![4, 4], true), 3)
    }

    fn mean_rate(w: &mut Workload, horizon: u64) -> f64 {
        let mut flits = 0u64;
        for node in 0..16 {
            while w.next_time(node) < horizon {
                flits += w.take(node).flits as u64;
            }
        }
        flits as f64 / (16.0 * horizon as f64)
    }

    #[test]
    fn bernoulli_offers_the_configured_rate() {
        let rate = mean_rate(&mut workload(0.3, ProcessKind::Bernoulli, 0.0), 200_000);
        assert!((rate - 0.3).abs() < 0.01, "{rate}");
    }

    #[test]
    fn periodic_is_exact_and_monotone() {
        let mut w = workload(0.25, ProcessKind::Periodic, 0.5);
        let mut last = 0;
        for _ in 0..1000 {
            let t = w.take(5).created;
            assert!(t >= last);
            last = t;
        }
        // 8-flit packets at 0.25 flits/cycle: one every 32 cycles.
        assert!((31_000..33_000).contains(&last), "{last}");
    }

    #[test]
    fn zero_rate_is_silent() {
        let w = workload(0.0, ProcessKind::Bernoulli, 0.0);
        assert_eq!(w.next_time(0), NEVER);
    }
}
