//! Request and reply networks sharing the links: replies have their own VCs and NIC queue, so
//! a congested request network does not hold them up; strict time multiplexing gives each
//! network every other cycle.

mod common;

use common::{checked_config, config, node};
use tailback_core::config::ConfigError;
use tailback_core::hooks::{CongestionControl, Context};
use tailback_core::ids::NodeId;
use tailback_core::packet::{LogicalNetwork, Packet};
use tailback_core::sim::{OfferError, Simulation};
use tailback_core::spec::Spec;

/// Records when packets from `watched` are delivered, with their network.
struct Watch {
    watched: usize,
    delivered: Vec<(LogicalNetwork, u64, u64)>,
}

impl CongestionControl for Watch {
    fn on_delivered(&mut self, cx: &mut Context<'_>, _node: NodeId, packet: &Packet) {
        let now = cx.now;
        if packet.src as usize == self.watched && !packet.measured {
            self.delivered.push((packet.network, packet.created, now));
        }
    }
}

#[test]
fn replies_pass_a_jammed_request_network() {
    // Every node offers requests at full rate: request VCs and source queues fill up. Node 0
    // then sends one request and one reply to node 10; a reply unloaded takes 20-odd cycles.
    let cfg = checked_config(
        "[topology]\nk = 4\nn = 2\n[router]\nvcs = 4\nlogical_networks = 2\n\
         [traffic]\nrate = 1.0\n[sim]\nwarmup_cycles = 100000\nmeasure_cycles = 1\n",
    );
    let mut sim = Simulation::with_control(
        &cfg,
        Watch {
            watched: 0,
            delivered: Vec::new(),
        },
    )
    .unwrap();
    sim.run_until(3_000);
    sim.offer_on(LogicalNetwork::Request, node(0), node(10), 4)
        .unwrap();
    sim.offer_on(LogicalNetwork::Reply, node(0), node(10), 4)
        .unwrap();
    sim.run_until(6_000);
    let latency = |network| {
        sim.control()
            .delivered
            .iter()
            .find(|(n, created, _)| *n == network && *created == 3_000)
            .map(|(_, created, at)| at - created)
    };
    // The reply shares link bandwidth with requests but none of their buffers.
    let reply = latency(LogicalNetwork::Reply).expect("the reply is delivered");
    assert!(reply < 80, "reply took {reply} cycles");
    // The request waits behind node 0's queue.
    assert!(
        latency(LogicalNetwork::Request).is_none_or(|r| r > 10 * reply),
        "request {:?}, reply {reply}",
        latency(LogicalNetwork::Request)
    );
}

#[test]
fn time_multiplexing_gives_each_network_every_other_cycle() {
    // Requests only: with demand multiplexing they may use every cycle; time-multiplexed, a
    // node's channels carry requests in even cycles only, so no node gets more than half a flit
    // per cycle through (bit complement: each node receives from one source). A head routed at
    // the next router often misses its even cycle: 8 flits every 18 cycles (0.444) measured.
    const WINDOW: f64 = 6000.0;
    let run = |multiplexing: &str| {
        let cfg = config(&format!(
            "[topology]\nk = 4\nn = 2\n[router]\nvcs = 4\nlogical_networks = 2\n\
             multiplexing = \"{multiplexing}\"\n\
             [traffic]\npattern = \"bit_complement\"\nrate = 0.9\n\
             [sim]\nwarmup_cycles = 2000\nmeasure_cycles = {WINDOW}\ndrain_cycles_max = 0\n"
        ));
        tailback_core::run(&cfg).unwrap().summary.accepted_per_node
    };
    let shared = run("time");
    assert!(shared.max <= 0.5 + 2.0 / WINDOW, "{shared:?}");
    assert!(shared.min > 0.4, "{shared:?}");
    let demand = run("demand");
    assert!(demand.min > 0.6, "{demand:?}");
}

#[test]
fn both_networks_deliver_everything_with_invariants_checked() {
    for multiplexing in ["demand", "time"] {
        let cfg = checked_config(&format!(
            "[topology]\nk = 4\nn = 2\n[router]\nvcs = 4\nlogical_networks = 2\n\
             multiplexing = \"{multiplexing}\"\n[traffic]\nrate = 0.0\n"
        ));
        let mut sim = Simulation::new(&cfg).unwrap();
        for src in 0..16 {
            for dst in (0..16).filter(|&d| d != src) {
                let network = if (src + dst) % 2 == 0 {
                    LogicalNetwork::Request
                } else {
                    LogicalNetwork::Reply
                };
                sim.offer_on(network, node(src), node(dst), 5).unwrap();
            }
        }
        common::drive_until_idle(&mut sim, 50_000);
        assert_eq!(
            sim.progress().delivered_flits,
            16 * 15 * 5,
            "{multiplexing}"
        );
    }
}

fn issues(text: &str) -> Vec<(String, String)> {
    match Spec::from_toml_str(text, "<test>") {
        Err(ConfigError::Invalid(issues)) => {
            issues.into_iter().map(|i| (i.path, i.message)).collect()
        }
        other => panic!("expected problems, got {other:?}"),
    }
}

#[test]
fn logical_networks_need_their_own_vcs() {
    let odd = issues("[router]\nvcs = 3\nlogical_networks = 2\n");
    assert!(
        odd.iter()
            .any(|(p, m)| p == "router.vcs" && m.contains("split evenly")),
        "{odd:?}"
    );
    // DOR on a torus needs two classes, so two networks need four VCs.
    let few = issues("[router]\nvcs = 2\nlogical_networks = 2\n");
    assert!(
        few.iter()
            .any(|(p, m)| p == "router.vcs" && m.contains("at least 4") && m.contains("2 logical")),
        "{few:?}"
    );
    let lone = issues("[router]\nmultiplexing = \"time\"\n");
    assert!(
        lone.iter().any(|(p, _)| p == "router.multiplexing"),
        "{lone:?}"
    );
    let disha =
        issues("[router]\nvcs = 4\nlogical_networks = 2\n[routing]\nalgorithm = \"disha\"\n");
    assert!(
        disha.iter().any(|(p, _)| p == "router.logical_networks"),
        "{disha:?}"
    );
    let cfg = config("[router]\nvcs = 4\n");
    let mut sim = Simulation::new(&cfg).unwrap();
    assert_eq!(
        sim.offer_on(LogicalNetwork::Reply, node(0), node(1), 2),
        Err(OfferError::NoReplyNetwork)
    );
}
