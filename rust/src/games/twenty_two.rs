//! Twenty-Two (22), as specified in `docs/rules/twenty_two.md`.
//!
//! One 52-card deck; ranks 2 < … < 10 < J < Q < K < A, suits only make cards
//! distinct; values 2–10 face, J/Q/K 10, A 11 (TT-19). Each hand is dealt from
//! the pool (the 52 cards minus every score-pile card, TT-3), `min(target_size,
//! pool / active)` cards each (TT-1, TT-2), from the first active seat after the
//! dealer (an eliminated dealer still deals, TT-17). Each active seat once may
//! discard up to min(hand, stock) cards face down and draw as many (TT-5).
//! Then tricks: a lead is 1..h-1 cards of one rank (TT-6); a follower plays
//! exactly k cards that beat or equal the bar position by position (TT-7) or are
//! its lowest set (TT-10), free choice by default (TT-11); a set meeting the bar
//! becomes the bar (TT-8, TT-9, TT-12). The bar's holder wins a trick and leads
//! next. In the final one-card trick the highest rank keeps its card as a
//! penalty (ties: TT-14, TT-15); its value sets the next deal size (TT-1). A
//! seat reaching `elimination_score` is out (TT-16); the last seat left wins,
//! or the lowest score among those going out together (TT-18).
//!
//! Representation: a card is `rank * 4 + suit` (0..52), so the bits of a `u64`
//! set ascend in play order (rank, then suit C < D < H < S). Hands, discards and
//! score piles are such sets; the stock is an array, top first. An action code
//! is a card set plus a verb bit: `DISCARD | set` or `PLAY | set`.

use crate::cards::{bits, check_deck, nth_bit64};
use crate::game::{
    competition_placements, count_by_listing, pick, Action, Error, Game, GameSpec, NativeBots,
    Outcome, Rules, Search, StateJson,
};
use crate::json::{self, ensure};
use crate::params::{choice_key, invalid, variant_keys, CustomKey, KeyValue, Param, Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

/// Most seats at a table (TT-20).
pub const MAX_PLAYERS: usize = 6;
/// Most completed non-final tricks in a hand: a hand has at most 11 cards and
/// the final trick needs one.
const MAX_TRICKS: usize = 10;
const NONE: u8 = u8::MAX;
/// Actions reserved for a game's history at the start: a four-player game
/// takes about 300, so most games never grow it.
const HISTORY_CAPACITY: usize = 512;
const DISCARD: Action = 1 << 52;
const PLAY: Action = 1 << 53;
const CARDS: u64 = (1 << 52) - 1;

// ---------------------------------------------------------------------------
// §1–2 Cards
// ---------------------------------------------------------------------------

/// Rank of a card, 0 (a 2) to 12 (an ace).
#[inline]
fn rank(card: u32) -> u32 {
    card >> 2
}

/// Point value of a rank (TT-19).
#[inline]
fn rank_value(r: u32) -> u32 {
    match r {
        0..=8 => r + 2,
        9..=11 => 10,
        _ => 11,
    }
}

/// `RANK_BIT[b]`: the cards whose rank has bit `b` set.
const RANK_BIT: [u64; 4] = {
    let mut t = [0u64; 4];
    let mut card = 0;
    while card < 52 {
        let mut b = 0;
        while b < 4 {
            t[b] |= ((card as u64 >> 2) >> b & 1) << card;
            b += 1;
        }
        card += 1;
    }
    t
};

/// The cards of rank `r`.
const fn of_rank(r: u32) -> u64 {
    0xF << (4 * r)
}

/// The point value of a set, counted without a loop over its cards (whose
/// exit a branch predictor misses): a card is worth its rank + 2, less 1 for
/// a jack, 2 for a queen and 3 for a king or an ace (TT-19).
fn set_value(set: u64) -> i64 {
    let ranks: u32 = (0..4).map(|b| (set & RANK_BIT[b]).count_ones() << b).sum();
    let courts = (set & of_rank(9)).count_ones()
        + 2 * (set & of_rank(10)).count_ones()
        + 3 * (set & (of_rank(11) | of_rank(12))).count_ones();
    (ranks + 2 * set.count_ones() - courts) as i64
}

/// `NEXT_ACTIVE[active][seat]`: the first seat after `seat`, clockwise, whose
/// bit is set in `active` (`seat` itself if no other is).
const NEXT_ACTIVE: [[u8; 8]; 64] = {
    let mut t = [[0u8; 8]; 64];
    let mut active = 0;
    while active < 64 {
        let mut seat = 0;
        while seat < 8 {
            // The active bits twice, 8 apart, and `seat` itself in the upper
            // copy: the first bit above `seat` is the answer, modulo 8.
            let twice = (active as u32 * 0x101) | (1 << (seat + 8));
            let step = 1 + (twice >> (seat + 1)).trailing_zeros();
            t[active][seat] = ((seat as u32 + step) & 7) as u8;
            seat += 1;
        }
        active += 1;
    }
    t
};

/// The canonical order (suits C, D, H, S; 2 .. A) as card indices.
const CANONICAL: [u8; 52] = {
    let mut order = [0u8; 52];
    let mut i = 0;
    while i < 52 {
        order[i] = ((i % 13) * 4 + i / 13) as u8;
        i += 1;
    }
    order
};

/// The card at position `i` of the canonical order.
#[inline]
fn canonical_card(i: usize) -> u8 {
    CANONICAL[i]
}

/// Card codes by card index (rank * 4 + suit), i.e. in play order.
const CARD_CODES: [&str; 52] = [
    "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D", "4H", "4S", "5C", "5D", "5H", "5S",
    "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S", "9C", "9D", "9H", "9S",
    "10C", "10D", "10H", "10S", "JC", "JD", "JH", "JS", "QC", "QD", "QH", "QS", "KC", "KD", "KH",
    "KS", "AC", "AD", "AH", "AS",
];

#[inline]
fn card_text(card: u32) -> &'static str {
    CARD_CODES[card as usize]
}

fn parse_card(text: &str) -> Option<u32> {
    CARD_CODES.iter().position(|c| *c == text).map(|i| i as u32)
}

fn set_texts(set: u64) -> Vec<&'static str> {
    bits(set as u128).map(card_text).collect()
}

/// The canonical 52 card codes, as an explicit deck must list them.
pub fn canonical_deck() -> Vec<String> {
    (0..52)
        .map(|i| card_text(canonical_card(i) as u32).to_string())
        .collect()
}

// ---------------------------------------------------------------------------
// §8 Variants
// ---------------------------------------------------------------------------

/// `first_dealer`: a seat, or `"random"` (TT-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstDealer {
    /// This seat deals first.
    Seat(usize),
    /// The first generator call, `bounded(N)`, picks the dealer.
    Random,
}

impl KeyValue for FirstDealer {
    fn to_json(&self) -> Value {
        match self {
            FirstDealer::Seat(s) => json!(s),
            FirstDealer::Random => json!("random"),
        }
    }
}

impl CustomKey for FirstDealer {
    fn default_value() -> Self {
        FirstDealer::Seat(0)
    }

    /// A seat number (checked against the table in `check_config`) or "random".
    fn read(given: Param) -> Result<Self, String> {
        match given {
            Param::Str(s) if s == "random" => Ok(FirstDealer::Random),
            Param::Int(s) if s >= 0 => Ok(FirstDealer::Seat(s as usize)),
            other => Err(format!(
                "must be a seat number or \"random\", got {}",
                other.describe()
            )),
        }
    }
}

choice_key! {
    /// `follow_rule` (TT-11).
    pub enum FollowRule {
        /// Any set that beats or equals the bar, or a lowest set.
        FreeChoice = "free_choice",
        /// A lowest set only when nothing beats or equals the bar.
        LowestOnlyIfCannotBeat = "lowest_only_if_cannot_beat",
    }
}

choice_key! {
    /// `last_trick_tie` (TT-14).
    pub enum LastTrickTie {
        /// Every seat that played the highest rank scores.
        AllTiedScore = "all_tied_score",
        /// Only the last of them.
        LastPlayedWins = "last_played_wins",
        /// Only the first of them.
        FirstPlayedWins = "first_played_wins",
    }
}

choice_key! {
    /// `tied_dealer` (TT-15).
    pub enum TiedDealer {
        /// The last tied seat deals next.
        Last = "last",
        /// The first tied seat deals next.
        First = "first",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Params {
        /// The first dealer.
        first_dealer: FirstDealer = custom,
        /// The first hand's target size, 2..=8.
        first_hand_size: u8 = int(7, 2, 8),
        /// The score that puts a seat out, 2..=30.
        elimination_score: i64 = int(22, 2, 30),
        /// What a follower may play.
        follow_rule: FollowRule = choice,
        /// Who scores a tied final trick.
        last_trick_tie: LastTrickTie = choice,
        /// Who of the tied seats deals next.
        tied_dealer: TiedDealer = choice,
    }
}

impl Variant for Params {
    /// The checks that involve the player count or two keys at once (§8).
    fn check_config(&self) -> Result<(), Error> {
        if let FirstDealer::Seat(s) = self.first_dealer {
            if s >= self.players {
                return Err(invalid(
                    "first_dealer",
                    format!(
                        "must be a seat from 0 to {} or \"random\", got the integer {s}",
                        self.players - 1
                    ),
                ));
            }
        }
        if self.tied_dealer == TiedDealer::First && self.last_trick_tie != LastTrickTie::AllTiedScore {
            return Err(invalid(
                "tied_dealer",
                "\"first\" is allowed only with last_trick_tie = \"all_tied_score\"".into(),
            ));
        }
        Ok(())
    }

    /// The 52 cards in canonical order: suits C, D, H, S; ranks 2 .. A (§2).
    fn canonical_deck(&self) -> Vec<String> {
        canonical_deck()
    }
}

// ---------------------------------------------------------------------------
// §5 helpers: comparing sets
// ---------------------------------------------------------------------------

/// How many cards of each rank a set holds, one nibble per rank (0..=4): the
/// popcount of each nibble, in parallel. Equal for sets that differ only in suits.
#[inline]
fn rank_counts(set: u64) -> u64 {
    let pairs = set - (set >> 1 & 0x5555_5555_5555_5555);
    (pairs & 0x3333_3333_3333_3333) + (pairs >> 2 & 0x3333_3333_3333_3333)
}

/// One in each of the 13 rank nibbles.
const EACH_RANK: u64 = 0x1_1111_1111_1111;

/// Per rank r, how many cards of `set` rank r or lower, one nibble per rank:
/// the counts summed upwards by one multiplication (no carries: a set here
/// holds at most 11 cards, so every sum fits its nibble).
#[inline]
fn ranks_up_to(set: u64) -> u64 {
    debug_assert!(set.count_ones() < 16);
    rank_counts(set).wrapping_mul(EACH_RANK) & CARDS
}

/// TT-7: both sorted by rank, every card of `set` is at least its counterpart.
/// Equivalently, for every rank r, `set` holds no more cards of rank r or
/// lower than `bar` does. The nibbles of those counts are compared in bytes
/// (even ranks, then odd ones), where a subtraction leaves the top bit of a
/// byte set exactly when `bar`'s count is not smaller; no branch.
#[inline]
fn beats_or_equals(set: u64, bar: u64) -> bool {
    if set & set.wrapping_sub(1) | bar & bar.wrapping_sub(1) == 0 {
        // Single cards (most plays) compare by rank; no card is at 64, so
        // two empty sets are equal.
        return ((set == 0) == (bar == 0))
            & (rank(set.trailing_zeros()) >= rank(bar.trailing_zeros()));
    }
    const LOW: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    const TOP: u64 = 0x8080_8080_8080_8080;
    let (s, b) = (ranks_up_to(set), ranks_up_to(bar));
    let even = (b & LOW | TOP) - (s & LOW);
    let odd = (b >> 4 & LOW | TOP) - (s >> 4 & LOW);
    (set.count_ones() == bar.count_ones()) & (even & odd & TOP == TOP)
}

/// TT-10: the ranks of `set` are the k lowest ranks of `hand`.
#[inline]
fn is_lowest_set(set: u64, hand: u64) -> bool {
    bits(set as u128)
        .zip(bits(hand as u128))
        .all(|(a, b)| rank(a) == rank(b))
}

/// The k highest cards of a hand: if any k-subset meets the bar, this one does.
fn highest(hand: u64, k: u32) -> u64 {
    let mut set = 0u64;
    let mut rest = hand;
    for _ in 0..k {
        let top = 63 - rest.leading_zeros();
        set |= 1 << top;
        rest &= !(1 << top);
    }
    set
}

/// The subsets of a hand in lexicographic order (of their cards listed
/// ascending), by size. Listing a hand's actions is on every Python-driven
/// step, and a discard lists up to 2^11 of them, so each subset is a slice
/// entry and three table lookups, with no step that waits on the last.
///
/// A subset is a pattern of `n` bits, the hand's i-th lowest card at bit
/// n-1-i: lexicographic order is then descending order of the patterns
/// ([`PATTERNS`]). A table per 4 bits of the pattern turns it into cards.
struct Subsets {
    nibbles: [[u64; 16]; 3],
    n: usize,
}

impl Subsets {
    fn new(hand: u64) -> Self {
        let n = hand.count_ones() as usize;
        debug_assert!(n <= MAX_HAND);
        let mut nibbles = [[0u64; 16]; 3];
        let mut rest = hand;
        // The highest card is bit 0: the cards from the top down, 4 per table.
        for bit in 0..n {
            let top = 1u64 << (63 - rest.leading_zeros());
            rest ^= top;
            let (table, b) = (&mut nibbles[bit / 4], bit % 4);
            for k in 1usize << b..2 << b {
                table[k] = table[k - (1 << b)] | top;
            }
        }
        Subsets { nibbles, n }
    }

    /// The subsets of `sizes` cards: by size, each size in lexicographic order.
    fn of_sizes(&self, sizes: std::ops::Range<usize>) -> impl Iterator<Item = u64> + '_ {
        let fewer = &FEWER_THAN[self.n];
        let start = fewer[sizes.start.min(self.n + 1)] as usize;
        let end = fewer[sizes.end.min(self.n + 1)] as usize;
        self.patterns()[start..end.max(start)]
            .iter()
            .map(|&p| self.cards(p))
    }

    /// The `index`-th subset in the order of `of_sizes(0..n + 1)`: no listing.
    fn nth(&self, index: usize) -> u64 {
        self.cards(self.patterns()[index])
    }

    /// All patterns of the hand's size, in order.
    fn patterns(&self) -> &'static [u16] {
        &PATTERNS[(1 << self.n) - 1..(2 << self.n) - 1]
    }

    #[inline]
    fn cards(&self, pattern: u16) -> u64 {
        let p = pattern as usize;
        self.nibbles[0][p & 15] | self.nibbles[1][p >> 4 & 15] | self.nibbles[2][p >> 8 & 15]
    }
}

/// Every pattern of `n` bits for n = 0..=`MAX_HAND`, a block of 2^n for
/// each (starting at 2^n - 1): by number of bits set, then descending. The
/// patterns with `j` bits start `FEWER_THAN[n][j]` into the block.
const PATTERNS: [u16; (2 << MAX_HAND) - 1] = {
    let mut t = [0u16; (2 << MAX_HAND) - 1];
    let mut next = 0;
    let mut n = 0;
    while n <= MAX_HAND {
        let mut j = 0;
        while j <= n {
            let mut v = 1u32 << n;
            while v > 0 {
                v -= 1;
                if v.count_ones() == j as u32 {
                    t[next] = v as u16;
                    next += 1;
                }
            }
            j += 1;
        }
        n += 1;
    }
    t
};

/// `RANK_SUBSETS[nibble][size]`: the `size`-card subsets of a rank's cards
/// (a nibble, bit = suit), in lexicographic order; C(cards, size) of them.
const RANK_SUBSETS: [[[u8; 6]; 5]; 16] = {
    let mut t = [[[0u8; 6]; 5]; 16];
    let mut nibble = 0;
    while nibble < 16 {
        let mut size = 0;
        while size <= 4 {
            // Lexicographic order is descending order of the suit-reversed patterns.
            let (mut next, mut reversed) = (0, 16);
            while reversed > 0 {
                reversed -= 1;
                let sub = (reversed & 1) << 3
                    | (reversed & 2) << 1
                    | (reversed & 4) >> 1
                    | (reversed & 8) >> 3;
                if sub & !nibble == 0 && (sub as u32).count_ones() == size as u32 {
                    t[nibble][size][next] = sub as u8;
                    next += 1;
                }
            }
            size += 1;
        }
        nibble += 1;
    }
    t
};

// ---------------------------------------------------------------------------
// §5 helpers: legal actions by index, for the random bot
// ---------------------------------------------------------------------------

/// Most cards a hand holds: the largest deal size (an ace's value).
const MAX_HAND: usize = 11;

/// `BINOMIAL[n][j]` = C(n, j) for n, j ≤ `MAX_HAND` (0 when j > n).
const BINOMIAL: [[u16; MAX_HAND + 1]; MAX_HAND + 1] = {
    let mut t = [[0u16; MAX_HAND + 1]; MAX_HAND + 1];
    let mut n = 0;
    while n <= MAX_HAND {
        t[n][0] = 1;
        let mut j = 1;
        while j <= n {
            t[n][j] = t[n - 1][j - 1] + t[n - 1][j];
            j += 1;
        }
        n += 1;
    }
    t
};

/// `FEWER_THAN[n][m]` = C(n, 0) + … + C(n, m - 1): the subsets of fewer than
/// `m` of `n` cards.
const FEWER_THAN: [[u16; MAX_HAND + 2]; MAX_HAND + 1] = {
    let mut t = [[0u16; MAX_HAND + 2]; MAX_HAND + 1];
    let mut n = 0;
    while n <= MAX_HAND {
        let mut m = 1;
        while m <= MAX_HAND + 1 {
            t[n][m] = t[n][m - 1] + BINOMIAL[n][m - 1];
            m += 1;
        }
        n += 1;
    }
    t
};

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

/// The cards of rank `r` in `set`, as a nibble.
#[inline]
fn rank_nibble(set: u64, r: u32) -> usize {
    (set >> (4 * r) & 0xF) as usize
}

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
            let fits = rank_nibble(up_to, rank(card));
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
    let one_rank = hand & !(0xF << (4 * rank(hand.trailing_zeros()))) == 0;
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

fn card_list(set: u64) -> ([u8; 64], usize) {
    let mut out = [0u8; 64];
    let mut n = 0;
    for c in bits(set as u128) {
        out[n] = c as u8;
        n += 1;
    }
    (out, n)
}

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Each active seat once may discard and draw (§5.1).
    Discard,
    /// Tricks (§5.2).
    Play,
    /// One seat or none left (§7).
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Discard => "discard",
            Phase::Play => "play",
            Phase::GameOver => "game_over",
        }
    }
}

/// A trick: who played which set, in order, and the best set so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Trick {
    leader: u8,
    len: u8,
    seats: [u8; MAX_PLAYERS],
    sets: [u64; MAX_PLAYERS],
    /// The set to beat or equal (empty before the lead).
    bar: u64,
    /// Its player (the winner, once the trick is complete); `NONE` before the lead.
    bar_holder: u8,
}

impl Trick {
    fn new(leader: u8) -> Self {
        Trick {
            leader,
            bar_holder: NONE,
            ..Trick::default()
        }
    }

    /// How many cards `seat` played to this trick.
    fn played_by(&self, seat: u8) -> u32 {
        (0..self.len as usize)
            .filter(|&i| self.seats[i] == seat)
            .map(|i| self.sets[i].count_ones())
            .sum()
    }

    fn plays_json(&self) -> Value {
        Value::Array(
            (0..self.len as usize)
                .map(|i| json!([self.seats[i], set_texts(self.sets[i])]))
                .collect(),
        )
    }
}

/// A Twenty-Two game in progress.
#[derive(Debug, Clone)]
pub struct TwentyTwo {
    params: Params,
    rng: SplitMix64,
    hand_number: u32,
    dealer: u8,
    target_size: u8,
    deal_size: u8,
    /// Bit s set while seat s is in the game.
    active: u8,
    /// Hand in which each seat went out; 0 while active (hands are numbered from 1).
    out_hand: [u32; MAX_PLAYERS],
    piles: [u64; MAX_PLAYERS],
    hands: [u64; MAX_PLAYERS],
    discards: [u64; MAX_PLAYERS],
    /// `stock[stock_top..stock_len]`, top first.
    stock: [u8; 52],
    stock_top: u8,
    stock_len: u8,
    /// `stock_sets[i]` for `stock_top <= i <= stock_len`: the cards of
    /// `stock[stock_top..i]` as a set, filled once per deal, so that a discard
    /// draws its j cards as `stock_sets[top + j] ^ stock_sets[top]`: two
    /// loads, not a loop over the stock. 64 entries: indices masked by 63
    /// need no bounds check.
    stock_sets: [u64; 64],
    phase: Phase,
    to_act: u8,
    trick: Trick,
    /// Completed tricks of this hand (capacity reserved once: no allocation in play).
    tricks: Vec<Trick>,
    /// The previous hand's final trick and the seats that scored in it (a bit set).
    last_trick: Option<(Trick, u8)>,
    history: Vec<Action>,
}

// ---------------------------------------------------------------------------
// §4 Setup, deal, dealer, leader
// ---------------------------------------------------------------------------

impl TwentyTwo {
    /// A new game: the first dealer (a generator call if random), then hand 1
    /// dealt from `deck` if given (top card first, no generator call).
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = TwentyTwo {
            params,
            rng: SplitMix64::new(seed),
            hand_number: 1,
            dealer: 0,
            target_size: params.first_hand_size,
            deal_size: 0,
            active: (1u8 << params.players) - 1,
            out_hand: [0; MAX_PLAYERS],
            piles: [0; MAX_PLAYERS],
            hands: [0; MAX_PLAYERS],
            discards: [0; MAX_PLAYERS],
            stock: [0; 52],
            stock_sets: [0; 64],
            stock_top: 0,
            stock_len: 0,
            phase: Phase::Discard,
            to_act: 0,
            trick: Trick::new(0),
            tricks: Vec::with_capacity(MAX_TRICKS),
            last_trick: None,
            history: Vec::with_capacity(HISTORY_CAPACITY),
        };
        game.dealer = match params.first_dealer {
            FirstDealer::Seat(seat) => seat as u8,
            FirstDealer::Random => game.rng.bounded(params.players as u64) as u8,
        };
        let mut cards = [0u8; 52];
        match deck {
            Some(given) => {
                let order = check_deck(given, &canonical_deck())?;
                for (slot, &i) in cards.iter_mut().zip(&order) {
                    *slot = canonical_card(i);
                }
                game.deal(&cards, 52);
            }
            None => {
                let len = game.shuffled_pool(&mut cards);
                game.deal(&cards, len);
            }
        }
        Ok(game)
    }

    fn n(&self) -> usize {
        self.params.players
    }

    fn is_active(&self, seat: u8) -> bool {
        self.active >> seat & 1 == 1
    }

    fn active_count(&self) -> u32 {
        self.active.count_ones()
    }

    /// The first active seat after `seat`, clockwise (`seat` itself if no
    /// other is active): one table look-up, as every play needs it.
    #[inline]
    fn next_active(&self, seat: u8) -> u8 {
        NEXT_ACTIVE[self.active as usize & 63][seat as usize & 7]
    }

    /// TT-3: every card not in a score pile, canonical order, into `out`; returns the count.
    fn pool(&self, out: &mut [u8; 52]) -> usize {
        let kept = self.piles.iter().fold(0u64, |a, &p| a | p);
        let mut len = 0;
        for card in CANONICAL {
            // Written either way, kept only if in the pool: no branch per card.
            out[len] = card;
            len += (kept >> card & 1 == 0) as usize;
        }
        len
    }

    fn shuffled_pool(&mut self, out: &mut [u8; 52]) -> usize {
        let len = self.pool(out);
        self.rng.shuffle(&mut out[..len]);
        len
    }

    /// §4 steps 1–5: `deal_size` each, one at a time from the dealer's left,
    /// skipping inactive seats; the rest is the stock. The deck is
    /// `deck[..len]`; it is copied whole, the stock starting after the dealt cards.
    fn deal(&mut self, deck: &[u8; 52], len: usize) {
        let p = self.active_count() as usize;
        self.deal_size = (self.target_size as usize).min(len / p) as u8;
        self.hands = [0; MAX_PLAYERS];
        let first = self.next_active(self.dealer);
        let dealt = self.deal_size as usize * p;
        // Round by round, the t-th card of a round to the seat dealt t-th (an
        // inner loop as long as the table, the same every round).
        let mut by_turn = [0u64; MAX_PLAYERS];
        for round in deck[..dealt].chunks_exact(p) {
            for (hand, &card) in by_turn.iter_mut().zip(round) {
                *hand |= 1 << card;
            }
        }
        let mut seat = first;
        for hand in &by_turn[..p] {
            self.hands[seat as usize] = *hand;
            seat = self.next_active(seat);
        }
        self.stock[..52].copy_from_slice(deck);
        self.stock_top = dealt as u8;
        self.stock_len = len as u8;
        self.index_stock();
        self.discards = [0; MAX_PLAYERS];
        self.tricks.clear();
        self.phase = Phase::Discard;
        self.to_act = first;
    }

    /// Fills `stock_sets` for the stock as it stands (after a deal or a load).
    fn index_stock(&mut self) {
        let (top, len) = (self.stock_top as usize, self.stock_len as usize);
        let mut set = 0u64;
        for (above, &card) in self.stock_sets[top..len]
            .iter_mut()
            .zip(&self.stock[top..len])
        {
            *above = set;
            set |= 1 << card;
        }
        self.stock_sets[len] = set;
    }

    /// §5.1: the most cards `hand` may discard (its size and the stock limit it).
    fn most_discards(&self, hand: u64) -> usize {
        hand.count_ones().min(self.stock_size()) as usize
    }

    fn stock_size(&self) -> u32 {
        (self.stock_len - self.stock_top) as u32
    }

    // -----------------------------------------------------------------------
    // §5 Turn structure and legal actions
    // -----------------------------------------------------------------------

    /// §5.1: j = 0..=min(hand, stock) cards, then lexicographic.
    fn discard_options(&self, out: &mut Vec<Action>) {
        let hand = self.hands[self.to_act as usize];
        let most = self.most_discards(hand);
        out.extend(
            Subsets::new(hand)
                .of_sizes(0..most + 1)
                .map(|set| DISCARD | set),
        );
    }

    /// §5.2 leading: 1..=h-1 cards of one rank (TT-6); by rank, size, suits.
    fn lead_options(&self, out: &mut Vec<Action>) {
        let hand = self.hands[self.to_act as usize];
        let most = hand.count_ones() as usize - 1;
        for r in 0..13u32 {
            let nibble = rank_nibble(hand, r);
            let n = nibble.count_ones() as usize;
            for size in 1..=n.min(most) {
                let sets = &RANK_SUBSETS[nibble][size][..BINOMIAL[n][size] as usize];
                out.extend(sets.iter().map(|&sub| PLAY | u64::from(sub) << (4 * r)));
            }
        }
    }

    /// §5.2 following: k cards meeting the bar, or a lowest set (TT-11).
    fn follow_options(&self, out: &mut Vec<Action>) {
        let hand = self.hands[self.to_act as usize];
        let bar = self.trick.bar;
        let k = bar.count_ones() as usize;
        let must_beat =
            self.params.follow_rule == FollowRule::LowestOnlyIfCannotBeat && beats_or_equals(highest(hand, k as u32), bar);
        let lowest_ok = !must_beat;
        let meets =
            |&set: &u64| beats_or_equals(set, bar) || (lowest_ok && is_lowest_set(set, hand));
        out.extend(
            Subsets::new(hand)
                .of_sizes(k..k + 1)
                .filter(meets)
                .map(|set| PLAY | set),
        );
    }

    /// Why a `play` of `set` by the player to act is illegal, if it is.
    fn play_problem(&self, set: u64) -> Option<String> {
        let hand = self.hands[self.to_act as usize];
        let h = hand.count_ones();
        let k = set.count_ones();
        if h == 1 {
            return (set != hand).then(|| "in the final trick it must play its last card".into());
        }
        if self.trick.len == 0 {
            let one_rank = (0..13).any(|r| set & !(0xF << (4 * r)) == 0);
            return if !one_rank {
                Some("a lead must be cards of one rank".into())
            } else if k >= h {
                Some("a lead must leave at least one card in hand for the final trick".into())
            } else {
                None
            };
        }
        let bar = self.trick.bar;
        if k != bar.count_ones() {
            return Some(format!("it must play exactly {} cards", bar.count_ones()));
        }
        let beats = beats_or_equals(set, bar);
        let lowest = is_lowest_set(set, hand);
        if self.params.follow_rule == FollowRule::LowestOnlyIfCannotBeat
            && !beats
            && beats_or_equals(highest(hand, k), bar)
        {
            return Some("it can beat or equal the best set, so it must".into());
        }
        (!beats && !lowest)
            .then(|| "the set neither beats or equals the best set nor is its lowest set".into())
    }

    /// The legal actions counted and indexed without listing them, for the
    /// random bot: `choose(count)` picks an index below the count, and this
    /// returns that action, in an order of its own (not the listing order of
    /// [`Rules::legal_actions`]; each legal action has exactly one index).
    /// `choose` is called once, also for a forced play (with a count of 1),
    /// except for a discard from an empty stock, where nothing is drawn.
    /// Inlined into the playout loop: leads and single-card follows (most
    /// actions) are short; discards and multi-card follows stay out of line.
    #[inline(always)]
    fn nth_legal(&self, choose: impl FnOnce(usize) -> usize) -> Action {
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
        let beating = hand & at_least(rank(bar.trailing_zeros()));
        let lows = hand & 0xF << (4 * rank(hand.trailing_zeros()));
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
        let top = rank(63 - low.leading_zeros());
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

    // -----------------------------------------------------------------------
    // §6 Effects
    // -----------------------------------------------------------------------

    /// §5.1: the cards go face down to the discards; draw as many from the top.
    #[inline(never)]
    fn discard(&mut self, set: u64) {
        let seat = self.to_act;
        let s = seat as usize;
        let j = set.count_ones() as usize;
        // The top j stock cards (j is at most the stock's size).
        let top = self.stock_top as usize;
        let drawn = self.stock_sets[(top + j) & 63] ^ self.stock_sets[top & 63];
        self.stock_top += j as u8;
        self.hands[s] = (self.hands[s] & !set) | drawn;
        self.discards[s] |= set;
        let first = self.next_active(self.dealer);
        let next = self.next_active(seat);
        if next == first {
            self.phase = Phase::Play;
            self.start_trick(first);
        } else {
            self.to_act = next;
        }
    }

    fn start_trick(&mut self, leader: u8) {
        self.trick = Trick::new(leader);
        self.to_act = leader;
    }

    /// §6.1: the lead, or a set that beats or equals the bar, becomes the bar.
    #[inline(always)]
    fn play_cards(&mut self, set: u64) {
        let seat = self.to_act;
        self.hands[seat as usize] &= !set;
        let t = &mut self.trick;
        // Without a branch: whether the set takes over is close to a coin flip.
        let takes = (t.len == 0) | beats_or_equals(set, t.bar);
        let keep = u64::from(takes).wrapping_sub(1);
        t.bar = set & !keep | t.bar & keep;
        t.bar_holder ^= (t.bar_holder ^ seat) & !(keep as u8);
        t.seats[t.len as usize] = seat;
        t.sets[t.len as usize] = set;
        t.len += 1;
        if (t.len as u32) < self.active_count() {
            self.to_act = self.next_active(seat);
        } else if self.hands[seat as usize] != 0 {
            self.end_trick();
        } else {
            self.score_final_trick();
        }
    }

    /// §6.2: the bar's holder takes the trick and leads the next one.
    #[inline(never)]
    fn end_trick(&mut self) {
        let winner = self.trick.bar_holder;
        self.tricks.push(self.trick);
        self.start_trick(winner);
    }

    /// §6.3: the highest rank of the final trick scores (TT-14, TT-15, TT-1).
    #[inline(never)]
    fn score_final_trick(&mut self) {
        let t = self.trick;
        let plays = t.len as usize;
        let rank_of = |i: usize| rank(t.sets[i].trailing_zeros());
        let top = (0..plays).map(rank_of).max().unwrap_or(0);
        // The plays of the top rank, bit i for the i-th play: every play
        // visited, no search stopping where the random cards say.
        let tied = (0..plays).fold(0u8, |m, i| m | u8::from(rank_of(i) == top) << i);
        debug_assert!(tied != 0, "the final trick has plays");
        let first = tied.trailing_zeros() as usize;
        let last = 7 - tied.leading_zeros() as usize;
        let (scorers, next_dealer) = match self.params.last_trick_tie {
            LastTrickTie::AllTiedScore => {
                let all = (0..plays).fold(0u8, |m, i| m | (tied >> i & 1) << t.seats[i]);
                (
                    all,
                    t.seats[if self.params.tied_dealer == TiedDealer::First {
                        first
                    } else {
                        last
                    }],
                )
            }
            LastTrickTie::LastPlayedWins => (1 << t.seats[last], t.seats[last]),
            LastTrickTie::FirstPlayedWins => (1 << t.seats[first], t.seats[first]),
        };
        for i in 0..plays {
            // Masked, not branched on: who scores is random.
            let scores = u64::from(scorers >> t.seats[i] & 1).wrapping_neg();
            self.piles[t.seats[i] as usize] |= t.sets[i] & scores;
        }
        self.target_size = rank_value(top) as u8;
        self.last_trick = Some((t, scorers));
        self.eliminate(scorers);
        self.end_hand(next_dealer);
    }

    /// §6.5: reaching `elimination_score` puts a seat out (TT-16). Only the
    /// seats that just scored are valued: every other active seat was below
    /// the score already (a loaded state is checked for it) and still is.
    fn eliminate(&mut self, scorers: u8) {
        let mut rest = scorers & self.active;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            // No branch on the result: which seats go out is random.
            let out = set_value(self.piles[s]) >= self.params.elimination_score;
            self.active &= !(u8::from(out) << s);
            self.out_hand[s] = if out {
                self.hand_number
            } else {
                self.out_hand[s]
            };
        }
    }

    // -----------------------------------------------------------------------
    // §7 Hand end, game end, placements
    // -----------------------------------------------------------------------

    /// Two or more left: the next hand, dealt by `next_dealer` even if out (TT-17).
    fn end_hand(&mut self, next_dealer: u8) {
        let mut cards = [0u8; 52];
        if self.active_count() >= 2 {
            self.hand_number += 1;
            self.dealer = next_dealer;
            let len = self.shuffled_pool(&mut cards);
            self.deal(&cards, len);
            return;
        }
        self.phase = Phase::GameOver;
        self.to_act = NONE;
        self.tricks.clear();
        self.hands = [0; MAX_PLAYERS];
        self.discards = [0; MAX_PLAYERS];
        let len = self.pool(&mut cards); // every card back together, canonical order
        self.stock[..52].copy_from_slice(&cards);
        self.stock_top = 0;
        self.stock_len = len as u8;
        self.index_stock();
    }

    /// Active first, then later elimination, then lower score (TT-18).
    fn standing(&self, seat: usize) -> (u8, i64, i64) {
        let out = self.out_hand[seat];
        let score = set_value(self.piles[seat]);
        if out == 0 {
            (0, 0, score)
        } else {
            (1, -(out as i64), score)
        }
    }

    // -----------------------------------------------------------------------
    // JSON: observation, canonical state, and loading it back
    // -----------------------------------------------------------------------

    fn per_seat<T: Into<Value>>(&self, f: impl Fn(usize) -> T) -> Value {
        Value::Array((0..self.n()).map(|s| f(s).into()).collect())
    }

    fn trick_json(&self) -> Value {
        if self.phase != Phase::Play {
            return Value::Null;
        }
        let t = &self.trick;
        json!({
            "leader": t.leader,
            "plays": t.plays_json(),
            "bar": set_texts(t.bar),
            "bar_holder": (t.bar_holder != NONE).then_some(t.bar_holder),
        })
    }

    fn tricks_json(&self) -> Value {
        Value::Array(
            self.tricks.iter().map(|t| json!({"leader": t.leader, "plays": t.plays_json(), "winner": t.bar_holder})).collect(),
        )
    }

    fn last_trick_json(&self) -> Value {
        match &self.last_trick {
            None => Value::Null,
            Some((t, scorers)) => {
                let seats: Vec<u8> = t.seats[..t.len as usize]
                    .iter()
                    .copied()
                    .filter(|&s| scorers >> s & 1 == 1)
                    .collect();
                json!({"plays": t.plays_json(), "scorers": seats})
            }
        }
    }

    fn out_hand_json(&self) -> Value {
        self.per_seat(|s| self.out_hand[s])
    }

    fn stock_texts(&self) -> Vec<&'static str> {
        self.stock[self.stock_top as usize..self.stock_len as usize]
            .iter()
            .map(|&c| card_text(c as u32))
            .collect()
    }
}

impl Game for TwentyTwo {
    const SPEC: GameSpec = GameSpec {
        id: "twenty_two",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 4,
        teams: &[],
        rule_prefix: "TT",
        heuristic: true,
        search: true,
    };
    type Params = Params;

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        TwentyTwo::new(params, seed, deck)
    }
}

impl Rules for TwentyTwo {
    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::GameOver).then_some(self.to_act as usize)
    }

    /// Discard: by size, then card by card. Play: the final card; leads by rank,
    /// size, suits; follows card by card.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Discard => self.discard_options(out),
            Phase::Play => {
                let hand = self.hands[self.to_act as usize];
                if hand.count_ones() == 1 {
                    out.push(PLAY | hand);
                } else if self.trick.len == 0 {
                    self.lead_options(out);
                } else {
                    self.follow_options(out);
                }
            }
            Phase::GameOver => {}
        }
    }

    /// A discard's options are every subset of the hand up to a size, up to
    /// 2^11 of them: counted and indexed (`Subsets::nth`) without listing.
    fn legal_count(&self, buf: &mut Vec<Action>) -> usize {
        if self.phase != Phase::Discard {
            return count_by_listing(self, buf);
        }
        let hand = self.hands[self.to_act as usize];
        let most = self.most_discards(hand);
        FEWER_THAN[hand.count_ones() as usize][most + 1] as usize
    }

    fn legal_at(&self, index: usize, buf: &[Action]) -> Action {
        if self.phase != Phase::Discard {
            return buf[index];
        }
        DISCARD | Subsets::new(self.hands[self.to_act as usize]).nth(index)
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        let set = action & CARDS;
        let verb_is_play = action & PLAY != 0;
        match (self.phase, verb_is_play) {
            (Phase::GameOver, _) => return Some("the game is over".into()),
            (Phase::Discard, true) => {
                return Some("it is the discard phase; it must discard".into())
            }
            (Phase::Play, false) => return Some("it is the play phase; it must play".into()),
            _ => {}
        }
        let hand = self.hands[self.to_act as usize];
        if let Some(c) = bits((set & !hand) as u128).next() {
            return Some(format!("it does not hold {}", card_text(c)));
        }
        if verb_is_play {
            return self.play_problem(set);
        }
        let most = self.most_discards(hand);
        (set.count_ones() as usize > most).then(|| {
            format!("it may discard at most {most} cards (its hand and the stock limit it)")
        })
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        if action & PLAY != 0 {
            self.play_cards(action & CARDS);
        } else {
            self.discard(action & CARDS);
        }
    }
}

impl Outcome for TwentyTwo {
    fn scores(&self) -> Vec<i64> {
        (0..self.n()).map(|s| set_value(self.piles[s])).collect()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(self.n(), |a, b| self.standing(a) < self.standing(b))
    }
}

impl StateJson for TwentyTwo {
    /// `discard` or `discard C ...` (any number of cards), `play C ...` (at least
    /// one); cards in any order, each at most once.
    fn parse_action(text: &str) -> Option<Action> {
        let (verb, rest) = match text.split_once(' ') {
            Some((v, r)) => (v, Some(r)),
            None => (text, None),
        };
        let verb = match verb {
            "discard" => DISCARD,
            "play" if rest.is_some() => PLAY,
            _ => return None,
        };
        let mut set = 0u64;
        for word in rest.into_iter().flat_map(|r| r.split(' ')) {
            let card = parse_card(word)?;
            if set >> card & 1 == 1 {
                return None; // the same card twice
            }
            set |= 1 << card;
        }
        Some(verb | set)
    }

    fn write_action(action: Action, out: &mut String) {
        out.push_str(if action & PLAY != 0 {
            "play"
        } else {
            "discard"
        });
        for c in bits((action & CARDS) as u128) {
            out.push(' ');
            out.push_str(card_text(c));
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        m.insert("seat".into(), json!(seat));
        self.public_fields(&mut m);
        m.insert(
            "hand".into(),
            json!(set_texts(self.hands.get(seat).copied().unwrap_or(0))),
        );
        m.insert("stock_size".into(), json!(self.stock_size()));
        if self.phase == Phase::GameOver {
            m.insert("stock_size".into(), json!(0));
        }
        m.insert(
            "discard_counts".into(),
            self.per_seat(|s| self.discards[s].count_ones()),
        );
        m.insert(
            "my_discards".into(),
            json!(set_texts(self.discards.get(seat).copied().unwrap_or(0))),
        );
        Value::Object(m)
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        self.public_fields(&mut m);
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("hands".into(), self.per_seat(|s| set_texts(self.hands[s])));
        m.insert("stock".into(), json!(self.stock_texts()));
        m.insert(
            "discards".into(),
            self.per_seat(|s| set_texts(self.discards[s])),
        );
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = TwentyTwo::new(
            Params {
                first_dealer: FirstDealer::Seat(0),
                ..params
            },
            0,
            Some(&canonical_deck()),
        )?;
        g.params = params;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.hand_number = u32::try_from(json::uint(v, "hand_number")?)
            .map_err(|_| bad("hand_number out of range"))?;
        g.dealer = seat_of(json::field(v, "dealer")?, n, "dealer")?;
        let small = |key: &str| -> Result<u8, Error> {
            let x = json::uint(v, key)?;
            ensure((1..=11).contains(&x), || format!("{key} out of range"))?;
            Ok(x as u8)
        };
        g.target_size = small("target_size")?;
        g.deal_size = small("deal_size")?;
        g.phase = match json::string(v, "phase")? {
            "discard" => Phase::Discard,
            "play" => Phase::Play,
            "game_over" => Phase::GameOver,
            other => return Err(bad(format!("unknown phase {other:?}"))),
        };
        g.to_act = match json::field(v, "to_act")? {
            Value::Null => NONE,
            s => seat_of(s, n, "to_act")?,
        };
        g.read_seats(v)?;
        let stock = card_seq(json::field(v, "stock")?, "stock", false)?;
        g.stock[..stock.len()].copy_from_slice(&stock);
        g.stock_top = 0;
        g.stock_len = stock.len() as u8;
        g.index_stock();
        g.read_tricks(v)?;
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            g.history.push(
                Self::parse_action(text)
                    .ok_or_else(|| bad(format!("{text:?} in history is not an action")))?,
            );
        }
        let scores = json::ints(json::field(v, "scores")?, "scores")?;
        ensure(scores == g.scores(), || {
            "scores must be the point values of the score piles".into()
        })?;
        g.check_whole()?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl NativeBots for TwentyTwo {
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
                ranks[len] = rank(c) as u8;
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

impl Search for TwentyTwo {
    /// The other hands, the other seats' discards and the stock dealt anew from
    /// the cards hidden from `seat`, keeping every size and every constraint
    /// the plays of this hand put on a hand (see [`Knowledge`]); the generator
    /// state drawn anew. This hand's hidden discards are rewritten in the
    /// history too.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        if self.phase == Phase::GameOver || seat >= self.n() {
            return Ok(g);
        }
        let know = self.knowledge(seat);
        if !know.deal(self, seat, &mut g, rng) {
            return Err(Error::InvalidState {
                message: "twenty_two: no deal of the hidden cards meets what the plays revealed"
                    .into(),
            });
        }
        g.rewrite_discards_in_history();
        Ok(g)
    }

    /// Rebuilds the state JSON from the observation's public fields, the
    /// seat's own hand and discards, and the other places filled to their
    /// public sizes; loads it with `from_json`, then deals the hidden cards
    /// anew with [`Rules::resample`] (so they also meet what the plays
    /// revealed). The observation has no history: the sampled state's history
    /// is the current hand's actions only (discards in turn order, then the
    /// plays of its tricks); earlier hands cannot be rebuilt from it.
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        let not_obs = |what: &str| bad(format!("not a twenty_two observation: {what}"));
        ensure(json::string(obs, "game")? == Self::SPEC.id, || {
            "not a twenty_two observation".into()
        })?;
        let n = self.n();
        ensure(json::uint(obs, "players")? as usize == n, || {
            "the observation is for another number of players".into()
        })?;
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < n, || "seat out of range".into())?;
        let hand = card_set(json::field(obs, "hand")?, "hand")?;
        let mine = card_set(json::field(obs, "my_discards")?, "my_discards")?;
        let counts = per_seat(obs, "discard_counts", n)?;
        let stock_size = json::uint(obs, "stock_size")? as usize;
        let phase = json::string(obs, "phase")?;
        let deal_size = json::uint(obs, "deal_size")? as u32;
        let active = per_seat(obs, "active", n)?;
        // Known cards: the seat's hand and discards, score piles, this hand's tricks.
        let mut kept = 0u64;
        for p in per_seat(obs, "score_piles", n)? {
            kept |= card_set(p, "score_piles")?;
        }
        let mut known = hand | mine | kept;
        let mut played = [0u32; MAX_PLAYERS];
        let mut plays: Vec<String> = Vec::new();
        let current = json::field(obs, "trick")?;
        let tricks = json::array(obs, "tricks")?;
        for t in tricks.iter().chain((!current.is_null()).then_some(current)) {
            for play in json::array(t, "plays")? {
                let s = seat_of(&play[0], n, "trick")? as usize;
                let set = card_set(&play[1], "trick")?;
                ensure(known & set == 0, || "a card is in two places".into())?;
                known |= set;
                played[s] += set.count_ones();
                let mut text = String::new();
                Self::write_action(PLAY | set, &mut text);
                plays.push(text);
            }
        }
        // Every other place filled to its public size, lowest cards first.
        let mut hidden = bits((CARDS & !known) as u128).map(|c| c as u8);
        let mut take = |count: usize| -> Vec<&'static str> {
            let mut set = 0u64;
            for c in hidden.by_ref().take(count) {
                set |= 1 << c;
            }
            set_texts(set)
        };
        let mut hands = Vec::with_capacity(n);
        let mut discards = Vec::with_capacity(n);
        for s in 0..n {
            let size = match (phase, active[s].as_bool() == Some(true)) {
                ("discard", true) => deal_size,
                ("play", true) => deal_size.saturating_sub(played[s]),
                _ => 0,
            } as usize;
            if s == seat {
                hands.push(set_texts(hand));
                discards.push(set_texts(mine));
            } else {
                hands.push(take(size));
                let count = counts[s]
                    .as_u64()
                    .ok_or_else(|| not_obs("discard_counts"))?;
                discards.push(take(count as usize));
            }
        }
        let mut stock = take(stock_size);
        ensure(phase == "game_over" || hidden.next().is_none(), || {
            "the public sizes do not account for the 52 cards".into()
        })?;
        if phase == "game_over" {
            // At the end every card outside the score piles is in the stock, canonical order.
            stock = (0..52)
                .map(|i| canonical_card(i) as u32)
                .filter(|&c| kept >> c & 1 == 0)
                .map(card_text)
                .collect();
        }
        // The current hand's discards (placeholders until resampled), in turn order.
        let mut history: Vec<String> = Vec::new();
        if phase != "game_over" {
            let is_active = |s: usize| active[s].as_bool() == Some(true);
            let dealer = json::uint(obs, "dealer")? as usize % n;
            let to_act = obs["to_act"].as_u64().map(|s| s as usize);
            let mut s = dealer;
            for _ in 0..n {
                s = (s + 1) % n;
                if !is_active(s) {
                    continue;
                }
                if phase == "discard" && Some(s) == to_act {
                    break;
                }
                let set = card_set(&json!(discards[s]), "discards")?;
                let mut text = String::new();
                Self::write_action(DISCARD | set, &mut text);
                history.push(text);
            }
            history.extend(plays);
        }
        let mut state = obs.as_object().ok_or_else(|| not_obs("an object"))?.clone();
        for key in [
            "seat",
            "hand",
            "stock_size",
            "discard_counts",
            "my_discards",
        ] {
            state.remove(key);
        }
        state.insert("rng".into(), json!(0));
        state.insert("hands".into(), json!(hands));
        state.insert("discards".into(), json!(discards));
        state.insert("stock".into(), json!(stock));
        state.insert("history".into(), json!(history));
        let loaded = Self::from_json(self.params, &Value::Object(state))?;
        loaded.resample(seat, rng)
    }

    /// Discard phase: keep the lowest cards and discard the `c` highest, for
    /// every `c` the stock allows (the heuristic's choice is one of them). Play:
    /// one set per multiset of ranks (suits never matter in play), the first in
    /// legal order.
    fn search_candidates(&self, legal: &mut Vec<Action>) {
        if self.phase == Phase::Discard {
            let hand = self.hands[self.to_act as usize];
            let most = self.most_discards(hand);
            legal.clear();
            let mut set = 0u64;
            let mut rest = hand;
            legal.push(DISCARD);
            for _ in 0..most {
                let top = 63 - rest.leading_zeros();
                set |= 1 << top;
                rest &= !(1 << top);
                legal.push(DISCARD | set);
            }
            return;
        }
        let mut seen: Vec<u64> = Vec::with_capacity(legal.len());
        legal.retain(|&a| {
            let key = rank_counts(a & CARDS);
            let new = !seen.contains(&key);
            if new {
                seen.push(key);
            }
            new
        });
    }

    /// The rest of the current hand: the value is how many more penalty points
    /// the other active seats took on average than `seat` did.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        if self.phase != Phase::GameOver && self.hand_number == start.hand_number {
            return None;
        }
        let gained = |s: usize| (set_value(self.piles[s]) - set_value(start.piles[s])) as f64;
        let (sum, count) = (0..self.n())
            .filter(|&s| s != seat && start.is_active(s as u8))
            .fold((0.0, 0.0), |(sum, count), s| (sum + gained(s), count + 1.0));
        Some(sum / f64::max(count, 1.0) - gained(seat))
    }
}


impl TwentyTwo {
    /// The fields the state JSON and every observation share.
    fn public_fields(&self, m: &mut Map<String, Value>) {
        m.insert("players".into(), json!(self.n()));
        m.insert("params".into(), self.params.to_json());
        m.insert("hand_number".into(), json!(self.hand_number));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("target_size".into(), json!(self.target_size));
        m.insert("deal_size".into(), json!(self.deal_size));
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert("to_act".into(), json!(self.current_player()));
        m.insert("active".into(), self.per_seat(|s| self.is_active(s as u8)));
        m.insert("out_hand".into(), self.out_hand_json());
        m.insert(
            "score_piles".into(),
            self.per_seat(|s| set_texts(self.piles[s])),
        );
        m.insert("scores".into(), json!(self.scores()));
        m.insert("trick".into(), self.trick_json());
        m.insert("tricks".into(), self.tricks_json());
        m.insert("last_trick".into(), self.last_trick_json());
    }
}

// ---------------------------------------------------------------------------
// Determinization: what a seat knows about the cards hidden from it
// ---------------------------------------------------------------------------

/// Every card of rank `r` or higher.
#[inline]
fn at_least(r: u32) -> u64 {
    CARDS & !((1u64 << (4 * r)) - 1)
}

/// Most follows a hand can hold that did not meet the bar: at most 10 tricks
/// plus the current one, 5 followers each.
const MAX_WEAK: usize = (MAX_TRICKS + 1) * (MAX_PLAYERS - 1);

/// What `seat` knows about the cards hidden from it. Only the follow rule
/// reveals anything: a follower whose set did not meet the bar played its
/// lowest set (TT-10), so every card it kept then, and so every card in its
/// hand now, ranks at least as high as the highest card of that set (the
/// `floor`). Under `lowest_only_if_cannot_beat` such a follower also could not
/// meet the bar with any set of its hand then (the `weak` follows: the cards
/// it played from that set on, the bar). Leads, beating follows, the forced
/// final trick and discards (any subset, face down) reveal nothing.
struct Knowledge {
    /// The cards hidden from the seat: other hands, other seats' discards, the stock.
    pool: u64,
    /// Per seat: the lowest rank its hand may hold.
    floor: [u32; MAX_PLAYERS],
    /// Per seat: every card of its hand ranks below this (a weak single-card
    /// follow: nothing in hand met the bar); 13 when nothing is known.
    ceiling: [u32; MAX_PLAYERS],
    /// (seat, cards it played from that follow on, the bar it did not meet).
    weak: [(u8, u64, u64); MAX_WEAK],
    weak_len: usize,
}

impl Knowledge {
    /// The pool cards seat `s` may hold, by its floor and ceiling.
    fn eligible(&self, s: usize, pool: u64) -> u64 {
        pool & at_least(self.floor[s]) & !at_least(self.ceiling[s])
    }

    /// Whether `hand` could be the hand of `s`, given its weak follows.
    fn allows(&self, s: usize, hand: u64) -> bool {
        self.weak[..self.weak_len].iter().all(|&(w, kept, bar)| {
            w as usize != s || !beats_or_equals(highest(kept | hand, bar.count_ones()), bar)
        })
    }

    /// Whether the seats `rest` can still all be dealt their hands from `pool`
    /// within their floors and ceilings: earliest ceiling first, card by card
    /// in rank order (optimal for such interval constraints; cards may be
    /// left over for the discards and the stock).
    fn feasible(&self, state: &TwentyTwo, rest: &[u8], pool: u64) -> bool {
        let mut need = [0u32; MAX_PLAYERS];
        for &s in rest {
            need[s as usize] = state.hands[s as usize].count_ones();
        }
        for c in bits(pool as u128) {
            let r = rank(c);
            let due = rest
                .iter()
                .map(|&s| s as usize)
                .filter(|&s| need[s] > 0 && self.floor[s] <= r && r < self.ceiling[s])
                .min_by_key(|&s| self.ceiling[s]);
            if let Some(s) = due {
                need[s] -= 1;
            }
        }
        rest.iter().all(|&s| need[s as usize] == 0)
    }

    /// Deals the hidden cards into `g` (a copy of `state`): the other hands
    /// first, fewest eligible cards first, each drawn uniformly from the pool
    /// cards within its floor and ceiling, then the other seats' discards and
    /// the stock. With floors only (the default follow rule) the eligible sets
    /// are nested, and this order makes the deal uniform over the consistent
    /// deals. Under the variant a hand is redrawn while it breaks a weak follow
    /// of several cards or leaves the later seats no possible hand. False if
    /// no deal was found.
    fn deal(
        &self,
        state: &TwentyTwo,
        seat: usize,
        g: &mut TwentyTwo,
        rng: &mut SplitMix64,
    ) -> bool {
        let n = state.n();
        let mut order = [0u8; MAX_PLAYERS];
        let mut others = 0;
        for s in (0..n).filter(|&s| s != seat) {
            order[others] = s as u8;
            others += 1;
        }
        let order = &mut order[..others];
        order.sort_by_key(|&s| self.eligible(s as usize, self.pool).count_ones());
        // Floors alone never strand a card a later seat needs (nested sets).
        let constrained = self.weak_len > 0 || self.ceiling.iter().any(|&c| c < 13);
        let mut cards = [0u8; 52];
        'attempt: for _ in 0..64 {
            let mut pool = self.pool;
            for (at, &s) in order.iter().enumerate() {
                let s = s as usize;
                let size = state.hands[s].count_ones() as usize;
                let (mut list, len) = card_list(self.eligible(s, pool));
                let mut found = None;
                for _ in 0..256 {
                    let mut hand = 0u64;
                    for i in 0..size.min(len) {
                        let j = i + pick(rng, len - i);
                        list.swap(i, j);
                        hand |= 1 << list[i];
                    }
                    if size <= len
                        && self.allows(s, hand)
                        && (!constrained || self.feasible(state, &order[at + 1..], pool & !hand))
                    {
                        found = Some(hand);
                        break;
                    }
                    if !constrained {
                        break;
                    }
                }
                let Some(hand) = found else {
                    continue 'attempt;
                };
                g.hands[s] = hand;
                pool &= !hand;
            }
            let mut len = 0;
            for c in bits(pool as u128) {
                cards[len] = c as u8;
                len += 1;
            }
            rng.shuffle(&mut cards[..len]);
            let mut next = 0;
            for &s in order.iter() {
                let s = s as usize;
                let count = state.discards[s].count_ones() as usize;
                g.discards[s] = cards[next..next + count]
                    .iter()
                    .fold(0, |set, &c| set | 1 << c);
                next += count;
            }
            let stock = &cards[next..len];
            g.stock[..stock.len()].copy_from_slice(stock);
            g.stock_top = 0;
            g.stock_len = stock.len() as u8;
            g.index_stock();
            return true;
        }
        false
    }
}

impl TwentyTwo {
    /// What `seat`'s view of this state says about the cards hidden from it.
    fn knowledge(&self, seat: usize) -> Knowledge {
        let mut know = Knowledge {
            pool: 0,
            floor: [0; MAX_PLAYERS],
            ceiling: [13; MAX_PLAYERS],
            weak: [(0, 0, 0); MAX_WEAK],
            weak_len: 0,
        };
        for s in (0..self.n()).filter(|&s| s != seat) {
            know.pool |= self.hands[s] | self.discards[s];
        }
        know.pool |= self.stock[self.stock_top as usize..self.stock_len as usize]
            .iter()
            .fold(0, |a, &c| a | 1 << c);
        if self.phase != Phase::Play {
            return know;
        }
        // The current trick counts unless it is the final one (its leader then holds nothing).
        let current = self.trick.len > 0 && self.hands[self.trick.leader as usize] != 0;
        let tricks = &self.tricks[..];
        let all = tricks.iter().chain(current.then_some(&self.trick));
        // Cards each seat played this hand from the trick at hand on.
        let mut from_here = [0u64; MAX_PLAYERS];
        for t in tricks.iter().chain(std::iter::once(&self.trick)) {
            for i in 0..t.len as usize {
                from_here[t.seats[i] as usize] |= t.sets[i];
            }
        }
        for t in all {
            let mut bar = t.sets[0];
            for i in 1..t.len as usize {
                let (s, set) = (t.seats[i] as usize, t.sets[i]);
                if beats_or_equals(set, bar) {
                    bar = set;
                } else if s != seat {
                    let top = rank(63 - set.leading_zeros());
                    know.floor[s] = know.floor[s].max(top);
                    if self.params.follow_rule == FollowRule::FreeChoice {
                        continue;
                    }
                    if bar.count_ones() == 1 {
                        let ceiling = rank(bar.trailing_zeros());
                        know.ceiling[s] = know.ceiling[s].min(ceiling);
                    } else if know.weak_len < MAX_WEAK {
                        know.weak[know.weak_len] = (s as u8, from_here[s], bar);
                        know.weak_len += 1;
                    }
                }
            }
            for i in 0..t.len as usize {
                from_here[t.seats[i] as usize] &= !t.sets[i];
            }
        }
        know
    }

    /// Writes the current hand's discards into the history (the hidden ones
    /// may have been dealt anew): its last actions are one discard per seat
    /// that has had its turn, in turn order, then the plays.
    fn rewrite_discards_in_history(&mut self) {
        let plays: usize = if self.phase == Phase::Play {
            self.tricks.iter().map(|t| t.len as usize).sum::<usize>() + self.trick.len as usize
        } else {
            0
        };
        let mut turns = [0u8; MAX_PLAYERS];
        let mut count = 0;
        let mut s = self.dealer;
        for _ in 0..self.active_count() {
            s = self.next_active(s);
            if self.phase == Phase::Discard && s == self.to_act {
                break;
            }
            turns[count] = s;
            count += 1;
        }
        let Some(start) = self.history.len().checked_sub(count + plays) else {
            return;
        };
        for (i, &s) in turns[..count].iter().enumerate() {
            self.history[start + i] = DISCARD | self.discards[s as usize];
        }
    }
}

// ---------------------------------------------------------------------------
// Loading a state: field readers and the consistency checks
// ---------------------------------------------------------------------------

fn bad(message: impl Into<String>) -> Error {
    Error::InvalidState {
        message: message.into(),
    }
}

fn seat_of(v: &Value, n: usize, what: &str) -> Result<u8, Error> {
    match v.as_u64() {
        Some(s) if (s as usize) < n => Ok(s as u8),
        _ => Err(bad(format!("{what:?} must be a seat from 0 to {}", n - 1))),
    }
}

/// A list of distinct card codes, in play order when `ordered`; returns the
/// cards in the given order.
fn card_seq(v: &Value, what: &str, ordered: bool) -> Result<Vec<u8>, Error> {
    let mut seen = 0u64;
    let mut out = Vec::new();
    for text in json::strings(v, what)? {
        let c = parse_card(text)
            .ok_or_else(|| bad(format!("{what:?} must hold lists of card codes")))?;
        let later = out.last().is_none_or(|&last: &u8| c > last as u32);
        ensure(seen >> c & 1 == 0 && (!ordered || later), || {
            format!("{what:?}: cards must be distinct and in play order")
        })?;
        seen |= 1 << c;
        out.push(c as u8);
    }
    Ok(out)
}

fn card_set(v: &Value, what: &str) -> Result<u64, Error> {
    Ok(card_seq(v, what, true)?.iter().fold(0, |a, &c| a | 1 << c))
}

fn per_seat<'a>(v: &'a Value, key: &str, n: usize) -> Result<&'a Vec<Value>, Error> {
    let a = json::array(v, key)?;
    ensure(a.len() == n, || {
        format!("{key:?} must have one entry per seat")
    })?;
    Ok(a)
}

/// A trick object with exactly the fields `fields` (sorted); `plays` is read
/// into a [`Trick`], the other fields are left to the caller.
fn trick_of(v: &Value, n: usize, what: &str, fields: &[&str]) -> Result<Trick, Error> {
    let ok = v
        .as_object()
        .is_some_and(|o| o.len() == fields.len() && fields.iter().all(|f| o.contains_key(*f)));
    ensure(ok, || {
        format!(
            "{what:?} must be an object with the fields {}",
            fields.join(", ")
        )
    })?;
    let mut t = Trick::new(0);
    for play in json::array(v, "plays")? {
        let pair = play
            .as_array()
            .filter(|p| p.len() == 2)
            .ok_or_else(|| bad(format!("{what:?}: each play must be [seat, cards]")))?;
        let seat = seat_of(&pair[0], n, what)?;
        ensure(t.seats[..t.len as usize].iter().all(|&s| s != seat), || {
            format!("{what:?}: a seat plays once per trick")
        })?;
        t.seats[t.len as usize] = seat;
        t.sets[t.len as usize] = card_set(&pair[1], what)?;
        t.len += 1;
    }
    Ok(t)
}

impl TwentyTwo {

    /// `active`, `out_hand`, `score_piles`, `hands`, `discards`.
    fn read_seats(&mut self, v: &Value) -> Result<(), Error> {
        let n = self.n();
        self.active = 0;
        for (s, a) in per_seat(v, "active", n)?.iter().enumerate() {
            let a = a
                .as_bool()
                .ok_or_else(|| bad("\"active\" must hold true or false"))?;
            self.active |= (a as u8) << s;
        }
        for (s, h) in per_seat(v, "out_hand", n)?.iter().enumerate() {
            self.out_hand[s] = h
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| bad("\"out_hand\" must hold non-negative integers"))?;
        }
        for (key, target) in [
            ("score_piles", &mut self.piles),
            ("hands", &mut self.hands),
            ("discards", &mut self.discards),
        ] {
            for (s, x) in per_seat(v, key, n)?.iter().enumerate() {
                target[s] = card_set(x, key)?;
            }
        }
        Ok(())
    }

    /// `trick`, `tricks`, `last_trick`.
    fn read_tricks(&mut self, v: &Value) -> Result<(), Error> {
        let n = self.n();
        let trick = json::field(v, "trick")?;
        ensure(trick.is_null() == (self.phase != Phase::Play), || {
            "the play phase, and only it, has a current trick".into()
        })?;
        if !trick.is_null() {
            let mut t = trick_of(trick, n, "trick", &["bar", "bar_holder", "leader", "plays"])?;
            t.leader = seat_of(&trick["leader"], n, "trick")?;
            t.bar = card_set(&trick["bar"], "trick")?;
            t.bar_holder = match &trick["bar_holder"] {
                Value::Null => NONE,
                s => seat_of(s, n, "trick")?,
            };
            self.trick = t;
        }
        let tricks = json::array(v, "tricks")?;
        ensure(tricks.len() <= MAX_TRICKS, || {
            "too many completed tricks".into()
        })?;
        self.tricks.clear();
        for x in tricks {
            let mut t = trick_of(x, n, "tricks", &["leader", "plays", "winner"])?;
            t.leader = seat_of(&x["leader"], n, "tricks")?;
            t.bar_holder = seat_of(&x["winner"], n, "tricks")?;
            self.tricks.push(t);
        }
        let last = json::field(v, "last_trick")?;
        self.last_trick = None;
        if !last.is_null() {
            let t = trick_of(last, n, "last_trick", &["plays", "scorers"])?;
            let listed = json::array(last, "scorers")?
                .iter()
                .map(|s| seat_of(s, n, "last_trick"))
                .collect::<Result<Vec<_>, _>>()?;
            let scorers = listed.iter().fold(0u8, |m, &s| m | 1 << s);
            let in_order: Vec<u8> = t.seats[..t.len as usize]
                .iter()
                .copied()
                .filter(|&s| scorers >> s & 1 == 1)
                .collect();
            ensure(in_order == listed, || {
                "\"last_trick\": scorers must be distinct seats of the trick, in play order".into()
            })?;
            self.last_trick = Some((t, scorers));
        }
        Ok(())
    }

    /// Everything a loaded state must satisfy beyond its field types.
    fn check_whole(&self) -> Result<(), Error> {
        self.check_cards()?;
        self.check_seats()?;
        match self.phase {
            Phase::Discard => self.check_discard_phase(),
            Phase::Play => self.check_play_phase(),
            Phase::GameOver => self.check_game_over(),
        }
    }

    /// The 52 cards, each exactly once.
    fn check_cards(&self) -> Result<(), Error> {
        let mut seen = 0u64;
        let mut count = 0u32;
        let mut add = |set: u64| {
            seen |= set;
            count += set.count_ones();
        };
        add(self.stock[self.stock_top as usize..self.stock_len as usize]
            .iter()
            .fold(0, |a, &c| a | 1 << c));
        for s in 0..self.n() {
            add(self.hands[s]);
            add(self.discards[s]);
            add(self.piles[s]);
        }
        let current = if self.phase == Phase::Play {
            std::slice::from_ref(&self.trick)
        } else {
            &[]
        };
        for t in self.tricks.iter().chain(current) {
            (0..t.len as usize).for_each(|i| add(t.sets[i]));
        }
        ensure(seen == CARDS && count == 52, || {
            "the cards in hands, stock, discards, tricks and score piles are not the 52 cards"
                .into()
        })
    }

    fn check_seats(&self) -> Result<(), Error> {
        ensure(self.hand_number >= 1, || {
            "hand_number or target_size out of range".into()
        })?;
        let limit = self.params.elimination_score;
        for s in 0..self.n() {
            let out = self.out_hand[s];
            let score = set_value(self.piles[s]);
            ensure(self.is_active(s as u8) == (out == 0), || {
                "a seat is active exactly when out_hand is 0".into()
            })?;
            ensure(
                out == 0 || (out <= self.hand_number && score >= limit),
                || {
                    "an eliminated seat must have reached the elimination score in an earlier hand"
                        .into()
                },
            )?;
            ensure(out != 0 || score < limit, || {
                "an active seat cannot have reached the elimination score".into()
            })?;
            ensure(out == 0 || (self.hands[s] | self.discards[s]) == 0, || {
                "an eliminated seat holds no cards".into()
            })?;
        }
        Ok(())
    }

    /// The active seats in turn order from the dealer's left, for a hand in progress.
    fn check_hand_in_progress(&self) -> Result<([u8; MAX_PLAYERS], usize), Error> {
        let mut seats = [0u8; MAX_PLAYERS];
        let p = self.active_count() as usize;
        let mut s = self.dealer;
        for slot in seats.iter_mut().take(p) {
            s = self.next_active(s);
            *slot = s;
        }
        ensure(p >= 2 && seats[..p].contains(&self.to_act), || {
            "a hand needs two active seats, one of them to act".into()
        })?;
        Ok((seats, p))
    }

    fn check_discard_phase(&self) -> Result<(), Error> {
        let (seats, p) = self.check_hand_in_progress()?;
        ensure(self.tricks.is_empty(), || {
            "no trick is played during the discard phase".into()
        })?;
        let at = seats[..p]
            .iter()
            .position(|&s| s == self.to_act)
            .unwrap_or(0);
        ensure(
            seats[at + 1..p]
                .iter()
                .all(|&s| self.discards[s as usize] == 0),
            || "a seat that has not had its discard turn has discards".into(),
        )?;
        ensure(
            seats[..p]
                .iter()
                .all(|&s| self.hands[s as usize].count_ones() == self.deal_size as u32),
            || "during the discard phase every active hand holds deal_size cards".into(),
        )
    }

    /// The trick's plays follow the turn order and agree with its bar; hands are equal.
    fn check_play_phase(&self) -> Result<(), Error> {
        let (seats, p) = self.check_hand_in_progress()?;
        let t = &self.trick;
        ensure(self.is_active(t.leader), || {
            "the play phase needs a trick led by an active seat".into()
        })?;
        let mut order = [0u8; MAX_PLAYERS];
        order[0] = t.leader;
        for i in 1..p {
            order[i] = self.next_active(order[i - 1]);
        }
        let played = t.len as usize;
        ensure(played < p && t.seats[..played] == order[..played], || {
            "the trick's plays must follow the turn order from its leader".into()
        })?;
        ensure(self.to_act == order[played], || {
            "to_act must be the next seat in the trick".into()
        })?;
        let (mut bar, mut holder) = (0u64, NONE);
        for i in 0..played {
            if i == 0 || beats_or_equals(t.sets[i], bar) {
                bar = t.sets[i];
                holder = t.seats[i];
            }
        }
        ensure(t.bar == bar && t.bar_holder == holder, || {
            "the trick's bar and bar_holder do not follow from its plays".into()
        })?;
        let k = bar.count_ones();
        let size_of = |s: u8| self.hands[s as usize].count_ones();
        let h = size_of(order[played]);
        let equal = (0..played).all(|i| t.sets[i].count_ones() == k && size_of(order[i]) + k == h)
            && order[played..p].iter().all(|&s| size_of(s) == h);
        ensure(equal && h > 0, || {
            "hands are not equal in size or the trick's sets differ in size".into()
        })?;
        let all = seats[..p].iter().fold(0u8, |m, &s| m | 1 << s);
        for d in &self.tricks {
            let who = d.seats[..d.len as usize]
                .iter()
                .fold(0u8, |m, &s| m | 1 << s);
            ensure(who == all && d.len as usize == p, || {
                "every completed trick has one play per active seat".into()
            })?;
        }
        for &s in &seats[..p] {
            let played: u32 = self
                .tricks
                .iter()
                .chain(std::iter::once(t))
                .map(|d| d.played_by(s))
                .sum();
            ensure(size_of(s) + played == self.deal_size as u32, || {
                "each hand and the cards its seat played this hand must make deal_size".into()
            })?;
        }
        Ok(())
    }

    fn check_game_over(&self) -> Result<(), Error> {
        ensure(self.active_count() <= 1 && self.to_act == NONE, || {
            "a finished game has at most one active seat and nobody to act".into()
        })?;
        let holding = (0..self.n()).any(|s| (self.hands[s] | self.discards[s]) != 0);
        ensure(self.tricks.is_empty() && !holding, || {
            "a finished game has no cards in play".into()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(players: i64, given: &[(&str, Param)]) -> Result<Params, Error> {
        crate::games::parse_params::<TwentyTwo>(
            players,
            given
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn set(codes: &[&str]) -> u64 {
        codes.iter().fold(0, |a, c| a | 1 << parse_card(c).unwrap())
    }

    #[test]
    fn card_codes_and_values() {
        for c in 0..52 {
            assert_eq!(parse_card(card_text(c)), Some(c));
        }
        let deck = canonical_deck();
        assert_eq!(
            (
                deck[0].as_str(),
                deck[12].as_str(),
                deck[13].as_str(),
                deck[51].as_str()
            ),
            ("2C", "AC", "2D", "AS")
        );
        let values: Vec<u32> = (0..13).map(rank_value).collect();
        assert_eq!(values, [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11]);
        assert_eq!(parse_card("1C"), None);
        assert_eq!(parse_card("10c"), None);
    }

    /// TT-7 written the obvious way: sort both, compare card by card.
    fn beats_or_equals_by_definition(set: u64, bar: u64) -> bool {
        set.count_ones() == bar.count_ones()
            && bits(set as u128)
                .zip(bits(bar as u128))
                .all(|(a, b)| rank(a) >= rank(b))
    }

    #[test]
    fn set_comparison_matches_its_definition() {
        let mut rng = SplitMix64::new(8);
        let mut random_set = |k: u32| {
            let mut set = 0u64;
            while set.count_ones() < k {
                set |= 1 << pick(&mut rng, 52);
            }
            set
        };
        for i in 0..20_000 {
            let k = 1 + (i % 11) as u32;
            let a = random_set(k);
            // Half the time a set one card away from `a`, decided late.
            let b = if i % 2 == 0 {
                random_set(k)
            } else {
                let moved = a & !(1 << (63 - a.leading_zeros())) | random_set(1);
                if moved.count_ones() == k {
                    moved
                } else {
                    a
                }
            };
            assert_eq!(
                beats_or_equals(a, b),
                beats_or_equals_by_definition(a, b),
                "{a:#x} {b:#x}"
            );
            assert_eq!(
                beats_or_equals(b, a),
                beats_or_equals_by_definition(b, a),
                "{b:#x} {a:#x}"
            );
        }
        for (a, b) in [(0, 0), (0, 1), (1 << 51, 0), (0, 3), (3, 0)] {
            assert_eq!(beats_or_equals(a, b), beats_or_equals_by_definition(a, b));
        }
        assert_eq!(rank_counts(set(&["2C", "2S", "AD"])), 2 | 1 << 48);
    }

    #[test]
    fn set_comparison_is_pairwise_after_sorting() {
        assert!(beats_or_equals(set(&["6H", "7C"]), set(&["6C", "6D"])));
        assert!(beats_or_equals(set(&["6H", "6S"]), set(&["6C", "6D"])));
        assert!(!beats_or_equals(set(&["2S", "9H"]), set(&["6C", "6D"])));
        assert!(!beats_or_equals(set(&["6C", "6D"]), set(&["2S", "9H"])));
        assert!(is_lowest_set(
            set(&["2H", "3D"]),
            set(&["3C", "3D", "9S", "2H"])
        ));
        assert!(!is_lowest_set(
            set(&["2H", "9S"]),
            set(&["3C", "3D", "9S", "2H"])
        ));
        assert_eq!(
            highest(set(&["2C", "9D", "KH", "AS"]), 2),
            set(&["KH", "AS"])
        );
    }

    #[test]
    fn subsets_come_in_lexicographic_order() {
        let seen: Vec<u64> = Subsets::new(set_of(&[1, 4, 7, 9])).of_sizes(2..3).collect();
        let expect: Vec<u64> = [(1, 4), (1, 7), (1, 9), (4, 7), (4, 9), (7, 9)]
            .iter()
            .map(|(a, b)| (1 << a) | (1 << b))
            .collect();
        assert_eq!(seen, expect);
        let mut count = 0;
        for s in Subsets::new(set_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).of_sizes(0..1) {
            assert_eq!(s, 0);
            count += 1;
        }
        assert_eq!(count, 1);
    }

    /// Every `j`-subset of a list, the obvious recursive way, in lexicographic order.
    fn subsets_by_definition(cards: &[u8], j: usize, out: &mut Vec<u64>, chosen: u64) {
        if j == 0 {
            out.push(chosen);
            return;
        }
        for i in 0..cards.len().saturating_sub(j - 1) {
            subsets_by_definition(&cards[i + 1..], j - 1, out, chosen | 1 << cards[i]);
        }
    }

    fn set_of(cards: &[u8]) -> u64 {
        cards.iter().fold(0, |set, &c| set | 1 << c)
    }

    #[test]
    fn subsets_match_the_recursive_listing_for_every_size() {
        let mut rng = SplitMix64::new(22);
        for _ in 0..300 {
            let mut deck: Vec<u8> = (0..52).collect();
            rng.shuffle(&mut deck);
            let n = pick(&mut rng, MAX_HAND + 1);
            let mut cards = deck[..n].to_vec();
            cards.sort_unstable();
            let subsets = Subsets::new(set_of(&cards));
            for j in 0..=n + 1 {
                let fast: Vec<u64> = subsets.of_sizes(j..j + 1).collect();
                let mut slow = Vec::new();
                subsets_by_definition(&cards, j, &mut slow, 0);
                assert_eq!(fast, slow, "cards {cards:?}, j = {j}");
            }
            // Several sizes at once: the sizes in turn.
            let most = pick(&mut rng, n + 1);
            let mut slow = Vec::new();
            for j in 0..=most {
                subsets_by_definition(&cards, j, &mut slow, 0);
            }
            assert_eq!(subsets.of_sizes(0..most + 1).collect::<Vec<_>>(), slow);
        }
    }

    #[test]
    fn rank_subsets_match_the_recursive_listing() {
        for (nibble, by_size) in RANK_SUBSETS.iter().enumerate() {
            let suits: Vec<u8> = (0..4).filter(|s| nibble >> s & 1 == 1).collect();
            for (size, sets) in by_size.iter().enumerate() {
                let mut slow = Vec::new();
                subsets_by_definition(&suits, size, &mut slow, 0);
                let count = BINOMIAL[suits.len()][size] as usize;
                let fast: Vec<u64> = sets[..count].iter().map(|&s| u64::from(s)).collect();
                assert_eq!(fast, slow, "nibble {nibble:04b}, size {size}");
            }
        }
    }

    #[test]
    fn action_grammar() {
        let a = TwentyTwo::parse_action("play 9S 9C").unwrap();
        assert_eq!(TwentyTwo::action_text(a), "play 9C 9S");
        assert_eq!(TwentyTwo::parse_action("discard"), Some(DISCARD));
        for bad in [
            "play",
            "play ",
            "discard ",
            "play 9C 9C",
            "play  9C",
            "Play 9C",
            "play 9C,9S",
            "pass",
        ] {
            assert_eq!(TwentyTwo::parse_action(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn action_texts_name_every_card_and_read_back() {
        for c in 0..52u32 {
            let text = TwentyTwo::action_text(PLAY | 1 << c);
            assert_eq!(text, format!("play {}", CARD_CODES[c as usize]));
        }
        let all = (1u64 << 52) - 1;
        let text = TwentyTwo::action_text(DISCARD | all);
        assert_eq!(text.split(' ').count(), 53);
        assert!(
            text.contains(" 9S 10C 10D ") && text.ends_with(" AS"),
            "{text}"
        );
        assert_eq!(TwentyTwo::parse_action(&text), Some(DISCARD | all));
        assert_eq!(TwentyTwo::action_text(DISCARD), "discard");
    }

    #[test]
    fn variants_are_checked() {
        assert!(params(3, &[("tied_dealer", Param::Str("first".into()))]).is_ok());
        let bad = [
            (
                "tied_dealer",
                Param::Str("first".into()),
                Some(("last_trick_tie", Param::Str("last_played_wins".into()))),
            ),
            ("first_dealer", Param::Int(3), None),
            ("first_dealer", Param::Bool(true), None),
            ("elimination_score", Param::Int(31), None),
            ("first_hand_size", Param::Int(1), None),
        ];
        for (key, value, other) in bad {
            let mut given = vec![(key, value)];
            given.extend(other);
            assert!(
                matches!(params(3, &given), Err(Error::InvalidParams { .. })),
                "{key}"
            );
        }
        let random = params(3, &[("first_dealer", Param::Str("random".into()))]).unwrap();
        assert_eq!(random.first_dealer, FirstDealer::Random);
        assert_eq!(random.to_json()["first_dealer"], json!("random"));
    }

    #[test]
    fn explicit_deck_is_dealt_from_the_dealers_left_without_the_generator() {
        let p = params(3, &[("first_dealer", Param::Int(2))]).unwrap();
        let g = TwentyTwo::new(p, 5, Some(&canonical_deck())).unwrap();
        assert_eq!(g.rng.state, 5);
        assert_eq!(g.hands[0], set(&["2C", "5C", "8C", "JC", "AC", "4D", "7D"]));
        assert_eq!((g.stock_size(), g.to_act, g.deal_size), (31, 0, 7));
        assert_eq!(card_text(g.stock[g.stock_top as usize] as u32), "10D"); // deck card 21
    }

    /// Random games: cards conserved, equal hands, JSON round trip, the bound of §7.
    #[test]
    fn random_games_conserve_cards_and_end() {
        let mut chooser = SplitMix64::new(3);
        let mut buf = Vec::new();
        for seed in 0..30u64 {
            let n = 2 + (seed % 5) as i64;
            let p = params(n, &[]).unwrap();
            let mut g = TwentyTwo::new(p, seed, None).unwrap();
            let bound = 12 * n * n * 11;
            let mut steps = 0;
            while !g.is_terminal() {
                g.check_whole().unwrap();
                if steps % 17 == 0 {
                    let back = TwentyTwo::from_json(p, &g.to_json()).unwrap();
                    assert_eq!(back.to_json(), g.to_json());
                }
                buf.clear();
                g.legal_actions(&mut buf);
                assert!(!buf.is_empty());
                let a = buf[chooser.bounded(buf.len() as u64) as usize];
                assert_eq!(g.illegal_reason(a), None);
                g.apply_unchecked(a);
                steps += 1;
                assert!(steps <= bound);
            }
            g.check_whole().unwrap();
            let placements = g.placements().unwrap();
            assert!(placements.contains(&1));
        }
    }
    /// The random bot's indices map one to one onto the legal actions, so a
    /// uniform index is a uniform legal action.
    #[test]
    fn indexed_actions_are_the_legal_actions() {
        let mut chooser = SplitMix64::new(11);
        let mut buf = Vec::new();
        for seed in 0..40u64 {
            let n = 2 + (seed % 5) as i64;
            let rule = ["free_choice", "lowest_only_if_cannot_beat"][(seed / 5 % 2) as usize];
            let p = params(n, &[("follow_rule", Param::Str(rule.into()))]).unwrap();
            let mut g = TwentyTwo::new(p, seed, None).unwrap();
            while !g.is_terminal() {
                buf.clear();
                g.legal_actions(&mut buf);
                let mut count = 1;
                g.nth_legal(|c| {
                    count = c;
                    0
                });
                let mut indexed: Vec<Action> = (0..count)
                    .map(|i| {
                        g.nth_legal(|c| {
                            assert_eq!(c, count);
                            i
                        })
                    })
                    .collect();
                indexed.sort_unstable();
                let mut legal = buf.clone();
                legal.sort_unstable();
                assert_eq!(indexed, legal, "{}", g.to_json());
                g.apply_unchecked(g.random_action(&mut chooser, &mut buf));
            }
        }
    }

    /// Every follow of this hand (but the forced final trick) is legal for the
    /// hand its seat held then: its hand now plus what it played from then on.
    fn follows_are_legal(g: &TwentyTwo) -> bool {
        let current = g.phase == Phase::Play && g.trick.len > 0;
        let mut from_here = [0u64; MAX_PLAYERS];
        let all: Vec<Trick> = g
            .tricks
            .iter()
            .copied()
            .chain(current.then_some(g.trick))
            .collect();
        for t in &all {
            for i in 0..t.len as usize {
                from_here[t.seats[i] as usize] |= t.sets[i];
            }
        }
        for t in &all {
            let mut bar = t.sets[0];
            for i in 0..t.len as usize {
                let s = t.seats[i] as usize;
                let then = g.hands[s] | from_here[s];
                let k = t.sets[i].count_ones();
                if i > 0 && then.count_ones() > 1 {
                    let beats = beats_or_equals(t.sets[i], bar);
                    let could = beats_or_equals(highest(then, k), bar);
                    let lowest = is_lowest_set(t.sets[i], then)
                        && !(g.params.follow_rule == FollowRule::LowestOnlyIfCannotBeat && could);
                    if !beats && !lowest {
                        return false;
                    }
                    if beats {
                        bar = t.sets[i];
                    }
                }
            }
            for i in 0..t.len as usize {
                from_here[t.seats[i] as usize] &= !t.sets[i];
            }
        }
        true
    }

    fn heuristic_or_random(g: &TwentyTwo, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        if rng.next_u64().is_multiple_of(3) {
            g.random_action(rng, buf)
        } else {
            g.heuristic_action(rng, buf)
        }
    }

    /// Along many games (both follow rules): the seat's observation and legal
    /// actions are kept, the state reloads, the hidden cards move, and every
    /// earlier follow of the hand stays legal for the resampled hands.
    #[test]
    fn resample_keeps_the_view_and_what_the_plays_revealed() {
        let mut rng = SplitMix64::new(17);
        let mut buf = Vec::new();
        let mut constrained = 0;
        for seed in 0..20u64 {
            let n = 2 + (seed % 5) as i64;
            let rule = ["free_choice", "lowest_only_if_cannot_beat"][(seed / 5 % 2) as usize];
            let p = params(n, &[("follow_rule", Param::Str(rule.into()))]).unwrap();
            let mut g = TwentyTwo::new(p, seed, None).unwrap();
            let mut steps = 0;
            while !g.is_terminal() && steps < 400 {
                // Every state of the first 60 steps, then every third.
                let seats = if steps < 60 || steps % 3 == 0 { n } else { 0 };
                for seat in 0..seats as usize {
                    let know = g.knowledge(seat);
                    constrained += usize::from(know.floor.iter().any(|&f| f > 0));
                    let a = g.resample(seat, &mut rng).unwrap_or_else(|e| {
                        panic!(
                            "seed {seed} step {steps} seat {seat}: {e:?} {}",
                            g.to_json()
                        )
                    });
                    assert_eq!(a.observation(seat), g.observation(seat));
                    assert_eq!(a.current_player(), g.current_player());
                    if g.current_player() == Some(seat) {
                        let (mut la, mut lg) = (Vec::new(), Vec::new());
                        a.legal_actions(&mut la);
                        g.legal_actions(&mut lg);
                        assert_eq!(la, lg);
                    }
                    let back = TwentyTwo::from_json(p, &a.to_json()).unwrap();
                    assert_eq!(back.to_json(), a.to_json());
                    assert!(
                        follows_are_legal(&a),
                        "seed {seed} step {steps} seat {seat}"
                    );
                    for s in 0..n as usize {
                        assert_eq!(a.hands[s].count_ones(), g.hands[s].count_ones());
                        assert_eq!(a.discards[s].count_ones(), g.discards[s].count_ones());
                        assert!(a.hands[s] & at_least(know.floor[s]) == a.hands[s]);
                    }
                    assert_eq!(a.history.len(), g.history.len());
                }
                let action = heuristic_or_random(&g, &mut rng, &mut buf);
                g.apply_unchecked(action);
                steps += 1;
            }
        }
        assert!(
            constrained > 100,
            "few states had a revealed floor: {constrained}"
        );
    }

    #[test]
    fn resample_rewrites_the_hands_hidden_discards_in_the_history() {
        let p = params(4, &[]).unwrap();
        let mut g = TwentyTwo::new(p, 3, None).unwrap();
        let mut buf = Vec::new();
        let mut rng = SplitMix64::new(1);
        for _ in 0..5 {
            let a = g.heuristic_action(&mut rng, &mut buf);
            g.apply_unchecked(a);
        }
        assert_eq!(g.phase, Phase::Play);
        let r = g.resample(2, &mut rng).unwrap();
        let start = r.history.len() - 5;
        for (i, s) in [1usize, 2, 3, 0].iter().enumerate() {
            assert_eq!(r.history[start + i], DISCARD | r.discards[*s]);
        }
        assert_eq!(r.history[start + 4], g.history[start + 4]);
        assert_eq!(r.discards[2], g.discards[2]);
    }

    #[test]
    fn a_lowest_set_follow_sets_a_floor() {
        // The leader leads its highest card; the next seat plays its lowest,
        // which does not meet the bar: every card it keeps ranks at least as high.
        let p = params(3, &[]).unwrap();
        let mut rng = SplitMix64::new(2);
        let mut checked = 0;
        for seed in 0..20 {
            let mut g = TwentyTwo::new(p, seed, None).unwrap();
            while g.phase == Phase::Discard {
                g.apply_unchecked(DISCARD);
            }
            let leader = g.to_act as usize;
            let lead = 1 << (63 - g.hands[leader].leading_zeros());
            g.apply_unchecked(PLAY | lead);
            let follower = g.to_act as usize;
            let low = g.hands[follower] & g.hands[follower].wrapping_neg();
            if beats_or_equals(low, lead) {
                continue;
            }
            g.apply_unchecked(PLAY | low);
            let floor = rank(low.trailing_zeros());
            assert_eq!(g.knowledge(leader).floor[follower], floor);
            assert_eq!(g.knowledge(follower).floor[follower], 0);
            for _ in 0..20 {
                let r = g.resample(leader, &mut rng).unwrap();
                assert_eq!(r.hands[follower] & !at_least(floor), 0);
            }
            checked += 1;
        }
        assert!(checked >= 5);
    }

    #[test]
    fn states_sampled_from_observations_show_them() {
        let mut rng = SplitMix64::new(5);
        let mut buf = Vec::new();
        for seed in 0..6u64 {
            let n = 2 + (seed % 5) as i64;
            let p = params(n, &[]).unwrap();
            let mut g = TwentyTwo::new(p, seed, None).unwrap();
            for step in 0.. {
                // Every state of the first 60 steps, then every fourth, and the end.
                let seats = if step < 60 || step % 4 == 0 || g.is_terminal() {
                    n
                } else {
                    0
                };
                for seat in 0..seats as usize {
                    let obs = g.observation(seat);
                    let a = g.sample_from_observation(&obs, &mut rng).unwrap();
                    let b = g.sample_from_observation(&obs, &mut rng).unwrap();
                    assert_eq!(a.observation(seat), obs);
                    assert!(follows_are_legal(&a));
                    if !g.is_terminal() {
                        assert_ne!(a.to_json(), b.to_json());
                    }
                    if g.current_player() == Some(seat) {
                        let (mut la, mut lg) = (Vec::new(), Vec::new());
                        a.legal_actions(&mut la);
                        g.legal_actions(&mut lg);
                        assert_eq!(la, lg);
                    }
                }
                if g.is_terminal() {
                    break;
                }
                let action = heuristic_or_random(&g, &mut rng, &mut buf);
                g.apply_unchecked(action);
            }
        }
    }

    #[test]
    fn search_candidates_are_legal_and_hold_the_heuristics_choice() {
        let mut rng = SplitMix64::new(9);
        let mut buf = Vec::new();
        let p = params(4, &[]).unwrap();
        let mut g = TwentyTwo::new(p, 2, None).unwrap();
        for _ in 0..300 {
            if g.is_terminal() {
                break;
            }
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            let mut cands = legal.clone();
            g.search_candidates(&mut cands);
            assert!(!cands.is_empty() && cands.iter().all(|a| legal.contains(a)));
            assert!(cands.len() <= 12 || g.phase == Phase::Play);
            let h = g.heuristic_action(&mut rng, &mut buf);
            let key = rank_counts(h & CARDS);
            assert!(cands.iter().any(|&a| rank_counts(a & CARDS) == key));
            // One candidate per multiset of ranks.
            let keys: std::collections::HashSet<u64> =
                cands.iter().map(|&a| rank_counts(a & CARDS)).collect();
            assert_eq!(keys.len(), cands.len());
            let a = heuristic_or_random(&g, &mut rng, &mut buf);
            g.apply_unchecked(a);
        }
    }

    /// Under `lowest_only_if_cannot_beat`, floors and ceilings that leave few
    /// deals: seat 0 must hold four cards from 10 to K, seat 5 the 5H, and
    /// only seats 4 and 5 may take the sixes (a state met in a random game).
    #[test]
    fn tight_floors_and_ceilings_still_deal() {
        let v: Value = serde_json::from_str(TIGHT).unwrap();
        let p = crate::games::parse_params::<TwentyTwo>(
            6,
            vec![(
                "follow_rule".into(),
                Param::Str("lowest_only_if_cannot_beat".into()),
            )],
        )
        .unwrap();
        let g = TwentyTwo::from_json(p, &v).unwrap();
        let know = g.knowledge(2);
        assert_eq!((know.floor[0], know.ceiling[0]), (8, 12));
        assert_eq!((know.floor[5], know.ceiling[5]), (2, 10));
        let mut rng = SplitMix64::new(1);
        for _ in 0..200 {
            let r = g.resample(2, &mut rng).unwrap();
            assert!(follows_are_legal(&r));
            assert_eq!(r.observation(2), g.observation(2));
        }
    }

    const TIGHT: &str = r#"{"active":[true,true,true,true,true,true],"deal_size":8,"dealer":1,"discards":[[],[],[],[],[],[]],"game":"twenty_two","hand_number":4,"hands":[["JD","JH","QS","KH"],["9D","10H","KC","KD"],["3D","4C","5D","8D"],["8H","10D","QH"],["7H","JC","QD"],["5H","6C","6S"]],"history":[],"last_trick":{"plays":[[2,["8C"]],[3,["9S"]],[4,["8H"]],[5,["7D"]],[0,["8S"]],[1,["9H"]]],"scorers":[3,1]},"out_hand":[0,0,0,0,0,0],"params":{"elimination_score":22,"first_dealer":0,"first_hand_size":7,"follow_rule":"lowest_only_if_cannot_beat","last_trick_tie":"all_tied_score","tied_dealer":"last"},"phase":"play","players":6,"rng":17501011716785866771,"score_piles":[[],["9H"],[],["9S","JS"],["10S"],[]],"scores":[0,9,0,19,10,0],"stock":[],"target_size":9,"to_act":0,"trick":{"bar":["QC"],"bar_holder":4,"leader":3,"plays":[[3,["9C"]],[4,["QC"]],[5,["4D"]]]},"tricks":[{"leader":2,"plays":[[2,["AD","AH","AS"]],[3,["3S","8C","8S"]],[4,["2S","4H","6H"]],[5,["2C","3C","3H"]],[0,["2H","5S","6D"]],[1,["2D","5C","7D"]]],"winner":2},{"leader":2,"plays":[[2,["KS"]],[3,["AC"]],[4,["7C"]],[5,["4S"]],[0,["10C"]],[1,["7S"]]],"winner":3}]}"#;
}
