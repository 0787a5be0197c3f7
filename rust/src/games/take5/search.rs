//! Take 5's determinization (the cards hidden from a seat dealt anew, from a
//! state or from an observation alone) and the search bot's rollouts.

use crate::points::Count;
use super::rules::{cards_in_play, set_heads};
use super::{Phase, Take5};
use crate::cards::bits;
use crate::game::{parse_canonical_uint, Action, Error, Game, Rules, Search, StateJson};
use crate::json::{self, ensure};
use crate::rng::SplitMix64;
use serde_json::{json, Value};

impl<C: Count> Search for Take5<C> {
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        if self.phase == Phase::GameOver || seat >= self.n() {
            return Ok(g);
        }
        // Hidden from `seat`: the other hands, their face-down cards, the unused cards.
        let mut pool = self.unused;
        for s in (0..self.n()).filter(|&s| s != seat) {
            pool |= self.hands[s];
            if self.committed[s] != 0 {
                pool |= 1 << self.committed[s];
            }
        }
        let mut cards: Vec<u8> = bits(pool).map(|c| c as u8).collect();
        rng.shuffle(&mut cards);
        let mut next = cards.into_iter();
        let hidden_commits = if self.phase == Phase::Commit {
            self.to_act as usize
        } else {
            0
        };
        let turn_start = self.history.len() - hidden_commits;
        for s in (0..self.n()).filter(|&s| s != seat) {
            if self.committed[s] != 0 {
                g.committed[s] = next.next().unwrap_or(0);
                if s < hidden_commits {
                    g.history[turn_start + s] = g.committed[s] as Action;
                }
            }
            g.hands[s] = 0;
            for _ in 0..self.hands[s].count_ones() {
                g.hands[s] |= 1 << next.next().unwrap_or(0);
            }
        }
        g.unused = next.fold(0, |set, c| set | 1 << c);
        Ok(g)
    }

    /// Builds the state JSON from what the observation shows plus hidden cards
    /// drawn at random, and loads it (so every check of `from_json` applies).
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        let bad = |what: &str| Error::InvalidState {
            message: format!("not a take5 observation: {what}"),
        };
        ensure(json::string(obs, "game")? == "take5", || {
            "not a take5 observation".into()
        })?;
        let n = self.n();
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < n, || "seat out of range".into())?;
        let card = |v: &Value| -> Result<u8, Error> {
            v.as_str()
                .and_then(parse_canonical_uint)
                .filter(|&c| (1..=self.params.highest_card()).contains(&c))
                .map(|c| c as u8)
                .ok_or_else(|| bad("a card code"))
        };
        let cards_of = |v: &Value| -> Result<u128, Error> {
            let list = v.as_array().ok_or_else(|| bad("a card list"))?;
            list.iter()
                .try_fold(0u128, |set, c| Ok(set | 1 << card(c)?))
        };
        let hand = cards_of(json::field(obs, "hand")?)?;
        let mine = match json::field(obs, "my_commitment")? {
            Value::Null => 0,
            v => card(v)?,
        };
        let flags = json::array(obs, "committed")?;
        ensure(flags.len() == n, || {
            "committed has one flag per seat".into()
        })?;
        let flags: Vec<bool> = flags.iter().map(|f| f.as_bool() == Some(true)).collect();
        let mut known = hand | if mine != 0 { 1 << mine } else { 0 };
        for row in json::array(obs, "rows")? {
            known |= cards_of(row)?;
        }
        for pile in json::array(obs, "piles")? {
            known |= cards_of(pile)?;
        }
        let next_to_place = json::uint(obs, "next_to_place")? as usize;
        for (i, pair) in json::array(obs, "revealed")?.iter().enumerate() {
            if i >= next_to_place {
                known |= 1 << card(&pair[0])?;
            }
        }
        let all = cards_in_play(self.params.highest_card() as usize);
        let mut cards: Vec<u8> = bits(all & !known).map(|c| c as u8).collect();
        rng.shuffle(&mut cards);
        let mut next = cards.into_iter().map(|c| c.to_string());
        let base = hand.count_ones() as usize + usize::from(mine != 0);
        let mut hands = Vec::with_capacity(n);
        let mut committed = Vec::with_capacity(n);
        for (s, &flag) in flags.iter().enumerate() {
            if s == seat {
                hands.push(bits(hand).map(|c| c.to_string()).collect::<Vec<_>>());
                committed.push((mine != 0).then(|| mine.to_string()));
                continue;
            }
            let c = if flag { next.next() } else { None };
            let size = base - usize::from(flag);
            let mut h: Vec<String> = next.by_ref().take(size).collect();
            h.sort_by_key(|c| c.parse::<u32>().unwrap_or(0));
            committed.push(c);
            hands.push(h);
        }
        let mut unused: Vec<String> = next.collect();
        unused.sort_by_key(|c| c.parse::<u32>().unwrap_or(0));
        let mut history = json::strings(json::field(obs, "history")?, "history")?
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        if json::string(obs, "phase")? == "commit" {
            for c in committed.iter().take_while(|c| c.is_some()).flatten() {
                history.push(format!("play {c}"));
            }
        }
        let state = json!({
            "game": Self::SPEC.id,
            "players": n,
            "params": json::field(obs, "params")?,
            "rng": rng.next_u64(),
            "round": json::field(obs, "round")?,
            "turn": json::field(obs, "turn")?,
            "phase": json::field(obs, "phase")?,
            "hands": hands,
            "committed": committed,
            "rows": json::field(obs, "rows")?,
            "unused": unused,
            "revealed": json::field(obs, "revealed")?,
            "next_to_place": next_to_place,
            "piles": json::field(obs, "piles")?,
            "scores": json::field(obs, "scores")?,
            "round_scores": json::field(obs, "round_scores")?,
            "history": history,
            "round_start": 0,
        });
        Self::from_json(self.params, &state)
    }

    /// Rollouts end with the round; the value is the bullheads the other seats
    /// took meanwhile (on average) minus those `seat` took.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        if !self.is_terminal() && self.round == start.round {
            return None;
        }
        let n = self.n();
        let taken = |g: &Self, s: usize| g.scores[s] + set_heads(g.piles[s]);
        let gained: Vec<f64> = (0..n)
            .map(|s| (taken(self, s) - taken(start, s)) as f64)
            .collect();
        let others = (gained.iter().sum::<f64>() - gained[seat]) / (n - 1) as f64;
        Some(others - gained[seat])
    }
}
