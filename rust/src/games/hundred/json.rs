//! 100's texts: the action grammar, what a seat may know, the canonical
//! state JSON and loading it back with every consistency check (§3.2).

use crate::points::{Count, Uncounted};
use super::{Hundred, Params, Reason, LIMIT, MAX_CARDS, NEGATIVE_FLOOR, NO_BUST, RECENT_RING, VALUE_STEP};
use super::rules::{card, rank_of, suit};
use crate::game::{parse_canonical_uint, Action, Error, Game, Outcome, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::VariantKeys;
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];

const SUITS: [&str; 4] = ["C", "D", "H", "S"];

/// The code of card `c`, e.g. `"10H"`.
pub fn card_code(c: u8) -> String {
    format!("{}{}", RANKS[rank_of(c) as usize], SUITS[suit(c) as usize])
}

/// The card of a code, if it is one of the 52.
pub fn parse_card(text: &str) -> Option<u8> {
    let split = text.len().checked_sub(1)?;
    let (r, s) = text.split_at_checked(split)?;
    let r = RANKS.iter().position(|&x| x == r)?;
    let s = SUITS.iter().position(|&x| x == s)?;
    Some(card(r as u8, s as u8))
}

pub(super) fn codes(cards: &[u8]) -> Vec<String> {
    cards.iter().map(|&c| card_code(c)).collect()
}

pub(super) fn card_list(v: &Value, what: &str, max: usize) -> Result<Vec<u8>, Error> {
    let bad = || Error::InvalidState {
        message: format!("{what} must be lists of card codes"),
    };
    let cards: Vec<u8> = json::strings(v, what)?
        .iter()
        .map(|t| parse_card(t).ok_or_else(bad))
        .collect::<Result<_, _>>()?;
    ensure(cards.len() <= max, || {
        format!("{what} holds too many cards")
    })?;
    Ok(cards)
}

fn seat(s: u64, n: usize, what: &str) -> Result<u8, Error> {
    ensure(s < n as u64, || {
        format!("{what} must name seats from 0 to {}", n - 1)
    })?;
    Ok(s as u8)
}

fn parse_history(text: &str) -> Result<Action, Error> {
    Hundred::<Uncounted>::parse_action(text).ok_or_else(|| Error::InvalidState {
        message: format!("{text:?} in history is not an action"),
    })
}

impl<C: Count> StateJson for Hundred<C> {
    fn parse_action(text: &str) -> Option<Action> {
        let rest = text.strip_prefix("play ")?;
        let (code, value) = match rest.split_once(' ') {
            Some((code, x)) => (
                code,
                Some(parse_canonical_uint(x).filter(|&x| x <= LIMIT as u32)?),
            ),
            None => (rest, None),
        };
        let c = parse_card(code)? as Action;
        Some(c + value.map_or(0, |x| (Action::from(x) + 1) * VALUE_STEP))
    }

    fn write_action(action: Action, out: &mut String) {
        out.push_str("play ");
        out.push_str(&card_code((action % VALUE_STEP) as u8));
        if action >= VALUE_STEP {
            out.push(' ');
            out.push_str(&(action / VALUE_STEP - 1).to_string());
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let n = self.n();
        json!({
            "game": Self::SPEC.id,
            "seat": seat,
            "players": n,
            "params": self.params.to_json(),
            "phase": self.phase_name(),
            "to_act": self.current_player(),
            "hand": codes(self.hand(seat)),
            "hand_sizes": self.hand_len[..n].to_vec(),
            "stock_size": self.stock_len,
            "pile": codes(&self.pile[..self.pile_len as usize]),
            "value": self.value,
            "dir": self.dir,
            "chips": self.scores(),
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "elimination_log": self.elim[..self.elim_len as usize].to_vec(),
            "action_count": self.action_count,
            "result": self.result_json(),
            "recent": self.recent_json(),
        })
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!("hundred"));
        m.insert("players".into(), json!(self.n()));
        m.insert("params".into(), self.params.to_json());
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("phase".into(), json!(self.phase_name()));
        m.insert("current".into(), json!(self.current_player()));
        m.insert("chips".into(), json!(self.scores()));
        m.insert("hands".into(), json!(self.hands_json()));
        m.insert("stock".into(), json!(self.stock_codes()));
        m.insert(
            "pile".into(),
            json!(codes(&self.pile[..self.pile_len as usize])),
        );
        m.insert("value".into(), json!(self.value));
        m.insert("dir".into(), json!(self.dir));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("deal_number".into(), json!(self.deal_number));
        m.insert(
            "elimination_log".into(),
            json!(self.elim[..self.elim_len as usize]),
        );
        m.insert("action_count".into(), json!(self.action_count));
        m.insert("result".into(), self.result_json());
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        m.insert("recent".into(), self.recent_json());
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = Hundred::new(params, 0, None)?;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        let chips = json::ints(json::field(v, "chips")?, "chips")?;
        ensure(chips.len() == n, || {
            "\"chips\" must have one entry per seat".into()
        })?;
        g.chips[..n].copy_from_slice(&chips);
        g.set_active((0..n).filter(|&s| g.is_active(s)).map(|s| 1 << s).sum());
        let hands = json::array(v, "hands")?;
        ensure(hands.len() == n, || {
            "\"hands\" must have one entry per seat".into()
        })?;
        for (s, h) in hands.iter().enumerate() {
            let cards = card_list(h, "hands", params.hand_size)?;
            let start = g.hand_start(s);
            g.hands[start..start + cards.len()].copy_from_slice(&cards);
            g.hand_len[s] = cards.len() as u8;
        }
        g.refresh_hand_sets();
        let stock = card_list(json::field(v, "stock")?, "stock", MAX_CARDS)?;
        for (slot, &c) in g.stock.iter_mut().zip(stock.iter().rev()) {
            *slot = c;
        }
        g.stock_len = stock.len() as u8;
        let pile = card_list(json::field(v, "pile")?, "pile", MAX_CARDS)?;
        g.pile[..pile.len()].copy_from_slice(&pile);
        g.pile_len = pile.len() as u8;
        g.value = json::int(v, "value")?;
        ensure((NEGATIVE_FLOOR..=LIMIT).contains(&g.value), || {
            "field \"value\" out of range".into()
        })?;
        g.dir = match json::int(v, "dir")? {
            1 => 1,
            -1 => -1,
            _ => {
                return Err(Error::InvalidState {
                    message: "dir must be 1 or -1".into(),
                })
            }
        };
        g.dealer = seat(json::uint(v, "dealer")?, n, "dealer")?;
        g.deal_number = json::uint(v, "deal_number")?;
        ensure(g.deal_number >= 1, || {
            "field \"deal_number\" out of range".into()
        })?;
        let log = json::ints(json::field(v, "elimination_log")?, "elimination_log")?;
        ensure(log.len() <= n, || "elimination_log is too long".into())?;
        for (i, &s) in log.iter().enumerate() {
            g.elim[i] = seat(s.max(-1) as u64, n, "elimination_log")?;
        }
        g.elim_len = log.len() as u8;
        g.action_count = json::uint(v, "action_count")?;
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            g.history.push(parse_history(text)?);
        }
        g.read_recent(json::array(v, "recent")?)?;
        g.slot_gen.fill(g.generation);
        g.slot_bust.fill(NO_BUST);
        g.read_phase(v)?;
        g.check_consistency()?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl<C: Count> Hundred<C> {
    /// The last n plays (or all, if fewer) with their seats, oldest first.
    fn recent_pairs(&self) -> impl Iterator<Item = (u8, Action)> + '_ {
        let len = self.history.len();
        let first = len - len.min(self.n());
        (first..len).map(move |j| (self.recent_seats[j % RECENT_RING], self.history[j]))
    }

    pub(super) fn stock_codes(&self) -> Vec<String> {
        self.stock[..self.stock_len as usize]
            .iter()
            .rev()
            .map(|&c| card_code(c))
            .collect()
    }

    pub(super) fn result_json(&self) -> Value {
        match &self.result {
            None => Value::Null,
            Some((reason, ranking)) => json!({"reason": reason.name(), "ranking": ranking}),
        }
    }

    fn recent_json(&self) -> Value {
        Value::Array(
            self.recent_pairs()
                .map(|(s, a)| json!([s, Self::action_text(a)]))
                .collect(),
        )
    }

    fn phase_name(&self) -> &'static str {
        if self.result.is_some() {
            "GAME_OVER"
        } else {
            "PLAY"
        }
    }

    fn hands_json(&self) -> Vec<Vec<String>> {
        (0..self.n()).map(|s| codes(self.hand(s))).collect()
    }

    fn read_recent(&mut self, pairs: &[Value]) -> Result<(), Error> {
        ensure(pairs.len() <= self.n(), || "recent is too long".into())?;
        for (i, pair) in pairs.iter().enumerate() {
            let bad = || Error::InvalidState {
                message: "recent must hold [seat, action] pairs".into(),
            };
            let items = pair.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
            let s = items[0].as_u64().ok_or_else(bad)?;
            let text = items[1].as_str().ok_or_else(bad)?;
            let j = (self.history.len() + i).wrapping_sub(pairs.len());
            ensure(self.history.get(j) == Some(&parse_history(text)?), || {
                "recent must pair the last actions of the history with their seats".into()
            })?;
            self.recent_seats[j % RECENT_RING] = seat(s, self.n(), "recent")?;
        }
        ensure(pairs.len() == self.n().min(self.history.len()), || {
            "recent must pair the last actions of the history with their seats".into()
        })?;
        Ok(())
    }

    fn read_phase(&mut self, v: &Value) -> Result<(), Error> {
        let bad = |m: &str| Error::InvalidState {
            message: m.to_string(),
        };
        match json::string(v, "phase")? {
            "PLAY" => {
                self.current = seat(json::uint(v, "current")?, self.n(), "current")?;
                ensure(json::field(v, "result")?.is_null(), || {
                    "result must be null in play".into()
                })?;
            }
            "GAME_OVER" => {
                ensure(json::field(v, "current")?.is_null(), || {
                    "current must be null once the game is over".into()
                })?;
                let reason = match json::field(v, "result")?
                    .get("reason")
                    .and_then(Value::as_str)
                {
                    Some("LAST_STANDING") => Reason::LastStanding,
                    Some("CAP") => Reason::Cap,
                    _ => return Err(bad("result must hold a reason")),
                };
                self.result = Some((reason, Vec::new()));
                let expected = json!({"reason": reason.name(), "ranking": self.ranking(reason)});
                ensure(v["result"] == expected, || {
                    "the ranking does not follow from chips and elimination_log".into()
                })?;
                self.end(reason);
            }
            other => return Err(bad(&format!("unknown phase {other:?}"))),
        }
        Ok(())
    }

    /// The checks `from_json` makes after reading every field (§3.2 invariants).
    pub(super) fn check_consistency(&self) -> Result<(), Error> {
        let n = self.n();
        let p = &self.params;
        let mut counts = [0usize; 52];
        let all = (0..n)
            .flat_map(|s| self.hand(s).iter())
            .chain(&self.stock[..self.stock_len as usize]);
        for &c in all.chain(&self.pile[..self.pile_len as usize]) {
            counts[c as usize] += 1;
        }
        ensure(counts.iter().all(|&k| k == p.decks()), || {
            "the cards in hands, stock and pile are not exactly the cards in play".into()
        })?;
        ensure(
            self.chips[..n].iter().all(|&c| (0..=p.chips).contains(&c)),
            || "chips out of range".into(),
        )?;
        ensure(p.allow_negative || self.value >= 0, || {
            "value below 0".into()
        })?;
        let out: Vec<u8> = (0..n as u8)
            .filter(|&s| self.chips[s as usize] == 0)
            .collect();
        let mut log = self.elim[..self.elim_len as usize].to_vec();
        log.sort_unstable();
        ensure(log == out, || {
            "elimination_log must list exactly the seats without chips".into()
        })?;
        for s in 0..n {
            let want = if self.chips[s] == 0 { 0 } else { p.hand_size };
            ensure(self.hand(s).len() == want, || {
                format!("seat {s} must hold {want} cards")
            })?;
        }
        ensure(self.action_count == self.history.len() as u64, || {
            "action_count must equal the history length".into()
        })?;
        match &self.result {
            None => {
                ensure(self.active_count() >= 2, || {
                    "a game in play needs two active seats".into()
                })?;
                ensure(self.is_active(self.current as usize), || {
                    "current must be an active seat".into()
                })?;
                ensure(self.action_count < p.max_actions, || {
                    "the action cap is reached".into()
                })?;
            }
            Some((Reason::LastStanding, _)) => ensure(self.active_count() == 1, || {
                "LAST_STANDING needs one seat left".into()
            })?,
            Some((Reason::Cap, _)) => ensure(self.action_count >= p.max_actions, || {
                "CAP needs max_actions actions".into()
            })?,
        }
        Ok(())
    }
}
