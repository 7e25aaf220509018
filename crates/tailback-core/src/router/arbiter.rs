//! Round-robin choice over bit masks.

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
