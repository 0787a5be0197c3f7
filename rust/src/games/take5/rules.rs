//! Take 5's rules, in the order of its rule book (`docs/rules/take5.md`),
//! under the same headings and with the same function names as the Python
//! reference (`python/cardref/reference/take5.py`). What makes them fast is
//! kept in small helpers at the end of the file.

use crate::points::Count;
use super::{Phase, Take5, MAX_PLAYERS, ROWS, ROW_CAPACITY, TAKE, TURNS};
use crate::cards::{check_deck, push_bits};
use crate::game::{competition_placements, Action, Error, Outcome, Rules};
use crate::fired;
use crate::params::{choice_key, variant_keys, Variant};
use crate::rng::SplitMix64;
use std::hint::select_unpredictable;

// ---------------------------------------------------------------------------
// §1 Bullheads
// ---------------------------------------------------------------------------

/// Bullheads printed on card `c` (§1).
pub const fn heads(c: u32) -> u32 {
    if c == 55 {
        7
    } else if c.is_multiple_of(11) {
        5
    } else if c.is_multiple_of(10) {
        3
    } else if c.is_multiple_of(5) {
        2
    } else {
        1
    }
}

// ---------------------------------------------------------------------------
// §4 Setup and deal
// ---------------------------------------------------------------------------

impl<C: Count> Take5<C> {
    /// A new game: round 1 is dealt from `deck` if given (top card first, no
    /// generator call), else from the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = Self::undealt(params, seed, Vec::new(), Vec::new());
        // A game to the default end score lasts about five rounds.
        game.round_scores.reserve(8);
        game.history.reserve(64 * params.players);
        match deck {
            Some(given) => {
                let order = check_deck(given, &params.canonical_deck())?;
                let cards: Vec<u8> = order.iter().map(|&i| i as u8 + 1).collect();
                game.deal(&cards);
            }
            None => {
                let (cards, len) = game.shuffled_deck();
                game.deal(&cards[..len]);
            }
        }
        Ok(game)
    }

    /// The cards in play, canonical order, shuffled by the generator (§2, §4.1).
    pub(super) fn shuffled_deck(&mut self) -> ([u8; 104], usize) {
        let top = self.params.highest_card() as usize;
        let mut cards = [0u8; 104];
        for (i, c) in cards[..top].iter_mut().enumerate() {
            *c = i as u8 + 1;
        }
        self.rng.shuffle(&mut cards[..top]);
        (cards, top)
    }

    /// §4.2–4.5: ten cards each round-robin from seat 0, then rows 0..3, rest unused.
    pub(super) fn deal(&mut self, deck: &[u8]) {
        if self.round == 1 {
            fired!(self.count, "T5-P1");
        } else {
            fired!(self.count, "T5-P15");
        }
        let n = self.n();
        let mut dealt = 0;
        self.hands = [0; MAX_PLAYERS];
        // Seat s gets the cards at s, s + n, s + 2n, ...: each hand is built
        // in a register and stored once.
        for (s, hand) in self.hands[..n].iter_mut().enumerate() {
            let mut set = 0;
            for k in 0..TURNS as usize {
                set |= bit(deck[k * n + s]);
            }
            *hand = set;
            dealt |= set;
        }
        for r in 0..ROWS {
            let c = deck[10 * n + r];
            self.start_row(r, c);
            dealt |= bit(c);
        }
        self.unused = cards_in_play(deck.len()) & !dealt;
        self.piles = [0; MAX_PLAYERS];
        self.committed = [0; MAX_PLAYERS];
        self.turn = 0;
        self.phase = Phase::Commit;
        self.to_act = 0;
        self.next_to_place = 0;
        self.round_start = self.history.len();
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for Take5<C> {
    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::GameOver).then_some(self.to_act as usize)
    }

    /// Commit: `play c` for every card in hand, ascending. Choose row: `take 0`..`take 3`.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Commit => push_bits(self.hands[self.to_act as usize], out),
            Phase::ChooseRow => out.extend(TAKE..TAKE + ROWS as Action),
            Phase::GameOver => {}
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        match (self.phase, action >= TAKE) {
            (Phase::Commit, false) if self.hands[self.to_act as usize] >> action & 1 == 1 => None,
            (Phase::Commit, false) => Some(format!("card {action} is not in its hand")),
            (Phase::Commit, true) => {
                Some("no row choice is pending; every seat must play a card".into())
            }
            (Phase::ChooseRow, true) => None,
            (Phase::ChooseRow, false) => {
                Some("it must choose a row to take (take 0 .. take 3)".into())
            }
            (Phase::GameOver, _) => Some("the game is over".into()),
        }
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        if action >= TAKE {
            self.choose_row((action - TAKE) as usize);
        } else {
            self.commit(action as u8);
        }
    }
}

impl<C: Count> Take5<C> {
    /// Commit: the seat to act sets `card` aside face down; after the last
    /// seat, the cards are revealed and placed.
    #[inline(always)]
    fn commit(&mut self, card: u8) {
        let s = self.to_act as usize;
        self.lay_down(s, card);
        if s + 1 < self.n() {
            self.to_act += 1;
        } else {
            self.reveal();
            self.place_revealed();
        }
    }

    /// All commitments become public, sorted by card. Cards are distinct, so
    /// each card's place in the order is the number of committed cards below
    /// it: counted, not compared, so no branch depends on the cards.
    fn reveal(&mut self) {
        let n = self.n();
        self.reveal_set(self.committed[..n].iter().fold(0, |set, &c| set | bit(c)));
    }

    /// Places revealed cards lowest first until a row choice is needed or the
    /// turn ends. The row ends stay in a local: each card's row depends on the
    /// ends the card before left. Inlined into the playout loop (once per
    /// turn, a call would save and restore six registers for four cards).
    #[inline(always)]
    pub(super) fn place_revealed(&mut self) {
        let n = self.n();
        let auto_row = self.params.too_low_choice == TooLowChoice::AutoFewestHeads;
        let mut ends = self.row_ends;
        for i in self.next_to_place as usize..n {
            let (card, seat) = self.revealed[i];
            let r = match Self::target_row(ends, card) {
                Some(r) => {
                    self.place_on(r, card, seat as usize);
                    r
                }
                None if auto_row => self.take_fewest_heads_row(card, seat as usize),
                None => {
                    self.row_ends = ends;
                    self.next_to_place = i as u8;
                    self.phase = Phase::ChooseRow;
                    self.to_act = seat;
                    return;
                }
            };
            ends = Self::with_end(ends, r, card);
        }
        self.row_ends = ends;
        self.next_to_place = n as u8;
        self.finish_turn();
    }

    /// The owner of a too-low card takes row `r` (T5-6); placing goes on.
    fn choose_row(&mut self, r: usize) {
        fired!(self.count, "T5-P5");
        let (card, seat) = self.revealed[self.next_to_place as usize];
        self.take_row(r, card, seat as usize);
        self.row_ends = Self::with_end(self.row_ends, r, card);
        self.next_to_place += 1;
        self.phase = Phase::Commit;
        self.place_revealed();
    }

    /// All cards placed: the next turn's commit, or after ten turns the round's end.
    fn finish_turn(&mut self) {
        self.turn += 1;
        if self.turn < TURNS {
            fired!(self.count, "T5-P4");
            self.phase = Phase::Commit;
            self.to_act = 0;
        } else {
            self.end_round();
        }
    }
}

// ---------------------------------------------------------------------------
// §6 Effects: placing a card
// ---------------------------------------------------------------------------

impl<C: Count> Take5<C> {
    /// §6.1/6.3: the eligible row (its last card below `card`) whose last
    /// card is the highest; `None` if the card is too low for every row.
    /// `ends` holds each row's last card, row r in byte r. Each row is keyed
    /// `end * 4 + row`, or 0 if not eligible (ends are at least 1), so the
    /// highest key names the row.
    pub(super) fn target_row(ends: u32, card: u8) -> Option<usize> {
        let key = |r: usize| eligible_row_key(ends, r, card);
        let best = larger(larger(key(0), key(1)), larger(key(2), key(3)));
        (best != 0).then_some(best & 3)
    }

    /// Variant `auto_fewest_heads`: the row with the fewest heads, lowest index on ties.
    pub(super) fn fewest_heads_row(&self) -> usize {
        (0..ROWS)
            .min_by_key(|&r| (self.row_heads(r), r))
            .unwrap_or(0)
    }

    /// §6.3: append, or take a full row as the sixth card (the caller moves
    /// the row's end). Whether the row is full is a coin toss: the sets are
    /// kept or emptied with [`only_if`], not a branch.
    pub(super) fn place_on(&mut self, r: usize, card: u8, seat: usize) {
        let row = self.rows[r];
        let full = row.count_ones() == ROW_CAPACITY;
        if full {
            fired!(self.count, "T5-P9");
        } else {
            fired!(self.count, "T5-P8");
        }
        self.piles[seat] |= only_if(full, row);
        self.rows[r] = only_if(!full, row) | bit(card);
    }

    /// §6.2: the row's cards go to the seat's pile and the card starts the
    /// row (the caller moves the row's end).
    fn take_row(&mut self, r: usize, card: u8, seat: usize) {
        self.piles[seat] |= self.rows[r];
        self.rows[r] = bit(card);
    }
}

// ---------------------------------------------------------------------------
// §7 Round end, scoring, game end
// ---------------------------------------------------------------------------

impl<C: Count> Take5<C> {
    /// Out of line: once per ten turns, and inlined with the placement loop
    /// its scoring and new deal would give that loop a large stack frame.
    #[inline(never)]
    fn end_round(&mut self) {
        let n = self.n();
        let mut round = [0i64; MAX_PLAYERS];
        for (s, taken) in round.iter_mut().enumerate().take(n) {
            *taken = set_heads(self.piles[s]);
            self.scores[s] += *taken;
        }
        self.round_scores.push(round);
        self.piles = [0; MAX_PLAYERS];
        fired!(self.count, "T5-P10");
        if self.game_ends() {
            self.phase = Phase::GameOver;
            let scores = &self.scores[..n];
            let lowest = scores.iter().min().copied().unwrap_or(0);
            if C::ON && scores.iter().filter(|&&s| s == lowest).count() > 1 {
                fired!(self.count, "T5-P16");
            }
        } else {
            self.round += 1;
            let (cards, len) = self.shuffled_deck();
            self.deal(&cards[..len]);
        }
    }

    /// Checked only at a round's end (T5-2): `end_score` reached, or the round limit.
    fn game_ends(&mut self) -> bool {
        let limit = self.params.end_score;
        let reached = self.scores[..self.n()].iter().any(|&s| {
            match self.params.end_rule {
                EndRule::AtLeast => s >= limit,
                EndRule::MoreThan => s > limit,
            }
        });
        let last_round = self.params.round_limit == Some(self.round as i64);
        if C::ON {
            let highest = self.scores[..self.n()].iter().max().copied().unwrap_or(0);
            match (self.params.end_rule, reached) {
                (EndRule::AtLeast, true) => fired!(self.count, "T5-P11"),
                (EndRule::MoreThan, true) => fired!(self.count, "T5-P12"),
                (EndRule::MoreThan, false) if highest == limit => fired!(self.count, "T5-P13"),
                _ => {}
            }
            if last_round && !reached {
                fired!(self.count, "T5-P14");
            }
        }
        reached || last_round
    }
}

impl<C: Count> Outcome for Take5<C> {
    fn scores(&self) -> Vec<i64> {
        self.scores[..self.n()].to_vec()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(self.n(), |a, b| self.scores[a] < self.scores[b])
    }

    /// Rounds dealt so far.
    fn rounds(&self) -> u32 {
        self.round
    }
}

// ---------------------------------------------------------------------------
// §8 Variants
// ---------------------------------------------------------------------------

choice_key! {
    /// `deck`: every card, or the Tactics deck (T5-5).
    pub enum Deck {
        /// Cards 1..=104.
        Full = "full",
        /// Only cards 1..=10N+4.
        Tactics = "tactics",
    }
}

choice_key! {
    /// `end_rule`: how `end_score` ends the game (T5-1).
    pub enum EndRule {
        /// A total of `end_score` or more ends it.
        AtLeast = "at_least",
        /// Only a total above `end_score` ends it.
        MoreThan = "more_than",
    }
}

choice_key! {
    /// `too_low_choice`: who picks the row a too-low card takes (T5-6).
    pub enum TooLowChoice {
        /// The card's owner.
        Player = "player",
        /// The row with the fewest bullheads, lowest index on ties.
        AutoFewestHeads = "auto_fewest_heads",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Params {
        /// Which cards are in play.
        deck: Deck = choice,
        /// The total that ends the game, at least 1.
        end_score: i64 = int(66, 1, i64::MAX / 4),
        /// How `end_score` ends the game.
        end_rule: EndRule = choice,
        /// Who picks the row a too-low card takes.
        too_low_choice: TooLowChoice = choice,
        /// Rounds after which the game ends anyway, if any.
        round_limit: Option<i64> = optional_int(1, i64::MAX / 4),
    }
}

impl Variant for Params {
    /// No key depends on another in Take 5.
    fn check_config(&self) -> Result<(), Error> {
        Ok(())
    }

    /// The cards in play, canonical order (§2).
    fn canonical_deck(&self) -> Vec<String> {
        (1..=self.highest_card()).map(|c| c.to_string()).collect()
    }
}

impl Params {
    /// The highest card in play: 104, or 10N+4 with the Tactics deck (§8, T5-5).
    pub fn highest_card(&self) -> u32 {
        match self.deck {
            Deck::Full => 104,
            Deck::Tactics => 10 * self.players as u32 + 4,
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers: how the rules above are made fast (no rule is decided here)
// ---------------------------------------------------------------------------

/// The set of cards `1..=top`.
pub(super) const fn cards_in_play(top: usize) -> u128 {
    ((1u128 << top) - 1) << 1
}

/// The one-card set of each card number: a load is cheaper than a 128-bit
/// variable shift, which takes half a dozen instructions on x86-64.
static BITS: [u128; 128] = {
    let mut table = [0; 128];
    let mut c = 0;
    while c < 128 {
        table[c] = 1 << c;
        c += 1;
    }
    table
};

/// The set holding only card `c`.
#[inline]
pub(super) fn bit(c: u8) -> u128 {
    BITS[c as usize & 127]
}

/// Bit plane k of the bullhead counts: the cards whose count has bit k set
/// (counts are 1, 2, 3, 5 or 7, so three planes hold them all).
const HEAD_PLANES: [u128; 3] = {
    let mut planes = [0; 3];
    let mut c = 1;
    while c <= 104 {
        let mut k = 0;
        while k < 3 {
            if heads(c) >> k & 1 == 1 {
                planes[k] |= 1 << c;
            }
            k += 1;
        }
        c += 1;
    }
    planes
};

/// The bullheads on a set of cards, a weighted count per bit plane: no loop
/// over the cards, whose number varies from set to set.
pub(super) fn set_heads(set: u128) -> i64 {
    (0..3)
        .map(|k| i64::from((set & HEAD_PLANES[k]).count_ones()) << k)
        .sum()
}

/// Row `r`'s key for [`Take5::target_row`]: `end * 4 + r` if its last card
/// is below `card`, else 0; by a select the compiler keeps as a conditional
/// move (a random card would mispredict a branch).
#[inline(always)]
fn eligible_row_key(ends: u32, r: usize, card: u8) -> usize {
    let end = (ends >> (8 * r)) as u8 as usize;
    select_unpredictable(end < card as usize, end << 2 | r, 0)
}

/// The larger of two keys, by a conditional move.
#[inline(always)]
fn larger(a: usize, b: usize) -> usize {
    select_unpredictable(a > b, a, b)
}

/// `set` if `keep`, else the empty set, without a branch.
#[inline(always)]
fn only_if(keep: bool, set: u128) -> u128 {
    set & 0u128.wrapping_sub(u128::from(keep))
}

impl<C: Count> Take5<C> {
    /// Round 1 before the deal, keeping the given (empty) lists' allocations.
    pub(super) fn undealt(
        params: Params,
        seed: u64,
        round_scores: Vec<[i64; MAX_PLAYERS]>,
        history: Vec<Action>,
    ) -> Self {
        Take5 {
            count: C::default(),
params,
            rng: SplitMix64::new(seed),
            round: 1,
            turn: 0,
            phase: Phase::Commit,
            to_act: 0,
            rows: [0; ROWS],
            row_ends: 0,
            hands: [0; MAX_PLAYERS],
            committed: [0; MAX_PLAYERS],
            revealed: [(0, 0); MAX_PLAYERS],
            next_to_place: 0,
            piles: [0; MAX_PLAYERS],
            unused: 0,
            scores: [0; MAX_PLAYERS],
            round_scores,
            history,
            round_start: 0,
        }
    }

    pub(super) fn n(&self) -> usize {
        self.params.players
    }

    /// Row `r` becomes the one card `c`.
    pub(super) fn start_row(&mut self, r: usize, c: u8) {
        self.rows[r] = bit(c);
        self.row_ends = Self::with_end(self.row_ends, r, c);
    }

    pub(super) fn row_end(&self, r: usize) -> u8 {
        (self.row_ends >> (8 * r)) as u8
    }

    pub(super) fn row_heads(&self, r: usize) -> u32 {
        set_heads(self.rows[r]) as u32
    }

    /// Seat `s` puts `card` from its hand face down.
    #[inline(always)]
    pub(super) fn lay_down(&mut self, s: usize, card: u8) {
        fired!(self.count, "T5-P2");
        self.hands[s] &= !bit(card);
        self.committed[s] = card;
    }

    /// `reveal`, given the set of the committed cards.
    #[inline(always)]
    pub(super) fn reveal_set(&mut self, set: u128) {
        fired!(self.count, "T5-P3");
        let n = self.n();
        for s in 0..n {
            let c = self.committed[s];
            let place = (set & (bit(c) - 1)).count_ones() as usize;
            self.revealed[place] = (c, s as u8);
            self.committed[s] = 0;
        }
        self.next_to_place = 0;
    }

    /// `ends` with row `r`'s last card now `c`.
    pub(super) fn with_end(ends: u32, r: usize, c: u8) -> u32 {
        let shift = 8 * r;
        ends & !(0xFF << shift) | u32::from(c) << shift
    }

    /// Variant `auto_fewest_heads`: a too-low card takes the cheapest row;
    /// returns the row. Out of line: the variant is off by default, and its
    /// bit-plane counts would crowd the placement loop's registers.
    #[inline(never)]
    fn take_fewest_heads_row(&mut self, card: u8, seat: usize) -> usize {
        let r = self.fewest_heads_row();
        fired!(self.count, "T5-P6");
        if C::ON && (0..ROWS).any(|o| o != r && self.row_heads(o) == self.row_heads(r)) {
            fired!(self.count, "T5-P7");
        }
        self.take_row(r, card, seat);
        r
    }
}
