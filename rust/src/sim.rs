//! Simulation at native speed: complete games played inside Rust by native
//! bots, on all cores, deterministically; and the search bot.
//!
//! Game `i` of a batch with seed `seed` is dealt from the seed [`game_seed`]`(seed, i)`
//! and its bots draw from a generator seeded from that seed too, so a game's
//! course depends only on `(seed, i)`: the results are the same for any
//! number of threads.

use crate::game::{Action, Error, Playable, Search};
use crate::games::Config;
use crate::rng::SplitMix64;
use std::sync::atomic::{AtomicU64, Ordering};

/// A native bot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bot {
    /// A uniformly random legal action.
    Random,
    /// The game's heuristic (the strategy of `cardref.bots.heuristic.<game>`).
    Heuristic,
    /// Determinized rollouts ([`search_action`]) with the heuristic as rollout policy.
    Search(SearchParams),
}

impl Bot {
    /// A bot by its name: `random`, `heuristic` or `search`.
    pub fn parse(name: &str) -> Result<Self, Error> {
        match name {
            "random" => Ok(Bot::Random),
            "heuristic" => Ok(Bot::Heuristic),
            "search" => Ok(Bot::Search(SearchParams::default())),
            _ => Err(Error::InvalidParams {
                key: "bots".into(),
                message: format!(
                    "unknown native bot {name:?}; native bots: random, heuristic, search"
                ),
            }),
        }
    }
}

/// How hard the search bot thinks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchParams {
    /// Sampled states (determinizations) per decision; every legal action is
    /// played out once in each.
    pub samples: usize,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams { samples: 32 }
    }
}

/// The seed of game `i` in a batch: the `(i+1)`-th output of SplitMix64(`seed`).
pub fn game_seed(seed: u64, i: u64) -> u64 {
    let mut g = SplitMix64::new(seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    g.next_u64()
}

/// The bots' generator for a game dealt from `seed`.
pub(crate) fn bot_rng(seed: u64) -> SplitMix64 {
    SplitMix64::new(seed ^ 0x0B07_5EED_0FCA_2D00)
}

/// The outcome of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The seed it was dealt from (`config.new_state(seed)` replays it).
    pub seed: u64,
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// Final scores per seat.
    pub scores: Vec<i64>,
    /// Final placements per seat.
    pub placements: Vec<u32>,
}

/// Totals of a batch of games.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Complete games played.
    pub games: u64,
    /// Actions applied over all games.
    pub actions: u64,
    /// Per seat: sum of placements.
    pub placement_sum: Vec<u64>,
    /// Per seat: games placed first (ties included).
    pub wins: Vec<u64>,
    /// Per seat: sum of final scores.
    pub score_sum: Vec<i64>,
    /// The games in order, if records were asked for.
    pub records: Vec<GameRecord>,
}

impl Totals {
    fn new(players: usize) -> Self {
        Totals {
            placement_sum: vec![0; players],
            wins: vec![0; players],
            score_sum: vec![0; players],
            ..Totals::default()
        }
    }

    fn add(&mut self, other: Totals) {
        self.games += other.games;
        self.actions += other.actions;
        for s in 0..self.wins.len() {
            self.placement_sum[s] += other.placement_sum[s];
            self.wins[s] += other.wins[s];
            self.score_sum[s] += other.score_sum[s];
        }
        self.records.extend(other.records);
    }
}

/// The native bot `bot`'s action for the player to act in `state`.
#[inline]
pub fn bot_action<G: Playable>(
    bot: Bot,
    state: &G,
    rng: &mut SplitMix64,
    buf: &mut Vec<Action>,
) -> Action {
    match bot {
        Bot::Random => state.random_action(rng, buf),
        Bot::Heuristic => state.heuristic_action(rng, buf),
        Bot::Search(p) => {
            let seat = state.current_player().unwrap_or(0);
            search_action(state, seat, p, rng, |g, rng| g.resample(seat, rng))
                .unwrap_or_else(|_| state.heuristic_action(rng, buf))
        }
    }
}

/// Flat Monte Carlo over determinizations: for each of `params.samples` states
/// drawn by `sample` (consistent with what `seat` knows), every legal action is
/// applied and the game played on by the heuristic for all seats until the
/// game's [`Search::rollout_value`] says stop; the action with the best total
/// value wins (the first in legal order on ties). Each sample uses one rollout
/// generator state for all actions (common random numbers).
pub fn search_action<G: Search>(
    state: &G,
    seat: usize,
    params: SearchParams,
    rng: &mut SplitMix64,
    mut sample: impl FnMut(&G, &mut SplitMix64) -> Result<G, Error>,
) -> Result<Action, Error> {
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    state.search_candidates(&mut legal);
    if legal.len() == 1 {
        return Ok(legal[0]);
    }
    let mut value = vec![0.0f64; legal.len()];
    let mut buf = Vec::with_capacity(64);
    for _ in 0..params.samples {
        let world = sample(state, rng)?;
        let rollout_seed = rng.next_u64();
        for (i, &a) in legal.iter().enumerate() {
            let mut g = world.clone();
            let mut r = SplitMix64::new(rollout_seed);
            g.apply_unchecked(a);
            let v = loop {
                if let Some(v) = g.rollout_value(seat, &world) {
                    break v;
                }
                let b = g.heuristic_action(&mut r, &mut buf);
                g.apply_unchecked(b);
            };
            value[i] += v;
        }
    }
    let mut best = 0;
    for i in 1..legal.len() {
        if value[i] > value[best] {
            best = i;
        }
    }
    Ok(legal[best])
}

/// Plays `state` to the end with random bots. Batches of random games get a
/// loop of their own, out of line: with no search bot beside it, the game's
/// step inlines into it.
#[inline(never)]
fn play_out_random<G: Playable>(state: &mut G, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> u64 {
    let mut local = *rng; // a local generator can stay in a register
    let mut actions = 0u64;
    buf.clear();
    while state.current_player().is_some() {
        actions += state.random_steps(&mut local, buf);
    }
    *rng = local;
    actions
}

/// Plays `state` to the end with one bot per seat; returns the actions applied.
pub fn play_out<G: Playable>(state: &mut G, bots: &[Bot], rng: &mut SplitMix64) -> u64 {
    let mut buf: Vec<Action> = Vec::new(); // grows only for a bot that lists actions
    let mut actions = 0u64;
    if bots.iter().all(|&b| b == Bot::Random) {
        return play_out_random(state, rng, &mut buf);
    }
    while let Some(p) = state.current_player() {
        let a = bot_action(bots[p], state, rng, &mut buf);
        state.apply_unchecked(a);
        actions += 1;
    }
    actions
}

/// Plays games `range` of a batch with one bot per seat.
fn play_range(
    config: &Config,
    bots: &[Bot],
    seed: u64,
    range: std::ops::Range<u64>,
    records: bool,
) -> Result<Totals, Error> {
    let n = bots.len();
    let mut totals = Totals::new(n);
    let mut slot = None;
    for i in range {
        let s = game_seed(seed, i);
        let g = config.deal_into(&mut slot, s)?;
        let actions = g.play_out(bots, &mut bot_rng(s));
        let placements = g.placements().unwrap_or_default();
        let scores = g.scores();
        totals.games += 1;
        totals.actions += actions;
        for seat in 0..n {
            totals.placement_sum[seat] += placements[seat] as u64;
            totals.wins[seat] += u64::from(placements[seat] == 1);
            totals.score_sum[seat] += scores[seat];
        }
        if records {
            totals.records.push(GameRecord {
                seed: s,
                actions: g.history_codes().to_vec(),
                scores,
                placements,
            });
        }
    }
    Ok(totals)
}

/// The number of threads `None` means: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Plays `games` complete games of `config` with native bots (one per seat),
/// on `threads` threads. Game `i` is dealt from `game_seed(seed, i)` whichever
/// thread plays it, so the results do not depend on the thread count.
pub fn simulate(
    config: &Config,
    bots: &[Bot],
    games: u64,
    seed: u64,
    threads: usize,
    records: bool,
) -> Result<Totals, Error> {
    check_bots(config, bots)?;
    let n = bots.len();
    let parts = in_chunks(0..games, threads, |range| {
        play_range(config, bots, seed, range, records)
    })?;
    let mut totals = Totals::new(n);
    for part in parts {
        totals.add(part);
    }
    Ok(totals)
}

/// One native bot per seat, and a heuristic only for a game that has one.
pub fn check_bots(config: &Config, bots: &[Bot]) -> Result<(), Error> {
    let n = config.players();
    if bots.len() != n {
        return Err(Error::InvalidParams {
            key: "bots".into(),
            message: format!("needs one bot per seat: {n} names, got {}", bots.len()),
        });
    }
    if bots.iter().any(|b| *b != Bot::Random) && !config.spec().heuristic {
        return Err(Error::InvalidParams {
            key: "bots".into(),
            message: format!("{} has no native heuristic bot", config.id()),
        });
    }
    Ok(())
}

/// Runs `work` over the game indices `games`, cut into chunks, on `threads`
/// threads, and returns each chunk's result in index order. Threads take
/// small chunks from a shared counter, so one that is slowed down (long
/// games, a busy core) does not hold up the rest.
pub fn in_chunks<T: Send>(
    games: std::ops::Range<u64>,
    threads: usize,
    work: impl Fn(std::ops::Range<u64>) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    let count = games.end.saturating_sub(games.start);
    let threads = (threads.max(1) as u64).min(count.max(1));
    let chunk = (count / (threads * 64)).clamp(1, 1024);
    let next = AtomicU64::new(games.start);
    let worker = || -> Result<Vec<(u64, T)>, Error> {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(chunk, Ordering::Relaxed);
            if start >= games.end {
                return Ok(done);
            }
            done.push((start, work(start..(start + chunk).min(games.end))?));
        }
    };
    let mut parts: Vec<(u64, T)> = Vec::new();
    std::thread::scope(|scope| -> Result<(), Error> {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        for h in handles {
            parts.extend(h.join().expect("a simulation thread panicked")?);
        }
        Ok(())
    })?;
    parts.sort_unstable_by_key(|&(start, _)| start);
    Ok(parts.into_iter().map(|(_, part)| part).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take5(players: i64) -> Config {
        Config::new("take5", players, vec![]).unwrap()
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let config = take5(4);
        let bots = [Bot::Random, Bot::Heuristic, Bot::Random, Bot::Heuristic];
        let one = simulate(&config, &bots, 40, 7, 1, true).unwrap();
        for threads in [2, 3, 8] {
            assert_eq!(simulate(&config, &bots, 40, 7, threads, true).unwrap(), one);
        }
        assert_eq!(one.games, 40);
        assert_eq!(one.records.len(), 40);
        assert_eq!(
            one.actions,
            one.records
                .iter()
                .map(|r| r.actions.len() as u64)
                .sum::<u64>()
        );
    }

    #[test]
    fn every_games_random_draw_is_legal() {
        for id in crate::games::GAME_IDS {
            let config = Config::new(id, 4, vec![]).unwrap();
            let mut rng = SplitMix64::new(3);
            for seed in 0..3 {
                let mut g = config.new_state(seed, None).unwrap();
                let mut legal = Vec::new();
                let mut steps = 0;
                while !g.is_terminal() && steps < 3000 {
                    legal.clear();
                    g.legal_actions(&mut legal);
                    let a = g.bot_action(Bot::Random, &mut rng);
                    assert!(legal.contains(&a), "{id}: {a} is not legal");
                    g.apply_unchecked(a);
                    steps += 1;
                }
            }
        }
    }

    /// Games whose batch of random bots draws differently from
    /// `random_action` (`NativeBots::random_steps`), though as uniformly.
    const PLANNED_BATCHES: [&str; 1] = ["take5"];

    #[test]
    fn the_random_batch_loop_plays_what_the_bots_would_step_by_step() {
        for id in crate::games::GAME_IDS {
            if PLANNED_BATCHES.contains(id) {
                continue;
            }
            let config = Config::new(id, 4, vec![]).unwrap();
            for seed in 0..3 {
                let mut batch = config.new_state(seed, None).unwrap();
                let actions = batch.play_out(&[Bot::Random; 4], &mut SplitMix64::new(seed));
                let mut stepped = config.new_state(seed, None).unwrap();
                let mut rng = SplitMix64::new(seed);
                let mut steps = 0;
                while !stepped.is_terminal() {
                    let a = stepped.bot_action(Bot::Random, &mut rng);
                    stepped.apply_unchecked(a);
                    steps += 1;
                }
                assert_eq!(actions, steps, "{id} seed {seed}");
                assert_eq!(batch.to_json(), stepped.to_json(), "{id} seed {seed}");
            }
        }
    }

    /// Take 5's planned batch and random bots stepped one action at a time
    /// play games alike: the same mean length and the same mean bullheads
    /// taken, within four standard errors, over 3,000 games each.
    #[test]
    fn take5_planned_batches_play_like_stepped_random_bots() {
        let config = take5(4);
        let (mut batch, mut stepped) = (Vec::new(), Vec::new());
        for seed in 0..3_000 {
            let mut g = config.new_state(seed, None).unwrap();
            let actions = g.play_out(&[Bot::Random; 4], &mut SplitMix64::new(seed));
            batch.push([actions as f64, g.scores().iter().sum::<i64>() as f64]);
            let mut g = config.new_state(seed, None).unwrap();
            let mut rng = SplitMix64::new(seed ^ 1);
            let mut actions = 0;
            while !g.is_terminal() {
                let a = g.bot_action(Bot::Random, &mut rng);
                g.apply_unchecked(a);
                actions += 1;
            }
            stepped.push([actions as f64, g.scores().iter().sum::<i64>() as f64]);
        }
        let mean_var = |xs: &[[f64; 2]], k: usize| {
            let n = xs.len() as f64;
            let mean = xs.iter().map(|x| x[k]).sum::<f64>() / n;
            let var = xs.iter().map(|x| (x[k] - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (mean, var / n)
        };
        for (k, what) in ["actions", "bullheads"].iter().enumerate() {
            let ((a, va), (b, vb)) = (mean_var(&batch, k), mean_var(&stepped, k));
            assert!(
                (a - b).abs() < 4.0 * (va + vb).sqrt(),
                "{what}: {a} against {b}"
            );
        }
    }

    /// Every game's batch of random bots, started at the deal or anywhere in
    /// a game (mid-turn included), plays only legal actions: its history
    /// replays through the checked path to the same state.
    #[test]
    fn the_random_batch_loop_plays_legal_actions_from_any_start() {
        for id in crate::games::GAME_IDS {
            for players in [3, 4] {
                let Ok(config) = Config::new(id, players, vec![]) else {
                    continue; // Back Alley seats exactly four
                };
                let mut stepper = SplitMix64::new(11);
                for seed in 0..6 {
                    let mut batch = config.new_state(seed, None).unwrap();
                    for _ in 0..seed * 7 {
                        if batch.is_terminal() {
                            break;
                        }
                        let a = batch.bot_action(Bot::Random, &mut stepper);
                        batch.apply_unchecked(a);
                    }
                    let before = batch.history_codes().len() as u64;
                    let bots = vec![Bot::Random; players as usize];
                    let actions = batch.play_out(&bots, &mut SplitMix64::new(seed));
                    assert!(batch.is_terminal(), "{id} seed {seed}");
                    let history = batch.history();
                    assert_eq!(before + actions, history.len() as u64, "{id} seed {seed}");
                    let mut replay = config.new_state(seed, None).unwrap();
                    for (i, text) in history.iter().enumerate() {
                        replay
                            .apply(text)
                            .unwrap_or_else(|e| panic!("{id} seed {seed} action {i}: {e}"));
                    }
                    assert_eq!(replay.to_json(), batch.to_json(), "{id} seed {seed}");
                }
            }
        }
    }

    #[test]
    fn twenty_two_random_discards_reach_every_size() {
        let config = Config::new("twenty_two", 2, vec![]).unwrap();
        let g = config.new_state(1, None).unwrap();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut rng = SplitMix64::new(8);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..20_000 {
            seen.insert(g.bot_action(Bot::Random, &mut rng));
        }
        assert!(seen.iter().all(|a| legal.contains(a)));
        // Uniform over the legal list: nearly all of it is drawn.
        assert!(seen.len() * 10 >= legal.len() * 9 || seen.len() == legal.len());
    }

    #[test]
    fn records_replay_to_the_same_result() {
        let config = take5(3);
        let totals = simulate(&config, &[Bot::Heuristic; 3], 5, 1, 2, true).unwrap();
        for r in &totals.records {
            let mut g = config.new_state(r.seed, None).unwrap();
            for &a in &r.actions {
                g.apply(&g.action_text(a)).unwrap();
            }
            assert_eq!(g.scores(), r.scores);
            assert_eq!(g.placements().unwrap(), r.placements);
        }
    }

    #[test]
    fn the_heuristic_beats_random_at_take5() {
        let config = take5(4);
        let bots = [Bot::Heuristic, Bot::Random, Bot::Random, Bot::Random];
        let t = simulate(&config, &bots, 400, 3, 2, false).unwrap();
        assert!(t.placement_sum[0] < t.placement_sum[1]);
        assert!(t.wins[0] > t.wins[1]);
    }

    #[test]
    fn resampling_keeps_the_seats_view_and_varies_the_rest() {
        let config = take5(4);
        let mut g = config.new_state(11, None).unwrap();
        let mut rng = SplitMix64::new(5);
        for step in 0..120 {
            if g.is_terminal() {
                break;
            }
            for seat in 0..4 {
                let a = g.resample(seat, step).unwrap();
                let b = g.resample(seat, step + 1000).unwrap();
                assert_eq!(a.observation(seat), g.observation(seat));
                assert_eq!(b.observation(seat), g.observation(seat));
                // The state is consistent: it reloads, and plays the same actions.
                let config_state = config.state_from_json(&a.to_json()).unwrap();
                assert_eq!(config_state.to_json(), a.to_json());
                let mut la = Vec::new();
                let mut lg = Vec::new();
                if g.current_player() == Some(seat) {
                    a.legal_actions(&mut la);
                    g.legal_actions(&mut lg);
                    assert_eq!(la, lg);
                }
                assert_ne!(a.to_json(), b.to_json(), "hidden cards should vary");
            }
            let bot = [Bot::Random, Bot::Heuristic][step as usize % 2];
            let action = g.bot_action(bot, &mut rng);
            g.apply_unchecked(action);
        }
    }

    #[test]
    fn states_sampled_from_an_observation_show_that_observation() {
        let config = take5(5);
        let mut g = config.new_state(2, None).unwrap();
        let mut rng = SplitMix64::new(9);
        for step in 0..80 {
            for seat in 0..5 {
                let obs = g.observation(seat);
                let states = g.sample_states(&obs, 3, step).unwrap();
                for s in &states {
                    assert_eq!(s.observation(seat), obs);
                }
                assert_ne!(states[0].to_json(), states[1].to_json());
            }
            let action = g.bot_action(Bot::Random, &mut rng);
            g.apply_unchecked(action);
        }
    }

    #[test]
    fn search_picks_a_legal_action_from_the_observation_alone() {
        let config = take5(4);
        let g = config.new_state(4, None).unwrap();
        let obs = g.observation(0);
        let a = g
            .search_sample_from_observation(&obs, SearchParams { samples: 4 }, 1)
            .unwrap();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        assert!(legal.contains(&a));
    }
}
