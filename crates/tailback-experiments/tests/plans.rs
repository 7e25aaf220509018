//! Every experiment's job list builds from its grid, full and quick.

use std::collections::BTreeSet;

#[test]
fn every_experiment_plans_distinct_jobs_full_and_quick_and_quick_is_smaller() {
    let all = tailback_experiments::all();
    assert_eq!(all.len(), 42);
    for experiment in &all {
        let full = experiment.plan(false).unwrap();
        let quick = experiment.plan(true).unwrap();
        for jobs in [&full, &quick] {
            let ids: BTreeSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
            assert_eq!(ids.len(), jobs.len(), "{}: duplicate ids", experiment.name);
        }
        // The reconfiguration study's jobs replay a first run's packets, and the EcoCC traces'
        // replay the traces the run writes first: none are known before.
        if !["predictor-reconfig", "ecocc-traces"].contains(&experiment.name) {
            assert!(!quick.is_empty(), "{}: no jobs", experiment.name);
        }
        // Quick mode runs fewer or shorter jobs.
        let cycles = |jobs: &[tailback_experiments::Job]| {
            jobs.iter()
                .map(|j| j.config.sim.warmup_cycles + j.config.sim.measure_cycles)
                .sum::<u64>()
        };
        assert!(quick.len() <= full.len(), "{}", experiment.name);
        assert!(cycles(&quick) <= cycles(&full), "{}", experiment.name);
    }
}
