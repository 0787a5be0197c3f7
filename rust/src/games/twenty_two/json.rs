//! Twenty-Two's texts: the action grammar, what a seat may know, the
//! canonical state JSON and loading it back with every consistency check.

use crate::points::Count;
use super::rules::{beats_or_equals, set_value};
use super::{FirstDealer, Params, Phase, Trick, TwentyTwo, CARDS, DISCARD, MAX_PLAYERS, MAX_TRICKS, NONE, PLAY};
use crate::cards::bits;
use crate::game::{Action, Error, Game, Outcome, Rules, StateJson};
use crate::json::{self, ensure};
use crate::params::{Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

/// Card codes by card index (rank * 4 + suit), i.e. in play order.
pub(super) const CARD_CODES: [&str; 52] = [
    "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D", "4H", "4S", "5C", "5D", "5H", "5S",
    "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S", "9C", "9D", "9H", "9S",
    "10C", "10D", "10H", "10S", "JC", "JD", "JH", "JS", "QC", "QD", "QH", "QS", "KC", "KD", "KH",
    "KS", "AC", "AD", "AH", "AS",
];

#[inline]
pub(super) fn card_text(card: u32) -> &'static str {
    CARD_CODES[card as usize]
}

pub(super) fn parse_card(text: &str) -> Option<u32> {
    CARD_CODES.iter().position(|c| *c == text).map(|i| i as u32)
}

pub(super) fn set_texts(set: u64) -> Vec<&'static str> {
    bits(set as u128).map(card_text).collect()
}

impl<C: Count> StateJson for TwentyTwo<C> {
    /// `discard` or `discard C ...` (any number of cards), `play C ...` (at least
    /// one); cards in any order, each at most once.
    fn parse_action(text: &str) -> Option<Action> {
        let (verb, rest) = match text.split_once(' ') {
            Some((v, r)) => (v, Some(r)),
            None => (text, None),
        };
        let verb = match verb {
            "discard" => DISCARD,
            "play" if rest.is_some() => PLAY,
            _ => return None,
        };
        let mut set = 0u64;
        for word in rest.into_iter().flat_map(|r| r.split(' ')) {
            let card = parse_card(word)?;
            if set >> card & 1 == 1 {
                return None; // the same card twice
            }
            set |= 1 << card;
        }
        Some(verb | set)
    }

    fn write_action(action: Action, out: &mut String) {
        out.push_str(if action & PLAY != 0 {
            "play"
        } else {
            "discard"
        });
        for c in bits((action & CARDS) as u128) {
            out.push(' ');
            out.push_str(card_text(c));
        }
    }

    fn observation(&self, seat: usize) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        m.insert("seat".into(), json!(seat));
        self.public_fields(&mut m);
        m.insert(
            "hand".into(),
            json!(set_texts(self.hands.get(seat).copied().unwrap_or(0))),
        );
        m.insert("stock_size".into(), json!(self.stock_size()));
        if self.phase == Phase::GameOver {
            m.insert("stock_size".into(), json!(0));
        }
        m.insert(
            "discard_counts".into(),
            self.per_seat(|s| self.discards[s].count_ones()),
        );
        m.insert(
            "my_discards".into(),
            json!(set_texts(self.discards.get(seat).copied().unwrap_or(0))),
        );
        Value::Object(m)
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("game".into(), json!(Self::SPEC.id));
        self.public_fields(&mut m);
        m.insert("rng".into(), json!(self.rng.state));
        m.insert("hands".into(), self.per_seat(|s| set_texts(self.hands[s])));
        m.insert("stock".into(), json!(self.stock_texts()));
        m.insert(
            "discards".into(),
            self.per_seat(|s| set_texts(self.discards[s])),
        );
        m.insert(
            "history".into(),
            json!(self
                .history
                .iter()
                .map(|&a| Self::action_text(a))
                .collect::<Vec<_>>()),
        );
        Value::Object(m)
    }

    /// Loads a state written by `to_json` (either engine), checking it.
    fn from_json(params: Params, v: &Value) -> Result<Self, Error> {
        json::check_header(v, Self::SPEC.id, params.players, &params.to_json())?;
        let n = params.players;
        let mut g = TwentyTwo::new(
            Params {
                first_dealer: FirstDealer::Seat(0),
                ..params
            },
            0,
            Some(&params.canonical_deck()),
        )?;
        g.params = params;
        g.rng = SplitMix64::new(json::uint(v, "rng")?);
        g.hand_number = u32::try_from(json::uint(v, "hand_number")?)
            .map_err(|_| bad("hand_number out of range"))?;
        g.dealer = seat_of(json::field(v, "dealer")?, n, "dealer")?;
        let small = |key: &str| -> Result<u8, Error> {
            let x = json::uint(v, key)?;
            ensure((1..=11).contains(&x), || format!("{key} out of range"))?;
            Ok(x as u8)
        };
        g.target_size = small("target_size")?;
        g.deal_size = small("deal_size")?;
        g.phase = match json::string(v, "phase")? {
            "discard" => Phase::Discard,
            "play" => Phase::Play,
            "game_over" => Phase::GameOver,
            other => return Err(bad(format!("unknown phase {other:?}"))),
        };
        g.to_act = match json::field(v, "to_act")? {
            Value::Null => NONE,
            s => seat_of(s, n, "to_act")?,
        };
        g.read_seats(v)?;
        let stock = card_seq(json::field(v, "stock")?, "stock", false)?;
        g.stock[..stock.len()].copy_from_slice(&stock);
        g.stock_top = 0;
        g.stock_len = stock.len() as u8;
        g.index_stock();
        g.read_tricks(v)?;
        g.history.clear();
        for text in json::strings(json::field(v, "history")?, "history")? {
            g.history.push(
                Self::parse_action(text)
                    .ok_or_else(|| bad(format!("{text:?} in history is not an action")))?,
            );
        }
        let scores = json::ints(json::field(v, "scores")?, "scores")?;
        ensure(scores == g.scores(), || {
            "scores must be the point values of the score piles".into()
        })?;
        g.check_consistency()?;
        Ok(g)
    }

    fn history(&self) -> &[Action] {
        &self.history
    }
}

impl Trick {
    fn plays_json(&self) -> Value {
        Value::Array(
            (0..self.len as usize)
                .map(|i| json!([self.seats[i], set_texts(self.sets[i])]))
                .collect(),
        )
    }
}

impl<C: Count> TwentyTwo<C> {
    pub(super) fn per_seat<T: Into<Value>>(&self, f: impl Fn(usize) -> T) -> Value {
        Value::Array((0..self.n()).map(|s| f(s).into()).collect())
    }

    fn trick_json(&self) -> Value {
        if self.phase != Phase::Play {
            return Value::Null;
        }
        let t = &self.trick;
        json!({
            "leader": t.leader,
            "plays": t.plays_json(),
            "bar": set_texts(t.bar),
            "bar_holder": (t.bar_holder != NONE).then_some(t.bar_holder),
        })
    }

    fn tricks_json(&self) -> Value {
        Value::Array(
            self.tricks.iter().map(|t| json!({"leader": t.leader, "plays": t.plays_json(), "winner": t.bar_holder})).collect(),
        )
    }

    fn last_trick_json(&self) -> Value {
        match &self.last_trick {
            None => Value::Null,
            Some((t, scorers)) => {
                let seats: Vec<u8> = t.seats[..t.len as usize]
                    .iter()
                    .copied()
                    .filter(|&s| scorers >> s & 1 == 1)
                    .collect();
                json!({"plays": t.plays_json(), "scorers": seats})
            }
        }
    }

    fn out_hand_json(&self) -> Value {
        self.per_seat(|s| self.out_hand[s])
    }

    fn stock_texts(&self) -> Vec<&'static str> {
        self.stock[self.stock_top as usize..self.stock_len as usize]
            .iter()
            .map(|&c| card_text(c as u32))
            .collect()
    }

    /// The fields the state JSON and every observation share.
    fn public_fields(&self, m: &mut Map<String, Value>) {
        m.insert("players".into(), json!(self.n()));
        m.insert("params".into(), self.params.to_json());
        m.insert("hand_number".into(), json!(self.hand_number));
        m.insert("dealer".into(), json!(self.dealer));
        m.insert("target_size".into(), json!(self.target_size));
        m.insert("deal_size".into(), json!(self.deal_size));
        m.insert("phase".into(), json!(self.phase.name()));
        m.insert("to_act".into(), json!(self.current_player()));
        m.insert("active".into(), self.per_seat(|s| self.is_active(s as u8)));
        m.insert("out_hand".into(), self.out_hand_json());
        m.insert(
            "score_piles".into(),
            self.per_seat(|s| set_texts(self.piles[s])),
        );
        m.insert("scores".into(), json!(self.scores()));
        m.insert("trick".into(), self.trick_json());
        m.insert("tricks".into(), self.tricks_json());
        m.insert("last_trick".into(), self.last_trick_json());
    }

    /// `active`, `out_hand`, `score_piles`, `hands`, `discards`.
    fn read_seats(&mut self, v: &Value) -> Result<(), Error> {
        let n = self.n();
        self.active = 0;
        for (s, a) in per_seat(v, "active", n)?.iter().enumerate() {
            let a = a
                .as_bool()
                .ok_or_else(|| bad("\"active\" must hold true or false"))?;
            self.active |= (a as u8) << s;
        }
        for (s, h) in per_seat(v, "out_hand", n)?.iter().enumerate() {
            self.out_hand[s] = h
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| bad("\"out_hand\" must hold non-negative integers"))?;
        }
        for (key, target) in [
            ("score_piles", &mut self.piles),
            ("hands", &mut self.hands),
            ("discards", &mut self.discards),
        ] {
            for (s, x) in per_seat(v, key, n)?.iter().enumerate() {
                target[s] = card_set(x, key)?;
            }
        }
        Ok(())
    }

    /// `trick`, `tricks`, `last_trick`.
    fn read_tricks(&mut self, v: &Value) -> Result<(), Error> {
        let n = self.n();
        let trick = json::field(v, "trick")?;
        ensure(trick.is_null() == (self.phase != Phase::Play), || {
            "the play phase, and only it, has a current trick".into()
        })?;
        if !trick.is_null() {
            let mut t = trick_of(trick, n, "trick", &["bar", "bar_holder", "leader", "plays"])?;
            t.leader = seat_of(&trick["leader"], n, "trick")?;
            t.bar = card_set(&trick["bar"], "trick")?;
            t.bar_holder = match &trick["bar_holder"] {
                Value::Null => NONE,
                s => seat_of(s, n, "trick")?,
            };
            self.trick = t;
        }
        let tricks = json::array(v, "tricks")?;
        ensure(tricks.len() <= MAX_TRICKS, || {
            "too many completed tricks".into()
        })?;
        self.tricks.clear();
        for x in tricks {
            let mut t = trick_of(x, n, "tricks", &["leader", "plays", "winner"])?;
            t.leader = seat_of(&x["leader"], n, "tricks")?;
            t.bar_holder = seat_of(&x["winner"], n, "tricks")?;
            self.tricks.push(t);
        }
        let last = json::field(v, "last_trick")?;
        self.last_trick = None;
        if !last.is_null() {
            let t = trick_of(last, n, "last_trick", &["plays", "scorers"])?;
            let listed = json::array(last, "scorers")?
                .iter()
                .map(|s| seat_of(s, n, "last_trick"))
                .collect::<Result<Vec<_>, _>>()?;
            let scorers = listed.iter().fold(0u8, |m, &s| m | 1 << s);
            let in_order: Vec<u8> = t.seats[..t.len as usize]
                .iter()
                .copied()
                .filter(|&s| scorers >> s & 1 == 1)
                .collect();
            ensure(in_order == listed, || {
                "\"last_trick\": scorers must be distinct seats of the trick, in play order".into()
            })?;
            self.last_trick = Some((t, scorers));
        }
        Ok(())
    }

    /// Everything a loaded state must satisfy beyond its field types.
    pub(super) fn check_consistency(&self) -> Result<(), Error> {
        self.check_cards()?;
        self.check_seats()?;
        match self.phase {
            Phase::Discard => self.check_discard_phase(),
            Phase::Play => self.check_play_phase(),
            Phase::GameOver => self.check_game_over(),
        }
    }

    /// The 52 cards, each exactly once.
    fn check_cards(&self) -> Result<(), Error> {
        let mut seen = 0u64;
        let mut count = 0u32;
        let mut add = |set: u64| {
            seen |= set;
            count += set.count_ones();
        };
        add(self.stock[self.stock_top as usize..self.stock_len as usize]
            .iter()
            .fold(0, |a, &c| a | 1 << c));
        for s in 0..self.n() {
            add(self.hands[s]);
            add(self.discards[s]);
            add(self.piles[s]);
        }
        let current = if self.phase == Phase::Play {
            std::slice::from_ref(&self.trick)
        } else {
            &[]
        };
        for t in self.tricks.iter().chain(current) {
            (0..t.len as usize).for_each(|i| add(t.sets[i]));
        }
        ensure(seen == CARDS && count == 52, || {
            "the cards in hands, stock, discards, tricks and score piles are not the 52 cards"
                .into()
        })
    }

    fn check_seats(&self) -> Result<(), Error> {
        ensure(self.hand_number >= 1, || {
            "hand_number or target_size out of range".into()
        })?;
        let limit = self.params.elimination_score;
        for s in 0..self.n() {
            let out = self.out_hand[s];
            let score = set_value(self.piles[s]);
            ensure(self.is_active(s as u8) == (out == 0), || {
                "a seat is active exactly when out_hand is 0".into()
            })?;
            ensure(
                out == 0 || (out <= self.hand_number && score >= limit),
                || {
                    "an eliminated seat must have reached the elimination score in an earlier hand"
                        .into()
                },
            )?;
            ensure(out != 0 || score < limit, || {
                "an active seat cannot have reached the elimination score".into()
            })?;
            ensure(out == 0 || (self.hands[s] | self.discards[s]) == 0, || {
                "an eliminated seat holds no cards".into()
            })?;
        }
        Ok(())
    }

    /// The active seats in turn order from the dealer's left, for a hand in progress.
    fn check_hand_in_progress(&self) -> Result<([u8; MAX_PLAYERS], usize), Error> {
        let mut seats = [0u8; MAX_PLAYERS];
        let p = self.active_count() as usize;
        let mut s = self.dealer;
        for slot in seats.iter_mut().take(p) {
            s = self.next_active(s);
            *slot = s;
        }
        ensure(p >= 2 && seats[..p].contains(&self.to_act), || {
            "a hand needs two active seats, one of them to act".into()
        })?;
        Ok((seats, p))
    }

    fn check_discard_phase(&self) -> Result<(), Error> {
        let (seats, p) = self.check_hand_in_progress()?;
        ensure(self.tricks.is_empty(), || {
            "no trick is played during the discard phase".into()
        })?;
        let at = seats[..p]
            .iter()
            .position(|&s| s == self.to_act)
            .unwrap_or(0);
        ensure(
            seats[at + 1..p]
                .iter()
                .all(|&s| self.discards[s as usize] == 0),
            || "a seat that has not had its discard turn has discards".into(),
        )?;
        ensure(
            seats[..p]
                .iter()
                .all(|&s| self.hands[s as usize].count_ones() == self.deal_size as u32),
            || "during the discard phase every active hand holds deal_size cards".into(),
        )
    }

    /// The trick's plays follow the turn order and agree with its bar; hands are equal.
    fn check_play_phase(&self) -> Result<(), Error> {
        let (seats, p) = self.check_hand_in_progress()?;
        let t = &self.trick;
        ensure(self.is_active(t.leader), || {
            "the play phase needs a trick led by an active seat".into()
        })?;
        let mut order = [0u8; MAX_PLAYERS];
        order[0] = t.leader;
        for i in 1..p {
            order[i] = self.next_active(order[i - 1]);
        }
        let played = t.len as usize;
        ensure(played < p && t.seats[..played] == order[..played], || {
            "the trick's plays must follow the turn order from its leader".into()
        })?;
        ensure(self.to_act == order[played], || {
            "to_act must be the next seat in the trick".into()
        })?;
        let (mut bar, mut holder) = (0u64, NONE);
        for i in 0..played {
            if i == 0 || beats_or_equals(t.sets[i], bar) {
                bar = t.sets[i];
                holder = t.seats[i];
            }
        }
        ensure(t.bar == bar && t.bar_holder == holder, || {
            "the trick's bar and bar_holder do not follow from its plays".into()
        })?;
        let k = bar.count_ones();
        let size_of = |s: u8| self.hands[s as usize].count_ones();
        let h = size_of(order[played]);
        let equal = (0..played).all(|i| t.sets[i].count_ones() == k && size_of(order[i]) + k == h)
            && order[played..p].iter().all(|&s| size_of(s) == h);
        ensure(equal && h > 0, || {
            "hands are not equal in size or the trick's sets differ in size".into()
        })?;
        let all = seats[..p].iter().fold(0u8, |m, &s| m | 1 << s);
        for d in &self.tricks {
            let who = d.seats[..d.len as usize]
                .iter()
                .fold(0u8, |m, &s| m | 1 << s);
            ensure(who == all && d.len as usize == p, || {
                "every completed trick has one play per active seat".into()
            })?;
        }
        for &s in &seats[..p] {
            let played: u32 = self
                .tricks
                .iter()
                .chain(std::iter::once(t))
                .map(|d| d.played_by(s))
                .sum();
            ensure(size_of(s) + played == self.deal_size as u32, || {
                "each hand and the cards its seat played this hand must make deal_size".into()
            })?;
        }
        Ok(())
    }

    fn check_game_over(&self) -> Result<(), Error> {
        ensure(self.active_count() <= 1 && self.to_act == NONE, || {
            "a finished game has at most one active seat and nobody to act".into()
        })?;
        let holding = (0..self.n()).any(|s| (self.hands[s] | self.discards[s]) != 0);
        ensure(self.tricks.is_empty() && !holding, || {
            "a finished game has no cards in play".into()
        })
    }
}

pub(super) fn bad(message: impl Into<String>) -> Error {
    Error::InvalidState {
        message: message.into(),
    }
}

pub(super) fn seat_of(v: &Value, n: usize, what: &str) -> Result<u8, Error> {
    match v.as_u64() {
        Some(s) if (s as usize) < n => Ok(s as u8),
        _ => Err(bad(format!("{what:?} must be a seat from 0 to {}", n - 1))),
    }
}

/// A list of distinct card codes, in play order when `ordered`; returns the
/// cards in the given order.
fn card_seq(v: &Value, what: &str, ordered: bool) -> Result<Vec<u8>, Error> {
    let mut seen = 0u64;
    let mut out = Vec::new();
    for text in json::strings(v, what)? {
        let c = parse_card(text)
            .ok_or_else(|| bad(format!("{what:?} must hold lists of card codes")))?;
        let later = out.last().is_none_or(|&last: &u8| c > last as u32);
        ensure(seen >> c & 1 == 0 && (!ordered || later), || {
            format!("{what:?}: cards must be distinct and in play order")
        })?;
        seen |= 1 << c;
        out.push(c as u8);
    }
    Ok(out)
}

pub(super) fn card_set(v: &Value, what: &str) -> Result<u64, Error> {
    Ok(card_seq(v, what, true)?.iter().fold(0, |a, &c| a | 1 << c))
}

pub(super) fn per_seat<'a>(v: &'a Value, key: &str, n: usize) -> Result<&'a Vec<Value>, Error> {
    let a = json::array(v, key)?;
    ensure(a.len() == n, || {
        format!("{key:?} must have one entry per seat")
    })?;
    Ok(a)
}

/// A trick object with exactly the fields `fields` (sorted); `plays` is read
/// into a [`Trick`], the other fields are left to the caller.
fn trick_of(v: &Value, n: usize, what: &str, fields: &[&str]) -> Result<Trick, Error> {
    let ok = v
        .as_object()
        .is_some_and(|o| o.len() == fields.len() && fields.iter().all(|f| o.contains_key(*f)));
    ensure(ok, || {
        format!(
            "{what:?} must be an object with the fields {}",
            fields.join(", ")
        )
    })?;
    let mut t = Trick::new(0);
    for play in json::array(v, "plays")? {
        let pair = play
            .as_array()
            .filter(|p| p.len() == 2)
            .ok_or_else(|| bad(format!("{what:?}: each play must be [seat, cards]")))?;
        let seat = seat_of(&pair[0], n, what)?;
        ensure(t.seats[..t.len as usize].iter().all(|&s| s != seat), || {
            format!("{what:?}: a seat plays once per trick")
        })?;
        t.seats[t.len as usize] = seat;
        t.sets[t.len as usize] = card_set(&pair[1], what)?;
        t.len += 1;
    }
    Ok(t)
}
