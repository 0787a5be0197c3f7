//! Back Alley's determinization (the hidden cards dealt anew, honouring
//! every void, Blooper answer and trump lead shown this deal) and the search
//! bot's rollouts (to the end of the deal).

use crate::points::Count;
use super::json::{card, card_list, card_set, card_text, cards_text, read_deal};
use super::rules::{is_joker, suit_mask, suit_of};
use super::{BackAlley, Phase, ALL_CARDS, BB, DECK, JOKERS, LB, MAX_HAND, PLAYERS};
use crate::cards::bits;
use crate::game::{pick, Error, Game, Search, StateJson};
use crate::json::{self, ensure};
use crate::rng::SplitMix64;
use serde_json::{json, Map, Value};

/// What a won game is worth to a rollout that reaches the end, in deal points:
/// more than any deal can score, so the search plays for the win last of all.
pub(super) const GAME_WIN_VALUE: f64 = 1e6;

/// Places a card hidden from the observer can be in: the three other seats
/// (in seat order from the observer's left), then the stock.
const PLACES: usize = 4;

const STOCK_PLACE: usize = 3;

impl<C: Count> Search for BackAlley<C> {
    /// The other hands and the stock above the turned jokers are dealt anew,
    /// each seat keeping its size and holding none of the cards its plays
    /// this deal showed it lacks (see [`BackAlley::shown_absent`]); the
    /// exchanged card, if hidden, and the generator are redrawn.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        ensure(seat < PLAYERS, || format!("seat {seat} does not exist"))?;
        let mut g = self.clone();
        g.redeal_hidden(seat, rng);
        Ok(g)
    }

    /// Builds the state JSON from the observation's public fields plus the
    /// hidden cards placed anyhow, loads it (every check of `from_json`
    /// applies), then deals the hidden cards as `resample` does (which keeps
    /// every one of those checks true). The observation shows this deal's
    /// actions only, so the rebuilt history starts at the deal
    /// (`deal_start = 0`). The deal records are read from the observation as
    /// `from_json` reads them, without copying them into the state JSON first.
    fn sample_from_observation(&self, obs: &Value, rng: &mut SplitMix64) -> Result<Self, Error> {
        ensure(json::string(obs, "game")? == Self::SPEC.id, || {
            "not a back_alley observation".into()
        })?;
        let seat = json::uint(obs, "seat")? as usize;
        ensure(seat < PLAYERS, || "seat out of range".into())?;
        let skeleton = skeleton_json(obs, seat, rng.next_u64())?;
        let mut g = Self::from_json(self.params.clone(), &skeleton)?;
        g.deals = json::array(obs, "deals")?
            .iter()
            .map(read_deal)
            .collect::<Result<_, _>>()?;
        g.redeal_hidden(seat, rng);
        Ok(g)
    }

    /// Rollouts end with the deal (scored, redealt or abandoned); the value is
    /// the points `seat`'s team gained in it minus the other team's. When the
    /// game ends, winning it counts for more than any deal's points.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        let over = self.phase == Phase::GameOver;
        if !over && self.deals.len() == start.deals.len() {
            return None;
        }
        let team = seat % 2;
        let gained = |t: usize| (self.team_scores[t] - start.team_scores[t]) as f64;
        let mut value = gained(team) - gained(1 - team);
        if over {
            let lead = self.team_scores[team] - self.team_scores[1 - team];
            value += GAME_WIN_VALUE * lead.signum() as f64;
        }
        Some(value)
    }
}

impl<C: Count> BackAlley<C> {
    /// Trump-set cards ranking above the trump `c` (`BB` > `LB` > A..2 of trump).
    pub(super) fn trumps_above(&self, c: u8) -> u64 {
        match c {
            BB => 0,
            LB => 1 << BB,
            _ => JOKERS | (self.trump_set() & !JOKERS & !((2u64 << c) - 1)),
        }
    }

    /// Trump-set cards ranking below the trump `c`.
    pub(super) fn trumps_below(&self, c: u8) -> u64 {
        self.trump_set() & !self.trumps_above(c) & !(1 << c)
    }

    /// The completed tricks of this deal and the current one, as (leader, cards).
    fn deal_tricks(&self) -> impl Iterator<Item = (u8, &[u8])> {
        self.completed[..self.completed_len as usize]
            .iter()
            .map(|(l, c, _)| (*l, &c[..]))
            .chain(std::iter::once((
                self.trick_leader,
                &self.trick[..self.trick_len as usize],
            )))
    }

    /// The cards each seat played this deal.
    pub(super) fn played_this_deal(&self) -> [u64; PLAYERS] {
        let mut played = [0u64; PLAYERS];
        for (leader, cards) in self.deal_tricks() {
            for (i, &c) in cards.iter().enumerate() {
                played[(leader as usize + i) % PLAYERS] |= 1 << c;
            }
        }
        played
    }

    /// Per seat, the cards its plays this deal showed it no longer holds: a
    /// play was legal only because the seat lacked them (§5.2). A trump led
    /// before trumps broke, by a seat not exempt, shows a hand of trumps only
    /// (BA-11, BA-12); a card off the led suit shows a void in it, the trump
    /// set counting as one suit (BA-13, BA-21); under a led Blooper a trump
    /// shows no higher (`BB`) or lower (`LB`) trump, any other card no trump
    /// (BA-14). Cards only leave hands during a deal, so what a seat lacked
    /// then it lacks now.
    pub fn shown_absent(&self) -> [u64; PLAYERS] {
        let set = self.trump_set();
        let mut absent = [0u64; PLAYERS];
        let mut broken = false;
        for (leader, cards) in self.deal_tricks() {
            let Some(&led) = cards.first() else { continue };
            let l = leader as usize;
            let led_trump = set >> led & 1 == 1;
            if led_trump && !broken && !self.exempt(l) {
                absent[l] |= ALL_CARDS & !set;
            }
            for (i, &c) in cards.iter().enumerate().skip(1) {
                let s = (l + i) % PLAYERS;
                let blooper = self.blooper_rule_applies(led, l, s);
                let trump = set >> c & 1 == 1;
                absent[s] |= if blooper && trump {
                    if led == BB {
                        self.trumps_above(c)
                    } else {
                        self.trumps_below(c)
                    }
                } else {
                    let follow = if led_trump { set } else { suit_mask(suit_of(led)) };
                    if follow >> c & 1 == 1 {
                        0
                    } else {
                        follow
                    }
                };
            }
            broken |= cards.iter().any(|&c| set >> c & 1 == 1);
        }
        absent
    }

    /// Deals the cards hidden from `seat` anew: the other hands and the stock
    /// above the turned jokers. Each hand keeps its size and gets none of the
    /// cards its seat has shown it lacks, nor a joker when the upcard is one
    /// (BA-17: then no joker is in any hand). The exchanged card, when hidden
    /// from `seat`, becomes one of the exchanging seat's cards of this deal at
    /// random; the generator is drawn anew.
    ///
    /// Cards are taken in random order and each goes to a place with room,
    /// chosen with probability proportional to its room (a plain random deal
    /// when nothing is constrained), among the places that leave the rest
    /// placeable (Hall's condition, [`placeable`]); the true deal shows the
    /// constraints can be met.
    fn redeal_hidden(&mut self, seat: usize, rng: &mut SplitMix64) {
        self.rng = SplitMix64::new(rng.next_u64());
        let others = [1, 2, 3].map(|k| (seat + k) % PLAYERS);
        let mut absent = self.shown_absent();
        if is_joker(self.upcard) {
            others.iter().for_each(|&s| absent[s] |= JOKERS);
        }
        let open_stock = (self.stock_len - self.turned_len) as usize;
        let mut pool = [0u8; DECK];
        let mut len = 0;
        let mut room = [0u8; PLACES];
        for (i, &s) in others.iter().enumerate() {
            room[i] = self.hands[s].count_ones() as u8;
            for c in bits(self.hands[s] as u128) {
                pool[len] = c as u8;
                len += 1;
            }
        }
        room[STOCK_PLACE] = open_stock as u8;
        pool[len..len + open_stock].copy_from_slice(&self.stock[..open_stock]);
        len += open_stock;
        let cards = &mut pool[..len];
        rng.shuffle(cards);
        let places = |c: u8| -> usize {
            (0..3)
                .filter(|&i| absent[others[i]] >> c & 1 == 0)
                .fold(1 << STOCK_PLACE, |m, i| m | 1 << i)
        };
        let mut count = [0u8; 1 << PLACES];
        cards.iter().for_each(|&c| count[places(c)] += 1);
        let constrained = count.iter().enumerate().any(|(m, &k)| k > 0 && m != 15);
        let mut hands = [0u64; 3];
        let mut stock_len = 0;
        for &c in cards.iter() {
            let fits = places(c);
            count[fits] -= 1;
            let mut options = fits;
            let place = loop {
                let open = |p: usize| options >> p & 1 == 1 && room[p] > 0;
                let total: usize = (0..PLACES)
                    .filter(|&p| open(p))
                    .map(|p| room[p] as usize)
                    .sum();
                // The true deal meets every constraint, so some place is left.
                debug_assert!(total > 0, "no place left for a hidden card");
                let mut r = pick(rng, total.max(1));
                let p = (0..PLACES)
                    .filter(|&p| open(p))
                    .find(|&p| {
                        let here = r < room[p] as usize;
                        r = r.saturating_sub(room[p] as usize);
                        here
                    })
                    .unwrap_or(STOCK_PLACE);
                room[p] -= 1;
                if !constrained || options.count_ones() == 1 || placeable(&count, &room) {
                    break p;
                }
                room[p] += 1;
                options &= !(1 << p);
            };
            if place == STOCK_PLACE {
                self.stock[stock_len] = c;
                stock_len += 1;
            } else {
                hands[place] |= 1 << c;
            }
        }
        for (i, &s) in others.iter().enumerate() {
            self.hands[s] = hands[i];
        }
        if let Some(mut e) = self.exchange.filter(|e| e.seat as usize != seat) {
            let s = e.seat as usize;
            let mine = (self.hands[s] | self.played_this_deal()[s]) & !JOKERS;
            e.drawn = nth_card(mine, pick(rng, mine.count_ones() as usize));
            self.exchange = Some(e);
        }
    }
}

/// Can every card still be placed? `count[m]` cards may go exactly to the
/// places of the bit set `m`, `room[p]` is the free room of place `p`. Hall's
/// condition for this transportation problem: for every set of places, the
/// cards that fit only there do not exceed its room.
fn placeable(count: &[u8; 1 << PLACES], room: &[u8; PLACES]) -> bool {
    (1..1usize << PLACES).all(|set| {
        let space: u32 = (0..PLACES)
            .filter(|&p| set >> p & 1 == 1)
            .map(|p| room[p] as u32)
            .sum();
        let need: u32 = (1..1usize << PLACES)
            .filter(|&m| m & !set == 0)
            .map(|m| count[m] as u32)
            .sum();
        need <= space
    })
}

/// The `k`-th lowest card of a set.
fn nth_card(mut set: u64, k: usize) -> u8 {
    for _ in 0..k {
        set &= set - 1;
    }
    set.trailing_zeros() as u8
}

/// The fields of the state JSON an observation shows as they are, but for
/// the deal records (read separately).
const PUBLIC_KEYS: [&str; 20] = [
    "game",
    "players",
    "params",
    "phase",
    "hand_index",
    "hand_size",
    "dealer",
    "all_pass_count",
    "to_act",
    "upcard",
    "turned_jokers",
    "trump",
    "bids",
    "trick_leader",
    "trick",
    "completed_tricks",
    "tricks_won",
    "trump_broken",
    "team_scores",
    "result",
];

/// The state JSON of an observation with the cards hidden from `seat` placed
/// anyhow (dealt properly afterwards): the jokers of a joker-upcard deal in
/// the stock, then the other hands in seat order, the rest in the stock above
/// the turned jokers; a hidden exchanged card is one the exchanging seat holds
/// or played. The history starts at the deal (`deal_start = 0`); the deal
/// records are left empty.
fn skeleton_json(obs: &Value, seat: usize, rng_state: u64) -> Result<Value, Error> {
    let hand = card_list(json::field(obs, "hand")?, "hand")?;
    let sizes = json::ints(json::field(obs, "hand_sizes")?, "hand_sizes")?;
    ensure(
        sizes.len() == PLAYERS && sizes.iter().all(|k| (0..=MAX_HAND as i64).contains(k)),
        || "hand_sizes must hold four hand sizes".into(),
    )?;
    let upcard = card(json::string(obs, "upcard")?)?;
    let turned = card_list(json::field(obs, "turned_jokers")?, "turned_jokers")?;
    let exchange = json::field(obs, "joker_exchange")?;
    let mut known = card_set(&hand, "the hand")? | 1 << upcard;
    turned.iter().for_each(|&c| known |= 1 << c);
    if !exchange.is_null() {
        known |= 1 << card(json::string(exchange, "discarded")?)?;
    }
    let mut played = [0u64; PLAYERS];
    let tricks = json::array(obs, "completed_tricks")?
        .iter()
        .map(|t| json::array(t, "cards"))
        .chain(std::iter::once(json::array(obs, "trick")));
    for trick in tricks {
        for pair in trick? {
            let s = pair.get(0).and_then(Value::as_u64).unwrap_or(0) as usize % PLAYERS;
            let c = card(pair.get(1).and_then(Value::as_str).unwrap_or(""))?;
            known |= 1 << c;
            played[s] |= 1 << c;
        }
    }
    let mut hidden = ALL_CARDS & !known;
    let mut stock: Vec<String> = Vec::with_capacity(DECK);
    if is_joker(upcard) {
        stock.extend(cards_text(hidden & JOKERS));
        hidden &= !JOKERS;
    }
    let mut hands = [0u64; PLAYERS];
    for (s, held) in hands.iter_mut().enumerate() {
        if s == seat {
            *held = card_set(&hand, "the hand")?;
            continue;
        }
        for _ in 0..sizes[s] {
            if hidden != 0 {
                *held |= hidden & hidden.wrapping_neg();
                hidden &= hidden - 1;
            }
        }
    }
    stock.extend(cards_text(hidden));
    stock.extend(turned.iter().map(|&c| card_text(c)));
    let exchange = match exchange {
        Value::Null => Value::Null,
        e if e.get("drawn").is_some() => e.clone(),
        e => {
            let s = json::uint(e, "seat")? as usize % PLAYERS;
            let mine = (hands[s] | played[s]) & !JOKERS;
            ensure(mine != 0, || "the exchanging seat holds no card".into())?;
            let mut e = e.clone();
            e["drawn"] = json!(card_text(mine.trailing_zeros() as u8));
            e
        }
    };
    let mut state = Map::new();
    for key in PUBLIC_KEYS {
        state.insert(key.into(), json::field(obs, key)?.clone());
    }
    state.insert("deals".into(), json!([]));
    state.insert("rng".into(), json!(rng_state));
    state.insert("hands".into(), json!(hands.map(cards_text)));
    state.insert("stock".into(), json!(stock));
    state.insert("joker_exchange".into(), exchange);
    state.insert("history".into(), json::field(obs, "actions")?.clone());
    state.insert("deal_start".into(), json!(0));
    Ok(Value::Object(state))
}
