//! High Card's rules, in the order of its rule book
//! (`tests/testgame/rules.md`), under the same headings and with the same
//! function names as its Python twin (`tests/testgame/reference.py`).

use crate::points::Count;
use super::{HighCard, CARDS_PER_SEAT, MAX_CARDS, MAX_PLAYERS};
use crate::cards::{bits, check_deck};
use crate::fired;
use crate::game::{competition_placements, Action, Error, Outcome, Rules};
use crate::params::{choice_key, variant_keys, Variant};
use crate::rng::SplitMix64;

// ---------------------------------------------------------------------------
// §4 Setup and deal
// ---------------------------------------------------------------------------

impl<C: Count> HighCard<C> {
    /// A new game: dealt from `deck` if given (top card first, no generator
    /// call), else from the generator's one shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let mut game = HighCard {
            count: C::default(),
params,
            rng: SplitMix64::new(seed),
            hands: [0; MAX_PLAYERS],
            stock: [0; MAX_CARDS],
            stock_top: 0,
            stock_len: 0,
            round: [(0, 0); MAX_PLAYERS],
            round_len: 0,
            played: 0,
            leader: 0,
            to_act: 0,
            over: false,
            scores: [0; MAX_PLAYERS],
            history: Vec::new(),
        };
        let cards = match deck {
            Some(given) => check_deck(given, &params.canonical_deck())?
                .iter()
                .map(|&i| i as u8 + 1)
                .collect(),
            None => game.shuffled_deck(),
        };
        game.deal(&cards);
        Ok(game)
    }

    /// The cards in play in canonical order, shuffled (§2, §4.1).
    fn shuffled_deck(&mut self) -> Vec<u8> {
        let mut cards: Vec<u8> = (1..=self.params.highest_card() as u8).collect();
        self.rng.shuffle(&mut cards);
        cards
    }

    /// §4.2–4.3: `hand_size` cards each, one at a time from seat 0; the rest
    /// is the stock; seat 0 leads.
    fn deal(&mut self, deck: &[u8]) {
        fired!(self.count, "HC-P1");
        let n = self.params.players;
        let dealt = self.params.hand_size * n;
        for (i, &c) in deck[..dealt].iter().enumerate() {
            self.hands[i % n] |= 1 << c;
        }
        self.stock[..deck.len() - dealt].copy_from_slice(&deck[dealt..]);
        self.stock_len = deck.len() - dealt;
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for HighCard<C> {
    fn current_player(&self) -> Option<usize> {
        (!self.over).then_some(self.to_act as usize)
    }

    /// `play c` for every card of the hand, ascending (HC-1).
    fn legal_actions(&self, out: &mut Vec<Action>) {
        if !self.over {
            out.extend(bits(u128::from(self.hands[self.to_act as usize])).map(Action::from));
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        if self.over {
            return Some("the game is over".into());
        }
        (self.hands[self.to_act as usize] >> action & 1 == 0)
            .then(|| format!("card {action} is not in its hand"))
    }

    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        self.play_card(action as u8);
    }
}

// ---------------------------------------------------------------------------
// §6 Effects
// ---------------------------------------------------------------------------

impl<C: Count> HighCard<C> {
    /// §6.1: the card goes to the round, the player draws; after the last
    /// seat, the round is won.
    fn play_card(&mut self, card: u8) {
        let seat = self.to_act;
        self.hands[seat as usize] &= !(1 << card);
        self.round[self.round_len] = (seat, card);
        self.round_len += 1;
        self.draw(seat as usize);
        if self.round_len < self.params.players {
            self.to_act = (seat + 1) % self.params.players as u8;
        } else {
            self.end_round();
        }
    }

    /// HC-2: the top card of the stock, if it holds one.
    fn draw(&mut self, seat: usize) {
        if self.stock_top < self.stock_len {
            fired!(self.count, "HC-P2");
            self.hands[seat] |= 1 << self.stock[self.stock_top];
            self.stock_top += 1;
        } else {
            fired!(self.count, "HC-P3");
        }
    }

    /// §6.2: the highest card wins the round (HC-3) and leads the next; the
    /// game ends once the hands are empty (§7).
    fn end_round(&mut self) {
        let plays = &self.round[..self.round_len];
        let (winner, _) = plays.iter().copied().max_by_key(|&(_, c)| c).unwrap_or((0, 0));
        self.scores[winner as usize] += match self.params.scoring {
            Scoring::Count => 1,
            Scoring::Sum => plays.iter().map(|&(_, c)| i64::from(c)).sum(),
        };
        match self.params.scoring {
            Scoring::Count => fired!(self.count, "HC-P4"),
            Scoring::Sum => fired!(self.count, "HC-P5"),
        }
        self.played |= plays.iter().fold(0, |set, &(_, c)| set | 1 << c);
        self.round_len = 0;
        self.leader = winner;
        self.to_act = winner;
        self.over = self.hands.iter().all(|&h| h == 0);
        let scores = &self.scores[..self.params.players];
        let top = scores.iter().max().copied().unwrap_or(0);
        if self.over && scores.iter().filter(|&&s| s == top).count() > 1 {
            fired!(self.count, "HC-P6");
        }
    }
}

// ---------------------------------------------------------------------------
// §7 Game end
// ---------------------------------------------------------------------------

impl<C: Count> Outcome for HighCard<C> {
    fn scores(&self) -> Vec<i64> {
        self.scores[..self.params.players].to_vec()
    }

    /// The higher score is better; equal scores share (HC-4).
    fn final_placements(&self) -> Vec<u32> {
        competition_placements(self.params.players, |a, b| self.scores[a] > self.scores[b])
    }

    /// Rounds begun so far: the rounds won, and the one in play.
    fn rounds(&self) -> u32 {
        self.played.count_ones() / self.params.players as u32 + u32::from(self.round_len > 0)
    }
}

// ---------------------------------------------------------------------------
// §8 Variants (config keys, defaults first)
// ---------------------------------------------------------------------------

choice_key! {
    /// `scoring`: what winning a round scores.
    pub enum Scoring {
        /// One point.
        Count = "count",
        /// The sum of the round's cards.
        Sum = "sum",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Params {
        /// Cards dealt to each seat.
        hand_size: usize = int(3, 1, CARDS_PER_SEAT as i64),
        /// What winning a round scores.
        scoring: Scoring = choice,
    }
}

impl Variant for Params {
    /// No key depends on another.
    fn check_config(&self) -> Result<(), Error> {
        Ok(())
    }

    /// The cards 1 to 6N, ascending (§2).
    fn canonical_deck(&self) -> Vec<String> {
        (1..=self.highest_card()).map(|c| c.to_string()).collect()
    }
}

impl Params {
    /// The highest card: 6N (§1).
    pub fn highest_card(&self) -> u32 {
        (CARDS_PER_SEAT * self.players) as u32
    }
}
