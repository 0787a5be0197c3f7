//! Unit tests of 100 (the rules, the word removals, the bots' draws,
//! determinization).

use super::json::{card_code, codes, parse_card};
use super::search::ACE_TRIES;
use super::rules::*;
use super::*;
use crate::game::{NativeBots, Outcome, Rules, Search, StateJson};
use crate::params::{Param, Variant};
use crate::rng::SplitMix64;
use serde_json::json;

/// The state the tests play: plain play, rule points not counted.
type Hundred = super::Hundred;

fn params(players: i64, given: &[(&str, Param)]) -> Params {
    crate::games::parse_params::<Hundred>(
        players,
        given
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
    .unwrap()
}

fn game(players: i64, given: &[(&str, Param)]) -> Hundred {
    let p = params(players, given);
    Hundred::new(p, 0, Some(&p.canonical_deck())).unwrap()
}

fn set_hand(g: &mut Hundred, seat: usize, cards: &[&str]) {
    for (i, t) in cards.iter().enumerate() {
        g.hands[g.hand_start(seat) + i] = parse_card(t).unwrap();
    }
    g.hand_len[seat] = cards.len() as u8;
    g.refresh_hand_sets();
}

fn legal(g: &Hundred) -> Vec<String> {
    let mut out = Vec::new();
    g.legal_actions(&mut out);
    out.into_iter().map(Hundred::action_text).collect()
}

#[test]
fn card_codes_round_trip_in_canonical_order() {
    assert_eq!(card_code(0), "2C");
    assert_eq!(card_code(51), "AS");
    assert_eq!(card_code(card(R10, HEARTS)), "10H");
    for c in 0..52 {
        assert_eq!(parse_card(&card_code(c)), Some(c));
    }
    for bad in ["", "1H", "TH", "10h", "AX", "H"] {
        assert_eq!(parse_card(bad), None, "{bad}");
    }
}

#[test]
fn card_effects_follow_the_table() {
    let p = params(3, &[]);
    let v = |code: &str, value: i64| p.new_value(parse_card(code).unwrap(), value);
    assert_eq!(
        [
            v("2S", 30),
            v("2H", 30),
            v("4D", 30),
            v("5H", 3),
            v("5S", 30)
        ],
        [60, 32, 30, 0, 35]
    );
    assert_eq!(
        [
            v("9C", 30),
            v("10D", 3),
            v("JS", 6),
            v("QH", 90),
            v("QS", 20),
            v("KC", 99)
        ],
        [39, 100, 0, 0, 30, 99]
    );
    assert_eq!(v("AH", 99), 100);
    assert!(
        p.chooses_value(parse_card("AS").unwrap())
            && !p.chooses_value(parse_card("AD").unwrap())
    );
    let neg = params(3, &[("allow_negative", Param::Bool(true))]);
    assert_eq!(neg.new_value(parse_card("JH").unwrap(), 6), -4);
    assert_eq!(
        neg.new_value(parse_card("2S").unwrap(), NEGATIVE_FLOOR),
        NEGATIVE_FLOOR
    );
}

#[test]
fn actions_parse_canonically() {
    assert_eq!(
        Hundred::parse_action("play AS 7")
            .map(Hundred::action_text)
            .as_deref(),
        Some("play AS 7")
    );
    for bad in [
        "play AS 07",
        "play AS 101",
        "play  7H",
        "play 7H ",
        "Play 7H",
        "play 1H",
        "play AS -1",
    ] {
        assert_eq!(Hundred::parse_action(bad), None, "{bad}");
    }
}

#[test]
fn only_safe_cards_while_one_exists() {
    let mut g = game(3, &[]);
    g.current = 1;
    g.value = 95;
    set_hand(&mut g, 1, &["2S", "KD", "9C"]);
    assert_eq!(legal(&g), vec!["play KD"]);
    assert!(g
        .illegal_reason(Hundred::parse_action("play 9C").unwrap())
        .unwrap()
        .contains("bust"));
}

#[test]
fn elimination_puts_the_hand_under_the_pile() {
    let mut g = game(3, &[]);
    g.current = 0;
    g.value = 99;
    g.chips[0] = 1;
    set_hand(&mut g, 0, &["2H", "3H", "9S"]);
    g.pile[..2].copy_from_slice(&[parse_card("5C").unwrap(), parse_card("8D").unwrap()]);
    g.pile_len = 2;
    g.apply_checked("play 2H").unwrap();
    assert_eq!(
        codes(&g.pile[..g.pile_len as usize]),
        ["3H", "9S", "5C", "8D", "2H"]
    );
    assert_eq!((g.value, g.current, g.elim_len), (0, 1, 1));
}

#[test]
fn bad_configs_are_rejected() {
    let bad = |players: i64, given: &[(&str, Param)]| {
        crate::games::parse_params::<Hundred>(
            players,
            given
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
        .is_err()
    };
    assert!(bad(2, &[]));
    assert!(!bad(2, &[("allow_two_players", Param::Bool(true))]));
    assert!(bad(13, &[]));
    assert!(bad(3, &[("num_decks", Param::Int(3))]));
    assert!(bad(3, &[("num_decks", Param::Str("two".into()))]));
    assert!(bad(3, &[("first_dealer", Param::Int(3))]));
    assert!(bad(
        12,
        &[("num_decks", Param::Int(1)), ("hand_size", Param::Int(5))]
    ));
    assert!(!bad(
        12,
        &[("num_decks", Param::Int(1)), ("hand_size", Param::Int(4))]
    ));
    assert!(bad(3, &[("hand_size", Param::Int(i64::MAX))]));
    assert!(bad(3, &[("chips", Param::Bool(true))]));
}

fn stock(g: &Hundred) -> Vec<String> {
    g.stock_codes()
}

#[test]
fn an_empty_stock_is_rebuilt_under_the_top_card() {
    let mut g = game(3, &[]);
    set_hand(&mut g, 1, &["2D", "KS", "QD"]);
    g.value = 20;
    g.stock_len = 0;
    for (i, t) in ["3C", "9D", "KH", "5S"].iter().enumerate() {
        g.pile[i] = parse_card(t).unwrap();
    }
    g.pile_len = 4;
    // SplitMix64(1) shuffles [3C, 9D, KH, 5S] into [KH, 3C, 5S, 9D] (HU-T11).
    g.rng = SplitMix64::new(1);
    g.apply_checked("play 2D").unwrap();
    assert_eq!(codes(g.hand(1)), ["KS", "QD", "KH"]);
    assert_eq!(stock(&g), ["3C", "5S", "9D"]);
    assert_eq!(codes(&g.pile[..g.pile_len as usize]), ["2D"]);
    assert_eq!((g.value, g.current), (22, 2));
}

#[test]
fn redeal_is_dealt_by_the_buster() {
    let mut g = game(3, &[("bust_rule", Param::Str("redeal".into()))]);
    set_hand(&mut g, 1, &["3D", "5C", "9H"]);
    g.value = 98;
    g.apply_checked("play 9H").unwrap();
    assert_eq!((g.dealer, g.deal_number, g.current, g.dir), (1, 2, 2, 1));
    assert_eq!(
        (g.chips[1], g.value, g.pile_len, g.stock_len),
        (2, 0, 0, 43)
    );
    assert_eq!(g.hand_len[..3], [3, 3, 3]);
}

#[test]
fn void_keeps_the_value_and_the_card() {
    let mut g = game(3, &[("bust_rule", Param::Str("void".into()))]);
    set_hand(&mut g, 1, &["7H", "6S", "QC"]);
    g.value = 96;
    g.apply_checked("play 6S").unwrap();
    assert_eq!((g.chips[1], g.value, g.current), (2, 96, 2));
    assert_eq!(card_code(g.pile[g.pile_len as usize - 1]), "6S");
}

#[test]
fn cap_shares_placements_on_equal_chips() {
    let mut g = game(3, &[("max_actions", Param::Int(1))]);
    g.chips[..3].copy_from_slice(&[2, 2, 1]);
    set_hand(&mut g, 1, &["KC", "KD", "KH"]);
    g.apply_checked("play KC").unwrap();
    assert!(g.is_terminal());
    assert_eq!(g.placements(), Some(vec![1, 1, 3]));
    assert_eq!(g.result_json()["reason"], "CAP");
}

#[test]
fn loading_rejects_lost_cards_and_bad_values() {
    let p = params(3, &[]);
    let g = Hundred::new(p, 5, None).unwrap();
    let good = g.to_json();
    assert!(Hundred::from_json(p, &good).is_ok());
    let mut lost = good.clone();
    lost["stock"].as_array_mut().unwrap().pop();
    assert!(Hundred::from_json(p, &lost).is_err());
    for (key, bad) in [
        ("value", json!(101)),
        ("dir", json!(0)),
        ("current", json!(3)),
    ] {
        let mut v = good.clone();
        v[key] = bad;
        assert!(Hundred::from_json(p, &v).is_err(), "{key}");
    }
}

#[test]
fn random_games_end_within_the_cap_and_conserve_cards() {
    for players in [2, 3, 7, 12] {
        let p = params(players, &[("allow_two_players", Param::Bool(true))]);
        let mut g = Hundred::new(p, players as u64, None).unwrap();
        let mut rng = SplitMix64::new(1);
        let mut buf = Vec::new();
        while !g.is_terminal() {
            buf.clear();
            g.legal_actions(&mut buf);
            g.apply_unchecked(buf[rng.bounded(buf.len() as u64) as usize]);
            assert!(g.value <= LIMIT && g.value >= 0);
            g.check_consistency().unwrap();
            assert_derived_fields(&g);
        }
        assert!(g.action_count <= p.max_actions);
        let again = Hundred::from_json(p, &g.to_json()).unwrap();
        assert_eq!(again.to_json(), g.to_json());
    }
}

/// The fields kept up to date along with others hold what they are derived from.
fn assert_derived_fields(g: &Hundred) {
    let mut fresh = g.clone();
    fresh.refresh_hand_sets();
    fresh.set_active(g.active);
    assert_eq!(
        (g.hand_sets, g.next_seat),
        (fresh.hand_sets, fresh.next_seat)
    );
    for seat in (0..g.n()).filter(|&s| g.marked >> s & 1 == 0) {
        let start = g.hand_start(seat);
        let busts = &g.slot_bust[start..start + g.hand_len[seat] as usize];
        assert!(busts.iter().all(|&b| b == NO_BUST));
    }
}

/// Plays a heuristic game, calling `check` on the state before every action and at the end.
fn along_a_game(p: Params, seed: u64, mut check: impl FnMut(&Hundred)) {
    let mut g = Hundred::new(p, seed, None).unwrap();
    let mut rng = SplitMix64::new(seed);
    let mut buf = Vec::new();
    while !g.is_terminal() {
        check(&g);
        let a = g.heuristic_action(&mut rng, &mut buf);
        g.apply_unchecked(a);
    }
    check(&g);
}

/// The cards of the other seats' slots of generation `gen`, with the stock if it is of that generation.
fn generation_cards(g: &Hundred, seat: usize, gen: u8) -> [usize; 52] {
    let mut counts = [0; 52];
    for s in (0..g.n()).filter(|&s| s != seat) {
        let start = g.hand_start(s);
        for i in start..start + g.hand_len[s] as usize {
            if g.slot_gen[i] == gen {
                counts[g.hands[i] as usize] += 1;
            }
        }
    }
    if gen == g.generation {
        for &c in &g.stock[..g.stock_len as usize] {
            counts[c as usize] += 1;
        }
    }
    counts
}

#[test]
fn resample_keeps_what_the_seat_knows() {
    for (players, given) in [
        (3, vec![]),
        (5, vec![]),
        (8, vec![]),
        (4, vec![("bust_rule", Param::Str("redeal".into()))]),
    ] {
        let p = params(players, &given);
        let mut varied = 0;
        let mut step = 0;
        along_a_game(p, players as u64, |g| {
            step += 1;
            if step % 4 != 1 && !g.is_terminal() {
                return;
            }
            let mut present = [false; 256];
            present[g.generation as usize] = true;
            for &gen in &g.slot_gen {
                present[gen as usize] = true;
            }
            for seat in 0..g.n() {
                let r = g
                    .resample(seat, &mut SplitMix64::new(seat as u64 + 1))
                    .unwrap();
                assert_eq!(r.observation(seat), g.observation(seat));
                if g.current_player() == Some(seat) {
                    assert_eq!(legal(&r), legal(g));
                }
                r.check_consistency().unwrap();
                assert_derived_fields(&r);
                let again = Hundred::from_json(p, &r.to_json()).unwrap();
                assert_eq!(again.to_json(), r.to_json());
                assert_ne!(r.rng.state, g.rng.state);
                // Each generation's cards stay in that generation's places ...
                for gen in (0..=255u8).filter(|&gen| present[gen as usize]) {
                    assert_eq!(
                        generation_cards(&r, seat, gen),
                        generation_cards(g, seat, gen)
                    );
                }
                // ... and every card held through a forced bust busts at that value.
                for i in 0..MAX_CARDS {
                    assert_eq!(
                        (r.slot_gen[i], r.slot_bust[i]),
                        (g.slot_gen[i], g.slot_bust[i])
                    );
                    let s = i / g.stride;
                    if s < g.n()
                        && i % g.stride < g.hand_len[s] as usize
                        && g.slot_bust[i] != NO_BUST
                    {
                        assert!(r.busts_at(r.hands[i], r.slot_bust[i]));
                    }
                }
                varied += usize::from(r.stock != g.stock);
            }
        });
        assert!(varied > 0);
    }
}

#[test]
fn after_a_rebuild_the_stock_holds_only_cards_that_were_on_the_pile() {
    let p = params(4, &[]);
    let mut prev: Option<Hundred> = None;
    let mut rebuilt: Option<[usize; 52]> = None;
    let mut checked = 0;
    along_a_game(p, 3, |g| {
        if let Some(before) = &prev {
            if g.generation != before.generation {
                // The pile before the play that emptied the stock: every card
                // under the new top went into the stock.
                let mut pile = [0; 52];
                for &c in &before.pile[..before.pile_len as usize] {
                    pile[c as usize] += 1;
                }
                rebuilt = Some(pile);
            }
        }
        if let Some(pile) = rebuilt {
            for seat in 0..g.n() {
                for k in 0..5 {
                    let r = g.resample(seat, &mut SplitMix64::new(k)).unwrap();
                    let mut stock = [0; 52];
                    for &c in &r.stock[..r.stock_len as usize] {
                        stock[c as usize] += 1;
                    }
                    assert!((0..52).all(|c| stock[c] <= pile[c]));
                    checked += 1;
                }
            }
        }
        prev = Some(g.clone());
    });
    assert!(checked > 0);
}

#[test]
fn a_forced_bust_shows_that_the_other_cards_bust_too() {
    let mut g = game(3, &[]);
    g.value = 96;
    set_hand(&mut g, 1, &["7H", "6S", "QC"]);
    g.apply_checked("play 6S").unwrap();
    // Seat 1 keeps 7H and QC, both busting at 96, and draws a card.
    let start = g.hand_start(1);
    assert_eq!(g.slot_bust[start..start + 3], [96, 96, NO_BUST]);
    for k in 0..50 {
        let r = g.resample(0, &mut SplitMix64::new(k)).unwrap();
        assert!(
            r.hand(1)[..2].iter().all(|&c| r.busts_at(c, 96)),
            "{:?}",
            codes(r.hand(1))
        );
    }
    // Playing a card that busts at 96 could be either kind: the others
    // cannot tell which slot is left, so no constraint remains.
    let mut a = g.clone();
    set_hand(&mut a, 1, &["7H", "QC", "9D"]);
    a.current = 1;
    a.apply_checked("play 9D").unwrap();
    assert_eq!(a.slot_bust[start..start + 3], [NO_BUST, NO_BUST, NO_BUST]);
    // A card that does not bust at 96 was the new one: both constraints stay.
    let mut b = g.clone();
    set_hand(&mut b, 1, &["7H", "QC", "KD"]);
    b.current = 1;
    b.apply_checked("play KD").unwrap();
    assert_eq!(b.slot_bust[start..start + 3], [96, 96, NO_BUST]);
}

#[test]
fn sampling_from_an_observation_shows_that_observation() {
    let p = params(5, &[]);
    let mut k = 0;
    along_a_game(p, 11, |g| {
        for seat in 0..g.n() {
            let obs = g.observation(seat);
            k += 1;
            let a = g
                .sample_from_observation(&obs, &mut SplitMix64::new(k))
                .unwrap();
            let b = g
                .sample_from_observation(&obs, &mut SplitMix64::new(k + 1000))
                .unwrap();
            assert_eq!(a.observation(seat), obs);
            assert_ne!(a.to_json(), b.to_json());
            if g.current_player() == Some(seat) {
                assert_eq!(legal(&a), legal(g));
            }
        }
    });
    let mut wrong = game(3, &[]).observation(0);
    wrong["game"] = json!("take5");
    let g = game(3, &[]);
    assert!(g
        .sample_from_observation(&wrong, &mut SplitMix64::new(1))
        .is_err());
}

/// The word removals leave the hands, generations, marks and sets as the
/// slot by slot ones do.
#[test]
fn word_removals_match_slot_removals() {
    for given in [
        vec![],
        vec![("num_decks", Param::Int(2))],
        vec![("red_ace", Param::Str("choose".into()))],
    ] {
        for seed in 0..40 {
            let mut g = Hundred::new(params(5, &given), seed, None).unwrap();
            let mut rng = SplitMix64::new(seed);
            while !g.is_terminal() {
                let a = g.random_action(&mut rng, &mut Vec::new());
                let (seat, c) = (g.current as usize, (a % VALUE_STEP) as u8);
                let (mut by_words, mut by_slots) = (g.clone(), g.clone());
                if g.marked >> seat & 1 != 0 {
                    by_words.remove_marked_word(seat, c);
                    by_slots.remove_marked(seat, c);
                } else {
                    by_words.remove_from_word(seat, c);
                    by_slots.remove_from_slots(seat, c);
                }
                let parts = |h: &Hundred| {
                    (
                        h.hands,
                        h.slot_gen,
                        h.slot_bust,
                        h.hand_len,
                        h.hand_sets,
                        h.marked,
                    )
                };
                assert_eq!(parts(&by_words), parts(&by_slots));
                g.apply_unchecked(a);
            }
        }
    }
}

#[test]
fn random_actions_are_legal_and_uniform() {
    for given in [
        vec![("red_ace", Param::Str("choose".into()))],
        vec![("allow_voluntary_bust", Param::Bool(true))],
        vec![("num_decks", Param::Int(2)), ("hand_size", Param::Int(5))],
    ] {
        along_a_game(params(4, &given), 7, |g| {
            if g.is_terminal() {
                return;
            }
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            let mut rng = SplitMix64::new(g.action_count);
            for _ in 0..20 {
                let a = g.random_action(&mut rng, &mut Vec::new());
                assert!(legal.contains(&a), "{}", Hundred::action_text(a));
            }
        });
    }
    // 101 values of AC and KD are legal (9H busts): each drawn about 200 times.
    let mut g = game(3, &[]);
    g.value = 95;
    set_hand(&mut g, 1, &["AC", "9H", "KD"]);
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let mut rng = SplitMix64::new(3);
    let mut counts = std::collections::HashMap::new();
    for _ in 0..200 * legal.len() {
        *counts
            .entry(g.random_action(&mut rng, &mut Vec::new()))
            .or_insert(0) += 1;
    }
    assert_eq!(counts.len(), legal.len());
    assert!(counts.values().all(|&k| (130..=270).contains(&k)));
}

#[test]
fn search_tries_a_few_values_of_an_ace() {
    let mut g = game(3, &[]);
    g.value = 98;
    set_hand(&mut g, 1, &["AC", "9H", "8H"]);
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    assert_eq!(legal.len(), 101);
    g.search_candidates(&mut legal);
    assert_eq!(legal.len(), ACE_TRIES.len());
    assert!(legal.iter().all(|&a| g.illegal_reason(a).is_none()));
}
