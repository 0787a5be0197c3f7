//! The registry of games, one line each, and the one place that dispatches
//! over them. A game lives in its own folder and declares there what the
//! generic code needs ([`GameSpec`]); see `docs/architecture.md`, "Adding a
//! game".

use crate::analysis::{self, Analysis, Lineup};
use crate::game::{Action, Error, Game, GameSpec, Outcome, Rules, StateJson};
use crate::game::{NativeBots, Playable, Search};
use crate::params::{check_players, Param, Variant, VariantKeys};
use crate::rng::SplitMix64;
use crate::sim::{self, Bot, SearchParams};
use serde_json::Value;

/// Writes, from the list of registered games: their modules, [`Config`] and
/// [`AnyState`] with a variant per game, [`GAMES`] and [`GAME_IDS`], and the
/// `dispatch!` and `dispatch_config!` macros the methods below match with.
/// Every match is generated from the one list, so no game can lack an arm;
/// a game that does not implement every trait of [`Playable`] fails to compile.
/// (`$d` is a `$` for the macros written inside this one.)
macro_rules! registry {
    ($d:tt $( $(#[$cfg:meta])* $module:ident :: $Game:ident ),+ $(,)?) => {
        $( $(#[$cfg])* pub mod $module; )+

        /// A game's checked configuration: what `cardref.load` returns on the Rust side.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Config {
            $( $(#[$cfg])* #[doc = concat!("`", stringify!($module), "`.")]
            $Game(<$module::$Game as Game>::Params), )+
        }

        /// A state of any game. The states are fixed-size arrays of differing
        /// sizes; they are created once per game and never moved in the hot
        /// loop, so they are not boxed (boxing would add an indirection to
        /// every action).
        #[derive(Debug, Clone)]
        #[allow(clippy::large_enum_variant)]
        pub enum AnyState {
            $( $(#[$cfg])* #[doc = concat!("`", stringify!($module), "`.")]
            $Game($module::$Game), )+
        }

        /// Every registered game's declaration, sorted by id.
        pub const GAMES: &[GameSpec] = &[$( $(#[$cfg])* <$module::$Game as Game>::SPEC, )+];

        /// Ids of the registered games, sorted.
        pub const GAME_IDS: &[&str] = &[$( $(#[$cfg])* <$module::$Game as Game>::SPEC.id, )+];

        $(
            $(#[$cfg])*
            impl From<$module::$Game> for AnyState {
                fn from(state: $module::$Game) -> Self {
                    AnyState::$Game(state)
                }
            }
        )+

        /// Calls `$body` with `$s` bound to the inner state and `$T` to its type.
        macro_rules! dispatch {
            ($d state:expr, $d s:ident : $d T:ident => $d body:expr) => {
                match $d state {
                    $( $(#[$cfg])* AnyState::$Game($d s) => {
                        #[allow(dead_code)]
                        type $d T = $module::$Game;
                        $d body
                    } )+
                }
            };
        }

        /// Calls `$body` with `$p` bound to the params and `$T` to the game's state type.
        macro_rules! dispatch_config {
            ($d config:expr, $d p:ident : $d T:ident => $d body:expr) => {
                match $d config {
                    $( $(#[$cfg])* Config::$Game($d p) => {
                        #[allow(dead_code)]
                        type $d T = $module::$Game;
                        $d body
                    } )+
                }
            };
        }

        /// Calls `$body` with `$p` bound to the params and `$T` to the game's
        /// state type that counts rule points (`crate::points`): what only the
        /// callers that ask for rule points instantiate.
        macro_rules! dispatch_counted {
            ($d config:expr, $d p:ident : $d T:ident => $d body:expr) => {
                match $d config {
                    $( $(#[$cfg])* Config::$Game($d p) => {
                        #[allow(dead_code)]
                        type $d T = $module::$Game<crate::points::Counted>;
                        $d body
                    } )+
                }
            };
        }

        /// Reads the configuration of the game `id`.
        fn parse_config(id: &str, players: i64, variant: Vec<(String, Param)>) -> Result<Config, Error> {
            $(
                $(#[$cfg])*
                if id == <$module::$Game as Game>::SPEC.id {
                    return Ok(Config::$Game(parse_params::<$module::$Game>(players, variant)?));
                }
            )+
            Err(Error::UnknownGame { id: id.to_string() })
        }
    };
}

// The registered games, sorted by id: one line each.
registry! {$
    back_alley::BackAlley,
    five_alive::FiveAlive,
    #[cfg(feature = "test-game")]
    high_card::HighCard,
    hundred::Hundred,
    take5::Take5,
    twenty_two::TwentyTwo,
}

/// Checks the player count against the game's declaration, then its keys.
pub fn parse_params<G: Playable>(
    players: i64,
    variant: Vec<(String, Param)>,
) -> Result<G::Params, Error> {
    let spec = G::SPEC;
    let players = check_players(players, spec.min_players, spec.max_players)?;
    let params = G::Params::read(players, variant)?;
    params.check_config()?;
    Ok(params)
}

/// The declarations as JSON, in registry order (for the Python binding).
pub fn specs_json() -> Value {
    Value::Array(GAMES.iter().map(GameSpec::to_json).collect())
}

impl Config {
    /// Checks the game id, the player count and the variant keys.
    pub fn new(game: &str, players: i64, variant: Vec<(String, Param)>) -> Result<Self, Error> {
        parse_config(game, players, variant)
    }

    /// The game's declaration.
    pub fn spec(&self) -> &'static GameSpec {
        dispatch_config!(self, _p: T => &T::SPEC)
    }

    /// The game id.
    pub fn id(&self) -> &'static str {
        self.spec().id
    }

    /// Seats at the table.
    pub fn players(&self) -> usize {
        dispatch_config!(self, p: T => p.players())
    }

    /// The effective variant values, every key present.
    pub fn params_json(&self) -> Value {
        dispatch_config!(self, p: T => p.to_json())
    }

    /// The cards in play, canonical order (what an explicit deck must permute).
    pub fn canonical_deck(&self) -> Vec<String> {
        dispatch_config!(self, p: T => p.canonical_deck())
    }

    /// A new game from `seed`, with an optional explicit first deck (top card first).
    #[allow(clippy::clone_on_copy)] // one arm per game; some games' params are Copy
    pub fn new_state(&self, seed: u64, deck: Option<&[String]>) -> Result<AnyState, Error> {
        dispatch_config!(self, p: T => T::new_state(p.clone(), seed, deck).map(AnyState::from))
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

    /// Replays `actions` (their texts) on a state that counts rule points, from
    /// `new_state(seed, deck)` or, if `start` is given, from that state JSON,
    /// and returns the points each step fired: the deal's first (nothing when
    /// starting from JSON), then one entry per action, each a count per point
    /// index ([`crate::points`]). An illegal action stops the replay with its error.
    #[allow(clippy::clone_on_copy)] // one arm per game; some games' params are Copy
    pub fn rule_points_by_step(
        &self,
        seed: u64,
        deck: Option<&[String]>,
        start: Option<&str>,
        actions: &[String],
    ) -> Result<Vec<Vec<u64>>, Error> {
        let start: Option<Value> = start
            .map(|text| {
                serde_json::from_str(text).map_err(|e| Error::InvalidState {
                    message: format!("not JSON: {e}"),
                })
            })
            .transpose()?;
        dispatch_counted!(self, p: T => {
            let mut state = match &start {
                Some(value) => T::from_json(p.clone(), value)?,
                None => T::new_state(p.clone(), seed, deck)?,
            };
            let mut steps = Vec::with_capacity(actions.len() + 1);
            let mut counts = vec![0; crate::points::MAX_POINTS];
            state.drain_points(&mut counts);
            steps.push(counts);
            for text in actions {
                state.apply_checked(text)?;
                let mut counts = vec![0; crate::points::MAX_POINTS];
                state.drain_points(&mut counts);
                steps.push(counts);
            }
            Ok(steps)
        })
    }

    /// Plays games `range` of an analysis ([`crate::analysis::analyse`]) on
    /// this game's plain state type, or on its counted one if `points`.
    pub fn analyse_range(
        &self,
        lineup: &Lineup,
        seed: u64,
        range: std::ops::Range<u64>,
        points: bool,
    ) -> Result<Analysis, Error> {
        let n = self.players();
        if points {
            dispatch_counted!(self, p: T => analysis::play_range::<T>(p, n, lineup, seed, range))
        } else {
            dispatch_config!(self, p: T => analysis::play_range::<T>(p, n, lineup, seed, range))
        }
    }

    /// Loads a state written by `to_json` (by either engine) for this configuration.
    #[allow(clippy::clone_on_copy)] // one arm per game; some games' params are Copy
    pub fn state_from_json(&self, text: &str) -> Result<AnyState, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::InvalidState {
            message: format!("not JSON: {e}"),
        })?;
        dispatch_config!(self, p: T => T::from_json(p.clone(), &value).map(AnyState::from))
    }
}

impl AnyState {
    /// Seat to act, or `None` once the game is over.
    pub fn current_player(&self) -> Option<usize> {
        dispatch!(self, s: _T => s.current_player())
    }

    /// Appends the legal action codes.
    pub fn legal_actions(&self, out: &mut Vec<Action>) {
        dispatch!(self, s: _T => s.legal_actions(out))
    }

    /// The legal actions as canonical strings.
    pub fn legal_action_texts(&self) -> Vec<String> {
        let mut codes = Vec::new();
        self.legal_actions(&mut codes);
        codes.into_iter().map(|a| self.action_text(a)).collect()
    }

    /// The canonical text of an action code of this game.
    pub fn action_text(&self, action: Action) -> String {
        dispatch!(self, _s: T => T::action_text(action))
    }

    /// Appends the canonical text of an action code to `out`, so a caller
    /// writing many texts can reuse one buffer instead of allocating each.
    pub fn write_action_text(&self, action: Action, out: &mut String) {
        dispatch!(self, _s: T => T::write_action(action, out))
    }

    /// Validates and applies an action given as text; illegal leaves the state unchanged.
    pub fn apply(&mut self, text: &str) -> Result<(), Error> {
        dispatch!(self, s: _T => s.apply_checked(text))
    }

    /// How many legal actions there are, without writing their texts.
    /// `buf` is scratch space.
    pub fn legal_count(&self, buf: &mut Vec<Action>) -> usize {
        dispatch!(self, s: _T => s.legal_count(buf))
    }

    /// Applies the `index`-th of the legal actions (from 0, in the order of
    /// [`AnyState::legal_actions`]), so a caller that chooses by position never
    /// needs the texts. `count` and `buf` are what [`AnyState::legal_count`]
    /// returned and left on this state. An index that names no legal action
    /// (or any index once the game is over) is an illegal action and leaves
    /// the state unchanged.
    pub fn apply_legal(&mut self, index: i64, count: usize, buf: &[Action]) -> Result<(), Error> {
        if let Some(i) = usize::try_from(index).ok().filter(|&i| i < count) {
            let action = dispatch!(self, s: _T => s.legal_at(i, buf));
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
            game: dispatch!(self, _s: T => T::SPEC.id),
            seat: self.current_player(),
            action: format!("legal action {index}"),
            reason,
        })
    }

    /// Applies an action code known to be legal.
    pub fn apply_unchecked(&mut self, action: Action) {
        dispatch!(self, s: _T => s.apply_unchecked(action))
    }

    /// True once the game is over.
    pub fn is_terminal(&self) -> bool {
        dispatch!(self, s: _T => s.is_terminal())
    }

    /// The game's own tally per seat.
    pub fn scores(&self) -> Vec<i64> {
        dispatch!(self, s: _T => s.scores())
    }

    /// Placements once the game is over.
    pub fn placements(&self) -> Option<Vec<u32>> {
        dispatch!(self, s: _T => s.placements())
    }

    /// The rounds (deals, hands) dealt so far, the one in play included.
    pub fn rounds(&self) -> u32 {
        dispatch!(self, s: _T => s.rounds())
    }

    /// What `seat` may know.
    pub fn observation(&self, seat: usize) -> Value {
        dispatch!(self, s: _T => s.observation(seat))
    }

    /// The canonical JSON text of the whole state.
    pub fn to_json(&self) -> String {
        dispatch!(self, s: _T => s.to_json()).to_string()
    }

    /// The actions applied so far, as text.
    pub fn history(&self) -> Vec<String> {
        let codes: &[Action] = dispatch!(self, s: _T => s.history());
        codes.iter().map(|&a| self.action_text(a)).collect()
    }
}

/// Native bots, determinization and search, over any game (see `crate::sim`).
impl AnyState {
    /// The action codes applied so far.
    pub fn history_codes(&self) -> &[Action] {
        dispatch!(self, s: _T => s.history())
    }

    /// The game's declaration.
    pub fn spec(&self) -> &'static GameSpec {
        dispatch!(self, _s: T => &T::SPEC)
    }

    /// A new game of this configuration from `seed` in place, reusing this
    /// state's allocations where the game can (see [`NativeBots::restart`]).
    pub fn restart(&mut self, config: &Config, seed: u64) -> Result<(), Error> {
        if !dispatch!(self, s: _T => s.restart(seed)) {
            *self = config.new_state(seed, None)?;
        }
        Ok(())
    }

    /// Plays to the end with one native bot per seat; returns the actions applied.
    pub fn play_out(&mut self, bots: &[Bot], rng: &mut SplitMix64) -> u64 {
        dispatch!(self, s: _T => sim::play_out(s, bots, rng))
    }

    /// The action native bot `bot` chooses now (the game must not be over).
    pub fn bot_action(&self, bot: Bot, rng: &mut SplitMix64) -> Action {
        let mut buf = Vec::new();
        dispatch!(self, s: _T => sim::bot_action(bot, s, rng, &mut buf))
    }

    /// A state `seat` cannot tell apart from this one, hidden cards dealt anew.
    pub fn resample(&self, seat: usize, seed: u64) -> Result<AnyState, Error> {
        let mut rng = SplitMix64::new(seed);
        dispatch!(self, s: _T => s.resample(seat, &mut rng).map(AnyState::from))
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
                dispatch!(self, s: _T => s.sample_from_observation(observation, &mut rng).map(AnyState::from))
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
        dispatch!(self, s: _T => {
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
        dispatch!(self, s: _T => std::mem::size_of_val(s))
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
    use crate::game::pick;

    /// Draws `random_action` many times at `state` (`draws` per legal action):
    /// every draw must be legal and, for a short legal list, every legal
    /// action must come up (a missed one has odds below 1e-15).
    fn check_random_draws<G: Playable>(state: &G, rng: &mut SplitMix64, draws: usize) {
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let mut seen = vec![false; legal.len()];
        let mut buf = Vec::new();
        for _ in 0..draws * legal.len().min(16) {
            let a = state.random_action(rng, &mut buf);
            let i = legal.iter().position(|&l| l == a);
            let i =
                i.unwrap_or_else(|| panic!("{}: drew illegal {}", G::SPEC.id, G::action_text(a)));
            seen[i] = true;
        }
        if legal.len() <= 16 {
            assert!(
                seen.iter().all(|&s| s),
                "{}: a legal action never drawn",
                G::SPEC.id
            );
        }
    }

    #[test]
    fn the_registry_lists_each_game_once_in_id_order() {
        assert!(GAME_IDS.windows(2).all(|w| w[0] < w[1]), "{GAME_IDS:?}");
        for (spec, id) in GAMES.iter().zip(GAME_IDS) {
            assert_eq!(spec.id, *id);
            let config = Config::new(id, spec.default_players as i64, vec![]).unwrap();
            assert_eq!((config.id(), config.spec()), (*id, spec));
        }
        assert!(matches!(
            Config::new("take6", 4, vec![]),
            Err(Error::UnknownGame { .. })
        ));
    }

    /// A game declares what it offers, and the generic code trusts it: a
    /// declared search bot resamples, a declared heuristic plays; a game
    /// without them has them refused, naming it.
    #[test]
    fn the_declared_capabilities_are_what_the_games_do() {
        for spec in GAMES {
            let n = spec.default_players;
            let config = Config::new(spec.id, n as i64, vec![]).unwrap();
            let state = config.new_state(1, None).unwrap();
            match state.resample(0, 1) {
                Ok(r) => assert!(spec.search && r.observation(0) == state.observation(0)),
                Err(e) => assert!(
                    !spec.search && e.to_string().contains(spec.id),
                    "{}: {e}",
                    spec.id
                ),
            }
            let heuristic = sim::simulate(&config, &vec![Bot::Heuristic; n], 2, 1, 1, false);
            match heuristic {
                Ok(t) => assert!(spec.heuristic && t.games == 2, "{}", spec.id),
                Err(e) => assert!(
                    !spec.heuristic && e.to_string().contains(spec.id),
                    "{}: {e}",
                    spec.id
                ),
            }
        }
        assert!(
            GAMES.iter().any(|g| !g.search && !g.heuristic),
            "the test-only game declares neither"
        );
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

    /// Each game's smallest, typical and largest table that its default
    /// variant allows (100 seats two only with `allow_two_players`).
    fn tables() -> Vec<(&'static str, i64)> {
        let mut tables = Vec::new();
        for spec in GAMES {
            let mut sizes = vec![spec.min_players, spec.default_players, spec.max_players];
            sizes.dedup();
            for players in sizes {
                if Config::new(spec.id, players as i64, vec![]).is_ok() {
                    tables.push((spec.id, players as i64));
                }
            }
        }
        tables
    }

    #[test]
    fn every_random_bot_draws_only_and_every_legal_action() {
        let tables = tables();
        assert!(tables.len() >= 2 * GAMES.len());
        for (game, players) in tables {
            let config = Config::new(game, players, vec![]).expect(game);
            for seed in 0..3 {
                let mut state = config.new_state(seed, None).expect("state");
                let mut rng = SplitMix64::new(seed);
                let mut buf = Vec::new();
                let mut step = 0;
                while state.current_player().is_some() {
                    if step % 7 == 0 {
                        dispatch!(&state, s: _T => check_random_draws(s, &mut rng, 40));
                    }
                    let a = dispatch!(&state, s: _T => s.random_action(&mut rng, &mut buf));
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
