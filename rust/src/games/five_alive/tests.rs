//! 5 Alive's unit tests (the deck, the rules' corner cases, the bots' draws,
//! the round's replay and determinization).

use super::{BombResponse, Hand, Params, Pile, Seats, BOMB, FLIP, KINDS};
use super::json::*;
use super::search::*;
use super::*;
use crate::game::{NativeBots, Outcome, Rules, Search, StateJson};
use crate::params::{Param, Variant};
use crate::rng::SplitMix64;

/// The state the tests play: plain play, rule points not counted.
type FiveAlive = super::FiveAlive;

fn params(players: i64, given: &[(&str, Param)]) -> Params {
    crate::games::parse_params::<FiveAlive>(
        players,
        given
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
    .unwrap()
}

fn game(players: i64) -> FiveAlive {
    FiveAlive::new(
        params(players, &[]),
        0,
        Some(&params(players, &[]).canonical_deck()),
    )
    .unwrap()
}

fn pile(codes: &[&str]) -> Pile {
    let cards: Vec<u8> = codes.iter().map(|c| card_of(c).unwrap()).collect();
    Pile::from_slice(&cards)
}

fn hand(codes: &[&str]) -> Hand {
    Hand::from_slice(pile(codes).as_slice())
}

fn legal(g: &FiveAlive) -> Vec<String> {
    let mut out = Vec::new();
    g.legal_actions(&mut out);
    out.into_iter().map(FiveAlive::action_text).collect()
}

#[test]
fn decks_have_77_and_75_cards() {
    assert_eq!(params(2, &[]).deck_size(), 77);
    assert_eq!(
        params(2, &[("deck_profile", Param::Str("alt75".into()))]).deck_size(),
        75
    );
}

#[test]
fn cross_key_checks_reject_bad_configs() {
    let bad = |players: i64, given: Vec<(&str, Param)>| {
        crate::games::parse_params::<FiveAlive>(
            players,
            given.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        )
        .is_err()
    };
    assert!(bad(7, vec![]));
    assert!(!bad(7, vec![("allow_seven_players", Param::Bool(true))]));
    assert!(bad(3, vec![("team_play", Param::Bool(true))]));
    assert!(bad(
        4,
        vec![
            ("team_play", Param::Bool(true)),
            ("sudden_death", Param::Bool(true))
        ]
    ));
    assert!(bad(3, vec![("first_dealer", Param::Int(3))]));
    assert!(bad(6, vec![("hand_size", Param::Int(13))]));
    assert!(bad(2, vec![("lives", Param::Bool(true))]));
}

#[test]
fn explicit_deck_deals_from_the_dealers_left() {
    let g = game(3);
    // Canonical deck: eight 0s, eight 1s, ... Seat 1 is dealt first.
    assert_eq!(
        codes_of(&g.hands[1].pile),
        ["0", "0", "0", "1", "1", "1", "2", "2", "3", "3"]
    );
    assert_eq!(g.current, 1);
    assert_eq!(g.draw_codes().len(), 47);
    assert_eq!(g.rng.state, 0, "an explicit deck uses no generator call");
}

fn codes_of(p: &Pile) -> Vec<&'static str> {
    FiveAlive::codes(p.as_slice())
}

#[test]
fn only_a_player_who_cannot_play_flips() {
    let mut g = game(3);
    g.current = 0;
    g.total = 19;
    g.hands[0] = hand(&["3", "5", "7"]);
    assert_eq!(legal(&g), ["flip"]);
    g.hands[0] = hand(&["3", "0", "=21", "2"]);
    assert_eq!(legal(&g), ["play 0", "play 2", "play =21"]);
}

#[test]
fn skip_with_two_players_gives_another_turn() {
    let mut g = game(2);
    g.current = 0;
    g.hands[0] = hand(&["SKIP", "2"]);
    g.apply_checked("play SKIP").unwrap();
    assert_eq!(g.current, 0);
}

#[test]
fn rebuild_keeps_the_top_discard() {
    let mut g = game(3);
    g.draw = Pile::EMPTY;
    g.discard = pile(&["5", "D2"]);
    g.draw(1);
    assert_eq!(codes_of(&g.discard), ["D2"]);
    assert_eq!(*codes_of(&g.hands[1].pile).last().unwrap(), "5");
    g.draw(2);
    assert_eq!(g.hands[2].len(), 10, "nothing left to draw");
}

#[test]
fn elimination_puts_the_hand_under_the_discards() {
    let mut g = game(3);
    g.lives[1] = 1;
    g.hands[1] = hand(&["5", "6"]);
    g.discard = pile(&["3"]);
    let mut batch = Seats::default();
    g.lose_life(1, &mut batch);
    assert_eq!(codes_of(&g.discard), ["5", "6", "3"]);
    assert_eq!(batch.as_slice(), [1]);
}

#[test]
fn actions_parse_canonically_only() {
    for text in [
        "play 0",
        "play =21",
        "play BOMB",
        "flip",
        "respond 0",
        "decline",
    ] {
        assert_eq!(
            FiveAlive::action_text(FiveAlive::parse_action(text).unwrap()),
            text
        );
    }
    for bad in [
        "play 8",
        "play bomb",
        "Play 1",
        "play  1",
        "flip ",
        "respond",
        "play",
    ] {
        assert_eq!(FiveAlive::parse_action(bad), None, "{bad:?}");
    }
}

#[test]
fn random_games_end_and_round_trip() {
    let p = params(4, &[("bomb_response", Param::Str("optional".into()))]);
    let mut rng = SplitMix64::new(3);
    let mut buf = Vec::new();
    for seed in 0..20 {
        let mut g = FiveAlive::new(p, seed, None).unwrap();
        while !g.is_terminal() {
            buf.clear();
            g.legal_actions(&mut buf);
            g.apply_unchecked(buf[rng.bounded(buf.len() as u64) as usize]);
            assert!(g.total <= 21);
        }
        let back = FiveAlive::from_json(p, &g.to_json()).unwrap();
        assert_eq!(back.to_json(), g.to_json());
        assert!(g.placements().unwrap().contains(&1));
    }
}

#[test]
fn the_random_bot_draws_every_legal_action_evenly() {
    let p = params(3, &[("bomb_response", Param::Str("optional".into()))]);
    let mut rng = SplitMix64::new(4);
    let mut buf = Vec::new();
    let mut legal_list = Vec::new();
    walk(p, 5, |g, _| {
        if g.is_terminal() {
            return;
        }
        legal_list.clear();
        g.legal_actions(&mut legal_list);
        let mut seen = vec![0u32; legal_list.len()];
        let draws = 200 * legal_list.len() as u32;
        for _ in 0..draws {
            let a = g.random_action(&mut rng, &mut buf);
            let i = legal_list.iter().position(|&l| l == a);
            seen[i.expect("the random bot drew an illegal action")] += 1;
        }
        assert!(seen.iter().all(|&c| c > 140 && c < 260), "{seen:?}");
    });
}

/// Plays heuristic and random moves mixed; calls `visit` on every state.
fn walk(p: Params, seed: u64, mut visit: impl FnMut(&FiveAlive, Option<&FiveAlive>)) {
    let mut g = FiveAlive::new(p, seed, None).unwrap();
    let mut rng = SplitMix64::new(seed ^ 77);
    let mut buf = Vec::new();
    visit(&g, None);
    while !g.is_terminal() {
        let before = g.clone();
        let a = if rng.next_u64().is_multiple_of(3) {
            g.random_action(&mut rng, &mut buf)
        } else {
            g.heuristic_action(&mut rng, &mut buf)
        };
        g.apply_unchecked(a);
        visit(&g, Some(&before));
    }
}

fn variants() -> Vec<Params> {
    let b = Param::Bool;
    let s = |x: &str| Param::Str(x.into());
    let mut out = Vec::new();
    for players in 2..=7 {
        let mut given = vec![("lives", Param::Int(2))];
        if players == 7 {
            given.push(("allow_seven_players", b(true)));
        }
        out.push(params(players, &given));
        given.push(("bomb_response", s("optional")));
        given.push(("flip_ends_turn", b(false)));
        given.push(("reset_direction_each_round", b(false)));
        given.push(("redeal_deal_order", s("play_direction")));
        out.push(params(players, &given));
    }
    out.push(params(3, &[("sudden_death", b(true))]));
    out.push(params(
        6,
        &[
            ("team_play", b(true)),
            ("team_wilds_hit_teammates", b(false)),
        ],
    ));
    out.push(params(
        5,
        &[
            ("allow_voluntary_flip", b(true)),
            ("hand_size", Param::Int(15)),
        ],
    ));
    out
}

/// Can the hidden hands be the cards they are under `k`?
fn fits(g: &FiveAlive, seat: usize, k: &Knowledge) -> bool {
    (0..g.n()).filter(|&s| s != seat).all(|s| {
        let mut slots = k.slots[s];
        let mut cards: Vec<u8> = g.hands[s].as_slice().to_vec();
        // Place the cards that fit the fewest slots first.
        cards.sort_by_key(|&c| {
            slots
                .as_slice()
                .iter()
                .filter(|&&m| m >> c & 1 == 1)
                .count()
        });
        slots.len as usize == cards.len() && cards.iter().all(|&c| slots.take(c))
    }) && k.draw_from.is_none_or(|from| {
        let mut counts = [0u8; KINDS];
        g.draw
            .as_slice()
            .iter()
            .for_each(|&c| counts[c as usize] += 1);
        (0..KINDS).all(|c| counts[c] <= from[c])
    })
}

#[test]
fn the_rounds_replay_explains_every_state() {
    let (mut states, mut lost) = (0, 0);
    for p in variants() {
        for seed in 0..3 {
            walk(p, seed, |g, _| {
                if g.is_terminal() {
                    return;
                }
                for seat in 0..g.n() {
                    states += 1;
                    let known = g.knowledge(seat);
                    if known.is_empty() {
                        lost += 1;
                        continue;
                    }
                    assert!(known.iter().any(|k| fits(g, seat, k)), "{p:?} seed {seed}");
                }
            });
        }
    }
    // Only a forced Bomb with many responders in a long round can leave
    // too many possibilities open (the resample then keeps to the counts).
    eprintln!("{lost} of {states} views without a replay");
    assert!(lost * 1000 <= states, "{lost} of {states}");
}

fn counts(cards: &[u8]) -> [u8; KINDS] {
    let mut out = [0u8; KINDS];
    cards.iter().for_each(|&c| out[c as usize] += 1);
    out
}

fn all_cards(g: &FiveAlive) -> [u8; KINDS] {
    let mut all: Vec<u8> = g.draw.as_slice().to_vec();
    all.extend_from_slice(g.discard.as_slice());
    (0..g.n()).for_each(|s| all.extend_from_slice(g.hands[s].as_slice()));
    counts(&all)
}

#[test]
fn resample_keeps_the_view_the_cards_and_what_was_shown() {
    let mut rng = SplitMix64::new(1);
    let mut shown = [0; 3];
    for p in variants() {
        for seed in 0..2 {
            walk(p, seed, |g, before| {
                let last = g.history.last().copied();
                let shows = matches!(last, Some(FLIP)) || last == Some(Action::from(BOMB));
                let rebuilt = before.is_some_and(|b| g.discard.len < b.discard.len);
                // Every fourth state, and every one where something was shown.
                if !shows && !rebuilt && !g.history.len().is_multiple_of(4) {
                    return;
                }
                for seat in 0..g.n() {
                    let r = g.resample(seat, &mut rng).unwrap();
                    assert_eq!(r.observation(seat), g.observation(seat));
                    assert_eq!(all_cards(&r), all_cards(g));
                    if g.current_player() == Some(seat) {
                        assert_eq!(legal(&r), legal(g));
                    }
                    let back = FiveAlive::from_json(p, &r.to_json()).unwrap();
                    assert_eq!(back.to_json(), r.to_json());
                    let (Some(b), Some(a)) = (before, last) else {
                        continue;
                    };
                    if g.is_terminal() || g.round != b.round || g.knowledge(seat).is_empty() {
                        continue;
                    }
                    let q = b.current as usize;
                    // A forced flip: the flipper holds only numbers over 21 - total.
                    if a == FLIP && !p.allow_voluntary_flip && q != seat && g.is_active(q) {
                        let kinds = flip_kinds(b.total);
                        assert!(r.hands[q].as_slice().iter().all(|&c| kinds >> c & 1 == 1));
                        shown[0] += 1;
                    }
                    // A forced Bomb: who lost a life to it holds no 0.
                    if a == Action::from(BOMB) && p.bomb_response == BombResponse::Forced && !p.team_play {
                        for o in (0..g.n()).filter(|&o| o != seat && o != q && g.is_active(o)) {
                            if g.lives[o] < b.lives[o] {
                                assert!(!r.hands[o].contains(0));
                                shown[1] += 1;
                            }
                        }
                    }
                    // A rebuilt draw pile holds only cards of the old discard pile
                    // (when the observation shows them: not those of eliminated hands).
                    let seen = g.knowledge(seat).iter().all(|k| k.draw_from.is_some());
                    if g.discard.len < b.discard.len && seen {
                        let from = counts(b.discard.as_slice());
                        let draw = counts(r.draw.as_slice());
                        assert!((0..KINDS).all(|k| draw[k] <= from[k]));
                        shown[2] += 1;
                    }
                }
            });
        }
    }
    eprintln!(
        "checked: {} flips, {} Bomb losses, {} rebuilds",
        shown[0], shown[1], shown[2]
    );
    assert!(shown.iter().all(|&s| s > 0));
}

#[test]
fn hidden_cards_vary_and_the_seats_own_do_not() {
    let g = FiveAlive::new(params(4, &[]), 3, None).unwrap();
    let mut rng = SplitMix64::new(2);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let r = g.resample(0, &mut rng).unwrap();
        assert_eq!(r.hands[0], g.hands[0]);
        seen.insert(format!(
            "{:?}",
            (r.hands[1], r.hands[2], r.hands[3], r.draw)
        ));
        assert_ne!(r.rng, g.rng);
    }
    assert_eq!(seen.len(), 20);
}

#[test]
fn a_state_sampled_from_an_observation_shows_it() {
    let p = params(4, &[]);
    let mut rng = SplitMix64::new(4);
    walk(p, 5, |g, _| {
        for seat in 0..4 {
            let obs = g.observation(seat);
            let s = g.sample_from_observation(&obs, &mut rng).unwrap();
            assert_eq!(s.observation(seat), obs);
            assert_eq!(s.history.len() as u64, g.action_count);
            assert_eq!(s.round_start, g.round_start);
        }
    });
    let mut other = g_obs(3);
    other["seat"] = json!(9);
    assert!(FiveAlive::new(p, 0, None)
        .unwrap()
        .sample_from_observation(&other, &mut rng)
        .is_err());
}

fn g_obs(players: i64) -> Value {
    FiveAlive::new(params(players, &[]), 0, None)
        .unwrap()
        .observation(0)
}
