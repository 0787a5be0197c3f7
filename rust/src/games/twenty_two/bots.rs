//! Twenty-Two's native bots: the random bot draws an index below the number
//! of legal actions and maps it to its action without listing them (a
//! discard's cards from a combinatorial number, a follow counted per rank),
//! and the heuristic (the strategy of `cardref.bots.heuristic.twenty_two`).

use crate::points::Count;
use super::rules::{
    at_least, beats_or_equals, rank_counts, rank_nibble, rank_of, ranks_up_to, BINOMIAL,
    EACH_RANK, FEWER_THAN, MAX_HAND,
};
use super::{FollowRule, Phase, TwentyTwo, CARDS, DISCARD, PLAY};
use crate::cards::{bits, nth_bit64};
use crate::game::{pick, Action, NativeBots, Rules};
use crate::rng::SplitMix64;

/// `SUBMASKS[mask][i]`: the `i`-th submask of the 4-bit `mask`, ascending (the
/// bits of `i` put into the set bits of `mask`), for `i < 2^popcount(mask)`.
/// A rank's cards are one nibble of a card set.
const SUBMASKS: [[u8; 16]; 16] = {
    let mut t = [[0u8; 16]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut i = 0;
        while i < 16 {
            let (mut m, mut bit, mut sub) = (mask as u8, 0, 0u8);
            while m != 0 {
                if i >> bit & 1 == 1 {
                    sub |= m & m.wrapping_neg();
                }
                m &= m - 1;
                bit += 1;
            }
            t[mask][i] = sub;
            i += 1;
        }
        mask += 1;
    }
    t
};

/// `OF_SIZE[m][i]`: the `i`-th 4-bit pattern with `m` bits set, ascending. The
/// first C(c, m) of them use only the lowest `c` bits, so `SUBMASKS[nibble]` of
/// them are the m-card subsets of a nibble holding `c` cards.
const OF_SIZE: [[u8; 6]; 5] = {
    let mut t = [[0u8; 6]; 5];
    let mut next = [0usize; 5];
    let mut pattern = 0u8;
    while pattern < 16 {
        let m = pattern.count_ones() as usize;
        t[m][next[m]] = pattern;
        next[m] += 1;
        pattern += 1;
    }
    t
};

/// The card of `set` with `index` cards of the set below it (branch-free:
/// the index is random).
#[inline]
fn nth_bit(set: u64, index: usize) -> u64 {
    1 << nth_bit64(set, index as u32)
}

/// The `k` lowest cards of `hand` (1 <= k <= its size): up to its k-th card,
/// found without a loop of k steps.
#[inline]
fn lowest(hand: u64, k: u32) -> u64 {
    hand & ((2 << nth_bit64(hand, k - 1)) - 1)
}

/// The card sets that may follow `bar` from `hand` by beating or equalling it
/// (TT-7), counted without listing them and indexed: the i-th lowest card of
/// such a set ranks at least as high as the i-th lowest card of the bar, so a
/// card of rank r can only be one of the first `ranks_up_to(bar)[r]` cards of
/// the set. Row `ways[i]` counts, for each j, the `j`-card starts of such sets
/// from the `i` lowest cards of the hand; its counts are packed in `LANE`-bit
/// lanes of a `u64`, so a row is computed in a few operations, no loop over j.
/// A bar is one lead's size, at most 4 cards (one rank), so only the lanes
/// j = 0..=4 are ever filled.
struct Beating {
    hand: u64,
    k: usize,
    ways: [u64; MAX_HAND + 1],
}

/// Bits per count in a row of [`Beating`]: a count is at most C(11, 4) = 330,
/// so lanes never carry into each other; 5 lanes (j = 0..=4) fit 64 bits.
const LANE: usize = 12;

impl Beating {
    #[inline]
    fn new(hand: u64, bar: u64) -> Self {
        let k = bar.count_ones() as usize;
        debug_assert!(k <= 4);
        let up_to = ranks_up_to(bar);
        let mut ways = [0u64; MAX_HAND + 1];
        ways[0] = 1;
        for (i, card) in bits(hand as u128).enumerate() {
            // This card can be the j-th of a set for 1 <= j <= fits: add the
            // row shifted up one lane, in those lanes.
            let fits = rank_nibble(up_to, rank_of(card));
            let lanes = (1u64 << (LANE * (fits + 1))) - 1;
            ways[i + 1] = ways[i] + (ways[i] << LANE & lanes);
        }
        Beating { hand, k, ways }
    }

    /// The `j`-card starts from the `i` lowest cards.
    #[inline]
    fn way(&self, i: usize, j: usize) -> usize {
        (self.ways[i] >> (LANE * j)) as usize & ((1 << LANE) - 1)
    }

    fn count(&self) -> usize {
        self.way(self.hand.count_ones() as usize, self.k)
    }

    /// The `index`-th set (`index < count()`).
    fn nth(&self, index: usize) -> u64 {
        unrank(self.hand, self.k, index, |below, j| self.way(below, j))
    }
}

/// The `index`-th choice of `j` cards of `hand`, from the highest card down:
/// the choices without a card come first (`without(cards below it, cards
/// still to choose)` of them), then those with it; `without(_, 0)` must be 1.
/// The choice is arithmetic, not a branch: the index is random, so a branch
/// on it would often be mispredicted. The loop ends once `j` cards are taken
/// (an index below the count always gets there): the cards below the lowest
/// one taken need no visit, and a set that meets a bar is mostly high cards.
#[inline]
fn unrank(
    hand: u64,
    mut j: usize,
    mut index: usize,
    without: impl Fn(usize, usize) -> usize,
) -> u64 {
    let (mut set, mut rest) = (0u64, hand);
    while j != 0 {
        let card = 63 - rest.leading_zeros();
        rest ^= 1 << card;
        let skip = without(rest.count_ones() as usize, j);
        let take = index >= skip;
        index -= if take { skip } else { 0 };
        set |= u64::from(take) << card;
        j -= usize::from(take);
    }
    set
}

/// The cards of `hand` whose bit in `index` is set, bit i for the i-th lowest
/// card. A loop of fixed length: steps past the last card add nothing, and
/// each step depends on the previous one only through the cards left.
#[inline]
fn deposit(index: usize, hand: u64) -> u64 {
    debug_assert!(hand.count_ones() as usize <= MAX_HAND);
    let (mut set, mut rest) = (0u64, hand);
    for i in 0..MAX_HAND {
        let low = rest & rest.wrapping_neg();
        set |= low & (index as u64 >> i & 1).wrapping_neg();
        rest ^= low;
    }
    set
}

/// §5.2 leading by index: rank by rank, the nonempty subsets of the hand's
/// cards of that rank (`SUBMASKS` indices 1..), but never the whole hand of
/// two cards or more (TT-6: it is the last subset of its rank, so it is simply
/// left out of the count). A single card leads the final trick.
fn nth_lead(hand: u64, choose: impl FnOnce(usize) -> usize) -> u64 {
    // A rank with c cards has 2^c - 1 = 1 + 2 + .. + 2^(c-1) nonempty subsets:
    // per rank, set bit t-1 of its nibble when it holds at least t cards (the
    // count reaches 8 after adding 8 - t).
    let counts = rank_counts(hand);
    let holding = |t: u64| (counts + (8 - t) * EACH_RANK) & (8 * EACH_RANK);
    let options = holding(1) >> 3 | holding(2) >> 2 | holding(3) >> 1 | holding(4);
    let one_rank = hand & !(0xF << (4 * rank_of(hand.trailing_zeros()))) == 0;
    let keep_one = one_rank & (hand & (hand - 1) != 0);
    // Running totals of the options by rank, one byte per rank (at most 41
    // for 11 cards, so no carries): even ranks and odd ranks in separate words.
    const BYTES: u64 = 0x0101_0101_0101_0101;
    const LOW: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let even = (options & LOW).wrapping_mul(BYTES);
    let odd = (options >> 4 & LOW).wrapping_mul(BYTES);
    let (up_to_even, up_to_odd) = (even + (odd << 8), even + odd);
    let count = (up_to_odd >> 56) as usize - usize::from(keep_one);
    // The chosen rank is the number of ranks whose running total is at most
    // the index (a bytewise comparison): no loop, no branch on the random
    // index. Empty and later ranks' bytes hold the total, above every index.
    let index = choose(count) as u64;
    let at_most =
        |totals: u64| (((index * BYTES) | 0x8080_8080_8080_8080) - totals) & (0x80 * BYTES);
    let r = (at_most(up_to_even).count_ones() + at_most(up_to_odd).count_ones()) as u64;
    let odd_rank = (r & 1).wrapping_neg();
    let up_to = (up_to_even & !odd_rank | up_to_odd & odd_rank) >> (8 * (r >> 1)) & 0xFF;
    let here = options >> (4 * r) & 0xF;
    let within = index + here - up_to; // the index among this rank's subsets
    let nibble = rank_nibble(hand, r as u32);
    (SUBMASKS[nibble][(within + 1) as usize & 15] as u64) << (4 * r)
}

pub(super) fn card_list(set: u64) -> ([u8; 64], usize) {
    let mut out = [0u8; 64];
    let mut n = 0;
    for c in bits(set as u128) {
        out[n] = c as u8;
        n += 1;
    }
    (out, n)
}

impl<C: Count> NativeBots for TwentyTwo<C> {
    /// A uniform draw without listing the legal actions: one multiply-shift
    /// draw (`pick`) of an index below their count, mapped to its action by
    /// [`TwentyTwo::nth_legal`] (no draw for a discard from an empty stock).
    #[inline(always)]
    fn random_action(&self, rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        self.nth_legal(|count| pick(rng, count))
    }

    /// The strategy of `cardref.bots.heuristic.twenty_two`: discard the high
    /// cards (jack and up, highest first) while the stock lasts; play the legal
    /// set that leaves the lowest hand (ranks left, highest first, compared
    /// lexicographically; the first such set in legal order).
    fn heuristic_action(&self, _rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        let hand = self.hands[self.to_act as usize];
        if self.phase == Phase::Discard {
            let most = self.most_discards(hand);
            let high = hand & !((1u64 << (4 * 9)) - 1);
            let mut set = 0u64;
            for c in bits(high as u128)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .take(most)
            {
                set |= 1 << c;
            }
            return DISCARD | set;
        }
        buf.clear();
        self.legal_actions(buf);
        let left = |a: Action| {
            let rest = hand & !(a & CARDS);
            let mut ranks = [0u8; 13];
            let mut len = 0;
            for c in bits(rest as u128).collect::<Vec<_>>().into_iter().rev() {
                ranks[len] = rank_of(c) as u8;
                len += 1;
            }
            (ranks, len)
        };
        let mut best = buf[0];
        let mut best_key = left(best);
        for &a in &buf[1..] {
            let key = left(a);
            if key.0[..key.1] < best_key.0[..best_key.1] {
                best = a;
                best_key = key;
            }
        }
        best
    }
}

impl<C: Count> TwentyTwo<C> {
    /// The legal actions counted and indexed without listing them, for the
    /// random bot: `choose(count)` picks an index below the count, and this
    /// returns that action, in an order of its own (not the listing order of
    /// [`Rules::legal_actions`]; each legal action has exactly one index).
    /// `choose` is called once, also for a forced play (with a count of 1),
    /// except for a discard from an empty stock, where nothing is drawn.
    /// Inlined into the playout loop: leads and single-card follows (most
    /// actions) are short; discards and multi-card follows stay out of line.
    #[inline(always)]
    pub(super) fn nth_legal(&self, choose: impl FnOnce(usize) -> usize) -> Action {
        let hand = self.hands[self.to_act as usize];
        if self.phase == Phase::Discard {
            return DISCARD | self.nth_discard(hand, choose);
        }
        // The final trick's forced plays (TT-22) take the same paths.
        PLAY | if self.trick.len == 0 {
            nth_lead(hand, choose)
        } else {
            self.nth_follow(hand, choose)
        }
    }

    /// §5.1 by index. While the stock is as large as the hand, every subset
    /// is legal (TT-5 allows the whole hand): bit i of the index says whether
    /// the hand's i-th card goes. Otherwise first the size j (C(h, j) sets
    /// each), then the j-subset by the combinatorial number system (from the
    /// highest card down, take a card when the index reaches the count of
    /// subsets of the cards below it).
    #[inline(never)]
    fn nth_discard(&self, hand: u64, choose: impl FnOnce(usize) -> usize) -> u64 {
        let h = hand.count_ones() as usize;
        let most = self.most_discards(hand);
        if most == 0 {
            return 0;
        }
        if most == h {
            return deposit(choose(1 << h), hand);
        }
        let fewer = &FEWER_THAN[h];
        let index = choose(fewer[most + 1] as usize);
        // The size: how many block ends lie at or below the index (a loop of
        // fixed length; the ends past `most` exceed every index).
        let j = fewer[1..]
            .iter()
            .filter(|&&end| index >= end as usize)
            .count();
        unrank(hand, j, index - fewer[j] as usize, |below, j| {
            BINOMIAL[below][j] as usize
        })
    }

    /// §5.2 following by index: the sets meeting the bar, then the lowest
    /// sets that do not (TT-10: the cards below the boundary rank of the k
    /// lowest, plus any of the hand's cards of that rank in the same number;
    /// they all share their ranks, so they all meet the bar or none does).
    #[inline(always)]
    fn nth_follow(&self, hand: u64, choose: impl FnOnce(usize) -> usize) -> u64 {
        let bar = self.trick.bar;
        if bar & (bar - 1) != 0 {
            return self.nth_follow_several(hand, choose);
        }
        // Single cards (the final trick's too): those of the bar's rank or
        // higher, and the hand's lowest-ranked ones.
        let beating = hand & at_least(rank_of(bar.trailing_zeros()));
        let lows = hand & 0xF << (4 * rank_of(hand.trailing_zeros()));
        // Masked, not branched on: under the default rule always allowed, but
        // the compiler cannot know that.
        let allowed = u64::from(self.lows_allowed(beating.count_ones() as usize)).wrapping_neg();
        let legal = beating | lows & allowed;
        nth_bit(legal, choose(legal.count_ones() as usize))
    }

    /// Whether lowest sets that do not meet the bar are legal, given how many
    /// sets meet it (TT-11).
    #[inline]
    fn lows_allowed(&self, beats: usize) -> bool {
        (self.params.follow_rule == FollowRule::FreeChoice) | (beats == 0)
    }

    /// [`Self::nth_follow`] for a bar of several cards (kept out of line: the
    /// counting table is large, and such follows are few).
    #[inline(never)]
    fn nth_follow_several(&self, hand: u64, choose: impl FnOnce(usize) -> usize) -> u64 {
        let bar = self.trick.bar;
        let k = bar.count_ones();
        let low = lowest(hand, k);
        let top = rank_of(63 - low.leading_zeros());
        let at_top = rank_nibble(hand, top);
        let beating = Beating::new(hand, bar);
        let beats = beating.count();
        let taken = rank_nibble(low, top).count_ones() as usize;
        let lows = if self.lows_allowed(beats) & !beats_or_equals(low, bar) {
            BINOMIAL[at_top.count_ones() as usize][taken] as usize
        } else {
            0
        };
        let index = choose(beats + lows);
        if index < beats {
            return beating.nth(index);
        }
        let chosen = SUBMASKS[at_top][OF_SIZE[taken][index - beats] as usize] as u64;
        low & !(0xF << (4 * top)) | chosen << (4 * top)
    }
}
