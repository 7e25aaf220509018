//! The sources of `traffic.process = "forest"` (Gran et al., Paper IV of Gran's thesis): every
//! node has two independent sources, hot (to its hot spot) and cold (to uniform destinations
//! among all other nodes), each with a budget growing at its share of the node's rate and
//! capped at one message. A source creates a message when its budget holds one and the
//! adapter can take it:
//!
//! - the hot source waits while its hot spot's queue pair at the adapter still holds a packet
//!   (a throttled hot flow backs up no further, and its share is lost meanwhile);
//! - the cold source waits while `cold_backlog_messages` of its messages wait at the adapter;
//!   its messages wait in their destinations' queue pairs, so a throttled destination does not
//!   hold the others back.
//!
//! That is `posting = "per_class"`; with `posting = "one_message"` (the default) the node
//! hands its adapter one message at a time instead: the next once every packet it posted has
//! started (packets whose queue pair congestion control holds back do not count, so a
//! throttled destination never blocks the others), from the source whose budget is full or,
//! when both are, from the hot one with probability p. An adapter blocked by its link then
//! sends hot and cold messages in the ratio of their shares, where round robin over the queue
//! pairs favours whichever class has more destinations waiting.
//!
//! Neither class can take the other's share: a class never creates more than its share of the
//! time since the start plus one message. Roles and hot spots come from the run's seed only,
//! so runs with and without congestion control see the same forest.

use rand::RngExt;

use super::{NEVER, Offered};
use crate::config::{ForestConfig, ForestPosting};
use crate::packet::LogicalNetwork;
use crate::rng::{Purpose, StreamRng, stream};

/// What a forest source needs to know of its adapter: the requests waiting there, not yet
/// started.
pub(crate) trait Backlog {
    /// Packets of `node` waiting for `dst`.
    fn queued_for(&self, node: usize, dst: u32) -> usize;
    /// Packets of `node` waiting for any destination.
    fn queued(&self, node: usize) -> usize;
    /// Whether `node` has a packet waiting whose queue congestion control does not hold back
    /// (it may start as soon as the link lets it).
    fn has_unheld(&self, node: usize) -> bool;
}

/// A node's role in the forest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Sends only to its hot spot (C).
    Contributor,
    /// Sends only to uniform destinations (V).
    Victim,
    /// Sends a share to its hot spot and the rest uniformly (B).
    Both,
}

/// One class's source at a node.
#[derive(Debug, Clone)]
struct Source {
    /// Cycles the budget takes to grow by one message (infinite for a silent source).
    interval: f64,
    /// The (fractional) cycle at which the budget holds one message.
    ready: f64,
    /// The budget is full but the adapter cannot take the message: waiting for `started`.
    parked: bool,
}

impl Source {
    fn new(rate: f64, message_flits: u32, phase: f64) -> Source {
        let interval = if rate > 0.0 {
            f64::from(message_flits) / rate
        } else {
            f64::INFINITY
        };
        Source {
            interval,
            ready: phase * interval,
            parked: false,
        }
    }

    /// The cycle of its next message (`NEVER`: silent or waiting for the adapter).
    fn next(&self) -> u64 {
        if self.parked || !self.ready.is_finite() {
            NEVER
        } else {
            self.ready.ceil() as u64
        }
    }

    /// A message was created (or skipped) at its ready time: the budget starts again.
    fn spend(&mut self) {
        self.ready += self.interval;
    }

    /// The adapter can take a message at `now`: the budget, full since it parked, is spent at
    /// once.
    fn unpark(&mut self, now: u64) {
        self.parked = false;
        self.ready = now as f64;
    }
}

/// A node's sources.
#[derive(Debug, Clone)]
struct Node {
    hot: Source,
    cold: Source,
    /// The share of its rate sent to its hot spot (p).
    hot_share: f64,
    /// Its hot spot's index in the set of hot spots (C and B nodes).
    target: Option<usize>,
    /// Cold destinations.
    rng: StreamRng,
    /// The message being split into packets: its destination, creation cycle and flits left.
    message: Option<(u32, u64, u32)>,
}

/// Every node's forest sources and the hot spots over time.
#[derive(Debug, Clone)]
pub(crate) struct ForestSources {
    nodes: Vec<Node>,
    /// The hot spots of each lifetime so far (`hotspots` entries each).
    sets: Vec<u32>,
    hotspots: usize,
    /// Cycles per set (`NEVER`: one set for the whole run).
    lifetime: u64,
    /// Draws the later sets.
    moves: StreamRng,
    hotspots_send: bool,
    message_flits: u32,
    packet_flits: u32,
    cold_backlog_packets: usize,
    posting: ForestPosting,
}

impl ForestSources {
    /// The forest of `cfg` on `nodes` nodes sending `packet_flits`-flit packets at `cap(node)`
    /// flits per cycle, drawn from `seed`.
    pub(crate) fn new(
        cfg: &ForestConfig,
        nodes: usize,
        packet_flits: u32,
        seed: u64,
        cap: impl Fn(usize) -> f64,
    ) -> ForestSources {
        let mut rng = stream(seed, 0, Purpose::Forest);
        let hotspots = (cfg.hotspots as usize).min(nodes);
        let sets = distinct(&mut rng, nodes, hotspots);
        let mut order: Vec<usize> = (0..nodes).collect();
        shuffle(&mut rng, &mut order);
        let b_nodes = (cfg.b_nodes * nodes as f64).round() as usize;
        let contributors = (cfg.contributors * (nodes - b_nodes) as f64).round() as usize;
        let mut roles = vec![(Role::Victim, None); nodes];
        for (k, &node) in order.iter().enumerate() {
            roles[node] = if k < b_nodes {
                (Role::Both, Some(k % hotspots))
            } else if k < b_nodes + contributors {
                (Role::Contributor, Some((k - b_nodes) % hotspots))
            } else {
                (Role::Victim, None)
            };
        }
        // Fixed hot spots that do not send are silent for the whole run (moving ones while
        // they are hot spots: `start_message`).
        let silent = |node: usize| {
            !cfg.hotspots_send && cfg.hotspot_lifetime.is_none() && sets.contains(&(node as u32))
        };
        let nodes_state = roles
            .into_iter()
            .enumerate()
            .map(|(node, (role, target))| {
                let share = match role {
                    Role::Contributor => 1.0,
                    Role::Victim => 0.0,
                    Role::Both => cfg.b_share,
                };
                let rate = if silent(node) { 0.0 } else { cap(node) };
                let hot_rate = if cfg.hot_traffic { rate * share } else { 0.0 };
                let mut rng = stream(seed, node as u64, Purpose::Destinations);
                let (hot_phase, cold_phase) = (rng.random::<f64>(), rng.random::<f64>());
                let mut hot = Source::new(hot_rate, cfg.message_flits, hot_phase);
                hot.ready += cfg.hot_start as f64;
                Node {
                    hot_share: share,
                    hot,
                    cold: Source::new(rate * (1.0 - share), cfg.message_flits, cold_phase),
                    target,
                    rng,
                    message: None,
                }
            })
            .collect();
        ForestSources {
            nodes: nodes_state,
            sets,
            hotspots,
            lifetime: cfg.hotspot_lifetime.unwrap_or(NEVER),
            moves: rng,
            hotspots_send: cfg.hotspots_send,
            message_flits: cfg.message_flits,
            packet_flits,
            cold_backlog_packets: (cfg.cold_backlog_messages * cfg.message_flits)
                .div_ceil(packet_flits) as usize,
            posting: cfg.posting,
        }
    }

    /// The hot spots of the first lifetime (of the whole run when they do not move), sorted.
    pub(crate) fn first_hotspots(&self) -> Vec<u32> {
        let mut first = self.sets[..self.hotspots].to_vec();
        first.sort_unstable();
        first
    }

    /// Whether the hot spots move.
    pub(crate) fn moving(&self) -> bool {
        self.lifetime != NEVER
    }

    /// The hot spots at cycle `t` (drawing the sets up to it).
    fn hotspots_at(&mut self, t: u64) -> &[u32] {
        let epoch = (t / self.lifetime) as usize;
        let nodes = self.nodes.len();
        while self.sets.len() < (epoch + 1) * self.hotspots {
            let next = distinct(&mut self.moves, nodes, self.hotspots);
            self.sets.extend(next);
        }
        &self.sets[epoch * self.hotspots..(epoch + 1) * self.hotspots]
    }

    /// Creation cycle of `node`'s next packet ([`NEVER`] if none is due before the adapter
    /// takes more).
    #[inline]
    pub(crate) fn next_time(&self, node: usize) -> u64 {
        let n = &self.nodes[node];
        match n.message {
            Some((_, created, _)) => created,
            None => n.hot.next().min(n.cold.next()),
        }
    }

    /// Takes `node`'s next packet at its creation cycle: `None` when the source whose turn it
    /// is cannot create a message now (it waits for its adapter, or has nothing to send).
    pub(crate) fn take(&mut self, node: usize, backlog: &impl Backlog) -> Option<Offered> {
        if self.nodes[node].message.is_none() {
            self.start_message(node, backlog)?;
        }
        let n = &mut self.nodes[node];
        let (dst, created, left) = n.message.as_mut().expect("a message was started");
        let flits = (*left).min(self.packet_flits);
        *left -= flits;
        let packet = Offered {
            created: *created,
            dst: *dst,
            flits,
            network: LogicalNetwork::Request,
            message_rest: left.div_ceil(self.packet_flits),
            header: 0,
            control: false,
            traced: false,
        };
        if *left == 0 {
            n.message = None;
        }
        Some(packet)
    }

    /// Starts the message of the next source, if it may (as `posting` says).
    fn start_message(&mut self, node: usize, backlog: &impl Backlog) -> Option<()> {
        let t = self.next_time(node);
        if t == NEVER {
            return None;
        }
        let hotspot = self.hot_destination(node, t);
        let silent =
            !self.hotspots_send && self.moving() && self.hotspots_at(t).contains(&(node as u32));
        let hot_first = match self.posting {
            ForestPosting::PerClass => self.nodes[node].hot.next() <= self.nodes[node].cold.next(),
            ForestPosting::OneMessage => {
                if backlog.has_unheld(node) {
                    let n = &mut self.nodes[node];
                    for source in [&mut n.hot, &mut n.cold] {
                        source.parked |= source.next() <= t;
                    }
                    return None;
                }
                let n = &mut self.nodes[node];
                let (hot_full, cold_full) = (n.hot.next() <= t, n.cold.next() <= t);
                hot_full && (!cold_full || n.rng.random::<f64>() < n.hot_share)
            }
        };
        let nodes = self.nodes.len() as u32;
        let n = &mut self.nodes[node];
        if hot_first {
            let dst = hotspot.filter(|&h| h as usize != node && !silent);
            let Some(dst) = dst else {
                n.hot.spend();
                return None;
            };
            if backlog.queued_for(node, dst) > 0 {
                n.hot.parked = true;
                return None;
            }
            n.hot.spend();
            n.message = Some((dst, t, self.message_flits));
        } else {
            if silent {
                n.cold.spend();
                return None;
            }
            if self.posting == ForestPosting::PerClass {
                let hot_waiting = hotspot.map_or(0, |h| backlog.queued_for(node, h));
                if backlog.queued(node) - hot_waiting >= self.cold_backlog_packets {
                    n.cold.parked = true;
                    return None;
                }
            }
            n.cold.spend();
            let mut dst = n.rng.random_range(0..nodes - 1);
            if dst >= node as u32 {
                dst += 1;
            }
            n.message = Some((dst, t, self.message_flits));
        }
        Some(())
    }

    /// `node`'s hot spot at cycle `t` (C and B nodes).
    fn hot_destination(&mut self, node: usize, t: u64) -> Option<u32> {
        let target = self.nodes[node].target?;
        let at = if self.moving() { t } else { 0 };
        Some(self.hotspots_at(at)[target])
    }

    /// `node`'s adapter started a packet at `now`: a source waiting for room may create its
    /// message now. Whether one does (the node's next creation is then `now`).
    pub(crate) fn started(&mut self, node: usize, now: u64, backlog: &impl Backlog) -> bool {
        if !self.nodes[node].hot.parked && !self.nodes[node].cold.parked {
            return false;
        }
        let one_message = self.posting == ForestPosting::OneMessage;
        if one_message && backlog.has_unheld(node) {
            return false;
        }
        let hot_waiting = self
            .hot_destination(node, now)
            .map(|h| backlog.queued_for(node, h));
        let cold_room = one_message
            || backlog.queued(node) - hot_waiting.unwrap_or(0) < self.cold_backlog_packets;
        let n = &mut self.nodes[node];
        let mut woke = false;
        if n.hot.parked && hot_waiting == Some(0) {
            n.hot.unpark(now);
            woke = true;
        }
        if n.cold.parked && cold_room {
            n.cold.unpark(now);
            woke = true;
        }
        woke
    }
}

/// `count` distinct nodes of `0..nodes`, drawn uniformly.
fn distinct(rng: &mut StreamRng, nodes: usize, count: usize) -> Vec<u32> {
    let mut all: Vec<u32> = (0..nodes as u32).collect();
    for i in 0..count {
        let j = rng.random_range(i..nodes);
        all.swap(i, j);
    }
    all.truncate(count);
    all
}

/// Shuffles `items` uniformly (Fisher–Yates).
fn shuffle(rng: &mut StreamRng, items: &mut [usize]) {
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    /// An adapter that keeps every created packet for a chosen set of destinations (held
    /// back, as by a throttled queue pair) and starts all others at once.
    #[derive(Default)]
    struct Adapter {
        held: Vec<u32>,
        waiting: RefCell<BTreeMap<(usize, u32), usize>>,
    }

    impl Backlog for Adapter {
        fn queued_for(&self, node: usize, dst: u32) -> usize {
            self.waiting
                .borrow()
                .get(&(node, dst))
                .copied()
                .unwrap_or(0)
        }

        fn queued(&self, node: usize) -> usize {
            self.waiting
                .borrow()
                .range((node, 0)..=(node, u32::MAX))
                .map(|(_, n)| n)
                .sum()
        }

        fn has_unheld(&self, node: usize) -> bool {
            self.waiting
                .borrow()
                .range((node, 0)..=(node, u32::MAX))
                .any(|(&(_, dst), &n)| n > 0 && !self.held.contains(&dst))
        }
    }

    fn config(b_nodes: f64, b_share: f64) -> ForestConfig {
        ForestConfig {
            hotspots: 8,
            b_nodes,
            b_share,
            contributors: 0.8,
            hot_traffic: true,
            hotspots_send: true,
            hotspot_lifetime: None,
            hot_start: 0,
            cold_backlog_messages: 4,
            posting: ForestPosting::PerClass,
            message_flits: 64,
        }
    }

    /// Runs the sources of `node` until `until`, returning flits created by class (hot, cold).
    fn run(forest: &mut ForestSources, adapter: &Adapter, node: usize, until: u64) -> (u64, u64) {
        let (mut hot, mut cold) = (0, 0);
        let mut from_hot = false;
        loop {
            if forest.next_time(node) >= until {
                break;
            }
            let before = forest.nodes[node].hot.ready;
            if let Some(p) = forest.take(node, adapter) {
                // A message's class is the source whose budget it spent.
                if forest.nodes[node].hot.ready != before {
                    from_hot = true;
                } else if p.message_rest == 1 {
                    from_hot = false;
                }
                if from_hot {
                    hot += u64::from(p.flits);
                } else {
                    cold += u64::from(p.flits);
                }
                if adapter.held.contains(&p.dst) {
                    *adapter
                        .waiting
                        .borrow_mut()
                        .entry((node, p.dst))
                        .or_default() += 1;
                }
            }
        }
        (hot, cold)
    }

    /// `node`'s role, as its sources show it (a B node's hot share must be below 1).
    fn role(forest: &ForestSources, node: usize) -> Role {
        let n = &forest.nodes[node];
        match n.target {
            None => Role::Victim,
            Some(_) if n.cold.interval.is_infinite() => Role::Contributor,
            Some(_) => Role::Both,
        }
    }

    fn node_of(forest: &ForestSources, wanted: Role) -> usize {
        (0..forest.nodes.len())
            .find(|&n| role(forest, n) == wanted && !forest.first_hotspots().contains(&(n as u32)))
            .unwrap()
    }

    #[test]
    fn roles_and_hot_spots_come_from_the_seed_alone() {
        let forest = |seed| ForestSources::new(&config(0.25, 0.5), 648, 32, seed, |_| 0.84);
        let (a, b, c) = (forest(1), forest(1), forest(2));
        let roles = |f: &ForestSources| (0..648).map(|n| role(f, n)).collect::<Vec<_>>();
        assert_eq!(roles(&a), roles(&b));
        assert_eq!(a.first_hotspots(), b.first_hotspots());
        assert_ne!(a.first_hotspots(), c.first_hotspots());
        let count = |role| roles(&a).iter().filter(|&&r| r == role).count();
        assert_eq!(count(Role::Both), 162);
        assert_eq!(count(Role::Contributor), 389);
        assert_eq!(count(Role::Victim), 97);
        // Contributors are split evenly over the hot spots.
        let mut per_hotspot = [0; 8];
        for n in 0..648 {
            if role(&a, n) == Role::Contributor {
                per_hotspot[a.nodes[n].target.unwrap()] += 1;
            }
        }
        assert!(
            per_hotspot.iter().all(|&k| k == 48 || k == 49),
            "{per_hotspot:?}"
        );
    }

    #[test]
    fn each_class_creates_at_most_its_share_plus_one_message() {
        let rate = 0.84;
        for share in [0.1, 0.5, 0.9] {
            let forest = ForestSources::new(&config(1.0, share), 64, 32, 3, |_| rate);
            let node = node_of(&forest, Role::Both);
            let adapter = Adapter::default();
            for until in [1_000, 10_000, 100_000] {
                let mut f = forest.clone();
                let (hot, cold) = run(&mut f, &adapter, node, until);
                let t = until as f64;
                assert!(
                    hot as f64 <= share * rate * t + 64.0,
                    "{share} {until}: {hot}"
                );
                assert!(
                    cold as f64 <= (1.0 - share) * rate * t + 64.0,
                    "{share}: {cold}"
                );
                // And not much less: the adapter takes everything at once.
                assert!(
                    hot as f64 >= share * rate * t - 128.0,
                    "{share} {until}: {hot}"
                );
                assert!(
                    cold as f64 >= (1.0 - share) * rate * t - 128.0,
                    "{share}: {cold}"
                );
            }
        }
    }

    /// With `hot_start`, a B node sends only cold traffic until then, and its hot source then
    /// earns its share of the time since the start, not since the run's start.
    #[test]
    fn hot_sources_start_at_the_onset() {
        let (rate, share, start) = (0.84, 0.5, 10_000);
        let mut cfg = config(1.0, share);
        cfg.hot_start = start;
        let forest = ForestSources::new(&cfg, 64, 32, 3, |_| rate);
        let node = node_of(&forest, Role::Both);
        let adapter = Adapter::default();
        let (hot, cold) = run(&mut forest.clone(), &adapter, node, start);
        assert_eq!(hot, 0);
        assert!(cold as f64 >= (1.0 - share) * rate * start as f64 - 128.0);
        let until = 3 * start;
        let (hot, _) = run(&mut forest.clone(), &adapter, node, until);
        let earned = share * rate * (until - start) as f64;
        assert!(
            (earned - 128.0..=earned + 64.0).contains(&(hot as f64)),
            "{hot} flits against {earned}"
        );
    }

    #[test]
    fn a_held_hot_queue_pair_neither_backs_up_nor_takes_the_cold_share() {
        let rate = 0.84;
        for posting in [ForestPosting::PerClass, ForestPosting::OneMessage] {
            let mut cfg = config(1.0, 0.5);
            cfg.posting = posting;
            let mut forest = ForestSources::new(&cfg, 64, 32, 5, |_| rate);
            let node = node_of(&forest, Role::Both);
            let hotspot = forest.hot_destination(node, 0).unwrap();
            let adapter = Adapter {
                held: vec![hotspot],
                ..Adapter::default()
            };
            let (hot, cold) = run(&mut forest, &adapter, node, 100_000);
            // One hot message, then the hot source waits for its queue pair.
            assert_eq!(hot, 64, "{posting:?}");
            assert!(forest.nodes[node].hot.parked);
            let expected = 0.5 * rate * 100_000.0;
            assert!(
                (cold as f64 - expected).abs() <= 128.0,
                "{posting:?}: {cold} vs {expected}"
            );
            // The queue pair empties: the hot source creates its next message at once.
            adapter.waiting.borrow_mut().clear();
            assert!(forest.started(node, 100_000, &adapter));
            assert_eq!(forest.nodes[node].hot.next(), 100_000);
        }
    }

    /// Runs `node`'s sources until `until` in front of an adapter whose link starts the
    /// oldest waiting packet every `period` cycles (none held back by congestion control);
    /// returns flits started by class (hot, cold).
    fn run_link_blocked(
        forest: &mut ForestSources,
        node: usize,
        until: u64,
        period: u64,
    ) -> (u64, u64) {
        let adapter = Adapter::default();
        let mut queue = std::collections::VecDeque::new();
        let (mut hot, mut cold, mut from_hot) = (0, 0, false);
        for t in 0..until {
            while forest.next_time(node) <= t {
                let before = forest.nodes[node].hot.ready;
                let Some(p) = forest.take(node, &adapter) else {
                    continue;
                };
                if forest.nodes[node].hot.ready != before {
                    from_hot = true;
                } else if p.message_rest == 1 {
                    from_hot = false;
                }
                *adapter
                    .waiting
                    .borrow_mut()
                    .entry((node, p.dst))
                    .or_default() += 1;
                queue.push_back((p.dst, p.flits, from_hot));
            }
            if t % period == 0
                && let Some((dst, flits, is_hot)) = queue.pop_front()
            {
                *adapter.waiting.borrow_mut().get_mut(&(node, dst)).unwrap() -= 1;
                if is_hot {
                    hot += u64::from(flits);
                } else {
                    cold += u64::from(flits);
                }
                forest.started(node, t, &adapter);
            }
        }
        (hot, cold)
    }

    #[test]
    fn one_message_at_a_time_sends_the_shares_ratio_when_the_link_is_the_limit() {
        for share in [0.1, 0.5, 0.9] {
            let mut cfg = config(1.0, share);
            cfg.posting = ForestPosting::OneMessage;
            let mut forest = ForestSources::new(&cfg, 64, 32, 7, |_| 0.84);
            let node = node_of(&forest, Role::Both);
            // The link takes a packet every 400 cycles, a tenth of the node's rate: both
            // budgets are always full, and each message is hot with probability p.
            let (hot, cold) = run_link_blocked(&mut forest, node, 1_000_000, 400);
            let fraction = hot as f64 / (hot + cold) as f64;
            assert!((fraction - share).abs() < 0.03, "p = {share}: {fraction}");
            // The link idles only before the first message.
            assert!(hot + cold >= 2_499 * 32, "{hot} + {cold}");
        }
        // Each class on its own: the four cold messages waiting beside the hot one take four
        // turns in five, whatever p.
        let mut forest = ForestSources::new(&config(1.0, 0.9), 64, 32, 7, |_| 0.84);
        let node = node_of(&forest, Role::Both);
        let (hot, cold) = run_link_blocked(&mut forest, node, 1_000_000, 400);
        assert!(hot * 2 < cold, "{hot} hot, {cold} cold");
    }

    #[test]
    fn cold_sources_wait_while_their_backlog_is_full() {
        let mut forest = ForestSources::new(&config(0.0, 0.0), 64, 32, 5, |_| 0.84);
        let node = node_of(&forest, Role::Victim);
        let adapter = Adapter {
            held: (0..64).collect(),
            ..Adapter::default()
        };
        let (_, cold) = run(&mut forest, &adapter, node, 100_000);
        assert_eq!(cold, 4 * 64, "four messages, then the source waits");
        assert!(forest.nodes[node].cold.parked);
        assert!(!forest.started(node, 100_000, &adapter));
        adapter.waiting.borrow_mut().pop_first();
        assert!(forest.started(node, 100_000, &adapter));
    }

    #[test]
    fn moving_hot_spots_are_distinct_and_contributors_follow_their_index() {
        let mut cfg = config(0.0, 0.0);
        cfg.hotspot_lifetime = Some(1000);
        let mut forest = ForestSources::new(&cfg, 64, 32, 9, |_| 0.84);
        let node = node_of(&forest, Role::Contributor);
        let target = forest.nodes[node].target.unwrap();
        let mut seen = Vec::new();
        for epoch in 0..20u64 {
            let set = forest.hotspots_at(epoch * 1000 + 999).to_vec();
            let mut sorted = set.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 8);
            assert_eq!(
                forest.hot_destination(node, epoch * 1000),
                Some(set[target])
            );
            seen.push(set[target]);
        }
        seen.sort_unstable();
        seen.dedup();
        assert!(seen.len() > 10, "the hot spot moves: {seen:?}");
    }
}
