//! What a game designer measures over many native games (`cardref analyze`):
//! per seat and bot the wins, placements and scores with their squares (for
//! intervals), the distribution of game lengths in actions and rounds, each
//! seat's score distribution, and how often each rule point fires.
//!
//! Game `i` is dealt from [`sim::game_seed`]`(seed, i)` and its bots draw as in
//! [`sim::simulate`], so a batch can be split anywhere (`start`, `games`) and
//! over any number of threads with the same totals; a caller runs a long
//! analysis in slices to show progress.

use crate::game::{Error, Playable};
use crate::games::Config;
use crate::points::MAX_POINTS;
use crate::rng::SplitMix64;
use crate::sim::{self, Bot};
use std::collections::BTreeMap;
use std::ops::Range;

/// Which bot sits where.
#[derive(Debug, Clone, PartialEq)]
pub enum Lineup {
    /// One bot per seat, the same in every game.
    Fixed(Vec<Bot>),
    /// Every seat of every game draws its bot from this pool, each with the
    /// same chance, independently of the other seats: the design in which
    /// `cardref analyze` measures how much skill matters.
    Mixed(Vec<Bot>),
}

/// One seat's results with one bot (sums, so that slices add up).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeatStats {
    /// Games this bot played in this seat.
    pub games: u64,
    /// Of them, games placed first (shared places included).
    pub wins: u64,
    /// Sum of placements, and of their squares.
    pub placement_sum: u64,
    pub placement_sq: u64,
    /// Sum of final scores, and of their squares (floating: scores may be large).
    pub score_sum: f64,
    pub score_sq: f64,
}

/// The totals of an analysis batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    /// Complete games played.
    pub games: u64,
    /// Actions over all games.
    pub actions: u64,
    /// `seats[s][b]`: seat `s` with bot `b` (a fixed lineup's bot is `b = 0`;
    /// a mixed lineup's `b` indexes its pool).
    pub seats: Vec<Vec<SeatStats>>,
    /// Games by their length in actions.
    pub lengths: BTreeMap<u64, u64>,
    /// Games by their rounds (deals, hands) dealt.
    pub rounds: BTreeMap<u32, u64>,
    /// Per seat, games by final score.
    pub scores: Vec<BTreeMap<i64, u64>>,
    /// Per rule point index: times fired, and games in which it fired at least
    /// once (all zero unless rule points were counted).
    pub points_fired: Vec<u64>,
    pub points_games: Vec<u64>,
}

impl Analysis {
    fn new(players: usize, bots: usize) -> Self {
        Analysis {
            seats: vec![vec![SeatStats::default(); bots]; players],
            scores: vec![BTreeMap::new(); players],
            points_fired: vec![0; MAX_POINTS],
            points_games: vec![0; MAX_POINTS],
            ..Analysis::default()
        }
    }

    fn add(&mut self, other: Analysis) {
        self.games += other.games;
        self.actions += other.actions;
        for (mine, theirs) in self.seats.iter_mut().zip(other.seats) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                a.games += b.games;
                a.wins += b.wins;
                a.placement_sum += b.placement_sum;
                a.placement_sq += b.placement_sq;
                a.score_sum += b.score_sum;
                a.score_sq += b.score_sq;
            }
        }
        for (k, v) in other.lengths {
            *self.lengths.entry(k).or_default() += v;
        }
        for (k, v) in other.rounds {
            *self.rounds.entry(k).or_default() += v;
        }
        for (mine, theirs) in self.scores.iter_mut().zip(other.scores) {
            for (k, v) in theirs {
                *mine.entry(k).or_default() += v;
            }
        }
        for i in 0..MAX_POINTS {
            self.points_fired[i] += other.points_fired[i];
            self.points_games[i] += other.points_games[i];
        }
    }
}

/// Plays games `start .. start + games` of an analysis with seed `seed`, on
/// `threads` threads, counting rule points if `points` (on the counted state
/// type, which plain play never uses).
pub fn analyse(
    config: &Config,
    lineup: &Lineup,
    start: u64,
    games: u64,
    seed: u64,
    threads: usize,
    points: bool,
) -> Result<Analysis, Error> {
    let pool = match lineup {
        Lineup::Fixed(bots) => {
            sim::check_bots(config, bots)?;
            1
        }
        Lineup::Mixed(pool) => {
            if pool.is_empty() {
                return Err(Error::InvalidParams {
                    key: "bots".into(),
                    message: "a mixed lineup needs at least one bot".into(),
                });
            }
            for bot in pool {
                sim::check_bots(config, &vec![*bot; config.players()])?;
            }
            pool.len()
        }
    };
    let end = start
        .checked_add(games)
        .ok_or_else(|| Error::InvalidParams {
            key: "games".into(),
            message: "start + games is too large".into(),
        })?;
    let parts = sim::in_chunks(start..end, threads, |range| {
        config.analyse_range(lineup, seed, range, points)
    })?;
    let mut total = Analysis::new(config.players(), pool);
    for part in parts {
        total.add(part);
    }
    Ok(total)
}

/// The bots of game `game_seed`'s seats, and each one's index in its lineup.
fn seating(lineup: &Lineup, players: usize, game_seed: u64, bots: &mut Vec<Bot>) -> Vec<usize> {
    bots.clear();
    match lineup {
        Lineup::Fixed(fixed) => {
            bots.extend_from_slice(fixed);
            vec![0; players]
        }
        Lineup::Mixed(pool) => {
            let mut draw = SplitMix64::new(game_seed ^ 0x5EA7_1B07_D1CE_0000);
            let picks: Vec<usize> = (0..players)
                .map(|_| crate::game::pick(&mut draw, pool.len()))
                .collect();
            bots.extend(picks.iter().map(|&k| pool[k]));
            picks
        }
    }
}

/// Plays games `range` of one game's analysis on state type `G` (counted or
/// not); `crate::games::Config::analyse_range` picks `G`.
pub fn play_range<G: Playable>(
    params: &G::Params,
    players: usize,
    lineup: &Lineup,
    seed: u64,
    range: Range<u64>,
) -> Result<Analysis, Error> {
    let pool = match lineup {
        Lineup::Fixed(_) => 1,
        Lineup::Mixed(pool) => pool.len(),
    };
    let mut total = Analysis::new(players, pool);
    let mut fired = vec![0u64; MAX_POINTS];
    let mut slot: Option<G> = None;
    let mut bots = Vec::with_capacity(players);
    for i in range {
        let s = sim::game_seed(seed, i);
        let restarted = slot.as_mut().is_some_and(|g| g.restart(s));
        if !restarted {
            slot = Some(G::new_state(params.clone(), s, None)?);
        }
        let Some(state) = slot.as_mut() else {
            unreachable!("a state was just dealt")
        };
        let which = seating(lineup, players, s, &mut bots);
        let actions = sim::play_out(state, &bots, &mut sim::bot_rng(s));
        let placements = state.placements().unwrap_or_default();
        let scores = state.scores();
        total.games += 1;
        total.actions += actions;
        *total.lengths.entry(actions).or_default() += 1;
        *total.rounds.entry(state.rounds()).or_default() += 1;
        for seat in 0..players {
            let stats = &mut total.seats[seat][which[seat]];
            let place = u64::from(placements[seat]);
            stats.games += 1;
            stats.wins += u64::from(place == 1);
            stats.placement_sum += place;
            stats.placement_sq += place * place;
            let score = scores[seat] as f64;
            stats.score_sum += score;
            stats.score_sq += score * score;
            *total.scores[seat].entry(scores[seat]).or_default() += 1;
        }
        fired.iter_mut().for_each(|f| *f = 0);
        state.drain_points(&mut fired);
        for (k, &n) in fired.iter().enumerate() {
            total.points_fired[k] += n;
            total.points_games[k] += u64::from(n > 0);
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take5(players: i64, variant: Vec<(String, crate::params::Param)>) -> Config {
        Config::new("take5", players, variant).unwrap()
    }

    #[test]
    fn slices_and_threads_add_up_to_the_whole() {
        let config = take5(4, vec![]);
        let lineup = Lineup::Mixed(vec![Bot::Random, Bot::Heuristic]);
        let whole = analyse(&config, &lineup, 0, 60, 9, 1, true).unwrap();
        let mut parts = analyse(&config, &lineup, 0, 25, 9, 2, true).unwrap();
        parts.add(analyse(&config, &lineup, 25, 35, 9, 3, true).unwrap());
        assert_eq!(whole, parts);
        assert_eq!(whole.games, 60);
        assert_eq!(whole.lengths.values().sum::<u64>(), 60);
        let seated: u64 = whole.seats.iter().flatten().map(|s| s.games).sum();
        assert_eq!(seated, 60 * 4);
    }

    /// A fixed lineup's totals are `simulate`'s, game for game.
    #[test]
    fn a_fixed_lineup_plays_the_games_simulate_plays() {
        let config = take5(3, vec![]);
        let bots = vec![Bot::Heuristic, Bot::Random, Bot::Random];
        let a = analyse(&config, &Lineup::Fixed(bots.clone()), 0, 40, 5, 2, false).unwrap();
        let t = sim::simulate(&config, &bots, 40, 5, 2, false).unwrap();
        assert_eq!(a.actions, t.actions);
        for s in 0..3 {
            assert_eq!(a.seats[s][0].wins, t.wins[s]);
            assert_eq!(a.seats[s][0].placement_sum, t.placement_sum[s]);
            assert_eq!(a.seats[s][0].score_sum as i64, t.score_sum[s]);
        }
        assert!(
            a.points_fired.iter().all(|&n| n == 0),
            "not counted unless asked"
        );
    }

    /// With `round_limit = 1` every game is one round: one deal, one round
    /// end, 10N commits, all exactly.
    #[test]
    fn one_round_games_count_what_one_round_holds() {
        use crate::params::Param;
        let config = take5(4, vec![("round_limit".into(), Param::Int(1))]);
        let a = analyse(
            &config,
            &Lineup::Fixed(vec![Bot::Random; 4]),
            0,
            30,
            1,
            2,
            true,
        )
        .unwrap();
        assert_eq!(a.rounds, BTreeMap::from([(1, 30)]));
        assert!(
            a.lengths.keys().all(|&n| (40..=50).contains(&n)),
            "{:?}",
            a.lengths
        );
        let commits = a.points_fired[crate::points::index("T5-P2")];
        assert_eq!(commits, 30 * 40);
    }
}
