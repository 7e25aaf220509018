//! The congestion-control-off results of Gran et al.'s InfiniBand studies (PhD thesis,
//! University of Oslo, 2013) on the buffered fabric with channel adapters and flows: one flow
//! at the PCIe-limited 13 Gbit/s, round-robin shares at one switch (Paper II, Type I), the
//! testbed's victim and parking lot (Paper III scenario 1, Paper II Type II) and the shared
//! QDR link (Paper III scenario 2). Flows start 2 ms apart instead of 1 s: the network settles
//! in microseconds.

mod common;

use common::config;
use tailback_core::stats::RunReport;

/// Milliseconds between flow starts.
const PHASE_MS: f64 = 2.0;

/// Paper III's scenario 1 (and Paper II's Type II): the victim H1 -> H4, then H2, H3, H6 and
/// H7 towards H5, one per phase.
const SCENARIO_1: [(u32, u32, u32); 5] = [(0, 3, 0), (1, 4, 1), (2, 4, 2), (5, 4, 3), (6, 4, 4)];

/// Milliseconds between flow starts with congestion control, which takes about 10 ms to
/// settle after a flow joins.
const CC_PHASE_MS: f64 = 20.0;

fn topology(name: &str) -> String {
    format!(
        "{}/../../experiments/topologies/{name}.topo",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A run and the time between its flows' starts.
struct Run {
    report: RunReport,
    phase_ms: f64,
}

/// A buffered-fabric run on topology file `topo` with links of rate `link` (the fastest), hosts
/// capped at 13.0 Gbit/s injected and 13.1 received, and `flows` (src, dst, start in phases)
/// sending 64 KB messages as fast as allowed, for `phases` phases of [`PHASE_MS`].
fn run(topo: &str, link: &str, flows: &[(u32, u32, u32)], phases: u32) -> Run {
    run_text(
        &scenario_text(topo, link, flows, phases, "", PHASE_MS),
        PHASE_MS,
    )
}

/// The configuration of [`run`] with `extra` (more `[fabric]` keys, or further tables) and
/// phases of `phase_ms`.
fn scenario_text(
    topo: &str,
    link: &str,
    flows: &[(u32, u32, u32)],
    phases: u32,
    extra: &str,
    phase_ms: f64,
) -> String {
    let flows: Vec<String> = flows
        .iter()
        .map(|&(src, dst, phase)| {
            format!(
                "{{ src = {src}, dst = {dst}, start_us = {} }}",
                f64::from(phase) * phase_ms * 1000.0
            )
        })
        .collect();
    format!(
        "[topology]\nkind = \"file\"\nfile = \"{}\"\n[routing]\nalgorithm = \"table\"\n\
         [router]\nvcs = 1\nvc_buffer_flits = 1000\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = \"{link}\"\nswitch_latency_ns = 100\n{extra}\n\
         [nic]\nqueues = \"per_destination\"\ninject_gbps = 13.0\nreceive_gbps = 13.1\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 32\nmessage_bytes = 65536\n\
         flows = [{}]\n\
         [sim]\nwarmup_us = 0\nmeasure_us = {}\ndrain_max_us = 0\n\
         [record]\nflows = true\nseries_window_us = 100",
        topology(topo),
        flows.join(", "),
        f64::from(phases) * phase_ms * 1000.0
    )
}

/// Runs the configuration `text` whose flows start `phase_ms` apart.
fn run_text(text: &str, phase_ms: f64) -> Run {
    Run {
        report: tailback_core::run(&config(text)).unwrap(),
        phase_ms,
    }
}

/// A run on the testbed (QDR between the switches, DDR to the hosts) with `extra` settings and
/// phases of `phase_ms`.
fn testbed(flows: &[(u32, u32, u32)], phases: u32, extra: &str, phase_ms: f64) -> Run {
    let text = scenario_text("ib-testbed", "qdr", flows, phases, extra, phase_ms);
    run_text(&text, phase_ms)
}

/// Flow `src` → `dst`'s mean Gbit/s over the second half of phase `phase`.
fn gbps(run: &Run, src: u32, dst: u32, phase: u32) -> f64 {
    let units = run.report.summary.units.unwrap();
    let flow = run
        .report
        .flows
        .iter()
        .find(|f| (f.src, f.dst) == (src, dst))
        .unwrap_or_else(|| panic!("no flow {src} -> {dst}"));
    let windows_per_phase = (run.phase_ms * 10.0) as usize;
    let first = phase as usize * windows_per_phase + windows_per_phase / 2;
    let part = &flow.windows[first..first + windows_per_phase / 2];
    units.link_gbps * part.iter().sum::<f64>() / part.len() as f64
}

/// Scenario 1 on the testbed with `mechanism` on, its notifications on a priority lane, sent as
/// `notification` says with `feedback`.
fn cell(mechanism: &str, notification: &str, feedback: &str) -> Run {
    let cc = format!(
        "[congestion]\nmechanism = \"{mechanism}\"\ncnp_vl = \"priority\"\n\
         notification = \"{notification}\"\nfeedback = \"{feedback}\""
    );
    let text = scenario_text("ib-testbed", "qdr", &SCENARIO_1, 5, &cc, CC_PHASE_MS)
        .replace("vcs = 1", "vcs = 2");
    run_text(&text, CC_PHASE_MS)
}

/// Scenario 1 on the testbed with `cc` (a `[congestion]` table) on `lanes` lanes, 0.5 ms, with
/// the invariant checker on.
fn checked(cc: &str, lanes: u32) -> Run {
    let text = scenario_text("ib-testbed", "qdr", &SCENARIO_1, 5, cc, 0.1)
        .replace("vcs = 1", &format!("vcs = {lanes}"))
        .replace(
            "drain_max_us = 0",
            "drain_max_us = 0\ncheck_invariants = true",
        );
    run_text(&text, 0.1)
}

fn assert_near(what: &str, ours: f64, expected: f64, tolerance: f64) {
    assert!(
        (ours / expected - 1.0).abs() <= tolerance,
        "{what}: {ours:.3} Gbit/s, expected {expected:.3} within {:.1}%",
        tolerance * 100.0
    );
}

#[test]
fn one_flow_runs_at_the_injection_cap() {
    let report = run("ib-testbed", "qdr", &[(0, 3, 0)], 1);
    assert_near("H1 -> H4 alone", gbps(&report, 0, 3, 0), 13.0, 0.005);
}

/// Paper II, Type I, CC off: with 2, 3 and 4 flows into H5 each gets 1/2, 1/3, 1/4 of the
/// sink (13.1 Gbit/s), and H1 → H4 keeps 13.
#[test]
fn contributors_at_one_switch_share_the_sink_equally() {
    let flows = [(0, 3, 0), (1, 4, 0), (2, 4, 1), (5, 4, 2), (6, 4, 3)];
    let report = run("ib-type1", "ddr", &flows, 4);
    for phase in 0..4 {
        assert_near("H1 -> H4", gbps(&report, 0, 3, phase), 13.0, 0.01);
        let active = &flows[1..2 + phase as usize];
        for &(src, dst, _) in active {
            let share = 13.1 / active.len() as f64;
            assert_near(
                &format!("H{} in phase {phase}", src + 1),
                gbps(&report, src, dst, phase),
                share,
                0.02,
            );
        }
    }
}

/// Paper III scenario 1 / Paper II Type II, CC off: the victim H1 → H4 falls to "just under 7"
/// with three flows through S1 → S2 (ideal round robin: 6.55) and to about 2 with five (2.18),
/// while H6 and H7 take about 4.5 (4.37): a third of H5's link each, H2 and H3 a sixth.
#[test]
fn the_victim_and_the_parking_lot_appear_without_congestion_control() {
    let flows = SCENARIO_1;
    let report = run("ib-testbed", "qdr", &flows, 5);
    for src in 0..3 {
        let with_three = gbps(&report, src, flows[src as usize].1, 2);
        assert!(
            (6.0..7.0).contains(&with_three),
            "H{}: {with_three}",
            src + 1
        );
        assert_near(
            "victim and F2/F3 with five flows",
            gbps(&report, src, flows[src as usize].1, 4),
            2.0,
            0.15,
        );
    }
    for src in [5, 6] {
        assert_near("F4/F5 with five flows", gbps(&report, src, 4, 4), 4.5, 0.15);
    }
    let sink: f64 = flows[1..]
        .iter()
        .map(|&(s, d, _)| gbps(&report, s, d, 4))
        .sum();
    for (src, share) in [
        (1, 1.0 / 6.0),
        (2, 1.0 / 6.0),
        (5, 1.0 / 3.0),
        (6, 1.0 / 3.0),
    ] {
        let ours = gbps(&report, src, 4, 4) / sink;
        assert!((ours - share).abs() < 0.03, "H{}: share {ours}", src + 1);
    }
}

/// Paper III scenario 2, CC off: three flows share the QDR link between the switches at about
/// 10.4 Gbit/s each (Table II: 10427.64 Mbit/s); this needs packets forwarded from the DDR hosts
/// onto the QDR link without gaps.
#[test]
fn three_flows_share_the_fast_link() {
    let flows = [(0, 3, 0), (1, 4, 1), (2, 5, 2)];
    let report = run("ib-testbed", "qdr", &flows, 3);
    for &(src, dst, _) in &flows {
        assert_near("scenario 2 flow", gbps(&report, src, dst, 2), 10.43, 0.03);
    }
}

/// A channel adapter whose queue pair for a congested destination has no room downstream
/// (VOQnet) sends to its other destinations meanwhile: H1 gets its third of H5's link (shared
/// per input port at S2 with H6 and H7) and the rest of its 13 Gbit/s goes to H4.
#[test]
fn a_queue_pair_without_room_does_not_block_the_adapter() {
    let flows = [(0, 3, 0), (0, 4, 0), (5, 4, 0), (6, 4, 0)];
    let report = testbed(&flows, 1, "queues = \"voqnet\"", PHASE_MS);
    let hot = gbps(&report, 0, 4, 0);
    assert_near("H1 -> H5", hot, 13.1 / 3.0, 0.03);
    assert_near("H1 -> H4", gbps(&report, 0, 3, 0), 13.0 - hot, 0.01);
    // H5, the destination of three flows, is the hot class; it receives at its cap.
    let classes = report.report.summary.receive_by_class.unwrap();
    let others = classes.others.unwrap();
    assert_eq!((classes.hot.nodes, others.nodes), (1, 6));
    let received = report.report.summary.units.unwrap().receive_gbps.unwrap();
    assert_near("H5 received", received.hot, 13.1, 0.01);
    let total = classes.hot.mean + 6.0 * others.mean;
    assert!((classes.all.mean * 7.0 - total).abs() < 1e-9);
}

/// With a queue per destination and room of its own at every switch input (VOQnet, the
/// idealised isolation Papers V and VI compare against), the testbed's victim is not blocked:
/// H1 -> H4 keeps its 13 Gbit/s with all five flows on, while H5's link is still shared per
/// input port (a third for the switch link's, which carries H2 and H3).
#[test]
fn per_destination_queues_free_the_victim() {
    let flows = SCENARIO_1;
    let report = testbed(&flows, 5, "queues = \"voqnet\"", PHASE_MS);
    assert_near("victim with VOQnet", gbps(&report, 0, 3, 4), 13.0, 0.01);
    let rates: Vec<f64> = flows[1..]
        .iter()
        .map(|&(s, d, _)| gbps(&report, s, d, 4))
        .collect();
    let sink: f64 = rates.iter().sum();
    // The switch link's input at S2 (H2 and H3 together), H6 and H7: a third each.
    for (what, ours) in [
        ("H2 + H3", rates[0] + rates[1]),
        ("H6", rates[2]),
        ("H7", rates[3]),
    ] {
        assert!((ours / sink - 1.0 / 3.0).abs() < 0.03, "{what}: {rates:?}");
    }
}

/// Paper III scenario 1 with InfiniBand congestion control (Table I's parameters): the victim
/// H1 -> H4 keeps its 13 Gbit/s throughout, and the four contributors share H5's link equally
/// (the parking lot is gone): each within 15% of a quarter of 13.1 Gbit/s. The victim is
/// measured in the second half of each phase: it dips for about 10 ms when the tree first forms.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "100 ms of simulated time: release builds only"
)]
fn congestion_control_frees_the_victim_and_shares_the_hot_link_equally() {
    let flows = SCENARIO_1;
    let report = testbed(
        &flows,
        5,
        "[congestion]\nmechanism = \"ib_cc\"",
        CC_PHASE_MS,
    );
    for phase in 0..5 {
        assert_near("victim with CC", gbps(&report, 0, 3, phase), 13.0, 0.05);
    }
    for &(src, dst, _) in &flows[1..] {
        assert_near(
            "contributor with CC",
            gbps(&report, src, dst, 4),
            13.1 / 4.0,
            0.15,
        );
    }
    time_series_show_the_throttled_flows_and_the_congested_port(&report.report);
}

/// The time series of scenario 1 with CC: every flow's CCTI in [0, CCTI_Limit], the
/// contributors throttled (a positive CCTI in some window of the last phase); one Port VL
/// congested longest, S2's port to H5 (switch 1, port 1), carrying most marks; each window's
/// congested fraction in [0, 1] and the windows' marks at most the run's.
fn time_series_show_the_throttled_flows_and_the_congested_port(report: &RunReport) {
    assert_eq!(report.flow_gauge.as_deref(), Some("ccti"));
    let windows = report.series.len();
    for flow in &report.flows {
        assert_eq!(flow.gauge.len(), windows);
        assert!(
            flow.gauge
                .iter()
                .flatten()
                .all(|&c| (0.0..=127.0).contains(&c))
        );
    }
    let last_phase = windows - windows / 5..windows;
    for &(src, dst, _) in &SCENARIO_1[1..] {
        let flow = report.flows.iter().find(|f| (f.src, f.dst) == (src, dst));
        let ccti = &flow.unwrap().gauge[last_phase.clone()];
        assert!(ccti.iter().flatten().any(|&c| c > 0.0), "{src} -> {dst}");
    }
    let total = |s: &tailback_core::stats::PortVlSeries| s.congested.iter().sum::<f64>();
    let hot = report
        .port_vls
        .iter()
        .max_by(|a, b| total(a).total_cmp(&total(b)))
        .expect("a congested Port VL");
    assert_eq!((hot.switch, hot.port, hot.vl), (1, 1, 0));
    let marks: Vec<u64> = report
        .port_vls
        .iter()
        .map(|s| s.marks.iter().sum())
        .collect();
    let all = report.summary.mechanism_counts["marks"];
    assert!(marks.iter().sum::<u64>() <= all);
    assert!(
        hot.marks.iter().sum::<u64>() * 10 >= all * 8,
        "{marks:?} of {all}"
    );
    for s in &report.port_vls {
        assert_eq!(s.congested.len(), windows);
        assert!(s.congested.iter().all(|c| (0.0..=1.0).contains(c)));
    }
}

/// Congestion notifications on a lane of their own, served first at every switch output
/// (`cnp_vl = "priority"`, Papers V and VI), work as on the data lane, whether the
/// destination or the switch sends them and whether they say how severe the congestion is:
/// the victim keeps its 13 Gbit/s; with binary feedback the contributors share H5's link
/// equally, with quantized feedback they use at least three quarters of it.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "100 ms of simulated time: release builds only"
)]
fn notifications_on_a_priority_lane_free_the_victim_too() {
    for notification in ["forward", "backward"] {
        for feedback in ["binary", "quantized"] {
            let report = cell("ib_cc", notification, feedback);
            let cell = format!("{notification}, {feedback}");
            assert_near(&cell, gbps(&report, 0, 3, 4), 13.0, 0.05);
            let shares: Vec<f64> = SCENARIO_1[1..]
                .iter()
                .map(|&(src, dst, _)| gbps(&report, src, dst, 4))
                .collect();
            if feedback == "binary" {
                for &share in &shares {
                    assert_near(&cell, share, 13.1 / 4.0, 0.15);
                }
            } else {
                // Fewer, larger cuts share less evenly (ours measured 2.1 to 3.6 Gbit/s
                // forward, 1.7 to 5.0 backward): only the hot link's use is claimed.
                let total: f64 = shares.iter().sum();
                assert!(total >= 0.75 * 13.1, "{cell}: {shares:?}");
            }
        }
    }
}

/// With congestion control, on one lane or with notifications on a priority lane, sent by the
/// destinations or by the switches themselves, the invariant checker (credits and blocks on
/// every link and lane, pools, queues, flits conserved with the switches' own notifications
/// counted) finds nothing while the tree forms and the notifications flow; every notification
/// comes from a mark, and a switch sends one for every mark.
#[test]
fn congestion_control_keeps_the_fabric_invariants() {
    for (lanes, lane) in [(1, "data"), (2, "priority")] {
        for (notification, feedback) in [
            ("forward", "binary"),
            ("backward", "binary"),
            ("forward", "quantized"),
        ] {
            let cc = format!(
                "[congestion]\nmechanism = \"ib_cc\"\ncnp_vl = \"{lane}\"\n\
                 notification = \"{notification}\"\nfeedback = \"{feedback}\""
            );
            let run = checked(&cc, lanes);
            let counts = &run.report.summary.mechanism_counts;
            assert!(counts["becns"] > 0, "{lane}, {notification}: {counts:?}");
            assert!(counts["marks"] >= counts["cnps"] && counts["cnps"] >= counts["becns"]);
            if notification == "backward" {
                assert_eq!(counts["marks"], counts["cnps"], "{lane}: {counts:?}");
            }
        }
    }
}

/// A switch's own notification shortens the loop: until the first notification arrives both
/// runs see the same traffic, and the first BECN reaches a contributor sooner when the switch
/// sends it than when the marked packet must first reach H5 (its 2 KB at the host link's
/// 16 Gbit/s alone take 1 µs) and H5 answer. Windows of 0.192 µs (12 cycles).
#[test]
fn notifications_from_the_switch_reach_the_sources_sooner() {
    let contributors = [(1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 0)];
    let [forward, backward] = ["forward", "backward"].map(|notification| {
        let cc = format!(
            "[congestion]\nmechanism = \"ib_cc\"\ncnp_vl = \"priority\"\n\
             notification = \"{notification}\""
        );
        let text = scenario_text("ib-testbed", "qdr", &contributors, 1, &cc, 0.06)
            .replace("vcs = 1", "vcs = 2")
            .replace("series_window_us = 100", "series_window_us = 0.192");
        let report = run_text(&text, 0.06).report;
        report
            .series
            .iter()
            .position(|row| row.gauges.get("becns").unwrap_or(0.0) > 0.0)
            .unwrap_or_else(|| panic!("{notification}: no BECN in 60 µs"))
    });
    let window_us = 0.192;
    assert!(
        (forward - backward) as f64 * window_us >= 1.0,
        "first BECN: forward in window {forward}, backward in window {backward}"
    );
}

/// Marking only the hops a packet's routing did not choose (ours) changes nothing where routing
/// never chooses: the testbed's routes are tables of one port each, so every mark stays.
#[test]
fn sparing_chosen_hops_changes_nothing_under_deterministic_routing() {
    let [all, unchosen] = ["all", "unchosen"].map(|hops| {
        let cc = format!("[congestion]\nmechanism = \"ib_cc\"\nmark_hops = \"{hops}\"");
        let text = scenario_text("ib-testbed", "qdr", &SCENARIO_1, 5, &cc, 0.2);
        run_text(&text, 0.2).report
    });
    assert!(all.summary.mechanism_counts["marks"] > 0);
    assert_eq!(
        all.summary.mechanism_counts,
        unchosen.summary.mechanism_counts
    );
    assert_eq!(all.flows, unchosen.flows);
}

/// QCN (IEEE 802.1Qau) on the testbed's scenario 1, with the switch or the destination sending
/// the notifications and with quantized or binary feedback: the victim keeps its 13 Gbit/s in
/// every cell and the contributors keep H5's link at least 90 % busy. (They do not share it
/// equally: the last to start keeps the most, up to 10 of 13.1 Gbit/s when notifications go
/// forward, as QCN's slow recovery is known to allow; not claimed here.)
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "100 ms of simulated time per cell: release builds only"
)]
fn qcn_frees_the_victim_in_every_cell() {
    for notification in ["forward", "backward"] {
        for feedback in ["binary", "quantized"] {
            let report = cell("qcn", notification, feedback);
            let cell = format!("QCN, {notification}, {feedback}");
            assert_near(&cell, gbps(&report, 0, 3, 4), 13.0, 0.05);
            let total: f64 = SCENARIO_1[1..]
                .iter()
                .map(|&(src, dst, _)| gbps(&report, src, dst, 4))
                .sum();
            assert!(total >= 0.9 * 13.1, "{cell}: {total} Gbit/s into H5");
            let counts = &report.report.summary.mechanism_counts;
            assert!(
                counts["samples"] > counts["notifications"],
                "{cell}: {counts:?}"
            );
        }
    }
}

/// QCN keeps the fabric's invariants (credits, blocks, flits with the switches' own
/// notifications counted) on one lane and on a priority lane, notifications sent back by the
/// switches or echoed by the destinations; no source receives more notifications than were
/// sent.
#[test]
fn qcn_keeps_the_fabric_invariants() {
    for (lanes, lane) in [(1, "data"), (2, "priority")] {
        for notification in ["forward", "backward"] {
            let cc = format!(
                "[congestion]\nmechanism = \"qcn\"\ncnp_vl = \"{lane}\"\n\
                 notification = \"{notification}\"\nsample_base_bytes = 15000"
            );
            let run = checked(&cc, lanes);
            let counts = &run.report.summary.mechanism_counts;
            assert!(counts["received"] > 0, "{lane}, {notification}: {counts:?}");
            assert!(counts["notifications"] >= counts["received"]);
        }
    }
}

/// The shorter loop keeps QCN's root lower (Gran's thesis, Sec. 3.7, question 1): with the
/// testbed's four contributors starting together, notifications the switch sends back keep
/// the most blocks ever queued for H5's Port VL at most 85 % of what they reach when the
/// notifications go forward through the congested queue and back from H5 (measured: 70 to 73 %
/// over the three seeds), where the queue fills every pool before the first cut arrives.
#[test]
fn qcn_notifications_from_the_switch_keep_the_root_lower() {
    for seed in 1..=3 {
        let [forward, backward] = ["forward", "backward"].map(|notification| {
            let cc = format!(
                "[congestion]\nmechanism = \"qcn\"\ncnp_vl = \"priority\"\n\
                 notification = \"{notification}\""
            );
            let flows = [(0, 3, 0), (1, 4, 0), (2, 4, 0), (5, 4, 0), (6, 4, 0)];
            let text = format!("seed = {seed}\n")
                + &scenario_text("ib-testbed", "qdr", &flows, 1, &cc, 5.0)
                    .replace("vcs = 1", "vcs = 2")
                    .replace(
                        "series_window_us = 100",
                        "series_window_us = 100\ncongested_port_vls = true\nport_vl_span = \"run\"",
                    );
            let report = run_text(&text, 5.0).report;
            let map = report.port_vl_map.expect("watched");
            map.loads.iter().map(|l| l.peak).fold(0.0, f64::max)
        });
        assert!(
            backward <= 0.85 * forward,
            "seed {seed}: peak {backward} pools backward, {forward} forward"
        );
    }
}
