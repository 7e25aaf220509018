//! Congestion forests (`traffic.process = "forest"`, Paper IV of Gran's thesis) on a small
//! folded Clos of buffered switches: the victims alone get their offered rate, a silent forest
//! saturates its hot spots and blocks the victims, IB CC frees them, and the fabric's invariants
//! hold throughout.

mod common;

use common::config;
use tailback_core::stats::RunReport;

/// A 2-level folded Clos of 8-port switches (32 nodes), DDR links, hosts at 13.5 Gbit/s
/// injected and 13.6 received, 4 KB messages, 2 hot spots and the `[traffic.forest]` keys
/// `keys`, measured for `measure_us` after as long a warm-up; `extra` adds tables.
fn forest(keys: &str, extra: &str, measure_us: u32) -> String {
    format!(
        "seed = 3\n\
         [topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 2\n\
         [routing]\nalgorithm = \"d_mod_k\"\n\
         [router]\nvcs = 1\nvc_buffer_flits = 1000\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\n\
         [nic]\nqueues = \"per_destination\"\ninject_gbps = 13.5\nreceive_gbps = 13.6\n\
         [traffic]\nprocess = \"forest\"\npacket_flits = 32\nmessage_bytes = 4096\n\
         [traffic.forest]\nhotspots = 2\n{keys}\n\
         [sim]\nwarmup_us = {measure_us}\nmeasure_us = {measure_us}\ndrain_max_us = 0\n\
         check_invariants = {}\n{extra}",
        measure_us <= 1000
    )
}

fn run(text: &str) -> RunReport {
    tailback_core::run(&config(text)).unwrap()
}

/// Receive rates (hot spots, the other nodes, all), Gbit/s per node.
fn classes(report: &RunReport) -> (f64, f64, f64) {
    let gbps = report.summary.units.unwrap().receive_gbps.unwrap();
    (gbps.hot, gbps.others.unwrap(), gbps.all)
}

/// Without hot traffic, the victims (20 % of the nodes, at 13.5 Gbit/s each, to uniform
/// destinations) load the network lightly: every node receives its share, 0.2 x 13.5 Gbit/s
/// within 5 %, and the invariant checker finds nothing.
#[test]
fn victims_alone_receive_what_they_offer() {
    let (_, _, all) = classes(&run(&forest("hot_traffic = false", "", 1000)));
    let victims = (0.2f64 * 32.0).round() / 32.0;
    assert!((all / (victims * 13.5) - 1.0).abs() < 0.05, "{all}");
}

/// The silent forest without CC: the hot spots receive at their 13.6 Gbit/s cap (within 2 %)
/// and the tree blocks the victims: the other nodes receive less than half their share. With
/// IB CC (Paper IV's settings) the other nodes receive at least twice as much, the hot spots
/// lose at most 10 %, and the invariants hold.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "30 ms of simulated time: release builds only"
)]
fn congestion_control_frees_the_victims_of_a_silent_forest() {
    let off = run(&forest("", "", 15000));
    let cc = "[congestion]\nmechanism = \"ib_cc\"\nmarking_rate = 0\npacket_size_bytes = 0\n\
              cct = \"quadratic\"";
    let on = run(&forest("", cc, 15000));
    let (hot_off, others_off, _) = classes(&off);
    let (hot_on, others_on, _) = classes(&on);
    assert!((hot_off / 13.6 - 1.0).abs() < 0.02, "{hot_off}");
    let victims_share = 13.5 * 0.2 * 32.0 / 30.0;
    assert!(others_off < victims_share / 2.0, "{others_off}");
    assert!(others_on > 2.0 * others_off, "{others_on} vs {others_off}");
    assert!(hot_on > 0.9 * hot_off, "{hot_on}");
}

/// With the invariant checker on (every run of at most 1 ms has it), CC on and moving hot
/// spots, nothing is lost, duplicated or overflowed while hot spots move every 200 µs.
#[test]
fn moving_forests_keep_the_fabric_invariants() {
    let cc = "[congestion]\nmechanism = \"ib_cc\"\nmarking_rate = 0\ncct = \"quadratic\"";
    let keys = "b_nodes = 0.5\nb_share = 0.6\nhotspot_lifetime_us = 200";
    let report = run(&forest(keys, cc, 600));
    assert!(report.summary.mechanism_counts["marks"] > 0);
    assert!(
        report.summary.receive_by_class.is_none(),
        "moving hot spots have no fixed class"
    );
    assert!(report.summary.accepted > 0.1);
}

/// The same seed gives the same forest and the same run, node by node.
#[test]
fn forests_are_deterministic() {
    let text = forest("", "", 300);
    let (a, b) = (run(&text), run(&text));
    assert_eq!(a.accepted_per_node, b.accepted_per_node);
    assert_eq!(a.summary.packets_delivered, b.summary.packets_delivered);
}

/// Every node a B node sending 90 % to its hot spot, no CC: the hot spots saturate and every
/// other node's link is held up by its hot packets. One message at a time (the default), a
/// node then sends hot and cold messages in the ratio of their shares, so the cold traffic
/// all nodes receive together is about (1 − p)/p of what the hot spots receive, plus the
/// hot spots' own cold share (they send nothing hot): within 50 %. Each class on its own, the
/// cold messages waiting beside the hot one take most turns: the others receive at least
/// three times as much.
#[test]
fn one_message_at_a_time_keeps_the_shares_when_the_links_are_blocked() {
    let keys = "b_nodes = 1\nb_share = 0.9";
    let one = run(&forest(keys, "", 5000));
    let per_class = run(&forest(
        &format!("{keys}\nposting = \"per_class\""),
        "",
        5000,
    ));
    let (hot, others, _) = classes(&one);
    assert!((hot / 13.6 - 1.0).abs() < 0.02, "{hot}");
    let cold_received = others * 30.0;
    let expected = (0.1 / 0.9) * 2.0 * hot + 2.0 * 0.1 * 13.5;
    assert!(
        (cold_received / expected - 1.0).abs() < 0.5,
        "{cold_received} vs {expected}"
    );
    let (_, others_per_class, _) = classes(&per_class);
    assert!(
        others_per_class > 3.0 * others,
        "{others_per_class} vs {others}"
    );
}
