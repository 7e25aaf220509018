//! The results a paper states, declared as data before any run, and the one evaluator that
//! judges ours against them.
//!
//! Each experiment declares its [`Claims`]: every result the paper's text states for the
//! figure or table it reproduces, either as a [`Claim`] (what, the paper's value and where the
//! text gives it, and the [`Rule`] ours is judged by) or as [`NotCompared`] (with the reason).
//! Its analysis only measures: it fills in [`Findings`], our value for each claim's id, and
//! [`Claims::judge`] turns the two into the comparison table. Because claims are data, a test
//! enumerates every experiment's rules without simulating and checks that each one can fail.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use crate::outcome::{Comparison, Outcome, Verdict};
use crate::spread::{Samples, Spread};
use crate::{Error, Result};

/// The paper a claim comes from; Gran's thesis counts as its six papers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Paper {
    /// Thottethodi, Lebeck and Mukherjee, HPCA 2001.
    SelfTuned,
    /// Yokota, Ootsu and Ohkawa, IEICE Trans. 2016.
    Entropy,
    /// Callahan and Goldstein, ISCA 1995.
    Nifdy,
    /// Heirman, Dambre and Van Campenhout (the queueing model).
    Predictor,
    /// Gran and Reinemo, SIMUTools 2011 (Paper I of Gran's thesis).
    GranI,
    /// Gran et al., CCGrid 2011 (Paper II).
    GranII,
    /// Gran et al., IPDPS 2010 (Paper III).
    GranIII,
    /// Gran et al., IPDPS 2012 (Paper IV).
    GranIV,
    /// Escudero-Sahuquillo, Gran et al., ICPP 2011 (Paper V).
    GranV,
    /// Escudero-Sahuquillo, Gran et al., submitted to IEEE TPDS (Paper VI).
    GranVI,
    /// Kim, Dally, Scott and Abts, ISCA 2008 (the dragonfly).
    Dragonfly,
    /// Gran's thesis itself (University of Oslo, 2013): its background chapter and the open
    /// questions of its future work.
    GranThesis,
}

impl Paper {
    /// Every paper, in catalogue order.
    pub const ALL: [Paper; 12] = [
        Paper::SelfTuned,
        Paper::Entropy,
        Paper::Nifdy,
        Paper::Predictor,
        Paper::GranI,
        Paper::GranII,
        Paper::GranIII,
        Paper::GranIV,
        Paper::GranV,
        Paper::GranVI,
        Paper::Dragonfly,
        Paper::GranThesis,
    ];

    /// A short stable key, as written in `summary.json`.
    pub fn key(self) -> &'static str {
        match self {
            Paper::SelfTuned => "self-tuned",
            Paper::Entropy => "entropy",
            Paper::Nifdy => "nifdy",
            Paper::Predictor => "predictor",
            Paper::GranI => "gran-i",
            Paper::GranII => "gran-ii",
            Paper::GranIII => "gran-iii",
            Paper::GranIV => "gran-iv",
            Paper::GranV => "gran-v",
            Paper::GranVI => "gran-vi",
            Paper::Dragonfly => "dragonfly",
            Paper::GranThesis => "gran-thesis",
        }
    }

    /// The paper named by its key.
    pub fn from_key(key: &str) -> Option<Paper> {
        Paper::ALL.into_iter().find(|p| p.key() == key)
    }

    /// Authors and venue.
    pub fn name(self) -> &'static str {
        match self {
            Paper::SelfTuned => "Thottethodi, Lebeck and Mukherjee, HPCA 2001 (self-tuned)",
            Paper::Entropy => "Yokota, Ootsu and Ohkawa, IEICE Trans. 2016 (entropy throttling)",
            Paper::Nifdy => "Callahan and Goldstein, ISCA 1995 (NIFDY)",
            Paper::Predictor => "Heirman, Dambre and Van Campenhout (the queueing model)",
            Paper::GranI => "Gran's thesis, Paper I: Gran and Reinemo, SIMUTools 2011",
            Paper::GranII => "Gran's thesis, Paper II: Gran et al., CCGrid 2011",
            Paper::GranIII => "Gran's thesis, Paper III: Gran et al., IPDPS 2010",
            Paper::GranIV => "Gran's thesis, Paper IV: Gran et al., IPDPS 2012",
            Paper::GranV => "Gran's thesis, Paper V: Escudero-Sahuquillo et al., ICPP 2011",
            Paper::GranVI => {
                "Gran's thesis, Paper VI: Escudero-Sahuquillo et al., TPDS (submitted)"
            }
            Paper::Dragonfly => "Kim, Dally, Scott and Abts, ISCA 2008 (the dragonfly)",
            Paper::GranThesis => {
                "Gran's thesis: E. G. Gran, PhD thesis, University of Oslo, 2013 (its open questions)"
            }
        }
    }
}

impl Serialize for Paper {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// Where the paper states a result: the paper, and the place in it ("Table II", "Sec. VII,
/// Fig. 12").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The paper.
    pub paper: Paper,
    /// The place in it.
    pub at: &'static str,
}

impl Source {
    /// `at` in `paper`.
    pub const fn new(paper: Paper, at: &'static str) -> Source {
        Source { paper, at }
    }
}

/// How far from the paper's value ours may be, either way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// A fraction of the paper's value (0.1: ±10 %).
    Relative(f64),
    /// In the value's own unit.
    Absolute(f64),
}

impl Tolerance {
    /// The tolerance in the value's own unit, around `value`.
    fn around(self, value: f64) -> f64 {
        match self {
            Tolerance::Relative(fraction) => fraction * value.abs(),
            Tolerance::Absolute(width) => width,
        }
    }
}

/// The rule ours is judged by, fixed before the run; every rule can fail (a test checks each
/// declared one at a value that contradicts the paper).
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// The paper gives `value`: ours within `tolerance` of it, either way.
    Near {
        /// The paper's value.
        value: f64,
        /// How far ours may be.
        tolerance: Tolerance,
    },
    /// The paper claims at least `value`: ours at least `bound` (above half of `value`).
    AtLeast {
        /// The paper's value.
        value: f64,
        /// The least ours may be.
        bound: f64,
    },
    /// The paper claims at most `value`: ours at most `bound` (below twice `value`).
    AtMost {
        /// The paper's value.
        value: f64,
        /// The most ours may be.
        bound: f64,
    },
    /// The paper claims zero or no difference: ours within `within` of zero. `failing` is a
    /// value of the claim's own scale that would contradict it.
    Zero {
        /// How far from zero ours may be.
        within: f64,
        /// A value that contradicts the claim.
        failing: f64,
    },
    /// The paper gives a signed change `value` (+10 % as 10.0 with unit " %"): ours of the
    /// same sign and within `tolerance` of it (less than `|value|`, so no change fails).
    Signed {
        /// The paper's change.
        value: f64,
        /// How far ours may be, in the value's unit.
        tolerance: f64,
    },
    /// The paper gives a ratio `value`; ours is a ratio of two of our own numbers, judged only
    /// when its denominator is above `floor` (below it, shown for information).
    Ratio {
        /// The paper's ratio.
        value: f64,
        /// How far ours may be, as a fraction of the paper's.
        tolerance: f64,
        /// The measurement floor of the denominator, in its own unit.
        floor: f64,
    },
    /// The paper claims `higher` clearly above `lower`. Judged on per-seed paired differences
    /// (at least three seeds): agrees when the 95 % t-interval of the difference lies above
    /// zero, "not separated" when it holds zero, differs when it lies below.
    Order {
        /// What the paper puts above.
        higher: &'static str,
        /// What the paper puts below.
        lower: &'static str,
    },
}

/// How many seeds an ordering needs to be judged.
pub const MIN_ORDER_SEEDS: usize = 3;

/// Our measurement of a claim.
#[derive(Debug, Clone, PartialEq)]
pub enum Ours {
    /// One number.
    Value(f64),
    /// One number per seed: judged by the mean, shown with its 95 % interval.
    Seeds(Vec<f64>),
    /// A ratio of two of our numbers.
    Ratio {
        /// The numerator.
        num: f64,
        /// The denominator.
        den: f64,
    },
    /// For an ordering: per seed, the value of what the paper puts above and of what it puts
    /// below, measured on the same random numbers.
    Paired(Vec<(f64, f64)>),
}

impl Ours {
    /// The number the rule looks at (the mean over seeds, the ratio, the mean difference).
    pub fn value(&self) -> f64 {
        match self {
            Ours::Value(x) => *x,
            Ours::Seeds(xs) => Spread::of(xs).mean,
            Ours::Ratio { num, den } => num / den,
            Ours::Paired(pairs) => differences(pairs).mean,
        }
    }
}

/// The spread of the per-seed differences `higher - lower`.
fn differences(pairs: &[(f64, f64)]) -> Spread {
    let d: Vec<f64> = pairs.iter().map(|(a, b)| a - b).collect();
    Spread::of(&d)
}

/// What the evaluator decides for one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Ours satisfies the rule.
    Agrees,
    /// Ours contradicts it.
    Differs,
    /// An ordering whose interval holds zero: counts as differing from a clear ordering.
    NotSeparated,
    /// Nothing can be judged (one seed, a denominator below the floor): shown only.
    Information,
}

impl Rule {
    /// The paper's `value`, ours within `fraction` of it either way.
    pub const fn near(value: f64, fraction: f64) -> Rule {
        Rule::Near {
            value,
            tolerance: Tolerance::Relative(fraction),
        }
    }

    /// Judges `ours` by this rule.
    pub fn judge(&self, ours: &Ours) -> Judgement {
        let verdict = |ok: bool| {
            if ok {
                Judgement::Agrees
            } else {
                Judgement::Differs
            }
        };
        match (self, ours) {
            (Rule::Order { .. }, Ours::Paired(pairs)) => {
                if pairs.len() < MIN_ORDER_SEEDS {
                    return Judgement::Information;
                }
                let d = differences(pairs);
                let half = d.ci95.unwrap_or(f64::INFINITY);
                if d.mean - half > 0.0 {
                    Judgement::Agrees
                } else if d.mean + half < 0.0 {
                    Judgement::Differs
                } else {
                    Judgement::NotSeparated
                }
            }
            (Rule::Order { .. }, _) => Judgement::Information,
            (Rule::Ratio { floor, .. }, Ours::Ratio { den, .. }) if den.abs() <= *floor => {
                Judgement::Information
            }
            (rule, ours) => {
                let x = ours.value();
                if !x.is_finite() {
                    return Judgement::Differs;
                }
                verdict(match *rule {
                    Rule::Near { value, tolerance } => (x - value).abs() <= tolerance.around(value),
                    Rule::AtLeast { bound, .. } => x >= bound,
                    Rule::AtMost { bound, .. } => x <= bound,
                    Rule::Zero { within, .. } => x.abs() <= within,
                    Rule::Signed { value, tolerance } => {
                        x.signum() == value.signum() && x != 0.0 && (x - value).abs() <= tolerance
                    }
                    Rule::Ratio {
                        value, tolerance, ..
                    } => (x / value - 1.0).abs() <= tolerance,
                    Rule::Order { .. } => unreachable!("orderings are judged above"),
                })
            }
        }
    }

    /// The paper's value, where the rule has one.
    pub fn paper_value(&self) -> Option<f64> {
        match *self {
            Rule::Near { value, .. }
            | Rule::AtLeast { value, .. }
            | Rule::AtMost { value, .. }
            | Rule::Signed { value, .. }
            | Rule::Ratio { value, .. } => Some(value),
            Rule::Zero { .. } => Some(0.0),
            Rule::Order { .. } => None,
        }
    }

    /// The rule in words, numbers printed as `format` prints them.
    pub fn text(&self, format: &Format) -> String {
        let n = |x: f64| format.number(x);
        match *self {
            Rule::Near {
                tolerance: Tolerance::Relative(f),
                ..
            } => format!("within ±{} % of the paper's", percent(f)),
            Rule::Near {
                tolerance: Tolerance::Absolute(w),
                ..
            } => format!("within ±{} of the paper's", n(w)),
            Rule::AtLeast { bound, .. } => format!("at least {}", n(bound)),
            Rule::AtMost { bound, .. } => format!("at most {}", n(bound)),
            Rule::Zero { within, .. } => format!("within ±{} of zero", n(within)),
            Rule::Signed { tolerance, .. } => {
                format!("the paper's sign, within ±{} of its value", n(tolerance))
            }
            Rule::Ratio {
                tolerance, floor, ..
            } => format!(
                "within ±{} % of the paper's ratio (judged when the denominator exceeds {})",
                percent(tolerance),
                Format {
                    digits: format.digits + 2,
                    ..*format
                }
                .number(floor)
            ),
            Rule::Order { higher, lower } => format!(
                "{higher} above {lower}: the 95 % interval of the per-{} difference above zero \
                 (at least {MIN_ORDER_SEEDS} {})",
                format.samples.one(),
                format.samples.many()
            ),
        }
    }
}

/// A relative tolerance in percent: "10", "2.5".
pub(crate) fn percent(fraction: f64) -> String {
    let text = format!("{:.2}", 100.0 * fraction);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// How a claim's numbers are printed: decimals and unit (with its own leading space).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Decimals.
    pub digits: usize,
    /// Unit, printed as given (" Gbit/s", " %", "x").
    pub unit: &'static str,
    /// What a value measured several times was measured over.
    pub samples: Samples,
}

impl Format {
    /// `x` with the decimals and the unit.
    pub fn number(&self, x: f64) -> String {
        format!("{x:.*}{}", self.digits, self.unit)
    }
}

/// A result the paper states, and the rule ours is judged by.
#[derive(Debug, Clone)]
pub struct Claim {
    /// A stable identifier, as in `summary.json`.
    pub id: String,
    /// The quantity compared.
    pub what: String,
    /// Where the paper states it.
    pub source: Source,
    /// The paper's words for its result, where they say more than its value.
    pub stated: Option<String>,
    /// What ours must satisfy.
    pub rule: Rule,
    /// How the numbers are printed.
    pub format: Format,
}

impl Claim {
    /// The claim `id` about `what`, stated at `source`, judged by `rule`; numbers printed
    /// with two decimals and no unit, the paper's value as its number (see [`Claim::shown`]
    /// and [`Claim::stated`]).
    pub fn new(id: impl Into<String>, what: impl Into<String>, source: Source, rule: Rule) -> Self {
        Claim {
            id: id.into(),
            what: what.into(),
            source,
            stated: None,
            rule,
            format: Format {
                digits: 2,
                unit: "",
                samples: Samples::Seeds,
            },
        }
    }

    /// The same claim printed with `digits` decimals and `unit`.
    pub fn shown(self, digits: usize, unit: &'static str) -> Self {
        Claim {
            format: Format {
                digits,
                unit,
                ..self.format
            },
            ..self
        }
    }

    /// The same claim with its several values one per case rather than one per seed.
    pub fn over_cases(self) -> Self {
        Claim {
            format: Format {
                samples: Samples::Cases,
                ..self.format
            },
            ..self
        }
    }

    /// The same claim with the paper's words for its result ("≈ 10x, about an order of
    /// magnitude").
    pub fn stated(self, paper: impl Into<String>) -> Self {
        Claim {
            stated: Some(paper.into()),
            ..self
        }
    }

    /// The paper's value or claim as printed: its words, or its value from the rule.
    pub fn paper(&self) -> String {
        self.stated
            .clone()
            .unwrap_or_else(|| paper_text(&self.rule, &self.format))
    }

    /// The comparison line for `ours` (a quick run's is not judged).
    fn compare(&self, ours: &Ours) -> Comparison {
        let rule = self.rule.text(&self.format);
        let judgement = self.rule.judge(ours);
        let verdict = match judgement {
            Judgement::Agrees => Verdict::judged(true, rule),
            Judgement::Differs => Verdict::judged(false, rule),
            Judgement::NotSeparated => Verdict::not_separated(rule),
            Judgement::Information => Verdict::Info,
        };
        let c = Comparison::new(&self.what, self.paper(), self.describe(ours), verdict)
            .identified(&self.id, self.rule.paper_value(), Some(ours.value()))
            .sourced(self.source);
        let spread = match ours {
            Ours::Seeds(xs) => Some(Spread::of(xs)),
            Ours::Paired(pairs) => Some(differences(pairs)),
            Ours::Value(_) | Ours::Ratio { .. } => None,
        };
        match spread {
            Some(s) => c.over(&s, self.format.samples == Samples::Seeds),
            None => c,
        }
    }

    /// Ours in words.
    fn describe(&self, ours: &Ours) -> String {
        let f = &self.format;
        match (ours, &self.rule) {
            (Ours::Value(x), _) => f.number(*x),
            (Ours::Seeds(xs), _) => Spread::of(xs).describe_over(f.digits, f.unit, f.samples),
            (Ours::Ratio { num, den }, Rule::Ratio { floor, .. }) if den.abs() <= *floor => {
                format!(
                    "{} / {} (denominator at or below the measurement floor {}: not judged)",
                    f.number(*num),
                    f.number(*den),
                    Format {
                        digits: f.digits + 2,
                        ..*f
                    }
                    .number(*floor)
                )
            }
            (Ours::Ratio { num, den }, _) => {
                format!("{:.2} ({} / {})", num / den, f.number(*num), f.number(*den))
            }
            (Ours::Paired(pairs), rule) => {
                let (higher, lower) = match rule {
                    Rule::Order { higher, lower } => (*higher, *lower),
                    _ => ("first", "second"),
                };
                let n = pairs.len() as f64;
                let mean = |pick: fn(&(f64, f64)) -> f64| pairs.iter().map(pick).sum::<f64>() / n;
                let d = differences(pairs);
                let mut text = format!(
                    "{higher} {}, {lower} {}; difference {}",
                    f.number(mean(|p| p.0)),
                    f.number(mean(|p| p.1)),
                    d.describe_over(f.digits, f.unit, f.samples)
                );
                if pairs.len() < MIN_ORDER_SEEDS {
                    let _ = write!(
                        text,
                        ": fewer than {MIN_ORDER_SEEDS} {}, not judged",
                        f.samples.many()
                    );
                }
                text
            }
        }
    }
}

/// The paper's value in words, from the rule.
fn paper_text(rule: &Rule, f: &Format) -> String {
    match *rule {
        Rule::Near { value, .. } | Rule::Ratio { value, .. } => f.number(value),
        Rule::AtLeast { value, .. } => format!("at least {}", f.number(value)),
        Rule::AtMost { value, .. } => format!("at most {}", f.number(value)),
        Rule::Zero { .. } => "none".to_string(),
        Rule::Signed { value, .. } => format!("{value:+.*}{}", f.digits, f.unit),
        Rule::Order { higher, lower } => format!("{higher} > {lower}"),
    }
}

/// A result the paper states that is not compared, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotCompared {
    /// The quantity.
    pub what: String,
    /// The paper's value or claim.
    pub paper: String,
    /// Why it is not compared ("digitised only", "traces not public").
    pub reason: String,
    /// Where the paper states it.
    pub source: Source,
}

/// Everything the paper states for one experiment: the claims judged and the results not
/// compared.
#[derive(Debug, Clone, Default)]
pub struct Claims {
    /// The claims, in the order of the table.
    pub judged: Vec<Claim>,
    /// The stated results not compared.
    pub not_compared: Vec<NotCompared>,
}

impl Claims {
    /// Adds `claim`.
    pub fn claim(&mut self, claim: Claim) -> &mut Self {
        self.judged.push(claim);
        self
    }

    /// Adds a stated result that is not compared.
    pub fn not_compared(
        &mut self,
        source: Source,
        what: impl Into<String>,
        paper: impl Into<String>,
        reason: impl Into<String>,
    ) -> &mut Self {
        self.not_compared.push(NotCompared {
            what: what.into(),
            paper: paper.into(),
            reason: reason.into(),
            source,
        });
        self
    }

    /// The claim `id`.
    pub fn get(&self, id: &str) -> Option<&Claim> {
        self.judged.iter().find(|c| c.id == id)
    }

    /// The outcome: each claim judged on our value in `findings`, in declared order, then the
    /// lines shown for information. A claim with no value is an error in a full run (the
    /// analysis missed it); in a quick run, whose grid may lack its points, it is left out.
    /// A value for an undeclared id is always an error.
    pub fn judge(&self, findings: Findings, quick: bool) -> Result<Outcome> {
        if let Some(id) = findings.ours.keys().find(|id| self.get(id).is_none()) {
            return Err(Error::Input(format!(
                "the analysis measured `{id}`, which no claim declares"
            )));
        }
        let mut comparisons = Vec::with_capacity(self.judged.len() + findings.info.len());
        for claim in &self.judged {
            match findings.ours.get(&claim.id) {
                Some(ours) => comparisons.push(claim.compare(ours)),
                None if quick => {}
                None => {
                    return Err(Error::Input(format!(
                        "the analysis gave no value for the claim `{}`",
                        claim.id
                    )));
                }
            }
        }
        comparisons.extend(findings.info);
        Ok(Outcome {
            comparisons,
            not_compared: self.not_compared.clone(),
            files: findings.files,
        })
    }
}

/// What an analysis measured: our value for each claim, lines shown for information (ours
/// against ours with no paper number), and the files written.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    ours: BTreeMap<String, Ours>,
    info: Vec<Comparison>,
    /// Plots and tables written.
    pub files: Vec<PathBuf>,
}

impl Findings {
    /// Findings with `files` written.
    pub fn with_files(files: Vec<PathBuf>) -> Findings {
        Findings {
            files,
            ..Findings::default()
        }
    }

    /// Our value for the claim `id`.
    pub fn set(&mut self, id: impl Into<String>, ours: Ours) -> &mut Self {
        self.ours.insert(id.into(), ours);
        self
    }

    /// A line shown for information, never judged: `paper` is the paper's words (or "-").
    pub fn info(
        &mut self,
        what: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
    ) -> &mut Self {
        self.info.push(Comparison::info(what, paper, ours));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Source = Source::new(Paper::GranIII, "Table II");

    fn judged(rule: Rule, ours: Ours) -> Judgement {
        rule.judge(&ours)
    }

    #[test]
    fn each_kind_of_rule_agrees_at_the_paper_and_fails_against_it() {
        use Judgement::*;
        let near = Rule::Near {
            value: 10.0,
            tolerance: Tolerance::Relative(0.05),
        };
        assert_eq!(judged(near.clone(), Ours::Value(10.4)), Agrees);
        assert_eq!(judged(near.clone(), Ours::Value(10.6)), Differs);
        assert_eq!(judged(near, Ours::Value(f64::NAN)), Differs);
        let signed = Rule::Signed {
            value: 10.0,
            tolerance: 8.0,
        };
        assert_eq!(judged(signed.clone(), Ours::Value(3.0)), Agrees);
        assert_eq!(judged(signed.clone(), Ours::Value(0.0)), Differs);
        assert_eq!(judged(signed, Ours::Value(-1.0)), Differs);
        let ratio = Rule::Ratio {
            value: 42.0,
            tolerance: 0.5,
            floor: 0.01,
        };
        let r = |num, den| Ours::Ratio { num, den };
        assert_eq!(judged(ratio.clone(), r(0.42, 0.01)), Information);
        assert_eq!(judged(ratio.clone(), r(4.2, 0.1)), Agrees);
        assert_eq!(judged(ratio, r(1.0, 0.1)), Differs);
    }

    #[test]
    fn an_ordering_is_judged_on_paired_differences() {
        use Judgement::*;
        let order = Rule::Order {
            higher: "CCFIT",
            lower: "FBICM",
        };
        // Means 1.03 against 1.0, but one seed the other way: not separated.
        let mixed = Ours::Paired(vec![(1.10, 1.0), (0.98, 1.0), (1.01, 1.0)]);
        assert_eq!(order.judge(&mixed), NotSeparated);
        // A small but steady gain on shared random numbers is separated.
        let steady = Ours::Paired(vec![(1.03, 1.0), (0.93, 0.9), (1.13, 1.1)]);
        assert_eq!(order.judge(&steady), Agrees);
        let reversed = Ours::Paired(vec![(1.0, 1.03), (0.9, 0.93), (1.1, 1.13)]);
        assert_eq!(order.judge(&reversed), Differs);
        assert_eq!(
            order.judge(&Ours::Paired(vec![(2.0, 1.0), (2.0, 1.0)])),
            Information
        );
    }

    #[test]
    fn judging_fills_the_declared_claims_and_refuses_strays() {
        let mut claims = Claims::default();
        claims
            .claim(
                Claim::new(
                    "f1",
                    "F1",
                    AT,
                    Rule::Near {
                        value: 10.06,
                        tolerance: Tolerance::Relative(0.05),
                    },
                )
                .shown(2, " Gbit/s"),
            )
            .not_compared(AT, "max", "11.08 Gbit/s", "a property of the hardware");
        let mut found = Findings::default();
        found
            .set("f1", Ours::Value(9.97))
            .info("speed", "-", "fast");
        let outcome = claims.judge(found, false).unwrap();
        let c = &outcome.comparisons[0];
        assert_eq!(
            (c.paper.as_str(), c.ours.as_str()),
            ("10.06 Gbit/s", "9.97 Gbit/s")
        );
        assert_eq!(c.verdict.label(), "agrees");
        assert_eq!(outcome.comparisons.len(), 2);
        assert_eq!(outcome.not_compared.len(), 1);
        let err = claims.judge(Findings::default(), false).unwrap_err();
        assert!(err.to_string().contains("`f1`"), "{err}");
        assert!(claims.judge(Findings::default(), true).is_ok());
        let mut stray = Findings::default();
        stray.set("f2", Ours::Value(1.0));
        assert!(claims.judge(stray, true).is_err());
    }

    #[test]
    fn values_over_cases_are_counted_as_cases_not_seeds() {
        let order = Rule::Order {
            higher: "without",
            lower: "with",
        };
        let pairs = Ours::Paired(vec![(3.0, 1.0), (4.0, 2.0), (5.0, 2.0)]);
        let mut claims = Claims::default();
        claims
            .claim(Claim::new("seeds", "x", AT, order.clone()))
            .claim(Claim::new("cases", "x", AT, order).over_cases());
        let mut found = Findings::default();
        found.set("seeds", pairs.clone()).set("cases", pairs);
        let outcome = claims.judge(found, false).unwrap();
        let (seeds, cases) = (&outcome.comparisons[0], &outcome.comparisons[1]);
        assert!(seeds.ours.ends_with("(95% CI, 3 seeds)"), "{}", seeds.ours);
        assert_eq!(seeds.seeds, Some(3));
        assert!(cases.ours.ends_with("(95% CI, 3 cases)"), "{}", cases.ours);
        assert!(
            cases
                .verdict
                .rule()
                .unwrap()
                .as_str()
                .contains("per-case difference")
        );
        assert_eq!(cases.seeds, None);
        assert!(cases.ours_ci95.is_some());
    }
}
