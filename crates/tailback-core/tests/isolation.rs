//! Congested-flow isolation (`fabric.queues = "nfq_cfq"`: FBICM, and CCFIT with InfiniBand
//! congestion control) on the two switches of Paper V's Config #1: a congestion tree is
//! detected at its root, isolated upstream hop by hop (switch, then adapters) so that a victim
//! sharing the link keeps its rate, and every queue and CAM line is released once it drains;
//! with more trees through a port than congested-flow queues, the extra tree stays in the
//! normal queue; per-flow order and determinism hold.

mod common;

use common::checked_config;
use tailback_core::stats::RunReport;

/// Paper V's Config #1: 5 GB/s links and crossbars, hosts at 2.5 GB/s; nodes 0-2 on the
/// first switch, 3-6 on the second.
fn network(queues: &str, flows: &str, extra: &str) -> String {
    format!(
        "[topology]\nkind = \"file\"\nfile = \"{}/../../experiments/topologies/ccfit-config1.topo\"\n\
         [routing]\nalgorithm = \"table\"\n\
         [router]\nvcs = 1\nvc_buffer_flits = 1024\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = 40.0\nswitch_latency_ns = 100\n\
         queues = \"{queues}\"\nread_ports = 1\nislip_iterations = 1\n\
         [nic]\nqueues = \"per_destination\"\ninject_gbps = 20.0\nreceive_gbps = 20.0\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 32\nmessage_flits = 32\n\
         flows = [{flows}]\n\
         [sim]\nwarmup_cycles = 0\nmeasure_us = 3000\ndrain_cycles_max = 0\n\
         [record]\nflows = true\nseries_window_us = 100\n{extra}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The victim 0 -> 3 all along; contributors 1 -> 4, 2 -> 4 (through the link between the
/// switches, like the victim) and 5 -> 4 (local to the hot node's switch) during
/// [500, 2000] µs.
const ONE_TREE: &str = "{ src = 0, dst = 3 }, \
    { src = 1, dst = 4, start_us = 500, stop_us = 2000 }, \
    { src = 2, dst = 4, start_us = 500, stop_us = 2000 }, \
    { src = 5, dst = 4, start_us = 500, stop_us = 2000 }";

fn run(text: &str) -> RunReport {
    tailback_core::run(&checked_config(text)).unwrap()
}

/// Flow `src -> dst`'s mean rate over windows `first..last`, as a fraction of a host link.
fn host_share(report: &RunReport, (src, dst): (u32, u32), first: usize, last: usize) -> f64 {
    let flow = report
        .flows
        .iter()
        .find(|f| (f.src, f.dst) == (src, dst))
        .unwrap();
    let windows = &flow.windows[first..last];
    // A host link carries half a block per cycle.
    windows.iter().sum::<f64>() / windows.len() as f64 / 0.5
}

fn count(report: &RunReport, name: &str) -> u64 {
    report.summary.mechanism_counts[name]
}

fn gauge_at_end(report: &RunReport, name: &str) -> f64 {
    report.series.last().unwrap().gauges.get(name).unwrap()
}

#[test]
fn a_tree_is_isolated_hop_by_hop_saves_the_victim_and_is_released() {
    let fifo = run(&network("fifo", ONE_TREE, ""));
    let isolated = run(&network("nfq_cfq", ONE_TREE, ""));
    // While the tree stands (windows 10-19: 1-2 ms), one queue per input blocks the victim
    // behind the contributors' packets; isolation gives it its whole link.
    let victim = (0, 3);
    let blocked = host_share(&fifo, victim, 10, 20);
    let freed = host_share(&isolated, victim, 10, 20);
    assert!(blocked < 0.6, "1Q victim at {blocked:.3} of its link");
    assert!(freed > 0.97, "isolated victim at {freed:.3} of its link");
    // The hot link stays busy: the contributors share it.
    let hot: f64 = [(1, 4), (2, 4), (5, 4)]
        .iter()
        .map(|&f| host_share(&isolated, f, 10, 20))
        .sum();
    assert!((hot - 1.0).abs() < 0.03, "hot link at {hot:.3}");
    // Detected at the hot node's switch, told upstream (to the first switch, whose inputs
    // claim branches, and to the adapters), stopped and let go.
    assert!(count(&isolated, "cfq_root_claims") >= 1);
    assert!(count(&isolated, "cfq_branch_claims") >= 2);
    assert!(count(&isolated, "control_allocates") >= 3);
    assert!(count(&isolated, "control_stops") >= 1);
    assert_eq!(
        count(&isolated, "control_stops"),
        count(&isolated, "control_goes"),
        "every Stop is followed by a Go once the tree drains"
    );
    // A second after the contributors stop, every line is free and no copy is held upstream.
    assert_eq!(gauge_at_end(&isolated, "cfqs_claimed"), 0.0);
    assert_eq!(gauge_at_end(&isolated, "cam_copies_held"), 0.0);
    assert_eq!(
        count(&isolated, "control_allocates"),
        count(&isolated, "control_deallocates")
    );
}

#[test]
fn a_tree_beyond_the_congested_flow_queues_stays_in_the_normal_queue() {
    // Two trees (towards nodes 4 and 5) through the link between the switches, each with a
    // local contributor at the hot nodes' switch.
    let two_trees = "{ src = 0, dst = 4 }, { src = 6, dst = 4 }, \
                     { src = 1, dst = 5 }, { src = 3, dst = 5 }, { src = 2, dst = 6 }";
    let with = |cfqs: u32| {
        run(&network(
            "nfq_cfq",
            two_trees,
            &format!("[fabric.isolation]\ncfqs = {cfqs}\n"),
        ))
    };
    let (one, two) = (with(1), with(2));
    // With one queue per input the second tree's packets find no free line and stay in the
    // normal queue, where they block the cold flow 2 -> 6 behind them; with two, both trees
    // are isolated and the cold flow keeps its link.
    assert!(count(&one, "cfq_claims_refused") > 0);
    assert_eq!(count(&two, "cfq_claims_refused"), 0);
    let cold = (2, 6);
    let (blocked, free) = (host_share(&one, cold, 5, 30), host_share(&two, cold, 5, 30));
    assert!(free > 0.97, "cold flow with two CFQs: {free:.3}");
    assert!(blocked < free - 0.1, "cold flow with one CFQ: {blocked:.3}");
}

#[test]
fn flows_arrive_in_order_and_runs_repeat_exactly() {
    let text = network(
        "nfq_cfq",
        ONE_TREE,
        "[fabric.isolation]\ndetect_blocks = 64\nstop_blocks = 96\ngo_blocks = 64\n\
         control_delay = 5\ncontrol_in_band = true\n",
    );
    let spec = checked_config(&text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.txt");
    let out = tailback_core::trace::create(&path).unwrap();
    let (report, written) = tailback_core::run_traced(&spec, u64::MAX, |_| {}, out).unwrap();
    written.unwrap();
    let mut records = tailback_core::trace::read(&path, spec.node_count()).unwrap();
    assert!(records.len() > 1000);
    records.sort_by_key(|r| (r.src, r.dst, r.created, r.injected));
    for pair in records.windows(2) {
        if (pair[0].src, pair[0].dst) == (pair[1].src, pair[1].dst) {
            assert!(
                pair[0].delivered < pair[1].delivered,
                "out of order: {:?} then {:?}",
                pair[0],
                pair[1]
            );
        }
    }
    let mut again = tailback_core::run(&spec).unwrap();
    // Everything but the wall-clock time.
    again.summary.wall_seconds = report.summary.wall_seconds;
    again.summary.node_cycles_per_second = report.summary.node_cycles_per_second;
    assert_eq!(
        serde_json::to_string(&report).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

/// Virtual output queues with hot-packet queues (HFDI; `voq_hpq`): the hot node's virtual
/// output queue at its switch passes the upper threshold and names the root exactly, with no
/// hot-packet queue there; the other switch's inputs (and the adapters) isolate the tree in
/// hot-packet queues that Stop and Go keep near the threshold, so the victim is not blocked
/// behind the tree on the link between the switches as it is with virtual output queues
/// alone; everything is released once the tree drains.
#[test]
fn hot_packet_queues_isolate_upstream_of_an_exactly_detected_root() {
    let voqs = |queues: &str| {
        network(queues, ONE_TREE, "").replace("read_ports = 1\nislip_iterations = 1\n", "")
    };
    let plain = run(&voqs("voq"));
    let isolated = run(&voqs("voq_hpq"));
    let victim = (0, 3);
    let blocked = host_share(&plain, victim, 10, 20);
    let freed = host_share(&isolated, victim, 10, 20);
    assert!(blocked < 0.6, "VOQ victim at {blocked:.3} of its link");
    assert!(freed > 0.95, "HFDI victim at {freed:.3} of its link");
    assert!(count(&isolated, "cfq_root_claims") >= 1);
    assert!(count(&isolated, "cfq_branch_claims") >= 2);
    // Stop and Go hold each hot-packet queue within a few packets of the upper threshold
    // (128 blocks), where the pool would let it take all 1,024.
    let most = count(&isolated, "cfq_max_blocks");
    assert!((128..=128 + 4 * 32).contains(&most), "{most}");
    assert_eq!(
        count(&isolated, "control_stops"),
        count(&isolated, "control_goes")
    );
    assert_eq!(gauge_at_end(&isolated, "cfqs_claimed"), 0.0);
    assert_eq!(gauge_at_end(&isolated, "cam_copies_held"), 0.0);
}

/// A resolved configuration of isolating switches, flows (to a node and uniform, with start
/// and stop times) and link units reads back to itself: what a run stores can be rerun.
#[test]
fn resolved_isolation_configs_read_back_to_themselves() {
    for (queues, isolation) in [
        (
            "nfq_cfq",
            "[fabric.isolation]\ncfqs = 3\npropagate = \"on_stop\"\narbitration = \"round_robin\"\n",
        ),
        (
            "voq_hpq",
            "[fabric.isolation]\nhpqs = 1\nlow_blocks = 32\nroot_needs_credits = true\n\
             arbitration = \"root_weighted\"\nrate_interval = 200\n",
        ),
    ] {
        let flows = format!("{ONE_TREE}, {{ src = 6, dst = \"uniform\", stop_us = 100 }}");
        let spec =
            tailback_core::spec::Spec::from_toml_str(&network(queues, &flows, isolation), "<test>")
                .unwrap();
        let table = toml::Table::try_from(&*spec).unwrap();
        assert_eq!(
            tailback_core::spec::Spec::from_table(&table).unwrap(),
            spec,
            "{table}"
        );
    }
}

/// The 4-ary 3-tree with 16 nodes sending to node 40 from 100 µs on, over 100 % uniform
/// traffic from the other 47, with congested-flow queues arbitrated by `arbitration`.
fn tree_over_uniform(arbitration: &str) -> String {
    tree_over_uniform_routed(arbitration, "d_mod_k", "free")
}

/// As [`tree_over_uniform`], under `routing` with `tree_routing`.
fn tree_over_uniform_routed(arbitration: &str, routing: &str, tree_routing: &str) -> String {
    let hot = [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21];
    let flows: Vec<String> = (0..64)
        .filter(|&n| n != 40)
        .map(|n| {
            if hot.contains(&n) {
                format!("{{ src = {n}, dst = 40, start_us = 100 }}")
            } else {
                format!("{{ src = {n}, dst = \"uniform\" }}")
            }
        })
        .collect();
    format!(
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{routing}\"\n\
         [router]\nvcs = 1\nvc_buffer_flits = 1024\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = 20.0\nswitch_latency_ns = 100\n\
         queues = \"nfq_cfq\"\nread_ports = 1\nislip_iterations = 1\n\
         [fabric.isolation]\narbitration = \"{arbitration}\"\ntree_routing = \"{tree_routing}\"\n\
         [nic]\nqueues = \"per_destination\"\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 32\nmessage_flits = 32\n\
         flows = [{}]\n\
         [sim]\nwarmup_us = 200\nmeasure_us = 500\ndrain_cycles_max = 0\n[record]\nflows = true\n",
        flows.join(", ")
    )
}

/// Delivered flits per cycle of the flows to node `hot`, and of the others.
fn hot_and_cold(report: &RunReport, hot: u32) -> (f64, f64) {
    report.flows.iter().fold((0.0, 0.0), |(h, c), f| {
        if f.dst == hot {
            (h + f.accepted, c)
        } else {
            (h, c + f.accepted)
        }
    })
}

#[test]
fn normal_queues_served_first_carry_more_cold_traffic_past_a_tree() {
    // Unchecked: the invariant checker's sweeps over 48 switches would dominate the test.
    let [ready, normal, turns, weighted] = [
        "ready_order",
        "normal_first",
        "round_robin",
        "root_weighted",
    ]
    .map(|a| tailback_core::run(&common::config(&tree_over_uniform(a))).unwrap());
    let rates = count(&weighted, "control_rates");
    let [ready, normal, turns, weighted] =
        [&ready, &normal, &turns, &weighted].map(|r| hot_and_cold(r, 40));

    // The root's link stays full whatever the switches serve first.
    for (hot, _) in [ready, normal, turns, weighted] {
        assert!((hot - 1.0).abs() < 0.01, "hot node at {hot:.3}");
    }
    // Where an input holds cold and hot packets for the same output, serving the normal queue
    // first lets cold packets past the tree: more cold traffic than in ready order; taking
    // turns changes the outcome too (the setting is in effect).
    assert!(
        normal.1 > ready.1 + 0.1,
        "cold: normal first {:.3}, ready order {:.3}",
        normal.1,
        ready.1
    );
    assert!(
        (turns.1 - ready.1).abs() > 0.05,
        "cold: turns {:.3}, ready order {:.3}",
        turns.1,
        ready.1
    );
    // Weighing by the root's drain: the roots report (Rate messages) and the branches give
    // isolating queues less than the turns ready order gives them, so more cold traffic
    // passes than in ready order.
    assert!(rates > 0);
    assert!(
        weighted.1 > ready.1 + 0.1,
        "cold: root weighted {:.3}, ready order {:.3}",
        weighted.1,
        ready.1
    );
}

/// Isolation under adaptive up-routing: with trees routed freely (naive), followed, or
/// gathered on the deterministic route (ours), the tree is detected and isolated upstream, and
/// the root's link stays full (nearly, when gathered); keeping a tree's packets on known trees
/// leaves fewer trees without a free congested-flow queue than letting them spread over every
/// up port.
#[test]
fn isolation_under_adaptive_routing_keeps_the_root_full_and_known_trees_need_fewer_lines() {
    let [free, follow, gather] = ["free", "follow", "deterministic"].map(|tree_routing| {
        let text = tree_over_uniform_routed("ready_order", "adaptive_up", tree_routing);
        tailback_core::run(&common::config(&text)).unwrap()
    });
    // Gathering a tree's packets on d_mod_k's ports while the others choose costs the root's
    // link some of its rate here (0.92 of it; not traced further).
    for (name, report, least) in [
        ("free", &free, 0.99),
        ("follow", &follow, 0.99),
        ("gather", &gather, 0.9),
    ] {
        let (hot, _) = hot_and_cold(report, 40);
        assert!(hot > least && hot < 1.01, "{name}: hot node at {hot:.3}");
        assert!(count(report, "cfq_root_claims") > 0, "{name}");
        assert!(count(report, "cfq_branch_claims") > 0, "{name}");
    }
    let refused = |r: &RunReport| count(r, "cfq_claims_refused");
    assert!(
        refused(&follow) < refused(&free) && refused(&gather) < refused(&free),
        "claims refused: free {}, follow {}, gather {}",
        refused(&free),
        refused(&follow),
        refused(&gather)
    );
}

/// Under adaptive up-routing a tree's packets take other up ports than `d_mod_k` would give
/// them; the invariant checker (credits, pools, queues, CAM lines) finds nothing wrong with
/// isolation under each way of routing them.
#[test]
fn isolation_under_adaptive_routing_keeps_the_fabric_invariants() {
    for tree_routing in ["free", "follow", "deterministic"] {
        let text = tree_over_uniform_routed("ready_order", "adaptive_up", tree_routing)
            .replace("measure_us = 500", "measure_us = 100");
        let report = run(&text);
        assert!(count(&report, "cfq_root_claims") > 0, "{tree_routing}");
    }
}

/// A permanent congestion tree does not starve the traffic it meets: on the 4-ary 4-tree, 32
/// odd nodes send to node 26 all along while 124 even nodes run two all-to-all exchanges of a
/// packet per pair at half the link's rate and a gather (a trace replayed beside the flows).
/// Hot-packet queues give the application the time it takes with a queue per destination.
/// (When a tree's line is released downstream while another line there lists its
/// destinations, the upstream queue must obey that line's Stop and Go: drained on its own
/// into a stopped queue, it held the application up for good.)
#[test]
fn a_permanent_tree_beside_an_application_lets_it_finish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exchange.trace");
    let ranks: Vec<u32> = (0..256)
        .step_by(2)
        .filter(|n| ![26, 206, 220, 252].contains(n))
        .collect();
    let n = ranks.len();
    let mut lines = Vec::new();
    // From 200 µs (15,625 cycles), once the tree has grown; 400 cycles between phases.
    let mut start = 15_625;
    for _ in 0..2 {
        for (r, &src) in ranks.iter().enumerate() {
            for k in 1..n {
                lines.push((start + 64 * (k as u64 - 1), src, ranks[(r + k) % n]));
            }
        }
        start += 64 * (n as u64 - 1) + 400;
    }
    lines.extend(ranks[1..].iter().map(|&src| (start, src, ranks[0])));
    lines.sort_unstable();
    let text: String = lines
        .iter()
        .map(|(at, s, d)| format!("{at} {s} {d} 32\n"))
        .collect();
    std::fs::write(&path, text).unwrap();
    let hot: Vec<String> = [
        233, 195, 31, 51, 5, 47, 125, 79, 249, 145, 23, 199, 29, 239, 71, 211, 185, 135, 169, 143,
        123, 197, 119, 175, 63, 219, 187, 19, 1, 65, 57, 53,
    ]
    .iter()
    .map(|s| format!("{{ src = {s}, dst = 26 }}"))
    .collect();
    let run_with = |queues: &str, extra: &str| {
        let spec = common::config(&format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 4\n\
             [router]\nvcs = 1\nvc_buffer_flits = 2048\nswitching = \"virtual_cut_through\"\n\
             [fabric]\nkind = \"buffered\"\nlink = 40.0\nswitch_latency_ns = 100\n\
             queues = \"{queues}\"\n{extra}\
             [nic]\nqueues = \"per_destination\"\nsource_queue_packets = 65536\n\
             [traffic]\nprocess = \"flows\"\npacket_flits = 32\ntrace_file = {:?}\n\
             flows = [{}]\n\
             [sim]\nwarmup_cycles = 0\nmeasure_us = 1000\ndrain_cycles_max = 0\n",
            path.display().to_string(),
            hot.join(", ")
        ));
        tailback_core::run(&spec).unwrap()
    };
    let done = |r: &RunReport| {
        r.summary
            .trace_done_cycles
            .expect("the application finished")
    };
    let ideal = done(&run_with("voqnet", "voqnet_queue_blocks = 64\n"));
    let isolated = done(&run_with("voq_hpq", ""));
    assert!(
        (isolated as f64) < 1.1 * ideal as f64,
        "HFDI {isolated} cycles, VOQnet {ideal}"
    );
}

/// The 72-node dragonfly (p = 2, a = 4, h = 2; 9 groups of 8 nodes) of 4X DDR buffered
/// switches with 3 lanes of 333 blocks, under `routing`, with `flows`. `queues` holds the
/// queue scheme's settings.
fn dragonfly(routing: &str, queues: &str, flows: &[String]) -> String {
    format!(
        "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\nlocal_latency = 2\n\
         global_latency = 16\n[routing]\nalgorithm = \"{routing}\"\n\
         [router]\nvcs = 3\nvc_buffer_flits = 333\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\nswitch_latency_ns = 100\n{queues}\n\
         [nic]\nqueues = \"per_destination\"\ninject_gbps = 13.5\nreceive_gbps = 13.6\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 32\nmessage_bytes = 4096\n\
         flows = [{}]\n\
         [sim]\nwarmup_us = 200\nmeasure_us = 300\ndrain_cycles_max = 0\n[record]\nflows = true\n",
        flows.join(", ")
    )
}

/// [`dragonfly`] with one node of every other group sending to node 40 from 100 µs on, and
/// node 1 (on node 0's switch, whose flow joins the tree) sending to node 40's neighbour 41
/// all along.
fn dragonfly_tree(routing: &str, queues: &str) -> String {
    let flows: Vec<String> = [0, 1, 2, 3, 4, 6, 7, 8]
        .iter()
        .map(|g| format!("{{ src = {}, dst = 40, start_us = 100 }}", g * 8))
        .chain(["{ src = 1, dst = 41 }".to_string()])
        .collect();
    dragonfly(routing, queues, &flows)
}

/// FBICM's thresholds as the same shares of a 333-block pool as its defaults are of Paper V's
/// 1024-block one (detection 1/4, Stop 5/16, Go 1/8).
const DRAGONFLY_CFQS: &str = "queues = \"nfq_cfq\"\n[fabric.isolation]\ndetect_blocks = 83\n\
    stop_blocks = 104\ngo_blocks = 42";

/// On a dragonfly packets change lanes hop by hop (a class before and after the global hop,
/// and one more on a detour), so a tree is followed upstream by output and lane. Under minimal
/// routing and under UGAL-L (freely, following known trees, or gathering them on the minimal
/// route), the invariant checker finds nothing wrong, the tree is detected, isolated upstream
/// and stopped, the hot node's link stays full, and the victim that shares the contributors'
/// first switch keeps most of its link, where one queue per input leaves it a fraction.
#[test]
fn isolation_follows_trees_across_lanes_on_a_dragonfly() {
    // Blocks per cycle delivered to the victim and to the hot node.
    let victim = |r: &RunReport| r.flows.iter().find(|f| f.dst == 41).unwrap().accepted;
    let hot = |r: &RunReport| hot_and_cold(r, 40).0;
    for routing in ["min", "ugal_l"] {
        // Unchecked: the invariants of interest are isolation's.
        let fifo_text = dragonfly_tree(routing, "queues = \"fifo\"");
        let fifo = tailback_core::run(&common::config(&fifo_text)).unwrap();
        assert!(
            victim(&fifo) < 0.3,
            "{routing} 1Q: victim {:.3}",
            victim(&fifo)
        );
        let tree_routings: &[&str] = if routing == "min" {
            &["free"]
        } else {
            &["free", "follow", "deterministic"]
        };
        for tree_routing in tree_routings {
            let text = dragonfly_tree(
                routing,
                &format!("{DRAGONFLY_CFQS}\ntree_routing = \"{tree_routing}\""),
            );
            let isolated = run(&text);
            let case = format!("{routing}, {tree_routing}");
            for counter in ["cfq_root_claims", "cfq_branch_claims", "control_stops"] {
                assert!(count(&isolated, counter) > 0, "{case}: no {counter}");
            }
            assert!(
                victim(&isolated) > 0.7,
                "{case}: victim {:.3}",
                victim(&isolated)
            );
            // A host receives at most 13.6 of the link's 16 Gbit/s.
            let hot = hot(&isolated);
            assert!(hot > 0.82 && hot < 0.86, "{case}: hot node at {hot:.3}");
        }
    }
    common::refused(
        &dragonfly_tree("ugal_l", "queues = \"voq_hpq\""),
        "routing.algorithm",
        &["voq_hpq", "lanes hop by hop", "nfq_cfq"],
    );
}

/// [`dragonfly`] under UGAL-L with FBICM's scaled thresholds, every node sending to the next
/// group at 4 times what the one global link between two groups carries per node; `tree`
/// holds the tree routing's settings.
fn dragonfly_shift(tree: &str) -> String {
    let flows: Vec<String> = (0..72)
        .map(|n| format!("{{ src = {n}, dst = \"next_group\", gbps = 8.0 }}"))
        .collect();
    dragonfly("ugal_l", &format!("{DRAGONFLY_CFQS}\n{tree}"), &flows)
}

/// Under a group shift beyond the minimal links' capacity the trees are rooted at links
/// between switches, which UGAL-L's detours avoid: gathering every known tree's packets on
/// the minimal route takes the detours away, while heeding only trees rooted at an adapter's
/// link (`tree_roots = "endpoint"`, ours) carries what UGAL-L carries with trees routed
/// freely (within 5 %), and the key is refused where no tree routing heeds it.
#[test]
fn tree_routing_that_heeds_only_adapters_trees_leaves_ugal_its_detours() {
    let accepted = |tree: &str| {
        tailback_core::run(&common::config(&dragonfly_shift(tree)))
            .unwrap()
            .summary
            .accepted
    };
    let free = accepted("tree_routing = \"free\"");
    let every = accepted("tree_routing = \"deterministic\"");
    let endpoint = accepted("tree_routing = \"deterministic\"\ntree_roots = \"endpoint\"");
    assert!(every < 0.7 * free, "every tree {every:.4}, free {free:.4}");
    assert!(
        (endpoint - free).abs() < 0.05 * free,
        "adapters' trees {endpoint:.4}, free {free:.4}"
    );
    common::refused(
        &dragonfly_shift("tree_roots = \"endpoint\""),
        "fabric.isolation.tree_roots",
        &["tree_routing"],
    );
}
