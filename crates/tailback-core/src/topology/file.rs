//! Custom topologies from a text file: switches with port counts, nodes on switch ports, links
//! with latency and speed, and optional forwarding-table entries; routes missing from the
//! tables follow shortest paths.
//!
//! ```text
//! # A comment runs to the end of the line.
//! switch s0 ports 4
//! switch s1 ports 4
//! node a s0.0                  # node `a` on port 0 of switch s0
//! node b s1.0 speed 1
//! link s0.3 s1.3 latency 2 speed 2
//! route s0 b 3                 # at s0, packets for b leave through port 3
//! ```
//!
//! A route may list several ports (`route s0 b 3 2`): adaptive routing chooses among them per
//! packet; table routing takes the first. `sl2vl s0.3 0 0` gives the SL-to-VL table of an
//! output port on the buffered fabric: the lane of service level 0, 1, … there (unlisted
//! service levels keep their own lane).
//!
//! Nodes are numbered in the order they are declared, switches likewise. A link is
//! bidirectional. Speeds are relative rates: the fastest channel takes a flit per cycle and a
//! channel of speed `s` takes `max_speed / s` cycles per flit (which must be a whole number).

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use super::{Link, Port, Topology};
use crate::bitset::bits64;
use crate::ids::{NodeId, PortId, RouterId};

/// Most ports a switch may have.
const MAX_PORTS: u32 = 64;
/// No route: the switch cannot reach the node.
const NO_ROUTE: u8 = u8::MAX;

/// A problem in a topology file, with the 1-based line it is on (0: the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

/// What a switch port is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
enum Attached {
    Free,
    Node(u32),
    /// The far switch and port.
    Switch(u32, u8),
}

/// One switch port: what it leads to, the channel's latency (0: the default) and its speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct FilePort {
    to: Attached,
    latency: u32,
    speed: u32,
    line: usize,
}

/// A parsed, checked topology file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CustomShape {
    switch_names: Vec<String>,
    node_names: Vec<String>,
    /// Ports of each switch, switch after switch; `first_port[s]..first_port[s + 1]`.
    ports: Vec<FilePort>,
    first_port: Vec<u32>,
    /// Switch and port of each node.
    attach: Vec<(u32, u8)>,
    /// Output port from each switch towards each node (`switch * nodes + node`).
    next: Vec<u8>,
    /// Every port a route lists, as a mask per (switch, node), when some route lists several
    /// (empty otherwise).
    choices: Vec<u64>,
    /// SL-to-VL tables given for output ports: (port index, its line, the lane of each SL).
    lanes: Vec<(u32, usize, Vec<u8>)>,
}

/// A `route` line: at `switch`, packets for `node` leave through `first` (table routing) or
/// any port of the mask `ports` (adaptive routing).
#[derive(Debug, Clone, Copy)]
struct RouteLine {
    line: usize,
    switch: u32,
    node: u32,
    first: u8,
    ports: u64,
}

/// The words of a line without its comment.
fn words(line: &str) -> Vec<&str> {
    line.split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect()
}

impl CustomShape {
    /// Parses and checks topology file `text`.
    pub fn parse(text: &str) -> Result<CustomShape, FileError> {
        let mut shape = CustomShape {
            switch_names: Vec::new(),
            node_names: Vec::new(),
            ports: Vec::new(),
            first_port: vec![0],
            attach: Vec::new(),
            next: Vec::new(),
            choices: Vec::new(),
            lanes: Vec::new(),
        };
        let mut switches: BTreeMap<String, u32> = BTreeMap::new();
        let mut nodes: BTreeMap<String, (u32, usize)> = BTreeMap::new();
        let mut routes: Vec<RouteLine> = Vec::new();
        let mut switch_lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let fail = |message: String| Err(FileError { line, message });
            let w = words(raw);
            match w.as_slice() {
                [] => {}
                ["switch", name, "ports", count] => {
                    let count =
                        number(count, "port count", 1, MAX_PORTS).map_err(|m| at(line, m))?;
                    if switches
                        .insert(name.to_string(), shape.switch_names.len() as u32)
                        .is_some()
                    {
                        return fail(format!("switch `{name}` is declared twice"));
                    }
                    shape.switch_names.push(name.to_string());
                    switch_lines.push(line);
                    let free = FilePort {
                        to: Attached::Free,
                        latency: 0,
                        speed: 1,
                        line: 0,
                    };
                    shape
                        .ports
                        .extend(std::iter::repeat_n(free, count as usize));
                    shape.first_port.push(shape.ports.len() as u32);
                }
                ["node", name, port, rest @ ..] => {
                    let (s, p) = shape.port_of(&switches, port).map_err(|m| at(line, m))?;
                    let (latency, speed) = options(rest, false).map_err(|m| at(line, m))?;
                    let id = shape.node_names.len() as u32;
                    if nodes.insert(name.to_string(), (id, line)).is_some() {
                        return fail(format!("node `{name}` is declared twice"));
                    }
                    shape.node_names.push(name.to_string());
                    shape.attach.push((s, p));
                    shape.plug(s, p, Attached::Node(id), latency, speed, line)?;
                }
                ["link", a, b, rest @ ..] => {
                    let (sa, pa) = shape.port_of(&switches, a).map_err(|m| at(line, m))?;
                    let (sb, pb) = shape.port_of(&switches, b).map_err(|m| at(line, m))?;
                    if (sa, pa) == (sb, pb) {
                        return fail(format!("link joins port {a} to itself"));
                    }
                    let (latency, speed) = options(rest, true).map_err(|m| at(line, m))?;
                    shape.plug(sa, pa, Attached::Switch(sb, pb), latency, speed, line)?;
                    shape.plug(sb, pb, Attached::Switch(sa, pa), latency, speed, line)?;
                }
                ["route", switch, node, listed @ ..] if !listed.is_empty() => {
                    let Some(&s) = switches.get(*switch) else {
                        return fail(format!("unknown switch `{switch}`"));
                    };
                    let Some(&(n, _)) = nodes.get(*node) else {
                        return fail(format!(
                            "unknown node `{node}` (declare nodes before routes)"
                        ));
                    };
                    let count = shape.port_count(s);
                    let mut ports = 0u64;
                    for port in listed {
                        let p = number(port, "port", 0, count - 1).map_err(|m| at(line, m))?;
                        if ports >> p & 1 == 1 {
                            return fail(format!("port {p} is listed twice"));
                        }
                        ports |= 1 << p;
                    }
                    let first = number(listed[0], "port", 0, count - 1).map_err(|m| at(line, m))?;
                    routes.push(RouteLine {
                        line,
                        switch: s,
                        node: n,
                        first: first as u8,
                        ports,
                    });
                }
                ["sl2vl", port, listed @ ..] if !listed.is_empty() => {
                    let (s, p) = shape.port_of(&switches, port).map_err(|m| at(line, m))?;
                    let index = shape.first_port[s as usize] + u32::from(p);
                    if let Some((_, first, _)) = shape.lanes.iter().find(|l| l.0 == index) {
                        return fail(format!(
                            "the SL-to-VL table of {port} is already given on line {first}"
                        ));
                    }
                    let lanes = listed
                        .iter()
                        .map(|vl| number(vl, "lane", 0, 31).map(|v| v as u8))
                        .collect::<Result<Vec<u8>, String>>()
                        .map_err(|m| at(line, m))?;
                    shape.lanes.push((index, line, lanes));
                }
                [word, ..] if ["switch", "node", "link", "route", "sl2vl"].contains(word) => {
                    return fail(format!("malformed `{word}` line; expected {}", usage(word)));
                }
                [word, ..] => {
                    return fail(format!(
                        "unknown directive `{word}`; expected switch, node, link, route or sl2vl"
                    ));
                }
            }
        }
        if shape.node_names.len() < 2 {
            return Err(at(0, "a topology needs at least two nodes".to_string()));
        }
        let fastest = shape.ports.iter().map(|p| p.speed).max().unwrap_or(1);
        if let Some(p) = shape.ports.iter().find(|p| fastest % p.speed != 0) {
            return Err(at(
                p.line,
                format!(
                    "speed {} does not divide the fastest speed {fastest}: channels take whole \
                     cycles per flit",
                    p.speed
                ),
            ));
        }
        shape.route(&routes, &switch_lines)?;
        Ok(shape)
    }

    fn port_count(&self, switch: u32) -> u32 {
        self.first_port[switch as usize + 1] - self.first_port[switch as usize]
    }

    fn port(&self, switch: u32, port: u8) -> &FilePort {
        &self.ports[(self.first_port[switch as usize] + u32::from(port)) as usize]
    }

    /// Switch and port of a `SWITCH.PORT` reference.
    fn port_of(&self, switches: &BTreeMap<String, u32>, text: &str) -> Result<(u32, u8), String> {
        let Some((name, port)) = text.rsplit_once('.') else {
            return Err(format!("`{text}` is not SWITCH.PORT"));
        };
        let Some(&s) = switches.get(name) else {
            return Err(format!(
                "unknown switch `{name}` in `{text}` (declare switches first)"
            ));
        };
        let count = self.port_count(s);
        let p = number(port, "port", 0, count.saturating_sub(1))
            .map_err(|m| format!("{m} in `{text}`: switch `{name}` has {count} ports"))?;
        Ok((s, p as u8))
    }

    /// Attaches `to` to a free port.
    fn plug(
        &mut self,
        switch: u32,
        port: u8,
        to: Attached,
        latency: u32,
        speed: u32,
        line: usize,
    ) -> Result<(), FileError> {
        let index = (self.first_port[switch as usize] + u32::from(port)) as usize;
        let slot = &mut self.ports[index];
        if slot.to != Attached::Free {
            let what = if matches!(to, Attached::Switch(..)) {
                "duplicate link"
            } else {
                "port in use"
            };
            return Err(at(
                line,
                format!(
                    "{what}: port {}.{port} is already connected on line {}",
                    self.switch_names[switch as usize], slot.line
                ),
            ));
        }
        *slot = FilePort {
            to,
            latency,
            speed,
            line,
        };
        Ok(())
    }

    /// Fills the next-hop table: the file's entries, then shortest paths for the rest; checks
    /// that no entry is given twice, that every switch is reachable from some node (declared
    /// on `switch_lines`), that every node reaches every other and that no route loops.
    fn route(&mut self, entries: &[RouteLine], switch_lines: &[usize]) -> Result<(), FileError> {
        let (switches, nodes) = (self.switch_names.len(), self.node_names.len());
        self.next = vec![NO_ROUTE; switches * nodes];
        // The line giving each route (0: none), as u32 to halve the table on big files.
        let mut given = vec![0u32; switches * nodes];
        for &RouteLine {
            line,
            switch: s,
            node: n,
            first: p,
            ports,
        } in entries
        {
            if let Some(free) = bits64(ports).find(|&q| self.port(s, q as u8).to == Attached::Free)
            {
                return Err(at(
                    line,
                    format!(
                        "port {free} of switch `{}` is not connected",
                        self.switch_names[s as usize]
                    ),
                ));
            }
            let first = given[s as usize * nodes + n as usize];
            if first != 0 {
                return Err(at(
                    line,
                    format!(
                        "the route at switch `{}` towards node `{}` is already given on line \
                         {first}",
                        self.switch_names[s as usize], self.node_names[n as usize]
                    ),
                ));
            }
            self.next[s as usize * nodes + n as usize] = p;
            given[s as usize * nodes + n as usize] = line as u32;
        }
        // Breadth-first from each node's switch over the links, filling what the file left.
        let mut distance = vec![u32::MAX; switches];
        let mut queue = VecDeque::new();
        for n in 0..nodes {
            let (home, port) = self.attach[n];
            distance.fill(u32::MAX);
            distance[home as usize] = 0;
            queue.push_back(home);
            let entry = &mut self.next[home as usize * nodes + n];
            if *entry == NO_ROUTE {
                *entry = port;
            }
            while let Some(s) = queue.pop_front() {
                for q in 0..self.port_count(s) as u8 {
                    if let Attached::Switch(t, back) = self.port(s, q).to
                        && distance[t as usize] == u32::MAX
                    {
                        distance[t as usize] = distance[s as usize] + 1;
                        queue.push_back(t);
                        // `t` goes through `s`, the first of its neighbours one hop nearer
                        // found (switches in breadth-first order, ports in order).
                        let entry = &mut self.next[t as usize * nodes + n];
                        if *entry == NO_ROUTE {
                            *entry = back;
                        }
                    }
                }
            }
        }
        // A switch no node reaches carries nothing and has no routes.
        if let Some(s) = (0..switches).find(|&s| {
            nodes > 0
                && self.next[s * nodes..(s + 1) * nodes]
                    .iter()
                    .all(|&p| p == NO_ROUTE)
        }) {
            return Err(at(
                switch_lines[s],
                format!(
                    "switch `{}` is reachable from no node; link it to the switches with nodes \
                     or remove it",
                    self.switch_names[s]
                ),
            ));
        }
        // Every node reaches every other without loops. A route's remainder from a switch
        // depends only on the switch, so for each destination a route is followed only up to
        // a switch an earlier one showed to lead there.
        let mut leads_to = vec![usize::MAX; switches];
        let mut path = Vec::new();
        for dst in 0..nodes {
            for src in 0..nodes {
                let mut s = self.attach[src].0;
                let mut hops = 0;
                path.clear();
                loop {
                    if leads_to[s as usize] == dst {
                        break;
                    }
                    path.push(s);
                    let p = self.next[s as usize * nodes + dst];
                    let line = given[s as usize * nodes + dst] as usize;
                    if p == NO_ROUTE {
                        return Err(at(
                            self.port(self.attach[dst].0, self.attach[dst].1).line,
                            format!(
                                "node `{}` is unreachable from node `{}`",
                                self.node_names[dst], self.node_names[src]
                            ),
                        ));
                    }
                    match self.port(s, p).to {
                        Attached::Node(n) if n as usize == dst => break,
                        Attached::Switch(t, _) if hops <= switches => {
                            s = t;
                            hops += 1;
                        }
                        Attached::Switch(..) => {
                            return Err(at(
                                line,
                                format!(
                                    "routes from node `{}` to node `{}` loop",
                                    self.node_names[src], self.node_names[dst]
                                ),
                            ));
                        }
                        _ => {
                            return Err(at(
                                line,
                                format!(
                                    "route at switch `{}` towards node `{}` leads to port {p}, which does not lead there",
                                    self.switch_names[s as usize], self.node_names[dst]
                                ),
                            ));
                        }
                    }
                }
                for &s in &path {
                    leads_to[s as usize] = dst;
                }
            }
        }
        if entries.iter().any(|e| e.ports.count_ones() > 1) {
            self.choices = self.next.iter().map(|&p| 1u64 << p).collect();
            for e in entries {
                self.choices[e.switch as usize * nodes + e.node as usize] = e.ports;
            }
            self.check_choices(&given)?;
        }
        Ok(())
    }

    /// Every port a route lists leads to its node without loops: for each destination, the
    /// switches and the links its routes list form a graph without cycles whose only way out
    /// is the destination's port (`given`: the line of each route, 0 for shortest paths).
    fn check_choices(&self, given: &[u32]) -> Result<(), FileError> {
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let (switches, nodes) = (self.switches(), self.nodes());
        let mut state = vec![NEW; switches];
        let mut stack: Vec<(u32, u64)> = Vec::new();
        for dst in 0..nodes {
            state.fill(NEW);
            for root in 0..switches as u32 {
                if state[root as usize] != NEW {
                    continue;
                }
                state[root as usize] = OPEN;
                stack.push((root, self.choices[root as usize * nodes + dst]));
                while let Some((s, left)) = stack.last_mut() {
                    let s = *s;
                    let Some(p) = bits64(*left).next() else {
                        state[s as usize] = DONE;
                        stack.pop();
                        continue;
                    };
                    *left &= *left - 1;
                    let entry = s as usize * nodes + dst;
                    let fail = |what: &str| {
                        Err(at(
                            given[entry] as usize,
                            format!(
                                "route at switch `{}` towards node `{}` lists port {p}, {what}",
                                self.switch_names[s as usize], self.node_names[dst]
                            ),
                        ))
                    };
                    match self.port(s, p as u8).to {
                        Attached::Node(n) if n as usize == dst => {}
                        Attached::Switch(t, _) => match state[t as usize] {
                            NEW => {
                                state[t as usize] = OPEN;
                                stack.push((t, self.choices[t as usize * nodes + dst]));
                            }
                            OPEN => return fail("which closes a loop of routes"),
                            _ => {}
                        },
                        _ => return fail("which does not lead there"),
                    }
                }
            }
        }
        Ok(())
    }

    /// The switch and local port of a port index.
    fn switch_port(&self, index: u32) -> (u32, u8) {
        let switch = self.first_port.partition_point(|&first| first <= index) - 1;
        (switch as u32, (index - self.first_port[switch]) as u8)
    }

    /// The longest latency a link line gives (0: none gives one).
    pub fn max_latency(&self) -> u32 {
        self.ports.iter().map(|p| p.latency).max().unwrap_or(0)
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.node_names.len()
    }

    /// Number of switch ports.
    pub fn ports(&self) -> usize {
        self.ports.len()
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.switch_names.len()
    }

    /// The channel leaving built port `index` (ports are numbered as the file's, switch after
    /// switch), as `SWITCH.PORT`.
    pub fn channel_name(&self, index: u32) -> String {
        let (s, p) = self.switch_port(index);
        format!("{}.{p}", self.switch_names[s as usize])
    }

    /// The output port of `switch` towards `node`: the first its route lists.
    #[inline]
    pub fn next_port(&self, switch: usize, node: usize) -> u8 {
        self.next[switch * self.node_names.len() + node]
    }

    /// Every output port of `switch` its route towards `node` lists (a mask).
    #[inline]
    pub fn next_ports(&self, switch: usize, node: usize) -> u64 {
        if self.choices.is_empty() {
            1 << self.next_port(switch, node)
        } else {
            self.choices[switch * self.node_names.len() + node]
        }
    }

    /// The SL-to-VL tables the file gives: per output port (index as built), the line and the
    /// lane of each service level from 0.
    pub fn lane_tables(&self) -> impl Iterator<Item = (usize, usize, &[u8])> {
        self.lanes
            .iter()
            .map(|(port, line, lanes)| (*port as usize, *line, lanes.as_slice()))
    }

    /// Whether some route lists several ports.
    pub fn has_choices(&self) -> bool {
        !self.choices.is_empty()
    }

    /// Name of switch `s`.
    pub fn switch_name(&self, s: usize) -> &str {
        &self.switch_names[s]
    }

    /// Wires switches, channels and nodes; links without a latency take `link_latency`.
    pub(crate) fn build(&self, link_latency: u32, ejection_latency: u32) -> Topology {
        let fastest = self.ports.iter().map(|p| p.speed).max().unwrap_or(1);
        let mut ports = Vec::with_capacity(self.ports.len());
        for s in 0..self.switches() {
            let first = self.first_port[s] as usize;
            for (local, p) in self.ports[first..self.first_port[s + 1] as usize]
                .iter()
                .enumerate()
            {
                let (link, latency) = match p.to {
                    Attached::Free => (Link::None, link_latency),
                    Attached::Node(n) => (Link::Node(NodeId::new(n as usize)), ejection_latency),
                    Attached::Switch(t, q) => (
                        Link::Router(PortId::new(
                            self.first_port[t as usize] as usize + q as usize,
                        )),
                        if p.latency == 0 {
                            link_latency
                        } else {
                            p.latency
                        },
                    ),
                };
                ports.push(Port {
                    router: RouterId::new(s),
                    local: local as u8,
                    output: link,
                    output_latency: latency,
                    output_period: fastest / p.speed,
                    input: link,
                });
            }
        }
        let injection_port = self
            .attach
            .iter()
            .map(|&(s, p)| PortId::new(self.first_port[s as usize] as usize + p as usize))
            .collect();
        Topology::from_parts(
            super::Layout::File(self.clone()),
            self.first_port.clone(),
            ports,
            injection_port,
        )
    }
}

/// A `FileError` on `line`.
fn at(line: usize, message: String) -> FileError {
    FileError { line, message }
}

/// `what` parsed from `text`, in `lo..=hi`.
fn number(text: &str, what: &str, lo: u32, hi: u32) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!(
            "{what} `{text}` is not a whole number from {lo} to {hi}"
        )),
    }
}

/// The `latency L` and `speed S` options of a node or link line (latency 0: the default).
fn options(rest: &[&str], latency_allowed: bool) -> Result<(u32, u32), String> {
    let (mut latency, mut speed) = (0, 1);
    for pair in rest.chunks(2) {
        match pair {
            ["latency", l] if latency_allowed => latency = number(l, "latency", 1, 1024)?,
            ["speed", s] => speed = number(s, "speed", 1, 64)?,
            _ => {
                return Err(format!(
                    "unexpected `{}`; options are {}",
                    pair.join(" "),
                    if latency_allowed {
                        "`latency L` and `speed S`"
                    } else {
                        "`speed S`"
                    }
                ));
            }
        }
    }
    Ok((latency, speed))
}

/// The form of a directive's line.
fn usage(word: &str) -> &'static str {
    match word {
        "switch" => "`switch NAME ports COUNT`",
        "node" => "`node NAME SWITCH.PORT [speed S]`",
        "link" => "`link SWITCH.PORT SWITCH.PORT [latency L] [speed S]`",
        "sl2vl" => "`sl2vl SWITCH.PORT VL [VL ...]`",
        _ => "`route SWITCH NODE PORT [PORT ...]`",
    }
}
