//! Bursty phase workloads (`[[traffic.phases]]`): each phase offers its own rate with its own
//! destination pattern, the schedule repeats (or stops), the offered traffic is a function of
//! the seed and the traffic settings only, and bad schedules are reported key by key.

use std::collections::BTreeSet;

use tailback_core::config::{ConfigError, ConfigIssue};
use tailback_core::spec::Spec;
use tailback_core::topology::CubeShape;
use tailback_core::traffic::{NEVER, Offered, Workload};

/// The self-tuned paper's bursty load in miniature: low uniform phases alternating with high
/// phases (above one flit/node/cycle, so source queues grow) of different permutations.
const BURSTY: &str = "packet_flits = 16\n\
    [[traffic.phases]]\ncycles = 3000\npattern = \"uniform\"\nrate = 0.0107\n\
    [[traffic.phases]]\ncycles = 1000\npattern = \"butterfly\"\nrate = 1.0667\n\
    [[traffic.phases]]\ncycles = 3000\npattern = \"uniform\"\nrate = 0.0107\n\
    [[traffic.phases]]\ncycles = 1000\npattern = \"bit_reverse\"\nrate = 1.0667\n\
    [[traffic.phases]]\ncycles = 3000\npattern = \"uniform\"\nrate = 0.0107\n\
    [[traffic.phases]]\ncycles = 1000\npattern = \"perfect_shuffle\"\nrate = 1.0667\n";
const PASS: u64 = 12_000;

fn config(text: &str) -> Spec {
    Spec::from_toml_str(text, "<test>").unwrap_or_else(|e| panic!("{e}\n--- config ---\n{text}"))
}

/// An 8x8 torus (64 nodes, 6 address bits) with `traffic` as its `[traffic]` section.
fn torus_config(traffic: &str, seed: u64) -> Spec {
    config(&format!(
        "seed = {seed}\n[topology]\nk = 8\n[traffic]\n{traffic}"
    ))
}

fn workload(cfg: &Spec) -> Workload {
    Workload::new(
        &cfg.traffic,
        &CubeShape::new(cfg.topology.dims.clone(), true),
        cfg.seed,
    )
}

/// Every packet created before `horizon`, as (source, packet), source by source.
fn offered(w: &mut Workload, nodes: usize, horizon: u64) -> Vec<(usize, Offered)> {
    let mut out = Vec::new();
    for node in 0..nodes {
        while w.next_time(node) < horizon {
            out.push((node, w.take(node)));
        }
    }
    out
}

/// The bit permutations on 6-bit addresses, written out independently of the engine.
fn butterfly(s: usize) -> usize {
    (s & 0b01_1110) | ((s & 1) << 5) | (s >> 5)
}

fn bit_reverse(s: usize) -> usize {
    (0..6).fold(0, |d, i| d | (((s >> i) & 1) << (5 - i)))
}

fn perfect_shuffle(s: usize) -> usize {
    ((s << 1) & 0b11_1111) | (s >> 5)
}

#[test]
fn each_phase_offers_its_rate() {
    // Bernoulli: the packets of a phase over 64 nodes and 5 passes are binomial; the check
    // allows 4 standard deviations (the seed is fixed, so the test is deterministic).
    let cfg = torus_config(BURSTY, 3);
    let mut w = workload(&cfg);
    let passes = 5;
    let packets = offered(&mut w, 64, passes * PASS);
    let mut per_phase = [0u64; 6];
    for (_, p) in &packets {
        assert_eq!(p.flits, 16);
        per_phase[w.phase_at(p.created).unwrap()] += 1;
    }
    let phases = cfg.traffic.phases.as_ref().unwrap();
    for (i, phase) in phases.iter().enumerate() {
        let p = phase.rate / 16.0;
        let trials = (64 * passes * phase.cycles) as f64;
        let expected = trials * p;
        let sd = (trials * p * (1.0 - p)).sqrt();
        let got = per_phase[i] as f64;
        assert!(
            (got - expected).abs() <= 4.0 * sd,
            "phase {i}: {got} packets, expected {expected:.0} ± {:.0}",
            4.0 * sd
        );
    }
    // The configured mean over one pass is kept as `traffic.rate`.
    let mean = (3.0 * 3000.0 * 0.0107 + 3.0 * 1000.0 * 1.0667) / 12_000.0;
    assert!((cfg.traffic.rate - mean).abs() < 1e-12);
}

#[test]
fn periodic_phases_offer_their_rates_to_within_one_packet_per_source() {
    // Periodic: a phase of L cycles with interval T gives each source ceil(L / T - offset)
    // packets, i.e. floor(L / T) or ceil(L / T).
    let cfg = torus_config(&format!("process = \"periodic\"\n{BURSTY}"), 3);
    let mut w = workload(&cfg);
    let phases = cfg.traffic.phases.clone().unwrap();
    for node in 0..64 {
        let mut counts = [0u64; 12];
        while w.next_time(node) < 2 * PASS {
            let p = w.take(node);
            let pass = (p.created / PASS) as usize;
            counts[6 * pass + w.phase_at(p.created).unwrap()] += 1;
        }
        for (k, &count) in counts.iter().enumerate() {
            let phase = &phases[k % 6];
            let per_interval = phase.cycles as f64 * phase.rate / 16.0;
            assert!(
                count == per_interval.floor() as u64 || count == per_interval.ceil() as u64,
                "node {node}, phase {k}: {count} packets for {per_interval} intervals"
            );
        }
    }
}

#[test]
fn destinations_follow_the_pattern_of_the_phase_they_are_created_in() {
    for process in ["bernoulli", "periodic"] {
        let cfg = torus_config(&format!("process = \"{process}\"\n{BURSTY}"), 9);
        let mut w = workload(&cfg);
        let mut uniform_off_butterfly = 0;
        let mut uniform = 0;
        for (src, p) in offered(&mut w, 64, 2 * PASS) {
            let dst = p.dst as usize;
            match w.phase_at(p.created).unwrap() {
                1 => assert_eq!(dst, butterfly(src), "butterfly phase, {p:?}"),
                3 => assert_eq!(dst, bit_reverse(src), "bit-reverse phase, {p:?}"),
                5 => assert_eq!(dst, perfect_shuffle(src), "shuffle phase, {p:?}"),
                _ => {
                    assert_ne!(dst, src, "uniform excludes the source");
                    uniform += 1;
                    uniform_off_butterfly += usize::from(dst != butterfly(src));
                }
            }
        }
        // Uniform phases are not a permutation: almost every packet misses butterfly(src).
        assert!(uniform > 100, "{uniform}");
        assert!(uniform_off_butterfly * 10 > uniform * 9, "{process}");
    }
}

#[test]
fn the_schedule_repeats_unless_told_to_stop() {
    let cfg = torus_config(BURSTY, 4);
    let mut w = workload(&cfg);
    let packets = offered(&mut w, 64, 3 * PASS);
    // Every pass offers the high phases again, with their patterns.
    for pass in 0..3 {
        let high: Vec<_> = packets
            .iter()
            .filter(|(_, p)| p.created / PASS == pass && w.phase_at(p.created) == Some(1))
            .collect();
        assert!(high.len() > 3000, "pass {pass}: {}", high.len());
        assert!(high.iter().all(|(s, p)| p.dst as usize == butterfly(*s)));
    }
    let cfg = torus_config(&format!("repeat_phases = false\n{BURSTY}"), 4);
    let mut once = workload(&cfg);
    let packets = offered(&mut once, 64, NEVER);
    assert!(packets.iter().all(|(_, p)| p.created < PASS));
    assert!(packets.iter().any(|(_, p)| p.created >= PASS - 1000));
    assert!((0..64).all(|n| once.next_time(n) == NEVER));
    assert_eq!(once.phase_at(PASS), None);
    // The one pass it does offer is the first pass of the repeating schedule.
    let mut repeating = workload(&torus_config(BURSTY, 4));
    assert_eq!(packets, offered(&mut repeating, 64, PASS));
}

#[test]
fn offered_traffic_is_a_function_of_the_seed_and_traffic_settings() {
    let text = format!("process = \"bernoulli\"\n{BURSTY}");
    let a = offered(&mut workload(&torus_config(&text, 21)), 64, 2 * PASS);
    let b = offered(&mut workload(&torus_config(&text, 21)), 64, 2 * PASS);
    assert_eq!(a, b);
    let c = offered(&mut workload(&torus_config(&text, 22)), 64, 2 * PASS);
    assert_ne!(a, c);
    // Random permutations are drawn from the run's pattern stream: repeatable per seed.
    let random = "[[traffic.phases]]\ncycles = 100\npattern = \"random_permutation\"\nrate = 2\n\
                  [[traffic.phases]]\ncycles = 100\npattern = \"random_pair\"\nrate = 2\n";
    let a = offered(&mut workload(&torus_config(random, 5)), 64, 1000);
    assert_eq!(
        a,
        offered(&mut workload(&torus_config(random, 5)), 64, 1000)
    );
}

fn issues(text: &str) -> Vec<ConfigIssue> {
    match Spec::from_toml_str(text, "<test>") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(ConfigError::Invalid(issues)) => issues,
        Err(other) => panic!("not a validation error: {other}"),
    }
}

fn find<'a>(issues: &'a [ConfigIssue], path: &str) -> &'a ConfigIssue {
    issues
        .iter()
        .find(|i| i.path == path)
        .unwrap_or_else(|| panic!("no problem at {path}: {issues:#?}"))
}

#[test]
fn schedule_problems_are_reported_with_their_paths_all_at_once() {
    let text = "[topology]\nk = 8\n\
                [traffic]\npattern = \"uniform\"\nrate = 0.1\npacket_flits = 16\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"uniform\"\nrate = 0.01\ncolour = 3\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"butterfly\"\nrate = 20\n\
                [[traffic.phases]]\ncycles = 0\npattern = \"zigzag\"\nrate = 1\n\
                [[traffic.phases]]\npattern = \"tornado\"\nrate = 1\n";
    let found = issues(text);
    let paths: BTreeSet<&str> = found.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        BTreeSet::from([
            "traffic.pattern",
            "traffic.rate",
            "traffic.phases[0].colour",
            "traffic.phases[1].rate",
            "traffic.phases[2].cycles",
            "traffic.phases[2].pattern",
            "traffic.phases[3].cycles",
        ]),
        "{found:#?}"
    );
    assert_eq!(found.len(), paths.len(), "{found:#?}");
    for path in ["traffic.pattern", "traffic.rate"] {
        let issue = find(&found, path);
        assert!(issue.value.is_some(), "{issue:?}");
        for part in [
            "traffic.pattern",
            "traffic.rate",
            "traffic.phases",
            "not both",
        ] {
            assert!(issue.message.contains(part), "{issue:?}");
        }
    }
    let check = |path: &str, parts: &[&str]| {
        let issue = find(&found, path);
        for part in parts {
            match part.strip_prefix("given: ") {
                Some(value) => assert_eq!(issue.value.as_deref(), Some(value), "{issue:?}"),
                None => assert!(
                    issue.message.contains(part),
                    "{issue:?} should mention {part:?}"
                ),
            }
        }
    };
    check(
        "traffic.phases[0].colour",
        &["unknown key", "cycles, pattern, rate", "given: 3"],
    );
    check(
        "traffic.phases[1].rate",
        &["from 0 to 16", "16-flit packet", "given: 20"],
    );
    check("traffic.phases[2].cycles", &["from 1 to", "given: 0"]);
    check(
        "traffic.phases[2].pattern",
        &["unknown value", "\"butterfly\"", "given: \"zigzag\""],
    );
    check("traffic.phases[3].cycles", &["missing"]);
    // The error text lists every problem with its path.
    let message = ConfigError::Invalid(found.clone()).to_string();
    assert!(
        message.starts_with("invalid configuration (7 problems):"),
        "{message}"
    );
    assert!(message.contains("traffic.phases[1].rate = 20: must be a number from 0 to 16"));
}

#[test]
fn each_phase_pattern_must_fit_the_network() {
    // 36 nodes: bit permutations need a power of two; transpose fits the square torus.
    let text = "[topology]\nk = 6\n[traffic]\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"transpose\"\nrate = 0.1\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"butterfly\"\nrate = 1\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"uniform\"\nrate = 0.1\n\
                [[traffic.phases]]\ncycles = 100\npattern = \"bit_reverse\"\nrate = 1\n";
    let found = issues(text);
    assert_eq!(found.len(), 2, "{found:#?}");
    for (issue, (path, value)) in found.iter().zip([
        ("traffic.phases[1].pattern", "\"butterfly\""),
        ("traffic.phases[3].pattern", "\"bit_reverse\""),
    ]) {
        assert_eq!(issue.path, path);
        assert_eq!(issue.value.as_deref(), Some(value));
        assert!(issue.message.contains("power-of-two"), "{issue:?}");
    }
    // A pattern that was itself rejected is not checked against the network.
    let found = issues(
        "[topology]\nk = 6\n[traffic]\n\
         [[traffic.phases]]\ncycles = 100\npattern = \"butterflies\"\nrate = 1\n",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "traffic.phases[0].pattern");
}

#[test]
fn rates_may_reach_one_packet_per_node_per_cycle() {
    // Above one flit/node/cycle is accepted up to packet_flits; the message names the length.
    let cfg = config("[traffic]\npacket_flits = 16\nrate = 1.0667\n");
    assert_eq!(cfg.traffic.rate, 1.0667);
    assert_eq!(Spec::new(cfg.config().clone()).unwrap(), cfg);
    let found = issues("[traffic]\npacket_flits = 4\nrate = 4.5\n");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "traffic.rate");
    assert_eq!(found[0].value.as_deref(), Some("4.5"));
    assert!(found[0].message.contains("from 0 to 4"), "{:?}", found[0]);
    assert!(found[0].message.contains("4-flit packet"), "{:?}", found[0]);
    // A rejected packet length is reported alone, not as a rate problem.
    let found = issues("[traffic]\npacket_flits = 0\nrate = 4.5\n");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "traffic.packet_flits");
    assert_eq!(issues("[traffic]\nrate = -0.5\n")[0].path, "traffic.rate");
}

#[test]
fn pattern_settings_apply_to_the_phases_that_use_the_pattern() {
    let phase = |pattern: &str| {
        format!("[[traffic.phases]]\ncycles = 100\npattern = \"{pattern}\"\nrate = 0.5\n")
    };
    // include_self with a uniform phase, hotspot settings with a hotspot phase: accepted.
    let cfg = config(&format!(
        "[topology]\nk = 4\n[traffic]\ninclude_self = true\nhotspot_nodes = [3]\n\
         hotspot_fraction = 0.5\nrepeat_phases = false\n{}{}",
        phase("uniform"),
        phase("hotspot")
    ));
    assert_eq!(cfg.traffic.include_self, Some(true));
    assert_eq!(cfg.traffic.hotspot_nodes, Some(vec![3]));
    assert_eq!(cfg.traffic.repeat_phases, Some(false));
    // Without such phases they are rejected; a hotspot phase needs hot nodes (in range).
    let found = issues(&format!(
        "[topology]\nk = 4\n[traffic]\ninclude_self = true\n{}",
        phase("tornado")
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "traffic.include_self");
    assert!(
        found[0]
            .message
            .contains("a phase has pattern = \"uniform\"")
    );
    let found = issues(&format!(
        "[topology]\nk = 4\n[traffic]\n{}",
        phase("hotspot")
    ));
    assert_eq!(found[0].path, "traffic.hotspot_nodes", "{found:#?}");
    let found = issues(&format!(
        "[topology]\nk = 4\n[traffic]\nhotspot_nodes = [16]\n{}",
        phase("hotspot")
    ));
    assert_eq!(found[0].path, "traffic.hotspot_nodes[0]", "{found:#?}");
    // repeat_phases only with phases; phases must be a non-empty array of tables.
    let found = issues("[traffic]\nrepeat_phases = false\n");
    assert_eq!(found[0].path, "traffic.repeat_phases", "{found:#?}");
    assert!(found[0].message.contains("traffic.phases"));
    assert_eq!(issues("[traffic]\nphases = 3\n")[0].path, "traffic.phases");
    assert_eq!(issues("[traffic]\nphases = []\n")[0].path, "traffic.phases");
    let found = issues("[traffic]\nphases = [1]\n");
    assert_eq!(found[0].path, "traffic.phases[0]", "{found:#?}");
}

#[test]
fn phased_configs_round_trip_without_pattern_and_rate() {
    let cfg = torus_config(&format!("repeat_phases = false\n{BURSTY}"), 1);
    let table = toml::Table::try_from(&cfg).unwrap();
    let traffic = table["traffic"].as_table().unwrap();
    assert!(!traffic.contains_key("pattern") && !traffic.contains_key("rate"));
    assert_eq!(traffic["phases"].as_array().unwrap().len(), 6);
    assert_eq!(Spec::from_table(&table).unwrap(), cfg);
    // JSON, the other input format, too.
    let json = format!(
        "{{\"seed\": 1, \"topology\": {{\"k\": 8}}, \"traffic\": {}}}",
        serde_json::to_string(&cfg.traffic).unwrap()
    );
    assert_eq!(Spec::from_toml_str(&json, "<json>").unwrap(), cfg);
}

#[test]
fn a_bursty_run_on_a_small_torus_keeps_the_invariants() {
    // 4x4 torus (4 address bits); high phases above one flit/node/cycle, so the source queues
    // grow during them and drain during the low phases.
    let text = |vcs: u32| {
        format!(
            "seed = 11\n\
             [topology]\nk = 4\n\
             [router]\nvcs = {vcs}\n\
             [traffic]\npacket_flits = 4\n\
             [[traffic.phases]]\ncycles = 600\npattern = \"uniform\"\nrate = 0.05\n\
             [[traffic.phases]]\ncycles = 150\npattern = \"butterfly\"\nrate = 1.2\n\
             [[traffic.phases]]\ncycles = 600\npattern = \"uniform\"\nrate = 0.05\n\
             [[traffic.phases]]\ncycles = 150\npattern = \"bit_reverse\"\nrate = 1.2\n\
             [sim]\nwarmup_cycles = 300\nmeasure_cycles = 3000\ndrain_cycles_max = 20000\n\
             check_invariants = true\n"
        )
    };
    let report = tailback_core::run(&config(&text(4))).unwrap();
    let s = &report.summary;
    assert!(s.packets_measured > 0);
    assert_eq!(s.packets_delivered, s.packets_measured, "{s:?}");
    // The window covers two passes of 1,500 cycles: offered load is their mean,
    // (2 x 600 x 0.05 + 2 x 150 x 1.2) / 1500 = 0.28 flits/node/cycle (Bernoulli noise aside).
    assert!((s.offered - 0.28).abs() < 0.03, "{s:?}");
    // The same traffic reaches a network with more VCs.
    let other = tailback_core::run(&config(&text(8))).unwrap();
    assert_eq!(other.summary.offered, s.offered);
    assert_eq!(other.summary.packets_measured, s.packets_measured);
}

#[test]
fn the_documented_bursty_example_is_valid() {
    let docs = include_str!("../../../docs/config.md");
    let from = docs
        .find("The bursty load of Thottethodi, Lebeck and Mukherjee")
        .expect("docs example");
    let block = &docs[from..];
    let start = block.find("```toml\n").unwrap() + "```toml\n".len();
    let text = &block[start..start + block[start..].find("```").unwrap()];
    let cfg = config(text);
    let phases = cfg.traffic.phases.as_ref().unwrap();
    assert_eq!(phases.len(), 6);
    assert_eq!(cfg.traffic.packet_flits, 16);
    assert!((phases[1].rate - 16.0 / 15.0).abs() < 1e-3);
    assert!((phases[0].rate - 16.0 / 1500.0).abs() < 1e-4);
}
