//! Back Alley (Back Alley Bridge, Blooper), as specified in
//! `docs/rules/back_alley.md`: four players in two partnerships (seats 0+2
//! against 1+3) with a 54-card deck, the two jokers being the Big Blooper
//! (`BB`) and the Little Blooper (`LB`).
//!
//! - §4 One deal per schedule entry (by default 25 deals of 13, 12, …, 1, …,
//!   13 cards, BA-19). Cards are dealt one at a time from the dealer's left;
//!   the next card is turned up and fixes trump. A turned joker means no trump:
//!   the holder of the other joker discards it and draws the top stock card
//!   (BA-16, BA-17), or with `joker_upcard = "turn_next"` jokers are moved under
//!   the stock until a standard card shows. The dealer rotates after every deal.
//! - §5.1 Each seat bids once from the dealer's left (BA-1a, BA-27): `pass`, a
//!   number 1..n−1 (BA-2) or `board` (all n tricks), whose level is the number
//!   of earlier boards + 1 (double, triple, quadruple board; BA-3, BA-4).
//! - §6.1 Four passes void the deal (BA-20): same hand size, next dealer; after
//!   `max_consecutive_all_pass` such auctions the hand is abandoned for 0.
//!   Otherwise each team's contract is board (its highest level, BA-5, BA-26) or
//!   the sum of its numbers (BA-8, BA-9). The highest (last) board bidder or
//!   else the first highest number bidder leads (BA-10).
//! - §5.2 Trump-set cards (both jokers, then the trump suit A..2) may not be led
//!   until a trick has contained one, unless the leader bid board or holds only
//!   trumps (BA-11, BA-12, BA-15). Follow the led suit (jokers belong to the
//!   trump suit, BA-13), else play anything (BA-21, BA-22). A led `BB` forces
//!   everyone's highest trump, a led `LB` their lowest (BA-14).
//! - §6.3 The highest trump wins, else the highest card of the led suit; the
//!   winner leads next. Trumps break when a trick holding one is resolved.
//! - §7 A number contract b scores 5b + (t − b) if made, −5b if not (BA-7); a
//!   board of level L scores ±10·n·L (BA-6). After the last deal the higher team
//!   total wins; equal totals draw (BA-23, BA-24).
//! - Determinization for the search bot: `resample` and
//!   `sample_from_observation` deal the hidden cards anew, honouring every
//!   void (and Blooper or trump-lead constraint) shown this deal; rollouts end
//!   with the deal (see `docs/games/back_alley.md`).
//!
//! Representation: cards are `u8` codes in canonical order (suit·13 + rank,
//! `BB` = 52, `LB` = 53), hands are `u64` bitsets, tricks and the stock are
//! fixed arrays. Actions: `play c` = c, `bid pass` = 64, `bid k` = 64 + k,
//! `bid board` = 78.

use crate::cards::{bits, nth_bit64};
use crate::game::{
    competition_placements, parse_canonical_uint, pick, Action, Error, Game, GameSpec, NativeBots,
    Outcome, Rules, Search, StateJson,
};
use crate::json::{self, ensure};
use crate::params::{choice_key, variant_keys, CustomKey, KeyValue, Param, Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Seats at the table: always four, in two partnerships.
pub const PLAYERS: usize = 4;
const DECK: usize = 54;
const BB: u8 = 52;
const LB: u8 = 53;
const JOKERS: u64 = (1 << BB) | (1 << LB);
const ALL_CARDS: u64 = (1 << DECK) - 1;
const MAX_HAND: usize = 13;
const NO_TRUMP: u8 = 4;

/// Bid codes inside the state: 0 = pass, 1..=13 a number, 14 = board.
const PASS: u8 = 0;
const BOARD: u8 = 14;
const BID: Action = 64;

/// Longest explicit schedule accepted (an engine limit, documented as BA-28).
pub const MAX_SCHEDULE: usize = 1000;
/// Bound on the point constants (an engine limit, documented as BA-28).
const POINT_LIMIT: i64 = i32::MAX as i64;

// ---------------------------------------------------------------------------
// §2 Card notation and ranking
// ---------------------------------------------------------------------------

const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];
const SUITS: [&str; 4] = ["C", "D", "H", "S"];

/// The code of card `c` as the rule book writes it (`10H`, `AS`, `BB`).
pub fn card_text(c: u8) -> String {
    match c {
        BB => "BB".into(),
        LB => "LB".into(),
        _ => format!("{}{}", RANKS[(c % 13) as usize], SUITS[(c / 13) as usize]),
    }
}

/// Parses a card code exactly as the rule book writes it.
pub fn parse_card(text: &str) -> Option<u8> {
    match text {
        "BB" => return Some(BB),
        "LB" => return Some(LB),
        _ => {}
    }
    let (rank, suit) = text.split_at(text.len().checked_sub(1)?);
    let suit = SUITS.iter().position(|s| *s == suit)?;
    let rank = RANKS.iter().position(|r| *r == rank)?;
    Some((suit * 13 + rank) as u8)
}

fn is_joker(c: u8) -> bool {
    c >= BB
}

fn suit_mask(suit: u8) -> u64 {
    0x1FFF << (13 * suit as u64)
}

fn cards_text(set: u64) -> Vec<String> {
    bits(set as u128).map(|c| card_text(c as u8)).collect()
}

// ---------------------------------------------------------------------------
// §8 Variants
// ---------------------------------------------------------------------------

const SCHEDULES: [&str; 4] = ["13-1-13", "13-1-1-13", "1-13-1", "1-13-13-1"];

/// `schedule`: the hand size of every deal that counts (BA-19), a named
/// schedule or an explicit list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The hand sizes, deal by deal.
    sizes: Arc<[u8]>,
    /// The name, for a named schedule.
    name: Option<&'static str>,
}

impl std::ops::Deref for Schedule {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.sizes
    }
}

impl KeyValue for Schedule {
    fn to_json(&self) -> Value {
        match self.name {
            Some(name) => json!(name),
            None => json!(&self.sizes[..]),
        }
    }
}

impl CustomKey for Schedule {
    fn default_value() -> Self {
        Schedule {
            sizes: named_schedule(SCHEDULES[0]).into(),
            name: Some(SCHEDULES[0]),
        }
    }

    fn read(given: Param) -> Result<Self, String> {
        let allowed = format!(
            "must be one of {} or a non-empty list of at most {MAX_SCHEDULE} integers from 1 to 13",
            SCHEDULES
                .iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        match given {
            Param::Str(s) => match SCHEDULES.iter().find(|&&name| name == s) {
                Some(&name) => Ok(Schedule {
                    sizes: named_schedule(name).into(),
                    name: Some(name),
                }),
                None => Err(format!("{allowed}, got {}", Param::Str(s).describe())),
            },
            Param::List(items) if !items.is_empty() && items.len() <= MAX_SCHEDULE => {
                let sizes = items
                    .iter()
                    .map(|item| match item {
                        Param::Int(k) if (1..=13).contains(k) => Ok(*k as u8),
                        _ => Err(format!("{allowed}, got a list holding {}", item.describe())),
                    })
                    .collect::<Result<Vec<u8>, _>>()?;
                Ok(Schedule {
                    sizes: sizes.into(),
                    name: None,
                })
            }
            other => Err(format!("{allowed}, got {}", other.describe())),
        }
    }
}

/// The hand sizes of a named schedule (§4, §8).
fn named_schedule(name: &str) -> Vec<u8> {
    let down: Vec<u8> = (1..=13).rev().collect();
    let up: Vec<u8> = (1..=13).collect();
    match name {
        "13-1-13" => [&down[..], &up[1..]].concat(),
        "13-1-1-13" => [&down[..], &up[..]].concat(),
        "1-13-1" => [&up[..], &down[1..]].concat(),
        _ => [&up[..], &down[..]].concat(),
    }
}

/// `first_dealer`: a seat, or `"random"` (BA-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstDealer {
    /// This seat deals first.
    Seat(u8),
    /// The first generator call, `bounded(4)`, picks the dealer.
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

    fn read(given: Param) -> Result<Self, String> {
        match given {
            Param::Int(s) if (0..4).contains(&s) => Ok(FirstDealer::Seat(s as u8)),
            Param::Str(s) if s == "random" => Ok(FirstDealer::Random),
            other => Err(format!(
                "must be an integer seat from 0 to 3 or \"random\", got {}",
                other.describe()
            )),
        }
    }
}

choice_key! {
    /// `joker_upcard`: what a turned-up joker does (BA-16).
    pub enum JokerUpcard {
        /// No trump; the other joker's holder exchanges it.
        NoTrump = "no_trump",
        /// Jokers go under the stock until a standard card is turned.
        TurnNext = "turn_next",
    }
}

choice_key! {
    /// `joker_exchange_draw`: where the exchanging seat draws from (BA-17).
    pub enum JokerExchangeDraw {
        /// The top of the stock.
        Top = "top",
        /// The bottom of the stock.
        Bottom = "bottom",
    }
}

choice_key! {
    /// `bid_cap`: the highest number bid (BA-2).
    pub enum BidCap {
        /// The hand size minus one.
        HandSizeMinusOne = "hand_size_minus_one",
        /// The hand size.
        HandSize = "hand_size",
    }
}

choice_key! {
    /// `board_lead`: which board bidder leads (BA-10).
    pub enum BoardLead {
        /// The last board bidder.
        Last = "last",
        /// The first board bidder.
        First = "first",
    }
}

choice_key! {
    /// `board_multiplier`: a board's worth by its level (BA-6).
    pub enum BoardMultiplier {
        /// Level L counts L times.
        Linear = "linear",
        /// Level L counts 2^(L-1) times.
        Doubling = "doubling",
    }
}

choice_key! {
    /// `board_multiplier_scope`: whose boards set a team's level (BA-5).
    pub enum BoardMultiplierScope {
        /// The team's own highest board.
        Team = "team",
        /// The highest board of the hand, for every team that bid one.
        Hand = "hand",
    }
}

choice_key! {
    /// `board_trump_lead_exemption`: who may lead trumps before they are
    /// broken (§5.2, BA-11).
    pub enum BoardTrumpLeadExemption {
        /// The leader personally bid board.
        Player = "player",
        /// The leader or the leader's partner bid board.
        Team = "team",
        /// Nobody.
        Nobody = "none",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Params {
        /// The hand size of every deal that counts.
        schedule: Schedule = custom,
        /// The first dealer.
        first_dealer: FirstDealer = custom,
        /// What a turned-up joker does.
        joker_upcard: JokerUpcard = choice,
        /// Where the joker exchange draws from.
        joker_exchange_draw: JokerExchangeDraw = choice,
        /// The highest number bid.
        bid_cap: BidCap = choice,
        /// Whether a number bid may not exceed the last one (BA-1).
        bid_not_above_previous: bool = boolean(false),
        /// Which board bidder leads.
        board_lead: BoardLead = choice,
        /// A board's worth by its level.
        board_multiplier: BoardMultiplier = choice,
        /// Whose boards set a team's level.
        board_multiplier_scope: BoardMultiplierScope = choice,
        /// Who may lead trumps before they are broken.
        board_trump_lead_exemption: BoardTrumpLeadExemption = choice,
        /// Whether a led Blooper forces the highest or lowest trump (BA-14).
        blooper_lead_rules: bool = boolean(true),
        /// Whether a led Big Blooper binds the leader's partner (BA-14).
        big_blooper_binds_partner: bool = boolean(true),
        /// Points per trick of a number contract made.
        bid_points_per_trick: i64 = int(5, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points per trick above a number contract.
        overtrick_points: i64 = int(1, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points lost per bid trick of a contract set.
        set_points_per_bid_trick: i64 = int(5, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points per trick of a board.
        board_points_per_trick: i64 = int(10, -POINT_LIMIT - 1, POINT_LIMIT),
        /// All-pass auctions in a row after which a hand is abandoned (BA-20).
        max_consecutive_all_pass: i64 = int(4, 1, i64::MAX),
    }
}

impl Variant for Params {
    /// No key depends on another; the player count (4) is checked by the frame.
    fn check_config(&self) -> Result<(), Error> {
        Ok(())
    }

    /// The 54 cards in canonical order (§2).
    fn canonical_deck(&self) -> Vec<String> {
        (0..DECK as u8).map(card_text).collect()
    }
}

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Each seat bids once, from the dealer's left.
    Bidding,
    /// Tricks are played.
    Play,
    /// The last schedule entry has been played or abandoned.
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Bidding => "bidding",
            Phase::Play => "play",
            Phase::GameOver => "game_over",
        }
    }
}

/// How a deal ended (§6.1, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DealOutcome {
    Played,
    Redeal,
    Abandoned,
}

impl DealOutcome {
    fn name(self) -> &'static str {
        match self {
            DealOutcome::Played => "played",
            DealOutcome::Redeal => "redeal",
            DealOutcome::Abandoned => "abandoned",
        }
    }
}

/// The public record of a finished deal.
#[derive(Debug, Clone, PartialEq)]
struct DealRecord {
    dealer: u8,
    hand_index: usize,
    hand_size: u8,
    upcard: u8,
    turned: [u8; 2],
    turned_len: u8,
    trump: u8,
    exchange: Option<(u8, u8)>,
    bids: [u8; 4],
    tricks: [u8; 2],
    points: [i64; 2],
    outcome: DealOutcome,
}

/// The automatic joker exchange of a no-trump deal (§4 step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exchange {
    seat: u8,
    discarded: u8,
    drawn: u8,
}

/// A Back Alley game in progress.
#[derive(Debug, Clone)]
pub struct BackAlley {
    params: Params,
    rng: SplitMix64,
    phase: Phase,
    hand_index: usize,
    hand_size: u8,
    dealer: u8,
    all_pass_count: i64,
    hands: [u64; PLAYERS],
    upcard: u8,
    turned: [u8; 2],
    turned_len: u8,
    trump: u8,
    exchange: Option<Exchange>,
    stock: [u8; DECK],
    stock_len: u8,
    /// Bids in bidding order; the i-th was made by seat dealer + 1 + i.
    bids: [u8; 4],
    bids_len: u8,
    to_act: u8,
    trick_leader: u8,
    /// Cards of the current trick in play order, from `trick_leader`.
    trick: [u8; 4],
    trick_len: u8,
    /// Completed tricks: (leader, cards in play order, winner).
    completed: [(u8, [u8; 4], u8); MAX_HAND],
    completed_len: u8,
    tricks_won: [u8; PLAYERS],
    trump_broken: bool,
    team_scores: [i64; 2],
    deals: Vec<DealRecord>,
    history: Vec<Action>,
    deal_start: usize,
}

// ---------------------------------------------------------------------------
// §4 Setup, deal, dealer rotation
// ---------------------------------------------------------------------------

impl BackAlley {
    /// A new game. With `first_dealer = "random"` the first generator call
    /// picks the dealer; the first deal then uses `deck` if given (top card
    /// first, no generator call), else the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let first_deck = match deck {
            Some(given) => Some(Self::checked_deck(given)?),
            None => None,
        };
        let mut rng = SplitMix64::new(seed);
        let dealer = match params.first_dealer {
            FirstDealer::Seat(s) => s,
            FirstDealer::Random => rng.bounded(4) as u8,
        };
        let mut game = BackAlley {
            hand_size: params.schedule[0],
            params,
            rng,
            phase: Phase::Bidding,
            hand_index: 0,
            dealer,
            all_pass_count: 0,
            hands: [0; PLAYERS],
            upcard: 0,
            turned: [0; 2],
            turned_len: 0,
            trump: NO_TRUMP,
            exchange: None,
            stock: [0; DECK],
            stock_len: 0,
            bids: [0; 4],
            bids_len: 0,
            to_act: 0,
            trick_leader: 0,
            trick: [0; 4],
            trick_len: 0,
            completed: [(0, [0; 4], 0); MAX_HAND],
            completed_len: 0,
            tricks_won: [0; PLAYERS],
            trump_broken: false,
            team_scores: [0; 2],
            deals: Vec::new(),
            history: Vec::with_capacity(512),
            deal_start: 0,
        };
        let cards = match first_deck {
            Some(cards) => cards,
            None => game.shuffled_deck(),
        };
        game.deal(&cards);
        Ok(game)
    }

    fn checked_deck(given: &[String]) -> Result<[u8; DECK], Error> {
        let canonical: Vec<String> = (0..DECK as u8).map(card_text).collect();
        let order = crate::cards::check_deck(given, &canonical)?;
        let mut cards = [0u8; DECK];
        for (slot, &i) in cards.iter_mut().zip(&order) {
            *slot = i as u8;
        }
        Ok(cards)
    }

    /// A fresh deck in canonical order, shuffled by the generator.
    fn shuffled_deck(&mut self) -> [u8; DECK] {
        let mut cards = [0u8; DECK];
        for (i, c) in cards.iter_mut().enumerate() {
            *c = i as u8;
        }
        self.rng.shuffle(&mut cards);
        cards
    }

    /// §4 steps 1–5: hands, upcard and trump, joker handling, bidding opens.
    fn deal(&mut self, deck: &[u8; DECK]) {
        let n = self.hand_size as usize;
        self.hands = [0; PLAYERS];
        for (i, &c) in deck[..4 * n].iter().enumerate() {
            self.hands[(self.dealer as usize + 1 + i) % PLAYERS] |= 1 << c;
        }
        self.upcard = deck[4 * n];
        let rest = &deck[4 * n + 1..];
        self.stock[..rest.len()].copy_from_slice(rest);
        self.stock_len = rest.len() as u8;
        self.turned_len = 0;
        self.exchange = None;
        if !is_joker(self.upcard) {
            self.trump = self.upcard / 13;
        } else if self.params.joker_upcard == JokerUpcard::TurnNext {
            self.turn_next_card();
        } else {
            self.trump = NO_TRUMP;
            self.joker_exchange();
        }
        self.open_bidding();
        self.deal_start = self.history.len();
    }

    /// The deal's play state before its first bid: the seat after the dealer
    /// bids first; no bids, tricks or broken trumps yet.
    fn open_bidding(&mut self) {
        self.phase = Phase::Bidding;
        self.bids_len = 0;
        self.to_act = (self.dealer + 1) % 4;
        self.trick_len = 0;
        self.completed_len = 0;
        self.tricks_won = [0; PLAYERS];
        self.trump_broken = false;
    }

    fn stock(&self) -> &[u8] {
        &self.stock[..self.stock_len as usize]
    }

    fn take_stock_top(&mut self) -> u8 {
        let top = self.stock[0];
        self.stock.copy_within(1..self.stock_len as usize, 0);
        self.stock_len -= 1;
        top
    }

    /// Default: the holder of the other joker discards it and draws (BA-16).
    fn joker_exchange(&mut self) {
        let other = if self.upcard == BB { LB } else { BB };
        let Some(seat) = (0..PLAYERS).find(|&s| self.hands[s] >> other & 1 == 1) else {
            return;
        };
        let drawn = if self.params.joker_exchange_draw == JokerExchangeDraw::Bottom {
            self.stock_len -= 1;
            self.stock[self.stock_len as usize]
        } else {
            self.take_stock_top()
        };
        self.hands[seat] = self.hands[seat] & !(1 << other) | 1 << drawn;
        self.exchange = Some(Exchange {
            seat: seat as u8,
            discarded: other,
            drawn,
        });
    }

    /// `joker_upcard = "turn_next"`: jokers go under the stock until a standard
    /// card is turned; nothing moves if the stock holds no standard card.
    fn turn_next_card(&mut self) {
        if self.stock().iter().all(|&c| is_joker(c)) {
            self.trump = NO_TRUMP;
            return;
        }
        while is_joker(self.upcard) {
            self.stock[self.stock_len as usize] = self.upcard;
            self.stock_len += 1;
            self.turned[self.turned_len as usize] = self.upcard;
            self.turned_len += 1;
            self.upcard = self.take_stock_top();
        }
        self.trump = self.upcard / 13;
    }

    fn partner(seat: usize) -> usize {
        (seat + 2) % PLAYERS
    }

    /// The seat that made the i-th bid of this auction.
    fn bidder(&self, i: usize) -> usize {
        (self.dealer as usize + 1 + i) % PLAYERS
    }

    /// The bid `seat` made this deal, if it has bid.
    fn bid_of(&self, seat: usize) -> Option<u8> {
        let i = (seat + PLAYERS - self.dealer as usize - 1) % PLAYERS;
        (i < self.bids_len as usize).then(|| self.bids[i])
    }

    // -----------------------------------------------------------------------
    // §5.1 Bidding
    // -----------------------------------------------------------------------

    /// The highest number `to_act` may bid now (0 = none), BA-1 and BA-2.
    fn max_number_bid(&self) -> u8 {
        let n = self.hand_size;
        let mut cap = match self.params.bid_cap {
            BidCap::HandSizeMinusOne => n - 1,
            BidCap::HandSize => n,
        };
        if self.params.bid_not_above_previous {
            let last_number = self.bids[..self.bids_len as usize]
                .iter()
                .rev()
                .find(|&&b| b != PASS && b != BOARD);
            if let Some(&k) = last_number {
                cap = cap.min(k);
            }
        }
        cap
    }

    fn bid(&mut self, bid: u8) {
        self.bids[self.bids_len as usize] = bid;
        self.bids_len += 1;
        if self.bids_len < 4 {
            self.to_act = (self.to_act + 1) % 4;
        } else {
            self.end_auction();
        }
    }

    // -----------------------------------------------------------------------
    // §5.2 Play: legal cards
    // -----------------------------------------------------------------------

    fn trump_set(&self) -> u64 {
        if self.trump == NO_TRUMP {
            JOKERS
        } else {
            JOKERS | suit_mask(self.trump)
        }
    }

    fn bid_board(&self, seat: usize) -> bool {
        self.bid_of(seat) == Some(BOARD)
    }

    /// May `seat` lead trumps before they are broken (BA-11)?
    fn exempt(&self, seat: usize) -> bool {
        match self.params.board_trump_lead_exemption {
            BoardTrumpLeadExemption::Player => self.bid_board(seat),
            BoardTrumpLeadExemption::Team => {
                self.bid_board(seat) || self.bid_board(Self::partner(seat))
            }
            BoardTrumpLeadExemption::Nobody => false,
        }
    }

    /// The cards `to_act` may play, as a set.
    fn playable(&self) -> u64 {
        let seat = self.to_act as usize;
        let hand = self.hands[seat];
        let trumps = hand & self.trump_set();
        if self.trick_len == 0 {
            let restricted = !self.trump_broken && !self.exempt(seat) && hand & !trumps != 0;
            return if restricted { hand & !trumps } else { hand };
        }
        let led = self.trick[0];
        let is_partner = seat == Self::partner(self.trick_leader as usize);
        let blooper_rule = self.params.blooper_lead_rules
            && (led == LB || (led == BB && (self.params.big_blooper_binds_partner || !is_partner)));
        if blooper_rule && trumps != 0 {
            return if led == BB {
                highest_trump(trumps)
            } else {
                lowest_trump(trumps)
            };
        }
        let led_suit = if self.trump_set() >> led & 1 == 1 {
            self.trump_set()
        } else {
            suit_mask(led / 13)
        };
        if hand & led_suit != 0 {
            hand & led_suit
        } else {
            hand
        }
    }

    fn play(&mut self, card: u8) {
        let seat = self.to_act as usize;
        self.hands[seat] &= !(1 << card);
        self.trick[self.trick_len as usize] = card;
        self.trick_len += 1;
        if self.trick_len < 4 {
            self.to_act = (self.to_act + 1) % 4;
        } else {
            self.resolve_trick();
        }
    }

    // -----------------------------------------------------------------------
    // §6.1 End of the auction, §6.2 first leader
    // -----------------------------------------------------------------------

    fn end_auction(&mut self) {
        if self.bids.iter().all(|&b| b == PASS) {
            self.all_pass();
            return;
        }
        self.all_pass_count = 0;
        self.phase = Phase::Play;
        self.trick_leader = self.first_leader() as u8;
        self.to_act = self.trick_leader;
    }

    /// BA-20: a redeal at the same hand size, or abandon after the cap.
    fn all_pass(&mut self) {
        self.all_pass_count += 1;
        if self.all_pass_count < self.params.max_consecutive_all_pass {
            self.record_deal(DealOutcome::Redeal, [0; 2], [0; 2]);
            self.next_deal();
        } else {
            self.record_deal(DealOutcome::Abandoned, [0; 2], [0; 2]);
            self.all_pass_count = 0;
            self.hand_index += 1;
            self.next_deal();
        }
    }

    /// BA-10: the last (or first) board bidder, else the first highest number.
    fn first_leader(&self) -> usize {
        let boards = (0..4).filter(|&i| self.bids[i] == BOARD);
        let board = if self.params.board_lead == BoardLead::First {
            boards.min()
        } else {
            boards.max()
        };
        let i = board.unwrap_or_else(|| {
            let best = self.bids.iter().copied().max().unwrap_or(0);
            (0..4).find(|&i| self.bids[i] == best).unwrap_or(0)
        });
        self.bidder(i)
    }

    // -----------------------------------------------------------------------
    // §6.3 Resolving a trick
    // -----------------------------------------------------------------------

    /// The strength of `card` in a trick led with `led`: trumps above the led
    /// suit, cards of other suits never win.
    fn strength(&self, card: u8, led: u8) -> i32 {
        if self.trump_set() >> card & 1 == 1 {
            100 + match card {
                BB => 14,
                LB => 13,
                _ => (card % 13) as i32,
            }
        } else if !is_joker(led) && card / 13 == led / 13 {
            (card % 13) as i32
        } else {
            -1
        }
    }

    fn trick_winner(&self, leader: u8, cards: &[u8; 4]) -> u8 {
        let best = (0..4)
            .max_by_key(|&i| self.strength(cards[i], cards[0]))
            .unwrap_or(0);
        (leader + best as u8) % 4
    }

    fn resolve_trick(&mut self) {
        let winner = self.trick_winner(self.trick_leader, &self.trick);
        let trumps = self.trick.iter().any(|&c| self.trump_set() >> c & 1 == 1);
        self.completed[self.completed_len as usize] = (self.trick_leader, self.trick, winner);
        self.completed_len += 1;
        self.tricks_won[winner as usize] += 1;
        self.trump_broken |= trumps;
        self.trick_len = 0;
        self.trick_leader = winner;
        self.to_act = winner;
        if self.completed_len == self.hand_size {
            self.score_deal();
        }
    }

    // -----------------------------------------------------------------------
    // §7 Scoring and game end
    // -----------------------------------------------------------------------

    /// The board level of team `team` (0 = no board), BA-5.
    fn board_level(&self, team: usize) -> u32 {
        let mut level = 0;
        let mut highest = 0;
        for i in 0..4 {
            if self.bids[i] == BOARD {
                let this = (0..=i).filter(|&j| self.bids[j] == BOARD).count() as u32;
                highest = this;
                if self.bidder(i) % 2 == team {
                    level = this;
                }
            }
        }
        if self.params.board_multiplier_scope == BoardMultiplierScope::Hand && level > 0 {
            highest
        } else {
            level
        }
    }

    /// Points of team `team` taking `taken` tricks this deal (§7).
    fn deal_points(&self, team: usize, taken: i64) -> i64 {
        let p = &self.params;
        let n = self.hand_size as i64;
        let level = self.board_level(team);
        if level > 0 {
            let m = match p.board_multiplier {
                BoardMultiplier::Linear => level as i64,
                BoardMultiplier::Doubling => 1i64 << (level - 1),
            };
            let value = p.board_points_per_trick * n * m;
            return if taken == n { value } else { -value };
        }
        let b: i64 = (0..4)
            .filter(|&i| self.bidder(i) % 2 == team)
            .map(|i| self.bids[i] as i64)
            .sum();
        if taken >= b {
            p.bid_points_per_trick * b + p.overtrick_points * (taken - b)
        } else {
            -p.set_points_per_bid_trick * b
        }
    }

    fn score_deal(&mut self) {
        let tricks = [0, 1].map(|t| self.tricks_won[t] + self.tricks_won[t + 2]);
        let points = [0, 1].map(|t| self.deal_points(t, tricks[t] as i64));
        self.team_scores[0] += points[0];
        self.team_scores[1] += points[1];
        self.record_deal(DealOutcome::Played, tricks, points);
        self.hand_index += 1;
        self.next_deal();
    }

    fn record_deal(&mut self, outcome: DealOutcome, tricks: [u8; 2], points: [i64; 2]) {
        self.deals.push(DealRecord {
            dealer: self.dealer,
            hand_index: self.hand_index,
            hand_size: self.hand_size,
            upcard: self.upcard,
            turned: self.turned,
            turned_len: self.turned_len,
            trump: self.trump,
            exchange: self.exchange.map(|e| (e.seat, e.discarded)),
            bids: self.bids,
            tricks,
            points,
            outcome,
        });
    }

    /// The game ends after the last schedule entry; else the next dealer deals.
    fn next_deal(&mut self) {
        if self.hand_index == self.params.schedule.len() {
            self.phase = Phase::GameOver;
            return;
        }
        self.dealer = (self.dealer + 1) % 4;
        self.hand_size = self.params.schedule[self.hand_index];
        let deck = self.shuffled_deck();
        self.deal(&deck);
    }

    fn result(&self) -> Option<&'static str> {
        (self.phase == Phase::GameOver).then(|| {
            match self.team_scores[0].cmp(&self.team_scores[1]) {
                std::cmp::Ordering::Greater => "team0",
                std::cmp::Ordering::Less => "team1",
                std::cmp::Ordering::Equal => "draw",
            }
        })
    }
}

/// The highest card of a non-empty trump set: BB, LB, then A..2 of trump.
fn highest_trump(trumps: u64) -> u64 {
    for joker in [BB, LB] {
        if trumps >> joker & 1 == 1 {
            return 1 << joker;
        }
    }
    1 << (63 - trumps.leading_zeros())
}

/// The lowest card of a non-empty trump set: 2..A of trump, then LB, then BB.
fn lowest_trump(trumps: u64) -> u64 {
    let suit = trumps & !JOKERS;
    if suit != 0 {
        suit & suit.wrapping_neg()
    } else if trumps >> LB & 1 == 1 {
        1 << LB
    } else {
        1 << BB
    }
}

// ---------------------------------------------------------------------------
// JSON: canonical state, observation, loading
// ---------------------------------------------------------------------------

fn trump_text(trump: u8) -> &'static str {
    if trump == NO_TRUMP {
        "none"
    } else {
        SUITS[trump as usize]
    }
}

fn bid_text(bid: u8) -> String {
    match bid {
        PASS => "pass".into(),
        BOARD => "board".into(),
        k => k.to_string(),
    }
}

fn played_json(leader: u8, cards: &[u8]) -> Value {
    Value::Array(
        cards
            .iter()
            .enumerate()
            .map(|(i, &c)| json!([(leader as usize + i) % 4, card_text(c)]))
            .collect(),
    )
}

impl DealRecord {
    /// `joker_exchange` is present only when there was one (keeps records TOML-friendly).
    fn to_json(&self) -> Value {
        let mut record = json!({
            "dealer": self.dealer,
            "hand_index": self.hand_index,
            "hand_size": self.hand_size,
            "upcard": card_text(self.upcard),
            "turned_jokers": self.turned[..self.turned_len as usize].iter().map(|&c| card_text(c)).collect::<Vec<_>>(),
            "trump": trump_text(self.trump),
            "bids": (0..4).map(|i| json!([(self.dealer as usize + 1 + i) % 4, bid_text(self.bids[i])])).collect::<Vec<_>>(),
            "tricks": self.tricks,
            "points": self.points,
            "outcome": self.outcome.name(),
        });
        if let Some((seat, discarded)) = self.exchange {
            record["joker_exchange"] = json!({"seat": seat, "discarded": card_text(discarded)});
        }
        record
    }
}

impl BackAlley {
    fn bids_json(&self) -> Value {
        Value::Array(
            (0..self.bids_len as usize)
                .map(|i| json!([self.bidder(i), bid_text(self.bids[i])]))
                .collect(),
        )
    }

    fn completed_json(&self) -> Value {
        Value::Array(
            self.completed[..self.completed_len as usize]
                .iter()
                .map(|(leader, cards, winner)| {
                    json!({"leader": leader, "cards": played_json(*leader, cards), "winner": winner})
                })
                .collect(),
        )
    }

    fn exchange_json(&self, show_drawn: impl Fn(u8) -> bool) -> Value {
        match self.exchange {
            None => Value::Null,
            Some(e) => {
                let mut m = json!({"seat": e.seat, "discarded": card_text(e.discarded)});
                if show_drawn(e.seat) {
                    m["drawn"] = json!(card_text(e.drawn));
                }
                m
            }
        }
    }

    fn in_play(&self) -> bool {
        self.phase == Phase::Play
    }

    /// The fields shared by the state JSON and every observation.
    fn public_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        m.insert("players".into(), json!(PLAYERS));
        m.insert("params".into(), self.params.to_json());
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert("hand_index".into(), json!(self.hand_index));
        m.insert("hand_size".into(), json!(self.hand_size));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("all_pass_count".into(), json!(self.all_pass_count));
        m.insert("to_act".into(), json!(self.current_player()));
        m.insert("upcard".into(), json!(card_text(self.upcard)));
        m.insert(
            "turned_jokers".into(),
            json!(self.turned[..self.turned_len as usize]
                .iter()
                .map(|&c| card_text(c))
                .collect::<Vec<_>>()),
        );
        m.insert("trump".into(), json!(trump_text(self.trump)));
        m.insert("bids".into(), self.bids_json());
        m.insert(
            "trick_leader".into(),
            json!(self.in_play().then_some(self.trick_leader)),
        );
        m.insert(
            "trick".into(),
            played_json(self.trick_leader, &self.trick[..self.trick_len as usize]),
        );
        m.insert("completed_tricks".into(), self.completed_json());
        m.insert("tricks_won".into(), json!(self.tricks_won));
        m.insert("trump_broken".into(), json!(self.trump_broken));
        m.insert("team_scores".into(), json!(self.team_scores));
        m.insert(
            "deals".into(),
            Value::Array(self.deals.iter().map(DealRecord::to_json).collect()),
        );
        m.insert("result".into(), json!(self.result()));
        m
    }


    fn read_cards(&mut self, v: &Value) -> Result<(), Error> {
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == PLAYERS, || {
            "hands must have one entry per seat".into()
        })?;
        for (s, h) in hands.iter().enumerate() {
            self.hands[s] = card_set(&card_list(h, "hands")?, "a hand")?;
        }
        self.upcard = card(json::string(v, "upcard")?)?;
        let turned = card_list(json::field(v, "turned_jokers")?, "turned_jokers")?;
        ensure(
            turned.len() <= 2 && turned.iter().all(|&c| is_joker(c)),
            || "turned_jokers must hold jokers only".into(),
        )?;
        self.turned_len = turned.len() as u8;
        self.turned[..turned.len()].copy_from_slice(&turned);
        let stock = card_list(json::field(v, "stock")?, "stock")?;
        ensure(stock.len() <= DECK, || "the stock is too long".into())?;
        self.stock_len = stock.len() as u8;
        self.stock[..stock.len()].copy_from_slice(&stock);
        self.trump = match json::string(v, "trump")? {
            "none" => NO_TRUMP,
            s => SUITS
                .iter()
                .position(|x| *x == s)
                .ok_or_else(|| bad(format!("unknown trump {s:?}")))? as u8,
        };
        self.exchange = match json::field(v, "joker_exchange")? {
            Value::Null => None,
            e => Some(Exchange {
                seat: small(json::uint(e, "seat")?, 4, "joker_exchange seat")?,
                discarded: card(json::string(e, "discarded")?)?,
                drawn: card(json::string(e, "drawn")?)?,
            }),
        };
        Ok(())
    }

    fn read_bids(&mut self, bids: &[Value]) -> Result<(), Error> {
        ensure(bids.len() <= 4, || "at most four bids per auction".into())?;
        for (i, pair) in bids.iter().enumerate() {
            let seat = pair.get(0).and_then(Value::as_u64);
            let bid = pair.get(1).and_then(Value::as_str).and_then(parse_bid);
            match (seat, bid) {
                (Some(s), Some(b))
                    if pair.as_array().is_some_and(|a| a.len() == 2)
                        && s as usize == self.bidder(i) =>
                {
                    self.bids[i] = b;
                }
                _ => {
                    return Err(bad(format!(
                        "bid {i} must be [seat, bid] by seat {} (bidding order)",
                        self.bidder(i)
                    )))
                }
            }
        }
        self.bids_len = bids.len() as u8;
        Ok(())
    }

    fn read_tricks(&mut self, v: &Value) -> Result<(), Error> {
        let completed = json::array(v, "completed_tricks")?;
        ensure(completed.len() <= self.hand_size as usize, || {
            "more completed tricks than the hand size".into()
        })?;
        for (t, trick) in completed.iter().enumerate() {
            let leader = small(json::uint(trick, "leader")?, 4, "trick leader")?;
            let cards = played_cards(json::field(trick, "cards")?, leader)?;
            ensure(cards.len() == 4, || {
                "a completed trick holds four cards".into()
            })?;
            let winner = small(json::uint(trick, "winner")?, 4, "trick winner")?;
            self.completed[t] = (leader, [cards[0], cards[1], cards[2], cards[3]], winner);
        }
        self.completed_len = completed.len() as u8;
        self.trick_leader = match json::field(v, "trick_leader")? {
            Value::Null => 0,
            x => small(
                x.as_u64()
                    .ok_or_else(|| bad("trick_leader must be a seat or null".into()))?,
                4,
                "trick_leader",
            )?,
        };
        let trick = played_cards(json::field(v, "trick")?, self.trick_leader)?;
        ensure(trick.len() < 4, || {
            "the current trick holds at most three cards".into()
        })?;
        self.trick_len = trick.len() as u8;
        self.trick[..trick.len()].copy_from_slice(&trick);
        let won = json::ints(json::field(v, "tricks_won")?, "tricks_won")?;
        ensure(
            won.len() == PLAYERS && won.iter().all(|&w| (0..=13).contains(&w)),
            || "tricks_won must hold four counts".into(),
        )?;
        self.tricks_won = [won[0] as u8, won[1] as u8, won[2] as u8, won[3] as u8];
        Ok(())
    }

    /// The checks made after reading every field (see docs/games/back_alley.md).
    fn check_consistency(&mut self, v: &Value) -> Result<(), Error> {
        let len = self.params.schedule.len();
        let over = self.phase == Phase::GameOver;
        ensure(
            if over {
                self.hand_index == len
            } else {
                self.hand_index < len
            },
            || "hand_index does not match the phase".into(),
        )?;
        ensure(
            self.hand_size == self.params.schedule[self.hand_index.min(len - 1)],
            || "hand_size does not match the schedule".into(),
        )?;
        let pass_ok = if self.phase == Phase::Bidding {
            self.all_pass_count < self.params.max_consecutive_all_pass
        } else {
            self.all_pass_count == 0
        };
        ensure(self.all_pass_count >= 0 && pass_ok, || {
            "all_pass_count out of range".into()
        })?;
        ensure(self.deal_start <= self.history.len(), || {
            "deal_start out of range".into()
        })?;
        self.check_conservation()?;
        self.check_upcard()?;
        self.check_bids()?;
        self.check_play()?;
        let expected = json!({
            "to_act": self.current_player(),
            "trick_leader": self.in_play().then_some(self.trick_leader),
            "result": self.result(),
        });
        for key in ["to_act", "trick_leader", "result"] {
            ensure(json::field(v, key)? == &expected[key], || {
                format!("{key} is not what the position implies")
            })?;
        }
        Ok(())
    }

    fn check_conservation(&self) -> Result<(), Error> {
        let mut seen = 0u64;
        let mut count = 0;
        let mut add = |c: u8| {
            seen |= 1 << c;
            count += 1;
        };
        for s in 0..PLAYERS {
            bits(self.hands[s] as u128).for_each(|c| add(c as u8));
        }
        self.stock().iter().for_each(|&c| add(c));
        add(self.upcard);
        if let Some(e) = self.exchange {
            add(e.discarded);
        }
        self.trick[..self.trick_len as usize]
            .iter()
            .for_each(|&c| add(c));
        for (_, cards, _) in &self.completed[..self.completed_len as usize] {
            cards.iter().for_each(|&c| add(c));
        }
        ensure(seen == ALL_CARDS && count == DECK, || {
            "the cards in hands, stock, upcard, exchange and tricks are not exactly the 54 cards"
                .into()
        })
    }

    fn check_upcard(&self) -> Result<(), Error> {
        let turned = &self.turned[..self.turned_len as usize];
        let stock = self.stock();
        ensure(
            turned.len() <= stock.len() && stock.ends_with(turned),
            || "turned_jokers must lie at the bottom of the stock".into(),
        )?;
        ensure(
            turned.is_empty() || (self.params.joker_upcard == JokerUpcard::TurnNext && !is_joker(self.upcard)),
            || "turned_jokers only under turn_next, before a standard upcard".into(),
        )?;
        if !is_joker(self.upcard) {
            ensure(self.trump == self.upcard / 13, || {
                "trump must be the upcard's suit".into()
            })?;
            return ensure(self.exchange.is_none(), || {
                "no joker exchange without a joker upcard".into()
            });
        }
        ensure(self.trump == NO_TRUMP, || {
            "a joker upcard means no trump".into()
        })?;
        let other = if self.upcard == BB { LB } else { BB };
        let in_stock = stock.contains(&other);
        if self.params.joker_upcard == JokerUpcard::TurnNext {
            ensure(in_stock && stock.iter().all(|&c| is_joker(c)), || {
                "under turn_next a joker stays up only when the stock holds no standard card".into()
            })?;
            return ensure(self.exchange.is_none(), || {
                "no joker exchange under turn_next".into()
            });
        }
        match self.exchange {
            None => ensure(in_stock, || {
                "the other joker must be in the stock when nobody exchanged".into()
            }),
            Some(e) => {
                let drawn_ok = !is_joker(e.drawn)
                    && (self.hands[e.seat as usize] >> e.drawn & 1 == 1
                        || self.played_by(e.seat, e.drawn));
                ensure(e.discarded == other && drawn_ok, || {
                    "the joker exchange does not match the hands".into()
                })
            }
        }
    }

    fn played_by(&self, seat: u8, card: u8) -> bool {
        let completed = self.completed[..self.completed_len as usize]
            .iter()
            .map(|(l, c, _)| (*l, &c[..]));
        let current = std::iter::once((self.trick_leader, &self.trick[..self.trick_len as usize]));
        completed.chain(current).any(|(leader, cards)| {
            cards
                .iter()
                .enumerate()
                .any(|(i, &c)| c == card && (leader + i as u8) % 4 == seat)
        })
    }

    fn check_bids(&self) -> Result<(), Error> {
        let n = self.bids_len as usize;
        let cap = match self.params.bid_cap {
            BidCap::HandSizeMinusOne => self.hand_size - 1,
            BidCap::HandSize => self.hand_size,
        };
        let mut last_number = None;
        for &b in &self.bids[..n] {
            let limit = if self.params.bid_not_above_previous {
                last_number.map_or(cap, |k: u8| k.min(cap))
            } else {
                cap
            };
            ensure(b == PASS || b == BOARD || b <= limit, || {
                format!("bid {} is out of range", bid_text(b))
            })?;
            if b != PASS && b != BOARD {
                last_number = Some(b);
            }
        }
        let all_pass = self.bids[..n].iter().all(|&b| b == PASS);
        match self.phase {
            Phase::Bidding => ensure(n < 4, || "bidding holds at most three bids".into()),
            Phase::Play => ensure(n == 4 && !all_pass, || {
                "play needs four bids, not all pass".into()
            }),
            Phase::GameOver => ensure(n == 4, || "the last deal's auction must be complete".into()),
        }
    }

    /// Hand sizes, trick seats, winners, tricks won and trump_broken must all
    /// follow from the cards played.
    fn check_play(&mut self) -> Result<(), Error> {
        let n = self.hand_size;
        let played = self.completed_len;
        let abandoned = self.phase == Phase::GameOver && self.bids.iter().all(|&b| b == PASS);
        let in_play = self.phase == Phase::Play;
        ensure(in_play || self.trick_len == 0, || {
            "no trick in progress outside play".into()
        })?;
        ensure(
            match self.phase {
                Phase::Bidding => played == 0,
                Phase::Play => played < n,
                Phase::GameOver => played == if abandoned { 0 } else { n },
            },
            || "the number of completed tricks does not match the phase".into(),
        )?;
        let mut leader = if in_play || played > 0 {
            self.first_leader() as u8
        } else {
            0
        };
        let mut won = [0u8; PLAYERS];
        let mut broken = false;
        for t in 0..played as usize {
            let (l, cards, w) = self.completed[t];
            ensure(l == leader && w == self.trick_winner(l, &cards), || {
                format!("completed trick {t} has the wrong leader or winner")
            })?;
            won[w as usize] += 1;
            broken |= cards.iter().any(|&c| self.trump_set() >> c & 1 == 1);
            leader = w;
        }
        ensure(
            won == self.tricks_won && broken == self.trump_broken,
            || "tricks_won or trump_broken do not follow from the tricks".into(),
        )?;
        if in_play {
            ensure(self.trick_leader == leader, || {
                "trick_leader is not the last trick's winner".into()
            })?;
        }
        for s in 0..PLAYERS {
            let in_trick =
                (0..self.trick_len).any(|i| (self.trick_leader + i) % 4 == s as u8) as u8;
            let expected = if abandoned { n } else { n - played - in_trick };
            ensure(self.hands[s].count_ones() as u8 == expected, || {
                format!("seat {s} holds the wrong number of cards")
            })?;
        }
        self.to_act = match self.phase {
            Phase::Bidding => (self.dealer + 1 + self.bids_len) % 4,
            Phase::Play => (self.trick_leader + self.trick_len) % 4,
            Phase::GameOver => 0,
        };
        Ok(())
    }
}

fn bad(message: String) -> Error {
    Error::InvalidState { message }
}

fn small(x: u64, below: u64, what: &str) -> Result<u8, Error> {
    ensure(x < below, || format!("{what} must be below {below}"))?;
    Ok(x as u8)
}

fn card(text: &str) -> Result<u8, Error> {
    parse_card(text).ok_or_else(|| bad(format!("{text:?} is not a card")))
}

fn card_list(v: &Value, what: &str) -> Result<Vec<u8>, Error> {
    json::strings(v, what)?.into_iter().map(card).collect()
}

/// A set of cards that must be written in canonical order without repeats.
fn card_set(cards: &[u8], what: &str) -> Result<u64, Error> {
    ensure(cards.windows(2).all(|w| w[0] < w[1]), || {
        format!("{what} must list distinct cards in canonical order")
    })?;
    Ok(cards.iter().fold(0, |set, &c| set | 1 << c))
}

/// `[[seat, card], ...]` with seats running clockwise from `leader`.
fn played_cards(v: &Value, leader: u8) -> Result<Vec<u8>, Error> {
    let pairs = v
        .as_array()
        .ok_or_else(|| bad("a trick must be a list of [seat, card] pairs".into()))?;
    pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let seat = pair.get(0).and_then(Value::as_u64);
            let code = pair.get(1).and_then(Value::as_str);
            match (seat, code) {
                (Some(s), Some(c))
                    if s == (leader as u64 + i as u64) % 4
                        && pair.as_array().is_some_and(|a| a.len() == 2) =>
                {
                    card(c)
                }
                _ => Err(bad(
                    "trick cards must be [seat, card] pairs clockwise from the leader".into(),
                )),
            }
        })
        .collect()
}

fn parse_bid(text: &str) -> Option<u8> {
    match text {
        "pass" => Some(PASS),
        "board" => Some(BOARD),
        _ => parse_canonical_uint(text)
            .filter(|k| (1..=13).contains(k))
            .map(|k| k as u8),
    }
}

fn read_deal(d: &Value) -> Result<DealRecord, Error> {
    let dealer = small(json::uint(d, "dealer")?, 4, "deal dealer")?;
    let bids_v = json::array(d, "bids")?;
    ensure(bids_v.len() == 4, || "a deal record holds four bids".into())?;
    let mut bids = [PASS; 4];
    for (i, pair) in bids_v.iter().enumerate() {
        let seat = pair.get(0).and_then(Value::as_u64);
        match (
            seat,
            pair.get(1).and_then(Value::as_str).and_then(parse_bid),
        ) {
            (Some(s), Some(b)) if s == (dealer as u64 + 1 + i as u64) % 4 => bids[i] = b,
            _ => {
                return Err(bad(
                    "deal record bids must be [seat, bid] in bidding order".into()
                ))
            }
        }
    }
    let pair = |key: &str| -> Result<Vec<i64>, Error> {
        let x = json::ints(json::field(d, key)?, key)?;
        ensure(x.len() == 2, || {
            format!("deal record {key} must hold two numbers")
        })?;
        Ok(x)
    };
    let tricks = pair("tricks")?;
    ensure(tricks.iter().all(|t| (0..=13).contains(t)), || {
        "deal record tricks out of range".into()
    })?;
    let points = pair("points")?;
    let exchange = match d.get("joker_exchange") {
        None => None,
        Some(e) => Some((
            small(json::uint(e, "seat")?, 4, "exchange seat")?,
            card(json::string(e, "discarded")?)?,
        )),
    };
    let trump = match json::string(d, "trump")? {
        "none" => NO_TRUMP,
        s => SUITS
            .iter()
            .position(|x| *x == s)
            .ok_or_else(|| bad(format!("unknown trump {s:?}")))? as u8,
    };
    let turned_list = card_list(json::field(d, "turned_jokers")?, "turned_jokers")?;
    ensure(
        turned_list.len() <= 2 && turned_list.iter().all(|&c| is_joker(c)),
        || "deal record turned_jokers must hold at most two jokers".into(),
    )?;
    let mut turned = [0u8; 2];
    turned[..turned_list.len()].copy_from_slice(&turned_list);
    Ok(DealRecord {
        dealer,
        hand_index: json::uint(d, "hand_index")? as usize,
        hand_size: small(json::uint(d, "hand_size")?, 14, "deal hand_size")?,
        upcard: card(json::string(d, "upcard")?)?,
        turned,
        turned_len: turned_list.len() as u8,
        trump,
        exchange,
        bids,
        tricks: [tricks[0] as u8, tricks[1] as u8],
        points: [points[0], points[1]],
        outcome: match json::string(d, "outcome")? {
            "played" => DealOutcome::Played,
            "redeal" => DealOutcome::Redeal,
            "abandoned" => DealOutcome::Abandoned,
            other => return Err(bad(format!("unknown deal outcome {other:?}"))),
        },
    })
}

impl Game for BackAlley {
    const SPEC: GameSpec = GameSpec {
        id: "back_alley",
        min_players: PLAYERS,
        max_players: PLAYERS,
        default_players: PLAYERS,
        teams: &[&[0, 2], &[1, 3]],
        rule_prefix: "BA",
        heuristic: true,
        search: true,
    };
    type Params = Params;

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        BackAlley::new(params, seed, deck)
    }
}

impl Rules for BackAlley {
    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::GameOver).then_some(self.to_act as usize)
    }

    /// Bidding: `bid pass`, `bid 1`.. `bid max`, `bid board`. Play: the legal
    /// cards in canonical deck order.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Bidding => {
                out.push(BID + PASS as Action);
                out.extend((1..=self.max_number_bid() as Action).map(|k| BID + k));
                out.push(BID + BOARD as Action);
            }
            Phase::Play => out.extend(bits(self.playable() as u128).map(Action::from)),
            Phase::GameOver => {}
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        match (self.phase, action >= BID) {
            (Phase::GameOver, _) => Some("the game is over".into()),
            (Phase::Bidding, false) => Some("the auction is not over; it must bid".into()),
            (Phase::Play, true) => Some("the auction is over; it must play a card".into()),
            (Phase::Bidding, true) => {
                let k = (action - BID) as u8;
                let max = self.max_number_bid();
                (k != PASS && k != BOARD && k > max).then(|| {
                    if max == 0 {
                        "no number bid is allowed now (only pass or board)".into()
                    } else {
                        format!("number bids must be from 1 to {max} now")
                    }
                })
            }
            (Phase::Play, false) => {
                let card = action as u8;
                if self.hands[self.to_act as usize] >> card & 1 == 0 {
                    Some(format!("{} is not in its hand", card_text(card)))
                } else if self.playable() >> card & 1 == 0 {
                    Some(if self.trick_len == 0 {
                        "trumps may not be led before they are broken".into()
                    } else {
                        "it must follow the led suit (or the Blooper's highest/lowest trump rule)"
                            .into()
                    })
                } else {
                    None
                }
            }
        }
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        if action >= BID {
            self.bid((action - BID) as u8);
        } else {
            self.play(action as u8);
        }
    }
}

impl Outcome for BackAlley {
    fn scores(&self) -> Vec<i64> {
        (0..PLAYERS).map(|s| self.team_scores[s % 2]).collect()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(PLAYERS, |a, b| {
            self.team_scores[a % 2] > self.team_scores[b % 2]
        })
    }
}

impl StateJson for BackAlley {
    fn parse_action(text: &str) -> Option<Action> {
        if let Some(c) = text.strip_prefix("play ") {
            parse_card(c).map(Action::from)
        } else {
            text.strip_prefix("bid ")
                .and_then(parse_bid)
                .map(|b| BID + b as Action)
        }
    }

    fn write_action(action: Action, out: &mut String) {
        if action >= BID {
            out.push_str("bid ");
            out.push_str(&bid_text((action - BID) as u8));
        } else {
            out.push_str("play ");
            out.push_str(&card_text(action as u8));
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = self.public_fields();
        m.insert("seat".into(), json!(seat));
        m.insert(
            "hand".into(),
            json!(cards_text(self.hands.get(seat).copied().unwrap_or(0))),
        );
        m.insert("hand_sizes".into(), json!(self.hands.map(u64::count_ones)));
        m.insert("stock_size".into(), json!(self.stock_len));
        m.insert(
            "joker_exchange".into(),
            self.exchange_json(|s| s as usize == seat),
        );
        m.insert(
            "actions".into(),
            json!(self.history[self.deal_start..]
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        Value::Object(m)
    }

    fn to_json(&self) -> Value {
        let mut m = self.public_fields();
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("hands".into(), json!(self.hands.map(cards_text)));
        m.insert(
            "stock".into(),
            json!(self
                .stock()
                .iter()
                .map(|&c| card_text(c))
                .collect::<Vec<_>>()),
        );
        m.insert("joker_exchange".into(), self.exchange_json(|_| true));
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        m.insert("deal_start".into(), json!(self.deal_start));
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, PLAYERS, &params.to_json())?;
        let mut g = BackAlley::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.phase = match json::string(v, "phase")? {
            "bidding" => Phase::Bidding,
            "play" => Phase::Play,
            "game_over" => Phase::GameOver,
            other => return Err(bad(format!("unknown phase {other:?}"))),
        };
        g.hand_index = json::uint(v, "hand_index")? as usize;
        g.hand_size = small(json::uint(v, "hand_size")?, 14, "hand_size")?;
        g.dealer = small(json::uint(v, "dealer")?, 4, "dealer")?;
        g.all_pass_count = json::int(v, "all_pass_count")?;
        g.read_cards(v)?;
        g.read_bids(json::array(v, "bids")?)?;
        g.read_tricks(v)?;
        g.trump_broken = json::field(v, "trump_broken")?
            .as_bool()
            .ok_or_else(|| bad("trump_broken must be true or false".into()))?;
        let scores = json::ints(json::field(v, "team_scores")?, "team_scores")?;
        ensure(scores.len() == 2, || {
            "team_scores must hold two totals".into()
        })?;
        g.team_scores = [scores[0], scores[1]];
        g.deals = json::array(v, "deals")?
            .iter()
            .map(read_deal)
            .collect::<Result<_, _>>()?;
        g.history = json::strings(json::field(v, "history")?, "history")?
            .into_iter()
            .map(|t| {
                Self::parse_action(t)
                    .ok_or_else(|| bad(format!("{t:?} in history is not an action")))
            })
            .collect::<Result<_, _>>()?;
        g.deal_start = json::uint(v, "deal_start")? as usize;
        g.check_consistency(v)?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl NativeBots for BackAlley {
    /// Fast path in play: the `k`-th playable card, without building the list.
    #[inline(always)]
    fn random_action(&self, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        if self.phase == Phase::Play {
            let playable = self.playable();
            let k = pick(rng, playable.count_ones() as usize);
            return Action::from(nth_bit64(playable, k as u32));
        }
        buf.clear();
        self.legal_actions(buf);
        buf[pick(rng, buf.len())]
    }

    /// The strategy of `cardref.bots.heuristic.back_alley` (see there).
    fn heuristic_action(&self, _rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        match self.phase {
            Phase::Bidding => BID + self.heuristic_bid() as Action,
            _ => self.heuristic_play() as Action,
        }
    }
}

impl Search for BackAlley {
    /// The other hands and the stock above the turned jokers are dealt anew,
    /// each seat keeping its size and holding none of the cards its plays
    /// this deal showed it lacks (see [`BackAlley::shown_absent`]); the
    /// exchanged card, if hidden, and the generator are redrawn.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        ensure(seat < PLAYERS, || format!("seat {seat} does not exist"))?;
        let mut g = self.clone();
        g.redeal_hidden(seat, rng);
        Ok(g)
    }

    /// Builds the state JSON from the observation's public fields plus the
    /// hidden cards placed anyhow, loads it (every check of `from_json`
    /// applies), then deals the hidden cards as `resample` does (which keeps
    /// every one of those checks true). The observation shows this deal's
    /// actions only, so the rebuilt history starts at the deal
    /// (`deal_start = 0`). The deal records are read from the observation as
    /// `from_json` reads them, without copying them into the state JSON first.
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        ensure(json::string(obs, "game")? == Self::SPEC.id, || {
            "not a back_alley observation".into()
        })?;
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < PLAYERS, || "seat out of range".into())?;
        let skeleton = skeleton_json(obs, seat, rng.next_u64())?;
        let mut g = Self::from_json(self.params.clone(), &skeleton)?;
        g.deals = json::array(obs, "deals")?
            .iter()
            .map(read_deal)
            .collect::<Result<_, _>>()?;
        g.redeal_hidden(seat, rng);
        Ok(g)
    }

    /// Rollouts end with the deal (scored, redealt or abandoned); the value is
    /// the points `seat`'s team gained in it minus the other team's. When the
    /// game ends, winning it counts for more than any deal's points.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        let over = self.phase == Phase::GameOver;
        if !over && self.deals.len() == start.deals.len() {
            return None;
        }
        let team = seat % 2;
        let gained = |t: usize| (self.team_scores[t] - start.team_scores[t]) as f64;
        let mut value = gained(team) - gained(1 - team);
        if over {
            let lead = self.team_scores[team] - self.team_scores[1 - team];
            value += GAME_WIN_VALUE * lead.signum() as f64;
        }
        Some(value)
    }
}


/// The native heuristic bot: only the hand, the bids and the trick are used.
impl BackAlley {
    fn is_trump(&self, c: u8) -> bool {
        self.trump_set() >> c & 1 == 1
    }

    fn expected_tricks(&self, hand: u64) -> f64 {
        let mut tricks = 0.0;
        for c in bits(hand as u128).map(|c| c as u8) {
            let rank = c % 13;
            if is_joker(c) {
                tricks += 1.0;
            } else if self.is_trump(c) {
                tricks += if rank >= 11 {
                    1.0
                } else if rank >= 8 {
                    0.6
                } else {
                    0.25
                };
            } else if rank == 12 {
                tricks += 0.9;
            } else if rank == 11 && (hand & suit_mask(c / 13)).count_ones() >= 2 {
                tricks += 0.5;
            }
        }
        let trumps = (hand & self.trump_set()).count_ones() as f64;
        tricks + 0.2 * (trumps - 3.0).max(0.0)
    }

    fn heuristic_bid(&self) -> u8 {
        let seat = self.to_act as usize;
        let hand = self.hands[seat];
        let n = self.hand_size;
        let partner = self.bid_of((seat + 2) % PLAYERS);
        if n == 1 {
            let c = hand.trailing_zeros() as u8;
            let sure = hand & JOKERS != 0 || (c % 13 == 12 && c / 13 == self.trump);
            return if sure && partner != Some(BOARD) {
                BOARD
            } else {
                PASS
            };
        }
        let mut wanted = (self.expected_tricks(hand) + 0.3) as i64;
        if let Some(k) = partner.filter(|&k| k != PASS && k != BOARD) {
            wanted = wanted.min(n as i64 - k as i64);
        }
        let max = self.max_number_bid() as i64;
        if wanted <= 0 || max == 0 {
            PASS
        } else {
            wanted.min(max) as u8
        }
    }

    fn heuristic_play(&self) -> u8 {
        let legal = self.playable();
        let cards = || bits(legal as u128).map(|c| c as u8);
        let order = |c: u8| if is_joker(c) { 20 } else { c % 13 };
        if self.trick_len == 0 {
            let trump_ace = |c: u8| is_joker(c) || (self.is_trump(c) && c % 13 == 12);
            if let Some(c) = cards().find(|&c| trump_ace(c)) {
                return c;
            }
            if let Some(c) = cards().find(|&c| !self.is_trump(c) && c % 13 == 12) {
                return c;
            }
            let plain = legal & !self.trump_set();
            let pool = if plain != 0 { plain } else { legal };
            return first_min(bits(pool as u128).map(|c| c as u8), order);
        }
        let led = self.trick[0];
        let mut best = (self.strength(led, led), 0);
        for i in 1..self.trick_len as usize {
            let s = self.strength(self.trick[i], led);
            if s > best.0 {
                best = (s, i);
            }
        }
        let best_seat = (self.trick_leader as usize + best.1) % PLAYERS;
        let cheapest = first_min(cards(), |c| (self.strength(c, led), order(c)));
        if best_seat == (self.to_act as usize + 2) % PLAYERS {
            return cheapest;
        }
        let winners = cards().filter(|&c| self.strength(c, led) > best.0);
        let mut winner = None;
        for c in winners {
            if winner.is_none_or(|w| self.strength(c, led) < self.strength(w, led)) {
                winner = Some(c);
            }
        }
        winner.unwrap_or(cheapest)
    }
}

// ---------------------------------------------------------------------------
// Determinization (the search bot)
// ---------------------------------------------------------------------------

/// What a won game is worth to a rollout that reaches the end, in deal points:
/// more than any deal can score, so the search plays for the win last of all.
const GAME_WIN_VALUE: f64 = 1e6;

/// Places a card hidden from the observer can be in: the three other seats
/// (in seat order from the observer's left), then the stock.
const PLACES: usize = 4;
const STOCK_PLACE: usize = 3;

impl BackAlley {
    /// Trump-set cards ranking above the trump `c` (`BB` > `LB` > A..2 of trump).
    fn trumps_above(&self, c: u8) -> u64 {
        match c {
            BB => 0,
            LB => 1 << BB,
            _ => JOKERS | (self.trump_set() & !JOKERS & !((2u64 << c) - 1)),
        }
    }

    /// Trump-set cards ranking below the trump `c`.
    fn trumps_below(&self, c: u8) -> u64 {
        self.trump_set() & !self.trumps_above(c) & !(1 << c)
    }

    /// The completed tricks of this deal and the current one, as (leader, cards).
    fn deal_tricks(&self) -> impl Iterator<Item = (u8, &[u8])> {
        self.completed[..self.completed_len as usize]
            .iter()
            .map(|(l, c, _)| (*l, &c[..]))
            .chain(std::iter::once((
                self.trick_leader,
                &self.trick[..self.trick_len as usize],
            )))
    }

    /// The cards each seat played this deal.
    fn played_this_deal(&self) -> [u64; PLAYERS] {
        let mut played = [0u64; PLAYERS];
        for (leader, cards) in self.deal_tricks() {
            for (i, &c) in cards.iter().enumerate() {
                played[(leader as usize + i) % PLAYERS] |= 1 << c;
            }
        }
        played
    }

    /// Per seat, the cards its plays this deal showed it no longer holds: a
    /// play was legal only because the seat lacked them (§5.2). A trump led
    /// before trumps broke, by a seat not exempt, shows a hand of trumps only
    /// (BA-11, BA-12); a card off the led suit shows a void in it, the trump
    /// set counting as one suit (BA-13, BA-21); under a led Blooper a trump
    /// shows no higher (`BB`) or lower (`LB`) trump, any other card no trump
    /// (BA-14). Cards only leave hands during a deal, so what a seat lacked
    /// then it lacks now.
    pub fn shown_absent(&self) -> [u64; PLAYERS] {
        let set = self.trump_set();
        let p = &self.params;
        let mut absent = [0u64; PLAYERS];
        let mut broken = false;
        for (leader, cards) in self.deal_tricks() {
            let Some(&led) = cards.first() else { continue };
            let l = leader as usize;
            let led_trump = set >> led & 1 == 1;
            if led_trump && !broken && !self.exempt(l) {
                absent[l] |= ALL_CARDS & !set;
            }
            for (i, &c) in cards.iter().enumerate().skip(1) {
                let s = (l + i) % PLAYERS;
                let partner = s == Self::partner(l);
                let blooper = p.blooper_lead_rules
                    && (led == LB || (led == BB && (p.big_blooper_binds_partner || !partner)));
                let trump = set >> c & 1 == 1;
                absent[s] |= if blooper && trump {
                    if led == BB {
                        self.trumps_above(c)
                    } else {
                        self.trumps_below(c)
                    }
                } else {
                    let follow = if led_trump { set } else { suit_mask(led / 13) };
                    if follow >> c & 1 == 1 {
                        0
                    } else {
                        follow
                    }
                };
            }
            broken |= cards.iter().any(|&c| set >> c & 1 == 1);
        }
        absent
    }

    /// Deals the cards hidden from `seat` anew: the other hands and the stock
    /// above the turned jokers. Each hand keeps its size and gets none of the
    /// cards its seat has shown it lacks, nor a joker when the upcard is one
    /// (BA-17: then no joker is in any hand). The exchanged card, when hidden
    /// from `seat`, becomes one of the exchanging seat's cards of this deal at
    /// random; the generator is drawn anew.
    ///
    /// Cards are taken in random order and each goes to a place with room,
    /// chosen with probability proportional to its room (a plain random deal
    /// when nothing is constrained), among the places that leave the rest
    /// placeable (Hall's condition, [`placeable`]); the true deal shows the
    /// constraints can be met.
    fn redeal_hidden(&mut self, seat: usize, rng: &mut SplitMix64) {
        self.rng = SplitMix64::new(rng.next_u64());
        let others = [1, 2, 3].map(|k| (seat + k) % PLAYERS);
        let mut absent = self.shown_absent();
        if is_joker(self.upcard) {
            others.iter().for_each(|&s| absent[s] |= JOKERS);
        }
        let open_stock = (self.stock_len - self.turned_len) as usize;
        let mut pool = [0u8; DECK];
        let mut len = 0;
        let mut room = [0u8; PLACES];
        for (i, &s) in others.iter().enumerate() {
            room[i] = self.hands[s].count_ones() as u8;
            for c in bits(self.hands[s] as u128) {
                pool[len] = c as u8;
                len += 1;
            }
        }
        room[STOCK_PLACE] = open_stock as u8;
        pool[len..len + open_stock].copy_from_slice(&self.stock[..open_stock]);
        len += open_stock;
        let cards = &mut pool[..len];
        rng.shuffle(cards);
        let places = |c: u8| -> usize {
            (0..3)
                .filter(|&i| absent[others[i]] >> c & 1 == 0)
                .fold(1 << STOCK_PLACE, |m, i| m | 1 << i)
        };
        let mut count = [0u8; 1 << PLACES];
        cards.iter().for_each(|&c| count[places(c)] += 1);
        let constrained = count.iter().enumerate().any(|(m, &k)| k > 0 && m != 15);
        let mut hands = [0u64; 3];
        let mut stock_len = 0;
        for &c in cards.iter() {
            let fits = places(c);
            count[fits] -= 1;
            let mut options = fits;
            let place = loop {
                let open = |p: usize| options >> p & 1 == 1 && room[p] > 0;
                let total: usize = (0..PLACES)
                    .filter(|&p| open(p))
                    .map(|p| room[p] as usize)
                    .sum();
                // The true deal meets every constraint, so some place is left.
                debug_assert!(total > 0, "no place left for a hidden card");
                let mut r = pick(rng, total.max(1));
                let p = (0..PLACES)
                    .filter(|&p| open(p))
                    .find(|&p| {
                        let here = r < room[p] as usize;
                        r = r.saturating_sub(room[p] as usize);
                        here
                    })
                    .unwrap_or(STOCK_PLACE);
                room[p] -= 1;
                if !constrained || options.count_ones() == 1 || placeable(&count, &room) {
                    break p;
                }
                room[p] += 1;
                options &= !(1 << p);
            };
            if place == STOCK_PLACE {
                self.stock[stock_len] = c;
                stock_len += 1;
            } else {
                hands[place] |= 1 << c;
            }
        }
        for (i, &s) in others.iter().enumerate() {
            self.hands[s] = hands[i];
        }
        if let Some(mut e) = self.exchange.filter(|e| e.seat as usize != seat) {
            let s = e.seat as usize;
            let mine = (self.hands[s] | self.played_this_deal()[s]) & !JOKERS;
            e.drawn = nth_card(mine, pick(rng, mine.count_ones() as usize));
            self.exchange = Some(e);
        }
    }
}

/// Can every card still be placed? `count[m]` cards may go exactly to the
/// places of the bit set `m`, `room[p]` is the free room of place `p`. Hall's
/// condition for this transportation problem: for every set of places, the
/// cards that fit only there do not exceed its room.
fn placeable(count: &[u8; 1 << PLACES], room: &[u8; PLACES]) -> bool {
    (1..1usize << PLACES).all(|set| {
        let space: u32 = (0..PLACES)
            .filter(|&p| set >> p & 1 == 1)
            .map(|p| room[p] as u32)
            .sum();
        let need: u32 = (1..1usize << PLACES)
            .filter(|&m| m & !set == 0)
            .map(|m| count[m] as u32)
            .sum();
        need <= space
    })
}

/// The `k`-th lowest card of a set.
fn nth_card(mut set: u64, k: usize) -> u8 {
    for _ in 0..k {
        set &= set - 1;
    }
    set.trailing_zeros() as u8
}

/// The fields of the state JSON an observation shows as they are, but for
/// the deal records (read separately).
const PUBLIC_KEYS: [&str; 20] = [
    "game",
    "players",
    "params",
    "phase",
    "hand_index",
    "hand_size",
    "dealer",
    "all_pass_count",
    "to_act",
    "upcard",
    "turned_jokers",
    "trump",
    "bids",
    "trick_leader",
    "trick",
    "completed_tricks",
    "tricks_won",
    "trump_broken",
    "team_scores",
    "result",
];

/// The state JSON of an observation with the cards hidden from `seat` placed
/// anyhow (dealt properly afterwards): the jokers of a joker-upcard deal in
/// the stock, then the other hands in seat order, the rest in the stock above
/// the turned jokers; a hidden exchanged card is one the exchanging seat holds
/// or played. The history starts at the deal (`deal_start = 0`); the deal
/// records are left empty.
fn skeleton_json(obs: &Value, seat: usize, rng_state: u64) -> Result<Value, Error> {
    let hand = card_list(json::field(obs, "hand")?, "hand")?;
    let sizes = json::ints(json::field(obs, "hand_sizes")?, "hand_sizes")?;
    ensure(
        sizes.len() == PLAYERS && sizes.iter().all(|k| (0..=MAX_HAND as i64).contains(k)),
        || "hand_sizes must hold four hand sizes".into(),
    )?;
    let upcard = card(json::string(obs, "upcard")?)?;
    let turned = card_list(json::field(obs, "turned_jokers")?, "turned_jokers")?;
    let exchange = json::field(obs, "joker_exchange")?;
    let mut known = card_set(&hand, "the hand")? | 1 << upcard;
    turned.iter().for_each(|&c| known |= 1 << c);
    if !exchange.is_null() {
        known |= 1 << card(json::string(exchange, "discarded")?)?;
    }
    let mut played = [0u64; PLAYERS];
    let tricks = json::array(obs, "completed_tricks")?
        .iter()
        .map(|t| json::array(t, "cards"))
        .chain(std::iter::once(json::array(obs, "trick")));
    for trick in tricks {
        for pair in trick? {
            let s = pair.get(0).and_then(Value::as_u64).unwrap_or(0) as usize % PLAYERS;
            let c = card(pair.get(1).and_then(Value::as_str).unwrap_or(""))?;
            known |= 1 << c;
            played[s] |= 1 << c;
        }
    }
    let mut hidden = ALL_CARDS & !known;
    let mut stock: Vec<String> = Vec::with_capacity(DECK);
    if is_joker(upcard) {
        stock.extend(cards_text(hidden & JOKERS));
        hidden &= !JOKERS;
    }
    let mut hands = [0u64; PLAYERS];
    for (s, held) in hands.iter_mut().enumerate() {
        if s == seat {
            *held = card_set(&hand, "the hand")?;
            continue;
        }
        for _ in 0..sizes[s] {
            if hidden != 0 {
                *held |= hidden & hidden.wrapping_neg();
                hidden &= hidden - 1;
            }
        }
    }
    stock.extend(cards_text(hidden));
    stock.extend(turned.iter().map(|&c| card_text(c)));
    let exchange = match exchange {
        Value::Null => Value::Null,
        e if e.get("drawn").is_some() => e.clone(),
        e => {
            let s = json::uint(e, "seat")? as usize % PLAYERS;
            let mine = (hands[s] | played[s]) & !JOKERS;
            ensure(mine != 0, || "the exchanging seat holds no card".into())?;
            let mut e = e.clone();
            e["drawn"] = json!(card_text(mine.trailing_zeros() as u8));
            e
        }
    };
    let mut state = Map::new();
    for key in PUBLIC_KEYS {
        state.insert(key.into(), json::field(obs, key)?.clone());
    }
    state.insert("deals".into(), json!([]));
    state.insert("rng".into(), json!(rng_state));
    state.insert("hands".into(), json!(hands.map(cards_text)));
    state.insert("stock".into(), json!(stock));
    state.insert("joker_exchange".into(), exchange);
    state.insert("history".into(), json::field(obs, "actions")?.clone());
    state.insert("deal_start".into(), json!(0));
    Ok(Value::Object(state))
}

/// The first item with the least key (as Python's `min`).
fn first_min<K: PartialOrd>(items: impl Iterator<Item = u8>, key: impl Fn(u8) -> K) -> u8 {
    let mut best: Option<(K, u8)> = None;
    for c in items {
        let k = key(c);
        if best.as_ref().is_none_or(|(b, _)| k < *b) {
            best = Some((k, c));
        }
    }
    best.map_or(0, |(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, Param)]) -> Params {
        crate::games::parse_params::<BackAlley>(
            4,
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
        .unwrap()
    }

    fn codes(cards: &[&str]) -> u64 {
        cards.iter().fold(0, |s, c| s | 1 << parse_card(c).unwrap())
    }

    /// A deck whose top cards are `top`, the rest in canonical order.
    fn deck(top: &[&str]) -> Vec<String> {
        let mut d: Vec<String> = top.iter().map(|s| s.to_string()).collect();
        d.extend(
            (0..54)
                .map(card_text)
                .filter(|c| !top.contains(&c.as_str())),
        );
        d
    }

    fn legal(g: &BackAlley) -> Vec<String> {
        let mut out = Vec::new();
        g.legal_actions(&mut out);
        out.into_iter().map(BackAlley::action_text).collect()
    }

    #[test]
    fn card_codes_round_trip_in_canonical_order() {
        let all: Vec<String> = (0..54).map(card_text).collect();
        assert_eq!(&all[..3], ["2C", "3C", "4C"]);
        assert_eq!(&all[50..], ["KS", "AS", "BB", "LB"]);
        for (i, c) in all.iter().enumerate() {
            assert_eq!(parse_card(c), Some(i as u8));
        }
        for bad in ["TH", "1H", "10", "H", "bb", "10h", "", "AX"] {
            assert_eq!(parse_card(bad), None, "{bad}");
        }
    }

    #[test]
    fn default_schedule_is_13_down_to_1_and_back() {
        let p = params(&[]);
        assert_eq!(p.schedule.len(), 25);
        assert_eq!((p.schedule[0], p.schedule[12], p.schedule[24]), (13, 1, 13));
        assert_eq!(named_schedule("13-1-1-13").len(), 26);
        assert_eq!(named_schedule("1-13-13-1")[12..14], [13, 13]);
    }

    #[test]
    fn variant_keys_are_strict() {
        let bad = |k: &str, v: Param| crate::games::parse_params::<BackAlley>(4, vec![(k.into(), v)]).is_err();
        assert!(bad("schedule", Param::List(vec![])));
        assert!(bad("schedule", Param::List(vec![Param::Int(14)])));
        assert!(bad("schedule", Param::List(vec![Param::Bool(true)])));
        assert!(bad("first_dealer", Param::Int(4)));
        assert!(bad("first_dealer", Param::Bool(false)));
        assert!(bad("max_consecutive_all_pass", Param::Int(0)));
        assert!(bad("blooper_lead_rules", Param::Int(1)));
        assert!(crate::games::parse_params::<BackAlley>(3, vec![]).is_err());
        let p = params(&[("schedule", Param::List(vec![Param::Int(2), Param::Int(1)]))]);
        assert_eq!(p.to_json()["schedule"], json!([2, 1]));
    }

    #[test]
    fn ba_s1_joker_exchange_takes_the_top_stock_card() {
        let p = params(&[("schedule", Param::List(vec![Param::Int(2)]))]);
        let d = deck(&[
            "BB", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "LB", "9H", "10H",
        ]);
        let g = BackAlley::new(p, 0, Some(&d)).unwrap();
        assert_eq!(g.hands[1], codes(&["5H", "9H"]));
        assert_eq!(
            g.exchange,
            Some(Exchange {
                seat: 1,
                discarded: BB,
                drawn: parse_card("9H").unwrap()
            })
        );
        assert_eq!(g.trump, NO_TRUMP);
        assert_eq!(g.stock_len, 44);
        assert_eq!(g.stock[0], parse_card("10H").unwrap());
    }

    #[test]
    fn ba_s20_turn_next_moves_jokers_under_the_stock() {
        let p = params(&[
            ("schedule", Param::List(vec![Param::Int(1)])),
            ("first_dealer", Param::Int(3)),
            ("joker_upcard", Param::Str("turn_next".into())),
        ]);
        let g = BackAlley::new(
            p,
            0,
            Some(&deck(&["AS", "KS", "QS", "JS", "LB", "BB", "7D", "8D"])),
        )
        .unwrap();
        assert_eq!(card_text(g.upcard), "7D");
        assert_eq!(trump_text(g.trump), "D");
        assert_eq!(g.stock_len, 49);
        assert_eq!(card_text(g.stock[0]), "8D");
        assert_eq!(&g.stock()[47..], [LB, BB]);
    }

    #[test]
    fn bid_lists_follow_hand_size() {
        let g = BackAlley::new(params(&[]), 3, None).unwrap();
        let l = legal(&g);
        assert_eq!(l.len(), 14);
        assert_eq!(
            (l[0].as_str(), l[12].as_str(), l[13].as_str()),
            ("bid pass", "bid 12", "bid board")
        );
        assert!(g
            .illegal_reason(BackAlley::parse_action("bid 13").unwrap())
            .is_some());
    }

    #[test]
    fn blooper_leads_force_highest_and_lowest_trumps() {
        assert_eq!(highest_trump(codes(&["LB", "AS", "2S"])), codes(&["LB"]));
        assert_eq!(lowest_trump(codes(&["BB", "4C", "AC"])), codes(&["4C"]));
        assert_eq!(lowest_trump(codes(&["BB"])), codes(&["BB"]));
        assert_eq!(lowest_trump(codes(&["BB", "LB"])), codes(&["LB"]));
    }

    /// A 3-card deal with trump hearts and the given bids made (dealer S3).
    fn after_bids(bids: &[&str], pairs: &[(&str, Param)]) -> BackAlley {
        let mut all = vec![
            ("schedule", Param::List(vec![Param::Int(3)])),
            ("first_dealer", Param::Int(3)),
        ];
        all.extend(pairs.iter().cloned());
        let d = deck(&[
            "2H", "2C", "2D", "5C", "KS", "3C", "3D", "6C", "LB", "4C", "4D", "7C", "3H",
        ]);
        let mut g = BackAlley::new(params(&all), 0, Some(&d)).unwrap();
        for b in bids {
            g.apply_checked(b).unwrap();
        }
        g
    }

    #[test]
    fn trumps_beat_the_led_suit_and_off_suits_never_win() {
        let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
        let c = |t: &str| parse_card(t).unwrap();
        assert_eq!(g.trick_winner(0, &[c("2C"), c("AS"), c("KC"), c("3C")]), 2);
        assert_eq!(g.trick_winner(1, &[c("AC"), c("2H"), c("KC"), c("LB")]), 0);
        assert_eq!(g.trick_winner(2, &[c("AH"), c("LB"), c("BB"), c("KH")]), 0);
    }

    #[test]
    fn lead_restriction_exemption_and_only_trumps() {
        let mut out = Vec::new();
        let g = after_bids(&["bid 2", "bid pass", "bid pass", "bid pass"], &[]);
        g.legal_actions(&mut out);
        assert_eq!(out, vec![parse_card("KS").unwrap() as Action]);
        let g = after_bids(&["bid board", "bid pass", "bid pass", "bid pass"], &[]);
        out.clear();
        g.legal_actions(&mut out);
        assert_eq!(out.len(), 3);
        let g = after_bids(
            &["bid board", "bid pass", "bid pass", "bid pass"],
            &[("board_trump_lead_exemption", Param::Str("none".into()))],
        );
        assert!(g
            .illegal_reason(parse_card("LB").unwrap() as Action)
            .unwrap()
            .contains("trumps may not be led"));
    }

    #[test]
    fn first_leader_and_board_levels() {
        let g = after_bids(&["bid board", "bid board", "bid 1", "bid board"], &[]);
        assert_eq!(g.to_act, 3);
        assert_eq!((g.board_level(0), g.board_level(1)), (1, 3));
        let g = after_bids(
            &["bid board", "bid board", "bid 1", "bid board"],
            &[("board_lead", Param::Str("first".into()))],
        );
        assert_eq!(g.to_act, 0);
        let g = after_bids(
            &["bid board", "bid pass", "bid pass", "bid board"],
            &[("board_multiplier_scope", Param::Str("hand".into()))],
        );
        assert_eq!((g.board_level(0), g.board_level(1)), (2, 2));
        let g = after_bids(&["bid 1", "bid 2", "bid 2", "bid pass"], &[]);
        assert_eq!(g.to_act, 1);
    }

    #[test]
    fn deal_points_follow_section_7() {
        let g = after_bids(&["bid 1", "bid 2", "bid 1", "bid pass"], &[]);
        assert_eq!(
            (
                g.deal_points(0, 3),
                g.deal_points(0, 1),
                g.deal_points(1, 2)
            ),
            (11, -10, 10)
        );
        let g = after_bids(
            &["bid board", "bid board", "bid board", "bid board"],
            &[("board_multiplier", Param::Str("doubling".into()))],
        );
        // Team 0 holds levels 1 and 3, team 1 levels 2 and 4: x4 and x8.
        assert_eq!((g.deal_points(0, 3), g.deal_points(1, 2)), (120, -240));
    }

    #[test]
    fn random_games_end_and_keep_json_round_trips() {
        for seed in 0..3 {
            let p = params(&[]);
            let mut g = BackAlley::new(p.clone(), seed, None).unwrap();
            let mut rng = SplitMix64::new(seed + 100);
            let mut buf = Vec::new();
            let mut steps = 0;
            while !g.is_terminal() {
                buf.clear();
                g.legal_actions(&mut buf);
                g.apply_unchecked(buf[rng.bounded(buf.len() as u64) as usize]);
                steps += 1;
                if steps % 97 == 0 {
                    let back = BackAlley::from_json(p.clone(), &g.to_json()).unwrap();
                    assert_eq!(back.to_json(), g.to_json());
                }
                assert!(steps <= 1700);
            }
            let back = BackAlley::from_json(p, &g.to_json()).unwrap();
            assert_eq!(back.to_json(), g.to_json());
            let placements = g.placements().unwrap();
            assert_eq!(placements[0], placements[2]);
        }
    }

    /// States along games of `p`, heuristic and random moves mixed.
    fn walk(p: &Params, seed: u64, steps: usize) -> Vec<BackAlley> {
        let mut g = BackAlley::new(p.clone(), seed, None).unwrap();
        let mut rng = SplitMix64::new(seed ^ 77);
        let mut buf = Vec::new();
        let mut out = vec![g.clone()];
        for step in 0..steps {
            if g.is_terminal() {
                break;
            }
            let a = if step % 3 == 0 {
                g.random_action(&mut rng, &mut buf)
            } else {
                g.heuristic_action(&mut rng, &mut buf)
            };
            g.apply_unchecked(a);
            out.push(g.clone());
        }
        out
    }

    /// Replays this deal from hands rebuilt as now plus what each seat played:
    /// true if every bid and play was legal with those holdings.
    fn deal_replays_legally(r: &BackAlley) -> bool {
        let played = r.played_this_deal();
        let mut g = r.clone();
        g.hands = [0, 1, 2, 3].map(|s| r.hands[s] | played[s]);
        g.open_bidding();
        g.history.truncate(r.deal_start);
        r.history[r.deal_start..].iter().all(|&a| {
            let ok = g.illegal_reason(a).is_none();
            g.apply_unchecked(a);
            ok
        })
    }

    fn variety() -> Vec<Params> {
        vec![
            params(&[]),
            params(&[("joker_upcard", Param::Str("turn_next".into()))]),
            params(&[
                ("big_blooper_binds_partner", Param::Bool(false)),
                ("board_trump_lead_exemption", Param::Str("team".into())),
                ("joker_exchange_draw", Param::Str("bottom".into())),
            ]),
            params(&[("schedule", Param::Str("1-13-1".into()))]),
        ]
    }

    #[test]
    fn resample_keeps_the_seats_view_and_conserves_cards() {
        let mut rng = SplitMix64::new(1);
        for (k, p) in variety().iter().enumerate() {
            for g in walk(p, k as u64, 400).iter().step_by(3) {
                for seat in 0..PLAYERS {
                    let a = g.resample(seat, &mut rng).unwrap();
                    let b = g.resample(seat, &mut rng).unwrap();
                    assert_eq!(a.observation(seat), g.observation(seat));
                    assert_eq!(a.hands.map(u64::count_ones), g.hands.map(u64::count_ones));
                    assert_eq!(a.stock_len, g.stock_len);
                    // from_json checks that every card is in exactly one place.
                    let back = BackAlley::from_json(p.clone(), &a.to_json()).unwrap();
                    assert_eq!(back.to_json(), a.to_json());
                    if g.current_player() == Some(seat) {
                        assert_eq!(legal(&a), legal(g));
                    }
                    assert_ne!(a.to_json(), b.to_json());
                }
            }
        }
    }

    #[test]
    fn resample_honours_every_void_shown_this_deal() {
        let mut rng = SplitMix64::new(2);
        let mut checked = 0;
        for (k, p) in variety().iter().enumerate() {
            for seed in 0..3 {
                for g in walk(p, 10 * k as u64 + seed, 700) {
                    if g.phase != Phase::Play {
                        continue;
                    }
                    assert!(deal_replays_legally(&g));
                    for seat in 0..PLAYERS {
                        let r = g.resample(seat, &mut rng).unwrap();
                        assert!(deal_replays_legally(&r), "seat {seat}: {}", r.to_json());
                        let absent = g.shown_absent();
                        assert!(r.hands.iter().zip(absent).all(|(h, a)| h & a == 0));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn a_void_moves_the_suit_to_the_other_hidden_seats() {
        // Trump H, dealer S3: S0 leads 2C, S1 (void in clubs) discards 2D.
        let p = params(&[
            ("schedule", Param::List(vec![Param::Int(3)])),
            ("first_dealer", Param::Int(3)),
        ]);
        let d = deck(&[
            "2C", "2D", "3C", "KS", "4C", "3D", "5C", "QS", "6C", "4D", "7C", "JS", "3H",
        ]);
        let mut g = BackAlley::new(p, 0, Some(&d)).unwrap();
        for a in ["bid 1", "bid 1", "bid 1", "bid pass", "play 2C", "play 2D"] {
            g.apply_checked(a).unwrap();
        }
        let clubs = suit_mask(0);
        assert_eq!(g.shown_absent()[1], clubs);
        let mut rng = SplitMix64::new(3);
        let mut seen = [0u64; PLAYERS];
        for _ in 0..300 {
            let r = g.resample(0, &mut rng).unwrap();
            assert_eq!(r.hands[1] & clubs, 0);
            seen.iter_mut().zip(r.hands).for_each(|(s, h)| *s |= h);
        }
        assert_ne!(seen[2] & clubs, 0);
        assert_ne!(seen[3] & clubs, 0);
        assert_eq!(seen[0], g.hands[0]);
    }

    #[test]
    fn blooper_leads_and_trump_leads_show_what_is_missing() {
        let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
        let c = |t: &str| parse_card(t).unwrap();
        assert_eq!(
            g.trumps_above(c("10H")),
            JOKERS | codes(&["JH", "QH", "KH", "AH"])
        );
        assert_eq!(g.trumps_above(c("LB")), codes(&["BB"]));
        assert_eq!(g.trumps_below(c("LB")), suit_mask(2));
        assert_eq!(g.trumps_below(c("4H")), codes(&["2H", "3H"]));
    }

    #[test]
    fn states_sampled_from_an_observation_show_it() {
        let mut rng = SplitMix64::new(4);
        for (k, p) in variety().iter().enumerate() {
            let template = BackAlley::new(p.clone(), 0, None).unwrap();
            for g in walk(p, 20 + k as u64, 400).iter().step_by(5) {
                for seat in 0..PLAYERS {
                    let obs = g.observation(seat);
                    let a = template.sample_from_observation(&obs, &mut rng).unwrap();
                    let b = template.sample_from_observation(&obs, &mut rng).unwrap();
                    assert_eq!(a.observation(seat), obs);
                    assert_ne!(a.to_json(), b.to_json());
                    if g.phase == Phase::Play {
                        assert!(deal_replays_legally(&a));
                    }
                    if g.current_player() == Some(seat) {
                        assert_eq!(legal(&a), legal(g));
                    }
                }
            }
        }
    }

    #[test]
    fn rollouts_stop_when_the_deal_ends() {
        let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
        assert_eq!(g.rollout_value(0, &g), None);
        let mut end = g.clone();
        let mut rng = SplitMix64::new(5);
        let mut buf = Vec::new();
        while end.rollout_value(0, &g).is_none() {
            let a = end.heuristic_action(&mut rng, &mut buf);
            end.apply_unchecked(a);
        }
        let v0 = end.rollout_value(0, &g).unwrap();
        assert_eq!(end.rollout_value(1, &g), Some(-v0));
        // The one-deal schedule ends the game: the win dominates.
        assert!(v0.abs() >= GAME_WIN_VALUE || end.team_scores[0] == end.team_scores[1]);
    }
}
