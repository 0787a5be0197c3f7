//! Variant keys: strict typing and range checks shared by every game
//! (docs/rules/CONVENTIONS.md, "Configuration").

use crate::game::Error;
use serde_json::{json, Map, Value};

/// A variant value as given by the caller, before the game checks it.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits in an `i64`.
    Int(i64),
    /// A string.
    Str(String),
    /// An explicit "none" (Python `None`), for optional keys.
    None,
    /// A list of values (e.g. Back Alley's explicit `schedule`).
    List(Vec<Param>),
    /// Anything else; holds a short description of the value for the message.
    Other(String),
}

impl Param {
    /// The value as error messages name it, in the reference engine's words
    /// (`the string '4'`, `66.0 (a float)`).
    pub fn describe(&self) -> String {
        match self {
            Param::Bool(b) => format!("the boolean {}", if *b { "true" } else { "false" }),
            Param::Int(i) => format!("the integer {i}"),
            Param::Str(s) => format!("the string '{s}'"),
            Param::None => "none".to_string(),
            Param::List(items) => format!("a list of {} items", items.len()),
            Param::Other(d) => d.clone(),
        }
    }
}

/// Reads a game's variant keys one by one, then rejects whatever is left over.
/// The effective values (defaults filled in) are collected for `to_json`.
pub struct ParamReader {
    given: Vec<(String, Param)>,
    allowed: Vec<&'static str>,
    effective: Map<String, Value>,
}

fn invalid(key: &str, message: String) -> Error {
    Error::InvalidParams {
        key: key.to_string(),
        message,
    }
}

impl ParamReader {
    /// Starts reading the caller's `(key, value)` pairs.
    pub fn new(given: Vec<(String, Param)>) -> Self {
        Self {
            given,
            allowed: Vec::new(),
            effective: Map::new(),
        }
    }

    fn take(&mut self, key: &'static str) -> Option<Param> {
        self.allowed.push(key);
        let i = self.given.iter().position(|(k, _)| k == key)?;
        Some(self.given.remove(i).1)
    }

    /// One of `choices` (the first is the default).
    pub fn choice(&mut self, key: &'static str, choices: &[&'static str]) -> Result<usize, Error> {
        let index = match self.take(key) {
            None => 0,
            Some(Param::Str(s)) => choices.iter().position(|c| *c == s).ok_or_else(|| {
                invalid(
                    key,
                    format!("must be one of {}, got {s:?}", quoted(choices)),
                )
            })?,
            Some(other) => {
                return Err(invalid(
                    key,
                    format!(
                        "must be one of {}, got {}",
                        quoted(choices),
                        other.describe()
                    ),
                ))
            }
        };
        self.effective.insert(key.into(), json!(choices[index]));
        Ok(index)
    }

    /// An integer in `[min, max]`, or the default.
    pub fn int(
        &mut self,
        key: &'static str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, Error> {
        let value = match self.take(key) {
            None => default,
            Some(p) => checked_int(key, p, min, max)?,
        };
        self.effective.insert(key.into(), json!(value));
        Ok(value)
    }

    /// An integer in `[min, max]`, or none (the default).
    pub fn optional_int(
        &mut self,
        key: &'static str,
        min: i64,
        max: i64,
    ) -> Result<Option<i64>, Error> {
        let value = match self.take(key) {
            None | Some(Param::None) => None,
            Some(p) => Some(checked_int(key, p, min, max)?),
        };
        self.effective.insert(key.into(), json!(value));
        Ok(value)
    }

    /// A boolean, or the default.
    pub fn boolean(&mut self, key: &'static str, default: bool) -> Result<bool, Error> {
        let value = match self.take(key) {
            None => default,
            Some(Param::Bool(b)) => b,
            Some(other) => {
                return Err(invalid(
                    key,
                    format!("must be true or false, got {}", other.describe()),
                ))
            }
        };
        self.effective.insert(key.into(), json!(value));
        Ok(value)
    }

    /// A key of a game-specific type (e.g. "an integer or a string"): `check`
    /// turns the given value into its effective JSON value or says what is
    /// allowed; `default` is the effective value when the key is left out.
    pub fn custom(
        &mut self,
        key: &'static str,
        default: Value,
        check: impl FnOnce(Param) -> Result<Value, String>,
    ) -> Result<Value, Error> {
        let value = match self.take(key) {
            None => default,
            Some(p) => check(p).map_err(|message| invalid(key, message))?,
        };
        self.effective.insert(key.into(), value.clone());
        Ok(value)
    }

    /// Rejects unknown keys and returns the effective values of every key.
    pub fn finish(mut self) -> Result<Map<String, Value>, Error> {
        if let Some((key, _)) = self.given.first() {
            self.allowed.sort_unstable();
            let message = format!(
                "unknown variant key; allowed keys: {}",
                self.allowed.join(", ")
            );
            return Err(invalid(key, message));
        }
        Ok(self.effective)
    }
}

fn checked_int(key: &str, p: Param, min: i64, max: i64) -> Result<i64, Error> {
    let range = if max == i64::MAX {
        format!("an integer >= {min}")
    } else {
        format!("an integer from {min} to {max}")
    };
    match p {
        Param::Int(i) if (min..=max).contains(&i) => Ok(i),
        other => Err(invalid(
            key,
            format!("must be {range}, got {}", other.describe()),
        )),
    }
}

fn quoted(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the player count against the game's range.
pub fn check_players(players: i64, min: i64, max: i64) -> Result<usize, Error> {
    if (min..=max).contains(&players) {
        Ok(players as usize)
    } else {
        Err(invalid(
            "players",
            format!("must be an integer from {min} to {max}, got the integer {players}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(pairs: &[(&str, Param)]) -> ParamReader {
        ParamReader::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn booleans_are_not_integers() {
        let mut r = reader(&[("end_score", Param::Bool(true))]);
        assert!(matches!(
            r.int("end_score", 66, 1, i64::MAX),
            Err(Error::InvalidParams { .. })
        ));
    }

    #[test]
    fn unknown_keys_are_named() {
        let mut r = reader(&[("bogus", Param::Int(1))]);
        r.int("end_score", 66, 1, i64::MAX).unwrap();
        match r.finish() {
            Err(Error::InvalidParams { key, message }) => {
                assert_eq!(key, "bogus");
                assert!(message.contains("end_score"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults_are_recorded() {
        let mut r = reader(&[]);
        assert_eq!(r.choice("deck", &["full", "tactics"]).unwrap(), 0);
        assert_eq!(r.optional_int("round_limit", 1, i64::MAX).unwrap(), None);
        let m = r.finish().unwrap();
        assert_eq!(m["deck"], json!("full"));
        assert_eq!(m["round_limit"], Value::Null);
    }
}
