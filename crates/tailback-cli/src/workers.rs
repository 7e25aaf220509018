//! How many simulations run at once (`-j`), and how many points a sweep may plan: both counted
//! before anything is started or materialised.

/// Points a sweep may plan unless `--max-points` raises it: each point is validated and held in
/// memory before the first runs.
pub const DEFAULT_MAX_POINTS: u64 = 1_000_000;

/// Simulations run at once: `asked` (`-j`, at least 1 by its parser) or the number of cores, at
/// most `points` when the points are known (more threads would only idle). Warns when asked for
/// more than the machine's cores.
pub fn threads(asked: Option<u32>, points: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = asked.map_or(cores, |n| n as usize);
    if threads > cores {
        eprintln!(
            "warning: -j {threads} runs more simulations at once than this machine's {cores} \
             cores; they share the cores and each takes longer"
        );
    }
    points.map_or(threads, |points| threads.min(points.max(1)))
}

/// The number of points of axes with `lengths` values each and `seeds` seeds, or `None` past
/// `u64`.
pub fn point_count(lengths: impl IntoIterator<Item = usize>, seeds: u32) -> Option<u64> {
    lengths
        .into_iter()
        .try_fold(u64::from(seeds.max(1)), |count, len| {
            count.checked_mul(len as u64)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_never_exceed_the_points() {
        assert_eq!(threads(Some(2000), Some(2)), 2);
        assert_eq!(threads(Some(3), Some(10)), 3);
        assert_eq!(threads(Some(3), None), 3);
        assert_eq!(threads(Some(1), Some(0)), 1);
    }

    #[test]
    fn point_counts_multiply_and_saturate_to_none() {
        assert_eq!(point_count([10_001, 100_000], 1), Some(1_000_100_000));
        assert_eq!(point_count([4, 2], 3), Some(24));
        assert_eq!(point_count([], 5), Some(5));
        assert_eq!(point_count([usize::MAX, usize::MAX], 1), None);
    }
}
