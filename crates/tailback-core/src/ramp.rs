//! The ramp-load method: offered load rises steadily from zero; throughput and latency are
//! sampled in fixed windows and smoothed with a trailing moving average; the *critical load* is
//! the offered load at which smoothed throughput first falls a given fraction below it.

use crate::stats::SeriesRow;

/// Trailing moving average over `window` samples (shorter at the start).
pub fn smooth(values: &[f64], window: usize) -> Vec<f64> {
    let window = window.max(1);
    let mut sum = 0.0;
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            sum += v;
            if i >= window {
                sum -= values[i - window];
            }
            sum / (i + 1).min(window) as f64
        })
        .collect()
}

/// The smoothed offered load at the first sample, among those whose moving average spans a
/// whole `window`, where smoothed throughput is more than `drop` (a fraction) below smoothed
/// offered load; `None` if throughput keeps up to the end.
pub fn critical_load(offered: &[f64], throughput: &[f64], window: usize, drop: f64) -> Option<f64> {
    let (offered, throughput) = (smooth(offered, window), smooth(throughput, window));
    (window.max(1) - 1..offered.len())
        .find(|&i| throughput[i] < (1.0 - drop) * offered[i])
        .map(|i| offered[i])
}

/// The ramp's nominal offered load in each series window: `slope` times the window's middle
/// cycle (the load the sources were asked for, free of sampling noise).
pub fn nominal_offered(series: &[SeriesRow], window: u64, slope: f64) -> Vec<f64> {
    series
        .iter()
        .map(|row| slope * (row.cycle as f64 - window as f64 / 2.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_average_of_a_ramp_lags_by_half_the_window() {
        let ramp: Vec<f64> = (0..100).map(f64::from).collect();
        let s = smooth(&ramp, 10);
        assert_eq!(s[0], 0.0);
        assert_eq!(s[3], 1.5);
        assert!((s[50] - 45.5).abs() < 1e-12);
    }

    #[test]
    fn finds_the_knee_of_a_synthetic_curve() {
        // Offered rises 0.001 per sample; throughput follows it up to 0.05, then stays flat.
        let offered: Vec<f64> = (0..200).map(|i| 0.001 * i as f64).collect();
        let throughput: Vec<f64> = offered.iter().map(|&o| o.min(0.05)).collect();
        let exact = critical_load(&offered, &throughput, 1, 0.1).unwrap();
        // Flat at 0.05: 10% below offered once offered exceeds 0.05 / 0.9 = 0.0556.
        assert!((exact - 0.056).abs() < 1e-9, "{exact}");
        // Smoothing over 20 samples rounds the knee but finds it within a few samples.
        let smoothed = critical_load(&offered, &throughput, 20, 0.1).unwrap();
        assert!((smoothed - 0.0556).abs() < 0.003, "{smoothed}");
        // A network that keeps up has no critical load.
        assert_eq!(critical_load(&offered, &offered, 20, 0.1), None);
    }

    #[test]
    fn noise_around_the_ideal_line_is_not_a_knee() {
        // Throughput alternates 15% above and below offered: the average keeps up.
        let offered: Vec<f64> = (1..=400).map(|i| 0.0005 * i as f64).collect();
        let noisy: Vec<f64> = offered
            .iter()
            .enumerate()
            .map(|(i, &o)| if i % 2 == 0 { 1.15 * o } else { 0.85 * o })
            .collect();
        assert_eq!(critical_load(&offered, &noisy, 40, 0.1), None);
        assert!(critical_load(&offered, &noisy, 1, 0.1).is_some());
    }
}
