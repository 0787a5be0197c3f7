//! 5 Alive's determinization and the search bot's rollouts: a replay of the
//! round's public history tells which kinds each hidden hand can hold (a
//! forced flip, a forced Bomb that cost a life, a rebuilt draw pile), and
//! deals honour it.

use crate::points::Count;
use super::json::{read_pile, state_error};
use super::rules::{next_seat, others_of, seats_in_order, without_teammates};
use super::{BOMB, BombResponse, CODES, D1, D2, DECLINE, FLIP, FiveAlive, KINDS, MAX_PLAYERS, Params, Pile, REDEAL, RESPOND, REV, ROOM, RedealDealOrder, SET0, SET10, SET21, SKIP, Seats};
use crate::game::{pick, Action, Error, Game, NativeBots, Rules, Search, StateJson};
use crate::json::{self, ensure};
use crate::rng::SplitMix64;
use serde_json::{json, Value};

/// Every kind: a hidden card nothing is known about.
const ANY_KIND: u32 = (1 << KINDS) - 1;

/// A responder who lost a life to a forced Bomb held no `0`.
const NO_ZERO: u32 = ANY_KIND & !1;

/// A card of an eliminated hand in the replayed discard pile: put there face
/// up, but the observation does not say which it was.
const UNSEEN: u8 = u8::MAX;

/// Most open possibilities a replay follows at once.
const MAX_BRANCHES: usize = 1024;

/// What the search adds to the value of the heuristic's own choice: a life
/// lost by `seat` counts 1. Fewer samples than possible deals make the values
/// noisy; this keeps the search from trading a sound card for a lucky one.
const HEURISTIC_BONUS: f64 = 0.15;

/// The numbers a forced flip at `total` shows the hand held only: those that
/// would take the total over 21 (§5.3). Empty below 15 (no flip is forced there).
pub(super) fn flip_kinds(total: u8) -> u32 {
    let low = 22 - u32::from(total.min(21));
    if low > 7 {
        0
    } else {
        0xFF & !((1u32 << low) - 1)
    }
}

/// What is known of each hidden card of one hand: a kind set per card.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slots {
    pub(super) kinds: [u32; ROOM],
    pub(super) len: u8,
}

impl Slots {
    pub(super) const EMPTY: Slots = Slots {
        kinds: [ANY_KIND; ROOM],
        len: 0,
    };

    pub(super) fn unknown(len: u8) -> Slots {
        Slots {
            len,
            ..Slots::EMPTY
        }
    }

    pub(super) fn as_slice(&self) -> &[u32] {
        &self.kinds[..self.len as usize]
    }

    pub(super) fn push(&mut self, kinds: u32) {
        self.kinds[self.len as usize] = kinds;
        self.len += 1;
    }

    /// Every card is one of `kinds` as well; false if some card can be none.
    fn narrow(&mut self, kinds: u32) -> bool {
        let len = self.len as usize;
        self.kinds[..len].iter_mut().for_each(|k| *k &= kinds);
        self.kinds[..len].iter().all(|&k| k != 0)
    }

    /// The hand gave up a `card`: drop the card that may be it and is known
    /// best (the sets form a chain, so what stays is implied by every other
    /// choice). False if no card of the hand may be it.
    pub(super) fn take(&mut self, card: u8) -> bool {
        let best = self
            .as_slice()
            .iter()
            .enumerate()
            .filter(|(_, &k)| k >> card & 1 == 1)
            .min_by_key(|(_, &k)| k.count_ones())
            .map(|(i, _)| i);
        match best {
            Some(i) => {
                self.len -= 1;
                self.kinds[i] = self.kinds[self.len as usize];
                true
            }
            None => false,
        }
    }
}

/// A pending optional Bomb in the replay: bomber, responders, next index, eliminated.
type ReplayBomb = (u8, Seats, u8, Seats);

/// The public side of the current round, replayed from its deal under one
/// hypothesis, with the kind sets of the hidden cards of `seat`'s opponents.
#[derive(Debug, Clone)]
struct Replay {
    seat: usize,
    /// The seats still in (a bit each).
    active: u8,
    /// Out this round, later than the replay has got to.
    doomed: [bool; MAX_PLAYERS],
    sizes: [u8; MAX_PLAYERS],
    slots: [Slots; MAX_PLAYERS],
    dir: i8,
    current: u8,
    total: u8,
    bomb: Option<ReplayBomb>,
    draw_len: u8,
    /// After a rebuild: the cards the draw pile was made of (none before one,
    /// or if an eliminated hand was among them).
    draw_from: Option<[u8; KINDS]>,
    /// Top card last; `UNSEEN` for the cards of eliminated hands.
    discard: Pile,
    /// Elimination batches of this round met so far.
    batches: usize,
}

/// What a resample keeps to: a kind set per hidden card of every hand, and
/// what the draw pile may hold.
#[derive(Debug, Clone)]
pub(super) struct Knowledge {
    pub(super) slots: [Slots; MAX_PLAYERS],
    pub(super) draw_from: Option<[u8; KINDS]>,
}

impl Replay {
    fn is_active(&self, seat: usize) -> bool {
        self.active >> seat & 1 == 1
    }

    fn next_active(&self, seat: usize, dir: i8) -> usize {
        next_seat(self.active, seat, dir)
    }

    fn targets(&self, p: &Params, seat: usize) -> Seats {
        let others = others_of(self.active, seat, self.dir);
        if p.team_play && !p.team_wilds_hit_teammates {
            without_teammates(others, seat)
        } else {
            others
        }
    }

    fn active_count(&self) -> usize {
        self.active.count_ones() as usize
    }

    /// A card of `seat`'s hand leaves it as `card`; false if it cannot be.
    fn give_up(&mut self, seat: usize, card: u8) -> bool {
        if self.sizes[seat] == 0 {
            return false;
        }
        self.sizes[seat] -= 1;
        seat == self.seat || self.slots[seat].take(card)
    }

    fn narrow(&mut self, seat: usize, kinds: u32) -> bool {
        seat == self.seat || self.slots[seat].narrow(kinds)
    }

    /// §6.3-6.4, sizes only, plus what a rebuilt pile is made of.
    fn draw(&mut self, seat: usize) {
        if self.draw_len == 0 && self.discard.len >= 2 {
            let len = self.discard.len as usize;
            let rebuilt = &self.discard.cards[..len - 1];
            self.draw_from = (!rebuilt.contains(&UNSEEN)).then(|| {
                let mut counts = [0u8; KINDS];
                rebuilt.iter().for_each(|&c| counts[c as usize] += 1);
                counts
            });
            self.draw_len = (len - 1) as u8;
            let top = self.discard.cards[len - 1];
            self.discard = Pile::EMPTY;
            self.discard.push(top);
        }
        if self.draw_len > 0 {
            self.draw_len -= 1;
            self.sizes[seat] += 1;
            self.slots[seat].push(ANY_KIND);
        }
    }

    /// §6.5: the active hands gathered and dealt out again; nothing known stays.
    fn redeal(&mut self, p: &Params, player: usize) {
        let order = if p.redeal_deal_order == RedealDealOrder::PlayDirection {
            seats_in_order(self.active, self.next_active(player, self.dir), self.dir)
        } else {
            seats_in_order(self.active, self.next_active(player, 1), 1)
        };
        let gathered: usize = order
            .as_slice()
            .iter()
            .map(|&s| self.sizes[s as usize] as usize)
            .sum();
        let a = order.len as usize;
        for (i, &s) in order.as_slice().iter().enumerate() {
            let size = (gathered / a + usize::from(i < gathered % a)) as u8;
            self.sizes[s as usize] = size;
            self.slots[s as usize] = Slots::unknown(size);
        }
    }

    /// §6.7 for the eliminated seats of a batch (chosen by the caller).
    fn eliminate(&mut self, seat: usize) {
        let hand = [UNSEEN; ROOM];
        self.discard
            .insert_bottom(&hand[..self.sizes[seat] as usize]);
        self.sizes[seat] = 0;
        self.slots[seat] = Slots::EMPTY;
        self.active &= !(1 << seat);
        self.doomed[seat] = false;
    }

    /// The ways a batch of life losses by `losers` can have gone: nobody out,
    /// or exactly the next batch of the round's elimination log. Pushes each
    /// consistent outcome, continued by `then`, to `out`.
    fn losses<C: Count>(
        self,
        g: &FiveAlive<C>,
        losers: Seats,
        expected: &[Seats],
        out: &mut Vec<Replay>,
        then: impl Fn(Replay, bool, &mut Vec<Replay>),
    ) {
        if let Some(next) = expected.get(self.batches) {
            let fits = next.len > 0
                && next
                    .as_slice()
                    .iter()
                    .all(|&s| losers.contains(s as usize) && self.doomed[s as usize]);
            if fits && !g.params.team_play {
                let mut r = self.clone();
                for &s in next.as_slice() {
                    r.eliminate(s as usize);
                }
                r.batches += 1;
                // Sudden death or a last survivor would have ended the game.
                if !g.params.sudden_death && r.active_count() >= 2 {
                    then(r, true, out);
                }
            }
        }
        then(self, false, out);
    }

    /// §6.1 steps 3-6 in a round that went on: nobody went out, next player.
    fn after_effect<C: Count>(mut self, g: &FiveAlive<C>, passes_from: usize, out: &mut Vec<Replay>) {
        let n = g.n();
        if (0..n).any(|s| self.is_active(s) && self.sizes[s] == 0) {
            return;
        }
        self.current = self.next_active(passes_from, self.dir) as u8;
        out.push(self);
    }

    /// Replays one action of the round; pushes every consistent outcome.
    fn step<C: Count>(mut self, g: &FiveAlive<C>, action: Action, expected: &[Seats], out: &mut Vec<Replay>) {
        let p = self.current as usize;
        if let Some((bomber, responders, index, gone)) = self.bomb {
            match action {
                RESPOND => {
                    if !self.give_up(p, 0) {
                        return;
                    }
                    self.discard.push(0);
                    self.next_responder(g, (bomber, responders, index, gone), expected, out);
                }
                DECLINE => {
                    // A decline costs a life; a seat out this round may go now.
                    if self.doomed[p] {
                        let mut r = self.clone();
                        let mut gone = gone;
                        gone.push(p);
                        r.eliminate(p);
                        r.next_responder(g, (bomber, responders, index, gone), expected, out);
                    }
                    self.next_responder(g, (bomber, responders, index, gone), expected, out);
                }
                _ => {}
            }
            return;
        }
        match action {
            FLIP => {
                if !g.params.allow_voluntary_flip && !self.narrow(p, flip_kinds(self.total)) {
                    return;
                }
                self.total = 0;
                let mut alone = Seats::default();
                alone.push(p);
                let ends_turn = g.params.flip_ends_turn;
                self.losses(g, alone, expected, out, move |mut r, out_now, out| {
                    if ends_turn || out_now {
                        r.current = r.next_active(p, r.dir) as u8;
                    }
                    out.push(r);
                });
            }
            RESPOND | DECLINE => {}
            card => {
                let card = card as u8;
                if !self.give_up(p, card) {
                    return;
                }
                self.discard.push(card);
                let mut passes_from = p;
                match card {
                    0..=7 => {
                        if self.total + card > 21 {
                            return;
                        }
                        self.total += card;
                    }
                    SET21 => self.total = 21,
                    SET10 => self.total = 10,
                    SET0 => self.total = 0,
                    REV => self.dir = -self.dir,
                    SKIP => passes_from = self.next_active(p, self.dir),
                    D1 | D2 => {
                        let count = if card == D1 { 1 } else { 2 };
                        for &t in self.targets(&g.params, p).as_slice() {
                            for _ in 0..count {
                                self.draw(t as usize);
                            }
                        }
                    }
                    REDEAL => {
                        self.total = 0;
                        if self.sizes[p] == 0 {
                            return; // the round would have ended
                        }
                        self.redeal(&g.params, p);
                    }
                    BOMB if g.params.bomb_response == BombResponse::Optional => {
                        let responders = self.targets(&g.params, p);
                        self.current = responders.seats[0];
                        self.bomb = Some((p as u8, responders, 0, Seats::default()));
                        out.push(self);
                        return;
                    }
                    BOMB => return self.forced_bomb(g, p, expected, out),
                    _ => {}
                }
                self.after_effect(g, passes_from, out);
            }
        }
    }

    /// A forced Bomb: every way the responders may have answered.
    fn forced_bomb<C: Count>(self, g: &FiveAlive<C>, p: usize, expected: &[Seats], out: &mut Vec<Replay>) {
        let responders = self.targets(&g.params, p);
        let r = responders.len as u32;
        for answered in 0u32..1 << r {
            let mut b = self.clone();
            let mut losers = Seats::default();
            let mut ok = true;
            for (i, &s) in responders.as_slice().iter().enumerate() {
                let s = s as usize;
                ok &= if answered >> i & 1 == 1 {
                    b.discard.push(0);
                    b.give_up(s, 0)
                } else {
                    losers.push(s);
                    b.narrow(s, NO_ZERO)
                };
            }
            if !ok {
                continue;
            }
            b.total = 0;
            b.losses(g, losers, expected, out, move |r, _, out| {
                r.after_effect(g, p, out)
            });
        }
    }

    /// Optional Bomb: the next responder, or the Bomb's end (§6.6).
    fn next_responder<C: Count>(
        mut self,
        g: &FiveAlive<C>,
        (bomber, responders, index, gone): ReplayBomb,
        expected: &[Seats],
        out: &mut Vec<Replay>,
    ) {
        let index = index + 1;
        if index < responders.len {
            self.current = responders.seats[index as usize];
            self.bomb = Some((bomber, responders, index, gone));
            out.push(self);
            return;
        }
        self.bomb = None;
        self.total = 0;
        if gone.len > 0 {
            let fits = expected
                .get(self.batches)
                .is_some_and(|b| b.sorted().as_slice() == gone.sorted().as_slice());
            if !fits || g.params.sudden_death || self.active_count() < 2 {
                return;
            }
            self.batches += 1;
        }
        self.after_effect(g, bomber as usize, out);
    }

    /// Does the replay end in the public state of `g`?
    fn ends_in<C: Count>(&self, g: &FiveAlive<C>, expected: &[Seats]) -> bool {
        let n = g.n();
        let bomb = g
            .pending
            .map(|b| (b.bomber, b.responders, b.index, b.eliminated));
        (0..n).all(|s| {
            self.is_active(s) == g.is_active(s)
                && !self.doomed[s]
                && usize::from(self.sizes[s]) == g.hands[s].len()
        }) && self.batches == expected.len()
            && self.draw_len == g.draw.len
            && self.dir == g.dir
            && self.total == g.total
            && self.current == g.current
            && self.bomb.map(|b| (b.0, b.1, b.2, b.3.sorted()))
                == bomb.map(|b| (b.0, b.1, b.2, b.3.sorted()))
            && self.discard.len == g.discard.len
            && self
                .discard
                .as_slice()
                .iter()
                .zip(g.discard.as_slice())
                .all(|(&a, &b)| a == UNSEEN || a == b)
    }
}

impl<C: Count> Search for FiveAlive<C> {
    /// The other hands and the draw pile dealt anew from the cards `seat`
    /// cannot see, keeping hand sizes and what the round's forced flips,
    /// forced Bombs and rebuilt draw piles showed (see "Determinization"
    /// above); a new generator state.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        ensure(seat < self.n(), || {
            format!("seat {seat} is not at the table")
        })?;
        let known = if self.is_terminal() {
            Vec::new()
        } else {
            self.knowledge(seat)
        };
        for _ in 0..8 {
            let k = (!known.is_empty()).then(|| &known[pick(rng, known.len())]);
            if let Some(g) = self.deal_hidden(seat, k, rng) {
                return Ok(g);
            }
        }
        self.deal_hidden(seat, None, rng)
            .ok_or_else(|| state_error("the hidden cards do not fit the hands".into()))
    }

    /// Builds the state JSON from the observation's public parts with the
    /// unseen cards dealt at random, loads it with `from_json`, then resamples
    /// it for the seat (so the round's forced flips and Bombs are kept to).
    /// The observation shows the history of the current round only; the
    /// earlier actions, which no rule reads, are filled in as `flip`s so that
    /// `action_count` and `round_start` stay what they are.
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        let bad = |what: &str| state_error(format!("not a five_alive observation: {what}"));
        ensure(json::string(obs, "game")? == Self::SPEC.id, || {
            "not a five_alive observation".into()
        })?;
        let n = self.n();
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < n, || "seat out of range".into())?;
        let hand = read_pile(json::field(obs, "hand")?, "hand")?;
        let discard = read_pile(json::field(obs, "discard_pile")?, "discard_pile")?;
        let sizes = json::ints(json::field(obs, "hand_sizes")?, "hand_sizes")?;
        ensure(
            sizes.len() == n && sizes.iter().all(|&s| (0..=ROOM as i64).contains(&s)),
            || "hand_sizes must hold one size per seat".into(),
        )?;
        let draw_size = json::uint(obs, "draw_size")? as usize;
        let mut unseen = self.params.counts().map(i32::from);
        for &c in hand.as_slice().iter().chain(discard.as_slice()) {
            unseen[c as usize] -= 1;
        }
        let hidden: usize = (0..n)
            .filter(|&s| s != seat)
            .map(|s| sizes[s] as usize)
            .sum();
        let total: i32 = unseen.iter().sum();
        ensure(
            unseen.iter().all(|&c| c >= 0) && total as usize == hidden + draw_size,
            || {
                "not a five_alive observation: its hand, discard pile and sizes do not fit the deck"
                    .into()
            },
        )?;
        let mut cards: Vec<u8> = Vec::with_capacity(total as usize);
        for (k, &count) in unseen.iter().enumerate() {
            cards.extend(std::iter::repeat_n(k as u8, count as usize));
        }
        rng.shuffle(&mut cards);
        let mut next = cards.iter().map(|&c| CODES[c as usize]);
        let hands: Vec<Vec<&str>> = (0..n)
            .map(|s| {
                if s == seat {
                    Self::codes(hand.as_slice())
                } else {
                    next.by_ref().take(sizes[s] as usize).collect()
                }
            })
            .collect();
        let draw: Vec<&str> = next.collect();
        let round = json::strings(json::field(obs, "history")?, "history")?;
        let count = json::uint(obs, "action_count")? as usize;
        ensure(round.len() <= count, || {
            "not a five_alive observation: the round's history is longer than action_count".into()
        })?;
        let round_start = count - round.len();
        let mut history = vec!["flip"; round_start];
        history.extend(round);
        let mut state = obs.as_object().cloned().ok_or_else(|| bad("an object"))?;
        for key in ["seat", "hand", "hand_sizes", "draw_size"] {
            state.remove(key);
        }
        state.insert("rng".into(), json!(rng.next_u64()));
        state.insert("hands".into(), json!(hands));
        state.insert("draw_pile".into(), json!(draw));
        state.insert("round_start".into(), json!(round_start));
        state.insert("history".into(), json!(history));
        Self::from_json(self.params, &Value::Object(state))?.resample(seat, rng)
    }

    /// Every legal action, the heuristic's choice first: the search keeps
    /// the first of equally good actions, so ties (common: many a card makes
    /// no difference to the round) go to the heuristic, not to the lowest card.
    fn search_candidates(&self, legal: &mut Vec<Action>) {
        let mut buf = Vec::with_capacity(legal.len());
        let choice = self.heuristic_action(&mut SplitMix64::new(0), &mut buf);
        if let Some(i) = legal.iter().position(|&a| a == choice) {
            legal[..=i].rotate_right(1);
        }
    }

    /// Rollouts end with the round (or the game). The value is the lives the
    /// other seats lost meanwhile (on average over those in play at the
    /// start) minus those `seat` lost; in team play, the other team's minus
    /// its own. The heuristic's own choice at the root gets [`HEURISTIC_BONUS`]
    /// on top, so that the search leaves it only for a clearly better card.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        if !self.is_terminal() && self.round == start.round {
            return None;
        }
        let root = self.history[start.history.len()];
        let mut buf = Vec::new();
        let bonus = if start.heuristic_action(&mut SplitMix64::new(0), &mut buf) == root {
            HEURISTIC_BONUS
        } else {
            0.0
        };
        if self.params.team_play {
            let lost = |t: usize| f64::from(start.team_lives[t] - self.team_lives[t]);
            return Some(lost(1 - seat % 2) - lost(seat % 2) + bonus);
        }
        let lost = |s: usize| f64::from(start.lives[s] - self.lives[s]);
        let (mut others, mut count) = (0.0, 0.0);
        for s in (0..self.n()).filter(|&s| s != seat && start.is_active(s)) {
            others += lost(s);
            count += 1.0;
        }
        Some(others / f64::max(count, 1.0) - lost(seat) + bonus)
    }
}

impl<C: Count> FiveAlive<C> {
    /// Replays the public side of the current round for `seat` (§3.2 and the
    /// rules that show hidden cards, see above); every hypothesis that ends in
    /// this state's public side, at most [`MAX_BRANCHES`].
    pub(super) fn knowledge(&self, seat: usize) -> Vec<Knowledge> {
        let n = self.n();
        let history = &self.history[self.round_start.min(self.history.len())..];
        let revs = history.iter().filter(|&&a| a == Action::from(REV)).count();
        // The round opened clockwise unless the direction carries over (FA-4).
        let dir = if self.params.reset_direction_each_round || self.round == 1 {
            1
        } else if revs % 2 == 0 {
            self.dir
        } else {
            -self.dir
        };
        let log = &self.elimination_log;
        let most = if self.params.team_play || self.params.sudden_death {
            0
        } else {
            log.len()
        };
        for k in 0..=most {
            let expected = &log[log.len() - k..];
            let mut start = Replay {
                seat,
                active: 0,
                doomed: [false; MAX_PLAYERS],
                sizes: [0; MAX_PLAYERS],
                slots: [Slots::EMPTY; MAX_PLAYERS],
                dir,
                current: 0,
                total: 0,
                bomb: None,
                draw_len: 0,
                draw_from: None,
                discard: Pile::EMPTY,
                batches: 0,
            };
            for s in 0..n {
                start.active |= u8::from(self.is_active(s)) << s;
            }
            let pending_out = self.pending.map(|b| b.eliminated).unwrap_or_default();
            for &s in expected
                .iter()
                .flat_map(|b| b.as_slice())
                .chain(pending_out.as_slice())
            {
                start.active |= 1 << s;
                start.doomed[s as usize] = true;
            }
            let size = self.params.hand_size as u8;
            let dealt = start.active_count() * size as usize;
            if dealt > self.params.deck_size() {
                break;
            }
            let active = start.active;
            for s in (0..n).filter(|&s| active >> s & 1 == 1) {
                start.sizes[s] = size;
                start.slots[s] = Slots::unknown(size);
            }
            start.draw_len = (self.params.deck_size() - dealt) as u8;
            start.current = start.next_active(self.dealer as usize, dir) as u8;
            let mut now = vec![start];
            let mut next = Vec::new();
            for &a in history {
                for r in now.drain(..) {
                    r.step(self, a, expected, &mut next);
                }
                if next.len() > MAX_BRANCHES {
                    return Vec::new();
                }
                std::mem::swap(&mut now, &mut next);
            }
            let found: Vec<Knowledge> = now
                .into_iter()
                .filter(|r| r.ends_in(self, expected))
                .map(|r| Knowledge {
                    slots: r.slots,
                    draw_from: r.draw_from,
                })
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// A copy with the cards hidden from `seat` (other hands, draw pile) dealt
    /// anew at random, keeping to `known` where given, and a new generator.
    fn deal_hidden(
        &self,
        seat: usize,
        known: Option<&Knowledge>,
        rng: &mut SplitMix64,
    ) -> Option<Self> {
        let n = self.n();
        let mut left = [0u8; KINDS];
        for s in (0..n).filter(|&s| s != seat) {
            self.hands[s]
                .as_slice()
                .iter()
                .for_each(|&c| left[c as usize] += 1);
        }
        self.draw
            .as_slice()
            .iter()
            .for_each(|&c| left[c as usize] += 1);
        // Picks a card of `kinds` uniformly from what is left (weighted by count).
        let pick_from = |left: &mut [u8; KINDS], kinds: u32, rng: &mut SplitMix64| -> Option<u8> {
            let total: usize = (0..KINDS)
                .filter(|&k| kinds >> k & 1 == 1)
                .map(|k| left[k] as usize)
                .sum();
            if total == 0 {
                return None;
            }
            let mut r = pick(rng, total);
            for k in (0..KINDS).filter(|&k| kinds >> k & 1 == 1) {
                if r < left[k] as usize {
                    left[k] -= 1;
                    return Some(k as u8);
                }
                r -= left[k] as usize;
            }
            None
        };
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        let draw_len = self.draw.len as usize;
        let mut draw = Pile::EMPTY;
        if let Some(from) = known.and_then(|k| k.draw_from) {
            let mut avail = [0u8; KINDS];
            for k in 0..KINDS {
                avail[k] = left[k].min(from[k]);
            }
            for _ in 0..draw_len {
                let c = pick_from(&mut avail, ANY_KIND, rng)?;
                left[c as usize] -= 1;
                draw.push(c);
            }
        }
        // The best-known cards first, so that no choice leaves one without a card.
        let mut order: Vec<(u32, u8, u8)> = Vec::with_capacity(ROOM);
        for s in (0..n).filter(|&s| s != seat) {
            for i in 0..self.hands[s].len() as u8 {
                let kinds = known.map_or(ANY_KIND, |k| k.slots[s].kinds[i as usize]);
                order.push((kinds, s as u8, i));
            }
        }
        order.sort_by_key(|&(kinds, s, i)| (kinds.count_ones(), s, i));
        for &(kinds, s, i) in &order {
            let card = pick_from(&mut left, kinds, rng)?;
            g.hands[s as usize].replace(i as usize, card);
        }
        for (k, &count) in left.iter().enumerate() {
            for _ in 0..count {
                draw.push(k as u8);
            }
        }
        rng.shuffle(&mut draw.cards[..draw_len]);
        g.draw = draw;
        Some(g)
    }
}
