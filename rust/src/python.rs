//! The only file that touches PyO3: a `Game` and a `State` class over
//! [`crate::games`], and the mapping of [`Error`] onto `cardref.errors`.

use crate::analysis::{self, Analysis, Lineup};
use crate::game::{Action, Error};
use crate::games::{random_playouts, specs_json, AnyState, Config, GAME_IDS};
use crate::params::Param;
use crate::points;
use crate::sim::{self, Bot, SearchParams};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Action codes below this are cached in a table indexed by code. Larger ones
/// (card sets, as in Twenty-Two's discards) are written afresh each time: a
/// set rarely comes back (3,000 random games list 15 million different
/// ones), and a map of them cost more to keep up than the writing it saved.
const CACHED_CODES: usize = 1 << 16;

/// Python strings of action codes, made once per game configuration and shared
/// by its states, so `legal_actions()` hands out existing strings instead of
/// formatting new ones at every step.
#[derive(Default)]
struct ActionTexts(Mutex<TextCache>);

#[derive(Default)]
struct TextCache {
    small: Vec<Option<Py<PyString>>>,
    /// Scratch space for writing a text, kept to save an allocation per call.
    buf: String,
}

/// The Python string of one action code: from the table when the code is
/// small enough to have a slot, else written afresh through `buf`.
fn text<'py>(
    small: &mut Vec<Option<Py<PyString>>>,
    py: Python<'py>,
    state: &AnyState,
    code: Action,
    buf: &mut String,
) -> Bound<'py, PyString> {
    let mut make = || {
        buf.clear();
        state.write_action_text(code, buf);
        PyString::new(py, buf).unbind()
    };
    let slot = code as usize;
    if slot < CACHED_CODES {
        if small.len() <= slot {
            small.resize_with(slot + 1, || None);
        }
        return small[slot].get_or_insert_with(make).bind(py).clone();
    }
    make().into_bound(py)
}

impl ActionTexts {
    /// The legal actions `codes` of `state` as a list of Python strings.
    fn legal_list<'py>(
        &self,
        py: Python<'py>,
        state: &AnyState,
        codes: &[Action],
    ) -> PyResult<Bound<'py, PyList>> {
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let TextCache { small, buf } = &mut *guard;
        PyList::new(
            py,
            codes.iter().map(|&code| text(small, py, state, code, buf)),
        )
    }
}

pyo3::import_exception!(cardref.errors, UnknownGameError);
pyo3::import_exception!(cardref.errors, InvalidParamsError);
pyo3::import_exception!(cardref.errors, IllegalActionError);
pyo3::import_exception!(cardref.errors, InvalidSeedError);
pyo3::import_exception!(cardref.errors, InvalidDeckError);
pyo3::import_exception!(cardref.errors, InvalidStateError);

fn to_py_err(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::UnknownGame { .. } => UnknownGameError::new_err(message),
        Error::InvalidParams { .. } => InvalidParamsError::new_err(message),
        Error::IllegalAction { .. } => IllegalActionError::new_err(message),
        Error::InvalidDeck { .. } => InvalidDeckError::new_err(message),
        Error::InvalidState { .. } => InvalidStateError::new_err(message),
    }
}

/// A variant value, typed strictly: a bool is never an int.
fn to_param(value: &Bound<'_, PyAny>) -> Param {
    if value.is_none() {
        Param::None
    } else if let Ok(b) = value.cast::<PyBool>() {
        Param::Bool(b.is_true())
    } else if value.is_instance_of::<PyInt>() {
        value
            .extract::<i64>()
            .map(Param::Int)
            .unwrap_or_else(|_| Param::Other(format!("the integer {value}")))
    } else if let Ok(s) = value.cast::<PyString>() {
        Param::Str(s.to_string())
    } else if let Ok(items) = value.cast::<PyList>() {
        Param::List(items.iter().map(|item| to_param(&item)).collect())
    } else {
        let kind = value
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        Param::Other(format!("{value} (a {kind})"))
    }
}

fn check_seed(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let bad = || {
        InvalidSeedError::new_err(format!(
            "seed must be an integer from 0 to 2**64 - 1, got {seed}"
        ))
    };
    if seed.is_instance_of::<PyBool>() || !seed.is_instance_of::<PyInt>() {
        return Err(bad());
    }
    seed.extract::<u64>().map_err(|_| bad())
}

/// The checked inputs of a native run (`simulate`, `analyse`): the bots, the
/// seed (0 when absent) and the thread count (every core when absent).
fn run_inputs(
    bots: &[String],
    seed: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<(Vec<Bot>, u64, usize)> {
    let seed = seed.map(check_seed).transpose()?.unwrap_or(0);
    let parsed = bots
        .iter()
        .map(|b| Bot::parse(b))
        .collect::<Result<Vec<_>, _>>()
        .map_err(to_py_err)?;
    if threads == Some(0) {
        return Err(InvalidParamsError::new_err("threads: must be at least 1"));
    }
    Ok((parsed, seed, threads.unwrap_or_else(sim::default_threads)))
}

fn check_deck(deck: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let list = deck.cast::<PyList>().map_err(|_| {
        InvalidDeckError::new_err(
            "invalid deck: deck must be a list of card codes (top card first)",
        )
    })?;
    list.iter()
        .enumerate()
        .map(|(i, card)| {
            card.cast::<PyString>().map(|s| s.to_string()).map_err(|_| {
                InvalidDeckError::new_err(format!(
                    "invalid deck: deck[{i}] = {card} is not a card code string"
                ))
            })
        })
        .collect()
}

/// An action index: `Ok` if it fits an `i64`, `Err(text)` for an integer too
/// large for one (it names no action either way, and the error shows it as
/// given). Anything but an integer (a bool, a float, a string) is an
/// `IllegalActionError` that says so.
fn action_index(index: &Bound<'_, PyAny>) -> PyResult<Result<i64, String>> {
    if index.is_instance_of::<PyBool>() || !index.is_instance_of::<PyInt>() {
        return Err(IllegalActionError::new_err(format!(
            "an action index must be an integer, not {}",
            index.get_type().name()?
        )));
    }
    Ok(index.extract::<i64>().map_err(|_| index.to_string()))
}

/// A `seat` argument names an existing seat.
fn check_seat(seat: usize, players: usize) -> PyResult<()> {
    if seat >= players {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "seat {seat} does not exist; seats are 0 to {}",
            players - 1
        )));
    }
    Ok(())
}

fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A JSON-shaped Python value (an observation) as a serde value, via `json.dumps`.
fn from_py(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = value
        .py()
        .import("json")?
        .call_method1("dumps", (value,))?
        .extract()?;
    serde_json::from_str(&text)
        .map_err(|e| InvalidStateError::new_err(format!("invalid state: {e}")))
}

/// A game configuration on the Rust core: `cardref.load(..., engine="rust")`.
#[pyclass(module = "cardref._core", name = "Game", frozen)]
struct PyGame {
    config: Config,
    texts: Arc<ActionTexts>,
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (game_id, players, variant=None))]
    fn new(
        game_id: &str,
        players: &Bound<'_, PyAny>,
        variant: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        if !GAME_IDS.contains(&game_id) {
            return Err(to_py_err(Error::UnknownGame {
                id: game_id.to_string(),
            }));
        }
        let count = match (players.is_instance_of::<PyBool>(), players.extract::<i64>()) {
            (false, Ok(n)) if players.is_instance_of::<PyInt>() => n,
            _ => {
                return Err(InvalidParamsError::new_err(format!(
                    "players: must be an integer, got {}",
                    to_param(players).describe()
                )))
            }
        };
        let mut given = Vec::new();
        if let Some(v) = variant {
            for (k, value) in v.iter() {
                let key: String = k
                    .extract()
                    .map_err(|_| InvalidParamsError::new_err("variant keys must be strings"))?;
                given.push((key, to_param(&value)));
            }
        }
        let config = Config::new(game_id, count, given).map_err(to_py_err)?;
        Ok(PyGame {
            config,
            texts: Arc::default(),
        })
    }

    /// The game id.
    #[getter]
    fn id(&self) -> &'static str {
        self.config.id()
    }

    /// Seats at the table.
    #[getter]
    fn players(&self) -> usize {
        self.config.players()
    }

    /// The effective variant values, every key present.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.config.params_json())
    }

    /// The engine name, as `cardref.load` takes it.
    #[getter]
    fn engine(&self) -> &'static str {
        "rust"
    }

    #[pyo3(signature = (seed=None, deck=None))]
    fn new_state(
        &self,
        seed: Option<&Bound<'_, PyAny>>,
        deck: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyState> {
        let seed = seed.map(check_seed).transpose()?.unwrap_or(0);
        let deck = deck.filter(|d| !d.is_none()).map(check_deck).transpose()?;
        let state = self
            .config
            .new_state(seed, deck.as_deref())
            .map_err(to_py_err)?;
        Ok(PyState::new(state, &self.texts))
    }

    fn state_from_json(&self, text: &str) -> PyResult<PyState> {
        self.config
            .state_from_json(text)
            .map(|state| PyState::new(state, &self.texts))
            .map_err(to_py_err)
    }

    /// Plays `games` random games inside Rust; returns (games, actions, seconds).
    #[pyo3(signature = (games, seed=0))]
    fn random_playouts(&self, py: Python<'_>, games: u64, seed: u64) -> PyResult<(u64, u64, f64)> {
        let config = self.config.clone();
        py.detach(move || {
            let start = Instant::now();
            let totals = random_playouts(&config, games, seed)?;
            Ok((totals.games, totals.actions, start.elapsed().as_secs_f64()))
        })
        .map_err(to_py_err)
    }

    /// Plays `games` complete games with native bots inside Rust, GIL released.
    #[pyo3(signature = (bots, games, seed=None, threads=None, records=false))]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        bots: Vec<String>,
        games: u64,
        seed: Option<&Bound<'py, PyAny>>,
        threads: Option<usize>,
        records: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (parsed, seed, threads) = run_inputs(&bots, seed, threads)?;
        let config = self.config.clone();
        let (totals, seconds) = py
            .detach(move || {
                let start = Instant::now();
                let totals = sim::simulate(&config, &parsed, games, seed, threads, records)?;
                Ok((totals, start.elapsed().as_secs_f64()))
            })
            .map_err(to_py_err)?;
        let out = PyDict::new(py);
        out.set_item("game", self.config.id())?;
        out.set_item("players", self.config.players())?;
        out.set_item("games", totals.games)?;
        out.set_item("actions", totals.actions)?;
        out.set_item("seed", seed)?;
        out.set_item("threads", threads)?;
        out.set_item("seconds", seconds)?;
        let g = totals.games.max(1) as f64;
        let seats = PyList::empty(py);
        for (s, bot) in bots.iter().enumerate() {
            let seat = PyDict::new(py);
            seat.set_item("seat", s)?;
            seat.set_item("bot", bot)?;
            seat.set_item("mean_placement", totals.placement_sum[s] as f64 / g)?;
            seat.set_item("wins", totals.wins[s])?;
            seat.set_item("mean_score", totals.score_sum[s] as f64 / g)?;
            seats.append(seat)?;
        }
        out.set_item("seats", seats)?;
        if records {
            let template = self.config.new_state(0, None).map_err(to_py_err)?;
            let list = PyList::empty(py);
            for r in &totals.records {
                let rec = PyDict::new(py);
                rec.set_item("seed", r.seed)?;
                let actions: Vec<String> =
                    r.actions.iter().map(|&a| template.action_text(a)).collect();
                rec.set_item("actions", actions)?;
                rec.set_item("scores", r.scores.clone())?;
                rec.set_item("placements", r.placements.clone())?;
                list.append(rec)?;
            }
            out.set_item("records", list)?;
        }
        Ok(out)
    }

    /// Replays `actions` from `new_state(seed, deck)` (or from the state JSON
    /// `state`) on a state that counts rule points: a list with the points the
    /// deal fired, then those of each action, each a dict `{"T5-P7": times}`
    /// of the points that fired.
    #[pyo3(signature = (seed, actions, deck=None, state=None))]
    fn rule_points<'py>(
        &self,
        py: Python<'py>,
        seed: &Bound<'py, PyAny>,
        actions: Vec<String>,
        deck: Option<&Bound<'_, PyAny>>,
        state: Option<&str>,
    ) -> PyResult<Bound<'py, PyList>> {
        let seed = check_seed(seed)?;
        let deck = deck.filter(|d| !d.is_none()).map(check_deck).transpose()?;
        let steps = self
            .config
            .rule_points_by_step(seed, deck.as_deref(), state, &actions)
            .map_err(to_py_err)?;
        let prefix = self.config.spec().rule_prefix;
        let out = PyList::empty(py);
        for counts in steps {
            let step = PyDict::new(py);
            for (i, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
                step.set_item(points::id(prefix, i), n)?;
            }
            out.append(step)?;
        }
        Ok(out)
    }

    /// Plays games `start .. start + games` with native bots for `cardref
    /// analyze`, GIL released: `bots` one per seat, or with `mixed` a pool each
    /// seat of each game draws from; `rule_points` counts them (on the counted
    /// state type only). Returns the totals as a dict (see `crate::analysis`).
    #[pyo3(signature = (bots, start, games, seed=None, threads=None, mixed=false, rule_points=false))]
    #[allow(clippy::too_many_arguments)]
    fn analyse<'py>(
        &self,
        py: Python<'py>,
        bots: Vec<String>,
        start: u64,
        games: u64,
        seed: Option<&Bound<'py, PyAny>>,
        threads: Option<usize>,
        mixed: bool,
        rule_points: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (parsed, seed, threads) = run_inputs(&bots, seed, threads)?;
        let lineup = if mixed {
            Lineup::Mixed(parsed)
        } else {
            Lineup::Fixed(parsed)
        };
        let config = self.config.clone();
        let (totals, seconds) = py
            .detach(move || {
                let started = Instant::now();
                let totals =
                    analysis::analyse(&config, &lineup, start, games, seed, threads, rule_points)?;
                Ok((totals, started.elapsed().as_secs_f64()))
            })
            .map_err(to_py_err)?;
        analysis_dict(
            py,
            &totals,
            self.config.spec().rule_prefix,
            threads,
            seconds,
        )
    }

    /// `count` states consistent with a seat's observation, hidden cards at random.
    #[pyo3(signature = (observation, count, seed=None))]
    fn sample_states(
        &self,
        observation: &Bound<'_, PyAny>,
        count: usize,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyState>> {
        let seed = seed.map(check_seed).transpose()?.unwrap_or(0);
        let obs = from_py(observation)?;
        let template = self.config.new_state(0, None).map_err(to_py_err)?;
        let states = template
            .sample_states(&obs, count, seed)
            .map_err(to_py_err)?;
        Ok(states
            .into_iter()
            .map(|state| PyState::new(state, &self.texts))
            .collect())
    }

    /// The search bot's action for the seat that sees `observation`.
    #[pyo3(signature = (observation, samples=32, seed=None))]
    fn search_action(
        &self,
        py: Python<'_>,
        observation: &Bound<'_, PyAny>,
        samples: usize,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let seed = seed.map(check_seed).transpose()?.unwrap_or(0);
        let obs = from_py(observation)?;
        let template = self.config.new_state(0, None).map_err(to_py_err)?;
        let params = SearchParams {
            samples: samples.max(1),
        };
        let action = py
            .detach(|| template.search_sample_from_observation(&obs, params, seed))
            .map_err(to_py_err)?;
        Ok(template.action_text(action))
    }

    /// Bytes of a state's fixed part in memory (`std::mem::size_of` of the game's state).
    fn state_size(&self) -> PyResult<usize> {
        Ok(self.config.new_state(0, None).map_err(to_py_err)?.size_of())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Game {} players={} engine=rust params={}>",
            self.config.id(),
            self.config.players(),
            self.config.params_json()
        )
    }
}

/// A game state on the Rust core.
#[pyclass(module = "cardref._core", name = "State")]
struct PyState {
    state: AnyState,
    texts: Arc<ActionTexts>,
    /// The legal codes as `legal_count` left them (scratch space otherwise).
    codes: Vec<Action>,
    /// `legal_count` of the state as it is now, once asked: `legal_count()`
    /// then `apply_legal(i)` count once. Every change of the state clears it.
    counted: Option<usize>,
}

impl PyState {
    fn new(state: AnyState, texts: &Arc<ActionTexts>) -> Self {
        PyState {
            state,
            texts: texts.clone(),
            codes: Vec::new(),
            counted: None,
        }
    }

    fn count(&mut self) -> usize {
        match self.counted {
            Some(count) => count,
            None => *self.counted.insert(self.state.legal_count(&mut self.codes)),
        }
    }
}

#[pymethods]
impl PyState {
    fn current_player(&self) -> Option<usize> {
        self.state.current_player()
    }

    fn legal_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.codes.clear();
        self.state.legal_actions(&mut self.codes);
        // The whole list is also what `legal_at` needs: keep it as counted.
        self.counted = Some(self.codes.len());
        self.texts.legal_list(py, &self.state, &self.codes)
    }

    fn apply(&mut self, action: &str) -> PyResult<()> {
        self.state.apply(action).map_err(to_py_err)?;
        self.counted = None;
        Ok(())
    }

    /// `len(legal_actions())` without writing the texts.
    fn legal_count(&mut self) -> usize {
        self.count()
    }

    /// Applies `legal_actions()[index]` without writing the texts: a Python
    /// loop that chooses by position (a random or search bot) pays for no strings.
    fn apply_legal(&mut self, index: &Bound<'_, PyAny>) -> PyResult<()> {
        let (index, huge) = match action_index(index)? {
            Ok(index) => (index, None),
            Err(text) => (i64::MAX, Some(text)),
        };
        let count = self.count();
        let result = self.state.apply_legal(index, count, &self.codes);
        if result.is_ok() {
            self.counted = None;
        }
        result.map_err(|e| match (e, huge) {
            (
                Error::IllegalAction {
                    game, seat, reason, ..
                },
                Some(text),
            ) => to_py_err(Error::IllegalAction {
                game,
                seat,
                action: format!("legal action {text}"),
                reason,
            }),
            (e, _) => to_py_err(e),
        })
    }

    fn is_terminal(&self) -> bool {
        self.state.is_terminal()
    }

    fn scores(&self) -> Vec<i64> {
        self.state.scores()
    }

    fn placements(&self) -> Option<Vec<u32>> {
        self.state.placements()
    }

    fn observation<'py>(&self, py: Python<'py>, seat: usize) -> PyResult<Bound<'py, PyAny>> {
        check_seat(seat, self.state.scores().len())?;
        to_py(py, &self.state.observation(seat))
    }

    /// The observation as canonical JSON text (sorted keys, no spaces): what a
    /// bot process is sent, without building Python objects first.
    fn observation_json(&self, seat: usize) -> PyResult<String> {
        check_seat(seat, self.state.scores().len())?;
        Ok(self.state.observation(seat).to_string())
    }

    fn history(&self) -> Vec<String> {
        self.state.history()
    }

    /// The rounds (deals, hands) dealt so far, the one in play included.
    fn rounds(&self) -> u32 {
        self.state.rounds()
    }

    fn clone(&self) -> Self {
        PyState::new(self.state.clone(), &self.texts)
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn to_json(&self) -> String {
        self.state.to_json()
    }

    /// A state `seat` cannot tell apart from this one, the cards hidden from it dealt anew.
    fn resample(&self, seat: usize, seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        let seed = check_seed(seed)?;
        let players = self.state.scores().len();
        if seat >= players {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "seat {seat} does not exist; seats are 0 to {}",
                players - 1
            )));
        }
        let state = self.state.resample(seat, seed).map_err(to_py_err)?;
        Ok(PyState::new(state, &self.texts))
    }

    fn __repr__(&self) -> String {
        format!(
            "<State to_act={:?} actions={}>",
            self.state.current_player(),
            self.state.history().len()
        )
    }
}

/// An analysis batch's totals as a dict: `games`, `actions`, `threads`,
/// `seconds`, `seats` (per seat, per bot: `games`, `wins`, `placement_sum`,
/// `placement_sq`, `score_sum`, `score_sq`), `lengths` and `rounds` (value
/// → games), `scores` (per seat, score → games) and `points` (id →
/// `[times fired, games in which it fired]`, only the points that fired).
fn analysis_dict<'py>(
    py: Python<'py>,
    a: &Analysis,
    prefix: &str,
    threads: usize,
    seconds: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("games", a.games)?;
    out.set_item("actions", a.actions)?;
    out.set_item("threads", threads)?;
    out.set_item("seconds", seconds)?;
    let seats = PyList::empty(py);
    for per_bot in &a.seats {
        let list = PyList::empty(py);
        for s in per_bot {
            let d = PyDict::new(py);
            d.set_item("games", s.games)?;
            d.set_item("wins", s.wins)?;
            d.set_item("placement_sum", s.placement_sum)?;
            d.set_item("placement_sq", s.placement_sq)?;
            d.set_item("score_sum", s.score_sum)?;
            d.set_item("score_sq", s.score_sq)?;
            list.append(d)?;
        }
        seats.append(list)?;
    }
    out.set_item("seats", seats)?;
    out.set_item("lengths", a.lengths.clone().into_pyobject(py)?)?;
    out.set_item("rounds", a.rounds.clone().into_pyobject(py)?)?;
    let scores = PyList::empty(py);
    for seat in &a.scores {
        scores.append(seat.clone().into_pyobject(py)?)?;
    }
    out.set_item("scores", scores)?;
    let fired = PyDict::new(py);
    for (i, (&n, &g)) in a.points_fired.iter().zip(&a.points_games).enumerate() {
        if n > 0 {
            fired.set_item(points::id(prefix, i), (n, g))?;
        }
    }
    out.set_item("points", fired)?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Every game's declaration (`GameSpec`), for the check that both engines declare the same.
    m.add("GAME_SPECS", to_py(m.py(), &specs_json())?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add("GAME_IDS", GAME_IDS.to_vec())?;
    m.add("MAX_RULE_POINTS", points::MAX_POINTS)?;
    // The hash of this Rust build (see `rust/build_id.rs`), so that processes can
    // check they run the same engine.
    m.add("BUILD_ID", env!("CARDREF_BUILD_ID"))?;
    Ok(())
}
