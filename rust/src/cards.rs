//! Card-code helpers shared by the games: checking an explicit deck against the
//! cards in play, and compact bitset hands.

use crate::game::{Action, Error};

/// Checks that `given` (top card first) is a permutation of `canonical` (the
/// cards in play, with repeats where a card exists more than once) and returns,
/// for each given card, its index in `canonical`. Equal codes map to their
/// canonical occurrences in order, so the result is itself a permutation.
pub fn check_deck(given: &[String], canonical: &[String]) -> Result<Vec<usize>, Error> {
    let bad = |message: String| Error::InvalidDeck { message };
    let mut used = vec![false; canonical.len()];
    let mut order = Vec::with_capacity(given.len());
    for (pos, code) in given.iter().enumerate() {
        let mut known = false;
        let slot = canonical.iter().enumerate().position(|(i, c)| {
            known |= c == code;
            c == code && !used[i]
        });
        match slot {
            Some(i) => {
                used[i] = true;
                order.push(i);
            }
            None if known => {
                return Err(bad(format!(
                    "card {code:?} at position {pos} appears more often than the game has it"
                )))
            }
            None => {
                return Err(bad(format!(
                    "{code:?} at position {pos} is not a card of this game"
                )))
            }
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(bad(format!(
            "the deck has {} cards, expected {}; missing {:?}",
            given.len(),
            canonical.len(),
            canonical[i]
        )));
    }
    Ok(order)
}

/// Appends the set bits of a 128-bit card set, lowest first, as actions.
#[inline]
pub fn push_bits(set: u128, out: &mut Vec<Action>) {
    out.reserve(set.count_ones() as usize);
    for (half, base) in [(set as u64, 0u32), ((set >> 64) as u64, 64)] {
        let mut rest = half;
        while rest != 0 {
            out.push(Action::from(base + rest.trailing_zeros()));
            rest &= rest - 1;
        }
    }
}

/// `SELECT_IN_BYTE[k][b]`: the position of the `k`-th lowest set bit of byte `b`.
pub(crate) static SELECT_IN_BYTE: [[u8; 256]; 8] = {
    let mut table = [[0; 256]; 8];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut i) = (0, 0);
        while i < 8 {
            if b >> i & 1 == 1 {
                table[k][b] = i as u8;
                k += 1;
            }
            i += 1;
        }
        b += 1;
    }
    table
};

/// The position of the `k`-th lowest set bit of `x` (`k` below its count).
/// Branch-free (a random bot's `k` is random, so a loop of `k` steps would
/// mispredict its exit nearly every time): running popcounts per byte find the
/// byte, a table finds the bit in it.
#[inline]
pub fn nth_bit64(x: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut count = x - ((x >> 1) & 0x5555_5555_5555_5555);
    count = (count & 0x3333_3333_3333_3333) + ((count >> 2) & 0x3333_3333_3333_3333);
    count = (count + (count >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i of `running`: the set bits in bytes 0..=i (at most 64, so each
    // byte of `k | HIGH` minus it keeps its high bit exactly when it is <= k).
    let running = count.wrapping_mul(ONES);
    let byte = ((((k as u64 * ONES) | HIGH) - running) & HIGH).count_ones();
    let before = ((running << 8) >> (8 * byte)) as u8 as u32;
    let bits = (x >> (8 * byte)) as u8;
    8 * byte + SELECT_IN_BYTE[(k - before) as usize & 7][bits as usize] as u32
}

/// The position of the `k`-th lowest set bit of a 128-bit card set.
#[inline]
pub fn nth_bit(set: u128, k: usize) -> u32 {
    let k = k as u32;
    let below = (set as u64).count_ones();
    let high = k >= below;
    let half = if high { (set >> 64) as u64 } else { set as u64 };
    let k = k - if high { below } else { 0 };
    (if high { 64 } else { 0 }) + nth_bit64(half, k)
}

/// Iterates the set bits of a 128-bit card set, lowest first.
#[inline]
pub fn bits(mut set: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let b = set.trailing_zeros();
            set &= set - 1;
            Some(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn repeats_map_to_distinct_slots() {
        let canon = codes(&["1", "1", "2"]);
        assert_eq!(
            check_deck(&codes(&["1", "2", "1"]), &canon).unwrap(),
            vec![0, 2, 1]
        );
    }

    #[test]
    fn missing_extra_and_unknown_cards_are_named() {
        let canon = codes(&["1", "2", "3"]);
        for (deck, needle) in [
            (vec!["1", "2"], "missing \"3\""),
            (vec!["1", "2", "2"], "more often"),
            (vec!["1", "2", "x"], "not a card"),
        ] {
            let err = check_deck(&codes(&deck), &canon).unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        }
    }

    #[test]
    fn push_bits_spans_both_halves() {
        let mut out = vec![7];
        push_bits((1u128 << 104) | (1 << 64) | (1 << 63) | 2, &mut out);
        assert_eq!(out, vec![7, 1, 63, 64, 104]);
    }

    #[test]
    fn nth_bit_counts_set_bits_in_both_halves() {
        let mut g = crate::rng::SplitMix64::new(3);
        for _ in 0..500 {
            let mut wide = || (g.next_u64() as u128) << 64 | g.next_u64() as u128;
            let set = wide() & wide();
            for (k, b) in bits(set).enumerate() {
                assert_eq!(nth_bit(set, k), b, "{set:#x} k={k}");
            }
        }
    }

    #[test]
    fn nth_bit_of_full_and_single_bit_words() {
        for k in 0..64 {
            assert_eq!(nth_bit64(u64::MAX, k), k);
            assert_eq!(nth_bit64(1 << k, 0), k);
            assert_eq!(nth_bit(u128::MAX, 64 + k as usize), 64 + k);
        }
    }

    #[test]
    fn bits_are_ascending() {
        let set: u128 = (1 << 3) | (1 << 100) | 1;
        assert_eq!(bits(set).collect::<Vec<_>>(), vec![0, 3, 100]);
    }
}
