//! Take 5's unit tests (the rules, the bots' draws, determinization).

use super::rules::{bit, cards_in_play, heads, set_heads};
use super::*;
use crate::cards::bits;
use crate::game::{NativeBots, Outcome, Rules};
use crate::rng::SplitMix64;
use crate::params::Param;

/// The state the tests play: plain play, rule points not counted.
type Take5 = super::Take5;

fn params(players: i64) -> Params {
    crate::games::parse_params::<Take5>(players, vec![]).unwrap()
}

/// Sets row `r` to `cards` (ascending).
fn set_row(g: &mut Take5, r: usize, cards: &[u8]) {
    g.start_row(r, cards[0]);
    for &c in &cards[1..] {
        g.place_on(r, c, 0);
    }
    g.row_ends = Take5::with_end(g.row_ends, r, cards[cards.len() - 1]);
}

fn ascending_deck(top: u32) -> Vec<String> {
    (1..=top).map(|c| c.to_string()).collect()
}

#[test]
fn set_heads_adds_every_cards_heads() {
    let mut rng = SplitMix64::new(3);
    for _ in 0..200 {
        let set = rng.next_u64() as u128 | (rng.next_u64() as u128) << 64;
        let set = set & cards_in_play(104);
        let expected: u32 = bits(set).map(heads).sum();
        assert_eq!(set_heads(set), i64::from(expected));
    }
}

#[test]
fn bullhead_table_sums_to_171() {
    assert_eq!((1..=104).map(heads).sum::<u32>(), 171);
    assert_eq!([55, 11, 50, 100, 51, 65].map(heads), [7, 5, 3, 3, 1, 2]);
}

#[test]
fn explicit_deck_deals_round_robin_then_rows() {
    let g = Take5::new(params(3), 0, Some(&ascending_deck(104))).unwrap();
    assert_eq!(
        bits(g.hands[0]).collect::<Vec<_>>(),
        (1..=28).step_by(3).collect::<Vec<_>>()
    );
    assert_eq!(
        g.row_codes(),
        vec![vec!["31"], vec!["32"], vec!["33"], vec!["34"]]
    );
    assert_eq!(g.unused.count_ones(), 70);
    assert_eq!(g.rng.state, 0, "an explicit deck uses no generator call");
}

#[test]
fn target_row_is_the_highest_end_below_the_card() {
    let ends = [30u8, 10, 40, 20]
        .iter()
        .enumerate()
        .fold(0, |e, (r, &c)| Take5::with_end(e, r, c));
    let cases = [
        (5, None),
        (10, None),
        (11, Some(1)),
        (25, Some(3)),
        (31, Some(0)),
        (99, Some(2)),
    ];
    for (card, row) in cases {
        assert_eq!(Take5::target_row(ends, card), row, "card {card}");
    }
}

#[test]
fn sixth_card_takes_the_row() {
    let mut g = Take5::new(params(2), 0, Some(&ascending_deck(104))).unwrap();
    set_row(&mut g, 0, &[3, 10, 20, 30, 40]);
    g.place_on(0, 45, 1);
    assert_eq!(set_heads(g.piles[1]), 1 + 3 + 3 + 3 + 3);
    assert_eq!(g.rows[0], bit(45));
    g.place_on(0, 50, 0);
    assert_eq!(g.piles[0], 0, "a second card only joins the row");
    assert_eq!(g.rows[0], bit(45) | bit(50));
}

#[test]
fn auto_row_prefers_fewest_heads_then_lowest_index() {
    let p = crate::games::parse_params::<Take5>(
        2,
        vec![(
            "too_low_choice".into(),
            Param::Str("auto_fewest_heads".into()),
        )],
    )
    .unwrap();
    let mut g = Take5::new(p, 0, Some(&ascending_deck(104))).unwrap();
    for (r, row) in [[10, 11].as_slice(), &[20, 21], &[30, 31], &[55]]
        .iter()
        .enumerate()
    {
        set_row(&mut g, r, row);
    }
    assert_eq!(g.fewest_heads_row(), 1);
}

/// Pearson's statistic of `counts` against equal expected counts.
fn chi_square(counts: &[u64]) -> f64 {
    let expected = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// A state at the start of turn `turn` of round 1, played by random bots.
fn at_turn(players: i64, seed: u64, turn: u8) -> Take5 {
    let mut g = Take5::new(params(players), seed, None).unwrap();
    let mut rng = SplitMix64::new(seed);
    while !(g.turn == turn && g.to_act == 0 && g.phase == Phase::Commit) {
        let a = g.random_action(&mut rng, &mut Vec::new());
        g.apply_unchecked(a);
    }
    g
}

#[test]
fn planned_random_plays_order_each_hand_uniformly() {
    // Three cards left per hand: each of the 6 orders is equally likely.
    let g = at_turn(4, 5, 7);
    let (mut rng, mut plan) = (SplitMix64::new(9), Vec::new());
    let mut counts = [[0u64; 6]; 4];
    for _ in 0..12_000 {
        g.plan_random_plays(&mut rng, &mut plan);
        for (s, tally) in counts.iter_mut().enumerate() {
            let order = &plan[10 * s + 7..10 * s + 10];
            let set = order.iter().fold(0, |set, &c| set | bit(c as u8));
            assert_eq!(set, g.hands[s], "seat {s} plans exactly its hand");
            let rank = |c: Action| (g.hands[s] & (bit(c as u8) - 1)).count_ones() as usize;
            // The first card's rank, then whether the other two come down.
            let (a, b, c) = (rank(order[0]), rank(order[1]), rank(order[2]));
            tally[a * 2 + usize::from(b > c)] += 1;
        }
    }
    for (s, tally) in counts.iter().enumerate() {
        // 5 degrees of freedom: above 20.5 once in a thousand.
        assert!(chi_square(tally) < 20.5, "seat {s}: {tally:?}");
    }
}

#[test]
fn planned_random_plays_open_with_any_card_of_a_full_hand() {
    let (mut rng, mut plan) = (SplitMix64::new(2), Vec::new());
    let mut counts = [0u64; 10];
    for seed in 0..3_000 {
        let g = Take5::new(params(4), seed, None).unwrap();
        g.plan_random_plays(&mut rng, &mut plan);
        for s in 0..4 {
            let first = plan[10 * s] as u8;
            counts[(g.hands[s] & (bit(first) - 1)).count_ones() as usize] += 1;
        }
    }
    // 9 degrees of freedom: above 27.9 once in a thousand.
    assert!(chi_square(&counts) < 27.9, "{counts:?}");
}

#[test]
fn hands_that_do_not_match_the_turn_get_no_plan() {
    let mut g = Take5::new(params(4), 3, None).unwrap();
    let card = g.hands[2].trailing_zeros() as u8;
    g.hands[2] &= !bit(card);
    g.unused |= bit(card);
    let (mut rng, mut plan) = (SplitMix64::new(1), vec![7; 40]);
    g.plan_random_plays(&mut rng, &mut plan);
    assert!(plan.is_empty());
    // The batch step falls back to one random action at a time.
    assert_eq!(g.random_steps(&mut rng, &mut plan), 1);
    assert_eq!(g.history.len(), 1);
}

#[test]
fn a_random_game_ends_and_conserves_nothing_twice() {
    let mut g = Take5::new(params(4), 9, None).unwrap();
    let mut rng = SplitMix64::new(1);
    let mut buf = Vec::new();
    let mut steps = 0;
    while !g.is_terminal() {
        buf.clear();
        g.legal_actions(&mut buf);
        let a = buf[rng.bounded(buf.len() as u64) as usize];
        g.apply_unchecked(a);
        steps += 1;
        assert!(steps < 100_000);
    }
    assert!(g.scores().iter().any(|&s| s >= 66));
    assert!(g.placements().unwrap().contains(&1));
}
