//! Configuration errors: every problem is reported with its key path, the value given and what
//! is allowed, all problems of a file at once; `key=value` overrides edit the tree before it is
//! read.

use std::collections::BTreeSet;

use tailback_core::config::{Config, ConfigError, ConfigIssue, parse_assignment, set_path};
use tailback_core::spec::Spec;

/// The problems `Spec::from_toml_str` reports for `text` (which must be invalid).
fn issues(text: &str) -> Vec<ConfigIssue> {
    match Spec::from_toml_str(text, "<test>") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(ConfigError::Invalid(issues)) => issues,
        Err(other) => panic!("not a validation error: {other}"),
    }
}

/// The single problem reported for `text`.
fn single_issue(text: &str) -> ConfigIssue {
    let mut all = issues(text);
    assert_eq!(all.len(), 1, "expected one problem, got {all:#?}");
    all.remove(0)
}

fn assert_issue(issue: &ConfigIssue, path: &str, value: Option<&str>, message_parts: &[&str]) {
    assert_eq!(issue.path, path, "{issue:?}");
    assert_eq!(issue.value.as_deref(), value, "{issue:?}");
    for part in message_parts {
        assert!(
            issue.message.contains(part),
            "{issue:?} should mention {part:?}"
        );
    }
}

fn paths(issues: &[ConfigIssue]) -> BTreeSet<&str> {
    issues.iter().map(|i| i.path.as_str()).collect()
}

#[test]
fn unknown_key_is_reported_with_its_path_and_the_allowed_keys() {
    let issue = single_issue("[router]\nvcz = 3\n");
    let router_keys = [
        "vcs",
        "vc_buffer_flits",
        "switching",
        "allocator",
        "islip_iterations",
        "routing_delay",
        "vc_alloc_delay",
        "switch_alloc_delay",
        "crossbar_delay",
        "credit_latency",
    ];
    let mut parts = vec!["unknown key", "allowed here"];
    parts.extend(router_keys);
    assert_issue(&issue, "router.vcz", Some("3"), &parts);
    // Unknown sections and top-level keys too.
    let issue = single_issue("[routr]\nvcs = 3\n");
    assert_issue(
        &issue,
        "routr",
        Some("{...}"),
        &["unknown key", "topology", "router", "sim"],
    );
    assert_issue(
        &single_issue("sed = 3\n"),
        "sed",
        Some("3"),
        &["unknown key", "seed"],
    );
}

#[test]
fn wrong_types_are_reported_with_expected_and_found_types() {
    let issue = single_issue("[topology]\nk = \"eight\"\n");
    assert_issue(
        &issue,
        "topology.k",
        Some("\"eight\""),
        &["expected an integer", "found a string"],
    );
    let issue = single_issue("[sim]\ncheck_invariants = 1\n");
    assert_issue(
        &issue,
        "sim.check_invariants",
        Some("1"),
        &["true or false", "found an integer"],
    );
    let issue = single_issue("[traffic]\nrate = \"high\"\n");
    assert_issue(
        &issue,
        "traffic.rate",
        Some("\"high\""),
        &["a number", "found a string"],
    );
    let issue = single_issue("router = 4\n");
    assert_issue(
        &issue,
        "router",
        Some("4"),
        &["expected a table", "found an integer"],
    );
}

#[test]
fn out_of_range_values_are_reported_with_the_allowed_range() {
    let issue = single_issue("[router]\nvcs = 0\n");
    assert_issue(&issue, "router.vcs", Some("0"), &["from 1 to 32"]);
    // Rates go up to one packet per node per cycle (packet_flits flits/node/cycle).
    let issue = single_issue("[traffic]\nrate = 9.5\n");
    assert_issue(
        &issue,
        "traffic.rate",
        Some("9.5"),
        &["from 0 to 8", "8-flit packet"],
    );
    let issue = single_issue("[nic]\nejection_rate = 0.0\n");
    assert_issue(
        &issue,
        "nic.ejection_rate",
        Some("0.0"),
        &["greater than 0"],
    );
    let issue = single_issue("[topology]\ndims = [8, 1]\n");
    assert_issue(&issue, "topology.dims[1]", Some("1"), &["from 2 to 4096"]);
    let issue = single_issue("[traffic]\npattern = \"zigzag\"\n");
    assert_issue(
        &issue,
        "traffic.pattern",
        Some("\"zigzag\""),
        &["unknown value", "\"tornado\""],
    );
}

#[test]
fn dateline_scheme_needing_more_vcs_than_configured_is_rejected() {
    let torus = "[topology]\nkind = \"torus\"\nk = 8\nn = 2\n";
    let issue = single_issue(&format!(
        "{torus}[router]\nvcs = 2\n[routing]\ndatelines = [0, 4]\n"
    ));
    assert_issue(
        &issue,
        "router.vcs",
        Some("2"),
        &["at least 3 VCs", "dateline"],
    );
    // Three VCs are enough; the default wrap scheme needs two.
    Spec::from_toml_str(
        &format!("{torus}[router]\nvcs = 3\n[routing]\ndatelines = [0, 4]\n"),
        "",
    )
    .unwrap();
    let issue = single_issue(&format!("{torus}[router]\nvcs = 1\n"));
    assert_issue(&issue, "router.vcs", Some("1"), &["at least 2 VCs"]);
    Spec::from_toml_str("[topology]\nkind = \"mesh\"\n[router]\nvcs = 1\n", "").unwrap();
}

#[test]
fn virtual_cut_through_buffer_smaller_than_a_packet_is_rejected() {
    let text = "[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 4\n\
                [traffic]\npacket_flits = 8\n";
    let issue = single_issue(text);
    assert_issue(
        &issue,
        "router.vc_buffer_flits",
        Some("4"),
        &["whole packet", "packet_flits = 8"],
    );
    // A buffer of exactly one packet is enough; wormhole takes any packet length.
    Spec::from_toml_str(&text.replace("= 4", "= 8"), "").unwrap();
    Spec::from_toml_str(&text.replace("virtual_cut_through", "wormhole"), "").unwrap();
}

#[test]
fn patterns_that_do_not_fit_the_network_are_rejected() {
    for pattern in [
        "bit_complement",
        "bit_reverse",
        "bit_rotation",
        "perfect_shuffle",
        "butterfly",
    ] {
        let text = format!("[topology]\ndims = [6, 6]\n[traffic]\npattern = \"{pattern}\"\n");
        let quoted = format!("\"{pattern}\"");
        let issue = single_issue(&text);
        assert_issue(
            &issue,
            "traffic.pattern",
            Some(&quoted),
            &["power-of-two", "36"],
        );
        Spec::from_toml_str(&text.replace("[6, 6]", "[8, 4]"), "").unwrap();
    }
    let issue = single_issue("[topology]\ndims = [8, 4]\n[traffic]\npattern = \"transpose\"\n");
    assert_issue(
        &issue,
        "traffic.pattern",
        Some("\"transpose\""),
        &["equal radices"],
    );
    let issue = single_issue("[topology]\ndims = [3, 3]\n[traffic]\npattern = \"random_pair\"\n");
    assert_issue(
        &issue,
        "traffic.pattern",
        Some("\"random_pair\""),
        &["even node count"],
    );
    let issue = single_issue("[traffic]\npattern = \"hotspot\"\n");
    assert_issue(
        &issue,
        "traffic.hotspot_nodes",
        None,
        &["at least one hot node"],
    );
    let issue = single_issue("[traffic]\npattern = \"hotspot\"\nhotspot_nodes = [3, 64]\n");
    assert_issue(&issue, "traffic.hotspot_nodes[1]", Some("64"), &["0 to 63"]);
}

#[test]
fn occupancy_snapshots_after_the_run_are_rejected() {
    let text = "[sim]\nwarmup_cycles = 100\nmeasure_cycles = 200\ndrain_cycles_max = 50\n\
                [record]\noccupancy_at = [0, 349, 350]\n";
    let issue = single_issue(text);
    assert_issue(
        &issue,
        "record.occupancy_at[2]",
        Some("350"),
        &["ends by cycle 349"],
    );
}

#[test]
fn datelines_are_rejected_on_a_mesh_and_outside_the_ring() {
    let issue = single_issue("[topology]\nkind = \"mesh\"\n[routing]\ndatelines = [0, 4]\n");
    assert_issue(
        &issue,
        "routing.datelines",
        Some("[0, 4]"),
        &["only apply", "torus"],
    );
    let issue = single_issue("[routing]\ndatelines = [0, 8]\n");
    assert_issue(
        &issue,
        "routing.datelines",
        Some("[0, 8]"),
        &["outside dimension 0"],
    );
    let issue = single_issue("[routing]\ndatelines = [[0], [1], [2]]\n");
    assert_issue(
        &issue,
        "routing.datelines",
        Some("[[0], [1], [2]]"),
        &["3 dimensions", "has 2"],
    );
    // Negative coordinates are refused, not read as "no datelines" (the default scheme).
    for bad in ["[-1]", "[[0], [-1]]"] {
        let issue = single_issue(&format!("[routing]\ndatelines = {bad}\n"));
        assert_issue(&issue, "routing.datelines", Some(bad), &["integers from 0"]);
    }
}

#[test]
fn self_packets_is_refused_where_the_process_names_its_destinations() {
    let issue = single_issue(
        "[traffic]\nprocess = \"flows\"\nself_packets = \"skip\"\n\
         [[traffic.flows]]\nsrc = 0\ndst = 1\n",
    );
    assert_issue(
        &issue,
        "traffic.self_packets",
        Some("\"skip\""),
        &["flows", "names its destinations"],
    );
}

#[test]
fn keys_that_only_apply_to_other_settings_are_rejected() {
    let issue = single_issue("[router]\nislip_iterations = 2\n");
    assert_issue(&issue, "router.islip_iterations", Some("2"), &["islip"]);
    let issue = single_issue("[traffic]\njitter = 0.5\n");
    assert_issue(&issue, "traffic.jitter", Some("0.5"), &["periodic"]);
    let issue = single_issue("[topology]\nk = 4\ndims = [4, 4]\n");
    assert_issue(&issue, "topology.dims", Some("[4, 4]"), &["not both"]);
}

#[test]
fn indirect_topologies_refuse_what_does_not_fit_them() {
    let issue = single_issue("[topology]\nkind = \"folded_clos\"\nradix = 9\n");
    assert_issue(&issue, "topology.radix", Some("9"), &["even"]);
    let issue = single_issue("[topology]\nkind = \"kary_ntree\"\ndims = [4, 4]\n");
    assert_issue(
        &issue,
        "topology.dims",
        Some("[4, 4]"),
        &["only applies to", "\"torus\" or \"mesh\"", "kary_ntree"],
    );
    let issue = single_issue("[topology]\nradix = 8\n");
    assert_issue(
        &issue,
        "topology.radix",
        Some("8"),
        &["folded_clos", "torus"],
    );
    let issue = single_issue("[topology]\nkind = \"cm5_fattree\"\nnodes = 48\n");
    assert_issue(&issue, "topology.nodes", Some("48"), &["power of two"]);
    let issue = single_issue("[topology]\nkind = \"kary_ntree\"\nk = 33\n");
    assert_issue(&issue, "topology.k", Some("33"), &["32"]);
    let issue = single_issue("[topology]\nkind = \"butterfly\"\ndilation = 2\n");
    assert_issue(&issue, "topology.dilation", Some("2"), &["multibutterfly"]);
    let issue = single_issue("[topology]\nkind = \"multibutterfly\"\nk = 16\ndilation = 8\n");
    assert_issue(&issue, "topology.dilation", Some("8"), &["128 ports", "64"]);
    let issue = single_issue("[topology]\nkind = \"butterfly\"\nk = 8\nn = 9\n");
    assert_issue(&issue, "topology.k", Some("8"), &["134217728 nodes"]);
    let issue =
        single_issue("[topology]\nkind = \"butterfly\"\n[routing]\nalgorithm = \"d_mod_k\"\n");
    assert_issue(
        &issue,
        "routing.algorithm",
        Some("\"d_mod_k\""),
        &["destination_tag"],
    );
    // Routing and mechanisms that need a cube.
    let issue = single_issue("[topology]\nkind = \"kary_ntree\"\n[routing]\nalgorithm = \"dor\"\n");
    assert_issue(
        &issue,
        "routing.algorithm",
        Some("\"dor\""),
        &["d_mod_k", "adaptive_up"],
    );
    let issue = single_issue("[routing]\nalgorithm = \"adaptive_up\"\n");
    assert_issue(
        &issue,
        "routing.algorithm",
        Some("\"adaptive_up\""),
        &["\"dor\""],
    );
    let issue = single_issue(
        "[topology]\nkind = \"folded_clos\"\nradix = 8\n[congestion]\nmechanism = \"entropy\"\n",
    );
    assert_issue(
        &issue,
        "congestion.mechanism",
        Some("\"entropy\""),
        &["torus", "folded_clos"],
    );
    let issue = single_issue(
        "[topology]\nkind = \"folded_clos\"\nradix = 8\n[traffic]\npattern = \"transpose\"\n",
    );
    assert_issue(
        &issue,
        "traffic.pattern",
        Some("\"transpose\""),
        &["even number of dimensions"],
    );
}

#[test]
fn processor_settings_are_checked() {
    let issue = single_issue("[processor]\nnonresponsive_rate = 1.5\n");
    assert_issue(
        &issue,
        "processor.nonresponsive_rate",
        Some("1.5"),
        &["below 1"],
    );
    let issue = single_issue("[processor]\nsend_overhead = 0\n");
    assert_issue(&issue, "processor.send_overhead", Some("0"), &["from 1"]);
    let issue = single_issue("[processor]\nrecieve_overhead = 5\n");
    assert_issue(
        &issue,
        "processor.recieve_overhead",
        Some("5"),
        &["receive_overhead"],
    );
}

#[test]
fn closed_loop_workloads_and_nifdy_name_what_they_need() {
    let two_networks = "[router]\nvcs = 4\nlogical_networks = 2\n";
    let issue = single_issue("[traffic]\nprocess = \"bsp\"\n");
    assert_issue(&issue, "traffic.process", Some("\"bsp\""), &["[processor]"]);
    let issue = single_issue("[processor]\n[traffic]\nprocess = \"cshift\"\nrate = 0.3\n");
    assert_issue(
        &issue,
        "traffic.rate",
        Some("0.3"),
        &["does not apply", "cshift"],
    );
    let issue = single_issue("[processor]\n[traffic]\nprocess = \"cshift\"\nload = \"light\"\n");
    assert_issue(
        &issue,
        "traffic.load",
        Some("\"light\""),
        &["only applies", "bsp"],
    );
    let issue = single_issue("[traffic]\nbarriers = false\n");
    assert_issue(
        &issue,
        "traffic.barriers",
        Some("false"),
        &["\"bsp\" or \"cshift\""],
    );
    let issue = single_issue("[processor]\n[traffic]\nprocess = \"bsp\"\nphase_packets = [9, 3]\n");
    assert_issue(
        &issue,
        "traffic.phase_packets",
        Some("[9, 3]"),
        &["low <= high"],
    );
    let issue = single_issue(&format!(
        "{two_networks}[congestion]\nmechanism = \"nifdy\"\n"
    ));
    assert_issue(
        &issue,
        "congestion.mechanism",
        Some("\"nifdy\""),
        &["[processor]"],
    );
    let issue = single_issue("[processor]\n[congestion]\nmechanism = \"nifdy\"\n");
    assert_issue(
        &issue,
        "congestion.mechanism",
        Some("\"nifdy\""),
        &["logical_networks = 2"],
    );
    let issue = single_issue(&format!(
        "{two_networks}[processor]\n[congestion]\nmechanism = \"nifdy_buffers_only\"\no = 4\n"
    ));
    assert_issue(
        &issue,
        "congestion.o",
        Some("4"),
        &["outstanding packet table"],
    );
    let issue = single_issue(&format!(
        "{two_networks}[processor]\n[congestion]\nmechanism = \"nifdy\"\nd = 2\nw = 0\n"
    ));
    assert_issue(&issue, "congestion.w", Some("0"), &["at least 1"]);
    let issue = single_issue("[congestion]\nw = 4\n");
    assert_issue(&issue, "congestion.w", Some("4"), &["\"nifdy\""]);
    let issue = single_issue("[record]\npending_per_receiver = true\n");
    assert_issue(
        &issue,
        "record.pending_per_receiver",
        Some("true"),
        &["series_window"],
    );
    let issue = single_issue("[record]\nport_vl_span = \"run\"\n");
    assert_issue(
        &issue,
        "record.port_vl_span",
        Some("\"run\""),
        &["congested_port_vls"],
    );
    let issue = single_issue("[record]\nflow_totals_only = true\n");
    assert_issue(
        &issue,
        "record.flow_totals_only",
        Some("true"),
        &["record.flows"],
    );
    let all = issues("[record]\ncongested_port_vls = true\nport_vl_span = \"all\"\n");
    let issue = all
        .iter()
        .find(|i| i.path == "record.port_vl_span")
        .expect("the span is checked");
    assert_issue(
        issue,
        "record.port_vl_span",
        Some("\"all\""),
        &["\"second_half\"", "\"run\""],
    );
}

#[test]
fn all_problems_of_a_file_are_reported_at_once() {
    let text = "bogus = true\n\
                [topology]\nk = \"eight\"\nlink_latency = 0\n\
                [router]\nvcz = 3\nswitching = \"circuit\"\n\
                [nic]\nejection_rate = 2\n\
                [traffic]\nrate = -1.5\npacket_flits = 0\n\
                [sim]\nwarmup_cycles = -1\n";
    let found = issues(text);
    let expected = BTreeSet::from([
        "bogus",
        "topology.k",
        "topology.link_latency",
        "router.vcz",
        "router.switching",
        "nic.ejection_rate",
        "traffic.rate",
        "traffic.packet_flits",
        "sim.warmup_cycles",
    ]);
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    assert_eq!(paths(&found), expected);
    let message = ConfigError::Invalid(found).to_string();
    assert!(
        message.starts_with("invalid configuration (9 problems):"),
        "{message}"
    );
}

#[test]
fn contradictions_are_reported_together_with_other_problems() {
    // Three values that contradict each other ...
    let contradictions = "[topology]\ndims = [6, 6]\n\
                          [router]\nvcs = 2\nswitching = \"virtual_cut_through\"\n\
                          vc_buffer_flits = 4\n\
                          [routing]\ndatelines = [0, 3]\n\
                          [traffic]\npattern = \"bit_reverse\"\npacket_flits = 8\n";
    let found = issues(contradictions);
    assert_eq!(
        paths(&found),
        BTreeSet::from(["router.vcs", "router.vc_buffer_flits", "traffic.pattern"]),
        "{found:#?}"
    );
    // ... plus problems with unrelated keys: all five at once (the example of docs/config.md).
    let found = issues(&format!(
        "{contradictions}[sim]\nmeasure_cycles = 0\nfoo = 1\n"
    ));
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(paths(&found).is_superset(&BTreeSet::from(["router.vcs", "sim.measure_cycles"])));
    let docs_example = "[router]\nvcz = 3\nvcs = 2\n[traffic]\nrate = 9.5\n\
                        [routing]\ndatelines = [0, 4]\n";
    assert_eq!(
        paths(&issues(docs_example)),
        BTreeSet::from(["router.vcz", "traffic.rate", "router.vcs"])
    );
}

#[test]
fn contradictions_are_not_checked_against_rejected_values() {
    // A rejected value is replaced by its default; cross-checks involving it would be about a
    // value the user never wrote, so they are skipped.
    let found = issues(
        "[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 4\n\
         [traffic]\npacket_flits = 0\n",
    );
    assert_eq!(
        paths(&found),
        BTreeSet::from(["traffic.packet_flits"]),
        "{found:#?}"
    );
    let found = issues("[topology]\nk = 1\n[traffic]\npattern = \"bit_reverse\"\n");
    assert_eq!(paths(&found), BTreeSet::from(["topology.k"]), "{found:#?}");
}

#[test]
fn set_style_overrides_edit_the_tree_before_it_is_read() {
    let mut table =
        tailback_core::config::parse_table("[router]\nvcs = 4\n[traffic]\nrate = 0.1\n", "<base>")
            .unwrap();
    for assignment in [
        "router.vcs=3",
        " traffic.pattern = transpose ",
        "routing.datelines=[0, 4]",
        "traffic.rate=0.35",
        "sim.check_invariants=true",
        "seed=42",
    ] {
        let (path, value) = parse_assignment(assignment).unwrap();
        set_path(&mut table, &path, value).unwrap();
    }
    let cfg = Spec::from_table(&table).unwrap();
    assert_eq!(cfg.router.vcs, 3);
    assert_eq!(cfg.traffic.pattern.to_string(), "transpose");
    assert_eq!(cfg.routing.datelines, Some(vec![vec![0, 4], vec![0, 4]]));
    assert_eq!(cfg.traffic.rate, 0.35);
    assert!(cfg.sim.check_invariants);
    assert_eq!(cfg.seed, 42);

    // An override can introduce a problem; it is reported like one in the file.
    let (path, value) = parse_assignment("router.vcs=2").unwrap();
    set_path(&mut table, &path, value).unwrap();
    let err = Spec::from_table(&table).unwrap_err();
    assert_eq!(paths(err.issues()), BTreeSet::from(["router.vcs"]));
    let (path, value) = parse_assignment("router.vcz=2").unwrap();
    set_path(&mut table, &path, value).unwrap();
    assert_eq!(Spec::from_table(&table).unwrap_err().issues().len(), 2);

    // Malformed assignments and paths through a scalar are refused.
    for bad in ["router.vcs", "=3", "router..vcs=3"] {
        assert!(parse_assignment(bad).is_err(), "{bad}");
    }
    let err = set_path(&mut table, "router.vcs.low", toml::Value::Integer(1)).unwrap_err();
    assert_eq!(err.issues()[0].path, "router.vcs");
}

#[test]
fn syntax_errors_name_their_source() {
    let err = Spec::from_toml_str("[router\nvcs = 3", "my.toml").unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("my.toml: syntax error"),
        "{err}"
    );
    assert!(err.issues().is_empty());
}

#[test]
fn configs_modified_in_code_are_checked_again_by_spec_new() {
    let mut cfg = Config::default();
    assert_eq!(Spec::new(cfg.clone()).unwrap(), Spec::default());
    assert_eq!(
        cfg,
        Spec::from_toml_str("", "<empty>").unwrap().into_config()
    );
    cfg.router.vcs = 0;
    cfg.traffic.rate = 9.0;
    let err = Spec::new(cfg).unwrap_err();
    assert_eq!(
        paths(err.issues()),
        BTreeSet::from(["router.vcs", "traffic.rate"])
    );
}

#[test]
fn a_topology_file_is_parsed_once_even_when_the_config_is_edited() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pair.topo");
    std::fs::write(&path, "switch s ports 2\nnode a s.0\nnode b s.1\n").unwrap();
    let text = format!(
        "[topology]\nkind = \"file\"\nfile = {:?}\n[traffic]\nrate = 0.1",
        path.display().to_string()
    );
    let spec = Spec::from_toml_str(&text, "<test>").unwrap();
    std::fs::remove_file(&path).unwrap();
    let mut edited = spec.clone().into_config();
    edited.traffic.rate = 0.2;
    let again = Spec::new(edited).expect("the parsed file is kept, not read again");
    assert_eq!(again.topology, spec.topology);
    let mut moved = spec.into_config();
    moved.topology.file = Some(dir.path().join("gone.topo").display().to_string());
    let err = Spec::new(moved).unwrap_err();
    assert_eq!(paths(err.issues()), BTreeSet::from(["topology.file"]));
}

#[test]
fn the_buffered_fabric_refuses_what_it_cannot_model() {
    // Its keys need it.
    let issue = single_issue("[fabric]\nqueues = \"fifo\"\n");
    assert_issue(
        &issue,
        "fabric.queues",
        Some("\"fifo\""),
        &["only applies when fabric.kind = \"buffered\""],
    );
    let issue = single_issue("[fabric]\nkind = \"bufered\"\n");
    assert_issue(
        &issue,
        "fabric.kind",
        Some("\"bufered\""),
        &["\"vc\"", "\"buffered\""],
    );
    let tree = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n";
    let issue = single_issue(&format!(
        "{tree}[router]\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nread_ports = 0\n"
    ));
    assert_issue(
        &issue,
        "fabric.read_ports",
        Some("0"),
        &["1 to 64", "\"unlimited\""],
    );
    let issue = single_issue(&format!(
        "{tree}[router]\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nislip_iterations = 2\n"
    ));
    assert_issue(
        &issue,
        "fabric.islip_iterations",
        Some("2"),
        &["read_ports = 1"],
    );
    let issue = single_issue(&format!(
        "{tree}[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 64\n\
         [fabric]\nkind = \"buffered\"\nqueues = \"voqnet\"\nvoqnet_queue_blocks = 16\n\
         [traffic]\npacket_flits = 32\n"
    ));
    assert_issue(
        &issue,
        "fabric.voqnet_queue_blocks",
        Some("16"),
        &["whole packet", "packet_flits = 32"],
    );
    // Whole packets, one logical network, no mechanism but InfiniBand's, no choice of lane
    // per hop (Duato): all at once.
    let all = issues(
        "[topology]\nkind = \"torus\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"duato\"\n\
         [router]\nlogical_networks = 2\nvcs = 6\n\
         [fabric]\nkind = \"buffered\"\n[congestion]\nmechanism = \"alo\"\n[processor]\n",
    );
    assert_eq!(
        paths(&all),
        BTreeSet::from([
            "router.switching",
            "router.logical_networks",
            "congestion.mechanism",
            "routing.algorithm",
            "processor"
        ]),
        "{all:#?}"
    );
    let duato = all.iter().find(|i| i.path == "routing.algorithm").unwrap();
    assert!(duato.message.contains("SL-to-VL table"), "{duato:?}");
    // A torus's dateline classes run through SL-to-VL tables, but not beside a priority lane
    // for notifications, nor under hot-packet queues.
    let torus = "[topology]\nkind = \"torus\"\nk = 4\nn = 2\n\
                 [router]\nswitching = \"virtual_cut_through\"\nvcs = 3\n\
                 [fabric]\nkind = \"buffered\"\n";
    Spec::from_toml_str(torus, "<test>").unwrap();
    let priority = single_issue(&format!(
        "{torus}link = \"qdr\"\n[nic]\nqueues = \"per_destination\"\n\
         [congestion]\nmechanism = \"ib_cc\"\ncnp_vl = \"priority\"\n"
    ));
    assert_issue(
        &priority,
        "congestion.cnp_vl",
        Some("\"priority\""),
        &["lane 2", "outside the lanes", "dateline", "\"data\""],
    );
    // Congested-flow queues follow trees by output and lane; hot-packet queues name a root by
    // a queue that mixes lanes.
    let isolated = |queues: &str, thresholds: &str| {
        format!(
            "{torus}queues = \"{queues}\"\n[fabric.isolation]\n{thresholds}\n\
             [nic]\nqueues = \"per_destination\"\n"
        )
    };
    let cfqs = isolated(
        "nfq_cfq",
        "detect_blocks = 4\nstop_blocks = 6\ngo_blocks = 2",
    );
    Spec::from_toml_str(&cfqs, "<test>").unwrap();
    let hpqs = issues(&isolated("voq_hpq", "high_blocks = 5\nlow_blocks = 2"));
    assert!(
        hpqs.iter()
            .any(|i| i.path == "routing.algorithm" && i.message.contains("lanes hop by hop")),
        "{hpqs:#?}"
    );
    // A Simulation built in code is a virtual-channel router network.
    let spec = Spec::from_toml_str(
        &format!(
            "{tree}[router]\nswitching = \"virtual_cut_through\"\n[fabric]\nkind = \"buffered\"\n"
        ),
        "<test>",
    )
    .unwrap();
    let refused = tailback_core::sim::Simulation::new(&spec).err().unwrap();
    assert!(refused.to_string().contains("fabric.kind"), "{refused}");
}

#[test]
fn congested_flow_isolation_names_what_it_needs() {
    let tree = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n\
                [router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 100\n";
    // Adapters must hold back one destination without blocking the others.
    let issue = single_issue(&format!(
        "{tree}[fabric]\nkind = \"buffered\"\nqueues = \"nfq_cfq\"\n\
         [fabric.isolation]\ndetect_blocks = 40\nstop_blocks = 60\ngo_blocks = 20\n"
    ));
    assert_issue(
        &issue,
        "nic.queues",
        Some("\"fifo\""),
        &["nfq_cfq", "per_destination"],
    );
    let nic = "[nic]\nqueues = \"per_destination\"\n";
    // Thresholds inside the pool, Go below Stop, and only with nfq_cfq.
    let all = issues(&format!(
        "{tree}{nic}[fabric]\nkind = \"buffered\"\nqueues = \"nfq_cfq\"\n\
         [fabric.isolation]\ndetect_blocks = 100\nstop_blocks = 200\ngo_blocks = 200\n\
         cfqs = 9\npropagate = \"later\"\ndetection = \"tail\"\n"
    ));
    assert_eq!(
        paths(&all),
        BTreeSet::from([
            "fabric.isolation.go_blocks",
            "fabric.isolation.cfqs",
            "fabric.isolation.propagate",
            "fabric.isolation.detection",
            "fabric.isolation.detect_blocks",
            "fabric.isolation.stop_blocks",
        ]),
        "{all:#?}"
    );
    let stop = all
        .iter()
        .find(|i| i.path.ends_with("stop_blocks"))
        .unwrap();
    assert!(stop.message.contains("100 blocks"), "{stop:?}");
    let go = all.iter().find(|i| i.path.ends_with("go_blocks")).unwrap();
    assert!(go.message.contains("below stop_blocks (200)"), "{go:?}");
    let issue = single_issue(&format!(
        "{tree}{nic}[fabric]\nkind = \"buffered\"\n[fabric.isolation]\ncfqs = 2\n"
    ));
    assert_issue(&issue, "fabric.isolation", Some("{...}"), &["nfq_cfq"]);
    // The drain's interval belongs to root_weighted, and is at least a cycle.
    let small = "detect_blocks = 40\nstop_blocks = 60\ngo_blocks = 20\n";
    let isolating = format!("{tree}{nic}[fabric]\nkind = \"buffered\"\nqueues = \"nfq_cfq\"\n");
    let issue = single_issue(&format!(
        "{isolating}[fabric.isolation]\n{small}rate_interval = 100\n"
    ));
    assert_issue(
        &issue,
        "fabric.isolation.rate_interval",
        Some("100"),
        &["root_weighted"],
    );
    let issue = single_issue(&format!(
        "{isolating}[fabric.isolation]\n{small}arbitration = \"root_weighted\"\nrate_interval = 0\n"
    ));
    assert_issue(&issue, "fabric.isolation.rate_interval", Some("0"), &["1"]);
}

#[test]
fn next_group_flows_need_a_dragonfly() {
    let flows = |topology: &str| {
        format!(
            "{topology}[traffic]\nprocess = \"flows\"\nflows = [{{ src = 0, dst = \"next_group\" }}]\n"
        )
    };
    let dragonfly = "[topology]\nkind = \"dragonfly\"\np = 1\na = 2\nh = 1\n";
    let spec = Spec::from_toml_str(&flows(dragonfly), "<test>").unwrap();
    // A resolved configuration reads back to itself.
    let table = toml::Table::try_from(&*spec).unwrap();
    assert_eq!(Spec::from_table(&table).unwrap(), spec);
    let issue = single_issue(&flows("[topology]\nkind = \"torus\"\nk = 4\nn = 1\n"));
    assert_issue(
        &issue,
        "traffic.flows[0].dst",
        Some("\"next_group\""),
        &["dragonfly", "torus"],
    );
}

#[test]
fn a_flow_goes_to_a_node_or_to_uniform_destinations() {
    let flows = |dst: &str| {
        format!(
            "[topology]\nkind = \"torus\"\nk = 4\nn = 1\n[traffic]\nprocess = \"flows\"\n\
             flows = [{{ src = 0, dst = {dst} }}]\n"
        )
    };
    assert!(Spec::from_toml_str(&flows("\"uniform\""), "<test>").is_ok());
    for bad in ["\"everyone\"", "1.5"] {
        let issue = single_issue(&flows(bad));
        assert_issue(
            &issue,
            "traffic.flows[0].dst",
            Some(bad),
            &["node index", "\"uniform\""],
        );
    }
}

#[test]
fn times_need_the_link_rate_and_one_unit_per_key() {
    let issue = single_issue("[sim]\nmeasure_us = 100\n");
    assert_issue(&issue, "sim.measure_us", Some("100"), &["fabric.link"]);
    let buffered = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n\
                    [router]\nswitching = \"virtual_cut_through\"\n\
                    [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\n";
    let issue = single_issue(&format!(
        "{buffered}[sim]\nmeasure_us = 100\nmeasure_cycles = 5\n"
    ));
    assert_issue(
        &issue,
        "sim.measure_us",
        Some("100"),
        &["sim.measure_cycles or sim.measure_us, not both"],
    );
    let issue = single_issue(&buffered.replace("\"ddr\"", "\"xdr\""));
    assert_issue(
        &issue,
        "fabric.link",
        Some("\"xdr\""),
        &["\"sdr\"", "\"eth400\" (400 Gbit/s)", "Gbit/s"],
    );
    // Ethernet's rates: at 100 Gbit/s a 64-byte block takes 5.12 ns, so 100 µs is 19,531
    // cycles (rounded to the nearest).
    let spec = Spec::from_toml_str(
        &format!(
            "{}[sim]\nmeasure_us = 100\n",
            buffered.replace("\"ddr\"", "\"eth100\"")
        ),
        "<test>",
    )
    .unwrap();
    assert_eq!(spec.sim.measure_cycles, 19_531);
    // 100 µs at DDR (32 ns cycles) is 3125 cycles; 100 ns of switch latency rounds to 3.
    let spec = Spec::from_toml_str(
        &format!("{buffered}switch_latency_ns = 100\n[sim]\nmeasure_us = 100\n"),
        "<test>",
    )
    .unwrap();
    assert_eq!(spec.sim.measure_cycles, 3125);
    let tailback_core::config::FabricConfig::Buffered(b) = &spec.fabric else {
        panic!("not buffered");
    };
    assert_eq!(b.switch_latency, 3);
}

/// Ethernet's framing and cables: packet and message sizes in bytes become blocks with the
/// framing (RoCEv2's 82 bytes unless set), rounded up; `fabric.cable_ns` times every link; each
/// needs `fabric.link` and excludes the keys it replaces; a read config writes back the same.
#[test]
fn sizes_in_bytes_and_cables_in_ns_follow_the_link() {
    let base = "[topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 2\n\
                [router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 64\n\
                [fabric]\nkind = \"buffered\"\nlink = \"eth100\"\n";
    let issue = single_issue(&format!("{base}[traffic]\npacket_bytes = 4096\n"));
    assert_issue(
        &issue,
        "router.vc_buffer_flits",
        Some("64"),
        &["traffic.packet_bytes = 4096: 66 blocks"],
    );
    // 1024 + 82 = 1106 bytes: 18 blocks; with InfiniBand's 26 bytes, 1050: 17 blocks.
    let spec =
        Spec::from_toml_str(&format!("{base}[traffic]\npacket_bytes = 1024\n"), "<t>").unwrap();
    assert_eq!(
        (spec.traffic.packet_flits, spec.traffic.packet_bytes),
        (18, Some(1024))
    );
    let spec = Spec::from_toml_str(
        &format!("{base}frame_overhead_bytes = 26\n[traffic]\npacket_bytes = 1024\n"),
        "<t>",
    )
    .unwrap();
    assert_eq!(spec.traffic.packet_flits, 17);
    // A 2500-byte message: two full packets and 452 bytes + 82 = 534 bytes, 9 blocks.
    let flows = format!(
        "{base}[nic]\nqueues = \"per_destination\"\n[traffic]\npacket_bytes = 1024\n\
         process = \"flows\"\nmessage_bytes = 2500\n\
         [[traffic.flows]]\nsrc = 0\ndst = 1\n"
    );
    let spec = Spec::from_toml_str(&flows, "<t>").unwrap();
    let tailback_core::config::ProcessConfig::Flows(f) = &spec.traffic.process else {
        panic!("flows");
    };
    assert_eq!(f.message_flits, 2 * 18 + 9);
    // 500 ns at 5.12 ns per cycle: 98 cycles on every link.
    let spec = Spec::from_toml_str(&format!("{base}cable_ns = 500\n"), "<t>").unwrap();
    assert_eq!(
        (
            spec.topology.link_latency,
            spec.nic.injection_latency,
            spec.nic.ejection_latency
        ),
        (98, 98, 98)
    );
    for text in [&flows, &format!("{base}cable_ns = 500\n")] {
        let spec = Spec::from_toml_str(text, "<t>").unwrap();
        let written = toml::to_string(spec.config()).unwrap();
        let again = Spec::from_toml_str(&written, "<written>").unwrap();
        assert_eq!(again.config(), spec.config(), "{written}");
    }
    let no_link = base.replace("link = \"eth100\"\n", "");
    let issue = single_issue(&format!("{no_link}[traffic]\npacket_bytes = 1024\n"));
    assert_issue(
        &issue,
        "traffic.packet_bytes",
        Some("1024"),
        &["fabric.link"],
    );
    let issue = single_issue(&format!("{no_link}frame_overhead_bytes = 26\n"));
    assert_issue(
        &issue,
        "fabric.frame_overhead_bytes",
        Some("26"),
        &["fabric.link"],
    );
    let issue = single_issue(&format!("{no_link}cable_ns = 500\n"));
    assert_issue(&issue, "fabric.cable_ns", Some("500"), &["fabric.link"]);
    let issue = single_issue(&format!(
        "{base}[traffic]\npacket_bytes = 1024\npacket_flits = 8\n"
    ));
    assert_issue(&issue, "traffic.packet_bytes", Some("1024"), &["not both"]);
    let issue = single_issue(&format!("{base}[traffic]\npacket_bytes = 262144\n"));
    assert_issue(
        &issue,
        "traffic.packet_bytes",
        Some("262144"),
        &["4098 blocks", "4096"],
    );
    let issue = single_issue(&format!(
        "{base}cable_ns = 500\n[nic]\nejection_latency = 3\n"
    ));
    assert_issue(
        &issue,
        "fabric.cable_ns",
        Some("500"),
        &["nic.ejection_latency"],
    );
    let fly = "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\n\
               [router]\nswitching = \"virtual_cut_through\"\nvcs = 2\n\
               [fabric]\nkind = \"buffered\"\nlink = \"eth100\"\ncable_ns = 500\n";
    let issue = single_issue(fly);
    assert_issue(&issue, "fabric.cable_ns", Some("500"), &["local_latency"]);
}

/// A forest names what it needs: per-destination queues, fewer hot spots than nodes, fractions
/// in range, and its table only with `process = "forest"`.
#[test]
fn forest_settings_are_checked() {
    let base = "[topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 2\n\
                [routing]\nalgorithm = \"d_mod_k\"\n[router]\nvcs = 1\nvc_buffer_flits = 64\n\
                switching = \"virtual_cut_through\"\n[fabric]\nkind = \"buffered\"\n\
                [traffic]\npacket_flits = 32\n";
    let issue = single_issue(&format!("{base}process = \"forest\"\n"));
    assert_issue(&issue, "nic.queues", Some("\"fifo\""), &["per_destination"]);
    let queues = "[nic]\nqueues = \"per_destination\"\n";
    let issue = single_issue(&format!(
        "{base}process = \"forest\"\n[traffic.forest]\nhotspots = 32\n{queues}"
    ));
    assert_issue(
        &issue,
        "traffic.forest.hotspots",
        Some("32"),
        &["fewer than", "32 nodes"],
    );
    let issue = single_issue(&format!(
        "{base}process = \"forest\"\n[traffic.forest]\nb_share = 1.5\n{queues}"
    ));
    assert_issue(
        &issue,
        "traffic.forest.b_share",
        Some("1.5"),
        &["from 0 to 1"],
    );
    let issue = single_issue(&format!(
        "{base}rate = 0.5\n[traffic.forest]\nb_nodes = 0.5\n{queues}"
    ));
    assert_issue(
        &issue,
        "traffic.forest",
        Some("{...}"),
        &["only applies", "forest"],
    );
    let issue = single_issue(&format!(
        "{base}process = \"forest\"\n[traffic.forest]\nposting = \"fifo\"\n{queues}"
    ));
    assert_issue(
        &issue,
        "traffic.forest.posting",
        Some("\"fifo\""),
        &["one_message", "per_class"],
    );
    // Every allowed key is named once, also those read twice.
    let issue = single_issue(&format!(
        "{base}process = \"forest\"\n[traffic.forest]\nhotspot = 2\n{queues}"
    ));
    assert_eq!(issue.message.matches("hotspots,").count(), 1, "{issue:?}");
    assert_eq!(issue.message.matches("posting").count(), 1, "{issue:?}");
}

/// A count past 2^64 is said to be so, not printed as the saturated 18446744073709551615; a
/// huge value is cut in the message, its length given.
#[test]
fn huge_counts_and_values_are_shown_readably() {
    let issue = single_issue("[topology]\nkind = \"kary_ntree\"\nk = 32\nn = 22\n");
    assert!(
        issue.message.contains("more than 2^64") && !issue.message.contains("18446744073709551615"),
        "{issue}"
    );
    let long = "x".repeat(100_000);
    let issue = single_issue(&format!("[traffic]\npattern = \"{long}\"\n"));
    let shown = issue.to_string();
    assert!(
        shown.len() < 1_000 && shown.contains("(100002 characters)"),
        "{}",
        &shown[..shown.len().min(300)]
    );
    let err = parse_assignment(&long).unwrap_err();
    assert!(
        err.len() < 300 && err.contains("(100000 characters)"),
        "{}",
        &err[..err.len().min(300)]
    );
}

/// A hot node listed twice would silently double its share; it is refused.
#[test]
fn a_hot_node_listed_twice_is_refused() {
    let issue = single_issue(
        "[topology]\nk = 4\n[traffic]\npattern = \"hotspot\"\nhotspot_nodes = [3, 5, 3]\n",
    );
    assert_issue(
        &issue,
        "traffic.hotspot_nodes",
        Some("[3, 5, 3]"),
        &["node 3 is listed twice"],
    );
}

/// Keys that give one quantity two ways are refused together, naming both: the upper
/// threshold as blocks or as a weight, the marking as a probability or as a rate.
#[test]
fn keys_giving_one_quantity_twice_are_refused() {
    const IB: &str = "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n\
                      [router]\nvcs = 1\nvc_buffer_flits = 256\nswitching = \"virtual_cut_through\"\n\
                      [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\n\
                      [nic]\nqueues = \"per_destination\"\n\
                      [congestion]\nmechanism = \"ib_cc\"\n";
    Spec::from_toml_str(
        &format!("{IB}threshold_blocks = 64\nmarking_probability = 0.5\n"),
        "<t>",
    )
    .unwrap();
    let issue = single_issue(&format!(
        "{IB}threshold_blocks = 64\nthreshold_weight = 8\n"
    ));
    assert_issue(
        &issue,
        "congestion.threshold_blocks",
        Some("64"),
        &["replaces threshold_weight", "give one of them"],
    );
    let issue = single_issue(&format!(
        "{IB}marking_probability = 0.5\nmarking_rate = 3\n"
    ));
    assert_issue(
        &issue,
        "congestion.marking_probability",
        Some("0.5"),
        &["replaces marking_rate"],
    );
}

/// A switch's own notification needs a route back to the source: refused through a butterfly,
/// whose packets only move from sources to destinations; accepted on a fat tree.
#[test]
fn notifications_from_switches_need_routes_back_to_the_sources() {
    let ib = |topology: &str| {
        format!(
            "[topology]\n{topology}\n\
             [router]\nvcs = 1\nvc_buffer_flits = 256\nswitching = \"virtual_cut_through\"\n\
             [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\n\
             [nic]\nqueues = \"per_destination\"\n\
             [congestion]\nmechanism = \"ib_cc\"\nnotification = \"backward\"\n"
        )
    };
    Spec::from_toml_str(&ib("kind = \"kary_ntree\"\nk = 2\nn = 2"), "<t>").unwrap();
    let issue = single_issue(&ib("kind = \"butterfly\"\nk = 2\nn = 2"));
    assert_issue(
        &issue,
        "congestion.notification",
        Some("\"backward\""),
        &["back to the sources", "butterfly", "\"forward\""],
    );
}

/// The feedback's weight belongs to quantized feedback: given with binary feedback it would be
/// silently unused, so it is refused, naming the key.
#[test]
fn a_feedback_weight_needs_quantized_feedback() {
    let ib = |feedback: &str| {
        format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n\
             [router]\nvcs = 1\nvc_buffer_flits = 256\nswitching = \"virtual_cut_through\"\n\
             [fabric]\nkind = \"buffered\"\nlink = \"ddr\"\n\
             [nic]\nqueues = \"per_destination\"\n\
             [congestion]\nmechanism = \"ib_cc\"\n{feedback}feedback_weight = 4\n"
        )
    };
    Spec::from_toml_str(&ib("feedback = \"quantized\"\n"), "<t>").unwrap();
    let issue = single_issue(&ib(""));
    assert_issue(
        &issue,
        "congestion.feedback_weight",
        Some("4"),
        &["only applies with feedback = \"quantized\""],
    );
}

/// QCN runs on buffered switches with a link rate and queue pairs; it refuses
/// virtual-channel routers, isolating queues (its congestion points do not watch them) and a
/// binary notification's stand-in feedback with quantized feedback, each naming the key.
#[test]
fn qcn_needs_buffered_switches_without_isolation() {
    let qcn = |fabric: &str, extra: &str| {
        format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 2\nn = 2\n\
             [router]\nvcs = 1\nvc_buffer_flits = 256\nswitching = \"virtual_cut_through\"\n\
             [fabric]\n{fabric}\n\
             [nic]\nqueues = \"per_destination\"\n\
             [congestion]\nmechanism = \"qcn\"\n{extra}"
        )
    };
    let buffered = "kind = \"buffered\"\nlink = \"ddr\"";
    Spec::from_toml_str(&qcn(buffered, ""), "<t>").unwrap();
    Spec::from_toml_str(
        &qcn(buffered, "feedback = \"binary\"\nbinary_feedback = 63\n"),
        "<t>",
    )
    .unwrap();
    let all = issues(&qcn("kind = \"vc\"", ""));
    assert!(
        all.iter()
            .any(|i| i.path == "congestion.mechanism" && i.message.contains("\"buffered\"")),
        "{all:#?}"
    );
    let isolated = issues(&qcn(
        &format!(
            "{buffered}\nqueues = \"nfq_cfq\"\n[fabric.isolation]\n\
             detect_blocks = 64\nstop_blocks = 96\ngo_blocks = 32"
        ),
        "",
    ));
    assert!(
        isolated
            .iter()
            .any(|i| i.path == "fabric.queues" && i.message.contains("isolates")),
        "{isolated:#?}"
    );
    let issue = single_issue(&qcn(buffered, "binary_feedback = 16\n"));
    assert_issue(
        &issue,
        "congestion.binary_feedback",
        Some("16"),
        &["only applies with feedback = \"binary\""],
    );
}
