//! The spread of a value measured over several seeds: its mean and the half-width of a 95 %
//! confidence interval for it (Student's t), to print beside the paper's value.

/// Two-sided 95 % quantiles of Student's t (the 0.975 quantile) for 1 to 30 degrees of
/// freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 0.975 quantile of Student's t with `df` degrees of freedom: exact (to three decimals)
/// up to 30; from there the quantile at the bracket's lower end (30, 40 or 60 degrees), which
/// errs towards a wider interval by at most about 1 %; the normal's 1.96 beyond 120 degrees
/// (narrower by less than 1 %). `None` for 0 degrees (a single value).
pub fn t_975(df: usize) -> Option<f64> {
    match df {
        0 => None,
        1..=30 => Some(T_975[df - 1]),
        31..=40 => Some(2.042),
        41..=60 => Some(2.021),
        61..=120 => Some(2.000),
        _ => Some(1.96),
    }
}

/// What several measured values stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Samples {
    /// One value per seed of the same run.
    Seeds,
    /// One value per case (a topology and traffic pattern, say), each its own run.
    Cases,
}

impl Samples {
    /// "seed" or "case".
    pub fn one(self) -> &'static str {
        match self {
            Samples::Seeds => "seed",
            Samples::Cases => "case",
        }
    }

    /// "seeds" or "cases".
    pub fn many(self) -> &'static str {
        match self {
            Samples::Seeds => "seeds",
            Samples::Cases => "cases",
        }
    }
}

/// The mean of values over seeds and how far it can be trusted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The mean.
    pub mean: f64,
    /// Half-width of the 95 % confidence interval of the mean (`None` for one value).
    pub ci95: Option<f64>,
    /// How many values.
    pub n: usize,
}

impl Spread {
    /// The spread of `values` (one per seed). The mean of none is NaN.
    pub fn of(values: &[f64]) -> Spread {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let ci95 = t_975(n.saturating_sub(1)).map(|t| {
            let variance = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t * (variance / n as f64).sqrt()
        });
        Spread { mean, ci95, n }
    }

    /// "0.412 ± 0.013" (or "0.412" for one value) with `digits` decimals.
    pub fn value(&self, digits: usize) -> String {
        match self.ci95 {
            Some(h) => format!("{:.digits$} ± {h:.digits$}", self.mean),
            None => format!("{:.digits$}", self.mean),
        }
    }

    /// "(95% CI, 5 seeds)", or "(1 seed)".
    pub fn note(&self) -> String {
        self.note_over(Samples::Seeds)
    }

    /// "(95% CI, 5 seeds)" with the values counted as `samples`.
    pub fn note_over(&self, samples: Samples) -> String {
        match (self.ci95, self.n) {
            (Some(_), n) => format!("(95% CI, {n} {})", samples.many()),
            (None, 1) => format!("(1 {})", samples.one()),
            (None, n) => format!("({n} {})", samples.many()),
        }
    }

    /// "0.412 ± 0.013 unit (95% CI, 5 seeds)" with `digits` decimals; `unit` is printed as
    /// given (with its own leading space, if it needs one).
    pub fn describe(&self, digits: usize, unit: &str) -> String {
        self.describe_over(digits, unit, Samples::Seeds)
    }

    /// As [`Spread::describe`], the values counted as `samples`.
    pub fn describe_over(&self, digits: usize, unit: &str, samples: Samples) -> String {
        format!("{}{unit} {}", self.value(digits), self.note_over(samples))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_are_those_of_the_tables() {
        assert_eq!(t_975(0), None);
        assert_eq!(t_975(1), Some(12.706));
        assert_eq!(t_975(2), Some(4.303));
        assert_eq!(t_975(4), Some(2.776));
        assert_eq!(t_975(9), Some(2.262));
        assert_eq!(t_975(30), Some(2.042));
        assert_eq!(t_975(40), Some(2.042));
        assert_eq!(t_975(99), Some(2.000));
        assert_eq!(t_975(121), Some(1.96));
        assert_eq!(t_975(1000), Some(1.96));
        // Decreasing towards the normal's quantile.
        for df in 1..200 {
            assert!(t_975(df).unwrap() >= t_975(df + 1).unwrap());
        }
    }

    #[test]
    fn the_interval_of_five_values_uses_t_with_four_degrees() {
        // Mean 3, sample standard deviation sqrt(2.5); half-width 2.776 * sqrt(2.5 / 5).
        let s = Spread::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(s.n, 5);
        assert!((s.mean - 3.0).abs() < 1e-12);
        let half = s.ci95.unwrap();
        assert!((half - 2.776 * 0.5_f64.sqrt()).abs() < 1e-12, "{half}");
        assert!((half - 1.963).abs() < 1e-3);
        assert_eq!(s.describe(2, ""), "3.00 ± 1.96 (95% CI, 5 seeds)");
        assert_eq!(s.describe(1, " GB/s"), "3.0 ± 2.0 GB/s (95% CI, 5 seeds)");
    }

    #[test]
    fn three_seeds_use_t_with_two_degrees_and_equal_values_have_no_width() {
        let s = Spread::of(&[0.40, 0.42, 0.44]);
        // Sample standard deviation 0.02: 4.303 * 0.02 / sqrt(3).
        assert!((s.ci95.unwrap() - 4.303 * 0.02 / 3f64.sqrt()).abs() < 1e-12);
        let same = Spread::of(&[2.5; 4]);
        assert_eq!(same.ci95, Some(0.0));
        assert_eq!(same.value(1), "2.5 ± 0.0");
    }

    #[test]
    fn many_values_use_a_quantile_near_the_normal_one() {
        let values: Vec<f64> = (0..100).map(|i| f64::from(i % 2)).collect();
        let s = Spread::of(&values);
        // The sample variance of 50 zeros and 50 ones is 25 / 99; t with 99 degrees is 1.984.
        assert!((s.ci95.unwrap() - 2.0 * (25.0 / 99.0 / 100.0_f64).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn one_seed_has_no_interval() {
        let s = Spread::of(&[0.412]);
        assert_eq!(s.ci95, None);
        assert_eq!(s.describe(3, ""), "0.412 (1 seed)");
    }
}
