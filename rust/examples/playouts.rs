//! Native random playouts of one game, for profiling: `cargo run --release
//! --example playouts -- take5 4 20000`. A fourth argument picks the loop:
//! `plain` (the default: the benchmark's batch of random games), `analysis`
//! (the batch `cardref analyze` plays, rule points not counted) or `points`
//! (the same, counting every rule point), so that `scripts/instructions.sh`
//! can measure what counting costs.

use cardref::analysis::{analyse, Lineup};
use cardref::games::{random_playouts, Config};
use cardref::sim::Bot;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = args.get(1).map_or("take5", String::as_str);
    let players: i64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let games: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let mode = args.get(4).map_or("plain", String::as_str);
    let config = Config::new(game, players, vec![]).expect("config");
    let start = Instant::now();
    let (games, actions) = match mode {
        "plain" => {
            let totals = random_playouts(&config, games, 1).expect("playouts");
            (totals.games, totals.actions)
        }
        "analysis" | "points" => {
            let lineup = Lineup::Fixed(vec![Bot::Random; players as usize]);
            let totals =
                analyse(&config, &lineup, 0, games, 1, 1, mode == "points").expect("analysis");
            (totals.games, totals.actions)
        }
        other => panic!("unknown mode {other:?}: plain, analysis or points"),
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{game} x{players} {mode}: {games} games, {actions} actions, {:.1} ns/action, {:.0} games/s",
        1e9 * secs / actions as f64,
        games as f64 / secs
    );
}
