//! The buffered (InfiniBand-style) switch fabric: block and credit conservation, gap-free
//! packets and exactly-once in-order delivery on random small trees and speeds with the
//! invariant checker on (with fixed and adaptive up ports); round-robin fairness against the
//! parking-lot shares of Gran et al.; virtual output queues against head-of-line blocking and
//! adaptive up ports against random ones on the 648-node tree.

mod common;

use common::config;
use proptest::prelude::*;
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;
use tailback_core::trace::TraceRecord;

/// A buffered-fabric configuration with `seed` on `network` (the `[topology]` keys, perhaps
/// followed by other tables); `router` holds the `[router]` keys besides the switching, `rest`
/// the `[fabric]` keys besides the kind and the other tables.
fn buffered(seed: u64, network: &str, router: &str, rest: &str) -> String {
    format!(
        "seed = {seed}\n[topology]\n{network}\n\
         [router]\nswitching = \"virtual_cut_through\"\n{router}\n\
         [fabric]\nkind = \"buffered\"\n{rest}"
    )
}

/// The `[traffic]` pattern keys: half the traffic to node 0 (`hotspot`), or uniform.
fn pattern(hotspot: bool) -> &'static str {
    if hotspot {
        "pattern = \"hotspot\"\nhotspot_nodes = [0]\nhotspot_fraction = 0.5"
    } else {
        "pattern = \"uniform\""
    }
}

/// Runs `spec`, writing its trace; returns the report and the delivered packets.
fn run_with_trace(spec: &Spec) -> (RunReport, Vec<TraceRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.txt");
    let out = tailback_core::trace::create(&path).unwrap();
    let (report, written) = tailback_core::run_traced(spec, u64::MAX, |_| {}, out).unwrap();
    written.unwrap();
    let records = tailback_core::trace::read(&path, spec.node_count()).unwrap();
    (report, records)
}

/// Every packet was delivered once, and the packets of each flow in the order they were
/// created (checked when `ordered`).
fn assert_once_and_in_order(records: &[TraceRecord], ordered: bool) {
    let mut flows: Vec<&TraceRecord> = records.iter().collect();
    flows.sort_by_key(|r| (r.src, r.dst, r.created, r.injected));
    for pair in flows.windows(2) {
        let key = |r: &TraceRecord| (r.src, r.dst, r.created, r.injected);
        assert_ne!(key(pair[0]), key(pair[1]), "a packet was delivered twice");
        if ordered && (pair[0].src, pair[0].dst) == (pair[1].src, pair[1].dst) {
            assert!(
                pair[0].delivered < pair[1].delivered,
                "flow {} -> {} delivered out of order: {:?} then {:?}",
                pair[0].src,
                pair[0].dst,
                pair[0],
                pair[1]
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// On random trees, queue schemes (VOQ, FIFO, VOQnet, NFQ + CFQs and VOQs + HPQs with
    /// random thresholds and control delays, in band or not), read ports (with and without
    /// iSLIP),
    /// lanes, buffers and loads, the invariant checker finds nothing (credits and blocks
    /// conserved on every link and lane, pools equal to their queues, no packet started before
    /// its blocks can leave back to back), every measured packet is delivered (no deadlock)
    /// exactly once, and each flow's packets arrive in order.
    #[test]
    fn invariants_hold_on_random_trees(
        (k, n) in prop_oneof![Just((2u32, 3u32)), Just((4, 2)), Just((3, 2)), Just((4, 1))],
        scheme in 0usize..5,
        one_read_port in any::<bool>(),
        islip in 0u32..=2,
        vls in 1u32..=2,
        packet in 1u32..=8,
        extra in 0u32..=24,
        latency in 0u32..=3,
        rate in 0.1f64..0.9,
        hotspot in any::<bool>(),
        adaptive in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let pool = packet + extra;
        // Congested-flow isolation needs thresholds inside the pool (and a queue per
        // destination in the adapters): with a pool of fewer than 3 blocks, VOQs instead.
        let scheme = if scheme >= 3 && pool < 3 { 0 } else { scheme };
        // Inside the pool (only used with isolation, where the pool has at least 3 blocks).
        let stop = (2 * pool / 3).clamp(1, pool.max(2) - 1);
        let control = format!("control_delay = {latency}\ncontrol_in_band = {}\n", seed % 2 == 0);
        let isolation = match scheme {
            3 => format!(
                "queues = \"per_destination\"\n\
                 [fabric.isolation]\ndetect_blocks = {}\nstop_blocks = {stop}\n\
                 go_blocks = {}\n{control}",
                (pool / 2).clamp(1, pool - 1),
                stop / 2,
            ),
            4 => format!(
                "queues = \"per_destination\"\n\
                 [fabric.isolation]\nhigh_blocks = {stop}\nlow_blocks = {}\nhpqs = {}\n\
                 root_needs_credits = {}\n{control}",
                stop / 2,
                1 + seed % 2,
                seed % 3 == 0,
            ),
            _ => String::new(),
        };
        // Adaptive up ports (isolation refuses them): packets of a flow may overtake.
        let adaptive = adaptive && scheme < 3;
        let routing = if adaptive { "adaptive_up" } else { "d_mod_k" };
        let pattern = pattern(hotspot);
        let text = buffered(
            seed,
            &format!("kind = \"kary_ntree\"\nk = {k}\nn = {n}\n[routing]\nalgorithm = \"{routing}\""),
            &format!("vcs = {vls}\nvc_buffer_flits = {}", packet + extra),
            &format!(
                "queues = \"{}\"\nread_ports = {}{}\nswitch_latency = {latency}\n\
                 [nic]\nsource_queue_packets = 8\n{isolation}\
                 [traffic]\n{pattern}\npacket_flits = {packet}\nrate = {rate}\n\
                 [sim]\nwarmup_cycles = 200\nmeasure_cycles = 600\ndrain_cycles_max = 200000\n\
                 check_invariants = true",
                ["voq", "fifo", "voqnet", "nfq_cfq", "voq_hpq"][scheme],
                if one_read_port { "1" } else { "\"unlimited\"" },
                // iSLIP (1 or 2 iterations) or each output on its own, with one read port.
                if one_read_port && islip > 0 {
                    format!("\nislip_iterations = {islip}")
                } else {
                    String::new()
                },
            ),
        );
        let spec = config(&text);
        let (report, records) = run_with_trace(&spec);
        let s = &report.summary;
        prop_assert!(s.packets_measured > 0);
        prop_assert_eq!(s.packets_delivered, s.packets_measured, "{}", text);
        // With one lane and fixed up ports a flow's packets share every queue on their path;
        // with two lanes the NIC spreads them over the lanes, and adaptive routing over the up
        // ports, which may reorder them.
        assert_once_and_in_order(&records, vls == 1 && !adaptive);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Routings that raise their VC class hop by hop run on the buffered fabric through
    /// SL-to-VL tables: dragonflies (minimal, Valiant, UGAL-L, UGAL-G, PAR), HyperX (dimension
    /// order, Valiant, UGAL-L, DAL) and tori with datelines. With random lanes per class,
    /// buffers, loads and hot spots the invariant checker finds nothing (credits and blocks
    /// conserved on every link and lane), every measured packet is delivered exactly once (no
    /// deadlock), and with one lane per class and deterministic routing in order.
    #[test]
    fn invariants_hold_with_per_hop_lanes(
        network in 0usize..3,
        algorithm in 0usize..5,
        lanes_per_class in 1u32..=2,
        packet in 1u32..=6,
        extra in 0u32..=12,
        rate in 0.1f64..0.9,
        hotspot in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let (topology, routing, classes, ordered) = match network {
            0 => {
                let (name, classes) =
                    [("min", 2), ("valiant", 3), ("ugal_l", 3), ("ugal_g", 3), ("par", 4)][algorithm];
                (
                    "kind = \"dragonfly\"\np = 1\na = 3\nh = 1\nglobal_latency = 4",
                    name,
                    classes,
                    name == "min",
                )
            }
            1 => {
                let (name, classes) =
                    [("dor", 1), ("valiant", 2), ("ugal_l", 2), ("dal", 4), ("ugal_l", 2)][algorithm];
                ("kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1", name, classes, name == "dor")
            }
            _ => {
                let datelines = ["", "datelines = [0, 2]", "datelines = [1]"][algorithm % 3];
                (
                    "kind = \"torus\"\nk = 4\nn = 2",
                    datelines,
                    // A packet may cross a dateline in each dimension: one class more per crossing.
                    if algorithm % 3 == 0 { 2 } else { 3 },
                    true,
                )
            }
        };
        let routing = if network == 2 {
            format!("[routing]\nalgorithm = \"dor\"\n{routing}")
        } else {
            format!("[routing]\nalgorithm = \"{routing}\"")
        };
        let pattern = pattern(hotspot);
        let text = buffered(
            seed,
            &format!("{topology}\n{routing}"),
            &format!("vcs = {}\nvc_buffer_flits = {}", classes * lanes_per_class, packet + extra),
            &format!(
                "[nic]\nsource_queue_packets = 8\n\
                 [traffic]\n{pattern}\npacket_flits = {packet}\nrate = {rate}\n\
                 [sim]\nwarmup_cycles = 200\nmeasure_cycles = 600\ndrain_cycles_max = 200000\n\
                 check_invariants = true",
            ),
        );
        let spec = config(&text);
        let (report, records) = run_with_trace(&spec);
        let s = &report.summary;
        prop_assert!(s.packets_measured > 0);
        prop_assert_eq!(s.packets_delivered, s.packets_measured, "{}", text);
        assert_once_and_in_order(&records, ordered && lanes_per_class == 1);
    }
}

/// Each lane leaving an output keeps its own round robin over the (input, arrival lane) pairs
/// requesting it. Under DAL with one lane per class on a 3×3 HyperX, packets arriving on one
/// lane leave on different lanes (ejection, or the next class); with a round robin per arrival
/// lane, grants on one leaving lane kept moving the pointer past the requesters of another, and
/// under this hot spot one flow's packets were never granted again: 23 measured packets were
/// still queued 200 000 cycles after the window closed (the invariant checker found nothing
/// amiss). Every measured packet is now delivered exactly once.
#[test]
fn requesters_of_each_leaving_lane_are_served_in_turn() {
    let text = buffered(
        0,
        "kind = \"hyperx\"\ndims = [3, 3]\nterminals = 1\n[routing]\nalgorithm = \"dal\"",
        "vcs = 4\nvc_buffer_flits = 8",
        &format!(
            "[nic]\nsource_queue_packets = 8\n[traffic]\n{}\npacket_flits = 1\n\
             rate = 0.6326723258224551\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 600\n\
             drain_cycles_max = 200000\ncheck_invariants = true",
            pattern(true)
        ),
    );
    let (report, records) = run_with_trace(&config(&text));
    let s = &report.summary;
    assert!(s.packets_measured > 1000);
    assert_eq!(s.packets_delivered, s.packets_measured);
    assert_once_and_in_order(&records, false);
}

/// Gran's thesis, chapter 2.3 (Figs. 2.7 and 2.8): twelve sources in the other subtrees of a
/// 4-ary 3-tree send without pause to one destination. Under `d_mod_k` every route meets the
/// others at one root switch, whose down Port VL towards the destination is the congestion
/// tree's root, while the last switch's Port VL to the destination is not congested (what
/// passes the root flows on at link rate). Adaptive up ports spread the routes over the root
/// switches, so they meet only at the last switch: its Port VL to the destination is congested
/// and the tree takes in more Port VLs. A Port VL is congested when the blocks queued for it
/// stay at least half an input pool over the second half of the measurement window.
#[test]
fn adaptive_routing_moves_the_congestion_tree_to_the_last_switch() {
    let flows: String = (0..12)
        .map(|i| {
            format!(
                "[[traffic.flows]]\nsrc = {}\ndst = 0\nrate = 1.0\n",
                16 + 4 * i
            )
        })
        .collect();
    let text = |routing: &str| {
        buffered(
            1,
            &format!("kind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{routing}\""),
            "vcs = 1\nvc_buffer_flits = 32",
            &format!(
                "[traffic]\nprocess = \"flows\"\npacket_flits = 4\n{flows}\
                 [record]\ncongested_port_vls = true\n\
                 [sim]\nwarmup_cycles = 4000\nmeasure_cycles = 4000\ndrain_cycles_max = 0\n"
            ),
        )
    };
    let spec = config(&text("d_mod_k"));
    let (topology, routing, _) = common::network(&spec);
    let at = |port: tailback_core::ids::PortId| {
        let p = &topology.ports()[port.index()];
        (p.router.index() as u32, p.local)
    };
    let dst = tailback_core::ids::NodeId::new(0);
    let last = at(topology.ejection_port(dst));
    // The first port every deterministic route takes: the root switch's down port.
    let routes: Vec<Vec<(u32, u8)>> = (0..12)
        .map(|i| {
            let mut ports = Vec::new();
            let src = tailback_core::ids::NodeId::new(16 + 4 * i);
            routing.walk(&topology, src, dst, 0, |port, _| ports.push(at(port)));
            ports
        })
        .collect();
    let root = *routes[0]
        .iter()
        .find(|p| routes.iter().all(|r| r.contains(p)))
        .unwrap();
    assert_ne!(root, last);
    let congested = |routing: &str| -> Vec<(u32, u8)> {
        let report = tailback_core::run(&config(&text(routing))).unwrap();
        assert!(
            (report.summary.accepted * 64.0 - 1.0).abs() < 0.05,
            "{routing}: {:?}",
            report.summary.accepted
        );
        // The map of every Port VL's load names the same congested Port VLs: those at least
        // half a pool at every sample.
        let map = report.port_vl_map.as_ref().expect("recorded");
        let full: Vec<_> = map
            .loads
            .iter()
            .filter(|l| l.congested == 1.0)
            .map(|l| l.at)
            .collect();
        assert_eq!(full, report.congested_port_vls, "{routing}");
        assert_eq!(map.ports.len(), topology.router_count());
        assert!(
            map.loads
                .iter()
                .all(|l| (0.0..=1.0).contains(&l.congested) && l.queued > 0.0),
            "{routing}: {map:?}"
        );
        report
            .congested_port_vls
            .iter()
            .map(|p| (p.switch, p.port))
            .collect()
    };
    let (fixed, adaptive) = (congested("d_mod_k"), congested("adaptive_up"));
    assert!(
        fixed.contains(&root) && !fixed.contains(&last),
        "d_mod_k: root {root:?}, last {last:?}, congested {fixed:?}"
    );
    assert!(
        adaptive.contains(&last),
        "adaptive_up: last {last:?}, congested {adaptive:?}"
    );
    assert!(
        adaptive.len() > fixed.len(),
        "d_mod_k {fixed:?}, adaptive_up {adaptive:?}"
    );
}

/// The testbed of Gran et al. (two switches, DDR hosts, a QDR link between the switches).
const TESTBED: &str = concat!(
    "kind = \"file\"\nfile = \"",
    env!("CARGO_MANIFEST_DIR"),
    "/../../experiments/topologies/ib-testbed.topo\""
);

/// Saturating flows from the hosts of one switch to those of the other (Gran et al.'s scenario 2)
/// cross the fast link
/// back to back: from a slow input a packet starts late enough to leave without gaps (the
/// invariant checker counts packets started before their blocks could leave back to back),
/// so three DDR flows fill the QDR link (its rate is 3/2 of
/// theirs, each gets a third of it) instead of the DDR rate a cut-through at the arrival rate
/// would leave it.
#[test]
fn packets_cross_speed_changes_without_gaps() {
    for latency in [0, 3] {
        let text = buffered(
            9,
            TESTBED,
            "vcs = 1\nvc_buffer_flits = 128",
            &format!(
                "switch_latency = {latency}\n\
                 [traffic]\npattern = \"tornado\"\npacket_flits = 32\nrate = 0.5\n\
                 [nic]\nsource_queue_packets = 4\n\
                 [sim]\nwarmup_cycles = 2000\nmeasure_cycles = 20000\ndrain_cycles_max = 0\n\
                 check_invariants = true\n[record]\nflows = true"
            ),
        );
        let report = tailback_core::run(&config(&text)).unwrap();
        // Tornado on the line of 7 hosts: host i sends to i + 3 (mod 7), so hosts 0-2 send to
        // 3-5 over the QDR link, and nothing else shares their sinks.
        let from = |src: u32| -> f64 {
            report
                .flows
                .iter()
                .filter(|f| f.src == src)
                .map(|f| f.accepted)
                .sum()
        };
        let across: f64 = (0..3).map(from).sum();
        // The QDR link carries one block per cycle; each DDR host at most one per 2 cycles.
        assert!(
            (across - 1.0).abs() < 0.01,
            "S1 to S2 carries {across} blocks/cycle, not the full QDR rate"
        );
        for src in 0..3 {
            let share = from(src);
            assert!((share - 1.0 / 3.0).abs() < 0.01, "host {src}: {share}");
        }
    }
}

/// All-to-one on a 4-ary 3-tree under destination-mod-k routing: round robin over the input
/// ports of each output shares the sink's link as Gran et al. derive (Paper II, the parking
/// lot): 1/4 to each of the 3 sources on the sink's switch, 1/64 to each of the 12 one level
/// up, 1/768 to each of the 48 farthest. Within 1%, with either queue scheme.
#[test]
#[cfg_attr(debug_assertions, ignore = "long simulation: release builds only")]
fn all_to_one_shares_follow_the_parking_lot() {
    for queues in ["voq", "fifo"] {
        let text = buffered(
            5,
            "kind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"d_mod_k\"",
            "vcs = 1\nvc_buffer_flits = 16",
            &format!(
                "queues = \"{queues}\"\n\
                 [traffic]\npattern = \"hotspot\"\nhotspot_nodes = [0]\nhotspot_fraction = 1.0\n\
                 packet_flits = 1\nrate = 0.5\n\
                 [nic]\nsource_queue_packets = 4\n\
                 [sim]\nwarmup_cycles = 5000\nmeasure_cycles = 300000\ndrain_cycles_max = 0\n\
                 [record]\nflows = true"
            ),
        );
        let report = tailback_core::run(&config(&text)).unwrap();
        let to_sink: Vec<_> = report.flows.iter().filter(|f| f.dst == 0).collect();
        assert_eq!(to_sink.len(), 63);
        let total: f64 = to_sink.iter().map(|f| f.accepted).sum();
        assert!((total - 1.0).abs() < 0.01, "the sink accepts {total}");
        for flow in to_sink {
            // Sources 1-3 share the sink's switch, 4-15 its level-2 group, 16-63 the rest.
            let ideal = match flow.src {
                1..=3 => 1.0 / 4.0,
                4..=15 => 1.0 / 64.0,
                _ => 1.0 / 768.0,
            };
            let share = flow.accepted / total;
            assert!(
                (share / ideal - 1.0).abs() < 0.01,
                "{queues}: source {} gets {share}, not {ideal}",
                flow.src
            );
        }
    }
}

/// The 648-node tree (36-port switches) under uniform traffic at 13.5 of 16 Gbit/s per node
/// (0.84 blocks/node/cycle), 2048-byte packets: virtual output queues carry it all (Paper IV's
/// CC-off uniform point), one queue per input loses a third to head-of-line blocking (the
/// 58.6% limit of FIFO inputs under uniform traffic; the virtual-channel router with one VC
/// accepts about 0.46).
#[test]
#[cfg_attr(debug_assertions, ignore = "648 nodes: release builds only")]
fn virtual_output_queues_avoid_head_of_line_blocking_on_the_648_node_tree() {
    let accepted = |queues: &str| {
        let text = buffered(
            7,
            "kind = \"folded_clos\"\nradix = 36\nlevels = 2\n[routing]\nalgorithm = \"d_mod_k\"",
            "vcs = 1\nvc_buffer_flits = 1000",
            &format!(
                "queues = \"{queues}\"\n\
                 [traffic]\npattern = \"uniform\"\npacket_flits = 32\nrate = 0.84375\n\
                 [sim]\nwarmup_cycles = 4000\nmeasure_cycles = 8000\ndrain_cycles_max = 0"
            ),
        );
        tailback_core::run(&config(&text)).unwrap().summary.accepted
    };
    let voq = accepted("voq");
    assert!(voq >= 0.83, "voq accepts {voq}");
    let fifo = accepted("fifo");
    assert!(fifo < 0.65, "fifo accepts {fifo}");
}

/// On the 648-node tree under a random permutation, adaptive up ports (the least occupied Port
/// VL) carry at least what random ones do and far more than destination-mod-k, whose leaves
/// send several destinations up one port; under uniform traffic they cost under 2 % against
/// destination-mod-k. Same offered traffic in every run; the flows' out-of-order counts add up
/// to the run's.
#[test]
#[cfg_attr(debug_assertions, ignore = "648 nodes: release builds only")]
fn adaptive_up_ports_carry_a_permutation_on_the_648_node_tree() {
    let report = |algorithm: &str, pattern: &str| {
        let text = buffered(
            7,
            &format!(
                "kind = \"folded_clos\"\nradix = 36\nlevels = 2\n\
                 [routing]\nalgorithm = \"{algorithm}\""
            ),
            "vcs = 1\nvc_buffer_flits = 1000",
            &format!(
                "[traffic]\npattern = \"{pattern}\"\npacket_flits = 32\nrate = 1.0\n\
                 [sim]\nwarmup_cycles = 3000\nmeasure_cycles = 3000\ndrain_cycles_max = 0\n\
                 [record]\nflows = true"
            ),
        );
        tailback_core::run(&config(&text)).unwrap()
    };
    let run = |algorithm: &str, pattern: &str| report(algorithm, pattern).summary;
    let flows_report = report("adaptive_up", "random_permutation");
    let adaptive = flows_report.summary.clone();
    let random = run("random_up", "random_permutation");
    let fixed = run("d_mod_k", "random_permutation");
    assert_eq!(adaptive.offered, random.offered);
    assert!(
        adaptive.accepted >= random.accepted && adaptive.accepted > fixed.accepted + 0.2,
        "adaptive {} random {} d_mod_k {}",
        adaptive.accepted,
        random.accepted,
        fixed.accepted
    );
    assert!(adaptive.out_of_order > 0);
    // Every overtaken packet is its flow's.
    let per_flow = |report: &tailback_core::stats::RunReport| {
        report.flows.iter().map(|f| f.out_of_order).sum::<u64>()
    };
    assert_eq!(per_flow(&flows_report), adaptive.out_of_order);
    let uniform = run("adaptive_up", "uniform").accepted;
    let fixed_uniform = run("d_mod_k", "uniform").accepted;
    assert!(
        uniform > 0.98 * fixed_uniform,
        "uniform: adaptive {uniform} d_mod_k {fixed_uniform}"
    );
}

/// Adaptive runs repeat exactly (the ties go by each packet's routing draw), and following
/// congestion trees (ours) is refused where the routing gives each packet one port.
#[test]
fn adaptive_up_ports_repeat_and_only_chosen_ports_follow_trees() {
    let text = buffered(
        3,
        "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"adaptive_up\"",
        "vcs = 1\nvc_buffer_flits = 16",
        "[traffic]\npattern = \"random_permutation\"\npacket_flits = 4\nrate = 0.9\n\
         [sim]\nwarmup_cycles = 500\nmeasure_cycles = 1000\n",
    );
    let run = || common::comparable(&tailback_core::run(&config(&text)).unwrap().summary);
    assert_eq!(run(), run());
    common::refused(
        &buffered(
            3,
            "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
            "vcs = 1\nvc_buffer_flits = 16",
            "queues = \"nfq_cfq\"\nisolation.tree_routing = \"follow\"\n\
             [nic]\nqueues = \"per_destination\"\n",
        ),
        "fabric.isolation.tree_routing",
        &["adaptive_up", "\"d_mod_k\""],
    );
}

/// At zero load a packet's latency is the analytical one: injection and ejection channels, per
/// switch `switch_latency` cycles plus the link, and the packet's serialisation (within 2%,
/// at the measured mean hop count).
#[test]
fn zero_load_latency_matches_the_analytical_anchor() {
    for latency in [0, 1, 4] {
        let text = buffered(
            3,
            "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
            "vcs = 1\nvc_buffer_flits = 64",
            &format!(
                "switch_latency = {latency}\n\
                 [traffic]\npattern = \"uniform\"\npacket_flits = 32\nrate = 0.002\n\
                 [sim]\nwarmup_cycles = 1000\nmeasure_cycles = 100000"
            ),
        );
        let spec = config(&text);
        let s = tailback_core::run(&spec).unwrap().summary;
        let topology = tailback_core::topology::Topology::from_config(&spec);
        let expected = tailback_core::analysis::ZeroLoad::new(&spec, &topology)
            .latency(s.hops.mean.unwrap(), 32);
        let measured = s.latency.mean.unwrap();
        assert!(
            (measured / expected - 1.0).abs() < 0.02,
            "switch latency {latency}: {measured} cycles, zero-load {expected}"
        );
    }
}

/// With `fabric.link` the summary gives Gbit/s and µs: on DDR links a cycle is 32 ns and one
/// block per cycle is 16 Gbit/s.
#[test]
fn summaries_report_gbit_per_second_on_the_link_rate() {
    let text = buffered(
        2,
        "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
        "vcs = 1\nvc_buffer_flits = 64",
        "link = \"ddr\"\n[traffic]\npattern = \"uniform\"\npacket_flits = 32\nrate = 0.5\n\
         [sim]\nwarmup_us = 20\nmeasure_us = 100",
    );
    let s = tailback_core::run(&config(&text)).unwrap().summary;
    let units = s.units.expect("units with fabric.link");
    assert_eq!((units.cycle_ns, units.link_gbps), (32.0, 16.0));
    assert!((units.accepted_gbps - 16.0 * s.accepted).abs() < 1e-9);
    assert!(
        (units.offered_gbps - 8.0).abs() < 0.4,
        "{}",
        units.offered_gbps
    );
    let mean = s.latency.mean.unwrap();
    assert!((units.latency_mean_us.unwrap() - mean * 0.032).abs() < 1e-9);
}

/// With packet sizes in bytes the summary gives the payload's share of the accepted rate
/// beside the rate on the wire: 1024 bytes + RoCEv2's 82 of framing fill 18 blocks (1152 bytes).
#[test]
fn goodput_is_the_payloads_share_of_the_wire() {
    let text = buffered(
        2,
        "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
        "vcs = 1\nvc_buffer_flits = 64",
        "link = \"eth100\"\n[traffic]\npattern = \"uniform\"\npacket_bytes = 1024\nrate = 0.5\n\
         [sim]\nwarmup_us = 5\nmeasure_us = 20",
    );
    let s = tailback_core::run(&config(&text)).unwrap().summary;
    let units = s.units.expect("units with fabric.link");
    assert!((units.accepted_gbps - 100.0 * s.accepted).abs() < 1e-9);
    let goodput = units.goodput_gbps.expect("goodput with packet_bytes");
    assert!((goodput - units.accepted_gbps * 1024.0 / 1152.0).abs() < 1e-9);
}

/// Under `voqnet` an idle output whose listed destination queues all lack room downstream
/// wakes when another destination's queue at the same input becomes ready: with room for one
/// packet per destination and a hot spot over uniform traffic, the invariant checker (no idle
/// output sleeps while it could start a packet) finds nothing, and every packet arrives.
#[test]
fn a_ready_destination_wakes_an_output_whose_others_lack_room() {
    for seed in 1..=3 {
        let text = buffered(
            seed,
            "kind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"d_mod_k\"",
            "vcs = 1\nvc_buffer_flits = 64",
            "queues = \"voqnet\"\nvoqnet_queue_blocks = 8\nswitch_latency = 2\n\
             [nic]\nqueues = \"per_destination\"\nsource_queue_packets = 16\n\
             [traffic]\npattern = \"hotspot\"\nhotspot_nodes = [0]\nhotspot_fraction = 0.3\n\
             packet_flits = 8\nrate = 0.9\n\
             [sim]\nwarmup_cycles = 500\nmeasure_cycles = 3000\ndrain_cycles_max = 200000\n\
             check_invariants = true",
        );
        let report = tailback_core::run(&config(&text)).unwrap();
        let s = &report.summary;
        assert_eq!(s.packets_delivered, s.packets_measured, "seed {seed}");
    }
}

/// Three flows into node 0 of a 4-ary 2-tree that stop a quarter into the measurement window:
/// watched over the window's second half, no Port VL has anything queued; watched from the
/// run's start (`port_vl_span = "run"`), the root's peak is at least half an input pool and
/// never below its mean. The time series splits off what the hot destination (node 0, the
/// destination of several flows) consumes: its windows add up to its flits over the run.
#[test]
fn a_watch_from_the_start_keeps_the_peak_of_a_tree_that_is_gone() {
    let text = |span: &str| {
        buffered(
            1,
            "kind = \"kary_ntree\"\nk = 4\nn = 2",
            "vcs = 1\nvc_buffer_flits = 32",
            &format!(
                "[traffic]\nprocess = \"flows\"\npacket_flits = 4\n\
                 flows = [{{ src = 4, dst = 0, stop_cycle = 2000 }}, \
                 {{ src = 8, dst = 0, stop_cycle = 2000 }}, \
                 {{ src = 12, dst = 0, stop_cycle = 2000 }}]\n\
                 [record]\ncongested_port_vls = true\nport_vl_span = \"{span}\"\n\
                 series_window = 500\n\
                 [sim]\nwarmup_cycles = 0\nmeasure_cycles = 8000\ndrain_cycles_max = 0\n"
            ),
        )
    };
    let settled = tailback_core::run(&config(&text("second_half"))).unwrap();
    assert!(settled.port_vl_map.unwrap().loads.is_empty());
    let report = tailback_core::run(&config(&text("run"))).unwrap();
    let map = report.port_vl_map.as_ref().unwrap();
    let peak = map.loads.iter().map(|l| l.peak).fold(0.0, f64::max);
    assert!(peak >= 0.5, "{map:?}");
    assert!(map.loads.iter().all(|l| l.peak >= l.queued), "{map:?}");
    assert_eq!(report.hot_nodes, vec![0]);
    let hot_flits: f64 = report
        .series
        .iter()
        .map(|r| r.delivered_hot.unwrap() * 500.0)
        .sum();
    let expected = report.accepted_per_node[0] * 8000.0;
    assert!(
        (hot_flits - expected).abs() < 1e-6,
        "{hot_flits} against {expected}"
    );
    // One hot node among all: what it consumes is part of what all consume.
    let nodes = report.accepted_per_node.len() as f64;
    assert!(
        report
            .series
            .iter()
            .all(|r| r.delivered_hot.unwrap() <= r.delivered * nodes + 1e-12)
    );
}
