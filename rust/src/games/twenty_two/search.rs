//! Twenty-Two's determinization and the search bot's rollouts: what a seat
//! knows about the cards hidden from it (floors and ceilings its follows
//! showed), and deals that honour it.

use crate::points::Count;
use super::bots::card_list;
use super::json::{bad, card_set, card_text, per_seat, seat_of, set_texts};
use super::rules::{at_least, beats_or_equals, canonical_card, highest, rank_counts, rank_of, set_value};
use super::{FollowRule, Phase, TwentyTwo, CARDS, DISCARD, MAX_PLAYERS, MAX_TRICKS, PLAY};
use crate::cards::bits;
use crate::game::{pick, Action, Error, Game, Search, StateJson};
use crate::json::{self, ensure};
use crate::rng::SplitMix64;
use serde_json::{json, Value};


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
pub(super) struct Knowledge {
    /// The cards hidden from the seat: other hands, other seats' discards, the stock.
    pub(super) pool: u64,
    /// Per seat: the lowest rank its hand may hold.
    pub(super) floor: [u32; MAX_PLAYERS],
    /// Per seat: every card of its hand ranks below this (a weak single-card
    /// follow: nothing in hand met the bar); 13 when nothing is known.
    pub(super) ceiling: [u32; MAX_PLAYERS],
    /// (seat, cards it played from that follow on, the bar it did not meet).
    pub(super) weak: [(u8, u64, u64); MAX_WEAK],
    pub(super) weak_len: usize,
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
    fn feasible<C: Count>(&self, state: &TwentyTwo<C>, rest: &[u8], pool: u64) -> bool {
        let mut need = [0u32; MAX_PLAYERS];
        for &s in rest {
            need[s as usize] = state.hands[s as usize].count_ones();
        }
        for c in bits(pool as u128) {
            let r = rank_of(c);
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
    fn deal<C: Count>(
        &self,
        state: &TwentyTwo<C>,
        seat: usize,
        g: &mut TwentyTwo<C>,
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

impl<C: Count> Search for TwentyTwo<C> {
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
    /// anew with [`Search::resample`] (so they also meet what the plays
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

impl<C: Count> TwentyTwo<C> {
    /// What `seat`'s view of this state says about the cards hidden from it.
    pub(super) fn knowledge(&self, seat: usize) -> Knowledge {
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
                    let top = rank_of(63 - set.leading_zeros());
                    know.floor[s] = know.floor[s].max(top);
                    if self.params.follow_rule == FollowRule::FreeChoice {
                        continue;
                    }
                    if bar.count_ones() == 1 {
                        let ceiling = rank_of(bar.trailing_zeros());
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
