//! The dragonfly workload of `ar-ibcc` and `ar-isolation` (ours): on the grid's dragonfly
//! (`dragonfly.toml`), every node sends to the next group at a multiple of what minimal routing
//! carries per node there, and from `hot_start_us` a share of the nodes (`contributors`) also
//! send at full rate to `hot_spots` hot spots, both drawn from the seed, so that every cell of
//! a seed sees the same offered traffic.

use rand::seq::SliceRandom;
use tailback_core::rng::{self, Purpose};
use tailback_core::spec::Spec;
use tailback_core::topology::{DragonflyShape, Layout};

use crate::error::Error;
use crate::grid::Grid;
use crate::{Job, Result};

/// The workload at one load of the grid's `dragonfly_loads`.
pub(super) struct Study {
    /// `dragonfly-{load}`, and its name in tables.
    pub(super) id: String,
    pub(super) name: String,
    /// A multiple above 0 of minimal routing's group-shift bound.
    pub(super) load: f64,
}

/// The grid's studies, one per load of its `dragonfly_loads`.
pub(super) fn studies(grid: &Grid) -> Result<Vec<Study>> {
    let hot_spots: usize = grid.param("hot_spots")?;
    grid.param::<Vec<f64>>("dragonfly_loads")?
        .into_iter()
        .map(|load| {
            if !(load > 0.0 && load.is_finite()) {
                return Err(Error::Input(format!(
                    "dragonfly_loads: {load} is not a load (a multiple above 0 of minimal \
                     routing's group-shift bound)"
                )));
            }
            Ok(Study {
                id: format!("dragonfly-{load}"),
                name: format!(
                    "dragonfly, group shift at {load} x MIN's bound, {hot_spots} hot spots"
                ),
                load,
            })
        })
        .collect()
}

/// The grid's base network, read with one flow (which makes it a valid configuration).
fn base(grid: &Grid) -> Result<Spec> {
    let probe = [
        "traffic.process=\"flows\"".to_string(),
        "traffic.flows=[{ src = 0, dst = 1 }]".to_string(),
    ];
    Ok(grid.job(String::new(), &probe)?.config)
}

/// The grid's dragonfly: its shape, and the rate of its links (Gbit/s).
fn shape(grid: &Grid) -> Result<(DragonflyShape, f64)> {
    let base = base(grid)?;
    let (Layout::Dragonfly(fly), Some(units)) = (&base.topology.layout, base.fabric.units()) else {
        return Err(Error::Input(
            "the experiment's base is not a dragonfly of buffered switches with `fabric.link`"
                .into(),
        ));
    };
    Ok((fly.clone(), units.link_gbps))
}

/// Blocks of one lane's input pool on the grid's dragonfly.
pub(super) fn pool_blocks(grid: &Grid) -> Result<u32> {
    Ok(base(grid)?.router.vc_buffer_flits)
}

/// What minimal routing carries per node under the group shift on `fly` with links of
/// `link_gbps`: the global links from one group to the next, shared by the group's nodes.
fn minimal_bound(fly: &DragonflyShape, link_gbps: f64) -> f64 {
    let links = (fly.a() * fly.h() / (fly.groups() - 1)).max(1);
    link_gbps * f64::from(links) / f64::from(fly.p() * fly.a())
}

/// Who sends where on the dragonfly in one seed's runs.
struct Hotspots {
    /// Nodes per group and groups.
    group: usize,
    groups: usize,
    /// The hot spots, and the contributors: each sends to hot spot `i mod hot.len()`.
    hot: Vec<usize>,
    contributors: Vec<usize>,
}

impl Hotspots {
    /// Draws the grid's `hot_spots` hot spots and its `contributors` share of the other nodes
    /// on `fly`, from `seed`.
    fn draw(grid: &Grid, fly: &DragonflyShape, seed: u64) -> Result<Hotspots> {
        let (count, share): (usize, f64) = (grid.param("hot_spots")?, grid.param("contributors")?);
        let nodes = fly.nodes();
        let contributors = (share * nodes as f64).round() as usize;
        if count == 0 || !(0.0..=1.0).contains(&share) || count + contributors > nodes {
            return Err(Error::Input(format!(
                "hot_spots {count} and contributors {share}: need at least one hot spot, a \
                 share from 0 to 1, and room for both among the dragonfly's {nodes} nodes"
            )));
        }
        let mut order: Vec<usize> = (0..nodes).collect();
        order.shuffle(&mut rng::stream(seed, 0, Purpose::Pattern));
        Ok(Hotspots {
            group: (fly.p() * fly.a()) as usize,
            groups: fly.groups() as usize,
            hot: order[..count].to_vec(),
            contributors: order[count..count + contributors].to_vec(),
        })
    }

    /// The flows at `gbps` per node to the next group and from `start_us` to the hot spots,
    /// as a `traffic.flows` value.
    fn flows(&self, gbps: f64, start_us: f64) -> String {
        let nodes = self.group * self.groups;
        let shift =
            (0..nodes).map(|n| format!("{{ src = {n}, dst = \"next_group\", gbps = {gbps} }}"));
        let hot = self.contributors.iter().enumerate().map(|(i, &src)| {
            let dst = self.hot[i % self.hot.len()];
            format!("{{ src = {src}, dst = {dst}, start_us = {start_us} }}")
        });
        let flows: Vec<String> = shift.chain(hot).collect();
        format!("[{}]", flows.join(", "))
    }
}

/// The workload's settings for `seed` at `load` times minimal routing's bound: the seed, the
/// grid's `warmup_us` and `measure_us`, and the flows.
pub(super) fn workload(grid: &Grid, load: f64, seed: u64) -> Result<Vec<String>> {
    let (warmup, measure, start): (f64, f64, f64) = (
        grid.param("warmup_us")?,
        grid.param("measure_us")?,
        grid.param("hot_start_us")?,
    );
    let (fly, link_gbps) = shape(grid)?;
    let flows =
        Hotspots::draw(grid, &fly, seed)?.flows(load * minimal_bound(&fly, link_gbps), start);
    Ok(vec![
        format!("seed={seed}"),
        format!("sim.warmup_us={warmup}"),
        format!("sim.measure_us={measure}"),
        "traffic.process=\"flows\"".into(),
        format!("traffic.flows={flows}"),
    ])
}

/// The grid's run `id` with `settings` (a workload's among them), without the flows among its
/// values: they are in the configuration, and would only bulk the results.
pub(super) fn job(grid: &Grid, id: String, settings: &[String]) -> Result<Job> {
    let mut job = grid.job(id, settings)?;
    job.values.retain(|(key, _)| key != "traffic.flows");
    Ok(job)
}
