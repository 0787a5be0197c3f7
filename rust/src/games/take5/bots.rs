//! Take 5's native bots: the random bot's fast paths (the k-th card of a
//! hand; in a batch of random bots, each hand ordered once a round) and the
//! heuristic (the strategy of `cardref.bots.heuristic.take5`).

use crate::points::Count;
use super::rules::bit;
use super::{Phase, Take5, ROWS, TAKE, TURNS};
use crate::cards::{bits, nth_bit};
use crate::game::{pick, random_step, Action, NativeBots};
use crate::rng::SplitMix64;

impl<C: Count> NativeBots for Take5<C> {
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
        let (cards, len) = self.shuffled_deck();
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

impl<C: Count> Take5<C> {
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
    pub(super) fn plan_random_plays(&self, rng: &mut SplitMix64, plan: &mut Vec<Action>) {
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

    /// The heuristic's rough estimate of the bullheads risked by playing `card` now.
    pub(super) fn card_cost(&self, card: u8) -> f64 {
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
