//! What every game implements, the errors the engines report, and the shared
//! result rule (competition ranking).
//!
//! A game lives in one folder, `games/<game>/`, and implements these traits,
//! each in the file named for what it owns:
//!
//! | trait | file | what |
//! |---|---|---|
//! | [`Game`] | `mod.rs` | the declaration ([`GameSpec`]), the variant keys' type, a new game |
//! | [`Rules`], [`Outcome`] | `rules.rs` | the turn (§5) and the result (§7) |
//! | [`StateJson`] | `json.rs` | action texts, observations, the state JSON and loading it |
//! | [`NativeBots`] | `bots.rs` | the random and heuristic bots |
//! | [`Search`] | `search.rs` | determinization and the search bot's rollouts |

use crate::params::Variant;
use crate::rng::SplitMix64;
use serde_json::Value;

/// A compact action code. Each game defines its own encoding; codes are
/// context-free, so a history of codes can be written out as strings at any time.
/// 64 bits, because Twenty-Two's `discard` names any subset of up to 11 of 52
/// cards (about 36 bits of information); a 52-bit card mask plus a verb bit fits.
pub type Action = u64;

/// Everything that can go wrong at the engine boundary. The Python binding maps
/// each variant onto the exception class of the same name in `cardref.errors`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The game id is not one of [`crate::games::GAME_IDS`].
    UnknownGame { id: String },
    /// A player count, a variant key or a variant value is not allowed.
    InvalidParams { key: String, message: String },
    /// The action is not among the legal actions of the player to act.
    IllegalAction {
        game: &'static str,
        seat: Option<usize>,
        action: String,
        reason: String,
    },
    /// An explicit deck is not a permutation of the cards in play.
    InvalidDeck { message: String },
    /// A state given as JSON is malformed, for another game, or inconsistent.
    InvalidState { message: String },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnknownGame { id } => write!(
                f,
                "unknown game {id:?}; available games: {}",
                crate::games::GAME_IDS.join(", ")
            ),
            Error::InvalidParams { key, message } => write!(f, "{key}: {message}"),
            Error::IllegalAction {
                game,
                seat,
                action,
                reason,
            } => match seat {
                Some(s) => write!(f, "{game}: seat {s} cannot play {action:?}: {reason}"),
                None => write!(f, "{game}: {action:?} is illegal: {reason}"),
            },
            Error::InvalidDeck { message } => write!(f, "invalid deck: {message}"),
            Error::InvalidState { message } => write!(f, "invalid state: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// What the generic code needs to know of a game before it has a state, and
/// the one place a game says it: its `impl Game` in `games/<game>/mod.rs`.
/// The Python reference declares the same (`GAME` in its module); a test
/// checks that the two agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSpec {
    /// The game id, as in `cardref.games()`.
    pub id: &'static str,
    /// The fewest seats the game allows (some variants may need more).
    pub min_players: usize,
    /// The most seats.
    pub max_players: usize,
    /// A typical table, used by `cardref bench` and the tests.
    pub default_players: usize,
    /// Fixed partnerships, seats by team (empty if everyone plays alone):
    /// placements are shared within a team.
    pub teams: &'static [&'static [usize]],
    /// The prefix of the rule book's ids (`T5` in `T5-3`).
    pub rule_prefix: &'static str,
    /// A native heuristic bot ([`NativeBots::heuristic_action`]) and a
    /// Python one (`cardref.bots.heuristic.<id>`).
    pub heuristic: bool,
    /// Determinization ([`Search`]) and so the search bot.
    pub search: bool,
}

impl GameSpec {
    /// The declaration as JSON (for the Python binding).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "id": self.id,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "default_players": self.default_players,
            "teams": self.teams,
            "rule_prefix": self.rule_prefix,
            "heuristic": self.heuristic,
            "search": self.search,
        })
    }
}

/// A game: its declaration, its variant keys and how a game starts. Every
/// game implements this in `games/<game>/mod.rs`, and the traits below in the
/// files named for them; [`crate::games`] registers it in one line.
pub trait Game: Clone + Sized {
    /// The declaration.
    const SPEC: GameSpec;
    /// The checked variant keys (§8 of the rule book).
    type Params: Variant;
    /// A new game from `seed`: the first deal uses `deck` if given (top card
    /// first, checked against the canonical deck), else the generator.
    fn new_state(params: Self::Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error>;
    /// Adds the rule points fired since the last call into `out` (by point
    /// index) and starts counting again from zero; nothing for a state that
    /// does not count ([`crate::points`]).
    fn drain_points(&mut self, out: &mut [u64]);
}

/// The turn (§5 of every rule book), in `rules.rs`: who acts, what is legal,
/// and applying an action.
pub trait Rules: Game {
    /// Seat to act, or `None` once the game is over.
    fn current_player(&self) -> Option<usize>;
    /// Appends the legal actions of the player to act, in the documented order.
    fn legal_actions(&self, out: &mut Vec<Action>);
    /// How many legal actions there are. `buf` is scratch space, to be passed
    /// on to [`Rules::legal_at`]. Default: lists them into `buf`; a game whose
    /// lists can be long counts some without listing.
    fn legal_count(&self, buf: &mut Vec<Action>) -> usize {
        count_by_listing(self, buf)
    }
    /// The `index`-th legal action (from 0) in the order of
    /// [`Rules::legal_actions`]; `index` is below `legal_count` and `buf` is
    /// as `legal_count` left it on this state.
    fn legal_at(&self, index: usize, buf: &[Action]) -> Action {
        buf[index]
    }
    /// Why `action` is illegal now, or `None` if it is legal.
    fn illegal_reason(&self, action: Action) -> Option<String>;
    /// Applies a legal action. Calling it with an illegal one is a logic error.
    fn apply_unchecked(&mut self, action: Action);
    /// True once the game is over.
    fn is_terminal(&self) -> bool {
        self.current_player().is_none()
    }
}

/// The result (§7 of every rule book), in `rules.rs`.
pub trait Outcome: Rules {
    /// The game's own tally per seat (completed rounds only).
    fn scores(&self) -> Vec<i64>;
    /// Placements (1 = best, ties share) of a finished game.
    fn final_placements(&self) -> Vec<u32>;
    /// The rounds (deals, hands) the game has dealt so far, the one in play
    /// included: what a designer counts a game's length in, beside its actions.
    fn rounds(&self) -> u32;
    /// Placements once the game is over, else `None`.
    fn placements(&self) -> Option<Vec<u32>> {
        self.is_terminal().then(|| self.final_placements())
    }
}

/// The game's texts, in `json.rs`: its action grammar, what a seat may know,
/// the canonical state JSON and loading it back.
pub trait StateJson: Outcome {
    /// Parses the canonical action grammar; `None` if the text is not an action of this game.
    fn parse_action(text: &str) -> Option<Action>;
    /// Writes the canonical text of an action.
    fn write_action(action: Action, out: &mut String);
    /// Everything `seat` may know, as a JSON value.
    fn observation(&self, seat: usize) -> Value;
    /// The whole state, canonical: equal states give equal JSON in both engines.
    fn to_json(&self) -> Value;
    /// Loads a state written by `to_json` (by either engine) for `params`,
    /// checking that it is whole and consistent.
    fn from_json(params: Self::Params, v: &Value) -> Result<Self, Error>;
    /// Action codes applied so far.
    fn history(&self) -> &[Action];

    /// The canonical text of an action, as a fresh string.
    fn action_text(action: Action) -> String {
        let mut s = String::new();
        Self::write_action(action, &mut s);
        s
    }

    /// Validates, then applies; an illegal action leaves the state unchanged.
    fn apply_checked(&mut self, text: &str) -> Result<(), Error> {
        let illegal = |reason: String| Error::IllegalAction {
            game: Self::SPEC.id,
            seat: self.current_player(),
            action: text.to_string(),
            reason,
        };
        if self.is_terminal() {
            return Err(illegal("the game is over".into()));
        }
        let action = Self::parse_action(text)
            .ok_or_else(|| illegal("not an action of this game (see its action grammar)".into()))?;
        if let Some(reason) = self.illegal_reason(action) {
            return Err(illegal(reason));
        }
        self.apply_unchecked(action);
        Ok(())
    }
}

/// The native bots' fast paths, in `bots.rs` (used by `crate::sim`). The
/// defaults fit any game; a game overrides them with faster or
/// game-specific versions.
pub trait NativeBots: Rules {
    /// A uniformly random legal action (the game must not be over). `buf` is
    /// scratch space. A game may override this with a fast path that draws
    /// without building the legal list; any uniform draw is fine.
    fn random_action(&self, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        buf.clear();
        self.legal_actions(buf);
        buf[pick(rng, buf.len())]
    }

    /// Plays one or more actions of random bots, in a batch where every seat
    /// is random; returns how many (the game must not be over). `plan`
    /// belongs to the playout: empty at its start and kept between calls, so
    /// a game can draw once what several turns will use. Each action must be
    /// uniform over the legal ones, as `random_action`'s are, but need not
    /// come from the same draws. Default: one `random_action`.
    #[inline(always)]
    fn random_steps(&mut self, rng: &mut SplitMix64, plan: &mut Vec<Action>) -> u64 {
        random_step(self, rng, plan)
    }

    /// Deals a new game of this configuration from `seed` in place, as a new
    /// state with no explicit deck would be, keeping this one's allocations;
    /// false if the game cannot (then nothing changed). Batches of games call
    /// it between games. Default: false.
    fn restart(&mut self, seed: u64) -> bool {
        let _ = seed;
        false
    }

    /// The native heuristic bot's choice for the player to act, for a game
    /// that declares one ([`GameSpec::heuristic`]). It must use only what
    /// that seat may know (its observation). Default: a random action.
    fn heuristic_action(&self, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
        self.random_action(rng, buf)
    }
}

/// Determinization and the search bot's rollouts, in `search.rs`, for a game
/// that declares them ([`GameSpec::search`]); the defaults refuse.
pub trait Search: NativeBots + StateJson {
    /// A full state that `seat` cannot tell apart from this one: the same
    /// observation for `seat`, the cards hidden from it dealt anew at random.
    fn resample(&self, seat: usize, rng: &mut SplitMix64) -> Result<Self, Error> {
        let _ = (seat, rng);
        Err(no_determinization::<Self>())
    }

    /// A full state consistent with `observation` (a seat's view of a state of
    /// this game's configuration, the one of `self`), hidden cards at random.
    fn sample_from_observation(
        &self,
        observation: &Value,
        rng: &mut SplitMix64,
    ) -> Result<Self, Error> {
        let _ = (observation, rng);
        Err(no_determinization::<Self>())
    }

    /// The actions the search bot plays out, pruned in place from `legal` (all
    /// legal actions, in order) when a game has too many to try each in every
    /// sample. Default: all of them.
    fn search_candidates(&self, legal: &mut Vec<Action>) {
        let _ = legal;
    }

    /// The search bot's rollout horizon and value: `None` while the rollout
    /// should go on from `start`, else how good the outcome is for `seat`
    /// (higher is better). Default: play to the end, value by placement.
    fn rollout_value(&self, seat: usize, start: &Self) -> Option<f64> {
        let _ = start;
        let placements = self.placements()?;
        let n = placements.len();
        Some((n as f64 - placements[seat] as f64) / (n as f64 - 1.0).max(1.0))
    }
}

/// The refusal of a game that declares no determinization.
fn no_determinization<G: Game>() -> Error {
    Error::InvalidState {
        message: format!("{} has no determinization (no search bot)", G::SPEC.id),
    }
}

/// Everything a registered game implements; [`crate::games`] checks it.
pub trait Playable: Game + Rules + Outcome + StateJson + NativeBots + Search {}

impl<G: Game + Rules + Outcome + StateJson + NativeBots + Search> Playable for G {}

/// The legal actions of `state` listed into `buf`, and how many there are:
/// [`Rules::legal_count`] for a game that does not count them otherwise.
pub fn count_by_listing<G: Rules>(state: &G, buf: &mut Vec<Action>) -> usize {
    buf.clear();
    state.legal_actions(buf);
    buf.len()
}

/// Applies one `random_action`; returns 1, the actions applied. What
/// [`NativeBots::random_steps`] does by default, and where a game's own cannot plan.
#[inline(always)]
pub fn random_step<G: NativeBots>(
    state: &mut G,
    rng: &mut SplitMix64,
    buf: &mut Vec<Action>,
) -> u64 {
    let action = state.random_action(rng, buf);
    state.apply_unchecked(action);
    1
}

/// A uniform index below `n` by multiply-shift: what bots use to choose (a
/// bot's choice is not a rule, so it need not be the rule book's `bounded`).
#[inline]
pub fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// Competition ranking: placement = 1 + the number of seats strictly better.
/// `better(a, b)` says whether seat a did strictly better than seat b.
pub fn competition_placements(n: usize, better: impl Fn(usize, usize) -> bool) -> Vec<u32> {
    (0..n)
        .map(|s| 1 + (0..n).filter(|&o| better(o, s)).count() as u32)
        .collect()
}

/// Parses a decimal number written canonically: no sign, no leading zeros.
pub fn parse_canonical_uint(text: &str) -> Option<u32> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 9 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competition_ranking_shares_and_skips() {
        // Seats 1 and 2 tied best, seat 0 behind them: [3, 1, 1].
        let score = [5, 1, 1];
        assert_eq!(
            competition_placements(3, |a, b| score[a] < score[b]),
            vec![3, 1, 1]
        );
    }

    #[test]
    fn canonical_numbers_only() {
        assert_eq!(parse_canonical_uint("57"), Some(57));
        assert_eq!(parse_canonical_uint("0"), Some(0));
        for bad in ["", "057", "+7", "7.0", " 7", "-1", "1e3"] {
            assert_eq!(parse_canonical_uint(bad), None, "{bad:?}");
        }
    }
}
