//! The offered workload: per-source packet creation times and destinations.
//!
//! Each source owns two random streams (creation times and destinations) derived from the run
//! seed and its node index, so the packets a source offers depend only on the seed and the
//! traffic settings — never on the network or on congestion management.
//!
//! The workload follows a schedule of phases, each with a length, a destination pattern and a
//! creation process ([`Process`], from the phase's rate). Without `traffic.phases` the schedule
//! is one endless phase. A packet takes the destination pattern of the phase in which it is
//! created. Bernoulli sources draw geometric gaps with the phase's probability; a gap that
//! reaches past the phase's end is dropped and sampling restarts at the boundary with the next
//! phase's probability, which is exact because the process is memoryless. Periodic sources keep
//! one random offset (a fraction of the interval) for the whole run and restart the periodic
//! grid at the start of every phase with that phase's interval. After the last phase the
//! schedule starts over, or (with `repeat_phases = false`) sources fall silent.

mod flows;
mod forest;
mod pattern;
mod program;

pub(crate) use forest::Backlog;
pub use pattern::Destinations;

pub use crate::calendar::NEVER;
pub(crate) use pattern::check_pattern;
pub(crate) use program::Program;

use std::collections::VecDeque;

use rand::RngExt;
use rand_distr::{Distribution, Geometric};

use crate::config::{
    FlowsConfig, ForestConfig, PatternKind, ProcessConfig, ProcessKind, SelfPackets, TrafficConfig,
};
use crate::packet::LogicalNetwork;
use crate::rng::{self, Purpose, StreamRng};
use crate::topology::CubeShape;
use crate::trace::TraceRecord;

/// When packets are created (within one phase).
#[derive(Debug, Clone)]
pub enum Process {
    /// Geometric inter-arrival times: a packet in each cycle with probability `p`.
    Bernoulli(Geometric),
    /// A packet every `interval` cycles from a random offset, each delayed by up to
    /// `jitter * interval`.
    Periodic {
        /// Cycles between packets.
        interval: f64,
        /// Fraction of the interval by which each packet may be delayed.
        jitter: f64,
    },
    /// `count` packets at the start of the phase.
    Collective(u64),
    /// A Bernoulli process whose packet probability rises linearly from 0 at the phase start:
    /// candidates at the peak probability, each kept with the current over the peak probability
    /// (exact thinning of per-cycle Bernoulli trials).
    Ramp {
        /// Candidate gaps at the peak probability.
        peak: Geometric,
        /// Peak packet probability per cycle.
        peak_probability: f64,
        /// Packet probability increase per cycle.
        slope: f64,
    },
    /// No packets.
    Silent,
}

impl Process {
    /// The process of `cfg` at `rate` flits/node/cycle.
    fn new(cfg: &TrafficConfig, rate: f64) -> Process {
        let packets_per_cycle = rate / cfg.packet_flits as f64;
        match &cfg.process {
            // Closed-loop workloads create their packets through the processors, and a trace
            // replay from its records.
            ProcessConfig::Bsp(_)
            | ProcessConfig::Cshift(_)
            | ProcessConfig::Trace(_)
            | ProcessConfig::Flows(_)
            | ProcessConfig::Forest(_) => Process::Silent,
            ProcessConfig::Collective { packets_per_node } => {
                Process::Collective((*packets_per_node).into())
            }
            _ if packets_per_cycle <= 0.0 => Process::Silent,
            ProcessConfig::Ramp(ramp) => {
                let peak_probability = packets_per_cycle.min(1.0);
                Process::Ramp {
                    peak: Geometric::new(peak_probability)
                        .expect("a validated rate gives a probability in [0, 1]"),
                    peak_probability,
                    slope: ramp.slope / cfg.packet_flits as f64,
                }
            }
            ProcessConfig::Bernoulli => Process::Bernoulli(
                Geometric::new(packets_per_cycle.min(1.0))
                    .expect("a validated rate gives a probability in [0, 1]"),
            ),
            ProcessConfig::Periodic { jitter } => Process::Periodic {
                interval: 1.0 / packets_per_cycle,
                jitter: *jitter,
            },
        }
    }
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
    /// The logical network it goes on.
    pub network: LogicalNetwork,
    /// Packets of the same message that follow this one (0: the last, or a one-packet
    /// message).
    pub message_rest: u32,
    /// Header bits of a mechanism's protocol (NIFDY); 0 for plain packets.
    pub header: u32,
    /// Sent by a mechanism ([`Outbox`](crate::hooks::Outbox)), not by the workload.
    pub control: bool,
    /// Replayed from a packet trace (`traffic.trace_file`).
    pub traced: bool,
}

/// One phase of the schedule, as the sources run it.
#[derive(Debug, Clone)]
struct Phase {
    /// Length in cycles ([`NEVER`] for the single phase of an unphased workload).
    cycles: u64,
    /// Offset of the phase's start within one pass of the schedule.
    offset: u64,
    /// How packets are created during the phase.
    process: Process,
    /// Index of the phase's pattern in [`Workload::patterns`].
    pattern: usize,
}

#[derive(Debug, Clone)]
struct Source {
    arrivals: StreamRng,
    destinations: StreamRng,
    /// Creation time of the next packet ([`NEVER`] if none).
    next: u64,
    /// Destination of the next packet.
    dst: u32,
    /// The phase `next` falls in, and that phase's absolute bounds `[start, end)`.
    phase: usize,
    start: u64,
    end: u64,
    /// Periodic: index of the next grid slot in the current phase.
    count: u64,
    /// Periodic: the source's random offset, as a fraction of the interval.
    offset: f64,
}

/// Packet sources for every node.
#[derive(Debug, Clone)]
pub struct Workload {
    /// The distinct destination patterns of the phases.
    patterns: Vec<Destinations>,
    phases: Vec<Phase>,
    /// Length of one pass of the schedule ([`NEVER`] when unphased).
    period: u64,
    /// Whether the schedule starts over after its last phase.
    repeat: bool,
    packet_flits: u32,
    /// Whether packets addressed to their source are left out.
    skip_self: bool,
    sources: Vec<Source>,
    /// A trace being replayed instead: each node's packets, in creation order.
    replay: Option<Vec<VecDeque<Offered>>>,
    /// Explicit flows instead (`traffic.process = "flows"`).
    flows: Option<flows::FlowSources>,
    /// A congestion forest instead (`traffic.process = "forest"`).
    forest: Option<forest::ForestSources>,
}

impl Workload {
    /// Builds the sources of every node of `shape`. `cfg` must be valid (as a read
    /// [`Config`](crate::config::Config) is): with `phases`, at least one phase.
    pub fn new(cfg: &TrafficConfig, shape: &CubeShape, seed: u64) -> Workload {
        let schedule: Vec<(u64, PatternKind, f64)> = match &cfg.phases {
            Some(phases) => phases
                .iter()
                .map(|p| (p.cycles, p.pattern, p.rate))
                .collect(),
            None => vec![(cfg.ramp_cycles().unwrap_or(NEVER), cfg.pattern, cfg.rate)],
        };
        // Deterministic patterns are built once and shared between phases; each phase with a
        // random permutation or pairing draws its own from the run's pattern stream, in phase
        // order (so the first one is the table `Destinations::new` builds).
        let mut pattern_rng = rng::stream(seed, 0, Purpose::Pattern);
        let mut patterns = Vec::new();
        let mut kinds: Vec<PatternKind> = Vec::new();
        let mut phases = Vec::with_capacity(schedule.len());
        let mut offset = 0u64;
        for &(cycles, kind, rate) in &schedule {
            let random = matches!(
                kind,
                PatternKind::RandomPermutation | PatternKind::RandomPair
            );
            let pattern = match kinds.iter().position(|&k| k == kind) {
                Some(i) if !random => i,
                _ => {
                    patterns.push(Destinations::build(kind, cfg, shape, &mut pattern_rng));
                    kinds.push(kind);
                    patterns.len() - 1
                }
            };
            phases.push(Phase {
                cycles,
                offset,
                process: Process::new(cfg, rate),
                pattern,
            });
            offset = offset.saturating_add(cycles);
        }
        let active = phases.iter().any(|p| !matches!(p.process, Process::Silent));
        let repeat = cfg.phases.is_some() && cfg.repeat_phases.unwrap_or(true);
        let mut workload = Workload {
            patterns,
            phases,
            period: offset,
            repeat,
            packet_flits: cfg.packet_flits,
            skip_self: cfg.self_packets == SelfPackets::Skip,
            sources: Vec::with_capacity(shape.nodes()),
            replay: None,
            flows: None,
            forest: None,
        };
        for node in 0..shape.nodes() {
            let mut s = Source {
                arrivals: rng::stream(seed, node as u64, Purpose::Arrivals),
                destinations: rng::stream(seed, node as u64, Purpose::Destinations),
                next: NEVER,
                dst: node as u32,
                phase: 0,
                start: 0,
                end: workload.phases[0].cycles,
                count: 0,
                offset: 0.0,
            };
            if active {
                if cfg.process.kind() == ProcessKind::Periodic {
                    s.offset = s.arrivals.random::<f64>();
                }
                draw_next(
                    &workload.phases,
                    &workload.patterns,
                    repeat,
                    workload.skip_self,
                    node as u32,
                    &mut s,
                    0,
                );
            }
            workload.sources.push(s);
        }
        workload
    }

    /// The destination pattern of the first phase (the only one without phases).
    pub fn destinations(&self) -> &Destinations {
        &self.patterns[self.phases[0].pattern]
    }

    /// Number of phases in one pass of the schedule (1 without phases).
    pub fn phase_count(&self) -> usize {
        self.phases.len()
    }

    /// The destination pattern of phase `phase`.
    pub fn phase_destinations(&self, phase: usize) -> &Destinations {
        &self.patterns[self.phases[phase].pattern]
    }

    /// The phase the schedule is in at `cycle` (`None` once a non-repeating schedule is over).
    pub fn phase_at(&self, cycle: u64) -> Option<usize> {
        let within = if cycle < self.period {
            cycle
        } else if self.repeat {
            cycle % self.period
        } else {
            return None;
        };
        Some(self.phases.partition_point(|p| p.offset <= within) - 1)
    }

    /// Replays `records` (sorted by creation time) instead of generating packets (or beside
    /// [`flowing`](Self::flowing)'s flows), each created at its trace time times `time_scale`
    /// (rounded).
    pub fn replaying(mut self, records: &[TraceRecord], time_scale: f64) -> Workload {
        let mut per_node = vec![VecDeque::new(); self.sources.len()];
        for r in records {
            per_node[r.src as usize].push_back(Offered {
                created: (r.created as f64 * time_scale).round() as u64,
                dst: r.dst,
                flits: r.flits,
                network: LogicalNetwork::Request,
                message_rest: 0,
                header: 0,
                control: false,
                traced: true,
            });
        }
        self.replay = Some(per_node);
        self
    }

    /// Runs the flows of `cfg` instead of generating packets (uniform and next-group
    /// destinations drawn from streams of `seed`; `groups`: a dragonfly's nodes per group and
    /// groups); a flow without a rate sends at `cap(src)` flits per cycle.
    pub fn flowing(
        mut self,
        cfg: &FlowsConfig,
        groups: Option<(u32, u32)>,
        seed: u64,
        cap: impl Fn(usize) -> f64,
    ) -> Workload {
        self.flows = Some(flows::FlowSources::new(
            cfg,
            self.sources.len(),
            groups,
            self.packet_flits,
            seed,
            cap,
        ));
        self
    }

    /// Runs the congestion forest of `cfg` drawn from `seed` instead of generating packets;
    /// nodes send at `cap(node)` flits per cycle.
    pub fn foresting(
        mut self,
        cfg: &ForestConfig,
        seed: u64,
        cap: impl Fn(usize) -> f64,
    ) -> Workload {
        self.forest = Some(forest::ForestSources::new(
            cfg,
            self.sources.len(),
            self.packet_flits,
            seed,
            cap,
        ));
        self
    }

    /// A forest's hot spots for the whole run, sorted: empty when they move (`None` for other
    /// workloads).
    pub fn forest_hotspots(&self) -> Option<Vec<u32>> {
        let forest = self.forest.as_ref()?;
        Some(if forest.moving() {
            Vec::new()
        } else {
            forest.first_hotspots()
        })
    }

    /// Creation time of `node`'s last packet, for a replayed trace (`None` otherwise, or when
    /// the node has none left).
    pub fn last_time(&self, node: usize) -> Option<u64> {
        self.replay.as_ref()?[node].back().map(|p| p.created)
    }

    /// Creation time of `node`'s next packet ([`NEVER`] if none).
    #[inline]
    pub fn next_time(&self, node: usize) -> u64 {
        let replayed = match &self.replay {
            Some(queues) => queues[node].front().map_or(NEVER, |p| p.created),
            None => NEVER,
        };
        if let Some(flows) = &self.flows {
            return flows.next_time(node).min(replayed);
        }
        if let Some(forest) = &self.forest {
            return forest.next_time(node);
        }
        match &self.replay {
            None => self.sources[node].next,
            Some(_) => replayed,
        }
    }

    /// Takes `node`'s next packet, created at [`next_time`](Self::next_time), as the node's
    /// adapter `backlog` allows: `None` when a forest source waits for its adapter instead.
    pub(crate) fn take_at(&mut self, node: usize, backlog: &impl Backlog) -> Option<Offered> {
        match &mut self.forest {
            Some(forest) => forest.take(node, backlog),
            None => Some(self.take(node)),
        }
    }

    /// `node`'s adapter started a request at `now`: whether a forest source that waited for it
    /// creates its next message now.
    pub(crate) fn started(&mut self, node: usize, now: u64, backlog: &impl Backlog) -> bool {
        self.forest
            .as_mut()
            .is_some_and(|f| f.started(node, now, backlog))
    }

    /// Whether the sources wait for their adapters ([`started`](Self::started) must be called).
    pub(crate) fn closed_loop(&self) -> bool {
        self.forest.is_some()
    }

    /// Takes `node`'s next packet and draws the one after it. The packet's destination follows
    /// the pattern of the phase it is created in.
    pub fn take(&mut self, node: usize) -> Offered {
        if let Some(queues) = &mut self.replay {
            let replayed = queues[node].front().map_or(NEVER, |p| p.created);
            // Beside flows, the trace's packet goes first when it is due no later.
            if self
                .flows
                .as_ref()
                .is_none_or(|f| replayed <= f.next_time(node))
            {
                return queues[node]
                    .pop_front()
                    .expect("take is called only for a node with a next packet");
            }
        }
        if let Some(flows) = &mut self.flows {
            return flows.take(node);
        }
        let Workload {
            patterns,
            phases,
            repeat,
            packet_flits,
            skip_self,
            sources,
            ..
        } = self;
        let source = &mut sources[node];
        let offered = Offered {
            created: source.next,
            dst: source.dst,
            flits: *packet_flits,
            network: LogicalNetwork::Request,
            message_rest: 0,
            header: 0,
            control: false,
            traced: false,
        };
        if source.next != NEVER {
            let from = source.next + 1;
            draw_next(
                phases,
                patterns,
                *repeat,
                *skip_self,
                node as u32,
                source,
                from,
            );
        }
        offered
    }
}

/// Draws `source`'s next packet at or after cycle `from`: its creation time, then its
/// destination from the pattern of the phase it falls in. With `skip_self`, a packet addressed
/// to `node` itself is dropped and the following one drawn (a phase whose pattern sends every
/// packet of `node` to itself is passed over whole).
fn draw_next(
    phases: &[Phase],
    patterns: &[Destinations],
    repeat: bool,
    skip_self: bool,
    node: u32,
    source: &mut Source,
    mut from: u64,
) {
    let mut passed_over = 0;
    loop {
        source.next = advance(phases, repeat, source, from);
        if source.next == NEVER {
            return;
        }
        let pattern = &patterns[phases[source.phase].pattern];
        source.dst = pattern.pick(node, &mut source.destinations);
        if !(skip_self && source.dst == node) {
            return;
        }
        from = if pattern.only_to_self(node) {
            passed_over += 1;
            if passed_over > phases.len() || source.end == NEVER {
                source.next = NEVER;
                return;
            }
            // Nothing of this phase can be sent: leave it (a periodic source by running out
            // of slots, any source by starting from the phase's end).
            source.count = u64::MAX;
            source.end
        } else {
            source.next + 1
        };
    }
}

/// Draws the creation time of `source`'s next packet, the first at or after cycle `from`
/// (which lies in the source's current phase, or at its end), moving the source through the
/// schedule as far as needed. [`NEVER`] when no packet will come.
fn advance(phases: &[Phase], repeat: bool, source: &mut Source, mut from: u64) -> u64 {
    // A periodic phase creates the same slots on every pass, so a whole pass without one means
    // none will ever come.
    let mut empty_phases = 0;
    loop {
        match phases[source.phase].process {
            Process::Bernoulli(ref geometric) => {
                if from < source.end {
                    let t = from.saturating_add(geometric.sample(&mut source.arrivals));
                    if t < source.end {
                        return t;
                    }
                }
                empty_phases = 0;
            }
            Process::Periodic { interval, jitter } => {
                if let Some(t) = periodic_time(interval, jitter, source) {
                    return t;
                }
            }
            Process::Collective(count) => {
                if source.count < count {
                    source.count += 1;
                    return source.start;
                }
            }
            Process::Ramp {
                ref peak,
                peak_probability,
                slope,
            } => {
                let mut t = from;
                while t < source.end {
                    t = t.saturating_add(peak.sample(&mut source.arrivals));
                    if t >= source.end {
                        break;
                    }
                    let probability = slope * (t - source.start) as f64;
                    if source.arrivals.random::<f64>() * peak_probability < probability {
                        return t;
                    }
                    t += 1;
                }
            }
            Process::Silent => {}
        }
        empty_phases += 1;
        if empty_phases > phases.len() {
            return NEVER;
        }
        source.phase += 1;
        if source.phase == phases.len() {
            if !repeat {
                return NEVER;
            }
            source.phase = 0;
        }
        source.start = source.end;
        source.end = source.start.saturating_add(phases[source.phase].cycles);
        source.count = 0;
        if source.start == NEVER {
            return NEVER;
        }
        from = source.start;
    }
}

/// Time of periodic slot number `source.count` of the current phase (then advances the count),
/// or `None` if that slot falls past the phase's end. Slot `i` falls in
/// `[start + (offset + i) T, start + (offset + i + jitter) T)`, so times never go backwards; a
/// jittered time past the phase's end is moved to its last cycle.
fn periodic_time(interval: f64, jitter: f64, source: &mut Source) -> Option<u64> {
    let base = source.offset * interval;
    let count = source.count as f64;
    if source.end != NEVER && base + count * interval >= (source.end - source.start) as f64 {
        return None;
    }
    let delay = if jitter > 0.0 {
        source.arrivals.random::<f64>() * jitter
    } else {
        0.0
    };
    let t = base + (count + delay) * interval;
    source.count += 1;
    Some(source.start.saturating_add(t as u64).min(source.end - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::spec::Spec;

    fn workload(rate: f64, process: ProcessKind, jitter: f64) -> Workload {
        let process = match process {
            ProcessKind::Periodic => ProcessConfig::Periodic { jitter },
            _ => ProcessConfig::Bernoulli,
        };
        let cfg = TrafficConfig {
            rate,
            process,
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

    /// A phased workload on a 4x4 torus from `[traffic]` text.
    fn phased(text: &str) -> Workload {
        let cfg = Spec::from_toml_str(&format!("[topology]\nk = 4\n[traffic]\n{text}"), "<t>")
            .unwrap_or_else(|e| panic!("{e}"));
        Workload::new(&cfg.traffic, &CubeShape::new(vec![4, 4], true), 5)
    }

    /// Every packet of `node` created before `horizon`.
    fn packets(w: &mut Workload, node: usize, horizon: u64) -> Vec<Offered> {
        let mut out = Vec::new();
        while w.next_time(node) < horizon {
            out.push(w.take(node));
        }
        out
    }

    const TWO_PHASES: &str = "packet_flits = 4\n\
        [[traffic.phases]]\ncycles = 1000\npattern = \"uniform\"\nrate = 0.1\n\
        [[traffic.phases]]\ncycles = 500\npattern = \"butterfly\"\nrate = 2.0\n";

    #[test]
    fn phase_at_follows_the_schedule() {
        let w = phased(TWO_PHASES);
        assert_eq!(w.phase_count(), 2);
        let at = |t| w.phase_at(t);
        assert_eq!(
            [at(0), at(999), at(1000), at(1499), at(1500), at(2600)],
            [Some(0), Some(0), Some(1), Some(1), Some(0), Some(1)]
        );
        let once = phased(&format!("repeat_phases = false\n{TWO_PHASES}"));
        assert_eq!((once.phase_at(1499), once.phase_at(1500)), (Some(1), None));
        assert_eq!(
            workload(0.2, ProcessKind::Bernoulli, 0.0).phase_at(1 << 50),
            Some(0)
        );
    }

    #[test]
    fn bernoulli_phases_offer_their_rates() {
        let mut w = phased(TWO_PHASES);
        // Packets per phase over 40 passes and 16 nodes: expected 16,000 (uniform, p = 0.025)
        // and 160,000 (butterfly, p = 0.5); allow 4 standard deviations.
        let mut count = [0u64; 2];
        for node in 0..16 {
            let mut last = 0;
            for p in packets(&mut w, node, 40 * 1500) {
                assert!(p.created >= last);
                last = p.created;
                count[w.phase_at(p.created).unwrap()] += 1;
            }
        }
        for (phase, (expected, p)) in [(16_000.0, 0.025), (160_000.0, 0.5)]
            .into_iter()
            .enumerate()
        {
            let sd = f64::sqrt(expected * (1.0 - p));
            let got = count[phase] as f64;
            assert!(
                (got - expected).abs() < 4.0 * sd,
                "phase {phase}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn periodic_phases_restart_the_grid_with_the_source_offset() {
        let mut w = phased(&format!("process = \"periodic\"\n{TWO_PHASES}"));
        // Uniform phase: one packet every 40 cycles; butterfly: every 2 cycles.
        let node = 6;
        let all = packets(&mut w, node, 3000);
        let offset = w.sources[node].offset;
        let grid = |start: u64, interval: f64, len: u64| -> Vec<u64> {
            (0..)
                .map(|i| (offset + i as f64) * interval)
                .take_while(|&t| t < len as f64)
                .map(|t| start + t as u64)
                .collect()
        };
        let mut expected = grid(0, 40.0, 1000);
        expected.extend(grid(1000, 2.0, 500));
        expected.extend(grid(1500, 40.0, 1000));
        expected.extend(grid(2500, 2.0, 500));
        let times: Vec<u64> = all.iter().map(|p| p.created).collect();
        assert_eq!(times, expected);
        // Exactly 25 or 26 (1000 / 40) and 250 (500 / 2) packets per phase.
        assert!(matches!(grid(0, 40.0, 1000).len(), 25 | 26));
        assert_eq!(grid(1000, 2.0, 500).len(), 250);
    }

    #[test]
    fn jittered_periodic_packets_stay_in_their_phase() {
        let text = format!("process = \"periodic\"\njitter = 1.0\n{TWO_PHASES}");
        let mut w = phased(&text);
        for node in 0..16 {
            let mut last = 0;
            let mut per_phase = [0u64; 2];
            for p in packets(&mut w, node, 1500) {
                assert!(p.created >= last);
                last = p.created;
                let phase = w.phase_at(p.created).unwrap();
                per_phase[phase] += 1;
                // A packet's destination follows the phase it is created in.
                let table = w.phase_destinations(phase);
                if phase == 1 {
                    let mut expected = 0;
                    table.distribution(node as u32, |d, _| expected = d);
                    assert_eq!(p.dst, expected);
                }
            }
            assert!(matches!(per_phase[0], 25 | 26), "{per_phase:?}");
            assert_eq!(per_phase[1], 250);
        }
    }

    #[test]
    fn silent_phases_and_the_end_of_the_schedule() {
        let text = "repeat_phases = false\n\
            [[traffic.phases]]\ncycles = 300\npattern = \"uniform\"\nrate = 0\n\
            [[traffic.phases]]\ncycles = 200\npattern = \"neighbor\"\nrate = 0.5\n";
        let mut w = phased(text);
        for node in 0..16 {
            let all = packets(&mut w, node, NEVER);
            assert!(!all.is_empty());
            assert!(all.iter().all(|p| (300..500).contains(&p.created)));
            assert_eq!(w.next_time(node), NEVER);
        }
        // All phases silent: nothing, ever.
        let w = phased("[[traffic.phases]]\ncycles = 10\npattern = \"uniform\"\nrate = 0\n");
        assert!((0..16).all(|n| w.next_time(n) == NEVER));
    }

    #[test]
    fn periodic_phases_shorter_than_the_offset_end_the_search() {
        // One packet every 20 cycles in 10-cycle phases: a source whose offset is half the
        // interval or more never sends (and the search for its next packet terminates); the
        // others send once per phase.
        let mut w = phased(
            "process = \"periodic\"\n[[traffic.phases]]\ncycles = 10\npattern = \"uniform\"\n\
             rate = 0.4\n[[traffic.phases]]\ncycles = 10\npattern = \"uniform\"\nrate = 0\n",
        );
        let mut silent = 0;
        for node in 0..16 {
            let offset = w.sources[node].offset;
            if w.next_time(node) == NEVER {
                assert!(offset >= 0.5);
                silent += 1;
            } else {
                let all = packets(&mut w, node, 200);
                let times: Vec<u64> = all.iter().map(|p| p.created).collect();
                let slot = (offset * 20.0) as u64;
                assert_eq!(times, (0..10).map(|i| 20 * i + slot).collect::<Vec<_>>());
            }
        }
        assert!(0 < silent && silent < 16, "{silent}");
    }

    #[test]
    fn random_patterns_get_one_table_per_phase() {
        let text = "[[traffic.phases]]\ncycles = 10\npattern = \"random_permutation\"\nrate = 1\n\
            [[traffic.phases]]\ncycles = 10\npattern = \"uniform\"\nrate = 1\n\
            [[traffic.phases]]\ncycles = 10\npattern = \"random_permutation\"\nrate = 1\n\
            [[traffic.phases]]\ncycles = 10\npattern = \"uniform\"\nrate = 1\n";
        let w = phased(text);
        let table = |phase| {
            let mut t = Vec::new();
            for src in 0..16 {
                w.phase_destinations(phase)
                    .distribution(src, |d, _| t.push(d));
            }
            t
        };
        assert_ne!(table(0), table(2), "two draws from the pattern stream");
        assert_eq!(
            w.phases[1].pattern, w.phases[3].pattern,
            "uniform is shared"
        );
        // The first random table is the one `Destinations::new` builds for the run.
        let cfg = Spec::from_toml_str(
            "[topology]\nk = 4\n[traffic]\npattern = \"random_permutation\"",
            "<t>",
        )
        .unwrap();
        let single = Destinations::new(&cfg.traffic, &CubeShape::new(vec![4, 4], true), 5);
        let mut t = Vec::new();
        for src in 0..16 {
            single.distribution(src, |d, _| t.push(d));
        }
        assert_eq!(table(0), t);
    }

    #[test]
    fn skipped_self_packets_leave_fixed_points_silent_and_others_unchanged() {
        // Butterfly on 16 nodes swaps bits 3 and 0: nodes with equal bits send to themselves.
        let single = |skip: &str| phased(&format!("pattern = \"butterfly\"\nrate = 0.3\n{skip}"));
        let (mut deliver, mut skip) = (single(""), single("self_packets = \"skip\""));
        for node in 0..16 {
            let fixed = (node & 1) == (node >> 3);
            let (all, kept) = (
                packets(&mut deliver, node, 5000),
                packets(&mut skip, node, 5000),
            );
            assert!(!all.is_empty());
            if fixed {
                assert!(all.iter().all(|p| p.dst == node as u32));
                assert!(kept.is_empty());
                assert_eq!(skip.next_time(node), NEVER);
            } else {
                assert_eq!(all, kept);
            }
        }
        // In a repeating schedule a fixed point still sends in every phase that lets it.
        for process in ["bernoulli", "periodic"] {
            let mut w = phased(&format!(
                "self_packets = \"skip\"\nprocess = \"{process}\"\n\
                 [[traffic.phases]]\ncycles = 100\npattern = \"butterfly\"\nrate = 1\n\
                 [[traffic.phases]]\ncycles = 100\npattern = \"neighbor\"\nrate = 1\n"
            ));
            let all = packets(&mut w, 0, 2000);
            assert!(all.iter().all(|p| p.dst != 0 && (p.created / 100) % 2 == 1));
            for phase in (1..20).step_by(2) {
                let sent = all.iter().filter(|p| p.created / 100 == phase).count();
                assert!(sent >= 5, "{process}: {sent} packets in phase {phase}");
            }
        }
    }

    #[test]
    fn skipped_self_packets_thin_uniform_traffic_with_self() {
        let mut w = phased(
            "pattern = \"uniform\"\ninclude_self = true\nrate = 1\nself_packets = \"skip\"\n",
        );
        let all = packets(&mut w, 3, 80_000);
        assert!(all.iter().all(|p| p.dst != 3));
        // 10,000 packets offered, one in 16 addressed to the source and dropped.
        let expected = 10_000.0 * 15.0 / 16.0;
        assert!(
            (all.len() as f64 - expected).abs() < 0.05 * expected,
            "{}",
            all.len()
        );
    }
}
