//! Steady-state simulation speed on the reference configurations, reported in node-cycles.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use tailback_core::reference::references;
use tailback_core::sim::Simulation;

/// Cycles simulated before timing starts (the network fills up to its steady state).
const WARMUP: u64 = 3_000;
/// Cycles timed per iteration.
const TIMED: u64 = 1_000;

fn steady_state(c: &mut Criterion) {
    let mut group = c.benchmark_group("steady_state");
    group.sample_size(20);
    for reference in references() {
        let nodes = reference.config.node_count() as u64;
        group.throughput(Throughput::Elements(nodes * TIMED));
        group.bench_function(reference.name, |b| {
            b.iter_batched(
                || {
                    let mut sim = Simulation::new(&reference.config).expect("valid reference");
                    sim.run_until(WARMUP);
                    sim
                },
                |mut sim| {
                    sim.run_until(WARMUP + TIMED);
                    sim
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, steady_state);
criterion_main!(benches);
