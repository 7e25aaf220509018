//! A fixed-size set of small integers, iterated in increasing order.

/// Set of indices below a fixed bound.
#[derive(Debug, Clone, Default)]
pub(crate) struct BitSet {
    words: Vec<u64>,
    len: usize,
}

impl BitSet {
    pub(crate) fn new(bound: usize) -> BitSet {
        BitSet {
            words: vec![0; bound.div_ceil(64)],
            len: 0,
        }
    }

    /// Adds `i`; returns whether it was absent.
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) -> bool {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let absent = self.words[word] & bit == 0;
        self.words[word] |= bit;
        self.len += usize::from(absent);
        absent
    }

    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Calls `f` on every member in increasing order; members for which `f` returns false are
    /// removed. `f` must not insert into the set.
    #[inline]
    pub(crate) fn retain(&mut self, mut f: impl FnMut(usize) -> bool) {
        for w in 0..self.words.len() {
            let mut bits = self.words[w];
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !f(w * 64 + b) {
                    self.words[w] &= !(1 << b);
                    self.len -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retain_visits_in_order_and_removes() {
        let mut s = BitSet::new(200);
        for i in [130, 3, 64, 199, 3] {
            s.insert(i);
        }
        let mut seen = Vec::new();
        s.retain(|i| {
            seen.push(i);
            i != 64
        });
        assert_eq!(seen, vec![3, 64, 130, 199]);
        assert!(!s.contains(64) && s.contains(130));
        let mut left = 0;
        s.retain(|_| {
            left += 1;
            false
        });
        assert_eq!(left, 3);
        assert!(s.is_empty());
    }
}
