//! 100 (One Hundred), as specified in `docs/rules/hundred.md`.
//!
//! 3–12 players (2 with `allow_two_players`) play from one 52-card deck, or two
//! for 7 or more (HU-12), each with 3 chips and a hand of 3. In turn a player
//! plays one card onto the pile and draws. The black aces set the pile value to
//! any 0–100 (`play AS 57`); red aces add 1 (HU-1); 2♠ doubles (HU-17); other 2s,
//! 3s, 5♠/5♣ and 6–9 add their rank (HU-2); 4s reverse the direction (HU-15);
//! 5♥/5♦ take 5 and jacks 10, not below 0 (HU-3); tens set 100; Q♥ sets 0; other
//! queens add 10; kings add nothing. A play above 100 busts (HU-5) and may only be
//! made when every card in hand busts (HU-6). A bust costs a chip and, by
//! default, restarts the value at 0 (HU-7, `bust_rule`). An empty stock is rebuilt
//! from the pile under its top card (HU-11). A seat without chips is out, its hand
//! going under the pile (HU-10); the last seat with chips wins, and
//! `max_actions` caps the game (HU-18).
//!
//! Representation: cards are `u8` codes 0..52 in canonical order (suit × 13 +
//! rank); the hands share one fixed array (seat s from `s × stride`, the stride 8
//! for hands of up to 8 cards, so that each is one 8-byte word), stock and
//! pile are fixed arrays (the stock stored top last, so a draw is a pop); the
//! distinct cards of each hand form a 52-bit set kept along with the hand, and
//! static tables per `red_ace` give each card's effect and the set of cards
//! safe on each value, so the playable cards are one AND; the active seats are
//! a bit mask, and each seat's next active seat either way a table; an action is
//! `card + 64 × (X + 1)` for an ace choosing X, plain `card` otherwise. Nothing is
//! allocated while playing except the history (sized for the game) and the final
//! ranking.

use crate::cards::{bits, check_deck, nth_bit64};
use crate::game::{
    competition_placements, parse_canonical_uint, pick, Action, Error, Game, GameSpec, NativeBots,
    Outcome, Rules, Search, StateJson,
};
use crate::json::{self, ensure};
use crate::params::{choice_key, invalid, variant_keys, CustomKey, KeyValue, Param, Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};
use std::hint::select_unpredictable;

/// Most seats at a table.
pub const MAX_PLAYERS: usize = 12;
/// The ring of the last plays' seats: a power of two (so the place of a play
/// is a mask of its index) with room for a round of `MAX_PLAYERS`.
const RECENT_RING: usize = 16;
const MAX_CARDS: usize = 104;
const LIMIT: i64 = 100;
/// With `allow_negative` the rule book sets no floor; the engines stop the value
/// here so that doubling a negative value stays finite (HU-22).
pub const NEGATIVE_FLOOR: i64 = -1_000_000_000;
const VALUE_STEP: Action = 64;
/// The values the search bot tries for a value-choosing ace.
const ACE_TRIES: [Action; 13] = [0, 50, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100];

/// What a card that can never bust is worth to the search bot at the end of
/// a rollout, in chips.
const RESCUE_WORTH: f64 = 0.2;

/// `slot_bust` of a slot that was never held through a forced bust.
const NO_BUST: u8 = u8::MAX;

// ---------------------------------------------------------------------------
// §2 Cards
// ---------------------------------------------------------------------------

const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];
const SUITS: [&str; 4] = ["C", "D", "H", "S"];
const R4: u8 = 2;
const R5: u8 = 3;
const R10: u8 = 8;
const RJ: u8 = 9;
const RQ: u8 = 10;
const RK: u8 = 11;
const RA: u8 = 12;
/// The 4s, which reverse the direction (HU-15).
const FOURS: u64 = 1 << card(R4, 0) | 1 << card(R4, 1) | 1 << card(R4, 2) | 1 << card(R4, 3);
const CLUBS: u8 = 0;
const DIAMONDS: u8 = 1;
const HEARTS: u8 = 2;
const SPADES: u8 = 3;

const fn card(rank: u8, suit: u8) -> u8 {
    suit * 13 + rank
}

const fn rank(c: u8) -> u8 {
    c % 13
}

const fn suit(c: u8) -> u8 {
    c / 13
}

/// The code of card `c`, e.g. `"10H"`.
pub fn card_code(c: u8) -> String {
    format!("{}{}", RANKS[rank(c) as usize], SUITS[suit(c) as usize])
}

/// The card of a code, if it is one of the 52.
pub fn parse_card(text: &str) -> Option<u8> {
    let split = text.len().checked_sub(1)?;
    let (r, s) = text.split_at_checked(split)?;
    let r = RANKS.iter().position(|&x| x == r)?;
    let s = SUITS.iter().position(|&x| x == s)?;
    Some(card(r as u8, s as u8))
}

fn codes(cards: &[u8]) -> Vec<String> {
    cards.iter().map(|&c| card_code(c)).collect()
}

/// The `k`-th lowest card of `set`, a set of at most `hand_size` cards. For a
/// hand of up to 4 cards, clearing the lowest card `k` times (in a fixed
/// number of branch-free steps) is shorter than the general select.
#[inline(always)]
fn nth_card(set: u64, k: u32, hand_size: usize) -> u32 {
    if hand_size > 4 {
        return nth_bit64(set, k);
    }
    let mut rest = set;
    for step in 1..4 {
        rest = select_unpredictable(step <= k, rest & rest.wrapping_sub(1), rest);
    }
    rest.trailing_zeros()
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

// ---------------------------------------------------------------------------
// §8 Variants
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

    fn deck_size(&self) -> usize {
        52 * self.decks()
    }
}

// ---------------------------------------------------------------------------
// §6.1 Card effects
// ---------------------------------------------------------------------------

/// A card's effect on the value before the floor, `v -> mul·v + add`: every
/// card of the table has this form except a value-choosing ace, which sets the
/// X of its action (it keeps the value here, and nothing reads that).
#[derive(Debug, Clone, Copy)]
struct Effect {
    mul: i8,
    add: i8,
}

const fn effect(c: u8, red_ace: RedAce) -> Effect {
    let (mul, add) = match (rank(c), suit(c)) {
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

/// Per `red_ace` (in declaration order), the cards' effects and which cards choose a value.
#[derive(Debug)]
struct CardTable {
    /// Indexed by a card, 64 entries (the last 12 unused) so that a card
    /// taken from an action (`action % 64`) needs no bounds check.
    effects: [Effect; VALUE_STEP as usize],
    /// Black aces always set a value; red aces only with `red_ace = choose` (HU-1).
    choosers: u64,
    /// Per value 0..=100, the cards that do not bust on it: a value-choosing
    /// ace, or a card whose new value is at most 100. (Below 0, with
    /// `allow_negative`, no card busts, as on 0.)
    safe: [u64; LIMIT as usize + 1],
    /// Per card, the highest value it does not bust on: a card's new value
    /// grows with the value, so it busts exactly on the values above.
    last_safe: [u8; 52],
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
        let chooses = rank(c) == RA
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

impl CardTable {
    /// The value after playing `c` (not a value-choosing ace) on `v`, not
    /// below `floor`; above 100 busts.
    #[inline]
    fn new_value(&self, c: u8, v: i64, floor: i64) -> i64 {
        let e = self.effects[c as usize];
        (i64::from(e.mul) * v + i64::from(e.add)).max(floor)
    }

    /// The cards that do not bust on value `v` (§5.3), value-choosing aces included.
    #[inline]
    fn safe_cards(&self, v: i64) -> u64 {
        self.safe[v.clamp(0, LIMIT) as usize]
    }
}

impl Params {
    #[inline]
    fn cards(&self) -> &'static CardTable {
        &CARD_TABLES[self.red_ace as usize]
    }

    /// The lowest value a play can leave (HU-3).
    #[inline]
    fn floor(&self) -> i64 {
        if self.allow_negative {
            NEGATIVE_FLOOR
        } else {
            0
        }
    }

    /// Black aces always set a value; red aces only with `red_ace = choose` (HU-1).
    #[inline]
    fn chooses_value(&self, c: u8) -> bool {
        self.cards().choosers >> c & 1 != 0
    }

    /// The value after playing `c` (not a value-choosing ace) on `v`; above 100 busts.
    #[inline]
    fn new_value(&self, c: u8, v: i64) -> i64 {
        self.cards().new_value(c, v, self.floor())
    }

    /// The cards that do not bust on value `v` (§5.3), value-choosing aces included.
    #[inline]
    fn safe_cards(&self, v: i64) -> u64 {
        self.cards().safe_cards(v)
    }
}

/// Room for twice a usual game's actions, so that the history does not grow
/// while playing: a random game loses about one chip per 20 actions.
fn history_capacity(p: &Params) -> usize {
    let chips = p.chips.clamp(1, 1000) as usize;
    (40 * chips * p.players).min(p.max_actions.min(1 << 16) as usize)
}

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Why the game ended (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// One seat is left with chips.
    LastStanding,
    /// `max_actions` was reached.
    Cap,
}

impl Reason {
    fn name(self) -> &'static str {
        match self {
            Reason::LastStanding => "LAST_STANDING",
            Reason::Cap => "CAP",
        }
    }
}

/// A game of 100 in progress.
#[derive(Debug, Clone)]
pub struct Hundred {
    params: Params,
    /// `params.cards()`, looked up once.
    cards: &'static CardTable,
    rng: SplitMix64,
    chips: [i64; MAX_PLAYERS],
    /// Seat s's hand is `hands[s·stride ..]`: a hand never holds more than
    /// `hand_size` cards, and `hand_size·n < 52·decks` (§8), or `8·n` with
    /// n at most 12, makes them all fit.
    hands: [u8; MAX_CARDS],
    /// [`hand_stride`] of `params`, kept at hand.
    stride: usize,
    /// `params.floor()`, kept at hand.
    floor: i64,
    hand_len: [u8; MAX_PLAYERS],
    /// Per seat, the distinct cards of its hand (HU-13), kept up to date with
    /// the hand so that the random bot need not gather them.
    hand_sets: [u64; MAX_PLAYERS],
    /// Per hand slot, what every seat has seen that constrains its card (for
    /// [`Rules::resample`]): the stock generation it was received from
    /// (`generation` at the time) ...
    slot_gen: [u8; MAX_CARDS],
    /// ... and, if it was held through a forced bust, the lowest value at which
    /// that happened ([`NO_BUST`] otherwise): the card busts at that value.
    slot_bust: [u8; MAX_CARDS],
    /// One bit per seat whose hand may hold a slot with a bust mark (none
    /// without its bit).
    marked: u16,
    /// The stock's generation: +1 at each deal, and at each rebuild of a
    /// one-deck stock (with two decks a played code may come from either
    /// generation, so rebuilds are not told apart). Not in the JSON: a loaded
    /// state has every slot in the stock's generation and unconstrained.
    generation: u8,
    /// The stock with its top card last.
    stock: [u8; MAX_CARDS],
    stock_len: u8,
    /// The pile with its top card last.
    pile: [u8; MAX_CARDS],
    pile_len: u8,
    value: i64,
    dir: i8,
    current: u8,
    dealer: u8,
    deal_number: u64,
    elim: [u8; MAX_PLAYERS],
    elim_len: u8,
    action_count: u64,
    result: Option<(Reason, Vec<Vec<usize>>)>,
    /// One bit per seat with chips (`chips[s] > 0`); set with [`Self::set_active`].
    active: u16,
    /// `next_active` of every seat, clockwise at `2·seat + 1` and
    /// counterclockwise at `2·seat`: it changes only when a seat drops out.
    next_seat: [u8; 2 * MAX_PLAYERS],
    /// Who made the plays, play j (`history[j]`) at `j % RECENT_RING`: the
    /// last n of them with their actions make the observation's `recent`.
    recent_seats: [u8; RECENT_RING],
    history: Vec<Action>,
}

// ---------------------------------------------------------------------------
// §4 Setup and deal
// ---------------------------------------------------------------------------

impl Hundred {
    /// A new game, dealt from `deck` if given (top card first, no generator
    /// call), else from the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = Hundred {
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

    fn n(&self) -> usize {
        self.params.players
    }

    fn shuffled_deck(&mut self, out: &mut [u8; MAX_CARDS]) {
        let size = self.params.deck_size();
        for (i, slot) in out[..size].iter_mut().enumerate() {
            *slot = (i % 52) as u8;
        }
        self.rng.shuffle(&mut out[..size]);
    }

    fn is_active(&self, seat: usize) -> bool {
        self.chips[seat] > 0
    }

    fn active_count(&self) -> usize {
        self.n() - self.elim_len as usize
    }

    /// The first active seat in seat+d, seat+2d, ... (§3.1), looked up.
    #[inline]
    fn next_active(&self, seat: usize, dir: i8) -> usize {
        self.next_seat[2 * seat + usize::from(dir > 0)] as usize
    }

    /// Sets the active seats and `next_active` of every seat.
    fn set_active(&mut self, active: u16) {
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

    /// Where seat's hand starts in `hands`, `slot_gen` and `slot_bust`.
    #[inline]
    fn hand_start(&self, seat: usize) -> usize {
        seat * self.stride
    }

    fn hand(&self, seat: usize) -> &[u8] {
        let start = self.hand_start(seat);
        &self.hands[start..start + self.hand_len[seat] as usize]
    }

    /// The distinct cards of a hand as a 52-bit set (HU-13).
    #[inline]
    fn hand_set(&self, seat: usize) -> u64 {
        self.hand_sets[seat]
    }

    /// Sets `hand_sets` from the hands, after they were written directly.
    fn refresh_hand_sets(&mut self) {
        for seat in 0..self.n() {
            self.hand_sets[seat] = self.hand(seat).iter().fold(0, |set, &c| set | 1 << c);
        }
    }

    // -----------------------------------------------------------------------
    // §5 Legal actions
    // -----------------------------------------------------------------------

    /// The cards that do not bust now.
    #[inline]
    fn safe_now(&self) -> u64 {
        self.cards.safe_cards(self.value)
    }

    fn is_safe(&self, c: u8) -> bool {
        self.safe_now() >> c & 1 != 0
    }

    fn has_safe(&self, set: u64) -> bool {
        set & self.safe_now() != 0
    }

    /// The distinct cards the player to act may play (HU-6): the safe ones
    /// while one exists (unless voluntary busts are allowed), else all.
    #[inline]
    fn playable(&self) -> u64 {
        let set = self.hand_set(self.current as usize);
        let safe = set & self.safe_now();
        if safe == 0 || self.params.allow_voluntary_bust {
            set
        } else {
            safe
        }
    }

    // -----------------------------------------------------------------------
    // §6.2 Resolution of a play
    // -----------------------------------------------------------------------

    /// Inlined into the playout loop; a bust (one play in twenty) continues
    /// out of line in [`Self::finish_bust`].
    #[inline(always)]
    fn play(&mut self, action: Action) {
        let seat = self.current as usize;
        let c = (action % VALUE_STEP) as u8;
        self.remember(seat, action);
        let chosen = (action / VALUE_STEP) as i64 - 1; // HU-4: an ace never busts
        let is_ace = action >= VALUE_STEP;
        let new = select_unpredictable(
            is_ace,
            chosen,
            self.cards.new_value(c, self.value, self.floor),
        );
        self.remove_from_hand(seat, c);
        self.pile[self.pile_len as usize] = c;
        self.pile_len += 1;
        let four = FOURS >> c & 1 != 0;
        self.dir = select_unpredictable(four, -self.dir, self.dir); // HU-15
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

    /// §7.3: the cap ends a game not over yet.
    #[cold]
    #[inline(never)]
    fn reach_cap(&mut self) {
        if self.result.is_none() {
            self.end(Reason::Cap);
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

    fn remember(&mut self, seat: usize, action: Action) {
        self.recent_seats[self.history.len() % RECENT_RING] = seat as u8;
        self.history.push(action);
    }

    /// The last n plays (or all, if fewer) with their seats, oldest first.
    fn recent_pairs(&self) -> impl Iterator<Item = (u8, Action)> + '_ {
        let len = self.history.len();
        let first = len - len.min(self.n());
        (first..len).map(move |j| (self.recent_seats[j % RECENT_RING], self.history[j]))
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
    fn remove_from_word(&mut self, seat: usize, c: u8) {
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
    fn remove_marked_word(&mut self, seat: usize, c: u8) {
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
    fn remove_from_slots(&mut self, seat: usize, c: u8) {
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
    fn remove_marked(&mut self, seat: usize, c: u8) {
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

    // -----------------------------------------------------------------------
    // What a play shows about the hidden cards (for `resample`)
    // -----------------------------------------------------------------------

    /// Whether `c` can never bust (§6.1): it sets, keeps or lowers the value.
    fn never_busts(&self, c: u8) -> bool {
        self.params.safe_cards(LIMIT) >> c & 1 != 0
    }

    /// Whether `c` busts at value `v` (a value-choosing ace never does).
    fn busts_at(&self, c: u8, v: u8) -> bool {
        v != NO_BUST && self.params.safe_cards(i64::from(v)) >> c & 1 == 0
    }

    /// A forced bust (HU-6) shows that every other card of the hand busts too.
    fn mark_bust(&mut self, seat: usize) {
        self.marked |= 1 << seat;
        let v = self.value.clamp(0, LIMIT) as u8;
        let start = self.hand_start(seat);
        for b in &mut self.slot_bust[start..start + self.hand_len[seat] as usize] {
            *b = (*b).min(v);
        }
    }

    /// Before the card in slot `played` leaves the hand: the other seats see
    /// the code, not the slot. The slots it could have come from (same
    /// generation, and a bust constraint it meets), as bits from `hand.start`,
    /// and the weakest of their constraints: which of them is left is not
    /// known to the others, so each keeps only that one.
    fn ambiguous_slots(&self, hand: std::ops::Range<usize>, played: usize, c: u8) -> (u64, u8) {
        let gen = self.slot_gen[played];
        // Bitwise `&` and `|` and selects, not short cuts: each test is hard to predict.
        let mut could = 0u64;
        let mut weakest = 0u8;
        for (j, i) in hand.enumerate() {
            let bust = self.slot_bust[i];
            let safe = self.params.safe_cards(i64::from(bust)) >> c & 1 != 0;
            let fits = (self.slot_gen[i] == gen) & ((bust == NO_BUST) | !safe);
            could |= u64::from(fits) << j;
            weakest = select_unpredictable(fits & (bust > weakest), bust, weakest);
        }
        (could, weakest)
    }

    // -----------------------------------------------------------------------
    // §6.3 Bust penalty
    // -----------------------------------------------------------------------

    /// Loses a chip, then applies `bust_rule`; true if a new deal was made.
    fn bust(&mut self, seat: usize) -> bool {
        self.chips[seat] -= 1;
        if self.chips[seat] == 0 {
            self.eliminate(seat);
        }
        match self.params.bust_rule {
            BustRule::Reset => self.value = 0,
            BustRule::Void => {}
            BustRule::Redeal if self.active_count() >= 2 => {
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

    // -----------------------------------------------------------------------
    // §6.4 Drawing
    // -----------------------------------------------------------------------

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

    /// Appends a card received to the end of the hand (§2.3).
    fn push_to_hand(&mut self, seat: usize, c: u8) {
        let i = self.hand_start(seat) + self.hand_len[seat] as usize;
        self.hands[i] = c;
        self.slot_gen[i] = self.generation;
        self.slot_bust[i] = NO_BUST;
        self.hand_len[seat] += 1;
        self.hand_sets[seat] |= 1 << c;
    }

    // -----------------------------------------------------------------------
    // §7 Game end, termination
    // -----------------------------------------------------------------------

    fn end(&mut self, reason: Reason) {
        self.result = Some((reason, self.ranking(reason)));
    }

    /// §7.2/7.3: active seats first (by chips at the cap), then the eliminated,
    /// the last one out ranking best.
    fn ranking(&self, reason: Reason) -> Vec<Vec<usize>> {
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

    // -----------------------------------------------------------------------
    // JSON: observation, canonical state, and loading it back
    // -----------------------------------------------------------------------

    fn stock_codes(&self) -> Vec<String> {
        self.stock[..self.stock_len as usize]
            .iter()
            .rev()
            .map(|&c| card_code(c))
            .collect()
    }

    fn result_json(&self) -> Value {
        match &self.result {
            None => Value::Null,
            Some((reason, ranking)) => json!({"reason": reason.name(), "ranking": ranking}),
        }
    }

    fn recent_json(&self) -> Value {
        Value::Array(
            self.recent_pairs()
                .map(|(s, a)| json!([s, Self::action_text(a)]))
                .collect(),
        )
    }

    fn phase_name(&self) -> &'static str {
        if self.result.is_some() {
            "GAME_OVER"
        } else {
            "PLAY"
        }
    }

    fn hands_json(&self) -> Vec<Vec<String>> {
        (0..self.n()).map(|s| codes(self.hand(s))).collect()
    }


    fn read_recent(&mut self, pairs: &[Value]) -> Result<(), Error> {
        ensure(pairs.len() <= self.n(), || "recent is too long".into())?;
        for (i, pair) in pairs.iter().enumerate() {
            let bad = || Error::InvalidState {
                message: "recent must hold [seat, action] pairs".into(),
            };
            let items = pair.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
            let s = items[0].as_u64().ok_or_else(bad)?;
            let text = items[1].as_str().ok_or_else(bad)?;
            let j = (self.history.len() + i).wrapping_sub(pairs.len());
            ensure(self.history.get(j) == Some(&parse_history(text)?), || {
                "recent must pair the last actions of the history with their seats".into()
            })?;
            self.recent_seats[j % RECENT_RING] = seat(s, self.n(), "recent")?;
        }
        ensure(pairs.len() == self.n().min(self.history.len()), || {
            "recent must pair the last actions of the history with their seats".into()
        })?;
        Ok(())
    }

    fn read_phase(&mut self, v: &Value) -> Result<(), Error> {
        let bad = |m: &str| Error::InvalidState {
            message: m.to_string(),
        };
        match json::string(v, "phase")? {
            "PLAY" => {
                self.current = seat(json::uint(v, "current")?, self.n(), "current")?;
                ensure(json::field(v, "result")?.is_null(), || {
                    "result must be null in play".into()
                })?;
            }
            "GAME_OVER" => {
                ensure(json::field(v, "current")?.is_null(), || {
                    "current must be null once the game is over".into()
                })?;
                let reason = match json::field(v, "result")?
                    .get("reason")
                    .and_then(Value::as_str)
                {
                    Some("LAST_STANDING") => Reason::LastStanding,
                    Some("CAP") => Reason::Cap,
                    _ => return Err(bad("result must hold a reason")),
                };
                self.result = Some((reason, Vec::new()));
                let expected = json!({"reason": reason.name(), "ranking": self.ranking(reason)});
                ensure(v["result"] == expected, || {
                    "the ranking does not follow from chips and elimination_log".into()
                })?;
                self.end(reason);
            }
            other => return Err(bad(&format!("unknown phase {other:?}"))),
        }
        Ok(())
    }

    /// The checks `from_json` makes after reading every field (§3.2 invariants).
    fn check_consistency(&self) -> Result<(), Error> {
        let n = self.n();
        let p = &self.params;
        let mut counts = [0usize; 52];
        let all = (0..n)
            .flat_map(|s| self.hand(s).iter())
            .chain(&self.stock[..self.stock_len as usize]);
        for &c in all.chain(&self.pile[..self.pile_len as usize]) {
            counts[c as usize] += 1;
        }
        ensure(counts.iter().all(|&k| k == p.decks()), || {
            "the cards in hands, stock and pile are not exactly the cards in play".into()
        })?;
        ensure(
            self.chips[..n].iter().all(|&c| (0..=p.chips).contains(&c)),
            || "chips out of range".into(),
        )?;
        ensure(p.allow_negative || self.value >= 0, || {
            "value below 0".into()
        })?;
        let out: Vec<u8> = (0..n as u8)
            .filter(|&s| self.chips[s as usize] == 0)
            .collect();
        let mut log = self.elim[..self.elim_len as usize].to_vec();
        log.sort_unstable();
        ensure(log == out, || {
            "elimination_log must list exactly the seats without chips".into()
        })?;
        for s in 0..n {
            let want = if self.chips[s] == 0 { 0 } else { p.hand_size };
            ensure(self.hand(s).len() == want, || {
                format!("seat {s} must hold {want} cards")
            })?;
        }
        ensure(self.action_count == self.history.len() as u64, || {
            "action_count must equal the history length".into()
        })?;
        match &self.result {
            None => {
                ensure(self.active_count() >= 2, || {
                    "a game in play needs two active seats".into()
                })?;
                ensure(self.is_active(self.current as usize), || {
                    "current must be an active seat".into()
                })?;
                ensure(self.action_count < p.max_actions, || {
                    "the action cap is reached".into()
                })?;
            }
            Some((Reason::LastStanding, _)) => ensure(self.active_count() == 1, || {
                "LAST_STANDING needs one seat left".into()
            })?,
            Some((Reason::Cap, _)) => ensure(self.action_count >= p.max_actions, || {
                "CAP needs max_actions actions".into()
            })?,
        }
        Ok(())
    }
}

fn card_list(v: &Value, what: &str, max: usize) -> Result<Vec<u8>, Error> {
    let bad = || Error::InvalidState {
        message: format!("{what} must be lists of card codes"),
    };
    let cards: Vec<u8> = json::strings(v, what)?
        .iter()
        .map(|t| parse_card(t).ok_or_else(bad))
        .collect::<Result<_, _>>()?;
    ensure(cards.len() <= max, || {
        format!("{what} holds too many cards")
    })?;
    Ok(cards)
}

fn seat(s: u64, n: usize, what: &str) -> Result<u8, Error> {
    ensure(s < n as u64, || {
        format!("{what} must name seats from 0 to {}", n - 1)
    })?;
    Ok(s as u8)
}

fn parse_history(text: &str) -> Result<Action, Error> {
    Hundred::parse_action(text).ok_or_else(|| Error::InvalidState {
        message: format!("{text:?} in history is not an action"),
    })
}

impl Game for Hundred {
    const SPEC: GameSpec = GameSpec {
        id: "hundred",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 5,
        teams: &[],
        rule_prefix: "HU",
        heuristic: true,
        search: true,
    };
    type Params = Params;

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        Hundred::new(params, seed, deck)
    }
}

impl Rules for Hundred {
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

impl Outcome for Hundred {
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
}

impl StateJson for Hundred {
    fn parse_action(text: &str) -> Option<Action> {
        let rest = text.strip_prefix("play ")?;
        let (code, value) = match rest.split_once(' ') {
            Some((code, x)) => (
                code,
                Some(parse_canonical_uint(x).filter(|&x| x <= LIMIT as u32)?),
            ),
            None => (rest, None),
        };
        let c = parse_card(code)? as Action;
        Some(c + value.map_or(0, |x| (Action::from(x) + 1) * VALUE_STEP))
    }

    fn write_action(action: Action, out: &mut String) {
        out.push_str("play ");
        out.push_str(&card_code((action % VALUE_STEP) as u8));
        if action >= VALUE_STEP {
            out.push(' ');
            out.push_str(&(action / VALUE_STEP - 1).to_string());
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let n = self.n();
        json!({
            "game": Self::SPEC.id,
            "seat": seat,
            "players": n,
            "params": self.params.to_json(),
            "phase": self.phase_name(),
            "to_act": self.current_player(),
            "hand": codes(self.hand(seat)),
            "hand_sizes": self.hand_len[..n].to_vec(),
            "stock_size": self.stock_len,
            "pile": codes(&self.pile[..self.pile_len as usize]),
            "value": self.value,
            "dir": self.dir,
            "chips": self.scores(),
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "elimination_log": self.elim[..self.elim_len as usize].to_vec(),
            "action_count": self.action_count,
            "result": self.result_json(),
            "recent": self.recent_json(),
        })
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!("hundred"));
        m.insert("players".into(), json!(self.n()));
        m.insert("params".into(), self.params.to_json());
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("phase".into(), json!(self.phase_name()));
        m.insert("current".into(), json!(self.current_player()));
        m.insert("chips".into(), json!(self.scores()));
        m.insert("hands".into(), json!(self.hands_json()));
        m.insert("stock".into(), json!(self.stock_codes()));
        m.insert(
            "pile".into(),
            json!(codes(&self.pile[..self.pile_len as usize])),
        );
        m.insert("value".into(), json!(self.value));
        m.insert("dir".into(), json!(self.dir));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("deal_number".into(), json!(self.deal_number));
        m.insert(
            "elimination_log".into(),
            json!(self.elim[..self.elim_len as usize]),
        );
        m.insert("action_count".into(), json!(self.action_count));
        m.insert("result".into(), self.result_json());
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        m.insert("recent".into(), self.recent_json());
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = Hundred::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        let chips = json::ints(json::field(v, "chips")?, "chips")?;
        ensure(chips.len() == n, || {
            "\"chips\" must have one entry per seat".into()
        })?;
        g.chips[..n].copy_from_slice(&chips);
        g.set_active((0..n).filter(|&s| g.is_active(s)).map(|s| 1 << s).sum());
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == n, || {
            "\"hands\" must have one entry per seat".into()
        })?;
        for (s, h) in hands.iter().enumerate() {
            let cards = card_list(h, "hands", params.hand_size)?;
            let start = g.hand_start(s);
            g.hands[start..start + cards.len()].copy_from_slice(&cards);
            g.hand_len[s] = cards.len() as u8;
        }
        g.refresh_hand_sets();
        let stock = card_list(json::field(v, "stock")?, "stock", MAX_CARDS)?;
        for (slot, &c) in g.stock.iter_mut().zip(stock.iter().rev()) {
            *slot = c;
        }
        g.stock_len = stock.len() as u8;
        let pile = card_list(json::field(v, "pile")?, "pile", MAX_CARDS)?;
        g.pile[..pile.len()].copy_from_slice(&pile);
        g.pile_len = pile.len() as u8;
        g.value = json::int(v, "value")?;
        ensure((NEGATIVE_FLOOR..=LIMIT).contains(&g.value), || {
            "field \"value\" out of range".into()
        })?;
        g.dir = match json::int(v, "dir")? {
            1 => 1,
            -1 => -1,
            _ => {
                return Err(Error::InvalidState {
                    message: "dir must be 1 or -1".into(),
                })
            }
        };
        g.dealer = seat(json::uint(v, "dealer")?, n, "dealer")?;
        g.deal_number = json::uint(v, "deal_number")?;
        ensure(g.deal_number >= 1, || {
            "field \"deal_number\" out of range".into()
        })?;
        let log = json::ints(json::field(v, "elimination_log")?, "elimination_log")?;
        ensure(log.len() <= n, || "elimination_log is too long".into())?;
        for (i, &s) in log.iter().enumerate() {
            g.elim[i] = seat(s.max(-1) as u64, n, "elimination_log")?;
        }
        g.elim_len = log.len() as u8;
        g.action_count = json::uint(v, "action_count")?;
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            g.history.push(parse_history(text)?);
        }
        g.read_recent(json::array(v, "recent")?)?;
        g.slot_gen.fill(g.generation);
        g.slot_bust.fill(NO_BUST);
        g.read_phase(v)?;
        g.check_consistency()?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl NativeBots for Hundred {
    /// Fast path, without building the legal list: one draw below the number
    /// of legal actions, the first ones standing for the playable plain cards
    /// (one action each), the rest for the 101 values of each playable
    /// value-choosing ace. Uniform over the legal actions, in another order
    /// than `legal_actions`.
    #[inline(always)]
    fn random_action(&self, rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        let playable = self.playable();
        let aces = playable & self.cards.choosers;
        let plain = playable & !aces;
        let plain_count = plain.count_ones() as usize;
        let values = LIMIT as usize + 1;
        let r = pick(rng, plain_count + values * aces.count_ones() as usize);
        // Selects, not branches: whether an ace is drawn is hard to predict.
        let is_ace = r >= plain_count;
        let k = r.wrapping_sub(plain_count);
        let set = select_unpredictable(is_ace, aces, plain);
        // `k / values` by comparisons, which do not wait for one another:
        // there are at most 4 value-choosing aces.
        let ace = (1..4).map(|i| usize::from(k >= i * values)).sum::<usize>();
        let index = select_unpredictable(is_ace, ace, r);
        let value = k.wrapping_sub(ace * values) + 1;
        let value_code = select_unpredictable(is_ace, value as Action * VALUE_STEP, 0);
        let c = nth_card(set, index as u32, self.params.hand_size);
        Action::from(c) + value_code
    }

    /// The strategy of `cardref.bots.heuristic.hundred`: among the safe plain
    /// cards, push the value up but keep the rescue cards; else an ace that sets
    /// 100 (0 when no other card could follow 100); else give up the least
    /// useful card.
    fn heuristic_action(&self, _rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        buf.clear();
        self.legal_actions(buf);
        if buf.len() == 1 {
            return buf[0];
        }
        let value = self.value;
        let mut best: Option<(f64, Action)> = None;
        let mut first_ace = None;
        for &a in buf.iter() {
            if a >= VALUE_STEP {
                first_ace = first_ace.or(Some(a));
                continue;
            }
            let after = self.heuristic_value_after(a as u8, value);
            if after <= LIMIT {
                let score = after as f64 / 10.0 - 3.0 * rescue_value(a as u8) as f64;
                if best.is_none_or(|(b, _)| score > b) {
                    best = Some((score, a));
                }
            }
        }
        if let Some((_, a)) = best {
            return a;
        }
        if let Some(ace) = first_ace {
            let card = (ace % VALUE_STEP) as u8;
            let mut others: Vec<u8> = self.hand(self.current as usize).to_vec();
            if let Some(i) = others.iter().position(|&c| c == card) {
                others.remove(i);
            }
            let keeps = others
                .iter()
                .any(|&c| self.heuristic_value_after(c, 100) <= LIMIT);
            let x: Action = if keeps { 100 } else { 0 };
            return card as Action + (x + 1) * VALUE_STEP;
        }
        let mut texts: Vec<(i64, String, Action)> = buf
            .iter()
            .filter(|&&a| a < VALUE_STEP)
            .map(|&a| (rescue_value(a as u8), Self::action_text(a), a))
            .collect();
        texts.sort();
        texts.first().map_or(buf[0], |t| t.2)
    }
}

impl Search for Hundred {
    /// Hidden from `seat`: the other hands and the stock (contents and order).
    /// Each generation's cards (see `slot_gen`) are dealt anew over that
    /// generation's places, the slots with a bust constraint first (each from
    /// the cards that meet it), the rest uniformly.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        let n = self.n();
        if seat >= n {
            return Ok(g);
        }
        let hidden_slots = || {
            (0..n).filter(move |&s| s != seat).flat_map(move |s| {
                self.hand_start(s)..self.hand_start(s) + self.hand_len[s] as usize
            })
        };
        let mut done = [false; 256];
        let gens = hidden_slots()
            .map(|i| self.slot_gen[i])
            .chain(std::iter::once(self.generation));
        for gen in gens {
            if std::mem::replace(&mut done[gen as usize], true) {
                continue;
            }
            // Places (hand slot i, or stock position MAX_CARDS + i) and their cards.
            let mut places = [(0u8, 0u16); 2 * MAX_CARDS];
            let mut cards = [0u8; 2 * MAX_CARDS];
            let mut k = 0;
            for i in hidden_slots().filter(|&i| self.slot_gen[i] == gen) {
                places[k] = (self.slot_bust[i], i as u16);
                cards[k] = self.hands[i];
                k += 1;
            }
            if gen == self.generation {
                for i in 0..self.stock_len as usize {
                    places[k] = (NO_BUST, (MAX_CARDS + i) as u16);
                    cards[k] = self.stock[i];
                    k += 1;
                }
            }
            // Tightest constraint first: the constraints are nested (a card that
            // busts at v busts at every higher value), so each draw below has as
            // many choices whatever came before, and the deal is uniform.
            places[..k].sort_unstable();
            let mut i = 0;
            while i < k && places[i].0 != NO_BUST {
                let v = places[i].0;
                let fits = |c: u8| self.busts_at(c, v);
                let count = cards[i..k].iter().filter(|&&c| fits(c)).count();
                if count == 0 {
                    break; // cannot happen: the true cards meet every constraint
                }
                let r = pick(rng, count);
                let j = (i..k).filter(|&j| fits(cards[j])).nth(r).unwrap_or(i);
                cards.swap(i, j);
                i += 1;
            }
            rng.shuffle(&mut cards[i..k]);
            for (&(_, place), &c) in places[..k].iter().zip(&cards[..k]) {
                let place = place as usize;
                if place < MAX_CARDS {
                    g.hands[place] = c;
                } else {
                    g.stock[place - MAX_CARDS] = c;
                }
            }
        }
        g.refresh_hand_sets();
        Ok(g)
    }

    /// Builds the state JSON from what the observation shows (own hand, pile,
    /// hand and stock sizes, the public fields) plus the hidden cards dealt at
    /// random over the other hands and the stock, and loads it. The history
    /// before `recent` is not in the observation: it is filled with copies of
    /// the oldest action of `recent` (no rule reads the history, and
    /// `action_count` and `recent` stay exact).
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        let bad = |what: &str| Error::InvalidState {
            message: format!("not a hundred observation: {what}"),
        };
        ensure(json::string(obs, "game")? == "hundred", || {
            "not a hundred observation".into()
        })?;
        let n = self.n();
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < n, || "seat out of range".into())?;
        let hand = card_list(json::field(obs, "hand")?, "hand", MAX_CARDS)?;
        let pile = card_list(json::field(obs, "pile")?, "pile", MAX_CARDS)?;
        let sizes = json::ints(json::field(obs, "hand_sizes")?, "hand_sizes")?;
        ensure(sizes.len() == n, || {
            "hand_sizes has one entry per seat".into()
        })?;
        let stock_size = json::uint(obs, "stock_size")? as usize;
        let mut left = [self.params.decks(); 52];
        for &c in hand.iter().chain(&pile) {
            left[c as usize] = left[c as usize]
                .checked_sub(1)
                .ok_or_else(|| bad("a card shown more often than it exists"))?;
        }
        let mut hidden: Vec<u8> = (0..52u8)
            .flat_map(|c| std::iter::repeat_n(c, left[c as usize]))
            .collect();
        let wanted: i64 =
            stock_size as i64 + (0..n).filter(|&s| s != seat).map(|s| sizes[s]).sum::<i64>();
        ensure(wanted == hidden.len() as i64, || {
            "hand and stock sizes do not add up to the hidden cards".into()
        })?;
        rng.shuffle(&mut hidden);
        let mut next = hidden.into_iter();
        let hands: Vec<Vec<String>> = (0..n)
            .map(|s| {
                if s == seat {
                    codes(&hand)
                } else {
                    next.by_ref()
                        .take(sizes[s].max(0) as usize)
                        .map(card_code)
                        .collect()
                }
            })
            .collect();
        let stock: Vec<String> = next.map(card_code).collect();
        let recent = json::array(obs, "recent")?;
        let count = json::uint(obs, "action_count")? as usize;
        let mut history = Vec::with_capacity(count);
        if count > recent.len() {
            let oldest = recent
                .first()
                .and_then(|p| p.get(1))
                .ok_or_else(|| bad("recent is empty but actions were played"))?;
            history.resize(count - recent.len(), oldest.clone());
        }
        history.extend(recent.iter().filter_map(|p| p.get(1).cloned()));
        let state = json!({
            "game": Self::SPEC.id,
            "players": json::field(obs, "players")?,
            "params": json::field(obs, "params")?,
            "rng": rng.next_u64(),
            "phase": json::field(obs, "phase")?,
            "current": json::field(obs, "to_act")?,
            "chips": json::field(obs, "chips")?,
            "hands": hands,
            "stock": stock,
            "pile": json::field(obs, "pile")?,
            "value": json::field(obs, "value")?,
            "dir": json::field(obs, "dir")?,
            "dealer": json::field(obs, "dealer")?,
            "deal_number": json::field(obs, "deal_number")?,
            "elimination_log": json::field(obs, "elimination_log")?,
            "action_count": count,
            "result": json::field(obs, "result")?,
            "history": history,
            "recent": recent,
        });
        Self::from_json(self.params, &state)
    }

    /// A value-choosing ace is tried with 0, 50 and every value from 90 to
    /// 100, where the next player's safe cards change; every other card as it is.
    fn search_candidates(&self, legal: &mut Vec<Action>) {
        legal.retain(|&a| a < VALUE_STEP || ACE_TRIES.contains(&(a / VALUE_STEP - 1)));
    }

    /// Rollouts are short: they stop when `seat` is to act for the second
    /// time after the action tried (or has lost a chip, or the game is over;
    /// at the latest after 8 turns per seat). The value is the chips the
    /// other seats lost meanwhile (on average) minus those `seat` lost, minus
    /// one more if `seat` is to act with no safe card (it will bust), plus
    /// 0.2 per card in its hand that can never bust: the cards that get a
    /// player out of a high value, which the heuristic keeps for that reason.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        let n = self.n();
        let since = self.action_count - start.action_count;
        let lost = |s: usize| (start.chips[s] - self.chips[s]) as f64;
        let to_act = self.current_player() == Some(seat);
        if !self.is_terminal()
            && lost(seat) == 0.0
            && !(to_act && since > n as u64)
            && since < 8 * n as u64
        {
            return None;
        }
        let others = ((0..n).map(lost).sum::<f64>() - lost(seat)) / (n - 1) as f64;
        let doomed = to_act && lost(seat) == 0.0 && !self.has_safe(self.hand_set(seat));
        let rescues = self
            .hand(seat)
            .iter()
            .filter(|&&c| self.never_busts(c))
            .count();
        Some(others - lost(seat) - f64::from(u8::from(doomed)) + RESCUE_WORTH * rescues as f64)
    }
}


/// The heuristic bot's worth of keeping card `c`: the higher, the later it is played.
fn rescue_value(c: u8) -> i64 {
    match (rank(c), suit(c)) {
        (RQ, HEARTS) => 7,
        (R5, HEARTS | DIAMONDS) => 4,
        (RA, _) => 10,
        (RK | R4, _) => 6,
        (RJ, _) => 5,
        (R10, _) => 3,
        _ => 0,
    }
}

impl Hundred {
    /// The heuristic bot's estimate of the value after card `c` (an ace that
    /// sets a value counts as keeping it; no floor at 0).
    fn heuristic_value_after(&self, c: u8, value: i64) -> i64 {
        match (rank(c), suit(c)) {
            (0, SPADES) => 2 * value,
            (RA, HEARTS | DIAMONDS) if self.params.red_ace == RedAce::One => value + 1,
            (R4 | RK | RA, _) => value,
            (R5, HEARTS | DIAMONDS) => value - 5,
            (RJ, _) => value - 10,
            (R10, _) => LIMIT,
            (RQ, HEARTS) => 0,
            (RQ, _) => value + 10,
            (r, _) => value + r as i64 + 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(players: i64, given: &[(&str, Param)]) -> Params {
        crate::games::parse_params::<Hundred>(
            players,
            given
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
        .unwrap()
    }

    fn game(players: i64, given: &[(&str, Param)]) -> Hundred {
        let p = params(players, given);
        Hundred::new(p, 0, Some(&p.canonical_deck())).unwrap()
    }

    fn set_hand(g: &mut Hundred, seat: usize, cards: &[&str]) {
        for (i, t) in cards.iter().enumerate() {
            g.hands[g.hand_start(seat) + i] = parse_card(t).unwrap();
        }
        g.hand_len[seat] = cards.len() as u8;
        g.refresh_hand_sets();
    }

    fn legal(g: &Hundred) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_actions(&mut out);
        out.into_iter().map(Hundred::action_text).collect()
    }

    #[test]
    fn card_codes_round_trip_in_canonical_order() {
        assert_eq!(card_code(0), "2C");
        assert_eq!(card_code(51), "AS");
        assert_eq!(card_code(card(R10, HEARTS)), "10H");
        for c in 0..52 {
            assert_eq!(parse_card(&card_code(c)), Some(c));
        }
        for bad in ["", "1H", "TH", "10h", "AX", "H"] {
            assert_eq!(parse_card(bad), None, "{bad}");
        }
    }

    #[test]
    fn card_effects_follow_the_table() {
        let p = params(3, &[]);
        let v = |code: &str, value: i64| p.new_value(parse_card(code).unwrap(), value);
        assert_eq!(
            [
                v("2S", 30),
                v("2H", 30),
                v("4D", 30),
                v("5H", 3),
                v("5S", 30)
            ],
            [60, 32, 30, 0, 35]
        );
        assert_eq!(
            [
                v("9C", 30),
                v("10D", 3),
                v("JS", 6),
                v("QH", 90),
                v("QS", 20),
                v("KC", 99)
            ],
            [39, 100, 0, 0, 30, 99]
        );
        assert_eq!(v("AH", 99), 100);
        assert!(
            p.chooses_value(parse_card("AS").unwrap())
                && !p.chooses_value(parse_card("AD").unwrap())
        );
        let neg = params(3, &[("allow_negative", Param::Bool(true))]);
        assert_eq!(neg.new_value(parse_card("JH").unwrap(), 6), -4);
        assert_eq!(
            neg.new_value(parse_card("2S").unwrap(), NEGATIVE_FLOOR),
            NEGATIVE_FLOOR
        );
    }

    #[test]
    fn actions_parse_canonically() {
        assert_eq!(
            Hundred::parse_action("play AS 7")
                .map(Hundred::action_text)
                .as_deref(),
            Some("play AS 7")
        );
        for bad in [
            "play AS 07",
            "play AS 101",
            "play  7H",
            "play 7H ",
            "Play 7H",
            "play 1H",
            "play AS -1",
        ] {
            assert_eq!(Hundred::parse_action(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_safe_cards_while_one_exists() {
        let mut g = game(3, &[]);
        g.current = 1;
        g.value = 95;
        set_hand(&mut g, 1, &["2S", "KD", "9C"]);
        assert_eq!(legal(&g), vec!["play KD"]);
        assert!(g
            .illegal_reason(Hundred::parse_action("play 9C").unwrap())
            .unwrap()
            .contains("bust"));
    }

    #[test]
    fn elimination_puts_the_hand_under_the_pile() {
        let mut g = game(3, &[]);
        g.current = 0;
        g.value = 99;
        g.chips[0] = 1;
        set_hand(&mut g, 0, &["2H", "3H", "9S"]);
        g.pile[..2].copy_from_slice(&[parse_card("5C").unwrap(), parse_card("8D").unwrap()]);
        g.pile_len = 2;
        g.apply_checked("play 2H").unwrap();
        assert_eq!(
            codes(&g.pile[..g.pile_len as usize]),
            ["3H", "9S", "5C", "8D", "2H"]
        );
        assert_eq!((g.value, g.current, g.elim_len), (0, 1, 1));
    }

    #[test]
    fn bad_configs_are_rejected() {
        let bad = |players: i64, given: &[(&str, Param)]| {
            crate::games::parse_params::<Hundred>(
                players,
                given
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
            )
            .is_err()
        };
        assert!(bad(2, &[]));
        assert!(!bad(2, &[("allow_two_players", Param::Bool(true))]));
        assert!(bad(13, &[]));
        assert!(bad(3, &[("num_decks", Param::Int(3))]));
        assert!(bad(3, &[("num_decks", Param::Str("two".into()))]));
        assert!(bad(3, &[("first_dealer", Param::Int(3))]));
        assert!(bad(
            12,
            &[("num_decks", Param::Int(1)), ("hand_size", Param::Int(5))]
        ));
        assert!(!bad(
            12,
            &[("num_decks", Param::Int(1)), ("hand_size", Param::Int(4))]
        ));
        assert!(bad(3, &[("hand_size", Param::Int(i64::MAX))]));
        assert!(bad(3, &[("chips", Param::Bool(true))]));
    }

    fn stock(g: &Hundred) -> Vec<String> {
        g.stock_codes()
    }

    #[test]
    fn an_empty_stock_is_rebuilt_under_the_top_card() {
        let mut g = game(3, &[]);
        set_hand(&mut g, 1, &["2D", "KS", "QD"]);
        g.value = 20;
        g.stock_len = 0;
        for (i, t) in ["3C", "9D", "KH", "5S"].iter().enumerate() {
            g.pile[i] = parse_card(t).unwrap();
        }
        g.pile_len = 4;
        // SplitMix64(1) shuffles [3C, 9D, KH, 5S] into [KH, 3C, 5S, 9D] (HU-T11).
        g.rng = SplitMix64::new(1);
        g.apply_checked("play 2D").unwrap();
        assert_eq!(codes(g.hand(1)), ["KS", "QD", "KH"]);
        assert_eq!(stock(&g), ["3C", "5S", "9D"]);
        assert_eq!(codes(&g.pile[..g.pile_len as usize]), ["2D"]);
        assert_eq!((g.value, g.current), (22, 2));
    }

    #[test]
    fn redeal_is_dealt_by_the_buster() {
        let mut g = game(3, &[("bust_rule", Param::Str("redeal".into()))]);
        set_hand(&mut g, 1, &["3D", "5C", "9H"]);
        g.value = 98;
        g.apply_checked("play 9H").unwrap();
        assert_eq!((g.dealer, g.deal_number, g.current, g.dir), (1, 2, 2, 1));
        assert_eq!(
            (g.chips[1], g.value, g.pile_len, g.stock_len),
            (2, 0, 0, 43)
        );
        assert_eq!(g.hand_len[..3], [3, 3, 3]);
    }

    #[test]
    fn void_keeps_the_value_and_the_card() {
        let mut g = game(3, &[("bust_rule", Param::Str("void".into()))]);
        set_hand(&mut g, 1, &["7H", "6S", "QC"]);
        g.value = 96;
        g.apply_checked("play 6S").unwrap();
        assert_eq!((g.chips[1], g.value, g.current), (2, 96, 2));
        assert_eq!(card_code(g.pile[g.pile_len as usize - 1]), "6S");
    }

    #[test]
    fn cap_shares_placements_on_equal_chips() {
        let mut g = game(3, &[("max_actions", Param::Int(1))]);
        g.chips[..3].copy_from_slice(&[2, 2, 1]);
        set_hand(&mut g, 1, &["KC", "KD", "KH"]);
        g.apply_checked("play KC").unwrap();
        assert!(g.is_terminal());
        assert_eq!(g.placements(), Some(vec![1, 1, 3]));
        assert_eq!(g.result_json()["reason"], "CAP");
    }

    #[test]
    fn loading_rejects_lost_cards_and_bad_values() {
        let p = params(3, &[]);
        let g = Hundred::new(p, 5, None).unwrap();
        let good = g.to_json();
        assert!(Hundred::from_json(p, &good).is_ok());
        let mut lost = good.clone();
        lost["stock"].as_array_mut().unwrap().pop();
        assert!(Hundred::from_json(p, &lost).is_err());
        for (key, bad) in [
            ("value", json!(101)),
            ("dir", json!(0)),
            ("current", json!(3)),
        ] {
            let mut v = good.clone();
            v[key] = bad;
            assert!(Hundred::from_json(p, &v).is_err(), "{key}");
        }
    }

    #[test]
    fn random_games_end_within_the_cap_and_conserve_cards() {
        for players in [2, 3, 7, 12] {
            let p = params(players, &[("allow_two_players", Param::Bool(true))]);
            let mut g = Hundred::new(p, players as u64, None).unwrap();
            let mut rng = SplitMix64::new(1);
            let mut buf = Vec::new();
            while !g.is_terminal() {
                buf.clear();
                g.legal_actions(&mut buf);
                g.apply_unchecked(buf[rng.bounded(buf.len() as u64) as usize]);
                assert!(g.value <= LIMIT && g.value >= 0);
                g.check_consistency().unwrap();
                assert_derived_fields(&g);
            }
            assert!(g.action_count <= p.max_actions);
            let again = Hundred::from_json(p, &g.to_json()).unwrap();
            assert_eq!(again.to_json(), g.to_json());
        }
    }

    /// The fields kept up to date along with others hold what they are derived from.
    fn assert_derived_fields(g: &Hundred) {
        let mut fresh = g.clone();
        fresh.refresh_hand_sets();
        fresh.set_active(g.active);
        assert_eq!(
            (g.hand_sets, g.next_seat),
            (fresh.hand_sets, fresh.next_seat)
        );
        for seat in (0..g.n()).filter(|&s| g.marked >> s & 1 == 0) {
            let start = g.hand_start(seat);
            let busts = &g.slot_bust[start..start + g.hand_len[seat] as usize];
            assert!(busts.iter().all(|&b| b == NO_BUST));
        }
    }

    /// Plays a heuristic game, calling `check` on the state before every action and at the end.
    fn along_a_game(p: Params, seed: u64, mut check: impl FnMut(&Hundred)) {
        let mut g = Hundred::new(p, seed, None).unwrap();
        let mut rng = SplitMix64::new(seed);
        let mut buf = Vec::new();
        while !g.is_terminal() {
            check(&g);
            let a = g.heuristic_action(&mut rng, &mut buf);
            g.apply_unchecked(a);
        }
        check(&g);
    }

    /// The cards of the other seats' slots of generation `gen`, with the stock if it is of that generation.
    fn generation_cards(g: &Hundred, seat: usize, gen: u8) -> [usize; 52] {
        let mut counts = [0; 52];
        for s in (0..g.n()).filter(|&s| s != seat) {
            let start = g.hand_start(s);
            for i in start..start + g.hand_len[s] as usize {
                if g.slot_gen[i] == gen {
                    counts[g.hands[i] as usize] += 1;
                }
            }
        }
        if gen == g.generation {
            for &c in &g.stock[..g.stock_len as usize] {
                counts[c as usize] += 1;
            }
        }
        counts
    }

    #[test]
    fn resample_keeps_what_the_seat_knows() {
        for (players, given) in [
            (3, vec![]),
            (5, vec![]),
            (8, vec![]),
            (4, vec![("bust_rule", Param::Str("redeal".into()))]),
        ] {
            let p = params(players, &given);
            let mut varied = 0;
            let mut step = 0;
            along_a_game(p, players as u64, |g| {
                step += 1;
                if step % 4 != 1 && !g.is_terminal() {
                    return;
                }
                let mut present = [false; 256];
                present[g.generation as usize] = true;
                for &gen in &g.slot_gen {
                    present[gen as usize] = true;
                }
                for seat in 0..g.n() {
                    let r = g
                        .resample(seat, &mut SplitMix64::new(seat as u64 + 1))
                        .unwrap();
                    assert_eq!(r.observation(seat), g.observation(seat));
                    if g.current_player() == Some(seat) {
                        assert_eq!(legal(&r), legal(g));
                    }
                    r.check_consistency().unwrap();
                    assert_derived_fields(&r);
                    let again = Hundred::from_json(p, &r.to_json()).unwrap();
                    assert_eq!(again.to_json(), r.to_json());
                    assert_ne!(r.rng.state, g.rng.state);
                    // Each generation's cards stay in that generation's places ...
                    for gen in (0..=255u8).filter(|&gen| present[gen as usize]) {
                        assert_eq!(
                            generation_cards(&r, seat, gen),
                            generation_cards(g, seat, gen)
                        );
                    }
                    // ... and every card held through a forced bust busts at that value.
                    for i in 0..MAX_CARDS {
                        assert_eq!(
                            (r.slot_gen[i], r.slot_bust[i]),
                            (g.slot_gen[i], g.slot_bust[i])
                        );
                        let s = i / g.stride;
                        if s < g.n()
                            && i % g.stride < g.hand_len[s] as usize
                            && g.slot_bust[i] != NO_BUST
                        {
                            assert!(r.busts_at(r.hands[i], r.slot_bust[i]));
                        }
                    }
                    varied += usize::from(r.stock != g.stock);
                }
            });
            assert!(varied > 0);
        }
    }

    #[test]
    fn after_a_rebuild_the_stock_holds_only_cards_that_were_on_the_pile() {
        let p = params(4, &[]);
        let mut prev: Option<Hundred> = None;
        let mut rebuilt: Option<[usize; 52]> = None;
        let mut checked = 0;
        along_a_game(p, 3, |g| {
            if let Some(before) = &prev {
                if g.generation != before.generation {
                    // The pile before the play that emptied the stock: every card
                    // under the new top went into the stock.
                    let mut pile = [0; 52];
                    for &c in &before.pile[..before.pile_len as usize] {
                        pile[c as usize] += 1;
                    }
                    rebuilt = Some(pile);
                }
            }
            if let Some(pile) = rebuilt {
                for seat in 0..g.n() {
                    for k in 0..5 {
                        let r = g.resample(seat, &mut SplitMix64::new(k)).unwrap();
                        let mut stock = [0; 52];
                        for &c in &r.stock[..r.stock_len as usize] {
                            stock[c as usize] += 1;
                        }
                        assert!((0..52).all(|c| stock[c] <= pile[c]));
                        checked += 1;
                    }
                }
            }
            prev = Some(g.clone());
        });
        assert!(checked > 0);
    }

    #[test]
    fn a_forced_bust_shows_that_the_other_cards_bust_too() {
        let mut g = game(3, &[]);
        g.value = 96;
        set_hand(&mut g, 1, &["7H", "6S", "QC"]);
        g.apply_checked("play 6S").unwrap();
        // Seat 1 keeps 7H and QC, both busting at 96, and draws a card.
        let start = g.hand_start(1);
        assert_eq!(g.slot_bust[start..start + 3], [96, 96, NO_BUST]);
        for k in 0..50 {
            let r = g.resample(0, &mut SplitMix64::new(k)).unwrap();
            assert!(
                r.hand(1)[..2].iter().all(|&c| r.busts_at(c, 96)),
                "{:?}",
                codes(r.hand(1))
            );
        }
        // Playing a card that busts at 96 could be either kind: the others
        // cannot tell which slot is left, so no constraint remains.
        let mut a = g.clone();
        set_hand(&mut a, 1, &["7H", "QC", "9D"]);
        a.current = 1;
        a.apply_checked("play 9D").unwrap();
        assert_eq!(a.slot_bust[start..start + 3], [NO_BUST, NO_BUST, NO_BUST]);
        // A card that does not bust at 96 was the new one: both constraints stay.
        let mut b = g.clone();
        set_hand(&mut b, 1, &["7H", "QC", "KD"]);
        b.current = 1;
        b.apply_checked("play KD").unwrap();
        assert_eq!(b.slot_bust[start..start + 3], [96, 96, NO_BUST]);
    }

    #[test]
    fn sampling_from_an_observation_shows_that_observation() {
        let p = params(5, &[]);
        let mut k = 0;
        along_a_game(p, 11, |g| {
            for seat in 0..g.n() {
                let obs = g.observation(seat);
                k += 1;
                let a = g
                    .sample_from_observation(&obs, &mut SplitMix64::new(k))
                    .unwrap();
                let b = g
                    .sample_from_observation(&obs, &mut SplitMix64::new(k + 1000))
                    .unwrap();
                assert_eq!(a.observation(seat), obs);
                assert_ne!(a.to_json(), b.to_json());
                if g.current_player() == Some(seat) {
                    assert_eq!(legal(&a), legal(g));
                }
            }
        });
        let mut wrong = game(3, &[]).observation(0);
        wrong["game"] = json!("take5");
        let g = game(3, &[]);
        assert!(g
            .sample_from_observation(&wrong, &mut SplitMix64::new(1))
            .is_err());
    }

    /// The word removals leave the hands, generations, marks and sets as the
    /// slot by slot ones do.
    #[test]
    fn word_removals_match_slot_removals() {
        for given in [
            vec![],
            vec![("num_decks", Param::Int(2))],
            vec![("red_ace", Param::Str("choose".into()))],
        ] {
            for seed in 0..40 {
                let mut g = Hundred::new(params(5, &given), seed, None).unwrap();
                let mut rng = SplitMix64::new(seed);
                while !g.is_terminal() {
                    let a = g.random_action(&mut rng, &mut Vec::new());
                    let (seat, c) = (g.current as usize, (a % VALUE_STEP) as u8);
                    let (mut by_words, mut by_slots) = (g.clone(), g.clone());
                    if g.marked >> seat & 1 != 0 {
                        by_words.remove_marked_word(seat, c);
                        by_slots.remove_marked(seat, c);
                    } else {
                        by_words.remove_from_word(seat, c);
                        by_slots.remove_from_slots(seat, c);
                    }
                    let parts = |h: &Hundred| {
                        (
                            h.hands,
                            h.slot_gen,
                            h.slot_bust,
                            h.hand_len,
                            h.hand_sets,
                            h.marked,
                        )
                    };
                    assert_eq!(parts(&by_words), parts(&by_slots));
                    g.apply_unchecked(a);
                }
            }
        }
    }

    #[test]
    fn random_actions_are_legal_and_uniform() {
        for given in [
            vec![("red_ace", Param::Str("choose".into()))],
            vec![("allow_voluntary_bust", Param::Bool(true))],
            vec![("num_decks", Param::Int(2)), ("hand_size", Param::Int(5))],
        ] {
            along_a_game(params(4, &given), 7, |g| {
                if g.is_terminal() {
                    return;
                }
                let mut legal = Vec::new();
                g.legal_actions(&mut legal);
                let mut rng = SplitMix64::new(g.action_count);
                for _ in 0..20 {
                    let a = g.random_action(&mut rng, &mut Vec::new());
                    assert!(legal.contains(&a), "{}", Hundred::action_text(a));
                }
            });
        }
        // 101 values of AC and KD are legal (9H busts): each drawn about 200 times.
        let mut g = game(3, &[]);
        g.value = 95;
        set_hand(&mut g, 1, &["AC", "9H", "KD"]);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut rng = SplitMix64::new(3);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..200 * legal.len() {
            *counts
                .entry(g.random_action(&mut rng, &mut Vec::new()))
                .or_insert(0) += 1;
        }
        assert_eq!(counts.len(), legal.len());
        assert!(counts.values().all(|&k| (130..=270).contains(&k)));
    }

    #[test]
    fn search_tries_a_few_values_of_an_ace() {
        let mut g = game(3, &[]);
        g.value = 98;
        set_hand(&mut g, 1, &["AC", "9H", "8H"]);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        assert_eq!(legal.len(), 101);
        g.search_candidates(&mut legal);
        assert_eq!(legal.len(), ACE_TRIES.len());
        assert!(legal.iter().all(|&a| g.illegal_reason(a).is_none()));
    }
}
