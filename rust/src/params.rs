//! Variant keys: strict typing and range checks shared by every game
//! (docs/rules/CONVENTIONS.md, "Configuration").
//!
//! A game declares its keys once, with `variant_keys!`: each field of its
//! `Params` is named after its key and says how the key is read. The same
//! declaration reads the caller's values and writes the effective values
//! back as JSON, so the two cannot drift apart.

use crate::game::Error;
use serde_json::{json, Value};

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

/// A variant value's effective JSON value, as `Game.params` shows it.
pub trait KeyValue {
    /// The value as JSON.
    fn to_json(&self) -> Value;
}

macro_rules! plain_key_values {
    ($($t:ty),*) => {
        $(impl KeyValue for $t {
            fn to_json(&self) -> Value {
                json!(*self)
            }
        })*
    };
}

plain_key_values!(bool, i64, u8, u32, u64, usize);

impl<T: KeyValue> KeyValue for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, KeyValue::to_json)
    }
}

/// A key whose value is one of a list of strings (declared with `choice_key!`).
pub trait ChoiceKey: Sized + Copy {
    /// The strings, in declaration order; the first is the default.
    const NAMES: &'static [&'static str];
    /// The choice at `index` in [`ChoiceKey::NAMES`].
    fn from_index(index: usize) -> Self;
}

/// A key of a game-specific type (e.g. "a seat or \"random\"").
pub trait CustomKey: Sized + KeyValue {
    /// The value when the key is left out.
    fn default_value() -> Self;
    /// The value given, or a message saying what is allowed.
    fn read(given: Param) -> Result<Self, String>;
}

/// `first_dealer` where it may be drawn: a seat, or `"random"` (the first
/// generator call picks the dealer). The seat is checked against the table
/// by the game's `check_config` (`check_seat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstDealer {
    /// This seat deals first.
    Seat(usize),
    /// The generator picks the first dealer.
    Random,
}

impl FirstDealer {
    /// Refuses a seat the table does not have.
    pub fn check_seat(&self, players: usize) -> Result<(), Error> {
        match *self {
            FirstDealer::Seat(s) if s >= players => Err(invalid(
                "first_dealer",
                format!(
                    "must be a seat from 0 to {} or \"random\", got the integer {s}",
                    players - 1
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl KeyValue for FirstDealer {
    fn to_json(&self) -> Value {
        match self {
            FirstDealer::Seat(s) => json!(s),
            FirstDealer::Random => json!("random"),
        }
    }
}

impl CustomKey for FirstDealer {
    fn default_value() -> Self {
        FirstDealer::Seat(0)
    }

    fn read(given: Param) -> Result<Self, String> {
        match given {
            Param::Str(s) if s == "random" => Ok(FirstDealer::Random),
            Param::Int(s) if s >= 0 => Ok(FirstDealer::Seat(s as usize)),
            other => Err(format!(
                "must be a seat number or \"random\", got {}",
                other.describe()
            )),
        }
    }
}

/// Declares the enum of a choice key: each variant with its string, the
/// first being the default.
///
/// ```text
/// choice_key! {
///     /// `end_rule` (§8).
///     pub enum EndRule { AtLeast = "at_least", MoreThan = "more_than" }
/// }
/// ```
macro_rules! choice_key {
    (
        $(#[$meta:meta])*
        pub enum $Name:ident { $( $(#[$vmeta:meta])* $Variant:ident = $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $Name { $( $(#[$vmeta])* $Variant ),+ }

        impl $crate::params::ChoiceKey for $Name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            fn from_index(index: usize) -> Self {
                [$($Name::$Variant),+][index]
            }
        }

        impl $crate::params::KeyValue for $Name {
            fn to_json(&self) -> serde_json::Value {
                let names = <Self as $crate::params::ChoiceKey>::NAMES;
                serde_json::Value::from(names[*self as usize])
            }
        }
    };
}
pub(crate) use choice_key;

/// Declares a game's `Params`: every variant key of its §8 as a field named
/// after the key, with how it is read:
///
/// - `choice` (a [`ChoiceKey`] enum, the first string the default),
/// - `int(default, min, max)`, `optional_int(min, max)` (none by default),
/// - `boolean(default)`,
/// - `custom` (a [`CustomKey`] type).
///
/// It writes the struct (with `players` first, fixed with the keys though not
/// one of them) and its [`VariantKeys`]: reading the caller's keys and the
/// effective values as JSON, both from this one list.
macro_rules! variant_keys {
    (
        $(#[$meta:meta])*
        pub struct $Params:ident {
            $( $(#[$fmeta:meta])* $key:ident : $T:ty = $kind:ident $( ( $($arg:expr),* ) )? ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $Params {
            /// Seats at the table: not a variant key, but fixed with them.
            pub players: usize,
            $( $(#[$fmeta])* pub $key: $T, )+
        }

        impl $crate::params::VariantKeys for $Params {
            fn read(
                players: usize,
                given: Vec<(String, $crate::params::Param)>,
            ) -> Result<Self, $crate::game::Error> {
                let mut r = $crate::params::ParamReader::new(given);
                let params = $Params {
                    players,
                    $( $key: r.$kind(stringify!($key) $(, $($arg),*)?)?, )+
                };
                r.finish()?;
                Ok(params)
            }

            fn players(&self) -> usize {
                self.players
            }

            fn to_json(&self) -> serde_json::Value {
                let mut keys = serde_json::Map::new();
                $( keys.insert(
                    stringify!($key).to_string(),
                    $crate::params::KeyValue::to_json(&self.$key),
                ); )+
                serde_json::Value::Object(keys)
            }
        }
    };
}
pub(crate) use variant_keys;

/// What `variant_keys!` writes for a game's `Params`.
pub trait VariantKeys: Sized {
    /// Reads every key from the caller's `(key, value)` pairs, defaults
    /// filled in; an unknown key or a bad value is refused, naming the key.
    fn read(players: usize, given: Vec<(String, Param)>) -> Result<Self, Error>;
    /// Seats at the table.
    fn players(&self) -> usize;
    /// The effective value of every key, as `Game.params` shows them.
    fn to_json(&self) -> Value;
}

/// What a game adds to its declared keys (§8 of its rule book), and the
/// generic code reads: the checks between keys and the cards they put in play.
pub trait Variant: VariantKeys + Clone + PartialEq + std::fmt::Debug {
    /// The checks that involve the player count or two keys at once.
    fn check_config(&self) -> Result<(), Error>;
    /// The cards in play, canonical order (what an explicit deck must permute).
    fn canonical_deck(&self) -> Vec<String>;
}

/// Reads a game's variant keys one by one, then rejects whatever is left over.
pub struct ParamReader {
    given: Vec<(String, Param)>,
    allowed: Vec<&'static str>,
}

/// The error for `key`.
pub fn invalid(key: &str, message: String) -> Error {
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
        }
    }

    fn take(&mut self, key: &'static str) -> Option<Param> {
        self.allowed.push(key);
        let i = self.given.iter().position(|(k, _)| k == key)?;
        Some(self.given.remove(i).1)
    }

    /// One of the key's strings (the first is the default).
    pub fn choice<T: ChoiceKey>(&mut self, key: &'static str) -> Result<T, Error> {
        let choices = T::NAMES;
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
        Ok(T::from_index(index))
    }

    /// An integer in `[min, max]`, or the default.
    pub fn int<T: TryFrom<i64>>(
        &mut self,
        key: &'static str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<T, Error> {
        let value = match self.take(key) {
            None => default,
            Some(p) => checked_int(key, p, min, max)?,
        };
        narrow(key, value, min, max)
    }

    /// An integer in `[min, max]`, or none (the default).
    pub fn optional_int<T: TryFrom<i64>>(
        &mut self,
        key: &'static str,
        min: i64,
        max: i64,
    ) -> Result<Option<T>, Error> {
        match self.take(key) {
            None | Some(Param::None) => Ok(None),
            Some(p) => narrow(key, checked_int(key, p, min, max)?, min, max).map(Some),
        }
    }

    /// A boolean, or the default.
    pub fn boolean(&mut self, key: &'static str, default: bool) -> Result<bool, Error> {
        match self.take(key) {
            None => Ok(default),
            Some(Param::Bool(b)) => Ok(b),
            Some(other) => Err(invalid(
                key,
                format!("must be true or false, got {}", other.describe()),
            )),
        }
    }

    /// A key of a game-specific type.
    pub fn custom<T: CustomKey>(&mut self, key: &'static str) -> Result<T, Error> {
        match self.take(key) {
            None => Ok(T::default_value()),
            Some(p) => T::read(p).map_err(|message| invalid(key, message)),
        }
    }

    /// Rejects unknown keys, naming the allowed ones.
    pub fn finish(mut self) -> Result<(), Error> {
        if let Some((key, _)) = self.given.first() {
            self.allowed.sort_unstable();
            let message = format!(
                "unknown variant key;{} allowed keys: {}",
                did_you_mean(key, &self.allowed),
                self.allowed.join(", ")
            );
            return Err(invalid(key, message));
        }
        Ok(())
    }
}

/// " did you mean X?" for the allowed key closest to a misspelt one (at most
/// a third of its letters changed), or nothing.
fn did_you_mean(key: &str, allowed: &[&'static str]) -> String {
    let near = |k: &&&str| strsim::levenshtein(key, k) <= key.len().max(k.len()).div_ceil(3);
    match allowed
        .iter()
        .filter(near)
        .min_by_key(|k| strsim::levenshtein(key, k))
    {
        Some(k) => format!(" did you mean {k}?"),
        None => String::new(),
    }
}

fn range_text(min: i64, max: i64) -> String {
    if max == i64::MAX {
        format!("an integer >= {min}")
    } else {
        format!("an integer from {min} to {max}")
    }
}

fn checked_int(key: &str, p: Param, min: i64, max: i64) -> Result<i64, Error> {
    match p {
        Param::Int(i) if (min..=max).contains(&i) => Ok(i),
        other => Err(invalid(
            key,
            format!("must be {}, got {}", range_text(min, max), other.describe()),
        )),
    }
}

/// `value` as the field's integer type; a key's range is chosen to fit it.
fn narrow<T: TryFrom<i64>>(key: &str, value: i64, min: i64, max: i64) -> Result<T, Error> {
    T::try_from(value).map_err(|_| {
        invalid(
            key,
            format!("must be {}, got the integer {value}", range_text(min, max)),
        )
    })
}

fn quoted(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the player count against the game's range.
pub fn check_players(players: i64, min: usize, max: usize) -> Result<usize, Error> {
    if (min as i64..=max as i64).contains(&players) {
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

    choice_key! {
        /// A test key.
        pub enum Deck { Full = "full", Tactics = "tactics" }
    }

    variant_keys! {
        /// Test keys.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Keys {
            deck: Deck = choice,
            end_score: u32 = int(66, 1, 1000),
            round_limit: Option<i64> = optional_int(1, i64::MAX),
            blind: bool = boolean(true),
        }
    }

    #[test]
    fn booleans_are_not_integers() {
        let mut r = reader(&[("end_score", Param::Bool(true))]);
        assert!(matches!(
            r.int::<i64>("end_score", 66, 1, i64::MAX),
            Err(Error::InvalidParams { .. })
        ));
    }

    #[test]
    fn unknown_keys_are_named_with_the_allowed_ones() {
        let given = vec![("bogus".to_string(), Param::Int(1))];
        match Keys::read(2, given) {
            Err(Error::InvalidParams { key, message }) => {
                assert_eq!(key, "bogus");
                assert!(
                    message.ends_with("blind, deck, end_score, round_limit"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_misspelt_key_gets_the_closest_allowed_one() {
        let message = |key: &str| match Keys::read(2, vec![(key.to_string(), Param::Int(1))]) {
            Err(Error::InvalidParams { message, .. }) => message,
            other => panic!("{other:?}"),
        };
        assert!(message("end_scor").contains("did you mean end_score?"));
        assert!(message("round_limits").contains("did you mean round_limit?"));
        assert!(message("dekc").contains("did you mean deck?"));
        assert!(!message("bogus").contains("did you mean"));
        assert!(!message("score").contains("did you mean"));
    }

    #[test]
    fn declared_keys_read_and_write_the_same_names() {
        let keys = Keys::read(3, vec![]).unwrap();
        assert_eq!(
            (
                keys.players,
                keys.deck,
                keys.end_score,
                keys.round_limit,
                keys.blind
            ),
            (3, Deck::Full, 66, None, true)
        );
        assert_eq!(
            keys.to_json(),
            json!({"deck": "full", "end_score": 66, "round_limit": null, "blind": true})
        );
        let given = vec![
            ("deck".to_string(), Param::Str("tactics".into())),
            ("round_limit".to_string(), Param::Int(3)),
        ];
        let keys = Keys::read(3, given).unwrap();
        assert_eq!(keys.to_json()["deck"], json!("tactics"));
        assert_eq!(keys.to_json()["round_limit"], json!(3));
    }

    #[test]
    fn a_bad_value_names_the_key_and_what_is_allowed() {
        let bad = |key: &str, p: Param| match Keys::read(2, vec![(key.to_string(), p)]) {
            Err(Error::InvalidParams { key, message }) => format!("{key}: {message}"),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            bad("deck", Param::Str("short".into())),
            "deck: must be one of \"full\", \"tactics\", got \"short\""
        );
        assert_eq!(
            bad("end_score", Param::Int(0)),
            "end_score: must be an integer from 1 to 1000, got the integer 0"
        );
        assert_eq!(
            bad("blind", Param::Int(1)),
            "blind: must be true or false, got the integer 1"
        );
    }
}
