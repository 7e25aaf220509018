//! The analytical predictor: the M/D/1 closed form on a single link (and the simulator's
//! agreement with it), what the incoming-link correction removes, refusal at saturation, and
//! trace input agreeing with the pattern it was recorded from.

mod common;

use common::config;
use tailback_core::predict::{Channel, PredictOptions, predict};
use tailback_core::trace;

/// Two nodes joined by one link (a 2-node line): each sends 16-flit packets to the other with
/// Bernoulli arrivals at `rate` flits/cycle, so every channel of a route carries the same stream.
fn line(rate: f64) -> String {
    format!(
        "[topology]\nkind = \"mesh\"\nk = 2\nn = 1\n[router]\nvc_buffer_flits = 32\n\
         [traffic]\npacket_flits = 16\nrate = {rate}\n\
         [sim]\nwarmup_cycles = 10000\nmeasure_cycles = 400000\n"
    )
}

#[test]
fn a_single_link_gives_the_md1_wait_and_the_simulator_agrees() {
    let service = 16.0;
    for rho in [0.3, 0.5, 0.7] {
        let cfg = config(&line(rho));
        let p = predict(&cfg, &PredictOptions::new(true)).unwrap();
        // M/D/1: W = ρ S / (2 (1 − ρ)) at the source's queue; the correction leaves nothing to
        // wait for downstream (one stream per link).
        let md1 = rho * service / (2.0 * (1.0 - rho));
        let waiting = p.latency.waiting.unwrap();
        assert!(
            (waiting - md1).abs() < 1e-9,
            "rho {rho}: {waiting} vs {md1}"
        );
        assert!((p.max_link_rho - rho).abs() < 1e-12);
        let s = tailback_core::run(&cfg).unwrap().summary;
        // The network part is the zero-load latency exactly (nothing queues in the network).
        let network = s.network_latency.mean.unwrap();
        assert!((network - p.latency.zero_load).abs() < 1e-9, "{network}");
        // The simulator's arrivals are Bernoulli per cycle, not Poisson: its wait is the
        // discrete-time Geo/D/1 one, ρ (S − 1) / (2 (1 − ρ)), 6% below M/D/1 at S = 16.
        let queued = s.source_queue_latency.mean.unwrap();
        let geo_d1 = rho * (service - 1.0) / (2.0 * (1.0 - rho));
        assert!(
            (queued / geo_d1 - 1.0).abs() < 0.05,
            "rho {rho}: {queued} vs {geo_d1}"
        );
        assert!(
            (queued / md1 - 1.0).abs() < 0.12,
            "rho {rho}: {queued} vs {md1}"
        );
    }
}

#[test]
fn every_channel_model_can_be_listed() {
    // The line at 0.5: each of the three channels on a route carries 1/32 packets per cycle of
    // 16-cycle service (ρ = 0.5, E[S²] = 256) and has the M/D/1 wait of 8 cycles.
    let cfg = config(&line(0.5));
    let p = predict(&cfg, &PredictOptions::new(true).channels(true)).unwrap();
    let channels = &p.intervals[0].channels;
    // Two injection channels, two router-to-router channels, two ejection channels.
    assert_eq!(channels.len(), 6);
    for c in channels {
        assert!((c.lambda - 1.0 / 32.0).abs() < 1e-12, "{c:?}");
        assert!((c.rho - 0.5).abs() < 1e-12 && (c.service_square - 256.0).abs() < 1e-9);
        assert!((c.wait.unwrap() - 8.0).abs() < 1e-9, "{c:?}");
    }
    assert!(
        predict(&cfg, &PredictOptions::new(true)).unwrap().intervals[0]
            .channels
            .is_empty()
    );
}

/// The predicted mean wait of `cfg`'s workload, with or without the correction.
fn waiting(cfg: &tailback_core::spec::Spec, correction: bool) -> f64 {
    let p = predict(cfg, &PredictOptions::new(correction)).unwrap();
    p.latency.waiting.unwrap()
}

#[test]
fn the_incoming_link_correction_removes_waits_behind_the_same_link() {
    // On the line every router channel is fed by a single incoming link: uncorrected, each of
    // the three channels of a route adds the same M/D/1 wait; corrected, only the source's.
    let cfg = config(&line(0.5));
    let (with, without) = (waiting(&cfg, true), waiting(&cfg, false));
    assert!(
        (without - 3.0 * with).abs() < 1e-9,
        "{without} vs 3 x {with}"
    );
    // On a torus it lowers the wait at every load, and never raises it.
    for rate in [0.1, 0.4, 0.8] {
        let cfg = config(&format!("[topology]\nk = 8\n[traffic]\nrate = {rate}\n"));
        let (with, without) = (waiting(&cfg, true), waiting(&cfg, false));
        assert!(with < without, "rate {rate}: {with} vs {without}");
    }
}

#[test]
fn saturated_channels_are_named_instead_of_a_latency() {
    // A hot spot receiving a fifth of 63 nodes' traffic at 0.1 flits/cycle each: its ejection
    // channel would need 63 · 0.1 · (0.2 + 0.8/63) = 1.34 flits per cycle.
    let hot = |rate: f64| {
        config(&format!(
            "[topology]\nk = 8\n[traffic]\npattern = \"hotspot\"\nhotspot_nodes = [27]\n\
             hotspot_fraction = 0.2\nrate = {rate}\n"
        ))
    };
    let cfg = hot(0.1);
    let p = predict(&cfg, &PredictOptions::new(true)).unwrap();
    assert!(p.latency.mean.is_none() && p.latency.waiting.is_none());
    assert!(
        p.max_link_rho > 1.3 && p.max_link_rho < 1.4,
        "{}",
        p.max_link_rho
    );
    let worst = p.saturated[0];
    let Channel::Output(port) = worst.channel else {
        panic!("{worst:?}");
    };
    let (topology, _, _) = common::network(&cfg);
    let ejection = topology.ejection_port(tailback_core::ids::NodeId::new(27));
    assert_eq!(port as usize, ejection.index());
    // At 70% of that load the channel is highly utilised but a latency is predicted.
    let p = predict(&hot(0.07), &PredictOptions::new(true)).unwrap();
    assert!(p.latency.mean.is_some() && p.saturated.is_empty());
    assert!(
        p.busy.iter().any(|l| l.channel == Channel::Output(port)),
        "{:?}",
        p.busy
    );
}

#[test]
fn a_recorded_trace_predicts_what_its_pattern_predicts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("uniform.trace");
    let text = "[topology]\nk = 8\n[traffic]\nrate = 0.4\n[sim]\nwarmup_cycles = 0\n\
                measure_cycles = 20000\ndrain_cycles_max = 2000\n";
    let cfg = config(text);
    let out = trace::create(&path).unwrap();
    tailback_core::run_traced(&cfg, u64::MAX, |_| {}, out)
        .unwrap()
        .1
        .unwrap();
    let replay = config(&format!(
        "[topology]\nk = 8\n[traffic]\nprocess = \"trace\"\ntrace_file = {:?}\n",
        path.display().to_string()
    ));
    let from_pattern = predict(&cfg, &PredictOptions::new(true))
        .unwrap()
        .latency
        .mean
        .unwrap();
    let from_trace = predict(&replay, &PredictOptions::new(true)).unwrap();
    let mean = from_trace.latency.mean.unwrap();
    assert!(
        (mean / from_pattern - 1.0).abs() < 0.05,
        "{mean} vs {from_pattern}"
    );
    // Intervals of 1,000 cycles: one prediction each, together covering every packet.
    let split = predict(&replay, &PredictOptions::new(true).interval(Some(1000))).unwrap();
    assert!(split.intervals.len() >= 20);
    let packets: f64 = split.intervals.iter().map(|i| i.packets).sum();
    let whole: f64 = from_trace.intervals.iter().map(|i| i.packets).sum();
    assert_eq!(packets, whole);
}

#[test]
fn closed_loop_workloads_are_refused_with_the_reason() {
    let cfg = config("[traffic]\nprocess = \"collective\"\n");
    let error = predict(&cfg, &PredictOptions::new(true))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("open-loop") && error.contains("collective"),
        "{error}"
    );
}

#[test]
fn random_routing_choices_are_weighted_by_their_probability() {
    // A bit reversal on a 4-ary 3-tree at 0.3 flits/node/cycle: destination-mod-k sends a
    // whole leaf's packets up one port (ρ = 4 × 0.3 = 1.2, saturated); random up ports share
    // every leaf's traffic over its four up channels (ρ = 0.3, at most a node's rate anywhere).
    let text = |algorithm: &str| {
        format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{algorithm}\"\n\
             [traffic]\npattern = \"bit_reverse\"\nrate = 0.3\npacket_flits = 8\n"
        )
    };
    let fixed = predict(&config(&text("d_mod_k")), &PredictOptions::new(true)).unwrap();
    assert!(
        (fixed.max_link_rho - 1.2).abs() < 1e-9,
        "{}",
        fixed.max_link_rho
    );
    assert!(fixed.latency.mean.is_none());
    let random = predict(&config(&text("random_up")), &PredictOptions::new(true)).unwrap();
    assert!(
        (random.max_link_rho - 0.3).abs() < 1e-9,
        "{}",
        random.max_link_rho
    );
    // Same mean hop count either way (every route is minimal), so the same zero-load latency.
    assert!((random.latency.zero_load - fixed.latency.zero_load).abs() < 1e-9);
    assert!(random.latency.mean.unwrap() > random.latency.zero_load);
}

#[test]
fn an_empty_trace_is_refused_rather_than_called_saturated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.trace");
    std::fs::write(&path, "").unwrap();
    let cfg = config(&format!(
        "[topology]\nk = 4\nn = 2\n[traffic]\nprocess = \"trace\"\ntrace_file = {:?}\n",
        path.display().to_string()
    ));
    let err = predict(&cfg, &PredictOptions::new(true))
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no packets"), "{err}");
}

#[test]
fn a_short_last_interval_is_left_out_of_the_headline_utilisation() {
    // Packets every 10 cycles for 1,000 cycles, then a burst in the last 10: cut into 500-cycle
    // intervals, the tail of 10 cycles is too short to judge the network by.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tail.trace");
    let mut text = String::new();
    for t in (0..1000).step_by(10) {
        text += &format!("{t} 0 1 8\n");
    }
    for t in 1000..1010 {
        text += &format!("{t} 2 3 8\n");
    }
    std::fs::write(&path, text).unwrap();
    let cfg = config(&format!(
        "[topology]\nk = 4\n[traffic]\nprocess = \"trace\"\ntrace_file = \"{}\"\n",
        path.display()
    ));
    let p = predict(&cfg, &PredictOptions::new(true).interval(Some(500))).unwrap();
    assert_eq!(p.intervals.len(), 3);
    assert_eq!(p.short_tail_cycles, Some(10));
    let judged = p.intervals[0].max_rho.max(p.intervals[1].max_rho);
    assert_eq!(p.max_link_rho, judged);
    assert!(p.intervals[2].max_rho > judged);
    // One interval, or intervals of equal length, keep every interval in the headline.
    let whole = predict(&cfg, &PredictOptions::new(true)).unwrap();
    assert_eq!(whole.short_tail_cycles, None);
    assert_eq!(whole.max_link_rho, whole.intervals[0].max_rho);
}
