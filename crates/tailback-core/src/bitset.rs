//! Bit sets: a fixed-size set of small integers iterated in increasing order, and the
//! iteration and round-robin choice over 32- and 64-bit masks the router and NIC use.

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

    /// Removes `i` if present.
    #[inline]
    pub(crate) fn remove(&mut self, i: usize) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        self.len -= usize::from(self.words[word] & bit != 0);
        self.words[word] &= !bit;
    }

    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Moves every member into `other`, leaving this set empty.
    pub(crate) fn drain_into(&mut self, other: &mut BitSet) {
        if self.len == 0 {
            return;
        }
        for (w, word) in self.words.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                other.insert(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        self.len = 0;
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

/// The first set bit of `mask` strictly after position `last`, wrapping around 32 bits.
#[inline]
pub(crate) fn next_after_32(mask: u32, last: u32) -> u32 {
    debug_assert!(mask != 0);
    let start = (last + 1) & 31;
    (mask.rotate_right(start).trailing_zeros() + start) & 31
}

/// The first set bit of `mask` strictly after position `last`, wrapping around 64 bits.
#[inline]
pub(crate) fn next_after_64(mask: u64, last: u32) -> u32 {
    debug_assert!(mask != 0);
    let start = (last + 1) & 63;
    (mask.rotate_right(start).trailing_zeros() + start) & 63
}

/// The set bits of a mask, lowest first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub(crate) fn bits64(mask: u64) -> Bits {
    Bits(mask)
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub(crate) fn bits32(mask: u32) -> Bits {
    Bits(mask as u64)
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

    #[test]
    fn round_robin_wraps_and_skips_the_last_winner() {
        assert_eq!(next_after_32(0b1011, 0), 1);
        assert_eq!(next_after_32(0b1011, 1), 3);
        assert_eq!(next_after_32(0b1011, 3), 0);
        assert_eq!(next_after_32(0b0100, 2), 2);
        assert_eq!(next_after_32(1 << 31, 31), 31);
        assert_eq!(next_after_64(1 | (1 << 63), 63), 0);
        assert_eq!(next_after_64(1 | (1 << 63), 0), 63);
        assert_eq!(bits64(0b10110).collect::<Vec<_>>(), vec![1, 2, 4]);
    }
}
