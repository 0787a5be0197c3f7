//! Take 5's texts: the action grammar, what a seat may know, the canonical
//! state JSON and loading it back with every consistency check.

use crate::points::Count;
use super::rules::{bit, cards_in_play, set_heads};
use super::{Params, Phase, Take5, MAX_PLAYERS, ROWS, TAKE, TURNS};
use crate::cards::bits;
use crate::game::{parse_canonical_uint, Action, Error, Game, Outcome, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::VariantKeys;
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

impl<C: Count> StateJson for Take5<C> {
    fn parse_action(text: &str) -> Option<Action> {
        if let Some(card) = text.strip_prefix("play ") {
            parse_canonical_uint(card)
                .filter(|c| (1..=104).contains(c))
                .map(Action::from)
        } else if let Some(row) = text.strip_prefix("take ") {
            parse_canonical_uint(row)
                .filter(|&r| r < ROWS as u32)
                .map(|r| TAKE + Action::from(r))
        } else {
            None
        }
    }

    fn write_action(action: Action, out: &mut String) {
        use std::fmt::Write;
        let _ = if action >= TAKE {
            write!(out, "take {}", action - TAKE)
        } else {
            write!(out, "play {action}")
        };
    }

    fn observation(&self, seat: usize) -> Value {
        let n = self.n();
        let hidden = if self.phase == Phase::Commit {
            self.to_act as usize
        } else {
            0
        };
        let public = &self.history[self.round_start..self.history.len() - hidden];
        let mine = self.committed.get(seat).copied().unwrap_or(0);
        json!({
            "game": Self::SPEC.id,
            "seat": seat,
            "players": n,
            "params": self.params.to_json(),
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase.name(),
            "to_act": self.current_player(),
            "hand": bits(self.hands.get(seat).copied().unwrap_or(0)).map(|c| c.to_string()).collect::<Vec<_>>(),
            "my_commitment": (mine != 0).then(|| mine.to_string()),
            "committed": self.committed[..n].iter().map(|&c| c != 0).collect::<Vec<_>>(),
            "rows": self.row_codes(),
            "revealed": self.revealed_json(),
            "next_to_place": self.next_to_place,
            "piles": (0..n).map(|s| bits(self.piles[s]).map(|c| c.to_string()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "round_heads": self.round_heads(),
            "scores": self.scores(),
            "round_scores": self.round_scores_json(),
            "history": Self::texts(public),
        })
    }

    fn to_json(&self) -> Value {
        let n = self.n();
        let set = |s: u128| bits(s).map(|c| c.to_string()).collect::<Vec<_>>();
        let mut m = Map::new();
        m.insert("game".into(), json!("take5"));
        m.insert("players".into(), json!(n));
        m.insert("params".into(), self.params.to_json());
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("round".into(), json!(self.round));
        m.insert("turn".into(), json!(self.turn));
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert(
            "hands".into(),
            json!((0..n).map(|s| set(self.hands[s])).collect::<Vec<_>>()),
        );
        m.insert(
            "committed".into(),
            json!(self.committed[..n]
                .iter()
                .map(|&c| (c != 0).then(|| c.to_string()))
                .collect::<Vec<_>>()),
        );
        m.insert("rows".into(), json!(self.row_codes()));
        m.insert("unused".into(), json!(set(self.unused)));
        m.insert("revealed".into(), self.revealed_json());
        m.insert("next_to_place".into(), json!(self.next_to_place));
        m.insert(
            "piles".into(),
            json!((0..n).map(|s| set(self.piles[s])).collect::<Vec<_>>()),
        );
        m.insert("scores".into(), json!(self.scores()));
        m.insert("round_scores".into(), self.round_scores_json());
        m.insert("history".into(), json!(Self::texts(&self.history)));
        m.insert("round_start".into(), json!(self.round_start));
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let top = params.highest_card();
        let card = |text: &str| -> Result<u8, Error> {
            match parse_canonical_uint(text) {
                Some(c) if (1..=top).contains(&c) => Ok(c as u8),
                _ => Err(Error::InvalidState {
                    message: format!("{text:?} is not a card in play"),
                }),
            }
        };
        let card_set = |value: &Value, what: &str| -> Result<u128, Error> {
            let mut set = 0u128;
            for text in json::strings(value, what)? {
                set |= 1 << card(text)?;
            }
            Ok(set)
        };
        let per_seat = |key: &str| -> Result<&Vec<Value>, Error> {
            let a = json::array(v, key)?;
            ensure(a.len() == n, || {
                format!("{key:?} must have one entry per seat")
            })?;
            Ok(a)
        };
        let mut g = Take5::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.round = json::uint(v, "round")? as u32;
        g.turn = json::uint(v, "turn")?.min(255) as u8;
        g.phase = match json::string(v, "phase")? {
            "commit" => Phase::Commit,
            "choose_row" => Phase::ChooseRow,
            "game_over" => Phase::GameOver,
            other => {
                return Err(Error::InvalidState {
                    message: format!("unknown phase {other:?}"),
                })
            }
        };
        for (s, h) in per_seat("hands")?.iter().enumerate() {
            g.hands[s] = card_set(h, "hands")?;
        }
        for (s, p) in per_seat("piles")?.iter().enumerate() {
            g.piles[s] = card_set(p, "piles")?;
        }
        g.unused = card_set(json::field(v, "unused")?, "unused")?;
        for (s, c) in per_seat("committed")?.iter().enumerate() {
            g.committed[s] = match c {
                Value::Null => 0,
                Value::String(text) => card(text)?,
                _ => {
                    return Err(Error::InvalidState {
                        message: "committed must hold cards or null".into(),
                    })
                }
            };
        }
        let rows = json::array(v, "rows")?;
        ensure(rows.len() == ROWS, || "there must be 4 rows".into())?;
        for (r, row) in rows.iter().enumerate() {
            let cards = json::strings(row, "rows")?;
            ensure((1..=5).contains(&cards.len()), || {
                format!("row {r} must hold 1 to 5 cards")
            })?;
            let cards = cards
                .iter()
                .map(|t| card(t))
                .collect::<Result<Vec<_>, _>>()?;
            ensure(cards.windows(2).all(|w| w[0] < w[1]), || {
                format!("row {r} must ascend: each card is higher than the one before")
            })?;
            g.rows[r] = cards.iter().fold(0, |set, &c| set | bit(c));
            g.row_ends = Self::with_end(g.row_ends, r, cards[cards.len() - 1]);
        }
        let revealed = json::array(v, "revealed")?;
        for (i, pair) in revealed.iter().enumerate() {
            let (c, s) = (
                pair.get(0).and_then(Value::as_str),
                pair.get(1).and_then(Value::as_u64),
            );
            match (c, s) {
                (Some(c), Some(s)) if i < n && (s as usize) < n => {
                    g.revealed[i] = (card(c)?, s as u8)
                }
                _ => {
                    return Err(Error::InvalidState {
                        message: "revealed must hold [card, seat] pairs".into(),
                    })
                }
            }
        }
        g.next_to_place = json::uint(v, "next_to_place")?.min(255) as u8;
        for (s, x) in json::ints(json::field(v, "scores")?, "scores")?
            .into_iter()
            .enumerate()
        {
            ensure(s < n, || "scores must have one entry per seat".into())?;
            g.scores[s] = x;
        }
        g.round_scores.clear();
        for r in json::array(v, "round_scores")? {
            let values = json::ints(r, "round_scores")?;
            ensure(values.len() == n, || {
                "round_scores rows must have one entry per seat".into()
            })?;
            let mut row = [0i64; MAX_PLAYERS];
            row[..n].copy_from_slice(&values);
            g.round_scores.push(row);
        }
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            let a = Self::parse_action(text).ok_or_else(|| Error::InvalidState {
                message: format!("{text:?} in history is not an action"),
            })?;
            g.history.push(a);
        }
        g.round_start = json::uint(v, "round_start")? as usize;
        g.check_consistency(revealed.len())?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl<C: Count> Take5<C> {
    pub(super) fn round_heads(&self) -> Vec<i64> {
        (0..self.n()).map(|s| set_heads(self.piles[s])).collect()
    }

    pub(super) fn row_codes(&self) -> Vec<Vec<String>> {
        (0..ROWS)
            .map(|r| bits(self.rows[r]).map(|c| c.to_string()).collect())
            .collect()
    }

    pub(super) fn revealed_json(&self) -> Value {
        if self.phase != Phase::ChooseRow {
            return json!([]);
        }
        Value::Array(
            self.revealed[..self.n()]
                .iter()
                .map(|&(c, s)| json!([c.to_string(), s]))
                .collect(),
        )
    }

    pub(super) fn texts(actions: &[Action]) -> Vec<String> {
        actions.iter().map(|&a| Self::action_text(a)).collect()
    }

    pub(super) fn round_scores_json(&self) -> Value {
        Value::Array(
            self.round_scores
                .iter()
                .map(|r| json!(r[..self.n()]))
                .collect(),
        )
    }

    /// The checks `from_json` makes after reading every field.
    pub(super) fn check_consistency(&mut self, revealed_len: usize) -> Result<(), Error> {
        let n = self.n();
        let mut seen = self.unused;
        let mut count = self.unused.count_ones();
        let mut add = |set: u128| {
            count += set.count_ones();
            seen |= set;
        };
        for s in 0..n {
            add(self.hands[s]);
            add(self.piles[s]);
            if self.committed[s] != 0 {
                add(1 << self.committed[s]);
            }
        }
        for r in 0..ROWS {
            add(self.rows[r]);
        }
        if self.phase == Phase::ChooseRow {
            for &(c, _) in &self.revealed[self.next_to_place as usize..revealed_len] {
                add(1 << c);
            }
        }
        let all = cards_in_play(self.params.highest_card() as usize);
        let game_over = self.phase == Phase::GameOver;
        ensure(
            game_over || (seen == all && count == all.count_ones()),
            || {
                "the cards in hands, commitments, rows, piles and unused are not exactly the cards in play".into()
            },
        )?;
        ensure(
            self.round >= 1 && self.turn <= TURNS && self.round_start <= self.history.len(),
            || "round, turn or round_start out of range".into(),
        )?;
        match self.phase {
            Phase::Commit => {
                let k = self.committed[..n].iter().take_while(|&&c| c != 0).count();
                ensure(
                    self.committed[k..n].iter().all(|&c| c == 0) && k < n && self.turn < TURNS,
                    || "commitments must be made in seat order".into(),
                )?;
                ensure(revealed_len == 0, || {
                    "revealed must be empty while committing".into()
                })?;
                self.to_act = k as u8;
            }
            Phase::ChooseRow => {
                ensure(
                    revealed_len == n && (self.next_to_place as usize) < n,
                    || "bad revealed cards".into(),
                )?;
                self.to_act = self.revealed[self.next_to_place as usize].1;
            }
            Phase::GameOver => self.to_act = 0,
        }
        Ok(())
    }
}
