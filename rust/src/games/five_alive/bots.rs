//! 5 Alive's native bots: the random bot's fast path (the i-th playable kind
//! by a select in three bytes, or `flip`; a Bomb answer with even odds) and
//! the heuristic (the strategy of `cardref.bots.heuristic.five_alive`).

use crate::points::Count;
use super::{BOMB, D1, D2, DECLINE, FLIP, FiveAlive, KINDS, Phase, REDEAL, RESPOND, REV, SET0, SET10, SET21, SKIP};
use crate::cards::SELECT_IN_BYTE;
use crate::game::{pick, Action, NativeBots, Rules};
use crate::rng::SplitMix64;

/// The `k`-th lowest set bit of `set`, a set of action codes (below 24; `k`
/// below its count). Branch-free, as the shared `cards::nth_bit64`, but for
/// three bytes: two hardware popcounts find the byte, the shared byte table
/// the bit in it (half the instructions and a shorter chain than the 64-bit
/// select).
#[inline]
fn nth_choice(set: u32, k: u32) -> u32 {
    debug_assert!(set < 1 << 24 && k < set.count_ones());
    let (below1, below2) = ((set & 0xFF).count_ones(), (set & 0xFFFF).count_ones());
    let byte = u32::from(k >= below1) + u32::from(k >= below2);
    let before = if k >= below2 {
        below2
    } else if k >= below1 {
        below1
    } else {
        0
    };
    let bits = (set >> (8 * byte)) as u8;
    8 * byte + u32::from(SELECT_IN_BYTE[(k - before) as usize & 7][usize::from(bits)])
}

impl<C: Count> NativeBots for FiveAlive<C> {
    /// Uniform over the legal actions without building their list: in play,
    /// index `i` (drawn by multiply-shift below their number) is the `i`-th
    /// playable kind in kind order, or `flip` one past the last; answering a
    /// Bomb, `respond 0` or `decline` with even odds, or `decline` alone.
    #[inline(always)]
    fn random_action(&self, rng: &mut SplitMix64, _buf: &mut Vec<Action>) -> Action {
        if self.phase == Phase::BombResponse {
            let holds_zero = self.hands[self.current as usize].contains(0);
            return if holds_zero && pick(rng, 2) == 0 {
                RESPOND
            } else {
                DECLINE
            };
        }
        // Action codes are kinds, then FLIP: the choices as one set, in order.
        let playable = self.playable();
        let flip = playable == 0 || self.params.allow_voluntary_flip;
        let choices = playable | u32::from(flip) << FLIP;
        let i = pick(rng, choices.count_ones() as usize);
        Action::from(nth_choice(choices, i as u32))
    }

    /// The strategy of `cardref.bots.heuristic.five_alive`: answer a Bomb with a
    /// 0; go out when possible; Redeal a heavy hand; numbers high to low; then
    /// the most harmful save (holding the Bomb while the hand is big).
    fn heuristic_action(&self, _rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        buf.clear();
        self.legal_actions(buf);
        if buf.contains(&RESPOND) {
            return RESPOND;
        }
        let plays: u32 = buf
            .iter()
            .filter(|&&a| a < KINDS as Action)
            .fold(0, |set, &a| set | 1 << a);
        if plays == 0 {
            return buf[0];
        }
        let me = self.current as usize;
        let hand = self.hands[me].len();
        if hand == 1 {
            return plays.trailing_zeros() as Action;
        }
        if plays >> REDEAL & 1 == 1 {
            let others: Vec<usize> = (0..self.n())
                .filter(|&s| s != me && !self.hands[s].is_empty())
                .map(|s| self.hands[s].len())
                .collect();
            if !others.is_empty()
                && hand as f64 > others.iter().sum::<usize>() as f64 / others.len() as f64 + 2.0
            {
                return REDEAL as Action;
            }
        }
        let numbers = plays & 0xFE;
        if numbers != 0 {
            return (31 - numbers.leading_zeros()) as Action;
        }
        let mut saves = plays;
        if hand > 4 && plays.count_ones() > 1 {
            saves &= !(1 << BOMB);
        }
        const PASS_KIND: u8 = 10;
        const SAVE_ORDER: [u8; 11] = [
            BOMB, SET21, D2, D1, SKIP, REV, PASS_KIND, SET10, SET0, 0, REDEAL,
        ];
        SAVE_ORDER
            .iter()
            .find(|&&k| saves >> k & 1 == 1)
            .map_or(buf[0], |&k| k as Action)
    }
}
