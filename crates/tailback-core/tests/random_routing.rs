//! Randomised routing choices: random up ports on fat trees (`random_up`) and drawn directions
//! at distance k/2 on tori (`tie_break = "random"`). Each packet draws from its source's routing
//! stream; analyses weigh every route by its probability.

mod common;

use common::{analysed_channel_load, checked_config, comparable, config, network, node};
use rand::RngExt;
use tailback_core::analysis::is_deadlock_free;
use tailback_core::ids::{PortId, RouterId};
use tailback_core::rng::{self, Purpose};
use tailback_core::routing::{Routing, UpDown};
use tailback_core::sim::Simulation;
use tailback_core::topology::{Link, Topology};

const DRAWS: usize = 100_000;

/// Pearson's statistic of `counts` against equal expectations.
fn chi_square(counts: &[usize]) -> f64 {
    let expected = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// The router output ports (router, local port) of the route from `src` to `dst` with `draw`.
fn route_ports(cfg: &tailback_core::config::Config, src: usize, dst: usize, draw: u32) -> Vec<u8> {
    let (topology, routing, _) = network(cfg);
    let mut ports = Vec::new();
    routing.walk(&topology, node(src), node(dst), draw, |port: PortId, _| {
        ports.push(topology.ports()[port.index()].local);
    });
    ports
}

#[test]
fn random_up_draws_each_level_uniformly_and_independently() {
    let cfg = config(
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"random_up\"\n",
    );
    let (topology, routing, _) = network(&cfg);
    let mut draws = rng::stream(7, 0, Purpose::Routing);
    // Node 0 to node 63 turns at the top: up at the leaf and at level 1, then down.
    let mut joint = [0usize; 16];
    for _ in 0..DRAWS {
        let draw: u32 = draws.random();
        let mut ups = Vec::new();
        routing.walk(&topology, node(0), node(63), draw, |port, _| {
            let p = topology.ports()[port.index()];
            if p.local >= 4 {
                ups.push(usize::from(p.local - 4));
            }
        });
        assert_eq!(ups.len(), 2, "two up hops on a 3-level tree");
        joint[4 * ups[0] + ups[1]] += 1;
    }
    // 15 degrees of freedom: below 37.7 with probability 0.999 if uniform and independent.
    let statistic = chi_square(&joint);
    assert!(
        statistic < 37.7,
        "up ports not uniform: {joint:?} (chi² {statistic:.1})"
    );
    // The destination-mod-k port is not favoured: each leaf up port within 4 sigma of a quarter.
    for up in 0..4 {
        let n: usize = joint[4 * up..4 * up + 4].iter().sum();
        let sigma = (DRAWS as f64 * 0.25 * 0.75).sqrt();
        assert!(
            (n as f64 - DRAWS as f64 / 4.0).abs() < 4.0 * sigma,
            "leaf up port {up}: {n}"
        );
    }
}

#[test]
fn drawn_ties_go_each_way_half_the_time_and_keep_other_routes() {
    let cfg = config("[topology]\nk = 8\nn = 2\n[routing]\ntie_break = \"random\"\n");
    let mut draws = rng::stream(3, 5, Purpose::Routing);
    // (0,0) to (4,4) ties in both dimensions; (0,0) to (3,4) only in dimension 1.
    let mut joint = [0usize; 4];
    for _ in 0..DRAWS {
        let draw: u32 = draws.random();
        let ports = route_ports(&cfg, 0, 4 + 4 * 8, draw);
        assert_eq!(ports.len(), 9, "8 hops, then ejection: {ports:?}");
        // Ports 0/1: dimension 0 positive/negative; 2/3: dimension 1.
        let (first, turn) = (ports[0], ports[4]);
        assert!(first < 2 && (2..4).contains(&turn), "{ports:?}");
        joint[usize::from(first) * 2 + usize::from(turn - 2)] += 1;
        let other = route_ports(&cfg, 0, 3 + 4 * 8, draw);
        assert_eq!(
            other[..3],
            [0, 0, 0],
            "dimension 0 is not tied: always positive"
        );
    }
    // 3 degrees of freedom: below 16.3 with probability 0.999.
    let statistic = chi_square(&joint);
    assert!(
        statistic < 16.3,
        "tie directions not 50/50: {joint:?} (chi² {statistic:.1})"
    );
}

#[test]
fn drawn_choices_keep_the_dependency_graphs_acyclic() {
    for text in [
        "[topology]\nk = 8\nn = 2\n[routing]\ntie_break = \"random\"\n",
        "[topology]\nk = 4\nn = 3\n[routing]\ntie_break = \"random\"\n",
        "[topology]\nk = 8\nn = 2\n[routing]\ntie_break = \"random\"\ndatelines = [0, 4]\n[router]\nvcs = 4\n",
        "[topology]\nk = 8\nn = 2\n[routing]\nalgorithm = \"duato\"\ntie_break = \"random\"\n",
        "[topology]\nk = 6\nn = 2\n[routing]\nalgorithm = \"duato\"\ntie_break = \"random\"\ndatelines = [0, 3]\n[router]\nvcs = 6\n",
        "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"disha\"\ntie_break = \"random\"\n",
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"random_up\"\n",
        "[topology]\nkind = \"folded_clos\"\nradix = 8\nlevels = 3\n[routing]\nalgorithm = \"random_up\"\n",
        "[topology]\nkind = \"cm5_fattree\"\nnodes = 64\n[routing]\nalgorithm = \"random_up\"\n",
    ] {
        let cfg = config(text);
        let (topology, routing, _) = network(&cfg);
        assert!(routing.draws(), "{text}");
        assert!(is_deadlock_free(&topology, &routing), "{text}");
    }
}

#[test]
fn drawn_ties_need_the_classes_of_either_direction() {
    // A dateline at 0 on a ring of 8: from 6 to 2 (a tie) the positive way crosses it, the
    // negative way does not; from 2 to 6 the other way round. With one class per crossing
    // both directions must fit, and the routes of both draws appear in the graph.
    let cfg = config(
        "[topology]\nk = 8\nn = 1\n[routing]\ntie_break = \"random\"\ndatelines = [0]\n[router]\nvcs = 2\n",
    );
    let (topology, routing, _) = network(&cfg);
    let mut classes = [false; 2];
    for draw in [0, 1] {
        routing.walk(&topology, node(6), node(2), draw, |port, class| {
            if matches!(topology.ports()[port.index()].output, Link::Router(_)) {
                classes[usize::from(class)] = true;
            }
        });
    }
    assert_eq!(
        classes,
        [true, true],
        "the positive way crosses the dateline"
    );
    assert!(is_deadlock_free(&topology, &routing));
}

#[test]
fn random_up_spreads_uniform_traffic_as_the_tree_predicts() {
    // On a k-ary n-tree under uniform traffic every up channel out of a level-l switch carries
    // (N - k^(l+1)) / (N - 1) of a node's rate: the traffic leaving the subtree, shared evenly.
    let (k, n) = (4usize, 3u32);
    let cfg = config(&format!(
        "[topology]\nkind = \"kary_ntree\"\nk = {k}\nn = {n}\n[routing]\nalgorithm = \"random_up\"\n"
    ));
    let (topology, routing, _) = network(&cfg);
    let nodes = topology.node_count();
    let mut load = vec![0.0f64; topology.ports().len()];
    for src in 0..nodes {
        for dst in (0..nodes).filter(|&d| d != src) {
            routing.spread(&topology, node(src), node(dst), |port, _, p| {
                load[port.index()] += p / (nodes - 1) as f64;
            });
        }
    }
    let switches_per_level = nodes / k;
    let mut checked = 0;
    for (i, port) in topology.ports().iter().enumerate() {
        let level = port.router.index() / switches_per_level;
        let is_up = usize::from(port.local) >= k && matches!(port.output, Link::Router(_));
        if !is_up {
            continue;
        }
        let above = k.pow(level as u32 + 1);
        let expected = (nodes - above) as f64 / (nodes - 1) as f64;
        assert!(
            (load[i] - expected).abs() < 1e-9,
            "port {i}: {} vs {expected}",
            load[i]
        );
        checked += 1;
    }
    assert_eq!(
        checked,
        2 * switches_per_level * k,
        "up channels of levels 0 and 1"
    );
    let bound = analysed_channel_load(&cfg);
    assert!((bound.ideal_throughput - 1.0).abs() < 1e-9);
    // Mean hops: twice the common level, averaged over the destinations.
    let (n1, n2) = ((k - 1) as f64, (k * k - k) as f64);
    let n3 = (nodes - k * k) as f64;
    let hops = (2.0 * n2 + 4.0 * n3) / (n1 + n2 + n3);
    assert!(
        (bound.mean_hops - hops).abs() < 1e-9,
        "{} vs {hops}",
        bound.mean_hops
    );
}

#[test]
fn random_up_carries_any_permutation_at_full_rate_where_destination_mod_k_cannot() {
    // Random up ports share every subtree's outgoing traffic over all its up channels and every
    // destination's incoming traffic over all its parents: no channel of a k-ary n-tree carries
    // more than one node's rate under a permutation. Destination-mod-k routes a whole leaf's
    // packets up one port when their destinations agree mod k.
    for pattern in [
        "bit_reverse",
        "perfect_shuffle",
        "bit_rotation",
        "random_permutation",
    ] {
        let text = |algorithm: &str| {
            format!(
                "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{algorithm}\"\n\
                 [traffic]\npattern = \"{pattern}\"\n"
            )
        };
        let random = analysed_channel_load(&config(&text("random_up")));
        assert!(
            (random.ideal_throughput - 1.0).abs() < 1e-9,
            "{pattern}: {random:?}"
        );
        let fixed = analysed_channel_load(&config(&text("d_mod_k")));
        assert!(
            fixed.ideal_throughput <= random.ideal_throughput + 1e-9,
            "{pattern}"
        );
    }
    let text =
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[traffic]\npattern = \"bit_reverse\"\n";
    assert!((analysed_channel_load(&config(text)).ideal_throughput - 0.25).abs() < 1e-9);
}

#[test]
fn drawn_ties_halve_the_tied_traffic_on_each_direction() {
    // On a ring of 8 every node sends 4 ahead, a tie: the positive rule puts all of it on the
    // positive links (4 routes each), drawn ties split it (2 each way).
    let text = |tie: &str| {
        format!(
            "[topology]\nk = 8\nn = 1\n[routing]\ntie_break = \"{tie}\"\n\
             [traffic]\npattern = \"tornado_index\"\n"
        )
    };
    let positive = analysed_channel_load(&config(&text("positive")));
    let random = analysed_channel_load(&config(&text("random")));
    assert!(
        (positive.ideal_throughput - 0.25).abs() < 1e-9,
        "{positive:?}"
    );
    assert!((random.ideal_throughput - 0.5).abs() < 1e-9, "{random:?}");
    assert!((random.mean_hops - 4.0).abs() < 1e-9);
}

#[test]
fn runs_with_drawn_routes_keep_the_invariants_and_repeat_exactly() {
    for text in [
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"random_up\"\n\
         [traffic]\nrate = 0.5\npacket_flits = 4\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n",
        "[topology]\nk = 4\nn = 2\n[routing]\ntie_break = \"random\"\n\
         [traffic]\nrate = 0.3\npacket_flits = 4\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n",
        "[topology]\nk = 4\nn = 2\n[routing]\nalgorithm = \"duato\"\ntie_break = \"random\"\n[router]\nvcs = 3\n\
         [traffic]\nrate = 0.3\npacket_flits = 4\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n",
        "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 2\n[routing]\nalgorithm = \"random_up\"\n\
         [fabric]\nkind = \"buffered\"\n[router]\nswitching = \"virtual_cut_through\"\nvc_buffer_flits = 64\n\
         [traffic]\nrate = 0.5\npacket_flits = 8\n[sim]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n",
    ] {
        let cfg = checked_config(text);
        let run = || tailback_core::run(&cfg).unwrap();
        let (a, b) = (run(), run());
        assert!(!a.summary.saturated, "{text}");
        assert!(a.summary.packets_delivered > 500, "{text}");
        assert_eq!(comparable(&a.summary), comparable(&b.summary), "{text}");
    }
}

#[test]
fn routing_draws_leave_the_offered_traffic_alone() {
    // Runs that differ only in the routing see the same packets offered: the draws come from
    // their own streams.
    let run = |algorithm: &str| {
        let cfg = config(&format!(
            "[topology]\nkind = \"kary_ntree\"\nk = 4\nn = 3\n[routing]\nalgorithm = \"{algorithm}\"\n\
             [traffic]\nrate = 0.4\npacket_flits = 4\n[sim]\nwarmup_cycles = 100\nmeasure_cycles = 1000\n"
        ));
        Simulation::new(&cfg).unwrap().run().summary
    };
    let (fixed, random) = (run("d_mod_k"), run("random_up"));
    assert_eq!(fixed.offered, random.offered);
    assert_eq!(fixed.packets_measured, random.packets_measured);
    assert_ne!(fixed.latency.mean, random.latency.mean, "the routes differ");
}

/// Follows every route of random-up routing from `router` to node `dst` one by one, each up
/// port of a level taking an equal share of `p`, and visits each hop with its share: the
/// reference the pooled computation must match.
fn every_route(
    topology: &Topology,
    tree: &UpDown,
    router: RouterId,
    dst: usize,
    p: f64,
    visit: &mut dyn FnMut(PortId, f64),
) {
    let (first, span) = tree.subtree(router.index());
    let start = topology.router_ports(router).start;
    let (ports, share) = if (first..first + span).contains(&dst) {
        (1u64 << tree.route(router.index(), dst, 0).port, p)
    } else {
        let up = tree.up_ports(router.index());
        (up, p / f64::from(up.count_ones()))
    };
    for local in (0..64).filter(|b| ports >> b & 1 == 1) {
        let port = PortId::new(start + local);
        visit(port, share);
        if let Link::Router(into) = topology.ports()[port.index()].output {
            let next = topology.ports()[into.index()].router;
            every_route(topology, tree, next, dst, share, visit);
        }
    }
}

#[test]
fn pooled_tree_loads_equal_routing_every_pair() {
    // `check` pools the destinations of leaves whose packets spread alike instead of routing
    // every pair; the busiest channel and the mean hops must come out as pair by pair.
    for shape in [
        "kind = \"kary_ntree\"\nk = 4\nn = 3",
        "kind = \"kary_ntree\"\nk = 2\nn = 5",
        "kind = \"folded_clos\"\nradix = 8\nlevels = 3",
        "kind = \"cm5_fattree\"\nnodes = 64",
    ] {
        for pattern in ["uniform", "bit_reverse", "random_permutation", "hotspot"] {
            let text = format!(
                "[topology]\n{shape}\n[routing]\nalgorithm = \"random_up\"\n\
                 [traffic]\npattern = \"{pattern}\"\n{}",
                if pattern == "hotspot" {
                    "hotspot_nodes = [3]\nhotspot_fraction = 0.3\n"
                } else {
                    ""
                }
            );
            let cfg = config(&text);
            let (topology, routing, destinations) = network(&cfg);
            let nodes = topology.node_count();
            let mut load = vec![0.0f64; topology.ports().len()];
            let mut hops = 0.0;
            let Routing::UpDown(tree) = &routing else {
                panic!("{shape}: not up/down routing");
            };
            for src in 0..nodes {
                let leaf = topology.ports()[topology.injection_port(node(src)).index()].router;
                destinations.distribution(src as u32, |dst, p| {
                    every_route(&topology, tree, leaf, dst as usize, p, &mut |port, q| {
                        load[port.index()] += q;
                        if matches!(topology.ports()[port.index()].output, Link::Router(_)) {
                            hops += q;
                        }
                    });
                });
            }
            let busiest = load.iter().cloned().fold(1.0, f64::max);
            let pooled = analysed_channel_load(&cfg);
            let case = format!("{shape} / {pattern}");
            assert!(
                (pooled.max_load - busiest).abs() < 1e-9,
                "{case}: {pooled:?} vs {busiest}"
            );
            assert!(
                (pooled.mean_hops - hops / nodes as f64).abs() < 1e-9,
                "{case}"
            );
        }
    }
}
