//! Packet traces: a run writes the packets it delivered; replaying the trace offers exactly those
//! packets at their times (scaled if asked) and, on the same network, delivers them at the same
//! cycles; bad traces are refused with the line named.

mod common;

use std::path::Path;

use common::config;
use tailback_core::config::ConfigError;
use tailback_core::spec::Spec;
use tailback_core::trace::{self, TraceRecord};

/// An 8x8 torus offering uniform traffic at 0.3 for 3,000 cycles, then nothing (so every packet
/// is delivered before the run ends).
const BURST: &str = "[topology]\nk = 8\n[traffic]\nprocess = \"bernoulli\"\nrepeat_phases = false\n\
    [[traffic.phases]]\ncycles = 3000\npattern = \"uniform\"\nrate = 0.3\n\
    [sim]\nwarmup_cycles = 0\nmeasure_cycles = 3000\ndrain_cycles_max = 20000\n";

/// Runs `cfg` writing its trace to `path`; returns the packets written.
fn traced(cfg: &Spec, path: &Path) -> u64 {
    let out = trace::create(path).unwrap();
    let (_, written) = tailback_core::run_traced(cfg, u64::MAX, |_| {}, out).unwrap();
    written.unwrap()
}

fn replay(path: &Path, extra: &str) -> Spec {
    config(&format!(
        "[topology]\nk = 8\n[traffic]\nprocess = \"trace\"\ntrace_file = {:?}\n{extra}",
        path.display().to_string()
    ))
}

fn sorted(path: &Path) -> Vec<TraceRecord> {
    let mut records = trace::read(path, 64).unwrap();
    records.sort();
    records
}

#[test]
fn replaying_a_trace_on_the_same_network_reproduces_every_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.trace.gz");
    let written = traced(&config(BURST), &first);
    // 64 nodes at 0.3 flits/cycle in 8-flit packets for 3,000 cycles: about 7,200 packets.
    assert!((6500..8000).contains(&written), "{written}");
    let second = dir.path().join("second.trace");
    let replayed = replay(&first, "[sim]\ndrain_cycles_max = 20000");
    assert_eq!(traced(&replayed, &second), written);
    // Same packets, same injection and delivery cycles.
    assert_eq!(sorted(&first), sorted(&second));
    let report = tailback_core::run(&replayed).unwrap();
    assert_eq!(report.summary.packets_delivered, written);
    assert!(report.summary.duration_cycles.is_some());
}

#[test]
fn a_truncated_run_replays_the_same_packet_set() {
    // Sources keep creating while the run drains, so the last packets created are not in the
    // trace: the replay delivers exactly the traced set.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.trace");
    let cfg = config(
        "[topology]\nk = 8\n[traffic]\nrate = 0.3\n[sim]\nwarmup_cycles = 500\n\
                      measure_cycles = 2000\ndrain_cycles_max = 2000\n",
    );
    traced(&cfg, &path);
    let again = dir.path().join("again.trace");
    traced(&replay(&path, ""), &again);
    let key = |r: &TraceRecord| (r.created, r.src, r.dst, r.flits);
    let set = |p: &Path| {
        let mut keys: Vec<_> = sorted(p).iter().map(key).collect();
        keys.sort();
        keys
    };
    assert_eq!(set(&path), set(&again));
}

#[test]
fn time_scaling_stretches_the_creation_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.trace");
    traced(&config(BURST), &path);
    let scaled = dir.path().join("scaled.trace");
    traced(&replay(&path, "trace_time_scale = 2.0"), &scaled);
    let original = sorted(&path);
    let mut stretched = sorted(&scaled);
    stretched.sort_by_key(|r| (r.created / 2, r.src, r.dst));
    assert_eq!(original.len(), stretched.len());
    let mut times: Vec<u64> = original.iter().map(|r| 2 * r.created).collect();
    let mut doubled: Vec<u64> = stretched.iter().map(|r| r.created).collect();
    times.sort();
    doubled.sort();
    assert_eq!(times, doubled);
}

#[test]
fn bad_traces_are_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.trace");
    std::fs::write(&path, "0 1 2 8\n5 1 99 8\n").unwrap();
    let error = tailback_core::run(&replay(&path, "")).unwrap_err();
    let ConfigError::Invalid(issues) = &error else {
        panic!("{error}");
    };
    assert_eq!(issues[0].path, "traffic.trace_file");
    assert!(
        issues[0].message.contains("line 2: destination node 99"),
        "{error}"
    );
    // Packets longer than a cut-through buffer.
    std::fs::write(&path, "0 1 2 64\n").unwrap();
    let text = format!(
        "[topology]\nk = 8\n[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 16\n\
         [traffic]\nprocess = \"trace\"\ntrace_file = {:?}\npacket_flits = 8\n",
        path.display().to_string()
    );
    let error = tailback_core::run(&config(&text)).unwrap_err().to_string();
    assert!(error.contains("64-flit packet"), "{error}");
    // Packets the run could never reach: refused, not silently lost.
    std::fs::write(&path, "0 1 2 8\n18446744073709551615 1 2 8\n").unwrap();
    let error = tailback_core::run(&replay(&path, ""))
        .unwrap_err()
        .to_string();
    assert!(error.contains("latest a replay can reach"), "{error}");
    std::fs::write(&path, "0 1 2 8\n9007199254741 1 2 8\n").unwrap();
    let error = tailback_core::run(&replay(&path, "trace_time_scale = 1000\n"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("scaled by 1000"), "{error}");
    // A missing file is caught when the config is read.
    let missing = format!(
        "[traffic]\nprocess = \"trace\"\ntrace_file = {:?}\n",
        dir.path().join("none").display().to_string()
    );
    let error = Spec::from_toml_str(&missing, "<test>")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("traffic.trace_file") && error.contains("no such file"),
        "{error}"
    );
}

/// A 4-ary 2-tree of buffered switches at 40 Gbit/s where nodes 8-11 send to node 0 as fast as
/// they may for the first 100 µs, with `trace` (a path) replayed beside them; the window is
/// `measure` (`measure_us = ...` or `measure_cycles = ...`).
fn beside_flows(trace: Option<&Path>, measure: &str) -> Spec {
    let trace = trace.map_or(String::new(), |p| {
        format!("trace_file = {:?}\n", p.display().to_string())
    });
    config(&format!(
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n\
         [router]\nvcs = 1\nvc_buffer_flits = 512\nswitching = \"virtual_cut_through\"\n\
         [fabric]\nkind = \"buffered\"\nlink = 40.0\nqueues = \"fifo\"\n\
         [nic]\nqueues = \"per_destination\"\n\
         [traffic]\nprocess = \"flows\"\npacket_flits = 32\nmessage_flits = 32\n{trace}\
         flows = [{{ src = 8, dst = 0, stop_us = 100 }}, {{ src = 9, dst = 0, stop_us = 100 }}, \
         {{ src = 10, dst = 0, stop_us = 100 }}, {{ src = 11, dst = 0, stop_us = 100 }}]\n\
         [sim]\nwarmup_cycles = 0\n{measure}\ndrain_cycles_max = 0\n\
         [record]\nflows = true\n"
    ))
}

#[test]
fn a_trace_beside_flows_adds_exactly_its_packets_and_ends_the_run_when_it_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.trace");
    // Node 4 sends 40 packets to node 1 (behind the hot node's switch), one every 100 cycles.
    let lines: String = (0..40).map(|i| format!("{} 4 1 32\n", 100 * i)).collect();
    std::fs::write(&path, lines).unwrap();
    let mixed = tailback_core::run(&beside_flows(Some(&path), "measure_us = 1000")).unwrap();
    // The run ends as the trace's last packet arrives: after it was created (cycle 3,900),
    // well before the window's end (78,125 cycles).
    let done = mixed.summary.trace_done_cycles.expect("the trace finished");
    assert!((3900..78_125).contains(&done), "{done}");
    assert_eq!(mixed.summary.cycles, done);
    // Every trace packet arrived.
    let pair = mixed
        .flows
        .iter()
        .find(|f| (f.src, f.dst) == (4, 1))
        .unwrap();
    let delivered = pair.accepted * done as f64;
    assert!((delivered - 1280.0).abs() < 1e-6, "{delivered}");
    // The flows' sources are untouched: over the same cycles, the trace adds exactly its
    // 40 x 32 flits to the offer.
    let alone =
        tailback_core::run(&beside_flows(None, &format!("measure_cycles = {done}"))).unwrap();
    assert_eq!(alone.summary.trace_done_cycles, None);
    let offered = |r: &tailback_core::stats::RunReport| r.summary.offered * 16.0 * done as f64;
    let added = offered(&mixed) - offered(&alone);
    assert!((added - 1280.0).abs() < 1e-6, "{added}");
    // A run cut off before the trace's last packet arrives reports no completion.
    let cut = tailback_core::run(&beside_flows(Some(&path), "measure_us = 20")).unwrap();
    assert_eq!(cut.summary.trace_done_cycles, None);
    // Replays report it too (the same as their duration).
    let replayed = tailback_core::run(&replay(&path, "[sim]\ndrain_cycles_max = 20000")).unwrap();
    assert_eq!(
        replayed.summary.trace_done_cycles,
        replayed.summary.duration_cycles
    );
}

#[test]
fn a_trace_applies_only_to_replays_and_flows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.trace");
    std::fs::write(&path, "0 1 2 8\n").unwrap();
    let text = format!(
        "[traffic]\nprocess = \"bernoulli\"\ntrace_file = {:?}\n",
        path.display().to_string()
    );
    let error = Spec::from_toml_str(&text, "<test>")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("traffic.trace_file") && error.contains("beside \"flows\""),
        "{error}"
    );
    let text = "[traffic]\nprocess = \"flows\"\nflows = [{ src = 0, dst = 1 }]\n\
                trace_time_scale = 2.0\n";
    let error = Spec::from_toml_str(text, "<test>").unwrap_err().to_string();
    assert!(
        error.contains("traffic.trace_time_scale") && error.contains("trace_file"),
        "{error}"
    );
}
