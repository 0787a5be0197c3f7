//! Twenty-Two (22), as specified in `shared/rules/twenty_two.md`.
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

use crate::cards::{bits, check_deck};
use crate::game::{competition_placements, pick, Action, Error, Rules};
use crate::json::{self, ensure};
use crate::params::{check_players, Param, ParamReader};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

/// Most seats at a table (TT-20).
pub const MAX_PLAYERS: usize = 6;
/// Most completed non-final tricks in a hand: a hand has at most 11 cards and
/// the final trick needs one.
const MAX_TRICKS: usize = 10;
const NONE: u8 = u8::MAX;
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

fn set_value(set: u64) -> i64 {
    bits(set as u128).map(|c| rank_value(rank(c)) as i64).sum()
}

/// The card at position `i` of the canonical order (suits C, D, H, S; 2 .. A).
#[inline]
fn canonical_card(i: usize) -> u8 {
    ((i % 13) * 4 + i / 13) as u8
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

/// `last_trick_tie` (TT-14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tie {
    /// Every seat that played the highest rank scores.
    AllTiedScore,
    /// Only the last of them.
    LastPlayedWins,
    /// Only the first of them.
    FirstPlayedWins,
}

/// The variant keys of §8, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Seats at the table (2..=6); not a variant key, but fixed with them.
    pub players: usize,
    /// `first_dealer`: a seat, or `None` for `"random"`.
    pub first_dealer: Option<u8>,
    /// `first_hand_size`, 2..=8.
    pub first_hand_size: u8,
    /// `elimination_score`, 2..=30.
    pub elimination_score: i64,
    /// `follow_rule = "lowest_only_if_cannot_beat"` (else free choice).
    pub lowest_only_if_cannot_beat: bool,
    /// `last_trick_tie`.
    pub tie: Tie,
    /// `tied_dealer = "first"` (else the last tied seat deals).
    pub tied_dealer_first: bool,
}

const FOLLOW: [&str; 2] = ["free_choice", "lowest_only_if_cannot_beat"];
const TIES: [&str; 3] = ["all_tied_score", "last_played_wins", "first_played_wins"];
const TIED_DEALER: [&str; 2] = ["last", "first"];

impl Params {
    /// Checks the player count and the variant keys (CONVENTIONS "Configuration").
    pub fn parse(players: i64, mut given: Vec<(String, Param)>) -> Result<Self, Error> {
        let players = check_players(players, 2, MAX_PLAYERS as i64)?;
        // `first_dealer` is a seat or "random"; the reader only knows one type per key.
        let random = given
            .iter()
            .position(|(k, v)| k == "first_dealer" && *v == Param::Str("random".into()));
        if let Some(i) = random {
            given.remove(i);
        }
        let bad_dealer = given
            .iter()
            .find(|(k, v)| k == "first_dealer" && !matches!(v, Param::Int(_)));
        if let Some((_, v)) = bad_dealer {
            let got = match v {
                Param::Bool(b) => format!("the boolean {b}"),
                Param::Str(s) => format!("the string {s:?}"),
                Param::None => "none".into(),
                Param::Int(i) => format!("the integer {i}"),
                Param::List(items) => format!("a list of {} items", items.len()),
                Param::Other(d) => d.clone(),
            };
            return Err(Error::InvalidParams {
                key: "first_dealer".into(),
                message: format!(
                    "must be a seat from 0 to {} or \"random\", got {got}",
                    players - 1
                ),
            });
        }
        let mut r = ParamReader::new(given);
        let seat = r.int("first_dealer", 0, 0, players as i64 - 1)? as u8;
        let params = Params {
            players,
            first_dealer: if random.is_some() { None } else { Some(seat) },
            first_hand_size: r.int("first_hand_size", 7, 2, 8)? as u8,
            elimination_score: r.int("elimination_score", 22, 2, 30)?,
            lowest_only_if_cannot_beat: r.choice("follow_rule", &FOLLOW)? == 1,
            tie: [Tie::AllTiedScore, Tie::LastPlayedWins, Tie::FirstPlayedWins]
                [r.choice("last_trick_tie", &TIES)?],
            tied_dealer_first: r.choice("tied_dealer", &TIED_DEALER)? == 1,
        };
        r.finish()?;
        if params.tied_dealer_first && params.tie != Tie::AllTiedScore {
            return Err(Error::InvalidParams {
                key: "tied_dealer".into(),
                message: "\"first\" is allowed only with last_trick_tie = \"all_tied_score\""
                    .into(),
            });
        }
        Ok(params)
    }

    /// The effective variant values, every key present.
    pub fn to_json(&self) -> Value {
        json!({
            "first_dealer": match self.first_dealer { Some(s) => json!(s), None => json!("random") },
            "first_hand_size": self.first_hand_size,
            "elimination_score": self.elimination_score,
            "follow_rule": FOLLOW[self.lowest_only_if_cannot_beat as usize],
            "last_trick_tie": TIES[self.tie as usize],
            "tied_dealer": TIED_DEALER[self.tied_dealer_first as usize],
        })
    }
}

// ---------------------------------------------------------------------------
// §5 helpers: comparing sets
// ---------------------------------------------------------------------------

/// TT-7: both sorted by rank, every card of `set` is at least its counterpart.
#[inline]
fn beats_or_equals(set: u64, bar: u64) -> bool {
    set.count_ones() == bar.count_ones()
        && bits(set as u128)
            .zip(bits(bar as u128))
            .all(|(a, b)| rank(a) >= rank(b))
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

/// Calls `f` with every `j`-card subset of `cards` (ascending), in lexicographic order.
fn for_each_subset(cards: &[u8], j: usize, mut f: impl FnMut(u64)) {
    if j <= cards.len() {
        subsets_from(cards, j, 0, &mut f);
    }
}

/// Every way to add `j` cards of `cards` to `chosen`, in order:
/// the smallest next card first, which is lexicographic order; O(1) per subset.
fn subsets_from(cards: &[u8], j: usize, chosen: u64, f: &mut impl FnMut(u64)) {
    if j == 0 {
        f(chosen);
        return;
    }
    for i in 0..=cards.len() - j {
        subsets_from(&cards[i + 1..], j - 1, chosen | 1 << cards[i], f);
    }
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
            stock_top: 0,
            stock_len: 0,
            phase: Phase::Discard,
            to_act: 0,
            trick: Trick::new(0),
            tricks: Vec::with_capacity(MAX_TRICKS),
            last_trick: None,
            history: Vec::with_capacity(256),
        };
        game.dealer = match params.first_dealer {
            Some(seat) => seat,
            None => game.rng.bounded(params.players as u64) as u8,
        };
        let mut cards = [0u8; 52];
        match deck {
            Some(given) => {
                let order = check_deck(given, &canonical_deck())?;
                for (slot, &i) in cards.iter_mut().zip(&order) {
                    *slot = canonical_card(i);
                }
                game.deal(&cards);
            }
            None => {
                let len = game.shuffled_pool(&mut cards);
                game.deal(&cards[..len]);
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

    /// The first active seat after `seat`, clockwise.
    fn next_active(&self, seat: u8) -> u8 {
        let n = self.n() as u8;
        (1..=n)
            .map(|i| (seat + i) % n)
            .find(|&s| self.is_active(s))
            .unwrap_or(seat)
    }

    /// TT-3: every card not in a score pile, canonical order, into `out`; returns the count.
    fn pool(&self, out: &mut [u8; 52]) -> usize {
        let kept = self.piles.iter().fold(0u64, |a, &p| a | p);
        let mut len = 0;
        for i in 0..52 {
            let card = canonical_card(i);
            if kept >> card & 1 == 0 {
                out[len] = card;
                len += 1;
            }
        }
        len
    }

    fn shuffled_pool(&mut self, out: &mut [u8; 52]) -> usize {
        let len = self.pool(out);
        self.rng.shuffle(&mut out[..len]);
        len
    }

    /// §4 steps 1–5: `deal_size` each, one at a time from the dealer's left,
    /// skipping inactive seats; the rest is the stock.
    fn deal(&mut self, deck: &[u8]) {
        let p = self.active_count() as usize;
        self.deal_size = (self.target_size as usize).min(deck.len() / p) as u8;
        self.hands = [0; MAX_PLAYERS];
        let first = self.next_active(self.dealer);
        let mut seat = first;
        let dealt = self.deal_size as usize * p;
        for &card in &deck[..dealt] {
            self.hands[seat as usize] |= 1 << card;
            seat = self.next_active(seat);
        }
        let rest = &deck[dealt..];
        self.stock[..rest.len()].copy_from_slice(rest);
        self.stock_top = 0;
        self.stock_len = rest.len() as u8;
        self.discards = [0; MAX_PLAYERS];
        self.tricks.clear();
        self.phase = Phase::Discard;
        self.to_act = first;
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
        let (cards, n) = card_list(hand);
        let most = (n as u32).min(self.stock_size()) as usize;
        for j in 0..=most {
            for_each_subset(&cards[..n], j, |set| out.push(DISCARD | set));
        }
    }

    /// §5.2 leading: 1..=h-1 cards of one rank (TT-6); by rank, size, suits.
    fn lead_options(&self, out: &mut Vec<Action>) {
        let hand = self.hands[self.to_act as usize];
        let most = hand.count_ones() as usize - 1;
        for r in 0..13u32 {
            let (cards, n) = card_list(hand & 0xF << (4 * r));
            for size in 1..=n.min(most) {
                for_each_subset(&cards[..n], size, |set| out.push(PLAY | set));
            }
        }
    }

    /// §5.2 following: k cards meeting the bar, or a lowest set (TT-11).
    fn follow_options(&self, out: &mut Vec<Action>) {
        let hand = self.hands[self.to_act as usize];
        let bar = self.trick.bar;
        let k = bar.count_ones() as usize;
        let (cards, n) = card_list(hand);
        let must_beat =
            self.params.lowest_only_if_cannot_beat && beats_or_equals(highest(hand, k as u32), bar);
        let lowest_ok = !must_beat;
        for_each_subset(&cards[..n], k, |set| {
            if beats_or_equals(set, bar) || (lowest_ok && is_lowest_set(set, hand)) {
                out.push(PLAY | set);
            }
        });
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
        if self.params.lowest_only_if_cannot_beat
            && !beats
            && beats_or_equals(highest(hand, k), bar)
        {
            return Some("it can beat or equal the best set, so it must".into());
        }
        (!beats && !lowest)
            .then(|| "the set neither beats or equals the best set nor is its lowest set".into())
    }

    // -----------------------------------------------------------------------
    // §6 Effects
    // -----------------------------------------------------------------------

    /// §5.1: the cards go face down to the discards; draw as many from the top.
    fn discard(&mut self, set: u64) {
        let seat = self.to_act;
        let j = set.count_ones() as u8;
        let drawn = self.stock[self.stock_top as usize..(self.stock_top + j) as usize]
            .iter()
            .fold(0u64, |a, &c| a | 1 << c);
        self.stock_top += j;
        let s = seat as usize;
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
    fn play_cards(&mut self, set: u64) {
        let seat = self.to_act;
        self.hands[seat as usize] &= !set;
        let t = &mut self.trick;
        if t.len == 0 || beats_or_equals(set, t.bar) {
            t.bar = set;
            t.bar_holder = seat;
        }
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
    fn end_trick(&mut self) {
        let winner = self.trick.bar_holder;
        self.tricks.push(self.trick);
        self.start_trick(winner);
    }

    /// §6.3: the highest rank of the final trick scores (TT-14, TT-15, TT-1).
    fn score_final_trick(&mut self) {
        let t = self.trick;
        let plays = t.len as usize;
        let top = (0..plays)
            .map(|i| rank(t.sets[i].trailing_zeros()))
            .max()
            .unwrap_or(0);
        let tied = |i: &usize| rank(t.sets[*i].trailing_zeros()) == top;
        let first = (0..plays).find(tied).unwrap_or(0);
        let last = (0..plays).rev().find(tied).unwrap_or(0);
        let (scorers, next_dealer) = match self.params.tie {
            Tie::AllTiedScore => {
                let all = (0..plays)
                    .filter(tied)
                    .fold(0u8, |m, i| m | 1 << t.seats[i]);
                (
                    all,
                    t.seats[if self.params.tied_dealer_first {
                        first
                    } else {
                        last
                    }],
                )
            }
            Tie::LastPlayedWins => (1 << t.seats[last], t.seats[last]),
            Tie::FirstPlayedWins => (1 << t.seats[first], t.seats[first]),
        };
        for i in 0..plays {
            if scorers >> t.seats[i] & 1 == 1 {
                self.piles[t.seats[i] as usize] |= t.sets[i];
            }
        }
        self.target_size = rank_value(top) as u8;
        self.last_trick = Some((t, scorers));
        self.eliminate();
        self.end_hand(next_dealer);
    }

    /// §6.5: reaching `elimination_score` puts a seat out (TT-16).
    fn eliminate(&mut self) {
        for s in 0..self.n() {
            if self.is_active(s as u8) && set_value(self.piles[s]) >= self.params.elimination_score
            {
                self.active &= !(1 << s);
                self.out_hand[s] = self.hand_number;
            }
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
            self.deal(&cards[..len]);
            return;
        }
        self.phase = Phase::GameOver;
        self.to_act = NONE;
        self.tricks.clear();
        self.hands = [0; MAX_PLAYERS];
        self.discards = [0; MAX_PLAYERS];
        let len = self.pool(&mut cards); // every card back together, canonical order
        self.stock = cards;
        self.stock_top = 0;
        self.stock_len = len as u8;
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

impl Rules for TwentyTwo {
    const ID: &'static str = "twenty_two";

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
        let most = hand.count_ones().min(self.stock_size());
        (set.count_ones() > most).then(|| {
            format!("it may discard at most {most} cards (its hand and the stock limit it)")
        })
    }

    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        if action & PLAY != 0 {
            self.play_cards(action & CARDS);
        } else {
            self.discard(action & CARDS);
        }
    }

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

    fn scores(&self) -> Vec<i64> {
        (0..self.n()).map(|s| set_value(self.piles[s])).collect()
    }

    fn placements(&self) -> Option<Vec<u32>> {
        (self.phase == Phase::GameOver)
            .then(|| competition_placements(self.n(), |a, b| self.standing(a) < self.standing(b)))
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::ID));
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
        m.insert("game".into(), json!(Self::ID));
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

    fn history(&self) -> &[Action] {
        &self.history
    }

    /// Fast path for the discard phase, whose legal list holds every subset of
    /// up to `min(hand, stock)` cards: a uniform draw without listing them
    /// (pick the size weighted by its number of subsets, then the cards).
    fn random_action(&self, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        if self.phase != Phase::Discard {
            buf.clear();
            self.legal_actions(buf);
            return buf[pick(rng, buf.len())];
        }
        let hand = self.hands[self.to_act as usize];
        let (mut cards, n) = card_list(hand);
        let most = (n as u32).min(self.stock_size()) as usize;
        let choose = |j: usize| (0..j).fold(1u64, |c, i| c * (n - i) as u64 / (i as u64 + 1));
        let total: u64 = (0..=most).map(choose).sum();
        let mut r = pick(rng, total as usize) as u64;
        let mut size = 0;
        while r >= choose(size) {
            r -= choose(size);
            size += 1;
        }
        let mut set = 0u64;
        for i in 0..size {
            let j = i + pick(rng, n - i);
            cards.swap(i, j);
            set |= 1 << cards[i];
        }
        DISCARD | set
    }

    const HAS_HEURISTIC: bool = true;

    /// The strategy of `cardref.bots.heuristic.twenty_two`: discard the high
    /// cards (jack and up, highest first) while the stock lasts; play the legal
    /// set that leaves the lowest hand (ranks left, highest first, compared
    /// lexicographically; the first such set in legal order).
    fn heuristic_action(&self, _rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        let hand = self.hands[self.to_act as usize];
        if self.phase == Phase::Discard {
            let most = (hand.count_ones()).min(self.stock_size()) as usize;
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
    /// Loads a state written by `to_json` (either engine), checking it.
    pub fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::ID, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = TwentyTwo::new(
            Params {
                first_dealer: Some(0),
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
        Params::parse(
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
        let mut seen = Vec::new();
        for_each_subset(&[1, 4, 7, 9], 2, |s| seen.push(s));
        let expect: Vec<u64> = [(1, 4), (1, 7), (1, 9), (4, 7), (4, 9), (7, 9)]
            .iter()
            .map(|(a, b)| (1 << a) | (1 << b))
            .collect();
        assert_eq!(seen, expect);
        let mut count = 0;
        for_each_subset(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0, |s| {
            assert_eq!(s, 0);
            count += 1;
        });
        assert_eq!(count, 1);
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
        assert_eq!(random.first_dealer, None);
        assert_eq!(random.to_json()["first_dealer"], json!("random"));
    }

    #[test]
    fn explicit_deck_is_dealt_from_the_dealers_left_without_the_generator() {
        let p = params(3, &[("first_dealer", Param::Int(2))]).unwrap();
        let g = TwentyTwo::new(p, 5, Some(&canonical_deck())).unwrap();
        assert_eq!(g.rng.state, 5);
        assert_eq!(g.hands[0], set(&["2C", "5C", "8C", "JC", "AC", "4D", "7D"]));
        assert_eq!((g.stock_size(), g.to_act, g.deal_size), (31, 0, 7));
        assert_eq!(card_text(g.stock[0] as u32), "10D"); // deck card 21
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
}
