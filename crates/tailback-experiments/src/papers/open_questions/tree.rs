//! `ar-congestion-tree`: chapter 2.3 of Gran's thesis (Figs. 2.7 and 2.8, which are drawings)
//! measured. Twelve hosts send continuously to one hot host; with deterministic routing the
//! congestion tree's root is the port of the root switch that represents the destination, and
//! with adaptive up-routing "the root of the congestion tree will be moved ... to the last
//! downstream switch prior to the destination node" and the tree is "dramatically widened", so
//! that "the amount of potential HoL blocking in the network has increased correspondingly".
//!
//! The placement is ours, drawn per seed: the hot host anywhere; each contributor on its own
//! leaf switch outside the hot host's subtree below the top level (the figures' "we do not
//! need to consider the case where the source and the destination nodes reside inside the same
//! subsection"); a victim flow from another host outside that subtree to a neighbour of the
//! hot host on its leaf, where adaptive routing moves the root. The tree is read from the Port
//! VLs' occupancy over the second half of the window (congested: at least half an input pool
//! queued for it at every sample); its root is the congested down port nearest the hosts.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::RngExt;
use rand::seq::{IndexedRandom, SliceRandom};
use tailback_core::rng::{self, Purpose};
use tailback_core::stats::RunReport;
use tailback_core::topology::TreeShape;

use super::super::infiniband_cc::report;
use crate::claim::{Claim, Claims, Findings, Ours, Paper, Rule, Source, Tolerance};
use crate::error::Error;
use crate::grid::Grid;
use crate::{Context, Job, Result};

/// Where the thesis argues it.
const CH_2_3: Source = Source::new(Paper::GranThesis, "Ch. 2.3, Figs. 2.7 and 2.8");

/// A tree the experiment runs on.
struct Tree {
    /// Its id in the grid and in run names.
    id: &'static str,
    /// Its name in tables.
    name: &'static str,
    /// Its shape.
    shape: fn() -> TreeShape,
    /// Its topology settings.
    settings: &'static [&'static str],
}

/// The trees a grid may name: the 4-ary 3-tree of the thesis's drawings and the 648-node tree of
/// Paper IV.
const TREES: [Tree; 2] = [
    Tree {
        id: "k4n3",
        name: "4-ary 3-tree",
        shape: || TreeShape::kary_ntree(4, 3),
        settings: &[
            "topology.kind=\"kary_ntree\"",
            "topology.k=4",
            "topology.n=3",
        ],
    },
    Tree {
        id: "clos648",
        name: "648-node tree",
        shape: || TreeShape::folded_clos(36, 2),
        settings: &[
            "topology.kind=\"folded_clos\"",
            "topology.radix=36",
            "topology.levels=2",
        ],
    },
];

/// The routings compared: (id, name, algorithm).
const ROUTINGS: [(&str, &str, &str); 2] = [
    ("deterministic", "deterministic (d_mod_k)", "d_mod_k"),
    ("adaptive", "adaptive up-routing", "adaptive_up"),
];

/// The trees of the grid.
fn trees(grid: &Grid) -> Result<Vec<&'static Tree>> {
    grid.pick("trees", &TREES, |t| t.id)
}

/// Who sends where in one seed's run.
#[derive(Debug, Clone, PartialEq)]
struct Placement {
    hot: usize,
    contributors: Vec<usize>,
    /// The victim flow's source and destination.
    victim: (usize, usize),
}

impl Placement {
    /// Draws the placement of `contributors` hosts on `shape` from `seed`.
    fn draw(shape: &TreeShape, contributors: usize, seed: u64) -> Result<Placement> {
        let mut rng = rng::stream(seed, 0, Purpose::Pattern);
        let nodes = shape.nodes();
        let per_leaf = shape.down(0) as usize;
        let top = shape.levels() - 1;
        let hot = rng.random_range(0..nodes);
        let apart = |n: usize| shape.common_level(n, hot) == top;
        let mut leaves: Vec<usize> = (0..nodes / per_leaf)
            .filter(|&leaf| apart(leaf * per_leaf))
            .collect();
        if leaves.len() < contributors {
            return Err(Error::Input(format!(
                "contributors: {contributors} needs as many leaf switches apart from the hot \
                 host; this tree has {}",
                leaves.len()
            )));
        }
        leaves.shuffle(&mut rng);
        let contributors: Vec<usize> = leaves[..contributors]
            .iter()
            .map(|leaf| leaf * per_leaf + rng.random_range(0..per_leaf))
            .collect();
        let others: Vec<usize> = (0..nodes)
            .filter(|&n| apart(n) && !contributors.contains(&n))
            .collect();
        let leaf = hot / per_leaf * per_leaf;
        let neighbours: Vec<usize> = (leaf..leaf + per_leaf).filter(|&n| n != hot).collect();
        let (Some(&src), Some(&dst)) = (others.choose(&mut rng), neighbours.choose(&mut rng))
        else {
            return Err(Error::Input(
                "the tree leaves no room for the victim flow".into(),
            ));
        };
        Ok(Placement {
            hot,
            contributors,
            victim: (src, dst),
        })
    }

    /// The flows, as a `traffic.flows` value.
    fn flows(&self) -> String {
        let flows: Vec<String> = self
            .contributors
            .iter()
            .map(|&src| (src, self.hot))
            .chain([self.victim])
            .map(|(src, dst)| format!("{{ src = {src}, dst = {dst} }}"))
            .collect();
        format!("[{}]", flows.join(", "))
    }
}

/// The run of `routing` on `tree` with `seed`'s placement.
fn run_id(tree: &str, routing: &str, seed: u64) -> String {
    format!("{tree}|{routing}|{seed}")
}

/// A run per tree, seed and routing; both routings of a seed share its placement.
pub(super) fn jobs(grid: &Grid) -> Result<Vec<Job>> {
    let contributors: usize = grid.param("contributors")?;
    let (warmup, measure): (f64, f64) = (grid.param("warmup_us")?, grid.param("measure_us")?);
    let mut jobs = Vec::new();
    for tree in trees(grid)? {
        for seed in grid.param::<Vec<u64>>("seeds")? {
            let placement = Placement::draw(&(tree.shape)(), contributors, seed)?;
            for (routing, _, algorithm) in ROUTINGS {
                let mut settings: Vec<String> =
                    tree.settings.iter().map(|s| s.to_string()).collect();
                settings.extend([
                    format!("routing.algorithm=\"{algorithm}\""),
                    format!("traffic.flows={}", placement.flows()),
                    format!("sim.warmup_us={warmup}"),
                    format!("sim.measure_us={measure}"),
                    format!("seed={seed}"),
                ]);
                jobs.push(grid.job(run_id(tree.id, routing, seed), &settings)?);
            }
        }
    }
    Ok(jobs)
}

/// What chapter 2.3 states, per tree: the root's level under each routing, the tree's width
/// and the victim's throughput, each against the other routing on the same placements.
pub(super) fn claims(grid: &Grid) -> Result<Claims> {
    let mut claims = Claims::default();
    for tree in trees(grid)? {
        let (id, name) = (tree.id, tree.name);
        let top = (tree.shape)().levels() - 1;
        // The root's level, a mean over seeds: within 0.4 of a level when most seeds put it
        // there; the other routing's level contradicts it.
        let level = |routing: &str, rule: Rule, stated: &str| {
            Claim::new(
                format!("{id}-{routing}-root"),
                format!(
                    "{name}, {routing} routing: the level of the congestion tree's root (0: the \
                     last switch before the hot host; {top}: the root switches)"
                ),
                CH_2_3,
                rule,
            )
            .shown(1, "")
            .stated(stated.to_string())
        };
        claims
            .claim(level(
                "deterministic",
                Rule::Near {
                    value: top as f64,
                    tolerance: Tolerance::Absolute(0.4),
                },
                "the root at the root switch the destination's traffic is routed through",
            ))
            .claim(level(
                "adaptive",
                Rule::Zero {
                    within: 0.4,
                    failing: top as f64,
                },
                "the root moved to the last downstream switch prior to the destination node",
            ))
            .claim(
                Claim::new(
                    format!("{id}-wider"),
                    format!("{name}: congested Port VLs, adaptive against deterministic"),
                    CH_2_3,
                    Rule::Order {
                        higher: "adaptive",
                        lower: "deterministic",
                    },
                )
                .shown(1, "")
                .stated(
                    "the adaptive routing algorithm has dramatically widened the congestion tree",
                ),
            )
            .claim(
                Claim::new(
                    format!("{id}-victim"),
                    format!(
                        "{name}: the victim beside the hot host (share of its link), \
                         deterministic against adaptive"
                    ),
                    CH_2_3,
                    Rule::Order {
                        higher: "deterministic",
                        lower: "adaptive",
                    },
                )
                .shown(2, "")
                .stated(
                    "the amount of potential HoL blocking in the network has increased \
                     correspondingly (no victim is drawn; ours sends to the hot host's neighbour)",
                ),
            );
    }
    Ok(claims)
}

/// What one run shows of the tree.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// The lowest level of a congested down port (NaN: none).
    root: f64,
    /// Congested Port VLs.
    width: f64,
    /// Blocks queued in the whole network, in input pools (mean over the samples).
    held: f64,
    /// The hot host's received rate, a share of its link.
    hot: f64,
    /// The victim's throughput, a share of its link.
    victim: f64,
}

impl Reading {
    fn of(report: &RunReport, shape: &TreeShape, placement: &Placement) -> Reading {
        let down = |switch: u32, port: u8| {
            let (level, _) = shape.locate(switch as usize);
            (u32::from(port) < shape.down(level)).then_some(level)
        };
        let root = report
            .congested_port_vls
            .iter()
            .filter_map(|p| down(p.switch, p.port))
            .min()
            .map_or(f64::NAN, |l| l as f64);
        let held = report
            .port_vl_map
            .as_ref()
            .map_or(0.0, |m| m.loads.iter().map(|l| l.queued).sum());
        let rate = |pick: &dyn Fn(usize, usize) -> bool| -> f64 {
            report
                .flows
                .iter()
                .filter(|f| pick(f.src as usize, f.dst as usize))
                .map(|f| f.accepted)
                .sum()
        };
        Reading {
            root,
            width: report.congested_port_vls.len() as f64,
            held,
            hot: rate(&|_, dst| dst == placement.hot),
            victim: rate(&|src, dst| (src, dst) == placement.victim),
        }
    }
}

/// Runs every tree and routing on every seed's placement; tabulates the root, the width, the
/// buffer held and the rates, draws the Port VL maps of the first seed, and measures the
/// claims per seed.
pub(super) fn run(ctx: &Context, grid: &Grid, jobs: &[Job]) -> Result<Findings> {
    let seeds: Vec<u64> = grid.param("seeds")?;
    let contributors: usize = grid.param("contributors")?;
    let reports = ctx.run(jobs)?;
    let mut found = Findings::default();
    let mut text = format!(
        "{contributors} hosts to one, a victim beside the hot host; mean (per seed) of {} \
         seeds\n",
        seeds.len()
    );
    for tree in trees(grid)? {
        let shape = (tree.shape)();
        let mut readings: BTreeMap<&str, Vec<Reading>> = BTreeMap::new();
        for &seed in &seeds {
            let placement = Placement::draw(&shape, contributors, seed)?;
            for (routing, name, _) in ROUTINGS {
                let run = report(&reports, &run_id(tree.id, routing, seed))?;
                readings
                    .entry(routing)
                    .or_default()
                    .push(Reading::of(run, &shape, &placement));
                if seed == seeds[0] {
                    found.files.extend(map(ctx, tree, routing, name, run)?);
                }
            }
        }
        text.push_str(&table(tree, &readings));
        let (fixed, adaptive) = (&readings["deterministic"], &readings["adaptive"]);
        let per_seed = |f: fn(&Reading) -> f64, rs: &[Reading]| rs.iter().map(f).collect();
        let paired = |f: fn(&Reading) -> f64, higher: &[Reading], lower: &[Reading]| {
            Ours::Paired(higher.iter().map(f).zip(lower.iter().map(f)).collect())
        };
        let id = tree.id;
        found
            .set(
                format!("{id}-deterministic-root"),
                Ours::Seeds(per_seed(|r| r.root, fixed)),
            )
            .set(
                format!("{id}-adaptive-root"),
                Ours::Seeds(per_seed(|r| r.root, adaptive)),
            )
            .set(format!("{id}-wider"), paired(|r| r.width, adaptive, fixed))
            .set(
                format!("{id}-victim"),
                paired(|r| r.victim, fixed, adaptive),
            )
            .info(
                format!("{}: input pools' worth of blocks the tree holds", tree.name),
                "-",
                format!(
                    "deterministic {:.1}, adaptive {:.1}",
                    mean(fixed, |r| r.held),
                    mean(adaptive, |r| r.held)
                ),
            );
    }
    print!("{text}");
    let path = ctx.write_text("trees.txt", &text)?;
    found.files.push(path);
    Ok(found)
}

/// The tree's rows of the table: per routing, each reading's mean and per-seed values.
fn table(tree: &Tree, readings: &BTreeMap<&str, Vec<Reading>>) -> String {
    let mut text = format!(
        "\n{}\n{:<26}{:>12}{:>16}{:>14}{:>12}{:>12}\n",
        tree.name, "routing", "root level", "congested VLs", "pools held", "hot host", "victim"
    );
    for (routing, name, _) in ROUTINGS {
        let rs = &readings[routing];
        let cell = |f: fn(&Reading) -> f64, digits: usize| format!("{:.digits$}", mean(rs, f));
        text.push_str(&format!(
            "{name:<26}{:>12}{:>16}{:>14}{:>12}{:>12}\n",
            cell(|r| r.root, 1),
            cell(|r| r.width, 1),
            cell(|r| r.held, 1),
            cell(|r| r.hot, 3),
            cell(|r| r.victim, 3),
        ));
        let seeds: Vec<String> = rs
            .iter()
            .map(|r| format!("{}/{}/{:.2}", r.root, r.width, r.victim))
            .collect();
        text.push_str(&format!(
            "  per seed (root/congested/victim): {}\n",
            seeds.join("  ")
        ));
    }
    text
}

/// The mean of `f` over `readings`.
fn mean(readings: &[Reading], f: fn(&Reading) -> f64) -> f64 {
    readings.iter().map(f).sum::<f64>() / readings.len().max(1) as f64
}

/// The Port VL map of one run: `<tree>-<routing>-port_vl_map.*`.
fn map(
    ctx: &Context,
    tree: &Tree,
    routing: &str,
    name: &str,
    run: &RunReport,
) -> Result<Vec<PathBuf>> {
    let Some(map) = &run.port_vl_map else {
        return Ok(Vec::new());
    };
    Ok(crate::files::port_vls::write_map(
        ctx.out(),
        &format!("{}-{routing}-", tree.id),
        &format!("{}, {name}", tree.name),
        map,
    )?)
}
