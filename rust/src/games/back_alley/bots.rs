//! Back Alley's native bots: the random bot's fast path (the k-th playable
//! card) and the heuristic (the strategy of `cardref.bots.heuristic.back_alley`:
//! only the hand, the bids and the trick are used).

use crate::points::Count;
use super::rules::{is_joker, suit_mask};
use super::{BackAlley, Phase, BID, BOARD, JOKERS, PASS, PLAYERS};
use crate::cards::{bits, nth_bit64};
use crate::game::{pick, Action, NativeBots, Rules};
use crate::rng::SplitMix64;

impl<C: Count> NativeBots for BackAlley<C> {
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

impl<C: Count> BackAlley<C> {
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
