//! Replays the golden games under `tests/golden/` (the files pytest compares
//! both engines against; format in `tests/golden_games.py`) on the Rust core:
//! every recorded state JSON must come out byte for byte.

use cardref::games::Config;
use cardref::params::Param;
use cardref::rng::SplitMix64;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Mixed into the seed of the generator that picks the actions (`CHOOSER` in
/// `tests/golden_games.py`).
const CHOOSER: u64 = 0x601D_E116_A3E5;
/// The steps whose states are recorded (`STEPS` there), besides the end.
const STEPS: [usize; 6] = [0, 3, 10, 30, 100, 300];

fn to_param(v: &Value) -> Param {
    match v {
        Value::String(s) => Param::Str(s.clone()),
        Value::Bool(b) => Param::Bool(*b),
        Value::Number(n) => n.as_i64().map_or(Param::Other(n.to_string()), Param::Int),
        Value::Array(items) => Param::List(items.iter().map(to_param).collect()),
        Value::Null => Param::None,
        Value::Object(_) => Param::Other(v.to_string()),
    }
}

/// The state JSON at `STEPS` and at the end, keyed as in the files.
fn play(config: &Config, seed: u64) -> BTreeMap<String, String> {
    let mut state = config.new_state(seed, None).expect("new state");
    let mut chooser = SplitMix64::new(seed ^ CHOOSER);
    let mut buf = Vec::new();
    let mut states = BTreeMap::new();
    for step in 0.. {
        if STEPS.contains(&step) {
            states.insert(step.to_string(), state.to_json());
        }
        if state.is_terminal() {
            states.insert("end".to_string(), state.to_json());
            return states;
        }
        let count = state.legal_count(&mut buf);
        let index = chooser.bounded(count as u64) as i64;
        state
            .apply_legal(index, count, &buf)
            .expect("a legal index");
    }
    unreachable!()
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden")
}

#[test]
fn the_golden_games_replay_to_the_same_json() {
    let mut checked = 0;
    for game in cardref::games::GAME_IDS {
        let path = golden_dir().join(format!("{game}.jsonl"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in text.lines() {
            let g: Value = serde_json::from_str(line).expect("a JSON line");
            let variant = g["variant"]
                .as_object()
                .expect("variant")
                .iter()
                .map(|(k, v)| (k.clone(), to_param(v)))
                .collect();
            let players = g["players"].as_i64().expect("players");
            let seed = g["seed"].as_u64().expect("seed");
            let config = Config::new(game, players, variant).expect("config");
            let states = play(&config, seed);
            let want = g["states"].as_object().expect("states");
            let keys: Vec<&String> = want.keys().collect();
            assert_eq!(
                states.keys().collect::<Vec<_>>(),
                keys,
                "{game} players={players} variant={} seed={seed}: game length differs",
                g["variant"]
            );
            for (step, text) in want {
                assert_eq!(
                    Some(&states[step]),
                    text.as_str().map(str::to_string).as_ref(),
                    "{game} players={players} variant={} seed={seed}: to_json at step {step}",
                    g["variant"]
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no golden games found");
}
