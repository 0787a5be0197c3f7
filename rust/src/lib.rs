//! cardref: rules engines for five card games, checked against a readable
//! Python reference (see `python/cardref/reference`).
//!
//! The game logic is plain Rust; the PyO3 binding lives only in `python.rs`,
//! behind the `python` feature, so `cargo test` needs no Python.
//!
//! ```
//! use cardref::games::Config;
//! let config = Config::new("take5", 4, vec![]).unwrap();
//! let mut state = config.new_state(7, None).unwrap();
//! let first = state.legal_action_texts()[0].clone();
//! state.apply(&first).unwrap();
//! assert_eq!(state.current_player(), Some(1));
//! assert!(state.apply("take 9").is_err());
//! ```
//!
//! Modules: [`rng`] (the shared generator), [`cards`] (deck checks, bitsets),
//! [`params`] (variant keys), [`game`] (the traits every game implements, errors),
//! [`json`] (state JSON readers), [`games`] (the games and their dispatch),
//! [`points`] (counting the rule points that fire in play), [`sim`] (native
//! bots on all cores), [`analysis`] (a game's figures over many native games).

pub mod analysis;
pub mod cards;
pub mod game;
pub mod games;
pub mod json;
pub mod params;
pub mod points;
pub mod rng;
pub mod sim;

#[cfg(feature = "python")]
mod python;

/// The extension module builds many small JSON values (observations, states,
/// sampled deals); glibc's allocator spends more time on them than the rules do.
#[cfg(feature = "python")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
