//! Mean hop count of uniform traffic: the channel-load analysis and the simulation both match the
//! analytic mean distance of dimension-order routing.
//!
//! Per dimension of radix k, the mean minimal distance between two independent uniformly random
//! coordinates (equal ones included) is k/4 on a ring of even k, (k^2 - 1)/(4k) on a ring of odd
//! k, and (k^2 - 1)/(3k) on a line. DOR routes each dimension minimally and independently, so the
//! mean over all (source, destination) pairs is the sum over dimensions; uniform traffic excludes
//! the source itself, which removes N zero-distance pairs out of N^2: multiply by N/(N-1).

mod common;

use common::{analysed_channel_load, checked_config, min_hops};
use tailback_core::spec::Spec;
use tailback_core::topology::Topology;

/// Mean distance along one dimension, self included.
fn mean_dimension_distance(torus: bool, k: u32) -> f64 {
    let k = k as f64;
    if !torus {
        (k * k - 1.0) / (3.0 * k)
    } else if (k as u32).is_multiple_of(2) {
        k / 4.0
    } else {
        (k * k - 1.0) / (4.0 * k)
    }
}

/// Analytic mean hop count of uniform traffic.
fn analytic_mean_hops(torus: bool, dims: &[u32], include_self: bool) -> f64 {
    let nodes: f64 = dims.iter().map(|&k| k as f64).product();
    let with_self: f64 = dims
        .iter()
        .map(|&k| mean_dimension_distance(torus, k))
        .sum();
    if include_self {
        with_self
    } else {
        with_self * nodes / (nodes - 1.0)
    }
}

const SHAPES: [(bool, &[u32]); 6] = [
    (true, &[8, 8]),
    (true, &[6, 4]),
    (true, &[5, 3]),
    (true, &[3, 4, 5]),
    (false, &[8, 8]),
    (false, &[5, 3]),
];

/// Uniform traffic of 2-flit packets at 0.2 flits/node/cycle (well below saturation of every
/// shape here, so measured packets drain and the sample is not biased towards short routes).
fn uniform_config(torus: bool, dims: &[u32], include_self: bool) -> Spec {
    checked_config(&format!(
        "[topology]\nkind = \"{}\"\ndims = {dims:?}\n\
         [traffic]\npattern = \"uniform\"\ninclude_self = {include_self}\n\
         rate = 0.2\npacket_flits = 2\n\
         [sim]\nwarmup_cycles = 500\nmeasure_cycles = 2000\ndrain_cycles_max = 2000\n",
        if torus { "torus" } else { "mesh" },
    ))
}

/// Standard deviation of the hop count of one uniform packet (source excluded), by enumeration.
fn hop_standard_deviation(cfg: &Spec) -> f64 {
    let topo = Topology::from_config(cfg);
    let shape = topo.cube().expect("a k-ary n-cube");
    let n = shape.nodes();
    let hops: Vec<f64> = (0..n)
        .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
        .map(|(s, d)| min_hops(shape, s, d) as f64)
        .collect();
    let mean = hops.iter().sum::<f64>() / hops.len() as f64;
    (hops.iter().map(|h| (h - mean).powi(2)).sum::<f64>() / hops.len() as f64).sqrt()
}

#[test]
fn channel_load_mean_hops_equals_analytic_mean_distance() {
    for (torus, dims) in SHAPES {
        for include_self in [false, true] {
            let expected = analytic_mean_hops(torus, dims, include_self);
            let analysed =
                analysed_channel_load(&uniform_config(torus, dims, include_self)).mean_hops;
            // Both are sums of a few hundred thousand exact fractions: only rounding differs.
            assert!(
                (analysed - expected).abs() < 1e-9,
                "torus={torus} dims={dims:?} include_self={include_self}: analysis gives \
                 {analysed}, closed form {expected}"
            );
        }
    }
}

#[test]
fn simulated_mean_hops_equals_analytic_mean_distance() {
    for (torus, dims) in SHAPES {
        let cfg = uniform_config(torus, dims, false);
        let expected = analytic_mean_hops(torus, dims, false);
        let summary = tailback_core::run(&cfg).unwrap().summary;
        assert!(
            !summary.saturated,
            "{dims:?}: {:?}",
            summary.saturation_reason
        );
        assert_eq!(summary.packets_delivered, summary.packets_measured);
        let measured = summary.hops.mean.unwrap();
        // Destinations are drawn independently per packet, so the sample mean has standard error
        // sigma / sqrt(packets); 5 standard errors make a false failure a ~1e-6 event.
        let tolerance =
            5.0 * hop_standard_deviation(&cfg) / (summary.packets_delivered as f64).sqrt();
        assert!(
            (measured - expected).abs() < tolerance,
            "torus={torus} dims={dims:?}: simulated mean hops {measured} over {} packets, \
             analytic {expected}, tolerance {tolerance}",
            summary.packets_delivered
        );
    }
}
