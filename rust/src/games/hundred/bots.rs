//! 100's native bots: the random bot's fast path (one draw over the playable
//! plain cards and every value of the playable value-choosing aces) and the
//! heuristic (the strategy of `cardref.bots.heuristic.hundred`).

use crate::points::Count;
use super::rules::{rank_of, suit, DIAMONDS, HEARTS, R10, R4, R5, RA, RJ, RK, RQ, SPADES};
use super::{Hundred, RedAce, LIMIT, VALUE_STEP};
use crate::cards::nth_bit64;
use crate::game::{pick, Action, NativeBots, Rules, StateJson};
use crate::rng::SplitMix64;
use std::hint::select_unpredictable;

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

impl<C: Count> NativeBots for Hundred<C> {
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

/// The heuristic bot's worth of keeping card `c`: the higher, the later it is played.
fn rescue_value(c: u8) -> i64 {
    match (rank_of(c), suit(c)) {
        (RQ, HEARTS) => 7,
        (R5, HEARTS | DIAMONDS) => 4,
        (RA, _) => 10,
        (RK | R4, _) => 6,
        (RJ, _) => 5,
        (R10, _) => 3,
        _ => 0,
    }
}

impl<C: Count> Hundred<C> {
    /// The heuristic bot's estimate of the value after card `c` (an ace that
    /// sets a value counts as keeping it; no floor at 0).
    fn heuristic_value_after(&self, c: u8, value: i64) -> i64 {
        match (rank_of(c), suit(c)) {
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
