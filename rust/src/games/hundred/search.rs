//! 100's determinization and the search bot's rollouts. Besides the cards,
//! each hand slot keeps what the other seats have seen about it: the stock
//! generation it came from and the value of any forced bust it was held
//! through (a card that busts there).

use crate::points::Count;
use super::json::{card_code, card_list, codes};
use super::{Hundred, LIMIT, MAX_CARDS, NO_BUST, VALUE_STEP};
use crate::game::{pick, Action, Error, Game, Rules, Search, StateJson};
use crate::json::{self, ensure};
use crate::rng::SplitMix64;
use serde_json::{json, Value};
use std::hint::select_unpredictable;

/// The values the search bot tries for a value-choosing ace.
pub(super) const ACE_TRIES: [Action; 13] = [0, 50, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100];

/// What a card that can never bust is worth to the search bot at the end of
/// a rollout, in chips.
const RESCUE_WORTH: f64 = 0.2;

impl<C: Count> Search for Hundred<C> {
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

impl<C: Count> Hundred<C> {
    /// Whether `c` can never bust (§6.1): it sets, keeps or lowers the value.
    fn never_busts(&self, c: u8) -> bool {
        self.params.safe_cards(LIMIT) >> c & 1 != 0
    }

    /// Whether `c` busts at value `v` (a value-choosing ace never does).
    pub(super) fn busts_at(&self, c: u8, v: u8) -> bool {
        v != NO_BUST && self.params.safe_cards(i64::from(v)) >> c & 1 == 0
    }

    /// A forced bust (HU-6) shows that every other card of the hand busts too.
    pub(super) fn mark_bust(&mut self, seat: usize) {
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
    pub(super) fn ambiguous_slots(&self, hand: std::ops::Range<usize>, played: usize, c: u8) -> (u64, u8) {
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
}
