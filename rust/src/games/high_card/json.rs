//! High Card's texts: the action grammar, what a seat may know (every play
//! is public, the hands and the stock are not), the canonical state JSON and
//! loading it back with its consistency checks.

use crate::points::Count;
use super::{HighCard, Params, MAX_PLAYERS};
use crate::cards::bits;
use crate::game::{parse_canonical_uint, Action, Error, Game, Outcome, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::VariantKeys;
use crate::rng::SplitMix64;
use serde_json::{json, Value};

impl<C: Count> StateJson for HighCard<C> {
    fn parse_action(text: &str) -> Option<Action> {
        let card = parse_canonical_uint(text.strip_prefix("play ")?)?;
        (1..=super::MAX_CARDS as u32)
            .contains(&card)
            .then_some(Action::from(card))
    }

    fn write_action(action: Action, out: &mut String) {
        out.push_str("play ");
        out.push_str(&action.to_string());
    }

    fn observation(&self, seat: usize) -> Value {
        let n = self.params.players;
        json!({
            "game": Self::SPEC.id,
            "seat": seat,
            "players": n,
            "params": self.params.to_json(),
            "hand": cards(self.hands.get(seat).copied().unwrap_or(0)),
            "hand_sizes": self.hands[..n].iter().map(|h| h.count_ones()).collect::<Vec<_>>(),
            "stock_size": self.stock_len - self.stock_top,
            "round": self.round_json(),
            "leader": self.leader,
            "to_act": self.current_player(),
            "scores": self.scores(),
            "history": self.history_texts(),
        })
    }

    fn to_json(&self) -> Value {
        let n = self.params.players;
        json!({
            "game": Self::SPEC.id,
            "players": n,
            "params": self.params.to_json(),
            "rng": self.rng.state,
            "hands": self.hands[..n].iter().map(|&h| cards(h)).collect::<Vec<_>>(),
            "stock": self.stock[self.stock_top..self.stock_len].iter().map(u8::to_string).collect::<Vec<_>>(),
            "round": self.round_json(),
            "played": cards(self.played),
            "leader": self.leader,
            "to_act": self.current_player(),
            "scores": self.scores(),
            "history": self.history_texts(),
        })
    }

    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = HighCard::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        let top = params.highest_card();
        let card = |x: &str| -> Result<u8, Error> {
            parse_canonical_uint(x)
                .filter(|c| (1..=top).contains(c))
                .map(|c| c as u8)
                .ok_or_else(|| Error::InvalidState {
                    message: format!("{x:?} is not a card in play"),
                })
        };
        let set = |value: &Value, what: &str| -> Result<u32, Error> {
            json::strings(value, what)?
                .into_iter()
                .try_fold(0u32, |s, x| Ok(s | 1 << card(x)?))
        };
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == n, || "hands must have one entry per seat".into())?;
        g.hands = [0; MAX_PLAYERS];
        for (s, h) in hands.iter().enumerate() {
            g.hands[s] = set(h, "hands")?;
        }
        let stock = json::strings(json::field(v, "stock")?, "stock")?;
        g.stock_top = 0;
        g.stock_len = stock.len().min(g.stock.len());
        for (slot, x) in g.stock.iter_mut().zip(&stock) {
            *slot = card(x)?;
        }
        g.played = set(json::field(v, "played")?, "played")?;
        let round = json::array(v, "round")?;
        ensure(round.len() < n, || "a round holds fewer plays than seats".into())?;
        for (i, pair) in round.iter().enumerate() {
            let seat = pair.get(0).and_then(Value::as_u64).filter(|&s| s < n as u64);
            let c = pair.get(1).and_then(Value::as_str).map(card).transpose()?;
            let (Some(seat), Some(c)) = (seat, c) else {
                return Err(Error::InvalidState {
                    message: "round must hold [seat, card] pairs".into(),
                });
            };
            g.round[i] = (seat as u8, c);
        }
        g.round_len = round.len();
        g.leader = json::uint(v, "leader")?.min(u64::from(u8::MAX)) as u8;
        g.over = json::field(v, "to_act")?.is_null();
        g.to_act = ((g.leader as usize + g.round_len) % n) as u8;
        let scores = json::ints(json::field(v, "scores")?, "scores")?;
        ensure(scores.len() == n && scores.iter().all(|&x| x >= 0), || {
            "scores must hold a non-negative score per seat".into()
        })?;
        g.scores[..n].copy_from_slice(&scores);
        g.history = json::strings(json::field(v, "history")?, "history")?
            .into_iter()
            .map(|t| {
                Self::parse_action(t).ok_or_else(|| Error::InvalidState {
                    message: format!("{t:?} in history is not an action"),
                })
            })
            .collect::<Result<_, _>>()?;
        g.check_consistency(v, stock.len())?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl<C: Count> HighCard<C> {
    fn round_json(&self) -> Value {
        Value::Array(
            self.round[..self.round_len]
                .iter()
                .map(|&(s, c)| json!([s, c.to_string()]))
                .collect(),
        )
    }

    fn history_texts(&self) -> Vec<String> {
        self.history.iter().map(|&a| Self::action_text(a)).collect()
    }

    /// The checks made after reading every field: every card in one place,
    /// the round's seats in turn order from the leader, the player to act.
    fn check_consistency(&self, v: &Value, stock_len: usize) -> Result<(), Error> {
        let n = self.params.players;
        let mut seen = self.played;
        let mut count = self.played.count_ones();
        let mut add = |set: u32| {
            seen |= set;
            count += set.count_ones();
        };
        self.hands[..n].iter().for_each(|&h| add(h));
        self.stock[..self.stock_len].iter().for_each(|&c| add(1 << c));
        self.round[..self.round_len].iter().for_each(|&(_, c)| add(1 << c));
        let all = (1u32 << (self.params.highest_card() + 1)) - 2;
        ensure(seen == all && count == all.count_ones() && self.stock_len == stock_len, || {
            "the cards in hands, stock, round and played are not exactly the cards in play".into()
        })?;
        ensure((self.leader as usize) < n, || "leader must be a seat".into())?;
        let in_order = self.round[..self.round_len]
            .iter()
            .enumerate()
            .all(|(i, &(s, _))| s as usize == (self.leader as usize + i) % n);
        ensure(in_order, || "the round's plays must follow the turn order from the leader".into())?;
        let expected = (!self.over).then_some(self.to_act);
        ensure(json::field(v, "to_act")? == &json!(expected), || {
            "to_act is not the next seat of the round".into()
        })?;
        ensure(!self.over || (self.round_len == 0 && self.hands[..n].iter().all(|&h| h == 0)), || {
            "a finished game has no cards in hand and no round in play".into()
        })?;
        ensure(
            self.over || self.hands[..n].iter().any(|&h| h != 0),
            || "a game in play has cards in hand".into(),
        )
    }
}

/// A set of cards as their texts, ascending.
fn cards(set: u32) -> Vec<String> {
    bits(u128::from(set)).map(|c| c.to_string()).collect()
}
