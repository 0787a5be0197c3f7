//! The game ids and the one place that dispatches over games.

pub mod back_alley;
pub mod five_alive;
pub mod hundred;
pub mod take5;
pub mod twenty_two;

use crate::game::{Action, Error, Rules};
use crate::params::Param;
use crate::rng::SplitMix64;
use crate::sim::{self, Bot, SearchParams};
use serde_json::Value;

/// Ids of the games both engines implement, sorted.
pub const GAME_IDS: &[&str] = &["back_alley", "five_alive", "hundred", "take5", "twenty_two"];

/// A game's checked configuration: what `cardref.load` returns on the Rust side.
#[derive(Debug, Clone, PartialEq)]
pub enum Config {
    /// Back Alley (partnership trick-taking with two jokers).
    BackAlley(back_alley::Params),
    /// 5 Alive.
    FiveAlive(five_alive::Params),
    /// 100 (One Hundred).
    Hundred(hundred::Params),
    /// Take 5 (6 nimmt!).
    Take5(take5::Params),
    /// Twenty-Two (22).
    TwentyTwo(twenty_two::Params),
}

/// A state of any game. The states are fixed-size arrays of differing sizes;
/// they are created once per game and never moved in the hot loop, so they are
/// not boxed (boxing would add an indirection to every action).
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum AnyState {
    /// Back Alley (partnership trick-taking with two jokers).
    BackAlley(back_alley::BackAlley),
    /// 5 Alive.
    FiveAlive(five_alive::FiveAlive),
    /// 100 (One Hundred).
    Hundred(hundred::Hundred),
    /// Take 5 (6 nimmt!).
    Take5(take5::Take5),
    /// Twenty-Two (22).
    TwentyTwo(twenty_two::TwentyTwo),
}

/// Calls `$body` with `$s` bound to the inner state, whatever the game.
macro_rules! dispatch {
    ($state:expr, $s:ident => $body:expr) => {
        match $state {
            AnyState::BackAlley($s) => $body,
            AnyState::FiveAlive($s) => $body,
            AnyState::Hundred($s) => $body,
            AnyState::Take5($s) => $body,
            AnyState::TwentyTwo($s) => $body,
        }
    };
}

/// Same as `dispatch!`, for a `$body` that returns `Result<Self, Error>` of the
/// inner type: wraps the result back into the same `AnyState` variant.
macro_rules! dispatch_same {
    ($state:expr, $s:ident => $body:expr) => {
        match $state {
            AnyState::BackAlley($s) => AnyState::BackAlley($body?),
            AnyState::FiveAlive($s) => AnyState::FiveAlive($body?),
            AnyState::Hundred($s) => AnyState::Hundred($body?),
            AnyState::TwentyTwo($s) => AnyState::TwentyTwo($body?),
            AnyState::Take5($s) => AnyState::Take5($body?),
            // A game merged without an arm here: it has no determinization yet.
            #[allow(unreachable_patterns)]
            _ => {
                return Err(Error::InvalidState {
                    message: "this game has no determinization yet".into(),
                })
            }
        }
    };
}

/// Same as `dispatch!`, but also binds `$T` to the state's type, for associated functions.
macro_rules! dispatch_type {
    ($state:expr, $T:ident => $body:expr) => {
        match $state {
            AnyState::BackAlley(_) => {
                type $T = back_alley::BackAlley;
                $body
            }
            AnyState::FiveAlive(_) => {
                type $T = five_alive::FiveAlive;
                $body
            }
            AnyState::Hundred(_) => {
                type $T = hundred::Hundred;
                $body
            }
            AnyState::Take5(_) => {
                type $T = take5::Take5;
                $body
            }
            AnyState::TwentyTwo(_) => {
                type $T = twenty_two::TwentyTwo;
                $body
            }
        }
    };
}

impl Config {
    /// Checks the game id, the player count and the variant keys.
    pub fn new(game: &str, players: i64, variant: Vec<(String, Param)>) -> Result<Self, Error> {
        match game {
            "back_alley" => Ok(Config::BackAlley(back_alley::Params::parse(
                players, variant,
            )?)),
            "five_alive" => Ok(Config::FiveAlive(five_alive::Params::parse(
                players, variant,
            )?)),
            "hundred" => Ok(Config::Hundred(hundred::Params::parse(players, variant)?)),
            "take5" => Ok(Config::Take5(take5::Params::parse(players, variant)?)),
            "twenty_two" => Ok(Config::TwentyTwo(twenty_two::Params::parse(
                players, variant,
            )?)),
            _ => Err(Error::UnknownGame {
                id: game.to_string(),
            }),
        }
    }

    /// The game id.
    pub fn id(&self) -> &'static str {
        match self {
            Config::BackAlley(_) => back_alley::BackAlley::ID,
            Config::FiveAlive(_) => five_alive::FiveAlive::ID,
            Config::Hundred(_) => hundred::Hundred::ID,
            Config::Take5(_) => take5::Take5::ID,
            Config::TwentyTwo(_) => twenty_two::TwentyTwo::ID,
        }
    }

    /// Seats at the table.
    pub fn players(&self) -> usize {
        match self {
            Config::BackAlley(_) => back_alley::PLAYERS,
            Config::FiveAlive(p) => p.players,
            Config::Hundred(p) => p.players,
            Config::Take5(p) => p.players,
            Config::TwentyTwo(p) => p.players,
        }
    }

    /// The effective variant values, every key present.
    pub fn params_json(&self) -> Value {
        match self {
            Config::BackAlley(p) => p.to_json(),
            Config::FiveAlive(p) => p.to_json(),
            Config::Hundred(p) => p.to_json(),
            Config::Take5(p) => p.to_json(),
            Config::TwentyTwo(p) => p.to_json(),
        }
    }

    /// The cards in play, canonical order (what an explicit deck must permute).
    pub fn canonical_deck(&self) -> Vec<String> {
        match self {
            Config::BackAlley(p) => p.canonical_deck(),
            Config::FiveAlive(p) => p.canonical_deck(),
            Config::Hundred(p) => p.canonical_deck(),
            Config::Take5(p) => p.canonical_deck(),
            Config::TwentyTwo(_) => twenty_two::canonical_deck(),
        }
    }

    /// A new game from `seed`, with an optional explicit first deck (top card first).
    pub fn new_state(&self, seed: u64, deck: Option<&[String]>) -> Result<AnyState, Error> {
        match self {
            Config::BackAlley(p) => Ok(AnyState::BackAlley(back_alley::BackAlley::new(
                p.clone(),
                seed,
                deck,
            )?)),
            Config::FiveAlive(p) => Ok(AnyState::FiveAlive(five_alive::FiveAlive::new(
                *p, seed, deck,
            )?)),
            Config::Hundred(p) => Ok(AnyState::Hundred(hundred::Hundred::new(*p, seed, deck)?)),
            Config::Take5(p) => Ok(AnyState::Take5(take5::Take5::new(*p, seed, deck)?)),
            Config::TwentyTwo(p) => Ok(AnyState::TwentyTwo(twenty_two::TwentyTwo::new(
                *p, seed, deck,
            )?)),
        }
    }

    /// The next game of a batch, dealt from `seed` into the state `slot`
    /// holds (its allocations reused, see [`AnyState::restart`]), or into a
    /// new state for the batch's first game.
    pub fn deal_into<'a>(
        &self,
        slot: &'a mut Option<AnyState>,
        seed: u64,
    ) -> Result<&'a mut AnyState, Error> {
        match slot {
            Some(state) => {
                state.restart(self, seed)?;
                Ok(state)
            }
            None => Ok(slot.insert(self.new_state(seed, None)?)),
        }
    }

    /// Loads a state written by `to_json` (by either engine) for this configuration.
    pub fn state_from_json(&self, text: &str) -> Result<AnyState, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::InvalidState {
            message: format!("not JSON: {e}"),
        })?;
        match self {
            Config::BackAlley(p) => Ok(AnyState::BackAlley(back_alley::BackAlley::from_json(
                p.clone(),
                &value,
            )?)),
            Config::FiveAlive(p) => Ok(AnyState::FiveAlive(five_alive::FiveAlive::from_json(
                *p, &value,
            )?)),
            Config::Hundred(p) => Ok(AnyState::Hundred(hundred::Hundred::from_json(*p, &value)?)),
            Config::Take5(p) => Ok(AnyState::Take5(take5::Take5::from_json(*p, &value)?)),
            Config::TwentyTwo(p) => Ok(AnyState::TwentyTwo(twenty_two::TwentyTwo::from_json(
                *p, &value,
            )?)),
        }
    }
}

impl AnyState {
    /// Seat to act, or `None` once the game is over.
    pub fn current_player(&self) -> Option<usize> {
        dispatch!(self, s => s.current_player())
    }

    /// Appends the legal action codes.
    pub fn legal_actions(&self, out: &mut Vec<Action>) {
        dispatch!(self, s => s.legal_actions(out))
    }

    /// The legal actions as canonical strings.
    pub fn legal_action_texts(&self) -> Vec<String> {
        let mut codes = Vec::new();
        self.legal_actions(&mut codes);
        codes.into_iter().map(|a| self.action_text(a)).collect()
    }

    /// The canonical text of an action code of this game.
    pub fn action_text(&self, action: Action) -> String {
        dispatch_type!(self, T => T::action_text(action))
    }

    /// Appends the canonical text of an action code to `out`, so a caller
    /// writing many texts can reuse one buffer instead of allocating each.
    pub fn write_action_text(&self, action: Action, out: &mut String) {
        dispatch_type!(self, T => T::write_action(action, out))
    }

    /// Validates and applies an action given as text; illegal leaves the state unchanged.
    pub fn apply(&mut self, text: &str) -> Result<(), Error> {
        dispatch!(self, s => s.apply_checked(text))
    }

    /// How many legal actions there are, without writing their texts.
    /// `buf` is scratch space.
    pub fn legal_count(&self, buf: &mut Vec<Action>) -> usize {
        dispatch!(self, s => s.legal_count(buf))
    }

    /// Applies the `index`-th of the legal actions (from 0, in the order of
    /// [`AnyState::legal_actions`]), so a caller that chooses by position never
    /// needs the texts. `count` and `buf` are what [`AnyState::legal_count`]
    /// returned and left on this state. An index that names no legal action
    /// (or any index once the game is over) is an illegal action and leaves
    /// the state unchanged.
    pub fn apply_legal(&mut self, index: i64, count: usize, buf: &[Action]) -> Result<(), Error> {
        if let Some(i) = usize::try_from(index).ok().filter(|&i| i < count) {
            let action = dispatch!(self, s => s.legal_at(i, buf));
            self.apply_unchecked(action);
            return Ok(());
        }
        let reason = match count {
            0 => "the game is over".to_string(),
            _ => format!(
                "there are {count} legal actions, numbered 0 to {}",
                count - 1
            ),
        };
        Err(Error::IllegalAction {
            game: dispatch_type!(self, T => T::ID),
            seat: self.current_player(),
            action: format!("legal action {index}"),
            reason,
        })
    }

    /// Applies an action code known to be legal.
    pub fn apply_unchecked(&mut self, action: Action) {
        dispatch!(self, s => s.apply_unchecked(action))
    }

    /// True once the game is over.
    pub fn is_terminal(&self) -> bool {
        dispatch!(self, s => s.is_terminal())
    }

    /// The game's own tally per seat.
    pub fn scores(&self) -> Vec<i64> {
        dispatch!(self, s => s.scores())
    }

    /// Placements once the game is over.
    pub fn placements(&self) -> Option<Vec<u32>> {
        dispatch!(self, s => s.placements())
    }

    /// What `seat` may know.
    pub fn observation(&self, seat: usize) -> Value {
        dispatch!(self, s => s.observation(seat))
    }

    /// The canonical JSON text of the whole state.
    pub fn to_json(&self) -> String {
        dispatch!(self, s => s.to_json()).to_string()
    }

    /// The actions applied so far, as text.
    pub fn history(&self) -> Vec<String> {
        let codes: &[Action] = dispatch!(self, s => s.history());
        codes.iter().map(|&a| self.action_text(a)).collect()
    }
}

/// Native bots, determinization and search, over any game (see `crate::sim`).
impl AnyState {
    /// The action codes applied so far.
    pub fn history_codes(&self) -> &[Action] {
        dispatch!(self, s => s.history())
    }

    /// True if the game has a native heuristic bot.
    pub fn has_heuristic(&self) -> bool {
        dispatch_type!(self, T => T::HAS_HEURISTIC)
    }

    /// A new game of this configuration from `seed` in place, reusing this
    /// state's allocations where the game can (see [`Rules::restart`]).
    pub fn restart(&mut self, config: &Config, seed: u64) -> Result<(), Error> {
        if !dispatch!(self, s => s.restart(seed)) {
            *self = config.new_state(seed, None)?;
        }
        Ok(())
    }

    /// Plays to the end with one native bot per seat; returns the actions applied.
    pub fn play_out(&mut self, bots: &[Bot], rng: &mut SplitMix64) -> u64 {
        dispatch!(self, s => sim::play_out(s, bots, rng))
    }

    /// The action native bot `bot` chooses now (the game must not be over).
    pub fn bot_action(&self, bot: Bot, rng: &mut SplitMix64) -> Action {
        let mut buf = Vec::new();
        dispatch!(self, s => sim::bot_action(bot, s, rng, &mut buf))
    }

    /// A state `seat` cannot tell apart from this one, hidden cards dealt anew.
    pub fn resample(&self, seat: usize, seed: u64) -> Result<AnyState, Error> {
        let mut rng = SplitMix64::new(seed);
        Ok(dispatch_same!(self, s => s.resample(seat, &mut rng)))
    }

    /// `count` states consistent with `observation` (a seat's view of a state
    /// of this configuration), hidden cards at random.
    pub fn sample_states(
        &self,
        observation: &Value,
        count: usize,
        seed: u64,
    ) -> Result<Vec<AnyState>, Error> {
        let mut rng = SplitMix64::new(seed);
        (0..count)
            .map(|_| {
                Ok(dispatch_same!(self, s => s.sample_from_observation(observation, &mut rng)))
            })
            .collect()
    }

    /// The search bot's action for the seat whose `observation` is given,
    /// sampling states from the observation only (`self` is any state of the
    /// same configuration; none of its cards are looked at).
    pub fn search_sample_from_observation(
        &self,
        observation: &Value,
        params: SearchParams,
        seed: u64,
    ) -> Result<Action, Error> {
        let mut rng = SplitMix64::new(seed);
        let seat = observation["seat"].as_u64().unwrap_or(0) as usize;
        dispatch!(self, s => {
            let root = s.sample_from_observation(observation, &mut rng)?;
            if root.current_player() != Some(seat) {
                return Err(Error::InvalidState {
                    message: format!("search: seat {seat} of this observation is not to act"),
                });
            }
            // The root is read from the observation once; every sample is then a
            // resample of it from the seat's view (the same deals, no JSON).
            sim::search_action(&root, seat, params, &mut rng, |_, rng| {
                root.resample(seat, rng)
            })
        })
    }

    /// Bytes of the state's fixed part (`std::mem::size_of` of the game's state type).
    pub fn size_of(&self) -> usize {
        dispatch!(self, s => std::mem::size_of_val(s))
    }
}

/// More seats than any game has.
const MAX_SEATS: usize = 16;

/// Totals of a batch of random playouts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayoutTotals {
    /// Complete games played.
    pub games: u64,
    /// Actions applied over all games.
    pub actions: u64,
}

/// Plays `games` complete games with uniformly random legal actions, all inside
/// Rust; the benchmark's native loop. Game i uses seed `seed + i`.
pub fn random_playouts(config: &Config, games: u64, seed: u64) -> Result<PlayoutTotals, Error> {
    let mut chooser = SplitMix64::new(seed ^ 0x5EED_0FC4_A2D5);
    let mut totals = PlayoutTotals::default();
    let mut slot = None;
    for i in 0..games {
        let state = config.deal_into(&mut slot, seed.wrapping_add(i))?;
        totals.actions +=
            state.play_out(&[Bot::Random; MAX_SEATS][..config.players()], &mut chooser);
        totals.games += 1;
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{pick, Rules};

    /// Draws `random_action` many times at `state` (`draws` per legal action):
    /// every draw must be legal and, for a short legal list, every legal
    /// action must come up (a missed one has odds below 1e-15).
    fn check_random_draws<G: Rules>(state: &G, rng: &mut SplitMix64, draws: usize) {
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let mut seen = vec![false; legal.len()];
        let mut buf = Vec::new();
        for _ in 0..draws * legal.len().min(16) {
            let a = state.random_action(rng, &mut buf);
            let i = legal.iter().position(|&l| l == a);
            let i = i.unwrap_or_else(|| panic!("{}: drew illegal {}", G::ID, G::action_text(a)));
            seen[i] = true;
        }
        if legal.len() <= 16 {
            assert!(
                seen.iter().all(|&s| s),
                "{}: a legal action never drawn",
                G::ID
            );
        }
    }

    #[test]
    fn a_restarted_state_is_a_new_state() {
        for id in GAME_IDS {
            let config = Config::new(id, 4, vec![]).unwrap();
            let mut g = config.new_state(1, None).unwrap();
            g.play_out(&[Bot::Random; 4], &mut SplitMix64::new(2));
            assert!(g.is_terminal());
            for seed in [3, 1, u64::MAX] {
                g.restart(&config, seed).unwrap();
                let fresh = config.new_state(seed, None).unwrap();
                assert_eq!(g.to_json(), fresh.to_json(), "{id} seed {seed}");
                // The two play on alike.
                let mut fresh = fresh;
                let a = g.play_out(&[Bot::Random; 4], &mut SplitMix64::new(seed));
                let b = fresh.play_out(&[Bot::Random; 4], &mut SplitMix64::new(seed));
                assert_eq!((a, g.to_json()), (b, fresh.to_json()), "{id} seed {seed}");
            }
        }
    }

    #[test]
    fn every_random_bot_draws_only_and_every_legal_action() {
        let tables = [
            ("back_alley", 4),
            ("five_alive", 2),
            ("five_alive", 6),
            ("hundred", 3),
            ("hundred", 5),
            ("take5", 2),
            ("take5", 10),
            ("twenty_two", 3),
            ("twenty_two", 5),
        ];
        for (game, players) in tables {
            let config = Config::new(game, players, vec![]).expect(game);
            for seed in 0..3 {
                let mut state = config.new_state(seed, None).expect("state");
                let mut rng = SplitMix64::new(seed);
                let mut buf = Vec::new();
                let mut step = 0;
                while state.current_player().is_some() {
                    if step % 7 == 0 {
                        dispatch!(&state, s => check_random_draws(s, &mut rng, 40));
                    }
                    let a = dispatch!(&state, s => s.random_action(&mut rng, &mut buf));
                    state.apply_unchecked(a);
                    step += 1;
                }
            }
        }
    }

    /// Applying the i-th legal action by position gives the state that applying
    /// its text gives, and an index past the end, a negative one or any index
    /// after the end is refused with the state left as it was.
    #[test]
    fn apply_legal_matches_applying_the_text() {
        for game in GAME_IDS {
            let config = Config::new(game, 4, vec![]).expect(game);
            let mut by_index = config.new_state(11, None).expect("state");
            let mut by_text = by_index.clone();
            let mut rng = SplitMix64::new(5);
            let mut buf = Vec::new();
            while !by_index.is_terminal() {
                let texts = by_index.legal_action_texts();
                let count = by_index.legal_count(&mut buf);
                assert_eq!(count, texts.len(), "{game}");
                let before = by_index.to_json();
                for bad in [-1, texts.len() as i64, i64::MAX] {
                    let err = by_index.apply_legal(bad, count, &buf).unwrap_err();
                    assert!(
                        err.to_string().contains(&format!("legal action {bad}")),
                        "{err}"
                    );
                    assert_eq!(
                        by_index.to_json(),
                        before,
                        "{game}: refused index changed the state"
                    );
                }
                let i = pick(&mut rng, texts.len());
                by_index
                    .apply_legal(i as i64, count, &buf)
                    .expect("legal index");
                by_text.apply(&texts[i]).expect("legal text");
                assert_eq!(
                    by_index.to_json(),
                    by_text.to_json(),
                    "{game}: {}",
                    texts[i]
                );
            }
            let count = by_index.legal_count(&mut buf);
            let err = by_index.apply_legal(0, count, &buf).unwrap_err();
            assert!(err.to_string().contains("the game is over"), "{err}");
        }
    }
}
