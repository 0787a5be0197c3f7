//! Take 5 (6 nimmt!), as specified in `docs/rules/take5.md`.
//!
//! 104 cards carry 1–7 bullheads. Each turn every seat commits a card face down
//! (asked in seat order, T5-8); the cards are revealed and placed lowest first on
//! the row whose last card is the highest below them. A sixth card takes the
//! row; a card lower than every row end lets its owner take any row (T5-6).
//! After ten turns the heads taken are scored; the game ends after the round in
//! which someone reaches `end_score` (T5-1, T5-2) and the lowest total wins (T5-3).
//!
//! Representation: hands, piles, rows and unused cards are 128-bit sets (bit c
//! = card c; a row always ascends, so its set read lowest first is the row in
//! order), and actions are codes: `play c` = c, `take r` = 128 + r.

use crate::cards::{bits, check_deck, nth_bit, push_bits};
use crate::game::{
    competition_placements, parse_canonical_uint, pick, random_step, Action, Error, Game,
    GameSpec, NativeBots, Outcome, Rules, Search, StateJson,
};
use crate::json::{self, ensure};
use crate::params::{choice_key, variant_keys, Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};
use std::hint::select_unpredictable;

/// Most seats at a table.
pub const MAX_PLAYERS: usize = 10;
const TAKE: Action = 128;
const ROWS: usize = 4;
const TURNS: u8 = 10;

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

/// The set of cards `1..=top`.
const fn cards_in_play(top: usize) -> u128 {
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
fn bit(c: u8) -> u128 {
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
fn set_heads(set: u128) -> i64 {
    (0..3)
        .map(|k| i64::from((set & HEAD_PLANES[k]).count_ones()) << k)
        .sum()
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
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Seats commit a card each, in seat order.
    Commit,
    /// The owner of a too-low card picks the row it takes.
    ChooseRow,
    /// Someone reached the end score (or the round limit was hit).
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Commit => "commit",
            Phase::ChooseRow => "choose_row",
            Phase::GameOver => "game_over",
        }
    }
}

/// A Take 5 game in progress.
#[derive(Debug, Clone)]
pub struct Take5 {
    params: Params,
    rng: SplitMix64,
    round: u32,
    turn: u8,
    phase: Phase,
    to_act: u8,
    /// Each row's cards (§6.1 only ever appends a higher card); a row's
    /// length is its count of cards, so no separate length is kept in step.
    rows: [u128; ROWS],
    /// Each row's last, highest card, row r in byte r: what `target_row`
    /// compares against, packed so that a turn's placements keep it in a
    /// register (each placement's row depends on the ends the last one left).
    row_ends: u32,
    hands: [u128; MAX_PLAYERS],
    committed: [u8; MAX_PLAYERS],
    revealed: [(u8, u8); MAX_PLAYERS],
    next_to_place: u8,
    piles: [u128; MAX_PLAYERS],
    unused: u128,
    scores: [i64; MAX_PLAYERS],
    round_scores: Vec<[i64; MAX_PLAYERS]>,
    history: Vec<Action>,
    round_start: usize,
}

// ---------------------------------------------------------------------------
// §4 Setup and deal
// ---------------------------------------------------------------------------

impl Take5 {
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
                let (cards, len) = game.shuffle_new_deck();
                game.deal(&cards[..len]);
            }
        }
        Ok(game)
    }

    /// Round 1 before the deal, keeping the given (empty) lists' allocations.
    fn undealt(
        params: Params,
        seed: u64,
        round_scores: Vec<[i64; MAX_PLAYERS]>,
        history: Vec<Action>,
    ) -> Self {
        Take5 {
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

    fn n(&self) -> usize {
        self.params.players
    }

    /// The cards in play, canonical order, shuffled by the generator (§2, §4.1).
    fn shuffle_new_deck(&mut self) -> ([u8; 104], usize) {
        let top = self.params.highest_card() as usize;
        let mut cards = [0u8; 104];
        for (i, c) in cards[..top].iter_mut().enumerate() {
            *c = i as u8 + 1;
        }
        self.rng.shuffle(&mut cards[..top]);
        (cards, top)
    }

    /// §4.2–4.5: ten cards each round-robin from seat 0, then rows 0..3, rest unused.
    fn deal(&mut self, deck: &[u8]) {
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

    /// Row `r` becomes the one card `c`.
    fn start_row(&mut self, r: usize, c: u8) {
        self.rows[r] = bit(c);
        self.row_ends = Self::with_end(self.row_ends, r, c);
    }

    fn row_end(&self, r: usize) -> u8 {
        (self.row_ends >> (8 * r)) as u8
    }

    fn row_heads(&self, r: usize) -> u32 {
        set_heads(self.rows[r]) as u32
    }

    // -----------------------------------------------------------------------
    // §5 Turn structure: commit, reveal, place
    // -----------------------------------------------------------------------

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

    /// Seat `s` puts `card` from its hand face down.
    #[inline(always)]
    fn lay_down(&mut self, s: usize, card: u8) {
        self.hands[s] &= !bit(card);
        self.committed[s] = card;
    }

    /// All commitments become public, sorted by card. Cards are distinct, so
    /// each card's place in the order is the number of committed cards below
    /// it: counted, not compared, so no branch depends on the cards.
    fn reveal(&mut self) {
        let n = self.n();
        self.reveal_set(self.committed[..n].iter().fold(0, |set, &c| set | bit(c)));
    }

    /// `reveal`, given the set of the committed cards.
    #[inline(always)]
    fn reveal_set(&mut self, set: u128) {
        let n = self.n();
        for s in 0..n {
            let c = self.committed[s];
            let place = (set & (bit(c) - 1)).count_ones() as usize;
            self.revealed[place] = (c, s as u8);
            self.committed[s] = 0;
        }
        self.next_to_place = 0;
    }

    /// Places revealed cards lowest first until a row choice is needed or the
    /// turn ends. The row ends stay in a local: each card's row depends on the
    /// ends the card before left. Inlined into the playout loop (once per
    /// turn, a call would save and restore six registers for four cards).
    #[inline(always)]
    fn place_revealed(&mut self) {
        let n = self.n();
        let mut ends = self.row_ends;
        for i in self.next_to_place as usize..n {
            let (card, seat) = self.revealed[i];
            let r = match Self::target_row(ends, card) {
                Some(r) => {
                    self.place_on(r, card, seat as usize);
                    r
                }
                None if self.params.too_low_choice == TooLowChoice::AutoFewestHeads => self.take_fewest_heads_row(card, seat as usize),
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

    fn choose_row(&mut self, r: usize) {
        let (card, seat) = self.revealed[self.next_to_place as usize];
        self.take_row(r, card, seat as usize);
        self.row_ends = Self::with_end(self.row_ends, r, card);
        self.next_to_place += 1;
        self.phase = Phase::Commit;
        self.place_revealed();
    }

    fn finish_turn(&mut self) {
        self.turn += 1;
        if self.turn < TURNS {
            self.phase = Phase::Commit;
            self.to_act = 0;
        } else {
            self.end_round();
        }
    }

    // -----------------------------------------------------------------------
    // §6 Effects of placing a card
    // -----------------------------------------------------------------------

    /// §6.1/6.3: the eligible row whose last card is the highest below `card`,
    /// given each row's last card in `ends` (row r in byte r). Each row is keyed
    /// `end * 4 + row`, or 0 if its end is not below the card (ends are at least
    /// 1), so one maximum finds it. The selects are marked unpredictable so they
    /// compile to conditional moves: a random card would mispredict a branch.
    fn target_row(ends: u32, card: u8) -> Option<usize> {
        let key = |r: usize| {
            let end = (ends >> (8 * r)) as u8 as usize;
            select_unpredictable(end < card as usize, end << 2 | r, 0)
        };
        let max = |a: usize, b: usize| select_unpredictable(a > b, a, b);
        let best = max(max(key(0), key(1)), max(key(2), key(3)));
        (best != 0).then_some(best & 3)
    }

    /// `ends` with row `r`'s last card now `c`.
    fn with_end(ends: u32, r: usize, c: u8) -> u32 {
        let shift = 8 * r;
        ends & !(0xFF << shift) | u32::from(c) << shift
    }

    /// Variant `auto_fewest_heads`: the row with the fewest heads, lowest index on ties.
    fn fewest_heads_row(&self) -> usize {
        (0..ROWS)
            .min_by_key(|&r| (self.row_heads(r), r))
            .unwrap_or(0)
    }

    /// §6.3: append, or take a full row as the sixth card (the caller moves
    /// the row's end). Written with a mask instead of a branch: whether the
    /// row is full is a coin toss.
    fn place_on(&mut self, r: usize, card: u8, seat: usize) {
        let row = self.rows[r];
        let taken = 0u128.wrapping_sub(u128::from(row.count_ones() == 5));
        self.piles[seat] |= row & taken;
        self.rows[r] = (row & !taken) | bit(card);
    }

    /// Variant `auto_fewest_heads`: a too-low card takes the cheapest row;
    /// returns the row. Out of line: the variant is off by default, and its
    /// bit-plane counts would crowd the placement loop's registers.
    #[inline(never)]
    fn take_fewest_heads_row(&mut self, card: u8, seat: usize) -> usize {
        let r = self.fewest_heads_row();
        self.take_row(r, card, seat);
        r
    }

    /// §6.2: the row's cards go to the seat's pile and the card starts the
    /// row (the caller moves the row's end).
    fn take_row(&mut self, r: usize, card: u8, seat: usize) {
        self.piles[seat] |= self.rows[r];
        self.rows[r] = bit(card);
    }

    // -----------------------------------------------------------------------
    // §7 Round end, scoring, game end
    // -----------------------------------------------------------------------

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
        if self.game_ends() {
            self.phase = Phase::GameOver;
        } else {
            self.round += 1;
            let (cards, len) = self.shuffle_new_deck();
            self.deal(&cards[..len]);
        }
    }

    fn game_ends(&self) -> bool {
        let limit = self.params.end_score;
        let reached = self.scores[..self.n()].iter().any(|&s| {
            match self.params.end_rule {
                EndRule::AtLeast => s >= limit,
                EndRule::MoreThan => s > limit,
            }
        });
        reached || self.params.round_limit == Some(self.round as i64)
    }

    // -----------------------------------------------------------------------
    // The random bots of a batch (`Rules::random_steps`)
    // -----------------------------------------------------------------------

    /// The random bots' plays for the rest of the round: each seat's hand in a
    /// uniformly random order, seat s's card for turn t at `plan[10 s + t]`.
    /// The cards are dealt into the order lowest first, the i-th to a random
    /// place among the first i + 1 (Fisher–Yates, inside out). One draw orders
    /// a hand of m cards: the places are its digits in the mixed radix 1, 2,
    /// ..., m (each the high half of a 128-bit product, the low half going on
    /// to the next), uniform up to a bias below m!/2^64 < 2^-42. Leaves the
    /// plan empty if a hand does not hold one card per turn left (a state
    /// loaded from JSON need not).
    #[inline(never)]
    fn plan_random_plays(&self, rng: &mut SplitMix64, plan: &mut Vec<Action>) {
        let (n, turns, turn) = (self.n(), TURNS as usize, self.turn as usize);
        if self.hands[..n]
            .iter()
            .any(|h| h.count_ones() as usize != turns - turn)
        {
            plan.clear();
            return;
        }
        // Entries before `turn` are never read, so old ones can stay.
        plan.resize(n * turns, 0);
        for (order, &hand) in plan.chunks_exact_mut(turns).zip(&self.hands) {
            let order = &mut order[turn..];
            let mut x = rng.next_u64();
            let mut i = 0;
            for (half, base) in [(hand as u64, 0), ((hand >> 64) as u64, 64)] {
                let mut rest = half;
                while rest != 0 {
                    let wide = u128::from(x) * (i as u128 + 1);
                    let j = (wide >> 64) as usize;
                    x = wide as u64;
                    order[i] = order[j];
                    order[j] = base + Action::from(rest.trailing_zeros());
                    rest &= rest - 1;
                    i += 1;
                }
            }
        }
    }

    // -----------------------------------------------------------------------
    // JSON: observation, canonical state, and loading it back
    // -----------------------------------------------------------------------

    fn round_heads(&self) -> Vec<i64> {
        (0..self.n()).map(|s| set_heads(self.piles[s])).collect()
    }

    fn row_codes(&self) -> Vec<Vec<String>> {
        (0..ROWS)
            .map(|r| bits(self.rows[r]).map(|c| c.to_string()).collect())
            .collect()
    }

    fn revealed_json(&self) -> Value {
        if self.phase != Phase::ChooseRow {
            return json!([]);
        }
        Value::Array(
            self.revealed[..self.n()]
                .iter()
                .map(|&(c, s)| json!([c.to_string(), s]))
                .collect(),
        )
    }

    fn texts(actions: &[Action]) -> Vec<String> {
        actions.iter().map(|&a| Self::action_text(a)).collect()
    }

    fn round_scores_json(&self) -> Value {
        Value::Array(
            self.round_scores
                .iter()
                .map(|r| json!(r[..self.n()]))
                .collect(),
        )
    }


    /// The checks `from_json` makes after reading every field.
    fn check_consistency(&mut self, revealed_len: usize) -> Result<(), Error> {
        let n = self.n();
        let mut seen = self.unused;
        let mut count = self.unused.count_ones();
        let mut add = |set: u128| {
            count += set.count_ones();
            seen |= set;
        };
        for s in 0..n {
            add(self.hands[s]);
            add(self.piles[s]);
            if self.committed[s] != 0 {
                add(1 << self.committed[s]);
            }
        }
        for r in 0..ROWS {
            add(self.rows[r]);
        }
        if self.phase == Phase::ChooseRow {
            for &(c, _) in &self.revealed[self.next_to_place as usize..revealed_len] {
                add(1 << c);
            }
        }
        let all = cards_in_play(self.params.highest_card() as usize);
        let game_over = self.phase == Phase::GameOver;
        ensure(
            game_over || (seen == all && count == all.count_ones()),
            || {
                "the cards in hands, commitments, rows, piles and unused are not exactly the cards in play".into()
            },
        )?;
        ensure(
            self.round >= 1 && self.turn <= TURNS && self.round_start <= self.history.len(),
            || "round, turn or round_start out of range".into(),
        )?;
        match self.phase {
            Phase::Commit => {
                let k = self.committed[..n].iter().take_while(|&&c| c != 0).count();
                ensure(
                    self.committed[k..n].iter().all(|&c| c == 0) && k < n && self.turn < TURNS,
                    || "commitments must be made in seat order".into(),
                )?;
                ensure(revealed_len == 0, || {
                    "revealed must be empty while committing".into()
                })?;
                self.to_act = k as u8;
            }
            Phase::ChooseRow => {
                ensure(
                    revealed_len == n && (self.next_to_place as usize) < n,
                    || "bad revealed cards".into(),
                )?;
                self.to_act = self.revealed[self.next_to_place as usize].1;
            }
            Phase::GameOver => self.to_act = 0,
        }
        Ok(())
    }
}

impl Game for Take5 {
    const SPEC: GameSpec = GameSpec {
        id: "take5",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 4,
        teams: &[],
        rule_prefix: "T5",
        heuristic: true,
        search: true,
    };
    type Params = Params;

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        Take5::new(params, seed, deck)
    }
}

impl Rules for Take5 {
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

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl Outcome for Take5 {
    fn scores(&self) -> Vec<i64> {
        self.scores[..self.n()].to_vec()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(self.n(), |a, b| self.scores[a] < self.scores[b])
    }
}

impl StateJson for Take5 {
    fn parse_action(text: &str) -> Option<Action> {
        if let Some(card) = text.strip_prefix("play ") {
            parse_canonical_uint(card)
                .filter(|c| (1..=104).contains(c))
                .map(Action::from)
        } else if let Some(row) = text.strip_prefix("take ") {
            parse_canonical_uint(row)
                .filter(|&r| r < ROWS as u32)
                .map(|r| TAKE + Action::from(r))
        } else {
            None
        }
    }

    fn write_action(action: Action, out: &mut String) {
        use std::fmt::Write;
        let _ = if action >= TAKE {
            write!(out, "take {}", action - TAKE)
        } else {
            write!(out, "play {action}")
        };
    }

    fn observation(&self, seat: usize) -> Value {
        let n = self.n();
        let hidden = if self.phase == Phase::Commit {
            self.to_act as usize
        } else {
            0
        };
        let public = &self.history[self.round_start..self.history.len() - hidden];
        let mine = self.committed.get(seat).copied().unwrap_or(0);
        json!({
            "game": Self::SPEC.id,
            "seat": seat,
            "players": n,
            "params": self.params.to_json(),
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase.name(),
            "to_act": self.current_player(),
            "hand": bits(self.hands.get(seat).copied().unwrap_or(0)).map(|c| c.to_string()).collect::<Vec<_>>(),
            "my_commitment": (mine != 0).then(|| mine.to_string()),
            "committed": self.committed[..n].iter().map(|&c| c != 0).collect::<Vec<_>>(),
            "rows": self.row_codes(),
            "revealed": self.revealed_json(),
            "next_to_place": self.next_to_place,
            "piles": (0..n).map(|s| bits(self.piles[s]).map(|c| c.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "round_heads": self.round_heads(),
            "scores": self.scores(),
            "round_scores": self.round_scores_json(),
            "history": Self::texts(public),
        })
    }

    fn to_json(&self) -> Value {
        let n = self.n();
        let set = |s: u128| bits(s).map(|c| c.to_string()).collect::<Vec<_>>();
        let mut m = Map::new();
        m.insert("game".into(), json!("take5"));
        m.insert("players".into(), json!(n));
        m.insert("params".into(), self.params.to_json());
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("round".into(), json!(self.round));
        m.insert("turn".into(), json!(self.turn));
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert(
            "hands".into(),
            json!((0..n).map(|s| set(self.hands[s])).collect::<Vec<_>>()),
        );
        m.insert(
            "committed".into(),
            json!(self.committed[..n]
                .iter()
                .map(|&c| (c != 0).then(|| c.to_string()))
                .collect::<Vec<_>>()),
        );
        m.insert("rows".into(), json!(self.row_codes()));
        m.insert("unused".into(), json!(set(self.unused)));
        m.insert("revealed".into(), self.revealed_json());
        m.insert("next_to_place".into(), json!(self.next_to_place));
        m.insert(
            "piles".into(),
            json!((0..n).map(|s| set(self.piles[s])).collect::<Vec<_>>()),
        );
        m.insert("scores".into(), json!(self.scores()));
        m.insert("round_scores".into(), self.round_scores_json());
        m.insert("history".into(), json!(Self::texts(&self.history)));
        m.insert("round_start".into(), json!(self.round_start));
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let top = params.highest_card();
        let card = |text: &str| -> Result<u8, Error> {
            match parse_canonical_uint(text) {
                Some(c) if (1..=top).contains(&c) => Ok(c as u8),
                _ => Err(Error::InvalidState {
                    message: format!("{text:?} is not a card in play"),
                }),
            }
        };
        let card_set = |value: &Value, what: &str| -> Result<u128, Error> {
            let mut set = 0u128;
            for text in json::strings(value, what)? {
                set |= 1 << card(text)?;
            }
            Ok(set)
        };
        let per_seat = |key: &str| -> Result<&Vec<Value>, Error> {
            let a = json::array(v, key)?;
            ensure(a.len() == n, || {
                format!("{key:?} must have one entry per seat")
            })?;
            Ok(a)
        };
        let mut g = Take5::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.round = json::uint(v, "round")? as u32;
        g.turn = json::uint(v, "turn")?.min(255) as u8;
        g.phase = match json::string(v, "phase")? {
            "commit" => Phase::Commit,
            "choose_row" => Phase::ChooseRow,
            "game_over" => Phase::GameOver,
            other => {
                return Err(Error::InvalidState {
                    message: format!("unknown phase {other:?}"),
                })
            }
        };
        for (s, h) in per_seat("hands")?.iter().enumerate() {
            g.hands[s] = card_set(h, "hands")?;
        }
        for (s, p) in per_seat("piles")?.iter().enumerate() {
            g.piles[s] = card_set(p, "piles")?;
        }
        g.unused = card_set(json::field(v, "unused")?, "unused")?;
        for (s, c) in per_seat("committed")?.iter().enumerate() {
            g.committed[s] = match c {
                Value::Null => 0,
                Value::String(text) => card(text)?,
                _ => {
                    return Err(Error::InvalidState {
                        message: "committed must hold cards or null".into(),
                    })
                }
            };
        }
        let rows = json::array(v, "rows")?;
        ensure(rows.len() == ROWS, || "there must be 4 rows".into())?;
        for (r, row) in rows.iter().enumerate() {
            let cards = json::strings(row, "rows")?;
            ensure((1..=5).contains(&cards.len()), || {
                format!("row {r} must hold 1 to 5 cards")
            })?;
            let cards = cards
                .iter()
                .map(|t| card(t))
                .collect::<Result<Vec<_>, _>>()?;
            ensure(cards.windows(2).all(|w| w[0] < w[1]), || {
                format!("row {r} must ascend: each card is higher than the one before")
            })?;
            g.rows[r] = cards.iter().fold(0, |set, &c| set | bit(c));
            g.row_ends = Self::with_end(g.row_ends, r, cards[cards.len() - 1]);
        }
        let revealed = json::array(v, "revealed")?;
        for (i, pair) in revealed.iter().enumerate() {
            let (c, s) = (
                pair.get(0).and_then(Value::as_str),
                pair.get(1).and_then(Value::as_u64),
            );
            match (c, s) {
                (Some(c), Some(s)) if i < n && (s as usize) < n => {
                    g.revealed[i] = (card(c)?, s as u8)
                }
                _ => {
                    return Err(Error::InvalidState {
                        message: "revealed must hold [card, seat] pairs".into(),
                    })
                }
            }
        }
        g.next_to_place = json::uint(v, "next_to_place")?.min(255) as u8;
        for (s, x) in json::ints(json::field(v, "scores")?, "scores")?
            .into_iter()
            .enumerate()
        {
            ensure(s < n, || "scores must have one entry per seat".into())?;
            g.scores[s] = x;
        }
        g.round_scores.clear();
        for r in json::array(v, "round_scores")? {
            let values = json::ints(r, "round_scores")?;
            ensure(values.len() == n, || {
                "round_scores rows must have one entry per seat".into()
            })?;
            let mut row = [0i64; MAX_PLAYERS];
            row[..n].copy_from_slice(&values);
            g.round_scores.push(row);
        }
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            let a = Self::parse_action(text).ok_or_else(|| Error::InvalidState {
                message: format!("{text:?} in history is not an action"),
            })?;
            g.history.push(a);
        }
        g.round_start = json::uint(v, "round_start")? as usize;
        g.check_consistency(revealed.len())?;
        Ok(g)
    }
}

impl NativeBots for Take5 {
    /// Fast path: the k-th card of the hand, without building the legal list.
    #[inline(always)]
    fn random_action(&self, rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        match self.phase {
            Phase::Commit => {
                let hand = self.hands[self.to_act as usize];
                Action::from(nth_bit(hand, pick(rng, hand.count_ones() as usize)))
            }
            _ => TAKE + pick(rng, ROWS) as Action,
        }
    }

    /// In a batch of random bots, every seat orders its hand at random at the
    /// start of a round and plays it in that order, one card a turn: each play
    /// is still uniform over the cards the seat holds (every card in hand is
    /// legal), and a round costs one draw per hand instead of a draw and a
    /// k-th-card select per play. A turn's commitments are then made in one
    /// call, and the cards revealed.
    #[inline(always)]
    fn random_steps(&mut self, rng: &mut SplitMix64, plan: &mut Vec<Action>) -> u64 {
        let (n, turn) = (self.n(), self.turn as usize);
        let turn_starts = self.phase == Phase::Commit && self.to_act == 0;
        if turn_starts && (turn == 0 || plan.is_empty()) {
            self.plan_random_plays(rng, plan);
        }
        if !turn_starts || plan.is_empty() {
            // A row to choose, a playout that started in mid-turn, or hands
            // that could not be planned.
            return random_step(self, rng, plan);
        }
        let mut set = 0;
        for s in 0..n {
            let card = plan[s * TURNS as usize + turn] as u8;
            self.history.push(Action::from(card));
            self.lay_down(s, card);
            set |= bit(card);
        }
        self.to_act = n as u8 - 1;
        self.reveal_set(set);
        self.place_revealed();
        n as u64
    }

    fn restart(&mut self, seed: u64) -> bool {
        let mut round_scores = std::mem::take(&mut self.round_scores);
        let mut history = std::mem::take(&mut self.history);
        round_scores.clear();
        history.clear();
        *self = Self::undealt(self.params, seed, round_scores, history);
        let (cards, len) = self.shuffle_new_deck();
        self.deal(&cards[..len]);
        true
    }

    /// The strategy of `cardref.bots.heuristic.take5`: play the card that risks
    /// the fewest bullheads (highest card on ties); take the cheapest row.
    fn heuristic_action(&self, _rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        if self.phase == Phase::ChooseRow {
            return TAKE + self.fewest_heads_row() as Action;
        }
        let mut best = (f64::INFINITY, 0);
        for c in bits(self.hands[self.to_act as usize]) {
            let cost = self.card_cost(c as u8);
            if cost <= best.0 {
                best = (cost, c);
            }
        }
        best.1 as Action
    }
}

impl Search for Take5 {
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        if self.phase == Phase::GameOver || seat >= self.n() {
            return Ok(g);
        }
        // Hidden from `seat`: the other hands, their face-down cards, the unused cards.
        let mut pool = self.unused;
        for s in (0..self.n()).filter(|&s| s != seat) {
            pool |= self.hands[s];
            if self.committed[s] != 0 {
                pool |= 1 << self.committed[s];
            }
        }
        let mut cards: Vec<u8> = bits(pool).map(|c| c as u8).collect();
        rng.shuffle(&mut cards);
        let mut next = cards.into_iter();
        let hidden_commits = if self.phase == Phase::Commit {
            self.to_act as usize
        } else {
            0
        };
        let turn_start = self.history.len() - hidden_commits;
        for s in (0..self.n()).filter(|&s| s != seat) {
            if self.committed[s] != 0 {
                g.committed[s] = next.next().unwrap_or(0);
                if s < hidden_commits {
                    g.history[turn_start + s] = g.committed[s] as Action;
                }
            }
            g.hands[s] = 0;
            for _ in 0..self.hands[s].count_ones() {
                g.hands[s] |= 1 << next.next().unwrap_or(0);
            }
        }
        g.unused = next.fold(0, |set, c| set | 1 << c);
        Ok(g)
    }

    /// Builds the state JSON from what the observation shows plus hidden cards
    /// drawn at random, and loads it (so every check of `from_json` applies).
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        let bad = |what: &str| Error::InvalidState {
            message: format!("not a take5 observation: {what}"),
        };
        ensure(json::string(obs, "game")? == "take5", || {
            "not a take5 observation".into()
        })?;
        let n = self.n();
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < n, || "seat out of range".into())?;
        let card = |v: &Value| -> Result<u8, Error> {
            v.as_str()
                .and_then(parse_canonical_uint)
                .filter(|&c| (1..=self.params.highest_card()).contains(&c))
                .map(|c| c as u8)
                .ok_or_else(|| bad("a card code"))
        };
        let cards_of = |v: &Value| -> Result<u128, Error> {
            let list = v.as_array().ok_or_else(|| bad("a card list"))?;
            list.iter()
                .try_fold(0u128, |set, c| Ok(set | 1 << card(c)?))
        };
        let hand = cards_of(json::field(obs, "hand")?)?;
        let mine = match json::field(obs, "my_commitment")? {
            Value::Null => 0,
            v => card(v)?,
        };
        let flags = json::array(obs, "committed")?;
        ensure(flags.len() == n, || {
            "committed has one flag per seat".into()
        })?;
        let flags: Vec<bool> = flags.iter().map(|f| f.as_bool() == Some(true)).collect();
        let mut known = hand | if mine != 0 { 1 << mine } else { 0 };
        for row in json::array(obs, "rows")? {
            known |= cards_of(row)?;
        }
        for pile in json::array(obs, "piles")? {
            known |= cards_of(pile)?;
        }
        let next_to_place = json::uint(obs, "next_to_place")? as usize;
        for (i, pair) in json::array(obs, "revealed")?.iter().enumerate() {
            if i >= next_to_place {
                known |= 1 << card(&pair[0])?;
            }
        }
        let all = cards_in_play(self.params.highest_card() as usize);
        let mut cards: Vec<u8> = bits(all & !known).map(|c| c as u8).collect();
        rng.shuffle(&mut cards);
        let mut next = cards.into_iter().map(|c| c.to_string());
        let base = hand.count_ones() as usize + usize::from(mine != 0);
        let mut hands = Vec::with_capacity(n);
        let mut committed = Vec::with_capacity(n);
        for (s, &flag) in flags.iter().enumerate() {
            if s == seat {
                hands.push(bits(hand).map(|c| c.to_string()).collect::<Vec<_>>());
                committed.push((mine != 0).then(|| mine.to_string()));
                continue;
            }
            let c = if flag { next.next() } else { None };
            let size = base - usize::from(flag);
            let mut h: Vec<String> = next.by_ref().take(size).collect();
            h.sort_by_key(|c| c.parse::<u32>().unwrap_or(0));
            committed.push(c);
            hands.push(h);
        }
        let mut unused: Vec<String> = next.collect();
        unused.sort_by_key(|c| c.parse::<u32>().unwrap_or(0));
        let mut history = json::strings(json::field(obs, "history")?, "history")?
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        if json::string(obs, "phase")? == "commit" {
            for c in committed.iter().take_while(|c| c.is_some()).flatten() {
                history.push(format!("play {c}"));
            }
        }
        let state = json!({
            "game": Self::SPEC.id,
            "players": n,
            "params": json::field(obs, "params")?,
            "rng": rng.next_u64(),
            "round": json::field(obs, "round")?,
            "turn": json::field(obs, "turn")?,
            "phase": json::field(obs, "phase")?,
            "hands": hands,
            "committed": committed,
            "rows": json::field(obs, "rows")?,
            "unused": unused,
            "revealed": json::field(obs, "revealed")?,
            "next_to_place": next_to_place,
            "piles": json::field(obs, "piles")?,
            "scores": json::field(obs, "scores")?,
            "round_scores": json::field(obs, "round_scores")?,
            "history": history,
            "round_start": 0,
        });
        Self::from_json(self.params, &state)
    }

    /// Rollouts end with the round; the value is the bullheads the other seats
    /// took meanwhile (on average) minus those `seat` took.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        if !self.is_terminal() && self.round == start.round {
            return None;
        }
        let n = self.n();
        let taken = |g: &Self, s: usize| g.scores[s] + set_heads(g.piles[s]);
        let gained: Vec<f64> = (0..n)
            .map(|s| (taken(self, s) - taken(start, s)) as f64)
            .collect();
        let others = (gained.iter().sum::<f64>() - gained[seat]) / (n - 1) as f64;
        Some(others - gained[seat])
    }
}


impl Take5 {
    /// The heuristic's rough estimate of the bullheads risked by playing `card` now.
    fn card_cost(&self, card: u8) -> f64 {
        let Some(r) = Self::target_row(self.row_ends, card) else {
            let cheapest = (0..ROWS).map(|r| self.row_heads(r)).min().unwrap_or(0);
            return cheapest as f64 + 0.5;
        };
        let len = self.rows[r].count_ones() as usize;
        let row_heads = self.row_heads(r) as f64;
        if len == 5 {
            return row_heads;
        }
        let n = self.n() as f64;
        let gap = (card - self.row_end(r)) as f64;
        let slots = (5 - len) as f64;
        let others = (n - 1.0) * (gap / 20.0).min(1.0);
        let danger = (others - slots + 1.0).max(0.0) / (n - 1.0).max(1.0);
        danger * (row_heads + 1.0) + gap / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Param;

    fn params(players: i64) -> Params {
        crate::games::parse_params::<Take5>(players, vec![]).unwrap()
    }

    /// Sets row `r` to `cards` (ascending).
    fn set_row(g: &mut Take5, r: usize, cards: &[u8]) {
        g.start_row(r, cards[0]);
        for &c in &cards[1..] {
            g.place_on(r, c, 0);
        }
        g.row_ends = Take5::with_end(g.row_ends, r, cards[cards.len() - 1]);
    }

    fn ascending_deck(top: u32) -> Vec<String> {
        (1..=top).map(|c| c.to_string()).collect()
    }

    #[test]
    fn set_heads_adds_every_cards_heads() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..200 {
            let set = rng.next_u64() as u128 | (rng.next_u64() as u128) << 64;
            let set = set & cards_in_play(104);
            let expected: u32 = bits(set).map(heads).sum();
            assert_eq!(set_heads(set), i64::from(expected));
        }
    }

    #[test]
    fn bullhead_table_sums_to_171() {
        assert_eq!((1..=104).map(heads).sum::<u32>(), 171);
        assert_eq!([55, 11, 50, 100, 51, 65].map(heads), [7, 5, 3, 3, 1, 2]);
    }

    #[test]
    fn explicit_deck_deals_round_robin_then_rows() {
        let g = Take5::new(params(3), 0, Some(&ascending_deck(104))).unwrap();
        assert_eq!(
            bits(g.hands[0]).collect::<Vec<_>>(),
            (1..=28).step_by(3).collect::<Vec<_>>()
        );
        assert_eq!(
            g.row_codes(),
            vec![vec!["31"], vec!["32"], vec!["33"], vec!["34"]]
        );
        assert_eq!(g.unused.count_ones(), 70);
        assert_eq!(g.rng.state, 0, "an explicit deck uses no generator call");
    }

    #[test]
    fn target_row_is_the_highest_end_below_the_card() {
        let ends = [30u8, 10, 40, 20]
            .iter()
            .enumerate()
            .fold(0, |e, (r, &c)| Take5::with_end(e, r, c));
        let cases = [
            (5, None),
            (10, None),
            (11, Some(1)),
            (25, Some(3)),
            (31, Some(0)),
            (99, Some(2)),
        ];
        for (card, row) in cases {
            assert_eq!(Take5::target_row(ends, card), row, "card {card}");
        }
    }

    #[test]
    fn sixth_card_takes_the_row() {
        let mut g = Take5::new(params(2), 0, Some(&ascending_deck(104))).unwrap();
        set_row(&mut g, 0, &[3, 10, 20, 30, 40]);
        g.place_on(0, 45, 1);
        assert_eq!(set_heads(g.piles[1]), 1 + 3 + 3 + 3 + 3);
        assert_eq!(g.rows[0], bit(45));
        g.place_on(0, 50, 0);
        assert_eq!(g.piles[0], 0, "a second card only joins the row");
        assert_eq!(g.rows[0], bit(45) | bit(50));
    }

    #[test]
    fn auto_row_prefers_fewest_heads_then_lowest_index() {
        let p = crate::games::parse_params::<Take5>(
            2,
            vec![(
                "too_low_choice".into(),
                Param::Str("auto_fewest_heads".into()),
            )],
        )
        .unwrap();
        let mut g = Take5::new(p, 0, Some(&ascending_deck(104))).unwrap();
        for (r, row) in [[10, 11].as_slice(), &[20, 21], &[30, 31], &[55]]
            .iter()
            .enumerate()
        {
            set_row(&mut g, r, row);
        }
        assert_eq!(g.fewest_heads_row(), 1);
    }

    /// Pearson's statistic of `counts` against equal expected counts.
    fn chi_square(counts: &[u64]) -> f64 {
        let expected = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    /// A state at the start of turn `turn` of round 1, played by random bots.
    fn at_turn(players: i64, seed: u64, turn: u8) -> Take5 {
        let mut g = Take5::new(params(players), seed, None).unwrap();
        let mut rng = SplitMix64::new(seed);
        while !(g.turn == turn && g.to_act == 0 && g.phase == Phase::Commit) {
            let a = g.random_action(&mut rng, &mut Vec::new());
            g.apply_unchecked(a);
        }
        g
    }

    #[test]
    fn planned_random_plays_order_each_hand_uniformly() {
        // Three cards left per hand: each of the 6 orders is equally likely.
        let g = at_turn(4, 5, 7);
        let (mut rng, mut plan) = (SplitMix64::new(9), Vec::new());
        let mut counts = [[0u64; 6]; 4];
        for _ in 0..12_000 {
            g.plan_random_plays(&mut rng, &mut plan);
            for (s, tally) in counts.iter_mut().enumerate() {
                let order = &plan[10 * s + 7..10 * s + 10];
                let set = order.iter().fold(0, |set, &c| set | bit(c as u8));
                assert_eq!(set, g.hands[s], "seat {s} plans exactly its hand");
                let rank = |c: Action| (g.hands[s] & (bit(c as u8) - 1)).count_ones() as usize;
                // The first card's rank, then whether the other two come down.
                let (a, b, c) = (rank(order[0]), rank(order[1]), rank(order[2]));
                tally[a * 2 + usize::from(b > c)] += 1;
            }
        }
        for (s, tally) in counts.iter().enumerate() {
            // 5 degrees of freedom: above 20.5 once in a thousand.
            assert!(chi_square(tally) < 20.5, "seat {s}: {tally:?}");
        }
    }

    #[test]
    fn planned_random_plays_open_with_any_card_of_a_full_hand() {
        let (mut rng, mut plan) = (SplitMix64::new(2), Vec::new());
        let mut counts = [0u64; 10];
        for seed in 0..3_000 {
            let g = Take5::new(params(4), seed, None).unwrap();
            g.plan_random_plays(&mut rng, &mut plan);
            for s in 0..4 {
                let first = plan[10 * s] as u8;
                counts[(g.hands[s] & (bit(first) - 1)).count_ones() as usize] += 1;
            }
        }
        // 9 degrees of freedom: above 27.9 once in a thousand.
        assert!(chi_square(&counts) < 27.9, "{counts:?}");
    }

    #[test]
    fn hands_that_do_not_match_the_turn_get_no_plan() {
        let mut g = Take5::new(params(4), 3, None).unwrap();
        let card = g.hands[2].trailing_zeros() as u8;
        g.hands[2] &= !bit(card);
        g.unused |= bit(card);
        let (mut rng, mut plan) = (SplitMix64::new(1), vec![7; 40]);
        g.plan_random_plays(&mut rng, &mut plan);
        assert!(plan.is_empty());
        // The batch step falls back to one random action at a time.
        assert_eq!(g.random_steps(&mut rng, &mut plan), 1);
        assert_eq!(g.history.len(), 1);
    }

    #[test]
    fn a_random_game_ends_and_conserves_nothing_twice() {
        let mut g = Take5::new(params(4), 9, None).unwrap();
        let mut rng = SplitMix64::new(1);
        let mut buf = Vec::new();
        let mut steps = 0;
        while !g.is_terminal() {
            buf.clear();
            g.legal_actions(&mut buf);
            let a = buf[rng.bounded(buf.len() as u64) as usize];
            g.apply_unchecked(a);
            steps += 1;
            assert!(steps < 100_000);
        }
        assert!(g.scores().iter().any(|&s| s >= 66));
        assert!(g.placements().unwrap().contains(&1));
    }
}
