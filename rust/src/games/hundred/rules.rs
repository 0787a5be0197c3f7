//! The rules of 100, in the order of its rule book (`docs/rules/hundred.md`),
//! under the same headings and with the same function names as the Python
//! reference (`python/cardref/reference/hundred.py`). What makes them fast
//! (hands as words of bytes, card tables, seat tables) is kept in small
//! helpers at the end of the file.

use crate::points::Count;
use super::{Hundred, Reason, LIMIT, MAX_CARDS, MAX_PLAYERS, NEGATIVE_FLOOR, NO_BUST, RECENT_RING, VALUE_STEP};
use super::json::card_code;
use crate::cards::{bits, check_deck};
use crate::fired;
use crate::game::{competition_placements, Action, Error, Outcome, Rules};
use crate::params::{choice_key, invalid, variant_keys, CustomKey, KeyValue, Param, Variant};
use crate::rng::SplitMix64;
use serde_json::{json, Value};
use std::hint::select_unpredictable;

// ---------------------------------------------------------------------------
// §2 Card notation and deck order
// ---------------------------------------------------------------------------

pub(super) const R4: u8 = 2;
pub(super) const R5: u8 = 3;
pub(super) const R10: u8 = 8;
pub(super) const RJ: u8 = 9;
pub(super) const RQ: u8 = 10;
pub(super) const RK: u8 = 11;
pub(super) const RA: u8 = 12;
pub(super) const CLUBS: u8 = 0;
pub(super) const DIAMONDS: u8 = 1;
pub(super) const HEARTS: u8 = 2;
pub(super) const SPADES: u8 = 3;

/// The rank of card `c`: 0 for a 2 up to 12 for an ace.
pub(super) const fn rank_of(c: u8) -> u8 {
    c % 13
}

// ---------------------------------------------------------------------------
// §3.1 Seats and direction
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    pub(super) fn is_active(&self, seat: usize) -> bool {
        self.chips[seat] > 0
    }

    /// The first active seat in seat+d, seat+2d, ... (§3.1), looked up.
    #[inline]
    fn next_active(&self, seat: usize, dir: i8) -> usize {
        self.next_seat[2 * seat + usize::from(dir > 0)] as usize
    }
}

// ---------------------------------------------------------------------------
// §4 Setup, deal, who starts
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    /// A new game, dealt from `deck` if given (top card first, no generator
    /// call), else from the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = Hundred {
            count: C::default(),
params,
            cards: params.cards(),
            stride: hand_stride(params.hand_size),
            floor: params.floor(),
            rng: SplitMix64::new(seed),
            chips: [0; MAX_PLAYERS],
            hands: [0; MAX_CARDS],
            hand_len: [0; MAX_PLAYERS],
            hand_sets: [0; MAX_PLAYERS],
            slot_gen: [0; MAX_CARDS],
            slot_bust: [NO_BUST; MAX_CARDS],
            marked: 0,
            generation: 0,
            stock: [0; MAX_CARDS],
            stock_len: 0,
            pile: [0; MAX_CARDS],
            pile_len: 0,
            value: 0,
            dir: 1,
            current: 0,
            dealer: params.first_dealer as u8,
            deal_number: 1,
            elim: [0; MAX_PLAYERS],
            elim_len: 0,
            action_count: 0,
            result: None,
            active: 0,
            next_seat: [0; 2 * MAX_PLAYERS],
            recent_seats: [0; RECENT_RING],
            history: Vec::with_capacity(history_capacity(&params)),
        };
        game.chips[..params.players].fill(params.chips);
        game.set_active((1 << params.players) - 1);
        fired!(game.count, "HU-P1");
        let mut cards = [0u8; MAX_CARDS];
        match deck {
            Some(given) => {
                for (slot, i) in cards
                    .iter_mut()
                    .zip(check_deck(given, &params.canonical_deck())?)
                {
                    *slot = (i % 52) as u8;
                }
            }
            None => game.shuffled_deck(&mut cards),
        }
        game.deal(&cards[..params.deck_size()]);
        Ok(game)
    }

    fn shuffled_deck(&mut self, out: &mut [u8; MAX_CARDS]) {
        let size = self.params.deck_size();
        for (i, slot) in out[..size].iter_mut().enumerate() {
            *slot = (i % 52) as u8;
        }
        self.rng.shuffle(&mut out[..size]);
    }

    /// §4.4: one card at a time from left of the dealer, over active seats.
    fn deal(&mut self, deck: &[u8]) {
        self.generation = self.generation.wrapping_add(1);
        self.dir = 1;
        self.value = 0;
        self.pile_len = 0;
        self.hand_len = [0; MAX_PLAYERS];
        self.hand_sets = [0; MAX_PLAYERS];
        self.marked = 0;
        let first = self.next_active(self.dealer as usize, 1);
        let dealt = self.params.hand_size * self.active_count();
        let mut seat = first;
        for &c in &deck[..dealt] {
            self.push_to_hand(seat, c);
            seat = self.next_active(seat, 1);
        }
        let rest = &deck[dealt..];
        for (slot, &c) in self.stock.iter_mut().zip(rest.iter().rev()) {
            *slot = c;
        }
        self.stock_len = rest.len() as u8;
        self.current = first as u8;
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for Hundred<C> {
    fn current_player(&self) -> Option<usize> {
        self.result.is_none().then_some(self.current as usize)
    }

    /// §5.3: canonical card order, ace values ascending; safe plays only while
    /// one exists (unless voluntary busts are allowed); one action per code.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        if self.result.is_some() {
            return;
        }
        for c in bits(self.playable() as u128).map(Action::from) {
            if self.params.chooses_value(c as u8) {
                out.extend((1..=LIMIT as Action + 1).map(|x| c + x * VALUE_STEP));
            } else {
                out.push(c);
            }
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        if self.result.is_some() {
            return Some("the game is over".into());
        }
        let c = (action % VALUE_STEP) as u8;
        let code = card_code(c);
        let set = self.hand_set(self.current as usize);
        if set >> c & 1 == 0 {
            return Some(format!("{code} is not in its hand"));
        }
        match (self.params.chooses_value(c), action >= VALUE_STEP) {
            (true, true) => None,
            (true, false) => Some(format!(
                "{code} sets the value: play {code} X with X from 0 to 100"
            )),
            (false, true) => Some(format!("{code} does not take a value")),
            (false, false)
                if self.is_safe(c) || self.params.allow_voluntary_bust || !self.has_safe(set) =>
            {
                None
            }
            (false, false) => Some(format!(
                "{code} would bust ({}) while a safe card exists",
                self.params.new_value(c, self.value)
            )),
        }
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.play(action);
    }
}

impl<C: Count> Hundred<C> {
    /// The distinct cards the player to act may play (HU-6): the safe ones
    /// while one exists (unless voluntary busts are allowed), else all.
    #[inline]
    pub(super) fn playable(&self) -> u64 {
        let set = self.hand_set(self.current as usize);
        let safe = set & self.safe_now();
        if safe == 0 || self.params.allow_voluntary_bust {
            set
        } else {
            safe
        }
    }

    /// Whether `c` does not bust now (§5.3).
    fn is_safe(&self, c: u8) -> bool {
        self.safe_now() >> c & 1 != 0
    }
}

// ---------------------------------------------------------------------------
// §6.1 Card effects
// ---------------------------------------------------------------------------

/// Card `c`'s effect on the value before the floor, as `v -> mul·v + add`
/// (a value-choosing ace sets its X instead; here it keeps the value).
const fn effect(c: u8, red_ace: RedAce) -> Effect {
    let (mul, add) = match (rank_of(c), suit(c)) {
        (0, SPADES) => (2, 0),
        (RA, _) if matches!(red_ace, RedAce::One) => (1, 1),
        (RA, _) | (R4, _) | (RK, _) => (1, 0),
        (R5, HEARTS | DIAMONDS) => (1, -5),
        (RJ, _) => (1, -10),
        (R10, _) => (0, LIMIT as i8),
        (RQ, HEARTS) => (0, 0),
        (RQ, _) => (1, 10),
        (r, _) => (1, r as i8 + 2),
    };
    Effect { mul, add }
}

impl Params {
    /// Black aces always set a value; red aces only with `red_ace = choose` (HU-1).
    #[inline]
    pub(super) fn chooses_value(&self, c: u8) -> bool {
        self.cards().choosers >> c & 1 != 0
    }

    /// The value after playing `c` (not a value-choosing ace) on `v`; above 100 busts.
    #[inline]
    pub(super) fn new_value(&self, c: u8, v: i64) -> i64 {
        self.cards().new_value(c, v, self.floor())
    }
}

// ---------------------------------------------------------------------------
// §6.2 Full resolution of a play
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    /// The rule points of a play, from the card, the hand and the value.
    fn note_play(&mut self, c: u8, new: i64) {
        if self.params.chooses_value(c) {
            fired!(self.count, "HU-P2");
            if rank_of(c) == RA && matches!(suit(c), HEARTS | DIAMONDS) {
                fired!(self.count, "HU-P13");
            }
        } else if !self.has_safe(self.hand_set(self.current as usize)) {
            fired!(self.count, "HU-P3");
        } else if new > LIMIT {
            fired!(self.count, "HU-P4");
        }
        let (rank, red) = (rank_of(c), matches!(suit(c), HEARTS | DIAMONDS));
        if rank == 0 && suit(c) == SPADES {
            fired!(self.count, "HU-P5");
        }
        if rank == R4 {
            fired!(self.count, "HU-P6");
            if self.active_count() == 2 {
                fired!(self.count, "HU-P7");
            }
        }
        if rank == R10 {
            fired!(self.count, "HU-P8");
        }
        if rank == RQ && suit(c) == HEARTS {
            fired!(self.count, "HU-P9");
        }
        let drop = match rank {
            RJ => 10,
            R5 if red => 5,
            _ => 0,
        };
        if drop > 0 && self.value - drop < 0 {
            if self.params.allow_negative {
                fired!(self.count, "HU-P11");
            } else {
                fired!(self.count, "HU-P10");
            }
        }
        if rank == RA && red && self.params.red_ace == RedAce::Zero {
            fired!(self.count, "HU-P12");
        }
        if new == LIMIT {
            fired!(self.count, "HU-P14");
        }
        if new <= LIMIT {
            fired!(self.count, "HU-P15");
        }
    }

    /// §6.2: the full resolution of `play C [X]`. Inlined into the playout
    /// loop; a bust (one play in twenty) continues out of line in
    /// [`Self::finish_bust`].
    #[inline(always)]
    pub(super) fn play(&mut self, action: Action) {
        let seat = self.current as usize;
        let c = (action % VALUE_STEP) as u8;
        self.remember(seat, action);
        let new = self.value_after(action); // HU-4: an ace's value never busts
        if C::ON {
            self.note_play(c, new);
        }
        self.remove_from_hand(seat, c);
        self.pile[self.pile_len as usize] = c;
        self.pile_len += 1;
        self.dir = direction_after(c, self.dir); // HU-15: a 4 reverses it
        if new <= LIMIT {
            self.value = new;
            self.draw(seat);
            self.current = self.next_active(seat, self.dir) as u8;
        } else {
            self.finish_bust(seat);
        }
        self.action_count += 1;
        if self.action_count >= self.params.max_actions {
            self.reach_cap();
        }
    }

    /// Steps 3 to 7 of §6.2 for a play that busts.
    #[inline(never)]
    fn finish_bust(&mut self, seat: usize) {
        if !self.params.allow_voluntary_bust {
            self.mark_bust(seat); // a forced bust (HU-6)
        }
        let redealt = self.bust(seat);
        if self.is_active(seat) && !redealt {
            self.draw(seat);
        }
        if self.active_count() == 1 {
            self.end(Reason::LastStanding);
        } else if !redealt {
            self.current = self.next_active(seat, self.dir) as u8;
        }
    }
}

// ---------------------------------------------------------------------------
// §6.3 Bust penalty
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    /// Loses a chip, then applies `bust_rule`; true if a new deal was made.
    pub(super) fn bust(&mut self, seat: usize) -> bool {
        fired!(self.count, "HU-P16");
        self.chips[seat] -= 1;
        if self.chips[seat] == 0 {
            self.eliminate(seat);
        }
        match self.params.bust_rule {
            BustRule::Reset => {
                fired!(self.count, "HU-P17");
                self.value = 0;
            }
            BustRule::Void => fired!(self.count, "HU-P18"),
            BustRule::Redeal if self.active_count() >= 2 => {
                fired!(self.count, "HU-P19");
                if !self.is_active(seat) {
                    fired!(self.count, "HU-P20");
                }
                self.dealer = seat as u8; // HU-8: the buster deals, even if just out
                self.deal_number += 1;
                let mut cards = [0u8; MAX_CARDS];
                self.shuffled_deck(&mut cards);
                self.deal(&cards[..self.params.deck_size()]);
                return true;
            }
            BustRule::Redeal => {}
        }
        false
    }

    /// HU-10: the rest of the hand goes under the pile, in hand order.
    fn eliminate(&mut self, seat: usize) {
        fired!(self.count, "HU-P21");
        let k = self.hand_len[seat] as usize;
        let len = self.pile_len as usize;
        self.pile.copy_within(0..len, k);
        let start = self.hand_start(seat);
        self.pile[..k].copy_from_slice(&self.hands[start..start + k]);
        self.pile_len += k as u8;
        self.hand_len[seat] = 0;
        self.hand_sets[seat] = 0;
        self.marked &= !(1 << seat);
        self.set_active(self.active & !(1 << seat));
        self.elim[self.elim_len as usize] = seat as u8;
        self.elim_len += 1;
    }
}

// ---------------------------------------------------------------------------
// §6.4 Drawing
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    /// Draws the top card; an empty stock is first rebuilt from the pile (HU-11).
    #[inline]
    fn draw(&mut self, seat: usize) {
        if self.stock_len == 0 && !self.rebuild_stock() {
            return;
        }
        self.stock_len -= 1;
        let c = self.stock[self.stock_len as usize];
        self.push_to_hand(seat, c);
    }

    /// The pile under its top card, shuffled, becomes the stock; false if
    /// there is no such card. Once in a stock's worth of plays, so not inlined.
    #[inline(never)]
    fn rebuild_stock(&mut self) -> bool {
        let under = self.pile_len as usize - 1;
        if under == 0 {
            return false;
        }
        fired!(self.count, "HU-P22");
        // Shuffled in pile order, then turned over: the stock's top is last.
        let stock = &mut self.stock[..under];
        stock.copy_from_slice(&self.pile[..under]);
        self.rng.shuffle(stock);
        stock.reverse();
        self.stock_len = under as u8;
        self.pile[0] = self.pile[under];
        self.pile_len = 1;
        if self.params.decks() == 1 {
            self.generation = self.generation.wrapping_add(1);
        }
        true
    }
}

// ---------------------------------------------------------------------------
// §7 Round structure, game end, termination
// ---------------------------------------------------------------------------

impl<C: Count> Hundred<C> {
    /// §7.3: the cap ends a game not over yet.
    #[cold]
    #[inline(never)]
    fn reach_cap(&mut self) {
        if self.result.is_none() {
            self.end(Reason::Cap);
        }
    }

    /// §7.2/7.3: the game is over.
    pub(super) fn end(&mut self, reason: Reason) {
        let ranking = self.ranking(reason);
        match reason {
            Reason::LastStanding => fired!(self.count, "HU-P23"),
            Reason::Cap => {
                fired!(self.count, "HU-P24");
                // Only the players still in can share a group.
                if C::ON && ranking.iter().any(|group| group.len() > 1) {
                    fired!(self.count, "HU-P25");
                }
            }
        }
        self.result = Some((reason, ranking));
    }

    /// §7.2/7.3: active seats first (by chips at the cap), then the eliminated,
    /// the last one out ranking best.
    pub(super) fn ranking(&self, reason: Reason) -> Vec<Vec<usize>> {
        let n = self.n();
        let active: Vec<usize> = (0..n).filter(|&s| self.is_active(s)).collect();
        let mut groups = Vec::new();
        match reason {
            Reason::LastStanding => groups.push(active),
            Reason::Cap => {
                let mut counts: Vec<i64> = active.iter().map(|&s| self.chips[s]).collect();
                counts.sort_unstable_by(|a, b| b.cmp(a));
                counts.dedup();
                for k in counts {
                    groups.push(
                        active
                            .iter()
                            .copied()
                            .filter(|&s| self.chips[s] == k)
                            .collect(),
                    );
                }
            }
        }
        groups.extend(
            self.elim[..self.elim_len as usize]
                .iter()
                .rev()
                .map(|&s| vec![s as usize]),
        );
        groups
    }
}

impl<C: Count> Outcome for Hundred<C> {
    fn scores(&self) -> Vec<i64> {
        self.chips[..self.n()].to_vec()
    }

    fn final_placements(&self) -> Vec<u32> {
        let ranking = self.result.as_ref().map_or(&[][..], |(_, r)| &r[..]);
        let mut group = [0usize; MAX_PLAYERS];
        for (i, seats) in ranking.iter().enumerate() {
            for &s in seats {
                group[s] = i;
            }
        }
        competition_placements(self.n(), |a, b| group[a] < group[b])
    }

    /// Deals dealt so far (more than one only with `bust_rule = redeal`).
    fn rounds(&self) -> u32 {
        self.deal_number as u32
    }
}

// ---------------------------------------------------------------------------
// §8 Variants and config keys
// ---------------------------------------------------------------------------

choice_key! {
    /// `red_ace` (HU-1).
    pub enum RedAce {
        /// Adds 1 (default).
        One = "one",
        /// Sets a value, as the black aces.
        Choose = "choose",
        /// Adds nothing.
        Zero = "zero",
    }
}

choice_key! {
    /// `bust_rule` (HU-7).
    pub enum BustRule {
        /// The value restarts at 0 (default).
        Reset = "reset",
        /// The busting card has no effect.
        Void = "void",
        /// A new deal, dealt by the buster.
        Redeal = "redeal",
    }
}

/// `num_decks`: "auto" (HU-12), or 1 or 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumDecks {
    /// One deck up to 6 players, else two.
    Auto,
    /// That many decks.
    Decks(u8),
}

impl KeyValue for NumDecks {
    fn to_json(&self) -> Value {
        match self {
            NumDecks::Auto => json!("auto"),
            NumDecks::Decks(d) => json!(d),
        }
    }
}

impl CustomKey for NumDecks {
    fn default_value() -> Self {
        NumDecks::Auto
    }

    fn read(given: Param) -> Result<Self, String> {
        match given {
            Param::Str(s) if s == "auto" => Ok(NumDecks::Auto),
            Param::Int(d @ (1 | 2)) => Ok(NumDecks::Decks(d as u8)),
            other => Err(format!("must be \"auto\", 1 or 2, got {}", other.describe())),
        }
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Params {
        /// Two players are allowed only with this.
        allow_two_players: bool = boolean(false),
        /// How many decks are in play.
        num_decks: NumDecks = custom,
        /// Starting chips.
        chips: i64 = int(3, 1, i64::MAX),
        /// Cards in a hand.
        hand_size: usize = int(3, 1, i64::MAX),
        /// The first dealer's seat.
        first_dealer: usize = int(0, 0, i64::MAX),
        /// What a red ace does.
        red_ace: RedAce = choice,
        /// Whether the value may go below 0.
        allow_negative: bool = boolean(false),
        /// Whether a busting card may be played while a safe one exists.
        allow_voluntary_bust: bool = boolean(false),
        /// What follows a bust.
        bust_rule: BustRule = choice,
        /// Actions after which the game stops.
        max_actions: u64 = int(5000, 1, i64::MAX),
    }
}

impl Variant for Params {
    /// Cross-key checks of §8.
    fn check_config(&self) -> Result<(), Error> {
        let players = self.players;
        if players == 2 && !self.allow_two_players {
            return Err(invalid(
                "players",
                "2 players need allow_two_players = true (3 to 12 otherwise)".into(),
            ));
        }
        if self.first_dealer >= players {
            return Err(invalid(
                "first_dealer",
                format!(
                    "must be a seat from 0 to {}, got {}",
                    players - 1,
                    self.first_dealer
                ),
            ));
        }
        let in_play = 52 * self.decks();
        if self
            .hand_size
            .checked_mul(players)
            .is_none_or(|total| total >= in_play)
        {
            return Err(invalid(
                "hand_size",
                format!(
                    "hand_size x players must be below the {in_play} cards in play, got {} x {players}",
                    self.hand_size
                ),
            ));
        }
        Ok(())
    }

    /// The cards in play, canonical order: one deck, or two one after the other (§2.2).
    fn canonical_deck(&self) -> Vec<String> {
        (0..52 * self.decks())
            .map(|i| card_code((i % 52) as u8))
            .collect()
    }
}

impl Params {
    /// The deck count: `auto` is 1 deck up to 6 players, else 2 (HU-12).
    pub fn decks(&self) -> usize {
        match self.num_decks {
            NumDecks::Decks(d) => d as usize,
            NumDecks::Auto if self.players <= 6 => 1,
            NumDecks::Auto => 2,
        }
    }
}

// ---------------------------------------------------------------------------
// Helpers: how the rules above are made fast (no rule is decided here)
// ---------------------------------------------------------------------------

/// The 4s, which reverse the direction (HU-15).
pub(super) const FOURS: u64 = 1 << card(R4, 0) | 1 << card(R4, 1) | 1 << card(R4, 2) | 1 << card(R4, 3);

pub(super) const fn card(rank: u8, suit: u8) -> u8 {
    suit * 13 + rank
}

pub(super) const fn suit(c: u8) -> u8 {
    c / 13
}

/// `dir` after playing `c`: reversed by a 4 (HU-15), by a select, not a
/// branch (which card comes is a coin toss).
#[inline(always)]
fn direction_after(c: u8, dir: i8) -> i8 {
    select_unpredictable(FOURS >> c & 1 != 0, -dir, dir)
}

/// The bytes of a hand word: a hand of up to this many cards takes a word of its own.
const WORD: usize = 8;

/// One in every byte of a word.
const BYTES_ONE: u64 = 0x0101_0101_0101_0101;

/// Per hand length 0..=8, the bytes of a hand word holding its cards.
const HELD: [u64; WORD + 1] = {
    let mut held = [0; WORD + 1];
    let mut len = 1;
    while len <= WORD {
        held[len] = u64::MAX >> (64 - 8 * len);
        len += 1;
    }
    held
};

/// How far apart the seats' hands lie in `hands`: 8 for hands of up to 8
/// cards, so that a hand is one word that no other seat's hand shares (a
/// store to it never half-covers a later load of the next seat's word),
/// else `hand_size`.
fn hand_stride(hand_size: usize) -> usize {
    hand_size.max(WORD)
}

/// The 8 bytes of `slots` from `start` as one word, the first in the low byte.
#[inline(always)]
fn read_word(slots: &[u8], start: usize) -> u64 {
    let bytes: [u8; WORD] = slots[start..start + WORD].try_into().unwrap();
    u64::from_le_bytes(bytes)
}

#[inline(always)]
fn write_word(slots: &mut [u8], start: usize, word: u64) {
    slots[start..start + WORD].copy_from_slice(&word.to_le_bytes());
}

/// The high bit of every byte of `word` equal to `c`. Cards are below 0x80,
/// so no byte's sum carries into the next.
#[inline(always)]
fn bytes_equal(word: u64, c: u8) -> u64 {
    let x = word ^ (BYTES_ONE * u64::from(c));
    !x.wrapping_add(0x7f * BYTES_ONE) & (0x80 * BYTES_ONE)
}

/// The high bit of every byte of `word` equal to `b`, for any bytes.
#[inline(always)]
fn bytes_equal_any(word: u64, b: u8) -> u64 {
    let x = word ^ (BYTES_ONE * u64::from(b));
    let low = 0x7f * BYTES_ONE;
    !((x & low).wrapping_add(low) | x) & (0x80 * BYTES_ONE)
}

/// The high bit of every byte of `word` above `b`, for bytes up to 100 or
/// [`NO_BUST`] and `b` up to 100: with the high bit set first, no byte's
/// difference borrows from the next.
#[inline(always)]
fn bytes_above(word: u64, b: u8) -> u64 {
    let high = 0x80 * BYTES_ONE;
    (word | high).wrapping_sub(BYTES_ONE * (u64::from(b) + 1)) & high
}

/// The largest byte of `word`, for bytes below 0x80: halves compared byte
/// by byte (with the high bit set first, no difference borrows), three times.
#[inline(always)]
fn largest_byte(mut word: u64) -> u64 {
    let high = 0x80 * BYTES_ONE;
    for shift in [32, 16, 8] {
        let other = word >> shift;
        let keep = ((word | high).wrapping_sub(other) & high) >> 7;
        let keep = keep * 0xff;
        word = word & keep | other & !keep;
    }
    word & 0xff
}

/// `word` with each of the `moved` bytes taking the next byte's value.
#[inline(always)]
fn shift_down(word: u64, moved: u64) -> u64 {
    word & !moved | word >> 8 & moved
}

/// A card's effect on the value before the floor, `v -> mul·v + add`: every
/// card of the table has this form except a value-choosing ace, which sets the
/// X of its action (it keeps the value here, and nothing reads that).
#[derive(Debug, Clone, Copy)]
struct Effect {
    mul: i8,
    add: i8,
}

/// Per `red_ace` (in declaration order), the cards' effects and which cards choose a value.
#[derive(Debug)]
pub(super) struct CardTable {
    /// Indexed by a card, 64 entries (the last 12 unused) so that a card
    /// taken from an action (`action % 64`) needs no bounds check.
    effects: [Effect; VALUE_STEP as usize],
    /// Black aces always set a value; red aces only with `red_ace = choose` (HU-1).
    pub(super) choosers: u64,
    /// Per value 0..=100, the cards that do not bust on it: a value-choosing
    /// ace, or a card whose new value is at most 100. (Below 0, with
    /// `allow_negative`, no card busts, as on 0.)
    pub(super) safe: [u64; LIMIT as usize + 1],
    /// Per card, the highest value it does not bust on: a card's new value
    /// grows with the value, so it busts exactly on the values above.
    pub(super) last_safe: [u8; 52],
}

const fn card_table(red_ace: RedAce) -> CardTable {
    let mut t = CardTable {
        effects: [Effect { mul: 0, add: 0 }; VALUE_STEP as usize],
        choosers: 0,
        safe: [0; LIMIT as usize + 1],
        last_safe: [0; 52],
    };
    let mut c = 0;
    while c < 52 {
        let e = effect(c, red_ace);
        t.effects[c as usize] = e;
        let chooses = rank_of(c) == RA
            && (suit(c) == SPADES || suit(c) == CLUBS || matches!(red_ace, RedAce::Choose));
        if chooses {
            t.choosers |= 1 << c;
        }
        let mut v = 0;
        while v <= LIMIT {
            if chooses || e.mul as i64 * v + e.add as i64 <= LIMIT {
                t.safe[v as usize] |= 1 << c;
                t.last_safe[c as usize] = v as u8;
            }
            v += 1;
        }
        c += 1;
    }
    t
}

static CARD_TABLES: [CardTable; 3] = [
    card_table(RedAce::One),
    card_table(RedAce::Choose),
    card_table(RedAce::Zero),
];

/// Room for twice a usual game's actions, so that the history does not grow
/// while playing: a random game loses about one chip per 20 actions.
fn history_capacity(p: &Params) -> usize {
    let chips = p.chips.clamp(1, 1000) as usize;
    (40 * chips * p.players).min(p.max_actions.min(1 << 16) as usize)
}

impl CardTable {
    /// The value after playing `c` (not a value-choosing ace) on `v`, not
    /// below `floor`; above 100 busts.
    #[inline]
    pub(super) fn new_value(&self, c: u8, v: i64, floor: i64) -> i64 {
        let e = self.effects[c as usize];
        (i64::from(e.mul) * v + i64::from(e.add)).max(floor)
    }

    /// The cards that do not bust on value `v` (§5.3), value-choosing aces included.
    #[inline]
    pub(super) fn safe_cards(&self, v: i64) -> u64 {
        self.safe[v.clamp(0, LIMIT) as usize]
    }
}

impl Params {
    fn deck_size(&self) -> usize {
        52 * self.decks()
    }

    #[inline]
    pub(super) fn cards(&self) -> &'static CardTable {
        &CARD_TABLES[self.red_ace as usize]
    }

    /// The lowest value a play can leave (HU-3).
    #[inline]
    pub(super) fn floor(&self) -> i64 {
        if self.allow_negative {
            NEGATIVE_FLOOR
        } else {
            0
        }
    }

    /// The cards that do not bust on value `v` (§5.3), value-choosing aces included.
    #[inline]
    pub(super) fn safe_cards(&self, v: i64) -> u64 {
        self.cards().safe_cards(v)
    }
}

impl<C: Count> Hundred<C> {
    pub(super) fn n(&self) -> usize {
        self.params.players
    }

    pub(super) fn active_count(&self) -> usize {
        self.n() - self.elim_len as usize
    }

    /// Sets the active seats and `next_active` of every seat.
    pub(super) fn set_active(&mut self, active: u16) {
        self.active = active;
        for seat in 0..self.n() {
            for dir in [-1, 1] {
                self.next_seat[2 * seat + usize::from(dir > 0)] =
                    self.scan_next_active(seat, dir) as u8;
            }
        }
    }

    /// `next_active` from the active seats twice over, as bits 0..2n: bits
    /// seat+1 ..= seat+n upwards, or seat+n-1 down to seat, hold every seat
    /// once, in the order of play.
    fn scan_next_active(&self, seat: usize, dir: i8) -> usize {
        let n = self.n();
        let twice = u32::from(self.active) | u32::from(self.active) << n;
        if twice == 0 {
            return seat;
        }
        let at = if dir > 0 {
            seat + 1 + (twice >> (seat + 1)).trailing_zeros() as usize
        } else {
            31 - (twice & ((1 << (seat + n)) - 1)).leading_zeros() as usize
        };
        at % n
    }

    /// Where seat's hand starts in `hands`, `slot_gen` and `slot_bust`.
    #[inline]
    pub(super) fn hand_start(&self, seat: usize) -> usize {
        seat * self.stride
    }

    pub(super) fn hand(&self, seat: usize) -> &[u8] {
        let start = self.hand_start(seat);
        &self.hands[start..start + self.hand_len[seat] as usize]
    }

    /// The distinct cards of a hand as a 52-bit set (HU-13).
    #[inline]
    pub(super) fn hand_set(&self, seat: usize) -> u64 {
        self.hand_sets[seat]
    }

    /// Sets `hand_sets` from the hands, after they were written directly.
    pub(super) fn refresh_hand_sets(&mut self) {
        for seat in 0..self.n() {
            self.hand_sets[seat] = self.hand(seat).iter().fold(0, |set, &c| set | 1 << c);
        }
    }

    /// The cards that do not bust now.
    #[inline]
    fn safe_now(&self) -> u64 {
        self.cards.safe_cards(self.value)
    }

    pub(super) fn has_safe(&self, set: u64) -> bool {
        set & self.safe_now() != 0
    }

    /// The value the play of `action` sets: its X for a value-choosing ace,
    /// else its card's new value; by a select, not a branch.
    #[inline(always)]
    fn value_after(&self, action: Action) -> i64 {
        let chosen = (action / VALUE_STEP) as i64 - 1;
        let c = (action % VALUE_STEP) as u8;
        select_unpredictable(
            action >= VALUE_STEP,
            chosen,
            self.cards.new_value(c, self.value, self.floor),
        )
    }

    fn remember(&mut self, seat: usize, action: Action) {
        self.recent_seats[self.history.len() % RECENT_RING] = seat as u8;
        self.history.push(action);
    }

    /// Appends a card received to the end of the hand (§2.3).
    fn push_to_hand(&mut self, seat: usize, c: u8) {
        let i = self.hand_start(seat) + self.hand_len[seat] as usize;
        self.hands[i] = c;
        self.slot_gen[i] = self.generation;
        self.slot_bust[i] = NO_BUST;
        self.hand_len[seat] += 1;
        self.hand_sets[seat] |= 1 << c;
    }

    /// Removes the first copy of `c` from the hand, keeping the order (§2.3).
    /// Where the card sits is random, so the slots are moved without
    /// branching on it. Without a bust mark in the hand (no `marked` bit),
    /// only cards and generations move.
    #[inline(always)]
    fn remove_from_hand(&mut self, seat: usize, c: u8) {
        let marked = self.marked >> seat & 1 != 0;
        match (self.stride == WORD, marked) {
            (true, false) => self.remove_from_word(seat, c),
            (true, true) => self.remove_marked_word(seat, c),
            (false, false) => self.remove_from_slots(seat, c),
            (false, true) => self.remove_marked(seat, c),
        }
    }

    /// Where seat's hand word starts, the mask of its held bytes, the word,
    /// and the top bit of every byte that holds `c`: what both word removals
    /// begin with.
    #[inline(always)]
    fn hand_word(&self, seat: usize, c: u8) -> (usize, u64, u64, u64) {
        let start = self.hand_start(seat);
        let held = HELD[usize::from(self.hand_len[seat])];
        let cards = read_word(&self.hands, start);
        (start, held, cards, bytes_equal(cards, c) & held)
    }

    /// `remove_from_hand` for an unmarked hand of up to 8 cards, one word of
    /// `hands` and one of `slot_gen`: the card found and the slots from it on
    /// moved down by word operations, not a loop over the slots. The hand's
    /// last slot keeps its old byte, as in [`Self::remove_from_slots`].
    #[inline(always)]
    pub(super) fn remove_from_word(&mut self, seat: usize, c: u8) {
        let (start, held, cards, copies) = self.hand_word(seat, c);
        // The bytes from the first copy to the one before the last move down.
        let before_first = (copies & copies.wrapping_neg()).wrapping_sub(1) >> 7;
        let moved = held >> 8 & !before_first;
        write_word(&mut self.hands, start, shift_down(cards, moved));
        let gens = read_word(&self.slot_gen, start);
        write_word(&mut self.slot_gen, start, shift_down(gens, moved));
        self.hand_len[seat] -= u8::from(copies != 0);
        // With two decks the hand may keep another copy (HU-13).
        self.hand_sets[seat] &= !(u64::from(copies.is_power_of_two()) << c);
    }

    /// [`Self::remove_marked`] for a hand of up to 8 cards, by word
    /// operations on its card, generation and bust words, as in
    /// [`Self::remove_from_word`]; the tests of [`Self::ambiguous_slots`]
    /// are made on all slots at once.
    #[inline(never)]
    pub(super) fn remove_marked_word(&mut self, seat: usize, c: u8) {
        let (start, held, cards, copies) = self.hand_word(seat, c);
        if copies == 0 {
            return;
        }
        let first = copies & copies.wrapping_neg();
        let (gens, busts) = (
            read_word(&self.slot_gen, start),
            read_word(&self.slot_bust, start),
        );
        // The slots the card could have come from: its generation, and
        // unmarked or marked at a value it busts on.
        let gen = (gens >> (first.trailing_zeros() - 7)) as u8;
        let last_safe = self.cards.last_safe[usize::from(c)];
        let could = bytes_equal_any(gens, gen) & bytes_above(busts, last_safe) & held;
        let could = (could >> 7) * 0xff; // whole bytes
        let unmarked = busts & could & (0x80 * BYTES_ONE) != 0;
        let weakest = select_unpredictable(
            unmarked,
            u64::from(NO_BUST),
            largest_byte(busts & could & (0x7f * BYTES_ONE)),
        );
        let busts = busts & !could | (BYTES_ONE * weakest) & could;
        let kept = held >> 8;
        let moved = kept & !(first.wrapping_sub(1) >> 7);
        write_word(&mut self.hands, start, shift_down(cards, moved));
        write_word(&mut self.slot_gen, start, shift_down(gens, moved));
        let old_busts = read_word(&self.slot_bust, start);
        let busts = old_busts & !kept | shift_down(busts, moved) & kept;
        write_word(&mut self.slot_bust, start, busts);
        self.hand_len[seat] -= 1;
        self.hand_sets[seat] &= !(u64::from(copies.is_power_of_two()) << c);
        // A mark (at most 100) has the high bit clear.
        let no_mark = !busts & kept & (0x80 * BYTES_ONE) == 0;
        self.marked &= !(u16::from(no_mark) << seat);
    }

    /// `remove_from_hand` for an unmarked hand of more than 8 cards: one pass
    /// in which, from the card on, each slot takes the next slot's card.
    pub(super) fn remove_from_slots(&mut self, seat: usize, c: u8) {
        let start = self.hand_start(seat);
        let hand = start..start + self.hand_len[seat] as usize;
        let (cards, gens) = (&mut self.hands[hand.clone()], &mut self.slot_gen[hand]);
        let Some(&last) = cards.last() else { return };
        let (mut found, mut copies) = (false, 0);
        for j in 1..cards.len() {
            let here = cards[j - 1] == c;
            found |= here;
            copies += u32::from(here);
            cards[j - 1] = select_unpredictable(found, cards[j], cards[j - 1]);
            gens[j - 1] = select_unpredictable(found, gens[j], gens[j - 1]);
        }
        found |= last == c;
        copies += u32::from(last == c);
        self.hand_len[seat] -= u8::from(found);
        // With two decks the hand may keep another copy (HU-13).
        self.hand_sets[seat] &= !(u64::from(copies == 1) << c);
    }

    /// `remove_from_hand` for a hand with bust marks (of more than 8 cards, and
    /// the reference for [`Self::remove_marked_word`]), which move with their
    /// cards and may have to be weakened ([`Self::ambiguous_slots`]); clears
    /// the seat's `marked` bit if no mark is left.
    #[inline(never)]
    pub(super) fn remove_marked(&mut self, seat: usize, c: u8) {
        let start = self.hand_start(seat);
        let len = self.hand_len[seat] as usize;
        let (mut at, mut copies) = (len, 0);
        for (i, &x) in self.hands[start..start + len].iter().enumerate().rev() {
            at = if x == c { i } else { at };
            copies += usize::from(x == c);
        }
        if at == len {
            return;
        }
        self.hand_sets[seat] &= !(u64::from(copies == 1) << c);
        let (could, weakest) = self.ambiguous_slots(start..start + len, start + at, c);
        // Each slot from the card on takes the next one's card, and the slots
        // the card could have come from take the weakest of their marks.
        let mut marks = NO_BUST;
        for j in 0..len - 1 {
            let from = j + usize::from(j >= at);
            let bust = self.slot_bust[start + from];
            let bust = select_unpredictable(could >> from & 1 != 0, weakest, bust);
            self.hands[start + j] = self.hands[start + from];
            self.slot_gen[start + j] = self.slot_gen[start + from];
            self.slot_bust[start + j] = bust;
            marks &= bust; // a mark (at most 100) clears the high bit of NO_BUST
        }
        self.hand_len[seat] -= 1;
        if marks == NO_BUST {
            self.marked &= !(1 << seat);
        }
    }
}
