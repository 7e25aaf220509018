//! Non-minimal routing: Valiant, UGAL-L, UGAL-G and PAR on dragonflies, Valiant, UGAL-L and DAL on
//! HyperX. Every route the algorithms may take is deadlock-free by its channel dependency
//! graph, a Valiant route crosses the intermediate its draw picks and the draws spread detours
//! evenly, UGAL's choices give exactly the minimal and the Valiant route, no packet is lost
//! under load, and on adversarial traffic the detours carry what the minimal route cannot (Kim,
//! Dally, Scott and Abts, ISCA 2008: minimal routing is limited to 1/(a·p) of the injection
//! bandwidth under group shift, Valiant to about h/(2p) under any pattern).

mod common;

use common::{all_to_all, checked_config, config, node, refused};
use tailback_core::analysis::is_deadlock_free;
use tailback_core::ids::{PortId, RouterId};
use tailback_core::routing::{Decide, Head, Routing, Scripted};
use tailback_core::sim::Simulation;
use tailback_core::spec::Spec;
use tailback_core::stats::RunSummary;
use tailback_core::topology::{Layout, Link, Topology};

const DETOURING: [&str; 4] = ["valiant", "ugal_l", "ugal_g", "par"];

/// Shapes of every arrangement, and one with parallel global links.
const SHAPES: [&str; 4] = [
    "p = 2\na = 4\nh = 2",
    "p = 2\na = 4\nh = 2\narrangement = \"palmtree\"",
    "p = 1\na = 4\nh = 2\narrangement = \"random\"",
    "p = 1\na = 4\nh = 2\ngroups = 5",
];

/// A dragonfly of `shape` routed by `algorithm` over 4 VCs, with `rest` appended.
fn dragonfly(shape: &str, algorithm: &str, rest: &str) -> Spec {
    config(&format!(
        "[topology]\nkind = \"dragonfly\"\n{shape}\n[routing]\nalgorithm = \"{algorithm}\"\n\
         {rest}"
    ))
}

/// The groups whose global links a route from `src` to `dst` crosses, in order, walking it with
/// routing draw `draw` and choices `script` ([`Scripted`]).
fn groups_crossed(
    topology: &Topology,
    routing: &Routing,
    (src, dst): (usize, usize),
    draw: u32,
    script: u32,
) -> Vec<u32> {
    let Layout::Dragonfly(shape) = topology.layout() else {
        panic!("a dragonfly")
    };
    let mut entered = Vec::new();
    let router = |port: usize| topology.ports()[port].router.index();
    routing.walk_deciding(
        topology,
        node(src),
        node(dst),
        draw,
        &mut Scripted(script),
        |port, _| {
            if let Link::Router(next) = topology.ports()[port.index()].output {
                let (from, to) = (router(port.index()), router(next.index()));
                if shape.group(from) != shape.group(to) {
                    entered.push(shape.group(to));
                }
            }
            true
        },
    );
    entered
}

#[test]
fn every_route_of_every_detouring_algorithm_is_deadlock_free() {
    for shape in SHAPES {
        for algorithm in DETOURING {
            let cfg = dragonfly(shape, algorithm, "[router]\nvcs = 4\n");
            let (topology, routing, _) = common::network(&cfg);
            assert!(routing.detours(), "{algorithm}");
            assert!(
                is_deadlock_free(&topology, &routing),
                "{algorithm} on {shape}"
            );
        }
    }
}

#[test]
fn valiant_routes_cross_the_drawn_group_and_spread_evenly_over_the_others() {
    for shape in SHAPES {
        let cfg = dragonfly(shape, "valiant", "");
        let (topology, routing, _) = common::network(&cfg);
        let Layout::Dragonfly(fly) = topology.layout() else {
            panic!("a dragonfly")
        };
        let groups = fly.groups();
        let group_of = |n: usize| fly.group(n / fly.p() as usize);
        let nodes = topology.node_count();
        for src in (0..nodes).step_by(3) {
            for dst in (0..nodes).filter(|&d| fly.router_of(d) != fly.router_of(src)) {
                let (gs, gd) = (group_of(src), group_of(dst));
                let mut share = vec![0.0; groups as usize];
                routing.draws_between(node(src), node(dst), |draw, p| {
                    let crossed = groups_crossed(&topology, &routing, (src, dst), draw, 0);
                    // Into the intermediate group, then into the destination's.
                    assert_eq!(crossed.len(), 2, "{shape}: {src} -> {dst}: {crossed:?}");
                    assert_eq!(crossed[1], gd);
                    assert!(crossed[0] != gs && crossed[0] != gd);
                    share[crossed[0] as usize] += p;
                });
                let others = groups - if gs == gd { 1 } else { 2 };
                for (g, &s) in share.iter().enumerate() {
                    let expected = if g as u32 == gs || g as u32 == gd {
                        0.0
                    } else {
                        1.0 / f64::from(others)
                    };
                    assert!(
                        (s - expected).abs() < 1e-12,
                        "{shape}: {src} -> {dst}: group {g} drawn with probability {s}"
                    );
                }
            }
        }
    }
}

#[test]
fn ugal_and_par_choose_between_the_minimal_route_and_the_valiant_one() {
    let shape = SHAPES[0];
    let (topology, minimal, _) = common::network(&dragonfly(shape, "min", ""));
    let Layout::Dragonfly(fly) = topology.layout() else {
        panic!("a dragonfly")
    };
    let router_of = |n: usize| fly.router_of(n);
    let (_, valiant, _) = common::network(&dragonfly(shape, "valiant", ""));
    let nodes = topology.node_count();
    let ports = |routing: &Routing, src: usize, dst: usize, draw: u32, script: u32| {
        let mut ports = Vec::new();
        routing.walk_deciding(
            &topology,
            node(src),
            node(dst),
            draw,
            &mut Scripted(script),
            |port, _| {
                ports.push(port);
                true
            },
        );
        ports
    };
    for algorithm in ["ugal_l", "ugal_g", "par"] {
        let (_, routing, _) = common::network(&dragonfly(shape, algorithm, ""));
        for (src, dst) in (0..nodes).flat_map(|s| (0..nodes).map(move |d| (s, d))) {
            routing.draws_between(node(src), node(dst), |draw, _| {
                // Staying minimal at every choice: the minimal route; leaving at the first:
                // the Valiant route of the same draw.
                assert_eq!(
                    ports(&routing, src, dst, draw, u32::MAX),
                    ports(&minimal, src, dst, draw, 0)
                );
                assert_eq!(
                    ports(&routing, src, dst, draw, 0),
                    if fly.group(router_of(src)) == fly.group(router_of(dst)) {
                        ports(&minimal, src, dst, draw, 0)
                    } else {
                        ports(&valiant, src, dst, draw, 0)
                    },
                    "{algorithm}: {src} -> {dst}, draw {draw}"
                );
            });
        }
    }
    // PAR's second choice: minimal at the source, then off at the router of the global link,
    // still in the source group. Group 0's link to group 4 is its link 3, on router 1: a route
    // from router 0 takes a local hop to it first.
    let (_, par, _) = common::network(&dragonfly(shape, "par", ""));
    let (src, dst) = (0, 4 * 8 + 1);
    let mut second_choices = 0;
    par.draws_between(node(src), node(dst), |draw, _| {
        let late = groups_crossed(&topology, &par, (src, dst), draw, 0b01);
        let valiant_route = groups_crossed(&topology, &valiant, (src, dst), draw, 0);
        assert_eq!(late, valiant_route);
        let first = ports(&par, src, dst, draw, 0b01)[0];
        if first == ports(&minimal, src, dst, draw, 0)[0] && late.len() == 2 {
            second_choices += 1;
        }
    });
    assert!(second_choices > 0, "PAR never left the minimal route late");
}

/// Whether each hop of the route from `src` to `dst` (draw `draw`, choices `script`) counts as
/// chosen by the queues, with the router it leaves.
fn chosen_hops(
    topology: &Topology,
    routing: &Routing,
    (src, dst): (usize, usize),
    draw: u32,
    script: u32,
) -> Vec<(usize, bool)> {
    let mut head = Head::new(node(src), node(dst), draw);
    let mut router = topology.ports()[topology.injection_port(node(src)).index()].router;
    let mut decide = Scripted(script);
    let mut hops = Vec::new();
    loop {
        let route = routing.route(router, &head, &mut decide);
        hops.push((router.index(), routing.chose(router, &head, &route.escape)));
        let port = topology.router_ports(router).start + route.escape.port as usize;
        match topology.ports()[port].output {
            Link::Router(next) => {
                router = topology.ports()[next.index()].router;
                (head.class, head.detoured) = (route.escape.class, route.detoured);
            }
            _ => return hops,
        }
    }
}

/// Marking only unchosen hops (ours) needs to know which hops the routing chose: under UGAL
/// and PAR on a dragonfly, every hop a packet bound for another group takes in its source
/// group, minimal or detoured; no other hop, and none under MIN or Valiant. On a HyperX,
/// UGAL-L's hop from the source switch, and DAL's hops with more than one candidate.
#[test]
fn queue_weighing_routings_say_which_hops_they_chose() {
    let shape = SHAPES[0];
    for algorithm in ["min", "valiant", "ugal_l", "ugal_g", "par"] {
        let (topology, routing, _) =
            common::network(&dragonfly(shape, algorithm, "[router]\nvcs = 4\n"));
        let Layout::Dragonfly(fly) = topology.layout() else {
            panic!("a dragonfly")
        };
        let weighs = !matches!(algorithm, "min" | "valiant");
        let nodes = topology.node_count();
        for (src, dst) in (0..nodes).flat_map(|s| (0..nodes).map(move |d| (s, d))) {
            let home = fly.group(fly.router_of(src));
            let leaving = home != fly.group(fly.router_of(dst));
            routing.draws_between(node(src), node(dst), |draw, _| {
                for script in [0, u32::MAX] {
                    let hops = chosen_hops(&topology, &routing, (src, dst), draw, script);
                    // Routes leave the source group for good: its hops come first.
                    for (i, &(router, chosen)) in hops.iter().enumerate() {
                        let in_source_group = hops[..=i].iter().all(|&(r, _)| fly.group(r) == home);
                        assert_eq!(
                            chosen,
                            weighs && leaving && in_source_group,
                            "{algorithm}: {src} -> {dst}, draw {draw}, script {script}, router {router}"
                        );
                    }
                }
            });
        }
    }
    let shape = "[topology]\nkind = \"hyperx\"\ndims = [3, 3]\nterminals = 1\n";
    for algorithm in ["dor", "valiant", "ugal_l", "dal"] {
        let cfg = config(&format!(
            "{shape}[routing]\nalgorithm = \"{algorithm}\"\n[router]\nvcs = 4\n"
        ));
        let (topology, routing, _) = common::network(&cfg);
        let mut chosen = 0;
        for (src, dst) in (0..9).flat_map(|s| (0..9).map(move |d| (s, d))) {
            for script in [0, u32::MAX] {
                let hops = chosen_hops(&topology, &routing, (src, dst), 7, script);
                for (i, &(router, was)) in hops.iter().enumerate() {
                    // DAL's candidates: each unaligned dimension's minimal hop, and one
                    // deroute where that dimension still has its source coordinate.
                    let coords = |n: usize| [n % 3, n / 3];
                    let (at, from, to) = (coords(router), coords(src), coords(dst));
                    let candidates: usize = (0..2)
                        .filter(|&d| at[d] != to[d])
                        .map(|d| 1 + usize::from(at[d] == from[d]))
                        .sum();
                    let expected = match algorithm {
                        "ugal_l" => i == 0 && src != dst,
                        "dal" => candidates > 1,
                        _ => false,
                    };
                    assert_eq!(was, expected, "{algorithm}: {src} -> {dst}, hop {i}");
                    chosen += usize::from(was);
                }
            }
        }
        assert_eq!(
            chosen > 0,
            matches!(algorithm, "ugal_l" | "dal"),
            "{algorithm}"
        );
    }
}

#[test]
fn every_packet_of_an_all_to_all_exchange_arrives_under_every_algorithm() {
    for shape in [SHAPES[0], SHAPES[3]] {
        for algorithm in DETOURING {
            // A low threshold makes UGAL and PAR change their minds often.
            let threshold = if algorithm == "valiant" {
                ""
            } else {
                "ugal_threshold = 2\n"
            };
            let cfg = checked_config(&format!(
                "[topology]\nkind = \"dragonfly\"\n{shape}\nglobal_latency = 4\n\
                 [routing]\nalgorithm = \"{algorithm}\"\n{threshold}\
                 [router]\nvcs = 4\nvc_buffer_flits = 4\n[traffic]\nrate = 0.0\n"
            ));
            let nodes = cfg.node_count() as u64;
            assert_eq!(
                all_to_all(&cfg, 3, 400_000),
                nodes * (nodes - 1) * 3,
                "{algorithm} on {shape}"
            );
        }
    }
}

/// A run of 72-node dragonfly (9 groups of 4 routers, 2 nodes and 2 global links each) under
/// `pattern` at `rate`, with VC buffers deep enough for UGAL's threshold of 30 flits to be
/// passed.
fn run(algorithm: &str, pattern: &str, rate: f64, vcs: u32) -> RunSummary {
    let cfg = dragonfly(
        SHAPES[0],
        algorithm,
        &format!(
            "[router]\nvcs = {vcs}\nvc_buffer_flits = 64\n[traffic]\npattern = \"{pattern}\"\n\
             packet_flits = 4\nrate = {rate}\n[sim]\nwarmup_cycles = 2000\n\
             measure_cycles = 3000\n"
        ),
    );
    Simulation::new(&cfg).unwrap().run().summary
}

#[test]
fn detours_carry_group_shift_traffic_that_minimal_routing_cannot() {
    // Minimal: all 8 nodes of a group share one global link, λ ≤ 1/8. Valiant: two global hops
    // per packet over a group's 8 links, λ ≤ h/(2p) = 1/2.
    let offered = 0.3;
    let min = run("min", "group_shift", offered, 4);
    assert!(
        min.accepted <= 1.0 / 8.0 + 0.005,
        "MIN carried {}",
        min.accepted
    );
    for algorithm in DETOURING {
        let s = run(algorithm, "group_shift", offered, 4);
        // The same offered traffic whatever the routing (common random numbers).
        assert_eq!(s.packets_measured, min.packets_measured, "{algorithm}");
        assert!(
            s.accepted > 0.9 * offered,
            "{algorithm} carried {} of {offered}",
            s.accepted
        );
        assert!(s.detoured.unwrap() > 0.6, "{algorithm}: {:?}", s.detoured);
    }
}

#[test]
fn at_low_uniform_load_ugal_stays_minimal_and_valiant_always_detours() {
    for algorithm in ["ugal_l", "ugal_g", "par"] {
        let s = run(algorithm, "uniform", 0.1, 4);
        assert!(
            s.detoured.unwrap() < 0.05,
            "{algorithm} detoured {:?}",
            s.detoured
        );
    }
    let valiant = run("valiant", "uniform", 0.1, 4);
    // Packets within a router do not detour: 1 of the 71 other nodes.
    assert!((valiant.detoured.unwrap() - 70.0 / 71.0).abs() < 0.02);
    assert!(run("min", "uniform", 0.1, 4).detoured.is_none());
}

#[test]
fn packets_overtake_each_other_only_on_different_routes_or_vcs() {
    // Dimension-order routing on a mesh with one VC: every packet of a pair takes the same
    // channels in the same VC, first in first out, so they arrive in order. Valiant's routes
    // differ per packet.
    let mesh = config(
        "[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[router]\nvcs = 1\n[traffic]\n\
         packet_flits = 4\nrate = 0.3\n[sim]\nwarmup_cycles = 1000\nmeasure_cycles = 3000\n",
    );
    let in_order = Simulation::new(&mesh).unwrap().run().summary;
    assert!(in_order.packets_delivered > 1000);
    assert_eq!(in_order.out_of_order, 0);
    let valiant = run("valiant", "uniform", 0.3, 3);
    assert!(valiant.out_of_order > 0);
}

#[test]
fn runs_are_deterministic() {
    let a = run("ugal_l", "group_shift", 0.2, 4);
    let b = run("ugal_l", "group_shift", 0.2, 4);
    assert_eq!(common::comparable(&a), common::comparable(&b));
}

#[test]
fn settings_the_routing_cannot_use_are_refused_by_name() {
    let df = "[topology]\nkind = \"dragonfly\"\na = 4\nh = 2\n";
    refused(
        &format!("{df}groups = 2\n[routing]\nalgorithm = \"valiant\"\n"),
        "routing.algorithm",
        &["2 groups", "at least 3"],
    );
    refused(
        &format!("{df}[routing]\nalgorithm = \"par\"\n[router]\nvcs = 3\n"),
        "router.vcs",
        &["needs at least 4", "tentative"],
    );
    refused(
        &format!("{df}[routing]\nalgorithm = \"ugal_l\"\n[router]\nvcs = 2\n"),
        "router.vcs",
        &["needs at least 3", "intermediate"],
    );
    refused(
        &format!("{df}[routing]\nalgorithm = \"valiant\"\nugal_threshold = 4\n"),
        "routing.ugal_threshold",
        &["ugal_l"],
    );
    refused(
        "[topology]\nkind = \"hyperx\"\ndims = [2]\n[routing]\nalgorithm = \"valiant\"\n",
        "routing.algorithm",
        &["2 switches", "at least 3"],
    );
    refused(
        "[topology]\nkind = \"hyperx\"\ndims = [4, 4, 4]\n[routing]\nalgorithm = \"dal\"\n\
         [router]\nvcs = 5\n",
        "router.vcs",
        &["needs at least 6", "3 dimensions"],
    );
    refused(
        "[topology]\nkind = \"hyperx\"\n[routing]\nalgorithm = \"par\"\n",
        "routing.algorithm",
        &["\"dor\""],
    );
    refused(
        "[topology]\nkind = \"torus\"\n[routing]\nalgorithm = \"ugal_l\"\n",
        "routing.algorithm",
        &["\"dor\""],
    );
    // The buffered fabric takes the phases' classes through its SL-to-VL tables.
    tailback_core::spec::Spec::from_toml_str(
        &format!(
            "{df}[router]\nswitching = \"virtual_cut_through\"\nvcs = 3\n\
             [fabric]\nkind = \"buffered\"\n[routing]\nalgorithm = \"valiant\"\n"
        ),
        "<test>",
    )
    .unwrap();
}

#[test]
fn the_threshold_defaults_to_booksims_and_is_kept_only_where_it_applies() {
    let read = |alg: &str| dragonfly(SHAPES[0], alg, "").routing.ugal_threshold;
    assert_eq!(read("ugal_l"), Some(30));
    assert_eq!(read("par"), Some(30));
    assert_eq!(read("valiant"), None);
}

/// The most flits per cycle any global channel carries under `cfg` when every node injects one
/// flit per cycle, over the walked routes.
fn busiest_global_channel(cfg: &Spec) -> f64 {
    let (topology, routing, pattern) = common::network(cfg);
    let Layout::Dragonfly(fly) = topology.layout() else {
        panic!("a dragonfly")
    };
    let loads = tailback_core::analysis::port_loads(&topology, &routing, &pattern);
    topology
        .ports()
        .iter()
        .zip(loads)
        .filter(|(port, _)| {
            matches!(port.output, Link::Router(_))
                && u32::from(port.local) >= fly.first_global_port()
        })
        .map(|(_, load)| load)
        .fold(0.0, f64::max)
}

#[test]
fn the_closed_form_bounds_of_the_global_channels_are_exact() {
    // One link per pair of groups, the palm tree, fewer groups (parallel links), uneven ones.
    for shape in [
        "p = 2\na = 4\nh = 2",
        "p = 1\na = 3\nh = 2\narrangement = \"palmtree\"",
        "p = 2\na = 4\nh = 2\ngroups = 5",
        "p = 1\na = 4\nh = 3\ngroups = 6\narrangement = \"random\"",
    ] {
        for (pattern, include_self) in [
            ("uniform", false),
            ("uniform", true),
            ("group_shift", false),
        ] {
            let self_line = if pattern == "uniform" {
                format!("include_self = {include_self}\n")
            } else {
                String::new()
            };
            let traffic = format!("[traffic]\npattern = \"{pattern}\"\n{self_line}");
            let min = dragonfly(shape, "min", &traffic);
            let forms = tailback_core::analysis::closed_forms(
                &Topology::from_config(&min),
                min.traffic.pattern,
                include_self,
            );
            for (form, algorithm) in forms.iter().zip(["min", "valiant"]) {
                let walked = 1.0 / busiest_global_channel(&dragonfly(shape, algorithm, &traffic));
                assert!(
                    (form.value - walked).abs() < 1e-9 * walked,
                    "{shape}, {pattern} (self {include_self}), {algorithm}: closed form {} ({}) \
                     against walked {walked}",
                    form.value,
                    form.formula
                );
            }
            assert_eq!(forms.len(), 2);
        }
    }
}

/// A 4×4 HyperX with 4 nodes per switch (and a trunked variant), routed by `algorithm` over 4
/// VCs of 64 flits, under `pattern` at `rate`.
fn hyperx(trunking: &str, algorithm: &str, pattern: &str, rate: f64) -> Spec {
    config(&format!(
        "[topology]\nkind = \"hyperx\"\ndims = [4, 4]\nterminals = 4\n{trunking}\n\
         [routing]\nalgorithm = \"{algorithm}\"\n[router]\nvcs = 4\nvc_buffer_flits = 64\n\
         [traffic]\npattern = \"{pattern}\"\npacket_flits = 4\nrate = {rate}\n\
         [sim]\nwarmup_cycles = 2000\nmeasure_cycles = 3000\n"
    ))
}

#[test]
fn hyperx_detours_are_deadlock_free_pass_a_uniformly_drawn_switch_and_lose_nothing() {
    for trunking in ["", "trunking = [2, 1]"] {
        for algorithm in ["valiant", "ugal_l"] {
            let cfg = hyperx(trunking, algorithm, "uniform", 0.0);
            let (topology, routing, _) = common::network(&cfg);
            assert!(
                is_deadlock_free(&topology, &routing),
                "{algorithm} {trunking}"
            );
            let Layout::HyperX(x) = topology.layout() else {
                panic!("a HyperX")
            };
            // From switch 0 to switch 5: every other switch is the intermediate with
            // probability 1/14, the route passing it.
            let (src, dst) = (0, 5 * 4);
            let mut through = vec![0.0; x.switches()];
            routing.draws_between(node(src), node(dst), |draw, p| {
                let mut visited = vec![false; x.switches()];
                routing.walk_deciding(
                    &topology,
                    node(src),
                    node(dst),
                    draw,
                    &mut Scripted(0),
                    |port, _| {
                        visited[topology.ports()[port.index()].router.index()] = true;
                        true
                    },
                );
                for (s, &v) in visited.iter().enumerate() {
                    if v {
                        through[s] += p;
                    }
                }
            });
            for (s, &p) in through
                .iter()
                .enumerate()
                .filter(|&(s, _)| s != 0 && s != 5)
            {
                assert!(
                    p >= 1.0 / 14.0 - 1e-12,
                    "{algorithm}: switch {s} passed with {p}"
                );
            }
            let all = checked_config(&format!(
                "[topology]\nkind = \"hyperx\"\ndims = [3, 3]\nterminals = 2\n{trunking}\n\
                 [routing]\nalgorithm = \"{algorithm}\"\n[router]\nvcs = 2\nvc_buffer_flits = 4\n\
                 [traffic]\nrate = 0.0\n"
            ));
            assert_eq!(
                all_to_all(&all, 3, 200_000),
                18 * 17 * 3,
                "{algorithm} {trunking}"
            );
        }
    }
}

#[test]
fn on_the_hyperx_shift_detours_carry_what_dimension_order_cannot() {
    // Dimension order: a switch's 4 nodes share one link, λ ≤ 1/4.
    let run = |algorithm| {
        Simulation::new(&hyperx("", algorithm, "hyperx_shift", 0.4))
            .unwrap()
            .run()
            .summary
    };
    let dor = run("dor");
    assert!(dor.accepted <= 0.25 + 0.005, "DOR carried {}", dor.accepted);
    for algorithm in ["valiant", "ugal_l"] {
        let s = run(algorithm);
        assert_eq!(s.packets_measured, dor.packets_measured);
        assert!(s.accepted > 0.3, "{algorithm} carried {}", s.accepted);
    }
    let low = Simulation::new(&hyperx("", "ugal_l", "uniform", 0.1))
        .unwrap()
        .run()
        .summary;
    assert!(
        low.detoured.unwrap() < 0.05,
        "UGAL-L detoured {:?}",
        low.detoured
    );
}

#[test]
fn channel_utilisation_by_class_accounts_for_every_flit_hop() {
    // 72 nodes on 36 routers of 3 local and 2 global ports: the terminal channels carry what
    // is accepted, and the local and global channels between them every hop of it.
    for algorithm in ["min", "valiant"] {
        let s = run(algorithm, "uniform", 0.2, 4);
        let u = &s.utilisation;
        assert!(
            (u["terminal"] - s.accepted).abs() < 0.01 * s.accepted,
            "{u:?}"
        );
        let hops_per_cycle = s.accepted * 72.0 * s.hops.mean.unwrap();
        let busy = u["local"] * 108.0 + u["global"] * 72.0;
        assert!(
            (busy - hops_per_cycle).abs() < 0.02 * hops_per_cycle,
            "{algorithm}: {busy} channel-cycles busy against {hops_per_cycle} flit hops"
        );
    }
    // A torus has one class between routers.
    let torus = Simulation::new(&config("[traffic]\nrate = 0.2\n"))
        .unwrap()
        .run()
        .summary;
    let classes: Vec<&str> = torus.utilisation.keys().map(String::as_str).collect();
    assert_eq!(classes, ["router", "terminal"]);
}

/// Queues for DAL's choices: `busy` ports hold `flits`, the others nothing; UGAL's rule with
/// no threshold weighs the minimal hop against the deroute.
struct Queues {
    busy: u64,
    flits: u32,
    first: usize,
}

impl Decide for Queues {
    fn stay_minimal(&mut self, minimal: PortId, detour: PortId) -> bool {
        let (m, d) = (self.queue(minimal), self.queue(detour));
        tailback_core::routing::ugal_stays_minimal(m, d, 0)
    }

    fn queue(&mut self, port: PortId) -> u32 {
        let local = port.index() - self.first;
        if self.busy & 1 << local != 0 {
            self.flits
        } else {
            0
        }
    }
}

/// A HyperX of `shape` routed by DAL with UGAL's threshold `threshold` over 8 VCs of 32
/// flits, with `rest` appended.
fn dal(shape: &str, threshold: u32, rest: &str) -> Spec {
    config(&format!(
        "[topology]\nkind = \"hyperx\"\n{shape}\n[routing]\nalgorithm = \"dal\"\n\
         ugal_threshold = {threshold}\n[router]\nvcs = 8\nvc_buffer_flits = 32\n{rest}"
    ))
}

#[test]
fn dal_corrects_each_dimension_directly_or_through_one_other_coordinate() {
    for shape in ["dims = [4, 3, 3]", "dims = [4, 3]\ntrunking = [2, 1]"] {
        let cfg = dal(shape, 30, "");
        let (topology, routing, _) = common::network(&cfg);
        assert!(is_deadlock_free(&topology, &routing), "{shape}");
        let Layout::HyperX(x) = topology.layout() else {
            panic!("a HyperX")
        };
        let (grid, t) = (x.grid(), x.terminals() as usize);
        let dims = x.dims().len();
        let differing =
            |a: usize, b: usize| (0..dims).filter(move |&d| grid.coord(a, d) != grid.coord(b, d));
        for (s, target) in (0..x.switches()).flat_map(|s| (0..x.switches()).map(move |d| (s, d))) {
            let (src, dst) = (node(s * t), node(target * t));
            routing.draws_between(src, dst, |draw, _| {
                // Every route, walked through every choice: (switch, class of the last hop).
                let mut stack = vec![(RouterId::new(s), 0u8, 0u32)];
                let mut routes = 0;
                while let Some((at, class, hops)) = stack.pop() {
                    let head = Head {
                        class,
                        ..Head::new(src, dst, draw)
                    };
                    let (ports, next_class) = routing.choices(at, &head).unwrap();
                    let r = at.index();
                    assert!(r == target || u32::from(next_class) == hops, "{shape}");
                    if r == target {
                        assert_eq!(ports, 0);
                        routes += 1;
                        continue;
                    }
                    // Each unaligned dimension offers its minimal hop, and its deroutes while
                    // the route has not left the source's coordinate there.
                    let expected: u32 = differing(r, target)
                        .map(|d| {
                            let fresh = grid.coord(r, d) == grid.coord(s, d);
                            1 + if fresh { x.dims()[d] - 2 } else { 0 }
                        })
                        .sum();
                    assert_eq!(
                        ports.count_ones(),
                        expected,
                        "{shape}: {s}->{target} at {r}"
                    );
                    for local in (0..64).filter(|&l| ports & 1 << l != 0) {
                        let port = topology.router_ports(at).start + local;
                        let Link::Router(peer) = topology.ports()[port].output else {
                            panic!("an onward port")
                        };
                        let next = topology.ports()[peer.index()].router.index();
                        let moved: Vec<usize> = differing(r, next).collect();
                        let d = moved[0];
                        assert_eq!(moved.len(), 1);
                        assert_ne!(grid.coord(r, d), grid.coord(target, d));
                        if grid.coord(next, d) != grid.coord(target, d) {
                            assert_eq!(grid.coord(r, d), grid.coord(s, d), "a second deroute");
                        }
                        stack.push((RouterId::new(next), next_class, hops + 1));
                    }
                    assert!(hops < 2 * dims as u32);
                }
                assert!(routes > 0);
            });
        }
    }
}

#[test]
fn dal_takes_the_least_queued_minimal_hop_and_deroutes_only_when_ugal_prefers_it() {
    let cfg = dal("dims = [4, 4]\nterminals = 2", 30, "");
    let (topology, routing, _) = common::network(&cfg);
    let Layout::HyperX(x) = topology.layout() else {
        panic!("a HyperX")
    };
    // From switch (0, 0) to switch (1, 1): minimal hops towards (1, 0) and (0, 1).
    let (s, target) = (0, 5);
    let head = Head::new(node(0), node(target * 2), 0);
    let first = topology.router_ports(RouterId::new(s)).start;
    let to_x = x.port_towards(0, 0, 1);
    let to_y = x.port_towards(1, 0, 1);
    let hop = |busy: u64, flits: u32| {
        let mut queues = Queues { busy, flits, first };
        routing.route(RouterId::new(s), &head, &mut queues)
    };
    // Empty queues: dimension order, minimal.
    let quiet = hop(0, 0);
    assert_eq!(
        (u32::from(quiet.escape.port), quiet.detoured),
        (to_x, false)
    );
    // Dimension 0 queued: the other minimal hop.
    let other = hop(1 << to_x, 10);
    assert_eq!(
        (u32::from(other.escape.port), other.detoured),
        (to_y, false)
    );
    // Both minimal hops queued: a deroute, to a coordinate neither 0 nor 1 in either dimension.
    let deroute = hop(1 << to_x | 1 << to_y, 10);
    assert!(deroute.detoured);
    let port = first + deroute.escape.port as usize;
    let Link::Router(peer) = topology.ports()[port].output else {
        panic!("an onward port")
    };
    let next = topology.ports()[peer.index()].router.index();
    let coords = (x.grid().coord(next, 0), x.grid().coord(next, 1));
    assert!(
        matches!(coords, (2 | 3, 0) | (0, 2 | 3)),
        "derouted to {coords:?}"
    );
    assert_eq!(deroute.escape.class, 0);
}

#[test]
fn dal_delivers_everything_and_carries_the_hyperx_shift() {
    for trunking in ["", "trunking = [2, 1]"] {
        let all = dal(
            &format!("dims = [3, 3]\nterminals = 2\n{trunking}"),
            0,
            "[traffic]\nrate = 0.0\n",
        )
        .edited(|c| c.sim.check_invariants = true)
        .unwrap();
        assert_eq!(all_to_all(&all, 3, 200_000), 18 * 17 * 3, "{trunking}");
    }
    // Dimension order is limited to 1/4 here; DAL's deroutes in dimension 0 carry the rest
    // (rule fixed before the run: over 0.33 of the 0.4 offered).
    let shift = dal(
        "dims = [4, 4]\nterminals = 4",
        0,
        "[traffic]\npattern = \"hyperx_shift\"\npacket_flits = 4\n\
         rate = 0.4\n[sim]\nwarmup_cycles = 2000\nmeasure_cycles = 3000\n",
    );
    let s = Simulation::new(&shift).unwrap().run().summary;
    assert!(s.accepted > 0.33, "DAL carried {}", s.accepted);
    assert!(s.detoured.unwrap() > 0.2, "{:?}", s.detoured);
    // At low uniform load every queue is nearly empty: DAL stays minimal.
    let low = dal(
        "dims = [4, 4]\nterminals = 4",
        30,
        "[traffic]\nrate = 0.1\npacket_flits = 4\n[sim]\nwarmup_cycles = 1000\n\
         measure_cycles = 2000\n",
    );
    let s = Simulation::new(&low).unwrap().run().summary;
    assert!(s.detoured.unwrap() < 0.01, "{:?}", s.detoured);
}
