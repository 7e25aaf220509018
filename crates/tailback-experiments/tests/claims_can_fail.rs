//! Every judged claim of every experiment can fail: its rule, evaluated by the one evaluator,
//! agrees at the paper's value and differs at a value that contradicts the paper. Nothing is
//! simulated: claims are declared as data.

use std::collections::BTreeSet;

use tailback_experiments::{
    Claim, ClaimRule as Rule, Judgement, MIN_ORDER_SEEDS, Ours, Tolerance, all,
};

/// The values that must agree and those that must fail for `claim`, as the reviewer's rules
/// state them: twice and half the paper's value against a two-sided tolerance; X / 2 against
/// "at least X" (2X against "at most X"); the stated failing value against a claim of zero;
/// the opposite sign (and no change) against a signed change; a reversed order against an
/// ordering. A small whole-number claim (a level of 1 or 2) therefore needs an absolute
/// tolerance below half of it, or the neighbouring level would agree.
fn probes(claim: &Claim) -> (Vec<Ours>, Vec<Ours>) {
    let v = Ours::Value;
    match claim.rule {
        Rule::Near { value, tolerance } => {
            assert!(
                value != 0.0,
                "{}: a claim of zero is a Zero rule with a failing value",
                claim.id
            );
            if let Tolerance::Relative(f) = tolerance {
                assert!(f >= 0.0, "{}: negative tolerance", claim.id);
            }
            (vec![v(value)], vec![v(2.0 * value), v(value / 2.0)])
        }
        Rule::AtLeast { value, .. } => (vec![v(value)], vec![v(value / 2.0)]),
        Rule::AtMost { value, .. } => (vec![v(value)], vec![v(2.0 * value)]),
        Rule::Zero { failing, .. } => {
            assert!(failing != 0.0, "{}: the failing value is zero", claim.id);
            (vec![v(0.0)], vec![v(failing)])
        }
        Rule::Signed { value, .. } => (vec![v(value)], vec![v(-value), v(0.0)]),
        Rule::Ratio { value, floor, .. } => {
            let den = 2.0 * floor.max(1e-9);
            let ratio = |r: f64| Ours::Ratio { num: r * den, den };
            (
                vec![ratio(value)],
                vec![ratio(2.0 * value), ratio(value / 2.0)],
            )
        }
        Rule::Order { .. } => {
            // A steady gain of 5 % on shared random numbers, over three seeds.
            let up: Vec<(f64, f64)> = [1.0, 0.9, 1.1].iter().map(|&b| (b * 1.05, b)).collect();
            let down: Vec<(f64, f64)> = up.iter().map(|&(a, b)| (b, a)).collect();
            (vec![Ours::Paired(up)], vec![Ours::Paired(down)])
        }
    }
}

#[test]
fn every_judged_rule_agrees_at_the_paper_and_fails_against_it() {
    let mut checked = 0;
    for experiment in all() {
        let claims = experiment
            .claims(false)
            .unwrap_or_else(|e| panic!("{}: {e}", experiment.name));
        let mut ids = BTreeSet::new();
        for claim in &claims.judged {
            let name = format!("{} / {}", experiment.name, claim.id);
            assert!(ids.insert(claim.id.clone()), "{name}: id declared twice");
            assert!(!claim.what.trim().is_empty(), "{name}: what is blank");
            assert!(
                !claim.source.at.trim().is_empty(),
                "{name}: says not where the paper states it"
            );
            let (pass, fail) = probes(claim);
            for ours in &pass {
                assert_eq!(
                    claim.rule.judge(ours),
                    Judgement::Agrees,
                    "{name}: {:?} must agree at the paper's value {ours:?}",
                    claim.rule
                );
            }
            for ours in &fail {
                assert_eq!(
                    claim.rule.judge(ours),
                    Judgement::Differs,
                    "{name}: {:?} cannot fail: it agrees at {ours:?}",
                    claim.rule
                );
            }
            checked += 1;
        }
        for n in &claims.not_compared {
            assert!(
                !n.what.trim().is_empty()
                    && !n.paper.trim().is_empty()
                    && !n.reason.trim().is_empty(),
                "{}: a result not compared states what, the paper's value and why: {n:?}",
                experiment.name
            );
        }
    }
    eprintln!("{checked} judged claims checked");
}

#[test]
fn an_ordering_of_fewer_seeds_than_needed_is_not_judged() {
    let order = Rule::Order {
        higher: "A",
        lower: "B",
    };
    let pairs = vec![(2.0, 1.0); MIN_ORDER_SEEDS - 1];
    assert_eq!(order.judge(&Ours::Paired(pairs)), Judgement::Information);
}

#[test]
fn every_experiment_declares_what_its_paper_states() {
    for experiment in all() {
        let claims = experiment.claims(false).unwrap();
        assert!(
            !claims.judged.is_empty() || !claims.not_compared.is_empty(),
            "{} declares no claim and no result not compared",
            experiment.name
        );
    }
}
