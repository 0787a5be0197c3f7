//! Back Alley's rules, in the order of its rule book
//! (`docs/rules/back_alley.md`), under the same headings and with the same
//! function names as the Python reference
//! (`python/cardref/reference/back_alley.py`). Card sets and the stock as
//! arrays are handled by small helpers at the end of the file.

use crate::points::Count;
use super::json::card_text;
use super::{
    BackAlley, DealOutcome, DealRecord, Exchange, Phase, BB, BID, BOARD, DECK, JOKERS,
    LB, MAX_HAND, MAX_SCHEDULE, NO_TRUMP, PASS, PLAYERS, POINT_LIMIT,
};
use crate::cards::bits;
use crate::fired;
use crate::game::{competition_placements, Action, Error, Outcome, Rules};
pub use crate::params::FirstDealer;
use crate::params::{choice_key, variant_keys, CustomKey, KeyValue, Param, Variant};
use crate::rng::SplitMix64;
use serde_json::{json, Value};
use std::sync::Arc;

// ---------------------------------------------------------------------------
// §2 Card notation and deck order
// ---------------------------------------------------------------------------

/// The suit of a standard card: 0 for clubs .. 3 for spades.
pub(super) fn suit_of(c: u8) -> u8 {
    c / 13
}

/// The rank of a standard card: 0 for a two .. 12 for an ace.
fn rank_of(c: u8) -> u8 {
    c % 13
}

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Seats 0 and 2 are team 0, seats 1 and 3 team 1.
fn team_of(seat: usize) -> usize {
    seat % 2
}

/// The seat across the table.
fn partner_of(seat: usize) -> usize {
    (seat + 2) % PLAYERS
}

// ---------------------------------------------------------------------------
// §4 Setup, deal, dealer rotation, first leader
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// A new game. With `first_dealer = "random"` the first generator call
    /// picks the dealer; the first deal then uses `deck` if given (top card
    /// first, no generator call), else the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let first_deck = match deck {
            Some(given) => Some(Self::checked_deck(given)?),
            None => None,
        };
        let mut rng = SplitMix64::new(seed);
        let dealer = match params.first_dealer {
            FirstDealer::Seat(s) => s as u8,
            FirstDealer::Random => rng.bounded(4) as u8,
        };
        let mut game = BackAlley {
            count: C::default(),
hand_size: params.schedule[0],
            params,
            rng,
            phase: Phase::Bidding,
            hand_index: 0,
            dealer,
            all_pass_count: 0,
            hands: [0; PLAYERS],
            upcard: 0,
            turned: [0; 2],
            turned_len: 0,
            trump: NO_TRUMP,
            exchange: None,
            stock: [0; DECK],
            stock_len: 0,
            bids: [0; 4],
            bids_len: 0,
            to_act: 0,
            trick_leader: 0,
            trick: [0; 4],
            trick_len: 0,
            completed: [(0, [0; 4], 0); MAX_HAND],
            completed_len: 0,
            tricks_won: [0; PLAYERS],
            trump_broken: false,
            team_scores: [0; 2],
            deals: Vec::new(),
            history: Vec::with_capacity(512),
            deal_start: 0,
        };
        if game.params.first_dealer == FirstDealer::Random {
            fired!(game.count, "BA-P1");
        }
        let cards = match first_deck {
            Some(cards) => cards,
            None => game.shuffled_deck(),
        };
        game.deal(&cards);
        Ok(game)
    }

    /// A fresh deck in canonical order, shuffled by the generator.
    fn shuffled_deck(&mut self) -> [u8; DECK] {
        let mut cards = [0u8; DECK];
        for (i, c) in cards.iter_mut().enumerate() {
            *c = i as u8;
        }
        self.rng.shuffle(&mut cards);
        cards
    }

    /// §4 steps 1–5: hands, upcard and trump, joker handling, bidding opens.
    pub(super) fn deal(&mut self, deck: &[u8; DECK]) {
        let n = self.hand_size as usize;
        self.hands = [0; PLAYERS];
        for (i, &c) in deck[..4 * n].iter().enumerate() {
            self.hands[(self.dealer as usize + 1 + i) % PLAYERS] |= 1 << c;
        }
        self.upcard = deck[4 * n];
        let rest = &deck[4 * n + 1..];
        self.stock[..rest.len()].copy_from_slice(rest);
        self.stock_len = rest.len() as u8;
        self.turned_len = 0;
        self.exchange = None;
        if !is_joker(self.upcard) {
            fired!(self.count, "BA-P2");
            self.trump = suit_of(self.upcard);
        } else if self.params.joker_upcard == JokerUpcard::TurnNext {
            self.turn_next_card();
        } else {
            fired!(self.count, "BA-P3");
            self.trump = NO_TRUMP;
            self.joker_exchange();
        }
        self.open_bidding();
        self.deal_start = self.history.len();
    }

    /// Default: the holder of the other joker discards it and draws (BA-16).
    pub(super) fn joker_exchange(&mut self) {
        let other = if self.upcard == BB { LB } else { BB };
        let Some(seat) = (0..PLAYERS).find(|&s| self.hands[s] >> other & 1 == 1) else {
            fired!(self.count, "BA-P6");
            return;
        };
        fired!(self.count, "BA-P4");
        let drawn = if self.params.joker_exchange_draw == JokerExchangeDraw::Bottom {
            fired!(self.count, "BA-P5");
            self.stock_len -= 1;
            self.stock[self.stock_len as usize]
        } else {
            self.take_stock_top()
        };
        self.hands[seat] = self.hands[seat] & !(1 << other) | 1 << drawn;
        self.exchange = Some(Exchange {
            seat: seat as u8,
            discarded: other,
            drawn,
        });
    }

    /// `joker_upcard = "turn_next"`: jokers go under the stock until a standard
    /// card is turned; nothing moves if the stock holds no standard card.
    fn turn_next_card(&mut self) {
        if self.stock().iter().all(|&c| is_joker(c)) {
            fired!(self.count, "BA-P8");
            self.trump = NO_TRUMP;
            return;
        }
        while is_joker(self.upcard) {
            fired!(self.count, "BA-P7");
            self.stock[self.stock_len as usize] = self.upcard;
            self.stock_len += 1;
            self.turned[self.turned_len as usize] = self.upcard;
            self.turned_len += 1;
            self.upcard = self.take_stock_top();
        }
        self.trump = suit_of(self.upcard);
    }

    /// The bid `seat` made this deal, if it has bid.
    pub(super) fn bid_of(&self, seat: usize) -> Option<u8> {
        let i = (seat + PLAYERS - self.dealer as usize - 1) % PLAYERS;
        (i < self.bids_len as usize).then(|| self.bids[i])
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for BackAlley<C> {
    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::GameOver).then_some(self.to_act as usize)
    }

    /// Bidding: `bid pass`, `bid 1`.. `bid max`, `bid board`. Play: the legal
    /// cards in canonical deck order.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Bidding => {
                out.push(BID + PASS as Action);
                out.extend((1..=self.max_number_bid() as Action).map(|k| BID + k));
                out.push(BID + BOARD as Action);
            }
            Phase::Play => out.extend(bits(self.playable() as u128).map(Action::from)),
            Phase::GameOver => {}
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        match (self.phase, action >= BID) {
            (Phase::GameOver, _) => Some("the game is over".into()),
            (Phase::Bidding, false) => Some("the auction is not over; it must bid".into()),
            (Phase::Play, true) => Some("the auction is over; it must play a card".into()),
            (Phase::Bidding, true) => {
                let k = (action - BID) as u8;
                let max = self.max_number_bid();
                (k != PASS && k != BOARD && k > max).then(|| {
                    if max == 0 {
                        "no number bid is allowed now (only pass or board)".into()
                    } else {
                        format!("number bids must be from 1 to {max} now")
                    }
                })
            }
            (Phase::Play, false) => {
                let card = action as u8;
                if self.hands[self.to_act as usize] >> card & 1 == 0 {
                    Some(format!("{} is not in its hand", card_text(card)))
                } else if self.playable() >> card & 1 == 0 {
                    Some(if self.trick_len == 0 {
                        "trumps may not be led before they are broken".into()
                    } else {
                        "it must follow the led suit (or the Blooper's highest/lowest trump rule)"
                            .into()
                    })
                } else {
                    None
                }
            }
        }
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        if action >= BID {
            self.bid((action - BID) as u8);
        } else {
            self.play_card(action as u8);
        }
    }
}

// ---------------------------------------------------------------------------
// §5.1 Bidding
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// The highest number `to_act` may bid now (0 = none), BA-1 and BA-2.
    pub(super) fn max_number_bid(&self) -> u8 {
        let n = self.hand_size;
        let mut cap = match self.params.bid_cap {
            BidCap::HandSizeMinusOne => n - 1,
            BidCap::HandSize => n,
        };
        if self.params.bid_not_above_previous {
            let last_number = self.bids[..self.bids_len as usize]
                .iter()
                .rev()
                .find(|&&b| b != PASS && b != BOARD);
            if let Some(&k) = last_number {
                cap = cap.min(k);
            }
        }
        cap
    }

    pub(super) fn bid(&mut self, bid: u8) {
        if C::ON {
            self.note_bid(bid);
        }
        self.bids[self.bids_len as usize] = bid;
        self.bids_len += 1;
        if self.bids_len < 4 {
            self.to_act = (self.to_act + 1) % 4;
        } else {
            self.end_auction();
        }
    }

    /// The rule points of a bid.
    fn note_bid(&mut self, bid: u8) {
        let made = &self.bids[..self.bids_len as usize];
        match bid {
            PASS => fired!(self.count, "BA-P9"),
            BOARD => fired!(self.count, "BA-P11"),
            _ => fired!(self.count, "BA-P10"),
        }
        if bid == BOARD && made.contains(&BOARD) {
            fired!(self.count, "BA-P12");
        }
        if self.max_number_bid() == 0 {
            fired!(self.count, "BA-P13");
        }
        let n = self.hand_size;
        let cap = match self.params.bid_cap {
            BidCap::HandSizeMinusOne => n - 1,
            BidCap::HandSize => n,
        };
        let last = made.iter().rev().find(|&&b| b != PASS && b != BOARD);
        if self.params.bid_not_above_previous && last.is_some_and(|&k| k < cap) {
            fired!(self.count, "BA-P14");
        }
    }
}

// ---------------------------------------------------------------------------
// §5.2 Play
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// Both jokers and the trump suit are trumps (BA-13).
    pub(super) fn is_trump(&self, c: u8) -> bool {
        self.trump_set() >> c & 1 == 1
    }

    /// May `seat` lead trumps before they are broken (BA-11)?
    pub(super) fn exempt(&self, seat: usize) -> bool {
        match self.params.board_trump_lead_exemption {
            BoardTrumpLeadExemption::Player => self.bid_board(seat),
            BoardTrumpLeadExemption::Team => {
                self.bid_board(seat) || self.bid_board(partner_of(seat))
            }
            BoardTrumpLeadExemption::Nobody => false,
        }
    }

    /// §5.2: the cards `to_act` may play, as a set.
    pub(super) fn playable(&self) -> u64 {
        let seat = self.to_act as usize;
        let hand = self.hands[seat];
        let trumps = hand & self.trump_set();
        if self.trick_len == 0 {
            // No trump lead before trumps broke, unless exempt or holding only trumps (BA-11, BA-12).
            let restricted = !self.trump_broken && !self.exempt(seat) && hand & !trumps != 0;
            return if restricted { hand & !trumps } else { hand };
        }
        let led = self.trick[0];
        if trumps != 0 && self.blooper_rule_applies(led, self.trick_leader as usize, seat) {
            return self.blooper_answer(trumps, led);
        }
        // Follow the led suit, jokers being trumps (BA-13), else anything (BA-21, BA-22).
        let led_suit = if self.is_trump(led) {
            self.trump_set()
        } else {
            suit_mask(suit_of(led))
        };
        if hand & led_suit != 0 {
            hand & led_suit
        } else {
            hand
        }
    }

    /// The rule points of a lead or a follow (§5.2, §6.4).
    fn note_play(&mut self, card: u8) {
        let seat = self.to_act as usize;
        let hand = self.hands[seat];
        let trumps = hand & self.trump_set();
        if self.trick_len == 0 {
            let has_others = hand & !trumps != 0;
            if !self.trump_broken && !self.exempt(seat) && has_others {
                fired!(self.count, "BA-P15");
            }
            if self.is_trump(card) && !self.trump_broken {
                if self.exempt(seat) && has_others {
                    fired!(self.count, "BA-P16");
                } else if !has_others {
                    fired!(self.count, "BA-P17");
                }
            }
            if is_joker(card) && !self.params.blooper_lead_rules {
                fired!(self.count, "BA-P23");
            }
            return;
        }
        let led = self.trick[0];
        let leader = self.trick_leader as usize;
        if trumps != 0 && self.blooper_rule_applies(led, leader, seat) {
            if led == BB {
                fired!(self.count, "BA-P20");
            } else {
                fired!(self.count, "BA-P21");
            }
            return;
        }
        if led == BB && self.params.blooper_lead_rules && seat == partner_of(leader) {
            fired!(self.count, "BA-P22");
        }
        let led_suit = if self.is_trump(led) {
            self.trump_set()
        } else {
            suit_mask(suit_of(led))
        };
        if hand & led_suit != 0 {
            fired!(self.count, "BA-P18");
        } else {
            fired!(self.count, "BA-P19");
        }
    }

    /// The card goes to the trick; after the fourth, the trick is resolved.
    fn play_card(&mut self, card: u8) {
        if C::ON {
            self.note_play(card);
        }
        let seat = self.to_act as usize;
        self.hands[seat] &= !(1 << card);
        self.trick[self.trick_len as usize] = card;
        self.trick_len += 1;
        if self.trick_len < 4 {
            self.to_act = (self.to_act + 1) % 4;
        } else {
            self.resolve_trick();
        }
    }
}

// ---------------------------------------------------------------------------
// §6.1 End of the auction
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// Four passes void the deal; otherwise play starts with the first leader.
    fn end_auction(&mut self) {
        if self.bids.iter().all(|&b| b == PASS) {
            self.all_pass();
            return;
        }
        self.all_pass_count = 0;
        self.phase = Phase::Play;
        self.trick_leader = self.first_leader() as u8;
        self.to_act = self.trick_leader;
        if C::ON {
            self.note_auction();
        }
    }

    /// The rule points of the contracts and the first leader (§6.1, §6.2).
    fn note_auction(&mut self) {
        let bids = self.bids;
        for team in 0..2 {
            let own: Vec<u8> = (0..4)
                .filter(|&i| team_of(self.bidder(i)) == team)
                .map(|i| bids[i])
                .collect();
            if own.contains(&BOARD) {
                fired!(self.count, "BA-P26");
                if self.params.board_multiplier_scope == BoardMultiplierScope::Hand {
                    fired!(self.count, "BA-P27");
                }
                if own.iter().any(|&b| b != PASS && b != BOARD) {
                    fired!(self.count, "BA-P28");
                }
                continue;
            }
            fired!(self.count, "BA-P29");
            let contract: u32 = own.iter().map(|&b| u32::from(b)).sum();
            if contract == 0 {
                fired!(self.count, "BA-P30");
            }
            if contract > u32::from(self.hand_size) {
                fired!(self.count, "BA-P31");
            }
        }
        if bids.contains(&BOARD) {
            if self.params.board_lead == BoardLead::First {
                fired!(self.count, "BA-P33");
            } else {
                fired!(self.count, "BA-P32");
            }
            return;
        }
        fired!(self.count, "BA-P34");
        let best = bids.iter().copied().max().unwrap_or(0);
        if bids.iter().filter(|&&b| b == best).count() > 1 {
            fired!(self.count, "BA-P35");
        }
    }

    /// BA-20: a redeal at the same hand size, or abandon after the cap.
    pub(super) fn all_pass(&mut self) {
        self.all_pass_count += 1;
        if self.all_pass_count < self.params.max_consecutive_all_pass {
            fired!(self.count, "BA-P24");
            self.record_deal(DealOutcome::Redeal, [0; 2], [0; 2]);
            self.next_deal();
        } else {
            fired!(self.count, "BA-P25");
            self.record_deal(DealOutcome::Abandoned, [0; 2], [0; 2]);
            self.all_pass_count = 0;
            self.hand_index += 1;
            self.next_deal();
        }
    }
}

// ---------------------------------------------------------------------------
// §6.2 First leader
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// BA-10: the last (or first) board bidder, else the first highest number.
    pub(super) fn first_leader(&self) -> usize {
        let boards = (0..4).filter(|&i| self.bids[i] == BOARD);
        let board = if self.params.board_lead == BoardLead::First {
            boards.min()
        } else {
            boards.max()
        };
        let i = board.unwrap_or_else(|| {
            let best = self.bids.iter().copied().max().unwrap_or(0);
            (0..4).find(|&i| self.bids[i] == best).unwrap_or(0)
        });
        self.bidder(i)
    }
}

// ---------------------------------------------------------------------------
// §6.3 Resolving a trick
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// The strength of `card` in a trick led with `led`: trumps above the led
    /// suit, cards of other suits never win.
    pub(super) fn strength(&self, card: u8, led: u8) -> i32 {
        if self.trump_set() >> card & 1 == 1 {
            100 + match card {
                BB => 14,
                LB => 13,
                _ => rank_of(card) as i32,
            }
        } else if !is_joker(led) && suit_of(card) == suit_of(led) {
            rank_of(card) as i32
        } else {
            -1
        }
    }

    /// The seat whose card is strongest in the trick led by `leader`.
    pub(super) fn trick_winner(&self, leader: u8, cards: &[u8; 4]) -> u8 {
        let best = (0..4)
            .max_by_key(|&i| self.strength(cards[i], cards[0]))
            .unwrap_or(0);
        (leader + best as u8) % 4
    }

    /// The winner takes the trick and leads next; a trump in it breaks trumps.
    fn resolve_trick(&mut self) {
        let winner = self.trick_winner(self.trick_leader, &self.trick);
        let trumps = self.trick.iter().any(|&c| self.trump_set() >> c & 1 == 1);
        self.completed[self.completed_len as usize] = (self.trick_leader, self.trick, winner);
        self.completed_len += 1;
        self.tricks_won[winner as usize] += 1;
        if trumps {
            fired!(self.count, "BA-P36");
            if !self.trump_broken {
                fired!(self.count, "BA-P38");
            }
        } else {
            fired!(self.count, "BA-P37");
        }
        self.trump_broken |= trumps;
        self.trick_len = 0;
        self.trick_leader = winner;
        self.to_act = winner;
        if self.completed_len == self.hand_size {
            self.score_deal();
        }
    }
}

// ---------------------------------------------------------------------------
// §6.4 The Bloopers
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// BA-14: whether a Blooper led by `leader` binds `seat`: the Little one
    /// binds every other player, the Big one its leader's partner only with
    /// `big_blooper_binds_partner`; neither without `blooper_lead_rules`.
    pub(super) fn blooper_rule_applies(&self, led: u8, leader: usize, seat: usize) -> bool {
        let partner = seat == partner_of(leader);
        self.params.blooper_lead_rules
            && (led == LB || (led == BB && (self.params.big_blooper_binds_partner || !partner)))
    }

    /// BA-14: the card a bound player holding `trumps` must play: its highest
    /// trump under the Big Blooper, its lowest under the Little one.
    fn blooper_answer(&self, trumps: u64, led: u8) -> u64 {
        if led == BB {
            highest_trump(trumps)
        } else {
            lowest_trump(trumps)
        }
    }
}

// ---------------------------------------------------------------------------
// §7 Hand end, scoring, game end
// ---------------------------------------------------------------------------

impl<C: Count> BackAlley<C> {
    /// The board level of team `team` (0 = no board), BA-5.
    pub(super) fn board_level(&self, team: usize) -> u32 {
        let mut level = 0;
        let mut highest = 0;
        for i in 0..4 {
            if self.bids[i] == BOARD {
                let this = (0..=i).filter(|&j| self.bids[j] == BOARD).count() as u32;
                highest = this;
                if team_of(self.bidder(i)) == team {
                    level = this;
                }
            }
        }
        if self.params.board_multiplier_scope == BoardMultiplierScope::Hand && level > 0 {
            highest
        } else {
            level
        }
    }

    /// Points of team `team` taking `taken` tricks this deal (§7).
    pub(super) fn deal_points(&self, team: usize, taken: i64) -> i64 {
        let p = &self.params;
        let n = self.hand_size as i64;
        let level = self.board_level(team);
        if level > 0 {
            let m = match p.board_multiplier {
                BoardMultiplier::Linear => level as i64,
                BoardMultiplier::Doubling => 1i64 << (level - 1),
            };
            let value = p.board_points_per_trick * n * m;
            return if taken == n { value } else { -value };
        }
        let b: i64 = (0..4)
            .filter(|&i| team_of(self.bidder(i)) == team)
            .map(|i| self.bids[i] as i64)
            .sum();
        if taken >= b {
            p.bid_points_per_trick * b + p.overtrick_points * (taken - b)
        } else {
            -p.set_points_per_bid_trick * b
        }
    }

    /// The deal's points go to the team totals; the next deal follows.
    fn score_deal(&mut self) {
        let tricks = [0, 1].map(|t| self.tricks_won[t] + self.tricks_won[t + 2]);
        let points = [0, 1].map(|t| self.deal_points(t, tricks[t] as i64));
        for (team, &taken) in tricks.iter().enumerate().filter(|_| C::ON) {
            let level = self.board_level(team);
            if level > 0 {
                if taken == self.hand_size {
                    fired!(self.count, "BA-P41");
                } else {
                    fired!(self.count, "BA-P42");
                }
                if self.params.board_multiplier == BoardMultiplier::Doubling && level >= 2 {
                    fired!(self.count, "BA-P43");
                }
                continue;
            }
            let contract: u32 = (0..4)
                .filter(|&i| team_of(self.bidder(i)) == team)
                .map(|i| u32::from(self.bids[i]))
                .sum();
            if u32::from(taken) >= contract {
                fired!(self.count, "BA-P39");
            } else {
                fired!(self.count, "BA-P40");
            }
        }
        self.team_scores[0] += points[0];
        self.team_scores[1] += points[1];
        self.record_deal(DealOutcome::Played, tricks, points);
        self.hand_index += 1;
        self.next_deal();
    }

    /// The public record of the deal, whatever its outcome.
    fn record_deal(&mut self, outcome: DealOutcome, tricks: [u8; 2], points: [i64; 2]) {
        self.deals.push(DealRecord {
            dealer: self.dealer,
            hand_index: self.hand_index,
            hand_size: self.hand_size,
            upcard: self.upcard,
            turned: self.turned,
            turned_len: self.turned_len,
            trump: self.trump,
            exchange: self.exchange.map(|e| (e.seat, e.discarded)),
            bids: self.bids,
            tricks,
            points,
            outcome,
        });
    }

    /// The game ends after the last schedule entry; else the next dealer deals.
    fn next_deal(&mut self) {
        if self.hand_index == self.params.schedule.len() {
            if self.team_scores[0] == self.team_scores[1] {
                fired!(self.count, "BA-P45");
            } else {
                fired!(self.count, "BA-P44");
            }
            self.phase = Phase::GameOver;
            return;
        }
        self.dealer = (self.dealer + 1) % 4;
        self.hand_size = self.params.schedule[self.hand_index];
        let deck = self.shuffled_deck();
        self.deal(&deck);
    }

    /// Once the game is over: the team with the higher total wins; equal totals draw.
    pub(super) fn result(&self) -> Option<&'static str> {
        (self.phase == Phase::GameOver).then(|| {
            match self.team_scores[0].cmp(&self.team_scores[1]) {
                std::cmp::Ordering::Greater => "team0",
                std::cmp::Ordering::Less => "team1",
                std::cmp::Ordering::Equal => "draw",
            }
        })
    }
}

impl<C: Count> Outcome for BackAlley<C> {
    fn scores(&self) -> Vec<i64> {
        (0..PLAYERS).map(|s| self.team_scores[s % 2]).collect()
    }

    fn final_placements(&self) -> Vec<u32> {
        competition_placements(PLAYERS, |a, b| {
            self.team_scores[a % 2] > self.team_scores[b % 2]
        })
    }

    /// Deals dealt so far (played, redealt or abandoned), the one in play included.
    fn rounds(&self) -> u32 {
        (self.deals.len() + usize::from(self.phase != Phase::GameOver)) as u32
    }
}

// ---------------------------------------------------------------------------
// §8 Variants (config keys, defaults first)
// ---------------------------------------------------------------------------

const SCHEDULES: [&str; 4] = ["13-1-13", "13-1-1-13", "1-13-1", "1-13-13-1"];

/// `schedule`: the hand size of every deal that counts (BA-19), a named
/// schedule or an explicit list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The hand sizes, deal by deal.
    sizes: Arc<[u8]>,
    /// The name, for a named schedule.
    name: Option<&'static str>,
}

impl std::ops::Deref for Schedule {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.sizes
    }
}

impl KeyValue for Schedule {
    fn to_json(&self) -> Value {
        match self.name {
            Some(name) => json!(name),
            None => json!(&self.sizes[..]),
        }
    }
}

impl CustomKey for Schedule {
    fn default_value() -> Self {
        Schedule {
            sizes: named_schedule(SCHEDULES[0]).into(),
            name: Some(SCHEDULES[0]),
        }
    }

    fn read(given: Param) -> Result<Self, String> {
        let allowed = format!(
            "must be one of {} or a non-empty list of at most {MAX_SCHEDULE} integers from 1 to 13",
            SCHEDULES
                .iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        match given {
            Param::Str(s) => match SCHEDULES.iter().find(|&&name| name == s) {
                Some(&name) => Ok(Schedule {
                    sizes: named_schedule(name).into(),
                    name: Some(name),
                }),
                None => Err(format!("{allowed}, got {}", Param::Str(s).describe())),
            },
            Param::List(items) if !items.is_empty() && items.len() <= MAX_SCHEDULE => {
                let sizes = items
                    .iter()
                    .map(|item| match item {
                        Param::Int(k) if (1..=13).contains(k) => Ok(*k as u8),
                        _ => Err(format!("{allowed}, got a list holding {}", item.describe())),
                    })
                    .collect::<Result<Vec<u8>, _>>()?;
                Ok(Schedule {
                    sizes: sizes.into(),
                    name: None,
                })
            }
            other => Err(format!("{allowed}, got {}", other.describe())),
        }
    }
}

/// The hand sizes of a named schedule (§4, §8).
pub(super) fn named_schedule(name: &str) -> Vec<u8> {
    let down: Vec<u8> = (1..=13).rev().collect();
    let up: Vec<u8> = (1..=13).collect();
    match name {
        "13-1-13" => [&down[..], &up[1..]].concat(),
        "13-1-1-13" => [&down[..], &up[..]].concat(),
        "1-13-1" => [&up[..], &down[1..]].concat(),
        _ => [&up[..], &down[..]].concat(),
    }
}

choice_key! {
    /// `joker_upcard`: what a turned-up joker does (BA-16).
    pub enum JokerUpcard {
        /// No trump; the other joker's holder exchanges it.
        NoTrump = "no_trump",
        /// Jokers go under the stock until a standard card is turned.
        TurnNext = "turn_next",
    }
}

choice_key! {
    /// `joker_exchange_draw`: where the exchanging seat draws from (BA-17).
    pub enum JokerExchangeDraw {
        /// The top of the stock.
        Top = "top",
        /// The bottom of the stock.
        Bottom = "bottom",
    }
}

choice_key! {
    /// `bid_cap`: the highest number bid (BA-2).
    pub enum BidCap {
        /// The hand size minus one.
        HandSizeMinusOne = "hand_size_minus_one",
        /// The hand size.
        HandSize = "hand_size",
    }
}

choice_key! {
    /// `board_lead`: which board bidder leads (BA-10).
    pub enum BoardLead {
        /// The last board bidder.
        Last = "last",
        /// The first board bidder.
        First = "first",
    }
}

choice_key! {
    /// `board_multiplier`: a board's worth by its level (BA-6).
    pub enum BoardMultiplier {
        /// Level L counts L times.
        Linear = "linear",
        /// Level L counts 2^(L-1) times.
        Doubling = "doubling",
    }
}

choice_key! {
    /// `board_multiplier_scope`: whose boards set a team's level (BA-5).
    pub enum BoardMultiplierScope {
        /// The team's own highest board.
        Team = "team",
        /// The highest board of the hand, for every team that bid one.
        Hand = "hand",
    }
}

choice_key! {
    /// `board_trump_lead_exemption`: who may lead trumps before they are
    /// broken (§5.2, BA-11).
    pub enum BoardTrumpLeadExemption {
        /// The leader personally bid board.
        Player = "player",
        /// The leader or the leader's partner bid board.
        Team = "team",
        /// Nobody.
        Nobody = "none",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Params {
        /// The hand size of every deal that counts.
        schedule: Schedule = custom,
        /// The first dealer: a seat or "random" (BA-25).
        first_dealer: FirstDealer = custom,
        /// What a turned-up joker does.
        joker_upcard: JokerUpcard = choice,
        /// Where the joker exchange draws from.
        joker_exchange_draw: JokerExchangeDraw = choice,
        /// The highest number bid.
        bid_cap: BidCap = choice,
        /// Whether a number bid may not exceed the last one (BA-1).
        bid_not_above_previous: bool = boolean(false),
        /// Which board bidder leads.
        board_lead: BoardLead = choice,
        /// A board's worth by its level.
        board_multiplier: BoardMultiplier = choice,
        /// Whose boards set a team's level.
        board_multiplier_scope: BoardMultiplierScope = choice,
        /// Who may lead trumps before they are broken.
        board_trump_lead_exemption: BoardTrumpLeadExemption = choice,
        /// Whether a led Blooper forces the highest or lowest trump (BA-14).
        blooper_lead_rules: bool = boolean(true),
        /// Whether a led Big Blooper binds the leader's partner (BA-14).
        big_blooper_binds_partner: bool = boolean(true),
        /// Points per trick of a number contract made.
        bid_points_per_trick: i64 = int(5, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points per trick above a number contract.
        overtrick_points: i64 = int(1, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points lost per bid trick of a contract set.
        set_points_per_bid_trick: i64 = int(5, -POINT_LIMIT - 1, POINT_LIMIT),
        /// Points per trick of a board.
        board_points_per_trick: i64 = int(10, -POINT_LIMIT - 1, POINT_LIMIT),
        /// All-pass auctions in a row after which a hand is abandoned (BA-20).
        max_consecutive_all_pass: i64 = int(4, 1, i64::MAX),
    }
}

impl Variant for Params {
    /// The first dealer must be a seat of the table; the player count (4)
    /// is checked by the frame.
    fn check_config(&self) -> Result<(), Error> {
        self.first_dealer.check_seat(PLAYERS)
    }

    /// The 54 cards in canonical order (§2).
    fn canonical_deck(&self) -> Vec<String> {
        (0..DECK as u8).map(card_text).collect()
    }
}

// ---------------------------------------------------------------------------
// Helpers: card sets and the stock (no rule is decided here)
// ---------------------------------------------------------------------------

pub(super) fn is_joker(c: u8) -> bool {
    c >= BB
}

pub(super) fn suit_mask(suit: u8) -> u64 {
    0x1FFF << (13 * suit as u64)
}

/// The highest card of a non-empty trump set: BB, LB, then A..2 of trump.
pub(super) fn highest_trump(trumps: u64) -> u64 {
    for joker in [BB, LB] {
        if trumps >> joker & 1 == 1 {
            return 1 << joker;
        }
    }
    1 << (63 - trumps.leading_zeros())
}

/// The lowest card of a non-empty trump set: 2..A of trump, then LB, then BB.
pub(super) fn lowest_trump(trumps: u64) -> u64 {
    let suit = trumps & !JOKERS;
    if suit != 0 {
        suit & suit.wrapping_neg()
    } else if trumps >> LB & 1 == 1 {
        1 << LB
    } else {
        1 << BB
    }
}

impl<C: Count> BackAlley<C> {
    fn checked_deck(given: &[String]) -> Result<[u8; DECK], Error> {
        let canonical: Vec<String> = (0..DECK as u8).map(card_text).collect();
        let order = crate::cards::check_deck(given, &canonical)?;
        let mut cards = [0u8; DECK];
        for (slot, &i) in cards.iter_mut().zip(&order) {
            *slot = i as u8;
        }
        Ok(cards)
    }

    /// The deal's play state before its first bid: the seat after the dealer
    /// bids first; no bids, tricks or broken trumps yet.
    pub(super) fn open_bidding(&mut self) {
        self.phase = Phase::Bidding;
        self.bids_len = 0;
        self.to_act = (self.dealer + 1) % 4;
        self.trick_len = 0;
        self.completed_len = 0;
        self.tricks_won = [0; PLAYERS];
        self.trump_broken = false;
    }

    pub(super) fn stock(&self) -> &[u8] {
        &self.stock[..self.stock_len as usize]
    }

    fn take_stock_top(&mut self) -> u8 {
        let top = self.stock[0];
        self.stock.copy_within(1..self.stock_len as usize, 0);
        self.stock_len -= 1;
        top
    }

    /// The seat that made the i-th bid of this auction.
    pub(super) fn bidder(&self, i: usize) -> usize {
        (self.dealer as usize + 1 + i) % PLAYERS
    }

    /// The trump set: both jokers and the trump suit.
    pub(super) fn trump_set(&self) -> u64 {
        if self.trump == NO_TRUMP {
            JOKERS
        } else {
            JOKERS | suit_mask(self.trump)
        }
    }

    fn bid_board(&self, seat: usize) -> bool {
        self.bid_of(seat) == Some(BOARD)
    }
}
