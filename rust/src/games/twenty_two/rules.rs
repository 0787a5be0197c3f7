//! Twenty-Two's rules, in the order of its rule book
//! (`docs/rules/twenty_two.md`), under the same headings and with the same
//! function names as the Python reference
//! (`python/cardref/reference/twenty_two.py`). What makes them fast (card
//! sets compared rank by rank in nibbles, seat tables, subsets listed from a
//! table of bit patterns) is kept in small helpers at the end of the file.

use crate::points::Count;
use super::{Phase, Trick, TwentyTwo, CARDS, DISCARD, HISTORY_CAPACITY, MAX_PLAYERS, MAX_TRICKS, NONE, PLAY};
use super::json::card_text;
use crate::cards::{bits, check_deck};
use crate::fired;
use crate::game::{competition_placements, count_by_listing, Action, Error, Outcome, Rules};
pub use crate::params::FirstDealer;
use crate::params::{choice_key, invalid, variant_keys, Variant};
use crate::rng::SplitMix64;

// ---------------------------------------------------------------------------
// §2 Card notation and deck order
// ---------------------------------------------------------------------------

/// Rank of a card, 0 (a 2) to 12 (an ace).
#[inline]
pub(super) fn rank_of(card: u32) -> u32 {
    card >> 2
}

/// The point value of a card of rank `r` (TT-19): face value, courts 10, ace 11.
#[inline]
pub(super) fn value_of(r: u32) -> u32 {
    match r {
        0..=8 => r + 2,
        9..=11 => 10,
        _ => 11,
    }
}

// ---------------------------------------------------------------------------
// §4 Setup, deal, dealer, leader
// ---------------------------------------------------------------------------

impl<C: Count> TwentyTwo<C> {
    /// A new game: the first dealer (a generator call if random), then hand 1
    /// dealt from `deck` if given (top card first, no generator call).
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = TwentyTwo {
            count: C::default(),
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
            FirstDealer::Random => {
                fired!(game.count, "TT-P1");
                game.rng.bounded(params.players as u64) as u8
            }
        };
        let mut cards = [0u8; 52];
        match deck {
            Some(given) => {
                let order = check_deck(given, &params.canonical_deck())?;
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

    /// TT-3: every card not in a score pile, canonical order, into `out`; returns the count.
    pub(super) fn pool(&self, out: &mut [u8; 52]) -> usize {
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
    pub(super) fn deal(&mut self, deck: &[u8; 52], len: usize) {
        let p = self.active_count() as usize;
        self.deal_size = (self.target_size as usize).min(len / p) as u8;
        if self.deal_size == self.target_size {
            fired!(self.count, "TT-P2");
        } else {
            fired!(self.count, "TT-P3");
        }
        if p < self.n() {
            fired!(self.count, "TT-P4");
        }
        if self.active >> self.dealer & 1 == 0 {
            fired!(self.count, "TT-P5");
        }
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

    /// The first active seat after `seat`, clockwise (`seat` itself if no
    /// other is active): one table look-up, as every play needs it.
    #[inline]
    pub(super) fn next_active(&self, seat: u8) -> u8 {
        NEXT_ACTIVE[self.active as usize & 63][seat as usize & 7]
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for TwentyTwo<C> {
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

impl<C: Count> TwentyTwo<C> {
    /// §5.1: the most cards `hand` may discard (its size and the stock limit it).
    pub(super) fn most_discards(&self, hand: u64) -> usize {
        hand.count_ones().min(self.stock_size()) as usize
    }

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
}

/// TT-7: both sorted by rank, every card of `set` is at least its counterpart.
/// Equivalently, for every rank r, `set` holds no more cards of rank r or
/// lower than `bar` does. The nibbles of those counts are compared in bytes
/// (even ranks, then odd ones), where a subtraction leaves the top bit of a
/// byte set exactly when `bar`'s count is not smaller; no branch.
#[inline]
pub(super) fn beats_or_equals(set: u64, bar: u64) -> bool {
    if set & set.wrapping_sub(1) | bar & bar.wrapping_sub(1) == 0 {
        // Single cards (most plays) compare by rank; no card is at 64, so
        // two empty sets are equal.
        return ((set == 0) == (bar == 0))
            & (rank_of(set.trailing_zeros()) >= rank_of(bar.trailing_zeros()));
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
pub(super) fn is_lowest_set(set: u64, hand: u64) -> bool {
    bits(set as u128)
        .zip(bits(hand as u128))
        .all(|(a, b)| rank_of(a) == rank_of(b))
}

// ---------------------------------------------------------------------------
// §6 Effects
// ---------------------------------------------------------------------------

impl<C: Count> TwentyTwo<C> {
    /// §5.1: the cards go face down to the discards; draw as many from the top.
    #[inline(never)]
    pub(super) fn discard(&mut self, set: u64) {
        let seat = self.to_act;
        let s = seat as usize;
        let j = set.count_ones() as usize;
        let stock = self.stock_size();
        if j > 0 {
            fired!(self.count, "TT-P6");
        } else if stock > 0 {
            fired!(self.count, "TT-P7");
        }
        if stock == 0 {
            fired!(self.count, "TT-P8");
        } else if stock < self.hands[s].count_ones() {
            fired!(self.count, "TT-P9");
        }
        // The top j stock cards (j is at most the stock's size).
        let top = self.stock_top as usize;
        let drawn = self.stock_sets[(top + j) & 63] ^ self.stock_sets[top & 63];
        self.stock_top += j as u8;
        self.hands[s] = (self.hands[s] & !set) | drawn;
        self.discards[s] |= set;
        let first = self.next_active(self.dealer);
        let next = self.next_active(seat);
        if next == first {
            fired!(self.count, "TT-P10");
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
        if C::ON && self.hands[seat as usize].count_ones() > 1 {
            self.note_play(set, self.hands[seat as usize]);
        }
        self.hands[seat as usize] &= !set;
        let t = &mut self.trick;
        let takes = (t.len == 0) | beats_or_equals(set, t.bar);
        (t.bar, t.bar_holder) = bar_after(t, takes, set, seat);
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

    /// The rule points a lead or a follow (not in the final trick) fires.
    fn note_play(&mut self, set: u64, hand: u64) {
        let bar = self.trick.bar;
        if self.trick.len == 0 {
            if set.count_ones() == 1 {
                fired!(self.count, "TT-P11");
            } else {
                fired!(self.count, "TT-P12");
            }
            if (0..13).any(|r| hand & !(0xF << (4 * r)) == 0) {
                fired!(self.count, "TT-P13");
            }
            return;
        }
        let k = bar.count_ones();
        if self.params.follow_rule == FollowRule::LowestOnlyIfCannotBeat
            && beats_or_equals(highest(hand, k), bar)
        {
            fired!(self.count, "TT-P14");
        }
        if beats_or_equals(set, bar) {
            fired!(self.count, "TT-P15");
            if rank_counts(set) == rank_counts(bar) {
                fired!(self.count, "TT-P16");
            }
            if is_lowest_set(set, hand) {
                fired!(self.count, "TT-P17");
            }
        } else {
            fired!(self.count, "TT-P18");
        }
    }

    /// §6.2: the bar's holder takes the trick and leads the next one.
    #[inline(never)]
    fn end_trick(&mut self) {
        fired!(self.count, "TT-P19");
        let winner = self.trick.bar_holder;
        self.tricks.push(self.trick);
        self.start_trick(winner);
    }

    /// §6.3: the highest rank of the final trick scores (TT-14, TT-15, TT-1).
    #[inline(never)]
    fn score_final_trick(&mut self) {
        let t = self.trick;
        let plays = t.len as usize;
        let rank_of = |i: usize| rank_of(t.sets[i].trailing_zeros());
        let top = (0..plays).map(rank_of).max().unwrap_or(0);
        // The plays of the top rank, bit i for the i-th play: every play
        // visited, no search stopping where the random cards say.
        let tied = (0..plays).fold(0u8, |m, i| m | u8::from(rank_of(i) == top) << i);
        debug_assert!(tied != 0, "the final trick has plays");
        let first = tied.trailing_zeros() as usize;
        let last = 7 - tied.leading_zeros() as usize;
        if first == last {
            fired!(self.count, "TT-P20");
        } else {
            match self.params.last_trick_tie {
                LastTrickTie::AllTiedScore => fired!(self.count, "TT-P21"),
                LastTrickTie::LastPlayedWins => fired!(self.count, "TT-P23"),
                LastTrickTie::FirstPlayedWins => fired!(self.count, "TT-P24"),
            }
            if self.params.tied_dealer == TiedDealer::First {
                fired!(self.count, "TT-P22");
            }
        }
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
            let scores = scorers >> t.seats[i] & 1 != 0;
            self.piles[t.seats[i] as usize] |= only_if(scores, t.sets[i]);
        }
        self.target_size = value_of(top) as u8;
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
            if out {
                fired!(self.count, "TT-P25");
            }
            self.active &= !(u8::from(out) << s);
            self.out_hand[s] = if out {
                self.hand_number
            } else {
                self.out_hand[s]
            };
        }
    }
}

// ---------------------------------------------------------------------------
// §7 Hand end, game end, placements
// ---------------------------------------------------------------------------

impl<C: Count> TwentyTwo<C> {
    /// Two or more left: the next hand, dealt by `next_dealer` even if out (TT-17).
    fn end_hand(&mut self, next_dealer: u8) {
        let mut cards = [0u8; 52];
        if self.active_count() >= 2 {
            fired!(self.count, "TT-P26");
            self.hand_number += 1;
            self.dealer = next_dealer;
            let len = self.shuffled_pool(&mut cards);
            self.deal(&cards, len);
            return;
        }
        if self.active_count() == 1 {
            fired!(self.count, "TT-P27");
        } else if C::ON {
            fired!(self.count, "TT-P28");
            let last = (0..self.n()).filter(|&s| self.out_hand[s] == self.hand_number);
            let scores: Vec<i64> = last.map(|s| set_value(self.piles[s])).collect();
            let lowest = scores.iter().min().copied().unwrap_or(0);
            if scores.iter().filter(|&&s| s == lowest).count() > 1 {
                fired!(self.count, "TT-P29");
            }
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
}

impl<C: Count> Outcome for TwentyTwo<C> {
    fn scores(&self) -> Vec<i64> {
        (0..self.n()).map(|s| set_value(self.piles[s])).collect()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(self.n(), |a, b| self.standing(a) < self.standing(b))
    }

    /// Hands dealt so far.
    fn rounds(&self) -> u32 {
        self.hand_number
    }
}

// ---------------------------------------------------------------------------
// §8 Variants (config keys, defaults first)
// ---------------------------------------------------------------------------

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
        /// The first dealer: a seat or "random" (TT-4).
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
        self.first_dealer.check_seat(self.players)?;
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
        CANONICAL
            .iter()
            .map(|&card| card_text(card as u32).to_string())
            .collect()
    }
}

// ---------------------------------------------------------------------------
// Helpers: how the rules above are made fast (no rule is decided here)
// ---------------------------------------------------------------------------

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
pub(super) fn set_value(set: u64) -> i64 {
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
pub(super) const CANONICAL: [u8; 52] = {
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
pub(super) fn canonical_card(i: usize) -> u8 {
    CANONICAL[i]
}

/// How many cards of each rank a set holds, one nibble per rank (0..=4): the
/// popcount of each nibble, in parallel. Equal for sets that differ only in suits.
#[inline]
pub(super) fn rank_counts(set: u64) -> u64 {
    let pairs = set - (set >> 1 & 0x5555_5555_5555_5555);
    (pairs & 0x3333_3333_3333_3333) + (pairs >> 2 & 0x3333_3333_3333_3333)
}

/// One in each of the 13 rank nibbles.
pub(super) const EACH_RANK: u64 = 0x1_1111_1111_1111;

/// Per rank r, how many cards of `set` rank r or lower, one nibble per rank:
/// the counts summed upwards by one multiplication (no carries: a set here
/// holds at most 11 cards, so every sum fits its nibble).
#[inline]
pub(super) fn ranks_up_to(set: u64) -> u64 {
    debug_assert!(set.count_ones() < 16);
    rank_counts(set).wrapping_mul(EACH_RANK) & CARDS
}

/// The k highest cards of a hand: if any k-subset meets the bar, this one does.
pub(super) fn highest(hand: u64, k: u32) -> u64 {
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
pub(super) struct Subsets {
    nibbles: [[u64; 16]; 3],
    n: usize,
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
pub(super) const RANK_SUBSETS: [[[u8; 6]; 5]; 16] = {
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

/// Most cards a hand holds: the largest deal size (an ace's value).
pub(super) const MAX_HAND: usize = 11;

/// `BINOMIAL[n][j]` = C(n, j) for n, j ≤ `MAX_HAND` (0 when j > n).
pub(super) const BINOMIAL: [[u16; MAX_HAND + 1]; MAX_HAND + 1] = {
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
pub(super) const FEWER_THAN: [[u16; MAX_HAND + 2]; MAX_HAND + 1] = {
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

/// The cards of rank `r` in `set`, as a nibble.
#[inline]
pub(super) fn rank_nibble(set: u64, r: u32) -> usize {
    (set >> (4 * r) & 0xF) as usize
}

/// `bar` and its holder after `seat` played `set`: the set's if `takes`, else
/// as they were; masked, not branched on (whether a set takes over is close
/// to a coin flip).
#[inline(always)]
fn bar_after(trick: &Trick, takes: bool, set: u64, seat: u8) -> (u64, u8) {
    let keep = u64::from(takes).wrapping_sub(1);
    let bar = set & !keep | trick.bar & keep;
    let holder = trick.bar_holder ^ (trick.bar_holder ^ seat) & !(keep as u8);
    (bar, holder)
}

/// Every card of rank `r` or higher.
#[inline]
pub(super) fn at_least(r: u32) -> u64 {
    CARDS & !((1u64 << (4 * r)) - 1)
}

/// `set` if `keep`, else the empty set, without a branch.
#[inline(always)]
fn only_if(keep: bool, set: u64) -> u64 {
    set & u64::from(keep).wrapping_neg()
}

impl Subsets {
    pub(super) fn new(hand: u64) -> Self {
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
    pub(super) fn of_sizes(&self, sizes: std::ops::Range<usize>) -> impl Iterator<Item = u64> + '_ {
        let fewer = &FEWER_THAN[self.n];
        let start = fewer[sizes.start.min(self.n + 1)] as usize;
        let end = fewer[sizes.end.min(self.n + 1)] as usize;
        self.patterns()[start..end.max(start)]
            .iter()
            .map(|&p| self.cards(p))
    }

    /// The `index`-th subset in the order of `of_sizes(0..n + 1)`: no listing.
    pub(super) fn nth(&self, index: usize) -> u64 {
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

impl<C: Count> TwentyTwo<C> {
    pub(super) fn n(&self) -> usize {
        self.params.players
    }

    pub(super) fn is_active(&self, seat: u8) -> bool {
        self.active >> seat & 1 == 1
    }

    pub(super) fn active_count(&self) -> u32 {
        self.active.count_ones()
    }

    /// Fills `stock_sets` for the stock as it stands (after a deal or a load).
    pub(super) fn index_stock(&mut self) {
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

    pub(super) fn stock_size(&self) -> u32 {
        (self.stock_len - self.stock_top) as u32
    }
}
