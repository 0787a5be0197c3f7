//! The generator and shuffle that both engines share (docs/rules/CONVENTIONS.md, "Randomness").
//!
//! SplitMix64 is tiny, has a 64-bit state that serialises as one integer, and is
//! trivial to reproduce bit for bit in Python, which is why the rule book uses it.

/// SplitMix64. The whole state is one `u64`; the initial state is the seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitMix64 {
    /// The current state; stored in every game's JSON as `rng`.
    pub state: u64,
}

impl SplitMix64 {
    /// A generator whose initial state is `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64-bit output.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `[0, n)` by rejection: redraw while
    /// `x >= 2^64 - (2^64 mod n)`. `n` must be at least 1.
    #[inline]
    pub fn bounded(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let x = self.next_u64();
        // The limit 2^64 - (2^64 mod n) is above 2^64 - n - 1, so draws up to
        // there need no second division to be accepted.
        if x <= u64::MAX - n {
            return x % n;
        }
        let (rest, value) = self.bounded_tail(x, n);
        *self = rest;
        value
    }

    /// The rest of `bounded` for a draw `x` above `2^64 - n - 1`: so rare for
    /// small `n` that keeping it out of line keeps shuffle loops tight. It
    /// takes and returns the generator by value, so a caller's generator can
    /// live in a register.
    #[cold]
    #[inline(never)]
    fn bounded_tail(mut self, mut x: u64, n: u64) -> (Self, u64) {
        // 2^64 mod n, computed in 64 bits as (2^64 - n) mod n.
        let rem = n.wrapping_neg() % n;
        loop {
            if x <= u64::MAX - n || rem == 0 || x < 0u64.wrapping_sub(rem) {
                return (self, x % n);
            }
            x = self.next_u64();
        }
    }

    /// Fisher–Yates: for i from len-1 down to 1, swap a[i] with a[bounded(i+1)].
    /// It draws from a local copy of the generator, which stays in a register
    /// instead of going through memory on every draw.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        let mut g = *self;
        for i in (1..items.len()).rev() {
            let j = g.bounded(i as u64 + 1) as usize;
            items.swap(i, j);
        }
        *self = g;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_matches_the_published_first_output() {
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(g.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn state_wraps_modulo_two_to_the_64() {
        let mut g = SplitMix64::new(u64::MAX);
        g.next_u64();
        assert_eq!(g.state, u64::MAX.wrapping_add(0x9E37_79B9_7F4A_7C15));
    }

    #[test]
    fn bounded_rejects_the_biased_tail() {
        // For n = 3, 2^64 mod 3 = 1, so only x = 2^64 - 1 is rejected.
        let mut g = SplitMix64::new(42);
        for n in [1u64, 2, 3, 7, 10, 104, u64::MAX] {
            for _ in 0..100 {
                assert!(g.bounded(n) < n);
            }
        }
        let mut one = SplitMix64::new(5);
        assert_eq!(one.bounded(1), 0);
        assert_eq!(
            one.state,
            SplitMix64::new(5).state.wrapping_add(0x9E37_79B9_7F4A_7C15)
        );
    }

    /// `bounded` written the slow, obvious way with 128-bit arithmetic.
    fn bounded_by_definition(g: &mut SplitMix64, n: u64) -> u64 {
        let limit = (1u128 << 64) - ((1u128 << 64) % n as u128);
        loop {
            let x = g.next_u64();
            if (x as u128) < limit {
                return x % n;
            }
        }
    }

    #[test]
    fn bounded_matches_its_definition_including_rejections() {
        // n = 2^63 + 1 rejects almost half of all draws, so the slow path runs.
        for n in [
            1u64,
            3,
            104,
            (1 << 63) + 1,
            (1 << 63) + 12345,
            u64::MAX,
            1 << 40,
        ] {
            let (mut fast, mut slow) = (SplitMix64::new(n), SplitMix64::new(n));
            for _ in 0..200 {
                assert_eq!(
                    fast.bounded(n),
                    bounded_by_definition(&mut slow, n),
                    "n = {n}"
                );
                assert_eq!(fast.state, slow.state);
            }
        }
    }

    /// The shuffle draws exactly as `bounded` does, for every length.
    #[test]
    fn shuffle_is_fisher_yates_with_bounded() {
        for len in [0usize, 1, 2, 3, 10, 52, 75, 104, 128, 129, 200] {
            for seed in 0..20 {
                let mut fast = SplitMix64::new(seed);
                let mut items: Vec<usize> = (0..len).collect();
                fast.shuffle(&mut items);
                let mut slow = SplitMix64::new(seed);
                let mut expect: Vec<usize> = (0..len).collect();
                for i in (1..len).rev() {
                    let j = slow.bounded(i as u64 + 1) as usize;
                    expect.swap(i, j);
                }
                assert_eq!(items, expect, "len {len}, seed {seed}");
                assert_eq!(fast, slow);
            }
        }
    }

    #[test]
    fn shuffle_vector_is_pinned() {
        let mut g = SplitMix64::new(0);
        let mut v: Vec<u32> = (0..10).collect();
        g.shuffle(&mut v);
        assert_eq!(v, SHUFFLE_SEED0_OF_10);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
    }

    /// The order of 0..10 after one shuffle with seed 0, also pinned in tests/test_rng.py.
    const SHUFFLE_SEED0_OF_10: [u32; 10] = [6, 3, 2, 9, 8, 1, 4, 7, 0, 5];
}
