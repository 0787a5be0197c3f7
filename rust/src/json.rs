//! Small readers for state JSON, with errors that name the field.

use crate::game::Error;
use serde_json::Value;

fn invalid(message: String) -> Error {
    Error::InvalidState { message }
}

/// The field `key` of object `v`.
pub fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, Error> {
    v.get(key)
        .ok_or_else(|| invalid(format!("missing field {key:?}")))
}

/// The field `key` as an unsigned integer.
pub fn uint(v: &Value, key: &str) -> Result<u64, Error> {
    field(v, key)?
        .as_u64()
        .ok_or_else(|| invalid(format!("field {key:?} must be a non-negative integer")))
}

/// The field `key` as a signed integer.
pub fn int(v: &Value, key: &str) -> Result<i64, Error> {
    field(v, key)?
        .as_i64()
        .ok_or_else(|| invalid(format!("field {key:?} must be an integer")))
}

/// The field `key` as a string.
pub fn string<'a>(v: &'a Value, key: &str) -> Result<&'a str, Error> {
    field(v, key)?
        .as_str()
        .ok_or_else(|| invalid(format!("field {key:?} must be a string")))
}

/// The field `key` as an array.
pub fn array<'a>(v: &'a Value, key: &str) -> Result<&'a Vec<Value>, Error> {
    field(v, key)?
        .as_array()
        .ok_or_else(|| invalid(format!("field {key:?} must be a list")))
}

/// An array of strings (e.g. card codes or actions), named `what` in errors.
pub fn strings<'a>(v: &'a Value, what: &str) -> Result<Vec<&'a str>, Error> {
    let items = v
        .as_array()
        .ok_or_else(|| invalid(format!("{what} must be a list")))?;
    items
        .iter()
        .map(|x| {
            x.as_str()
                .ok_or_else(|| invalid(format!("{what} must hold strings")))
        })
        .collect()
}

/// An array of integers, named `what` in errors.
pub fn ints(v: &Value, what: &str) -> Result<Vec<i64>, Error> {
    let items = v
        .as_array()
        .ok_or_else(|| invalid(format!("{what} must be a list")))?;
    items
        .iter()
        .map(|x| {
            x.as_i64()
                .ok_or_else(|| invalid(format!("{what} must hold integers")))
        })
        .collect()
}

/// Fails with `message` unless `ok`.
pub fn ensure(ok: bool, message: impl FnOnce() -> String) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(invalid(message()))
    }
}

/// Checks that a state JSON is for this game, player count and params: the
/// first thing every game's `from_json` does.
pub fn check_header(v: &Value, game: &str, players: usize, params: &Value) -> Result<(), Error> {
    ensure(string(v, "game")? == game, || format!("not a {game} state"))?;
    ensure(uint(v, "players")? == players as u64, || {
        format!(
            "the state is for {} players, the game for {players}",
            v["players"]
        )
    })?;
    ensure(field(v, "params")? == params, || {
        format!(
            "the state's params {} differ from the game's {params}",
            v["params"]
        )
    })
}
