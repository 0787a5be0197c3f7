//! Back Alley's texts: the action grammar, what a seat may know, the
//! canonical state JSON and loading it back with every consistency check.

use crate::points::Count;
use super::rules::is_joker;
use super::{
    BackAlley, BidCap, DealOutcome, DealRecord, Exchange, JokerUpcard, Params, Phase, ALL_CARDS, BB,
    BID, BOARD, DECK, LB, NO_TRUMP, PASS, PLAYERS,
};
use crate::cards::bits;
use crate::game::{parse_canonical_uint, Action, Error, Game, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::VariantKeys;
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];

const SUITS: [&str; 4] = ["C", "D", "H", "S"];

/// The code of card `c` as the rule book writes it (`10H`, `AS`, `BB`).
pub fn card_text(c: u8) -> String {
    match c {
        BB => "BB".into(),
        LB => "LB".into(),
        _ => format!("{}{}", RANKS[(c % 13) as usize], SUITS[(c / 13) as usize]),
    }
}

/// Parses a card code exactly as the rule book writes it.
pub fn parse_card(text: &str) -> Option<u8> {
    match text {
        "BB" => return Some(BB),
        "LB" => return Some(LB),
        _ => {}
    }
    let (rank, suit) = text.split_at(text.len().checked_sub(1)?);
    let suit = SUITS.iter().position(|s| *s == suit)?;
    let rank = RANKS.iter().position(|r| *r == rank)?;
    Some((suit * 13 + rank) as u8)
}

pub(super) fn cards_text(set: u64) -> Vec<String> {
    bits(set as u128).map(|c| card_text(c as u8)).collect()
}

pub(super) fn trump_text(trump: u8) -> &'static str {
    if trump == NO_TRUMP {
        "none"
    } else {
        SUITS[trump as usize]
    }
}

fn bid_text(bid: u8) -> String {
    match bid {
        PASS => "pass".into(),
        BOARD => "board".into(),
        k => k.to_string(),
    }
}

fn played_json(leader: u8, cards: &[u8]) -> Value {
    Value::Array(
        cards
            .iter()
            .enumerate()
            .map(|(i, &c)| json!([(leader as usize + i) % 4, card_text(c)]))
            .collect(),
    )
}

impl<C: Count> StateJson for BackAlley<C> {
    fn parse_action(text: &str) -> Option<Action> {
        if let Some(c) = text.strip_prefix("play ") {
            parse_card(c).map(Action::from)
        } else {
            text.strip_prefix("bid ")
                .and_then(parse_bid)
                .map(|b| BID + b as Action)
        }
    }

    fn write_action(action: Action, out: &mut String) {
        if action >= BID {
            out.push_str("bid ");
            out.push_str(&bid_text((action - BID) as u8));
        } else {
            out.push_str("play ");
            out.push_str(&card_text(action as u8));
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = self.public_fields();
        m.insert("seat".into(), json!(seat));
        m.insert(
            "hand".into(),
            json!(cards_text(self.hands.get(seat).copied().unwrap_or(0))),
        );
        m.insert("hand_sizes".into(), json!(self.hands.map(u64::count_ones)));
        m.insert("stock_size".into(), json!(self.stock_len));
        m.insert(
            "joker_exchange".into(),
            self.exchange_json(|s| s as usize == seat),
        );
        m.insert(
            "actions".into(),
            json!(self.history[self.deal_start..]
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        Value::Object(m)
    }

    fn to_json(&self) -> Value {
        let mut m = self.public_fields();
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("hands".into(), json!(self.hands.map(cards_text)));
        m.insert(
            "stock".into(),
            json!(self
                .stock()
                .iter()
                .map(|&c| card_text(c))
                .collect::<Vec<_>>()),
        );
        m.insert("joker_exchange".into(), self.exchange_json(|_| true));
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        m.insert("deal_start".into(), json!(self.deal_start));
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, PLAYERS, &params.to_json())?;
        let mut g = BackAlley::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.phase = match json::string(v, "phase")? {
            "bidding" => Phase::Bidding,
            "play" => Phase::Play,
            "game_over" => Phase::GameOver,
            other => return Err(bad(format!("unknown phase {other:?}"))),
        };
        g.hand_index = json::uint(v, "hand_index")? as usize;
        g.hand_size = small(json::uint(v, "hand_size")?, 14, "hand_size")?;
        g.dealer = small(json::uint(v, "dealer")?, 4, "dealer")?;
        g.all_pass_count = json::int(v, "all_pass_count")?;
        g.read_cards(v)?;
        g.read_bids(json::array(v, "bids")?)?;
        g.read_tricks(v)?;
        g.trump_broken = json::field(v, "trump_broken")?
            .as_bool()
            .ok_or_else(|| bad("trump_broken must be true or false".into()))?;
        let scores = json::ints(json::field(v, "team_scores")?, "team_scores")?;
        ensure(scores.len() == 2, || {
            "team_scores must hold two totals".into()
        })?;
        g.team_scores = [scores[0], scores[1]];
        g.deals = json::array(v, "deals")?
            .iter()
            .map(read_deal)
            .collect::<Result<_, _>>()?;
        g.history = json::strings(json::field(v, "history")?, "history")?
            .into_iter()
            .map(|t| {
                Self::parse_action(t)
                    .ok_or_else(|| bad(format!("{t:?} in history is not an action")))
            })
            .collect::<Result<_, _>>()?;
        g.deal_start = json::uint(v, "deal_start")? as usize;
        g.check_consistency(v)?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl DealRecord {
    /// `joker_exchange` is present only when there was one (keeps records TOML-friendly).
    fn to_json(&self) -> Value {
        let mut record = json!({
            "dealer": self.dealer,
            "hand_index": self.hand_index,
            "hand_size": self.hand_size,
            "upcard": card_text(self.upcard),
            "turned_jokers": self.turned[..self.turned_len as usize].iter().map(|&c| card_text(c)).collect::<Vec<_>>(),
            "trump": trump_text(self.trump),
            "bids": (0..4).map(|i| json!([(self.dealer as usize + 1 + i) % 4, bid_text(self.bids[i])])).collect::<Vec<_>>(),
            "tricks": self.tricks,
            "points": self.points,
            "outcome": self.outcome.name(),
        });
        if let Some((seat, discarded)) = self.exchange {
            record["joker_exchange"] = json!({"seat": seat, "discarded": card_text(discarded)});
        }
        record
    }
}

impl<C: Count> BackAlley<C> {
    fn bids_json(&self) -> Value {
        Value::Array(
            (0..self.bids_len as usize)
                .map(|i| json!([self.bidder(i), bid_text(self.bids[i])]))
                .collect(),
        )
    }

    fn completed_json(&self) -> Value {
        Value::Array(
            self.completed[..self.completed_len as usize]
                .iter()
                .map(|(leader, cards, winner)| {
                    json!({"leader": leader, "cards": played_json(*leader, cards), "winner": winner})
                })
                .collect(),
        )
    }

    fn exchange_json(&self, show_drawn: impl Fn(u8) -> bool) -> Value {
        match self.exchange {
            None => Value::Null,
            Some(e) => {
                let mut m = json!({"seat": e.seat, "discarded": card_text(e.discarded)});
                if show_drawn(e.seat) {
                    m["drawn"] = json!(card_text(e.drawn));
                }
                m
            }
        }
    }

    fn in_play(&self) -> bool {
        self.phase == Phase::Play
    }

    /// The fields shared by the state JSON and every observation.
    fn public_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        m.insert("players".into(), json!(PLAYERS));
        m.insert("params".into(), self.params.to_json());
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert("hand_index".into(), json!(self.hand_index));
        m.insert("hand_size".into(), json!(self.hand_size));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("all_pass_count".into(), json!(self.all_pass_count));
        m.insert("to_act".into(), json!(self.current_player()));
        m.insert("upcard".into(), json!(card_text(self.upcard)));
        m.insert(
            "turned_jokers".into(),
            json!(self.turned[..self.turned_len as usize]
                .iter()
                .map(|&c| card_text(c))
                .collect::<Vec<_>>()),
        );
        m.insert("trump".into(), json!(trump_text(self.trump)));
        m.insert("bids".into(), self.bids_json());
        m.insert(
            "trick_leader".into(),
            json!(self.in_play().then_some(self.trick_leader)),
        );
        m.insert(
            "trick".into(),
            played_json(self.trick_leader, &self.trick[..self.trick_len as usize]),
        );
        m.insert("completed_tricks".into(), self.completed_json());
        m.insert("tricks_won".into(), json!(self.tricks_won));
        m.insert("trump_broken".into(), json!(self.trump_broken));
        m.insert("team_scores".into(), json!(self.team_scores));
        m.insert(
            "deals".into(),
            Value::Array(self.deals.iter().map(DealRecord::to_json).collect()),
        );
        m.insert("result".into(), json!(self.result()));
        m
    }

    fn read_cards(&mut self, v: &Value) -> Result<(), Error> {
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == PLAYERS, || {
            "hands must have one entry per seat".into()
        })?;
        for (s, h) in hands.iter().enumerate() {
            self.hands[s] = card_set(&card_list(h, "hands")?, "a hand")?;
        }
        self.upcard = card(json::string(v, "upcard")?)?;
        let turned = card_list(json::field(v, "turned_jokers")?, "turned_jokers")?;
        ensure(
            turned.len() <= 2 && turned.iter().all(|&c| is_joker(c)),
            || "turned_jokers must hold jokers only".into(),
        )?;
        self.turned_len = turned.len() as u8;
        self.turned[..turned.len()].copy_from_slice(&turned);
        let stock = card_list(json::field(v, "stock")?, "stock")?;
        ensure(stock.len() <= DECK, || "the stock is too long".into())?;
        self.stock_len = stock.len() as u8;
        self.stock[..stock.len()].copy_from_slice(&stock);
        self.trump = match json::string(v, "trump")? {
            "none" => NO_TRUMP,
            s => SUITS
                .iter()
                .position(|x| *x == s)
                .ok_or_else(|| bad(format!("unknown trump {s:?}")))? as u8,
        };
        self.exchange = match json::field(v, "joker_exchange")? {
            Value::Null => None,
            e => Some(Exchange {
                seat: small(json::uint(e, "seat")?, 4, "joker_exchange seat")?,
                discarded: card(json::string(e, "discarded")?)?,
                drawn: card(json::string(e, "drawn")?)?,
            }),
        };
        Ok(())
    }

    fn read_bids(&mut self, bids: &[Value]) -> Result<(), Error> {
        ensure(bids.len() <= 4, || "at most four bids per auction".into())?;
        for (i, pair) in bids.iter().enumerate() {
            let seat = pair.get(0).and_then(Value::as_u64);
            let bid = pair.get(1).and_then(Value::as_str).and_then(parse_bid);
            match (seat, bid) {
                (Some(s), Some(b))
                    if pair.as_array().is_some_and(|a| a.len() == 2)
                        && s as usize == self.bidder(i) =>
                {
                    self.bids[i] = b;
                }
                _ => {
                    return Err(bad(format!(
                        "bid {i} must be [seat, bid] by seat {} (bidding order)",
                        self.bidder(i)
                    )))
                }
            }
        }
        self.bids_len = bids.len() as u8;
        Ok(())
    }

    fn read_tricks(&mut self, v: &Value) -> Result<(), Error> {
        let completed = json::array(v, "completed_tricks")?;
        ensure(completed.len() <= self.hand_size as usize, || {
            "more completed tricks than the hand size".into()
        })?;
        for (t, trick) in completed.iter().enumerate() {
            let leader = small(json::uint(trick, "leader")?, 4, "trick leader")?;
            let cards = played_cards(json::field(trick, "cards")?, leader)?;
            ensure(cards.len() == 4, || {
                "a completed trick holds four cards".into()
            })?;
            let winner = small(json::uint(trick, "winner")?, 4, "trick winner")?;
            self.completed[t] = (leader, [cards[0], cards[1], cards[2], cards[3]], winner);
        }
        self.completed_len = completed.len() as u8;
        self.trick_leader = match json::field(v, "trick_leader")? {
            Value::Null => 0,
            x => small(
                x.as_u64()
                    .ok_or_else(|| bad("trick_leader must be a seat or null".into()))?,
                4,
                "trick_leader",
            )?,
        };
        let trick = played_cards(json::field(v, "trick")?, self.trick_leader)?;
        ensure(trick.len() < 4, || {
            "the current trick holds at most three cards".into()
        })?;
        self.trick_len = trick.len() as u8;
        self.trick[..trick.len()].copy_from_slice(&trick);
        let won = json::ints(json::field(v, "tricks_won")?, "tricks_won")?;
        ensure(
            won.len() == PLAYERS && won.iter().all(|&w| (0..=13).contains(&w)),
            || "tricks_won must hold four counts".into(),
        )?;
        self.tricks_won = [won[0] as u8, won[1] as u8, won[2] as u8, won[3] as u8];
        Ok(())
    }

    /// The checks made after reading every field (see docs/games/back_alley.md).
    fn check_consistency(&mut self, v: &Value) -> Result<(), Error> {
        let len = self.params.schedule.len();
        let over = self.phase == Phase::GameOver;
        ensure(
            if over {
                self.hand_index == len
            } else {
                self.hand_index < len
            },
            || "hand_index does not match the phase".into(),
        )?;
        ensure(
            self.hand_size == self.params.schedule[self.hand_index.min(len - 1)],
            || "hand_size does not match the schedule".into(),
        )?;
        let pass_ok = if self.phase == Phase::Bidding {
            self.all_pass_count < self.params.max_consecutive_all_pass
        } else {
            self.all_pass_count == 0
        };
        ensure(self.all_pass_count >= 0 && pass_ok, || {
            "all_pass_count out of range".into()
        })?;
        ensure(self.deal_start <= self.history.len(), || {
            "deal_start out of range".into()
        })?;
        self.check_conservation()?;
        self.check_upcard()?;
        self.check_bids()?;
        self.check_play()?;
        let expected = json!({
            "to_act": self.current_player(),
            "trick_leader": self.in_play().then_some(self.trick_leader),
            "result": self.result(),
        });
        for key in ["to_act", "trick_leader", "result"] {
            ensure(json::field(v, key)? == &expected[key], || {
                format!("{key} is not what the position implies")
            })?;
        }
        Ok(())
    }

    fn check_conservation(&self) -> Result<(), Error> {
        let mut seen = 0u64;
        let mut count = 0;
        let mut add = |c: u8| {
            seen |= 1 << c;
            count += 1;
        };
        for s in 0..PLAYERS {
            bits(self.hands[s] as u128).for_each(|c| add(c as u8));
        }
        self.stock().iter().for_each(|&c| add(c));
        add(self.upcard);
        if let Some(e) = self.exchange {
            add(e.discarded);
        }
        self.trick[..self.trick_len as usize]
            .iter()
            .for_each(|&c| add(c));
        for (_, cards, _) in &self.completed[..self.completed_len as usize] {
            cards.iter().for_each(|&c| add(c));
        }
        ensure(seen == ALL_CARDS && count == DECK, || {
            "the cards in hands, stock, upcard, exchange and tricks are not exactly the 54 cards"
                .into()
        })
    }

    fn check_upcard(&self) -> Result<(), Error> {
        let turned = &self.turned[..self.turned_len as usize];
        let stock = self.stock();
        ensure(
            turned.len() <= stock.len() && stock.ends_with(turned),
            || "turned_jokers must lie at the bottom of the stock".into(),
        )?;
        ensure(
            turned.is_empty() || (self.params.joker_upcard == JokerUpcard::TurnNext && !is_joker(self.upcard)),
            || "turned_jokers only under turn_next, before a standard upcard".into(),
        )?;
        if !is_joker(self.upcard) {
            ensure(self.trump == self.upcard / 13, || {
                "trump must be the upcard's suit".into()
            })?;
            return ensure(self.exchange.is_none(), || {
                "no joker exchange without a joker upcard".into()
            });
        }
        ensure(self.trump == NO_TRUMP, || {
            "a joker upcard means no trump".into()
        })?;
        let other = if self.upcard == BB { LB } else { BB };
        let in_stock = stock.contains(&other);
        if self.params.joker_upcard == JokerUpcard::TurnNext {
            ensure(in_stock && stock.iter().all(|&c| is_joker(c)), || {
                "under turn_next a joker stays up only when the stock holds no standard card".into()
            })?;
            return ensure(self.exchange.is_none(), || {
                "no joker exchange under turn_next".into()
            });
        }
        match self.exchange {
            None => ensure(in_stock, || {
                "the other joker must be in the stock when nobody exchanged".into()
            }),
            Some(e) => {
                let drawn_ok = !is_joker(e.drawn)
                    && (self.hands[e.seat as usize] >> e.drawn & 1 == 1
                        || self.played_by(e.seat, e.drawn));
                ensure(e.discarded == other && drawn_ok, || {
                    "the joker exchange does not match the hands".into()
                })
            }
        }
    }

    fn played_by(&self, seat: u8, card: u8) -> bool {
        let completed = self.completed[..self.completed_len as usize]
            .iter()
            .map(|(l, c, _)| (*l, &c[..]));
        let current = std::iter::once((self.trick_leader, &self.trick[..self.trick_len as usize]));
        completed.chain(current).any(|(leader, cards)| {
            cards
                .iter()
                .enumerate()
                .any(|(i, &c)| c == card && (leader + i as u8) % 4 == seat)
        })
    }

    fn check_bids(&self) -> Result<(), Error> {
        let n = self.bids_len as usize;
        let cap = match self.params.bid_cap {
            BidCap::HandSizeMinusOne => self.hand_size - 1,
            BidCap::HandSize => self.hand_size,
        };
        let mut last_number = None;
        for &b in &self.bids[..n] {
            let limit = if self.params.bid_not_above_previous {
                last_number.map_or(cap, |k: u8| k.min(cap))
            } else {
                cap
            };
            ensure(b == PASS || b == BOARD || b <= limit, || {
                format!("bid {} is out of range", bid_text(b))
            })?;
            if b != PASS && b != BOARD {
                last_number = Some(b);
            }
        }
        let all_pass = self.bids[..n].iter().all(|&b| b == PASS);
        match self.phase {
            Phase::Bidding => ensure(n < 4, || "bidding holds at most three bids".into()),
            Phase::Play => ensure(n == 4 && !all_pass, || {
                "play needs four bids, not all pass".into()
            }),
            Phase::GameOver => ensure(n == 4, || "the last deal's auction must be complete".into()),
        }
    }

    /// Hand sizes, trick seats, winners, tricks won and trump_broken must all
    /// follow from the cards played.
    fn check_play(&mut self) -> Result<(), Error> {
        let n = self.hand_size;
        let played = self.completed_len;
        let abandoned = self.phase == Phase::GameOver && self.bids.iter().all(|&b| b == PASS);
        let in_play = self.phase == Phase::Play;
        ensure(in_play || self.trick_len == 0, || {
            "no trick in progress outside play".into()
        })?;
        ensure(
            match self.phase {
                Phase::Bidding => played == 0,
                Phase::Play => played < n,
                Phase::GameOver => played == if abandoned { 0 } else { n },
            },
            || "the number of completed tricks does not match the phase".into(),
        )?;
        let mut leader = if in_play || played > 0 {
            self.first_leader() as u8
        } else {
            0
        };
        let mut won = [0u8; PLAYERS];
        let mut broken = false;
        for t in 0..played as usize {
            let (l, cards, w) = self.completed[t];
            ensure(l == leader && w == self.trick_winner(l, &cards), || {
                format!("completed trick {t} has the wrong leader or winner")
            })?;
            won[w as usize] += 1;
            broken |= cards.iter().any(|&c| self.trump_set() >> c & 1 == 1);
            leader = w;
        }
        ensure(
            won == self.tricks_won && broken == self.trump_broken,
            || "tricks_won or trump_broken do not follow from the tricks".into(),
        )?;
        if in_play {
            ensure(self.trick_leader == leader, || {
                "trick_leader is not the last trick's winner".into()
            })?;
        }
        for s in 0..PLAYERS {
            let in_trick =
                (0..self.trick_len).any(|i| (self.trick_leader + i) % 4 == s as u8) as u8;
            let expected = if abandoned { n } else { n - played - in_trick };
            ensure(self.hands[s].count_ones() as u8 == expected, || {
                format!("seat {s} holds the wrong number of cards")
            })?;
        }
        self.to_act = match self.phase {
            Phase::Bidding => (self.dealer + 1 + self.bids_len) % 4,
            Phase::Play => (self.trick_leader + self.trick_len) % 4,
            Phase::GameOver => 0,
        };
        Ok(())
    }
}

pub(super) fn bad(message: String) -> Error {
    Error::InvalidState { message }
}

fn small(x: u64, below: u64, what: &str) -> Result<u8, Error> {
    ensure(x < below, || format!("{what} must be below {below}"))?;
    Ok(x as u8)
}

pub(super) fn card(text: &str) -> Result<u8, Error> {
    parse_card(text).ok_or_else(|| bad(format!("{text:?} is not a card")))
}

pub(super) fn card_list(v: &Value, what: &str) -> Result<Vec<u8>, Error> {
    json::strings(v, what)?.into_iter().map(card).collect()
}

/// A set of cards that must be written in canonical order without repeats.
pub(super) fn card_set(cards: &[u8], what: &str) -> Result<u64, Error> {
    ensure(cards.windows(2).all(|w| w[0] < w[1]), || {
        format!("{what} must list distinct cards in canonical order")
    })?;
    Ok(cards.iter().fold(0, |set, &c| set | 1 << c))
}

/// `[[seat, card], ...]` with seats running clockwise from `leader`.
fn played_cards(v: &Value, leader: u8) -> Result<Vec<u8>, Error> {
    let pairs = v
        .as_array()
        .ok_or_else(|| bad("a trick must be a list of [seat, card] pairs".into()))?;
    pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let seat = pair.get(0).and_then(Value::as_u64);
            let code = pair.get(1).and_then(Value::as_str);
            match (seat, code) {
                (Some(s), Some(c))
                    if s == (leader as u64 + i as u64) % 4
                        && pair.as_array().is_some_and(|a| a.len() == 2) =>
                {
                    card(c)
                }
                _ => Err(bad(
                    "trick cards must be [seat, card] pairs clockwise from the leader".into(),
                )),
            }
        })
        .collect()
}

fn parse_bid(text: &str) -> Option<u8> {
    match text {
        "pass" => Some(PASS),
        "board" => Some(BOARD),
        _ => parse_canonical_uint(text)
            .filter(|k| (1..=13).contains(k))
            .map(|k| k as u8),
    }
}

pub(super) fn read_deal(d: &Value) -> Result<DealRecord, Error> {
    let dealer = small(json::uint(d, "dealer")?, 4, "deal dealer")?;
    let bids_v = json::array(d, "bids")?;
    ensure(bids_v.len() == 4, || "a deal record holds four bids".into())?;
    let mut bids = [PASS; 4];
    for (i, pair) in bids_v.iter().enumerate() {
        let seat = pair.get(0).and_then(Value::as_u64);
        match (
            seat,
            pair.get(1).and_then(Value::as_str).and_then(parse_bid),
        ) {
            (Some(s), Some(b)) if s == (dealer as u64 + 1 + i as u64) % 4 => bids[i] = b,
            _ => {
                return Err(bad(
                    "deal record bids must be [seat, bid] in bidding order".into()
                ))
            }
        }
    }
    let pair = |key: &str| -> Result<Vec<i64>, Error> {
        let x = json::ints(json::field(d, key)?, key)?;
        ensure(x.len() == 2, || {
            format!("deal record {key} must hold two numbers")
        })?;
        Ok(x)
    };
    let tricks = pair("tricks")?;
    ensure(tricks.iter().all(|t| (0..=13).contains(t)), || {
        "deal record tricks out of range".into()
    })?;
    let points = pair("points")?;
    let exchange = match d.get("joker_exchange") {
        None => None,
        Some(e) => Some((
            small(json::uint(e, "seat")?, 4, "exchange seat")?,
            card(json::string(e, "discarded")?)?,
        )),
    };
    let trump = match json::string(d, "trump")? {
        "none" => NO_TRUMP,
        s => SUITS
            .iter()
            .position(|x| *x == s)
            .ok_or_else(|| bad(format!("unknown trump {s:?}")))? as u8,
    };
    let turned_list = card_list(json::field(d, "turned_jokers")?, "turned_jokers")?;
    ensure(
        turned_list.len() <= 2 && turned_list.iter().all(|&c| is_joker(c)),
        || "deal record turned_jokers must hold at most two jokers".into(),
    )?;
    let mut turned = [0u8; 2];
    turned[..turned_list.len()].copy_from_slice(&turned_list);
    Ok(DealRecord {
        dealer,
        hand_index: json::uint(d, "hand_index")? as usize,
        hand_size: small(json::uint(d, "hand_size")?, 14, "deal hand_size")?,
        upcard: card(json::string(d, "upcard")?)?,
        turned,
        turned_len: turned_list.len() as u8,
        trump,
        exchange,
        bids,
        tricks: [tricks[0] as u8, tricks[1] as u8],
        points: [points[0], points[1]],
        outcome: match json::string(d, "outcome")? {
            "played" => DealOutcome::Played,
            "redeal" => DealOutcome::Redeal,
            "abandoned" => DealOutcome::Abandoned,
            other => return Err(bad(format!("unknown deal outcome {other:?}"))),
        },
    })
}
