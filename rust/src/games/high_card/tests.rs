//! High Card's unit tests: the deal, a round, the end and loading.

use super::*;
use crate::game::{Outcome, Rules, StateJson};
use crate::games::parse_params;
use crate::params::Param;

/// The state the tests play: plain play, rule points not counted.
type HighCard = super::HighCard;

fn params(players: i64, given: &[(&str, Param)]) -> Params {
    parse_params::<HighCard>(
        players,
        given.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    )
    .unwrap()
}

fn ascending(top: u32) -> Vec<String> {
    (1..=top).map(|c| c.to_string()).collect()
}

#[test]
fn an_explicit_deck_is_dealt_one_card_at_a_time_from_seat_0() {
    let g = HighCard::new(params(2, &[]), 0, Some(&ascending(12))).unwrap();
    assert_eq!(g.hands[0], 1 << 1 | 1 << 3 | 1 << 5);
    assert_eq!(g.hands[1], 1 << 2 | 1 << 4 | 1 << 6);
    assert_eq!(&g.stock[..g.stock_len], &[7, 8, 9, 10, 11, 12]);
    assert_eq!(g.rng.state, 0, "an explicit deck uses no generator call");
}

#[test]
fn the_highest_card_wins_the_round_and_leads() {
    let mut g = HighCard::new(params(2, &[]), 0, Some(&ascending(12))).unwrap();
    g.apply_checked("play 5").unwrap();
    assert_eq!(g.current_player(), Some(1));
    g.apply_checked("play 2").unwrap();
    assert_eq!((g.scores(), g.leader, g.to_act), (vec![1, 0], 0, 0));
    assert!(g.apply_checked("play 2").is_err(), "seat 1's card");
}

#[test]
fn sum_scoring_adds_the_rounds_cards() {
    let p = params(2, &[("scoring", Param::Str("sum".into()))]);
    let mut g = HighCard::new(p, 0, Some(&ascending(12))).unwrap();
    g.apply_checked("play 1").unwrap();
    g.apply_checked("play 6").unwrap();
    assert_eq!(g.scores(), vec![0, 7]);
    assert_eq!(g.current_player(), Some(1));
}

#[test]
fn a_game_ends_after_six_rounds_and_loads_back_at_every_step() {
    let p = params(3, &[]);
    let mut g = HighCard::new(p, 9, None).unwrap();
    let mut buf = Vec::new();
    let mut plays = 0;
    while !g.is_terminal() {
        let back = HighCard::from_json(p, &g.to_json()).unwrap();
        assert_eq!(back.to_json(), g.to_json());
        buf.clear();
        g.legal_actions(&mut buf);
        g.apply_unchecked(buf[plays % buf.len()]);
        plays += 1;
    }
    assert_eq!(plays, 18);
    assert_eq!(g.scores().iter().sum::<i64>(), 6);
    assert!(g.placements().unwrap().contains(&1));
    let mut lost = g.to_json();
    lost["played"].as_array_mut().unwrap().pop();
    assert!(HighCard::from_json(p, &lost).is_err());
}
