//! Priority flow control on the buffered fabric: lossless under incast with the pools' own
//! check on every cycle, pauses that spread upstream to the adapters, the headroom refused when
//! the pools cannot hold it, and the same offered traffic as under credits.

use tailback_core::config::ConfigIssue;
use tailback_core::spec::Spec;
use tailback_core::stats::RunReport;

/// The incast's contributors, one per edge switch and two on the last.
const CONTRIBUTORS: [usize; 8] = [4, 8, 12, 16, 20, 24, 28, 31];

/// A 32-node two-level folded Clos of 8-port switches on 100 Gbit/s Ethernet with 1024-byte
/// packets (18 blocks), `flow_control` and `extra` fabric keys, and an incast of eight nodes to
/// node 0 beside light uniform traffic.
fn incast(flow_control: &str, fabric: &str, pools: u32, seed: u64) -> String {
    let mut flows = String::new();
    for src in CONTRIBUTORS {
        flows += &format!("[[traffic.flows]]\nsrc = {src}\ndst = 0\nrate = 1.0\n");
    }
    for src in [1, 2, 3] {
        flows += &format!("[[traffic.flows]]\nsrc = {src}\ndst = \"uniform\"\nrate = 0.2\n");
    }
    format!(
        "seed = {seed}\n[topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 2\n\
         [router]\nswitching = \"virtual_cut_through\"\nvcs = 1\nvc_buffer_flits = {pools}\n\
         [fabric]\nkind = \"buffered\"\nlink = \"eth100\"\nflow_control = \"{flow_control}\"\n\
         {fabric}\n\
         [nic]\nqueues = \"per_destination\"\n\
         [traffic]\npacket_bytes = 1024\nprocess = \"flows\"\n\
         {flows}\
         [sim]\nwarmup_cycles = 1000\nmeasure_cycles = 6000\ndrain_cycles_max = 200000\n\
         check_invariants = true\n[record]\nseries_window = 500\n"
    )
}

fn run(text: &str) -> RunReport {
    let spec = Spec::from_toml_str(text, "<test>").unwrap();
    tailback_core::run(&spec).unwrap()
}

fn count(report: &RunReport, name: &str) -> u64 {
    report
        .summary
        .mechanism_counts
        .get(name)
        .copied()
        .unwrap_or(0)
}

/// Under an eight-to-one incast PFC loses nothing (every measured packet delivered, the
/// invariant checker on every cycle: pools within capacity, each sender's pause state what its
/// pool last sent), pauses alternate with resumes, and they reach the switch ports feeding the
/// hot spot's switch and the adapters of the contributors.
#[test]
fn pfc_is_lossless_under_incast_and_pauses_reach_the_adapters() {
    let report = run(&incast("pfc", "cable_ns = 100", 128, 1));
    let s = &report.summary;
    assert!(s.packets_measured > 300, "{} measured", s.packets_measured);
    assert_eq!(s.packets_delivered, s.packets_measured, "a packet was lost");
    let (pauses, resumes) = (count(&report, "pfc_pauses"), count(&report, "pfc_resumes"));
    assert!(pauses > 10, "{pauses} pauses");
    assert!(
        pauses - resumes <= 64 * 2,
        "{pauses} pauses, {resumes} resumes"
    );
    let map = report.pauses.as_ref().expect("a pause map under PFC");
    let paused_ports = map.paused_cycles.iter().filter(|l| l[0] > 0).count();
    assert!(paused_ports >= 2, "{paused_ports} ports paused");
    let paused_adapters: Vec<usize> = map
        .adapters
        .iter()
        .enumerate()
        .filter(|(_, l)| l[0] > 0)
        .map(|(n, _)| n)
        .collect();
    assert!(
        CONTRIBUTORS.iter().all(|c| paused_adapters.contains(c)),
        "paused adapters {paused_adapters:?}"
    );
    assert_eq!(map.windows.len(), report.series.len());
    assert!(
        map.windows
            .iter()
            .flatten()
            .all(|&x| (0.0..=1.0).contains(&x))
    );
}

/// A pool sized exactly XOFF plus the headroom the configuration computes never overflows
/// under incast with long cables (the pools' overflow assertion and the invariant checker run
/// on every cycle), and the incast fills it past XOFF plus half the headroom, so a headroom of
/// half would not do.
#[test]
fn a_pool_of_exactly_xoff_plus_headroom_holds_and_needs_it() {
    // 500 ns cables: 98 cycles, so the headroom is 2 x 98 + 18 = 214 blocks over XOFF 40.
    let fabric = "cable_ns = 500\n[fabric.pfc]\nxoff_blocks = 40\nxon_blocks = 20";
    let probe = Spec::from_toml_str(&incast("pfc", fabric, 1024, 2), "<test>").unwrap();
    let headroom = probe.config().pfc_headroom().unwrap().blocks;
    let report = run(&incast("pfc", fabric, 40 + headroom, 2));
    let s = &report.summary;
    assert_eq!(s.packets_delivered, s.packets_measured);
    let peak = report.pauses.as_ref().unwrap().peak_pool_blocks;
    assert!(
        peak > 40 + headroom / 2 && peak <= 40 + headroom,
        "peak {peak} blocks, XOFF 40, headroom {headroom}"
    );
}

/// PFC changes what the network does, not what the sources offer: the same flits are created
/// under credits and under PFC (Bernoulli sources, half their traffic to one node); and a run
/// is the same twice.
#[test]
fn pfc_sees_the_traffic_credits_see_and_repeats() {
    let text = |flow_control: &str| {
        format!(
            "seed = 3\n[topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 2\n\
             [router]\nswitching = \"virtual_cut_through\"\nvcs = 1\nvc_buffer_flits = 128\n\
             [fabric]\nkind = \"buffered\"\nlink = \"eth100\"\nflow_control = \"{flow_control}\"\n\
             [traffic]\npacket_bytes = 1024\npattern = \"hotspot\"\nhotspot_nodes = [0]\n\
             hotspot_fraction = 0.5\nrate = 0.1\n\
             [sim]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\ndrain_cycles_max = 0\n"
        )
    };
    let pfc = run(&text("pfc"));
    let credits = run(&text("credits"));
    assert_eq!(pfc.summary.offered, credits.summary.offered);
    assert!(credits.pauses.is_none());
    assert!(count(&pfc, "pfc_pauses") > 0);
    let again = run(&text("pfc"));
    assert_eq!(again.summary.latency, pfc.summary.latency);
    assert_eq!(again.pauses, pfc.pauses);
}

fn issues(text: &str) -> Vec<ConfigIssue> {
    match Spec::from_toml_str(text, "<test>") {
        Err(tailback_core::config::ConfigError::Invalid(issues)) => issues,
        other => panic!("expected problems, got {other:?}"),
    }
}

/// Pools that cannot hold XOFF plus the headroom are refused naming the shortfall; so are XON
/// above XOFF, `[fabric.pfc]` under credits and PFC beside congested-flow isolation.
#[test]
fn pfc_settings_are_checked() {
    let found = issues(&incast("pfc", "cable_ns = 500", 128, 1));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "router.vc_buffer_flits");
    // XOFF defaults to at least one block: 1 + 214 - 128 = 87 short.
    assert!(found[0].message.contains("87 blocks short"), "{found:?}");
    let found = issues(&incast(
        "pfc",
        "[fabric.pfc]\nxoff_blocks = 120\nxon_blocks = 10",
        128,
        1,
    ));
    assert_eq!(found[0].path, "fabric.pfc.xoff_blocks");
    assert!(
        found[0]
            .message
            .contains("128 blocks cannot hold XOFF (120 blocks)")
    );
    let found = issues(&incast(
        "pfc",
        "[fabric.pfc]\nxoff_blocks = 50\nxon_blocks = 60",
        128,
        1,
    ));
    assert_eq!(found[0].path, "fabric.pfc.xon_blocks");
    let found = issues(&incast("credits", "[fabric.pfc]\nxoff_blocks = 50", 128, 1));
    assert_eq!(found[0].path, "fabric.pfc");
    let found = issues(&incast("pfc", "queues = \"nfq_cfq\"", 128, 1));
    assert!(
        found.iter().any(|i| i.path == "fabric.flow_control"),
        "{found:?}"
    );
}
