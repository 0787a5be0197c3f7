//! Native random playouts of one game, for profiling: `cargo run --release
//! --example playouts -- take5 4 20000`.

use cardref::games::{random_playouts, Config};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = args.get(1).map_or("take5", String::as_str);
    let players: i64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let games: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let config = Config::new(game, players, vec![]).expect("config");
    let start = Instant::now();
    let totals = random_playouts(&config, games, 1).expect("playouts");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{game} x{players}: {} games, {} actions, {:.1} ns/action, {:.0} games/s",
        totals.games,
        totals.actions,
        1e9 * secs / totals.actions as f64,
        totals.games as f64 / secs
    );
}
