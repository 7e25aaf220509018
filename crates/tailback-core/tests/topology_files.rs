//! Topology files: mistakes are reported with their line, shortest-path and table routes
//! deliver everything with the invariant checker on, a cyclic routing is refused (or run on
//! request), link speeds set the channels' rates, routes listing several ports are checked and
//! spread by adaptive routing, and `sl2vl` tables set a port's lanes.

mod common;

use std::path::PathBuf;

use common::{all_to_all, analysed_channel_load, network};
use tailback_core::analysis::is_deadlock_free;
use tailback_core::config::{ConfigError, ConfigIssue};
use tailback_core::spec::Spec;
use tailback_core::topology::{CustomShape, FileError};

/// Four switches in a row, a node on each end switch and one in the middle, plus a branch.
const IRREGULAR: &str = "\
# a chain with a branch
switch s0 ports 3
switch s1 ports 4
switch s2 ports 3
switch s3 ports 2
node a s0.0
node b s0.1
node c s1.0
node d s2.0
node e s3.0
link s0.2 s1.1
link s1.2 s2.1 latency 3
link s1.3 s3.1
";

/// A ring of four switches: shortest paths around it close a dependency cycle.
const RING: &str = "\
switch r0 ports 3
switch r1 ports 3
switch r2 ports 3
switch r3 ports 3
node a r0.0
node b r1.0
node c r2.0
node d r3.0
link r0.1 r1.2
link r1.1 r2.2
link r2.1 r3.2
link r3.1 r0.2
";

fn parse_error(text: &str) -> FileError {
    CustomShape::parse(text).expect_err("the file has a mistake")
}

/// Reading `text` fails on line `line` with a message mentioning every one of `parts`.
fn assert_parse_error(text: &str, line: usize, parts: &[&str]) {
    let error = parse_error(text);
    assert_eq!(error.line, line, "{error} in\n{text}");
    for part in parts {
        assert!(
            error.message.contains(part),
            "{error} should mention {part:?}"
        );
    }
}

#[test]
fn mistakes_are_reported_with_their_line() {
    let cases: [(&str, usize, &[&str]); 11] = [
        (
            "switch s ports 4\nswitch t ports 4\nswitch u ports 4\nnode a s.0\nnode b t.0\n\
             link s.3 t.3\n",
            3,
            &["switch `u` is reachable from no node"],
        ),
        (
            "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\n\
             link s.2 t.2\nroute s b 1\nroute s b 2\n",
            8,
            &["route at switch `s` towards node `b` is already given on line 7"],
        ),
        (
            "switch s ports 2\nnode a s.2\nnode b s.0\n",
            2,
            &["port `2`", "0 to 1", "2 ports"],
        ),
        ("switch s ports 2\nnode a t.0\n", 2, &["unknown switch `t`"]),
        (
            "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\nlink s.1 t.2\n",
            6,
            &["duplicate link", "s.1", "line 5"],
        ),
        (
            "switch s ports 2\nswitch t ports 2\nnode a s.0\nnode b t.0\n",
            3,
            &["node `a` is unreachable from node `b`"],
        ),
        (
            "switch s ports 2\nswich t ports 2\n",
            2,
            &["unknown directive `swich`"],
        ),
        (
            "switch s ports 2\nswitch s ports 2\n",
            2,
            &["declared twice"],
        ),
        (
            "switch s ports\n",
            1,
            &["malformed `switch`", "ports COUNT"],
        ),
        (
            "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1 speed 3\n\
             link s.2 t.2 speed 2\n",
            6,
            &["speed 2 does not divide the fastest speed 3"],
        ),
        (
            "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\n\
             route s b 0\n",
            6,
            &["route at switch `s` towards node `b` leads to port 0"],
        ),
    ];
    for (text, line, parts) in cases {
        assert_parse_error(text, line, parts);
    }
    // Routes that bounce between two switches loop.
    let looping = "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\n\
                   link s.2 t.2\nroute s b 1\nroute t b 1\n";
    let error = parse_error(looping);
    assert!(error.message.contains("loop"), "{error}");
}

/// The config of a topology file holding `text`, with `extra` TOML appended; the file lives
/// as long as the returned guard.
fn file_config(text: &str, extra: &str) -> (Result<Spec, ConfigError>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("net.topo");
    std::fs::write(&path, text).unwrap();
    let toml = format!(
        "[topology]\nkind = \"file\"\nfile = \"{}\"\n{extra}",
        path.display()
    );
    (Spec::from_toml_str(&toml, "<test>"), dir)
}

fn single_issue(result: Result<Spec, ConfigError>) -> ConfigIssue {
    match result {
        Err(ConfigError::Invalid(mut issues)) if issues.len() == 1 => issues.remove(0),
        other => panic!("expected one problem, got {other:?}"),
    }
}

#[test]
fn file_problems_reach_the_config_under_topology_file() {
    let (result, _dir) = file_config("switch s ports 2\nnode a s.0\nnode b s.5\n", "");
    let issue = single_issue(result);
    assert_eq!(issue.path, "topology.file");
    assert!(issue.message.contains("line 3"), "{issue:?}");
    let (result, _dir) = file_config(RING, "");
    let issue = single_issue(result);
    assert!(
        issue.message.contains("cycle") && issue.message.contains("deadlock_check"),
        "{issue:?}"
    );
    // The refusal names the cycle: the four channels one way round the ring, back to the first.
    let named = issue.message.split_once("cycle (").unwrap().1;
    let channels: Vec<&str> = named.split_once(')').unwrap().0.split(" -> ").collect();
    assert_eq!(channels.len(), 5, "{issue:?}");
    assert_eq!(channels[0], channels[4]);
    let one_way = [
        ["r0.1", "r1.1", "r2.1", "r3.1"],
        ["r0.2", "r3.2", "r2.2", "r1.2"],
    ];
    assert!(
        one_way
            .iter()
            .any(|way| way.iter().all(|c| channels.contains(c))),
        "{issue:?}"
    );
    let missing = Spec::from_toml_str(
        "[topology]\nkind = \"file\"\nfile = \"/no/such/net.topo\"\n",
        "<test>",
    );
    assert!(single_issue(missing).message.contains("cannot read"));
    let (result, _dir) = file_config(IRREGULAR, "link_period = 2\n");
    assert_eq!(single_issue(result).path, "topology.link_period");
}

#[test]
fn shortest_paths_deliver_all_to_all_with_invariants_checked() {
    let (result, _dir) = file_config(IRREGULAR, "[traffic]\nrate = 0.0\n");
    let cfg = result
        .unwrap()
        .edited(|c| c.sim.check_invariants = true)
        .unwrap();
    let (topology, routing, _) = network(&cfg);
    assert_eq!((topology.node_count(), topology.router_count()), (5, 4));
    assert!(is_deadlock_free(&topology, &routing));
    // a -> d crosses s0, s1, s2: two router-to-router hops; e -> d crosses s3, s1, s2.
    assert_eq!(routing.distance(topology.ports()[0].router, 3), 2);
    assert_eq!(all_to_all(&cfg, 5, 50_000), 5 * 5 * 4);
}

#[test]
fn a_ring_runs_when_asked_to_and_table_routes_can_break_its_cycle() {
    let (result, _dir) = file_config(RING, "deadlock_check = \"warn\"\n");
    let cfg = result.unwrap();
    let (topology, routing, _) = network(&cfg);
    assert!(!is_deadlock_free(&topology, &routing));
    // Routes that never cross the r3 -> r0 link (r0.2 / r3.1) in either direction make the
    // ring a line: no cycle, no warning needed.
    let broken = format!(
        "{RING}route r3 a 2\nroute r0 d 1\nroute r3 b 2\nroute r1 d 1\nroute r0 c 1\n\
         route r2 a 2\n"
    );
    let (result, _dir) = file_config(&broken, "[traffic]\nrate = 0.0\n");
    let cfg = result
        .unwrap()
        .edited(|c| c.sim.check_invariants = true)
        .unwrap();
    let (topology, routing, _) = network(&cfg);
    assert!(is_deadlock_free(&topology, &routing));
    assert_eq!(routing.distance(topology.ports()[0].router, 3), 3);
    assert_eq!(all_to_all(&cfg, 4, 50_000), 4 * 4 * 3);
}

#[test]
fn link_speeds_set_channel_rates() {
    // Nodes at speed 1 beside a speed-2 trunk: node channels take 2 cycles per flit, so no node
    // can inject more than half a flit per cycle.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/topologies/two-switches.topo"
    ))
    .unwrap();
    let (result, _dir) = file_config(&text, "[traffic]\nrate = 0.9\n");
    let cfg = result.unwrap();
    assert!((analysed_channel_load(&cfg).ideal_throughput - 0.5).abs() < 1e-9);
    let summary = tailback_core::run(&cfg).unwrap().summary;
    assert!(summary.accepted_per_node.max <= 0.5 + 1e-3, "{summary:?}");
}

#[test]
fn a_slow_node_injects_at_its_link_speed() {
    // Node a's link runs at half the speed of everything else: a stream of 50 8-flit packets
    // from a to c takes two cycles per flit, from b to d one.
    let text = "switch l ports 3\nswitch r ports 3\nnode a l.0 speed 1\nnode b l.1 speed 2\n\
                node c r.0 speed 2\nnode d r.1 speed 2\nlink l.2 r.2 speed 2\n";
    let stream = |src: usize, dst: usize| {
        let (result, _dir) = file_config(text, "[traffic]\nrate = 0.0\n");
        let cfg = result
            .unwrap()
            .edited(|c| c.sim.check_invariants = true)
            .unwrap();
        let mut sim = tailback_core::sim::Simulation::new(&cfg).unwrap();
        for _ in 0..50 {
            sim.offer(common::node(src), common::node(dst), 8).unwrap();
        }
        common::drive_until_idle(&mut sim, 10_000)
    };
    let (slow, fast) = (stream(0, 2), stream(1, 3));
    assert!((800..850).contains(&slow), "a -> c took {slow} cycles");
    assert!((400..450).contains(&fast), "b -> d took {fast} cycles");
}

/// A line of 100,000 switches with a node at each end: read, checked for deadlock and run
/// without exhausting the stack or walking every route from every switch.
#[test]
fn a_very_long_line_of_switches_is_read_checked_and_run() {
    let switches = 100_000;
    let mut text = String::new();
    for s in 0..switches {
        text.push_str(&format!("switch s{s} ports 3\n"));
    }
    text.push_str(&format!("node a s0.0\nnode b s{}.0\n", switches - 1));
    for s in 1..switches {
        text.push_str(&format!("link s{}.2 s{s}.1\n", s - 1));
    }
    let (spec, _dir) = file_config(
        &text,
        "[traffic]\nprocess = \"flows\"\n[[traffic.flows]]\nsrc = 0\ndst = 1\nrate = 0.1\n\
         [sim]\nwarmup_cycles = 0\nmeasure_cycles = 1000\ndrain_cycles_max = 1000\n",
    );
    let spec = spec.unwrap();
    let (topology, routing, _) = network(&spec);
    assert!(is_deadlock_free(&topology, &routing));
    assert_eq!(
        routing.distance(tailback_core::ids::RouterId::new(0), 1),
        switches as u32 - 1
    );
    let report = tailback_core::run(&spec).unwrap();
    assert!(report.summary.offered > 0.0);
}

/// Two leaf switches of two nodes each joined through two spines; the leaves' routes to the
/// other leaf's nodes list both spines.
const TWO_SPINES: &str = "\
switch l0 ports 4
switch l1 ports 4
switch s0 ports 2
switch s1 ports 2
node a l0.0
node b l0.1
node c l1.0
node d l1.1
link l0.2 s0.0
link l0.3 s1.0
link l1.2 s0.1
link l1.3 s1.1
route l0 c 2 3
route l0 d 2 3
route l1 a 2 3
route l1 b 2 3
";

/// Routes may list several ports: each must lead to its node without loops, table routing
/// takes the first, and adaptive routing, which may take any, is refused when the union of
/// the alternatives closes a dependency cycle although the first ports alone do not.
#[test]
fn listed_alternatives_are_checked_and_their_union_must_be_deadlock_free() {
    let two = "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\n\
               link s.2 t.2\n";
    let cases: [(&str, usize, &str); 3] = [
        ("route s b 1 1\n", 7, "port 1 is listed twice"),
        (
            "route s b 1 0\n",
            7,
            "lists port 0, which does not lead there",
        ),
        (
            "route t b 0 1\n",
            7,
            "lists port 1, which closes a loop of routes",
        ),
    ];
    for (route, line, part) in cases {
        assert_parse_error(&format!("{two}{route}"), line, &[part]);
    }
    // Around a ring, each switch's route to the far node goes one way first (a line of
    // dependencies each way, no cycle) and lists the other way too (which closes one).
    let ring = format!("{RING}route r0 c 1 2\nroute r1 d 1 2\nroute r2 a 2 1\nroute r3 b 2 1\n");
    let (result, _dir) = file_config(&ring, "");
    let table = result.unwrap();
    let (topology, routing, _) = network(&table);
    assert!(is_deadlock_free(&topology, &routing));
    let (result, _dir) = file_config(&ring, "[routing]\nalgorithm = \"adaptive\"\n");
    let issue = single_issue(result);
    assert!(
        issue.message.contains("over every port the routes list")
            && issue.message.contains("cycle"),
        "{issue:?}"
    );
}

/// Bit-complement traffic sends both nodes of each leaf to the other leaf: table routing puts
/// both flows on the first spine (half the rate each), adaptive routing spreads them over
/// both — on the virtual-channel routers by the free VC with the most credits (0.73 seen), on
/// the buffered fabric by the least occupied Port VL (0.90 seen, all offered) — with the
/// invariant checker on.
#[test]
fn adaptive_routing_spreads_a_file_s_alternatives() {
    for (fabric, least) in [("", 0.65), ("[fabric]\nkind = \"buffered\"\n", 0.85)] {
        let accepted = |algorithm: &str| {
            let extra = format!(
                "[routing]\nalgorithm = \"{algorithm}\"\n\
                 [router]\nswitching = \"virtual_cut_through\"\nvcs = 4\nvc_buffer_flits = 16\n\
                 {fabric}[traffic]\npattern = \"bit_complement\"\nrate = 0.9\npacket_flits = 4\n\
                 [sim]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\ncheck_invariants = true\n"
            );
            let (result, _dir) = file_config(TWO_SPINES, &extra);
            let report = tailback_core::run(&result.unwrap()).unwrap();
            report.summary.accepted
        };
        let (table, adaptive) = (accepted("table"), accepted("adaptive"));
        assert!(
            (table - 0.5).abs() < 0.03 && adaptive > least,
            "{fabric}: table {table}, adaptive {adaptive}"
        );
    }
}

/// `sl2vl` lines give an output port's SL-to-VL table on the buffered fabric: mistakes are
/// reported with their line, the virtual-channel fabric and lanes beyond `router.vcs` are
/// refused, and a table that puts both service levels on lane 0 of a leaf's uplink leaves its
/// lane 1 unused there (under bit-complement overload both lanes of the uplink are congested
/// without it, only lane 0 with it), with the invariant checker on.
#[test]
fn sl_to_vl_tables_in_a_file_set_the_lanes_of_a_port() {
    let two = "switch s ports 3\nswitch t ports 3\nnode a s.0\nnode b t.0\nlink s.1 t.1\n";
    let cases: [(&str, usize, &str); 3] = [
        ("sl2vl s.1\n", 6, "malformed `sl2vl`"),
        ("sl2vl s.1 0 40\n", 6, "lane `40`"),
        ("sl2vl s.1 0\nsl2vl s.1 1\n", 7, "already given on line 6"),
    ];
    for (table, line, part) in cases {
        assert_parse_error(&format!("{two}{table}"), line, &[part]);
    }
    let merged = format!("{TWO_SPINES}sl2vl l0.2 0 0\n");
    let (result, _dir) = file_config(&merged, "[router]\nvcs = 2\n");
    let issue = single_issue(result);
    assert!(
        issue.message.contains("fabric.kind = \"buffered\""),
        "{issue:?}"
    );
    let buffered = "[router]\nswitching = \"virtual_cut_through\"\nvcs = 2\nvc_buffer_flits = 16\n\
                    [fabric]\nkind = \"buffered\"\n";
    let (result, _dir) = file_config(&format!("{TWO_SPINES}sl2vl l0.2 0 2\n"), buffered);
    let issue = single_issue(result);
    assert!(issue.message.contains("lane 2 does not exist"), "{issue:?}");
    let uplink_lanes = |file: &str| -> Vec<u8> {
        let extra = format!(
            "{buffered}[traffic]\npattern = \"bit_complement\"\nrate = 0.9\npacket_flits = 4\n\
             [record]\ncongested_port_vls = true\n\
             [sim]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\ncheck_invariants = true\n"
        );
        let (result, _dir) = file_config(file, &extra);
        let report = tailback_core::run(&result.unwrap()).unwrap();
        report
            .congested_port_vls
            .iter()
            .filter(|p| (p.switch, p.port) == (0, 2))
            .map(|p| p.vl)
            .collect()
    };
    assert_eq!(uplink_lanes(TWO_SPINES), [0, 1]);
    assert_eq!(uplink_lanes(&merged), [0]);
}
