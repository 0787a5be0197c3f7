//! 5 Alive's texts: the action grammar, what a seat may know, the canonical
//! state JSON and loading it back with every consistency check.

use crate::points::Count;
use super::{BombResponse, CODES, DECLINE, FLIP, FiveAlive, GameResult, Hand, KINDS, Params, PendingBomb, Phase, Pile, REASONS, RESPOND, ROOM, Seats};
use crate::game::{Action, Error, Game, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::VariantKeys;
use serde_json::{json, Map, Value};

pub(super) fn card_of(code: &str) -> Option<u8> {
    CODES.iter().position(|c| *c == code).map(|i| i as u8)
}

impl<C: Count> StateJson for FiveAlive<C> {
    fn parse_action(text: &str) -> Option<Action> {
        match text {
            "flip" => Some(FLIP),
            "respond 0" => Some(RESPOND),
            "decline" => Some(DECLINE),
            _ => text
                .strip_prefix("play ")
                .and_then(card_of)
                .map(Action::from),
        }
    }

    fn write_action(action: Action, out: &mut String) {
        match action {
            FLIP => out.push_str("flip"),
            RESPOND => out.push_str("respond 0"),
            DECLINE => out.push_str("decline"),
            card => {
                out.push_str("play ");
                out.push_str(CODES[card as usize % KINDS]);
            }
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = self.public_fields();
        let sizes: Vec<usize> = self.hands[..self.n()].iter().map(Hand::len).collect();
        m.insert("seat".into(), json!(seat));
        m.insert(
            "hand".into(),
            json!(Self::codes(self.hands[seat].as_slice())),
        );
        m.insert("hand_sizes".into(), json!(sizes));
        m.insert("draw_size".into(), json!(self.draw.len));
        m.insert(
            "history".into(),
            json!(Self::texts(&self.history[self.round_start..])),
        );
        Value::Object(m)
    }

    fn to_json(&self) -> Value {
        let mut m = self.public_fields();
        let hands: Vec<Vec<&str>> = self.hands[..self.n()]
            .iter()
            .map(|h| Self::codes(h.as_slice()))
            .collect();
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("hands".into(), json!(hands));
        m.insert("draw_pile".into(), json!(self.draw_codes()));
        m.insert("history".into(), json!(Self::texts(&self.history)));
        m.insert("round_start".into(), json!(self.round_start));
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = FiveAlive::blank(params, json::uint(v, "rng")?);
        g.round = bounded(v, "round", 1, u32::MAX as u64)? as u32;
        g.dealer = bounded(v, "dealer", 0, n as u64 - 1)? as u8;
        g.dir = match json::int(v, "dir")? {
            1 => 1,
            -1 => -1,
            _ => return Err(state_error("dir must be 1 or -1".into())),
        };
        g.phase = match json::string(v, "phase")? {
            "play" => Phase::Play,
            "bomb_response" => Phase::BombResponse,
            "game_over" => Phase::GameOver,
            other => return Err(state_error(format!("unknown phase {other:?}"))),
        };
        g.total = bounded(v, "total", 0, 21)? as u8;
        g.action_count = json::uint(v, "action_count")?;
        g.round_start = json::uint(v, "round_start")? as usize;
        read_lives(v, &params, &mut g)?;
        g.set_active(g.active_from_lives());
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == n, || {
            "\"hands\" must have one entry per seat".into()
        })?;
        for (s, h) in hands.iter().enumerate() {
            g.hands[s] = Hand::from_slice(read_pile(h, "hands")?.as_slice());
        }
        let mut draw = read_pile(json::field(v, "draw_pile")?, "draw_pile")?;
        draw.cards[..draw.len as usize].reverse();
        g.draw = draw;
        g.discard = read_pile(json::field(v, "discard_pile")?, "discard_pile")?;
        for text in json::strings(json::field(v, "history")?, "history")? {
            let a = Self::parse_action(text)
                .ok_or_else(|| state_error(format!("{text:?} in history is not an action")))?;
            g.history.push(a);
        }
        for batch in json::array(v, "elimination_log")? {
            g.elimination_log
                .push(read_seats(batch, n, "elimination_log")?);
        }
        g.current = match json::field(v, "current")? {
            Value::Null => 0,
            c => c
                .as_u64()
                .filter(|&c| c < n as u64)
                .ok_or_else(|| state_error("current must be a seat or null".into()))?
                as u8,
        };
        let current_is_null = v["current"].is_null();
        g.pending = read_bomb(json::field(v, "pending_bomb")?, n)?;
        g.result = read_result(json::field(v, "result")?, n)?;
        g.check_consistency(current_is_null)?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl<C: Count> FiveAlive<C> {
    pub(super) fn codes(cards: &[u8]) -> Vec<&'static str> {
        cards.iter().map(|&c| CODES[c as usize]).collect()
    }

    pub(super) fn draw_codes(&self) -> Vec<&'static str> {
        self.draw
            .as_slice()
            .iter()
            .rev()
            .map(|&c| CODES[c as usize])
            .collect()
    }

    fn public_fields(&self) -> Map<String, Value> {
        let n = self.n();
        let team = self.params.team_play;
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        m.insert("players".into(), json!(n));
        m.insert("params".into(), self.params.to_json());
        m.insert("round".into(), json!(self.round));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("dir".into(), json!(self.dir));
        m.insert("current".into(), json!(self.current_player()));
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert("total".into(), json!(self.total));
        m.insert(
            "lives".into(),
            if team {
                Value::Null
            } else {
                json!(self.lives[..n])
            },
        );
        m.insert(
            "team_lives".into(),
            if team {
                json!(self.team_lives)
            } else {
                Value::Null
            },
        );
        m.insert(
            "discard_pile".into(),
            json!(Self::codes(self.discard.as_slice())),
        );
        let bomb = self.pending.map(|b| {
            json!({
                "bomber": b.bomber,
                "responders": b.responders.to_json(),
                "index": b.index,
                "eliminated": b.eliminated.to_json(),
            })
        });
        m.insert("pending_bomb".into(), json!(bomb));
        let log: Vec<Value> = self.elimination_log.iter().map(|b| b.to_json()).collect();
        m.insert("elimination_log".into(), Value::Array(log));
        m.insert("action_count".into(), json!(self.action_count));
        let result = self.result.as_ref().map(|r| {
            json!({"reason": r.reason, "ranking": r.ranking.iter().map(|g| g.to_json()).collect::<Vec<_>>()})
        });
        m.insert("result".into(), json!(result));
        m
    }

    fn texts(actions: &[Action]) -> Vec<String> {
        actions.iter().map(|&a| Self::action_text(a)).collect()
    }

    /// Consistency of a loaded state: conservation, phase, seats, counters.
    fn check_consistency(&self, current_is_null: bool) -> Result<(), Error> {
        let n = self.n();
        let mut counts = [0u32; KINDS];
        let hands = self.hands[..n].iter().map(|h| &h.pile);
        let piles = hands.chain([&self.draw, &self.discard]);
        for pile in piles {
            for &c in pile.as_slice() {
                counts[c as usize] += 1;
            }
        }
        let want = self.params.counts().map(u32::from);
        ensure(counts == want, || {
            "the hands, draw pile and discard pile are not exactly the deck's cards".into()
        })?;
        ensure(self.action_count == self.history.len() as u64, || {
            "action_count must equal the history length".into()
        })?;
        ensure(self.round_start <= self.history.len(), || {
            "round_start is past the history".into()
        })?;
        for s in 0..n {
            ensure(self.is_active(s) || self.hands[s].is_empty(), || {
                "an eliminated seat holds cards".into()
            })?;
        }
        let mut out: Vec<u8> = self
            .elimination_log
            .iter()
            .flat_map(|b| b.as_slice().to_vec())
            .collect();
        if let Some(b) = self.pending {
            out.extend_from_slice(b.eliminated.as_slice());
        }
        out.sort_unstable();
        let inactive: Vec<u8> = (0..n)
            .filter(|&s| !self.is_active(s))
            .map(|s| s as u8)
            .collect();
        ensure(
            out == inactive && self.elimination_log.iter().all(|b| b.len > 0),
            || "the elimination log must list every eliminated seat once".into(),
        )?;
        ensure(self.active_count() >= 1, || "nobody is active".into())?;
        self.check_phase(current_is_null)
    }

    fn check_phase(&self, current_is_null: bool) -> Result<(), Error> {
        if self.phase == Phase::GameOver {
            return ensure(
                current_is_null && self.result.is_some() && self.pending.is_none(),
                || "a finished game has no player to act, no pending Bomb, and a result".into(),
            );
        }
        ensure(self.result.is_none(), || {
            "a game in progress has no result".into()
        })?;
        let current = self.current as usize;
        ensure(!current_is_null && self.is_active(current), || {
            "current must be an active seat".into()
        })?;
        if self.phase == Phase::Play {
            ensure(self.pending.is_none(), || {
                "no Bomb may be pending while playing".into()
            })?;
            let all_hold = (0..self.n()).all(|s| !self.is_active(s) || !self.hands[s].is_empty());
            ensure(all_hold, || {
                "every active player holds a card during play".into()
            })
        } else {
            let ok = self.pending.is_some_and(|b| {
                self.params.bomb_response == BombResponse::Optional
                    && b.index < b.responders.len
                    && b.responders.seats[b.index as usize] == self.current
                    && !b.responders.contains(b.bomber as usize)
                    && b.responders.as_slice().iter().enumerate().all(|(i, &s)| {
                        !b.responders.as_slice()[..i].contains(&s)
                            && (i < b.index as usize || self.is_active(s as usize))
                    })
            });
            ensure(ok, || {
                "the pending Bomb does not match the player to act".into()
            })
        }
    }
}

pub(super) fn state_error(message: String) -> Error {
    Error::InvalidState { message }
}

pub(super) fn bounded(v: &Value, key: &str, low: u64, high: u64) -> Result<u64, Error> {
    let x = json::uint(v, key)?;
    ensure((low..=high).contains(&x), || {
        format!("field {key:?} must be from {low} to {high}")
    })?;
    Ok(x)
}

pub(super) fn read_pile(value: &Value, what: &str) -> Result<Pile, Error> {
    let codes = json::strings(value, what)?;
    ensure(codes.len() <= ROOM, || {
        format!("{what} holds too many cards")
    })?;
    let mut pile = Pile::EMPTY;
    for code in codes {
        pile.push(
            card_of(code)
                .ok_or_else(|| state_error(format!("{code:?} in {what} is not a card code")))?,
        );
    }
    Ok(pile)
}

fn read_seats(value: &Value, n: usize, what: &str) -> Result<Seats, Error> {
    let items = json::ints(value, what)?;
    ensure(
        items.len() <= n && items.iter().all(|&s| (0..n as i64).contains(&s)),
        || format!("{what} must hold seat numbers"),
    )?;
    let mut seats = Seats::default();
    for s in items {
        seats.push(s as usize);
    }
    Ok(seats)
}

fn read_lives<C: Count>(v: &Value, params: &Params, g: &mut FiveAlive<C>) -> Result<(), Error> {
    let (used, unused, size) = if params.team_play {
        ("team_lives", "lives", 2)
    } else {
        ("lives", "team_lives", params.players)
    };
    ensure(json::field(v, unused)?.is_null(), || {
        format!(
            "{unused:?} must be null with team_play = {}",
            params.team_play
        )
    })?;
    let values = json::ints(json::field(v, used)?, used)?;
    ensure(
        values.len() == size
            && values
                .iter()
                .all(|&x| (0..=params.lives as i64).contains(&x)),
        || {
            format!(
                "{used:?} must hold {size} integers from 0 to {}",
                params.lives
            )
        },
    )?;
    for (i, &x) in values.iter().enumerate() {
        if params.team_play {
            g.team_lives[i] = x as u32;
        } else {
            g.lives[i] = x as u32;
        }
    }
    Ok(())
}

fn read_bomb(value: &Value, n: usize) -> Result<Option<PendingBomb>, Error> {
    if value.is_null() {
        return Ok(None);
    }
    let keys_ok = value.as_object().is_some_and(|o| {
        o.len() == 4
            && ["bomber", "responders", "index", "eliminated"]
                .iter()
                .all(|k| o.contains_key(*k))
    });
    ensure(keys_ok, || {
        "pending_bomb must be null or {bomber, responders, index, eliminated}".into()
    })?;
    let bomber = json::uint(value, "bomber")?;
    ensure(bomber < n as u64, || {
        "pending_bomb.bomber must be a seat".into()
    })?;
    let index = json::uint(value, "index")?.min(255) as u8;
    Ok(Some(PendingBomb {
        bomber: bomber as u8,
        responders: read_seats(&value["responders"], n, "responders")?,
        index,
        eliminated: read_seats(&value["eliminated"], n, "eliminated")?,
    }))
}

fn read_result(value: &Value, n: usize) -> Result<Option<GameResult>, Error> {
    if value.is_null() {
        return Ok(None);
    }
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .and_then(|r| REASONS.iter().find(|&&x| x == r));
    let ok = value.as_object().is_some_and(|o| o.len() == 2) && reason.is_some();
    ensure(ok, || {
        "result must be null or {reason, ranking} with a known reason".into()
    })?;
    let mut ranking = Vec::new();
    let mut all = Vec::new();
    for group in json::array(value, "ranking")? {
        let seats = read_seats(group, n, "ranking")?;
        ensure(seats.len > 0, || {
            "the ranking must hold every seat once".into()
        })?;
        all.extend_from_slice(seats.as_slice());
        ranking.push(seats);
    }
    all.sort_unstable();
    ensure(all == (0..n as u8).collect::<Vec<_>>(), || {
        "the ranking must hold every seat once".into()
    })?;
    Ok(Some(GameResult {
        reason: reason.copied().unwrap_or("CAP"),
        ranking,
    }))
}
