//! Back Alley's unit tests (the deal, bids, tricks and scoring, the bots,
//! determinization).

use super::json::*;
use super::rules::*;
use super::search::GAME_WIN_VALUE;
use super::*;
use crate::game::{NativeBots, Outcome, Rules, Search, StateJson};
use crate::params::{Param, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::json;

/// The state the tests play: plain play, rule points not counted.
type BackAlley = super::BackAlley;

fn params(pairs: &[(&str, Param)]) -> Params {
    crate::games::parse_params::<BackAlley>(
        4,
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
    .unwrap()
}

fn codes(cards: &[&str]) -> u64 {
    cards.iter().fold(0, |s, c| s | 1 << parse_card(c).unwrap())
}

/// A deck whose top cards are `top`, the rest in canonical order.
fn deck(top: &[&str]) -> Vec<String> {
    let mut d: Vec<String> = top.iter().map(|s| s.to_string()).collect();
    d.extend(
        (0..54)
            .map(card_text)
            .filter(|c| !top.contains(&c.as_str())),
    );
    d
}

fn legal(g: &BackAlley) -> Vec<String> {
    let mut out = Vec::new();
    g.legal_actions(&mut out);
    out.into_iter().map(BackAlley::action_text).collect()
}

#[test]
fn card_codes_round_trip_in_canonical_order() {
    let all: Vec<String> = (0..54).map(card_text).collect();
    assert_eq!(&all[..3], ["2C", "3C", "4C"]);
    assert_eq!(&all[50..], ["KS", "AS", "BB", "LB"]);
    for (i, c) in all.iter().enumerate() {
        assert_eq!(parse_card(c), Some(i as u8));
    }
    for bad in ["TH", "1H", "10", "H", "bb", "10h", "", "AX"] {
        assert_eq!(parse_card(bad), None, "{bad}");
    }
}

#[test]
fn default_schedule_is_13_down_to_1_and_back() {
    let p = params(&[]);
    assert_eq!(p.schedule.len(), 25);
    assert_eq!((p.schedule[0], p.schedule[12], p.schedule[24]), (13, 1, 13));
    assert_eq!(named_schedule("13-1-1-13").len(), 26);
    assert_eq!(named_schedule("1-13-13-1")[12..14], [13, 13]);
}

#[test]
fn variant_keys_are_strict() {
    let bad = |k: &str, v: Param| crate::games::parse_params::<BackAlley>(4, vec![(k.into(), v)]).is_err();
    assert!(bad("schedule", Param::List(vec![])));
    assert!(bad("schedule", Param::List(vec![Param::Int(14)])));
    assert!(bad("schedule", Param::List(vec![Param::Bool(true)])));
    assert!(bad("first_dealer", Param::Int(4)));
    assert!(bad("first_dealer", Param::Bool(false)));
    assert!(bad("max_consecutive_all_pass", Param::Int(0)));
    assert!(bad("blooper_lead_rules", Param::Int(1)));
    assert!(crate::games::parse_params::<BackAlley>(3, vec![]).is_err());
    let p = params(&[("schedule", Param::List(vec![Param::Int(2), Param::Int(1)]))]);
    assert_eq!(p.to_json()["schedule"], json!([2, 1]));
}

#[test]
fn ba_s1_joker_exchange_takes_the_top_stock_card() {
    let p = params(&[("schedule", Param::List(vec![Param::Int(2)]))]);
    let d = deck(&[
        "BB", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "LB", "9H", "10H",
    ]);
    let g = BackAlley::new(p, 0, Some(&d)).unwrap();
    assert_eq!(g.hands[1], codes(&["5H", "9H"]));
    assert_eq!(
        g.exchange,
        Some(Exchange {
            seat: 1,
            discarded: BB,
            drawn: parse_card("9H").unwrap()
        })
    );
    assert_eq!(g.trump, NO_TRUMP);
    assert_eq!(g.stock_len, 44);
    assert_eq!(g.stock[0], parse_card("10H").unwrap());
}

#[test]
fn ba_s20_turn_next_moves_jokers_under_the_stock() {
    let p = params(&[
        ("schedule", Param::List(vec![Param::Int(1)])),
        ("first_dealer", Param::Int(3)),
        ("joker_upcard", Param::Str("turn_next".into())),
    ]);
    let g = BackAlley::new(
        p,
        0,
        Some(&deck(&["AS", "KS", "QS", "JS", "LB", "BB", "7D", "8D"])),
    )
    .unwrap();
    assert_eq!(card_text(g.upcard), "7D");
    assert_eq!(trump_text(g.trump), "D");
    assert_eq!(g.stock_len, 49);
    assert_eq!(card_text(g.stock[0]), "8D");
    assert_eq!(&g.stock()[47..], [LB, BB]);
}

#[test]
fn bid_lists_follow_hand_size() {
    let g = BackAlley::new(params(&[]), 3, None).unwrap();
    let l = legal(&g);
    assert_eq!(l.len(), 14);
    assert_eq!(
        (l[0].as_str(), l[12].as_str(), l[13].as_str()),
        ("bid pass", "bid 12", "bid board")
    );
    assert!(g
        .illegal_reason(BackAlley::parse_action("bid 13").unwrap())
        .is_some());
}

#[test]
fn blooper_leads_force_highest_and_lowest_trumps() {
    assert_eq!(highest_trump(codes(&["LB", "AS", "2S"])), codes(&["LB"]));
    assert_eq!(lowest_trump(codes(&["BB", "4C", "AC"])), codes(&["4C"]));
    assert_eq!(lowest_trump(codes(&["BB"])), codes(&["BB"]));
    assert_eq!(lowest_trump(codes(&["BB", "LB"])), codes(&["LB"]));
}

/// A 3-card deal with trump hearts and the given bids made (dealer S3).
fn after_bids(bids: &[&str], pairs: &[(&str, Param)]) -> BackAlley {
    let mut all = vec![
        ("schedule", Param::List(vec![Param::Int(3)])),
        ("first_dealer", Param::Int(3)),
    ];
    all.extend(pairs.iter().cloned());
    let d = deck(&[
        "2H", "2C", "2D", "5C", "KS", "3C", "3D", "6C", "LB", "4C", "4D", "7C", "3H",
    ]);
    let mut g = BackAlley::new(params(&all), 0, Some(&d)).unwrap();
    for b in bids {
        g.apply_checked(b).unwrap();
    }
    g
}

#[test]
fn trumps_beat_the_led_suit_and_off_suits_never_win() {
    let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
    let c = |t: &str| parse_card(t).unwrap();
    assert_eq!(g.trick_winner(0, &[c("2C"), c("AS"), c("KC"), c("3C")]), 2);
    assert_eq!(g.trick_winner(1, &[c("AC"), c("2H"), c("KC"), c("LB")]), 0);
    assert_eq!(g.trick_winner(2, &[c("AH"), c("LB"), c("BB"), c("KH")]), 0);
}

#[test]
fn lead_restriction_exemption_and_only_trumps() {
    let mut out = Vec::new();
    let g = after_bids(&["bid 2", "bid pass", "bid pass", "bid pass"], &[]);
    g.legal_actions(&mut out);
    assert_eq!(out, vec![parse_card("KS").unwrap() as Action]);
    let g = after_bids(&["bid board", "bid pass", "bid pass", "bid pass"], &[]);
    out.clear();
    g.legal_actions(&mut out);
    assert_eq!(out.len(), 3);
    let g = after_bids(
        &["bid board", "bid pass", "bid pass", "bid pass"],
        &[("board_trump_lead_exemption", Param::Str("none".into()))],
    );
    assert!(g
        .illegal_reason(parse_card("LB").unwrap() as Action)
        .unwrap()
        .contains("trumps may not be led"));
}

#[test]
fn first_leader_and_board_levels() {
    let g = after_bids(&["bid board", "bid board", "bid 1", "bid board"], &[]);
    assert_eq!(g.to_act, 3);
    assert_eq!((g.board_level(0), g.board_level(1)), (1, 3));
    let g = after_bids(
        &["bid board", "bid board", "bid 1", "bid board"],
        &[("board_lead", Param::Str("first".into()))],
    );
    assert_eq!(g.to_act, 0);
    let g = after_bids(
        &["bid board", "bid pass", "bid pass", "bid board"],
        &[("board_multiplier_scope", Param::Str("hand".into()))],
    );
    assert_eq!((g.board_level(0), g.board_level(1)), (2, 2));
    let g = after_bids(&["bid 1", "bid 2", "bid 2", "bid pass"], &[]);
    assert_eq!(g.to_act, 1);
}

#[test]
fn deal_points_follow_section_7() {
    let g = after_bids(&["bid 1", "bid 2", "bid 1", "bid pass"], &[]);
    assert_eq!(
        (
            g.deal_points(0, 3),
            g.deal_points(0, 1),
            g.deal_points(1, 2)
        ),
        (11, -10, 10)
    );
    let g = after_bids(
        &["bid board", "bid board", "bid board", "bid board"],
        &[("board_multiplier", Param::Str("doubling".into()))],
    );
    // Team 0 holds levels 1 and 3, team 1 levels 2 and 4: x4 and x8.
    assert_eq!((g.deal_points(0, 3), g.deal_points(1, 2)), (120, -240));
}

#[test]
fn random_games_end_and_keep_json_round_trips() {
    for seed in 0..3 {
        let p = params(&[]);
        let mut g = BackAlley::new(p.clone(), seed, None).unwrap();
        let mut rng = SplitMix64::new(seed + 100);
        let mut buf = Vec::new();
        let mut steps = 0;
        while !g.is_terminal() {
            buf.clear();
            g.legal_actions(&mut buf);
            g.apply_unchecked(buf[rng.bounded(buf.len() as u64) as usize]);
            steps += 1;
            if steps % 97 == 0 {
                let back = BackAlley::from_json(p.clone(), &g.to_json()).unwrap();
                assert_eq!(back.to_json(), g.to_json());
            }
            assert!(steps <= 1700);
        }
        let back = BackAlley::from_json(p, &g.to_json()).unwrap();
        assert_eq!(back.to_json(), g.to_json());
        let placements = g.placements().unwrap();
        assert_eq!(placements[0], placements[2]);
    }
}

/// States along games of `p`, heuristic and random moves mixed.
fn walk(p: &Params, seed: u64, steps: usize) -> Vec<BackAlley> {
    let mut g = BackAlley::new(p.clone(), seed, None).unwrap();
    let mut rng = SplitMix64::new(seed ^ 77);
    let mut buf = Vec::new();
    let mut out = vec![g.clone()];
    for step in 0..steps {
        if g.is_terminal() {
            break;
        }
        let a = if step % 3 == 0 {
            g.random_action(&mut rng, &mut buf)
        } else {
            g.heuristic_action(&mut rng, &mut buf)
        };
        g.apply_unchecked(a);
        out.push(g.clone());
    }
    out
}

/// Replays this deal from hands rebuilt as now plus what each seat played:
/// true if every bid and play was legal with those holdings.
fn deal_replays_legally(r: &BackAlley) -> bool {
    let played = r.played_this_deal();
    let mut g = r.clone();
    g.hands = [0, 1, 2, 3].map(|s| r.hands[s] | played[s]);
    g.open_bidding();
    g.history.truncate(r.deal_start);
    r.history[r.deal_start..].iter().all(|&a| {
        let ok = g.illegal_reason(a).is_none();
        g.apply_unchecked(a);
        ok
    })
}

fn variety() -> Vec<Params> {
    vec![
        params(&[]),
        params(&[("joker_upcard", Param::Str("turn_next".into()))]),
        params(&[
            ("big_blooper_binds_partner", Param::Bool(false)),
            ("board_trump_lead_exemption", Param::Str("team".into())),
            ("joker_exchange_draw", Param::Str("bottom".into())),
        ]),
        params(&[("schedule", Param::Str("1-13-1".into()))]),
    ]
}

#[test]
fn resample_keeps_the_seats_view_and_conserves_cards() {
    let mut rng = SplitMix64::new(1);
    for (k, p) in variety().iter().enumerate() {
        for g in walk(p, k as u64, 400).iter().step_by(3) {
            for seat in 0..PLAYERS {
                let a = g.resample(seat, &mut rng).unwrap();
                let b = g.resample(seat, &mut rng).unwrap();
                assert_eq!(a.observation(seat), g.observation(seat));
                assert_eq!(a.hands.map(u64::count_ones), g.hands.map(u64::count_ones));
                assert_eq!(a.stock_len, g.stock_len);
                // from_json checks that every card is in exactly one place.
                let back = BackAlley::from_json(p.clone(), &a.to_json()).unwrap();
                assert_eq!(back.to_json(), a.to_json());
                if g.current_player() == Some(seat) {
                    assert_eq!(legal(&a), legal(g));
                }
                assert_ne!(a.to_json(), b.to_json());
            }
        }
    }
}

#[test]
fn resample_honours_every_void_shown_this_deal() {
    let mut rng = SplitMix64::new(2);
    let mut checked = 0;
    for (k, p) in variety().iter().enumerate() {
        for seed in 0..3 {
            for g in walk(p, 10 * k as u64 + seed, 700) {
                if g.phase != Phase::Play {
                    continue;
                }
                assert!(deal_replays_legally(&g));
                for seat in 0..PLAYERS {
                    let r = g.resample(seat, &mut rng).unwrap();
                    assert!(deal_replays_legally(&r), "seat {seat}: {}", r.to_json());
                    let absent = g.shown_absent();
                    assert!(r.hands.iter().zip(absent).all(|(h, a)| h & a == 0));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_void_moves_the_suit_to_the_other_hidden_seats() {
    // Trump H, dealer S3: S0 leads 2C, S1 (void in clubs) discards 2D.
    let p = params(&[
        ("schedule", Param::List(vec![Param::Int(3)])),
        ("first_dealer", Param::Int(3)),
    ]);
    let d = deck(&[
        "2C", "2D", "3C", "KS", "4C", "3D", "5C", "QS", "6C", "4D", "7C", "JS", "3H",
    ]);
    let mut g = BackAlley::new(p, 0, Some(&d)).unwrap();
    for a in ["bid 1", "bid 1", "bid 1", "bid pass", "play 2C", "play 2D"] {
        g.apply_checked(a).unwrap();
    }
    let clubs = suit_mask(0);
    assert_eq!(g.shown_absent()[1], clubs);
    let mut rng = SplitMix64::new(3);
    let mut seen = [0u64; PLAYERS];
    for _ in 0..300 {
        let r = g.resample(0, &mut rng).unwrap();
        assert_eq!(r.hands[1] & clubs, 0);
        seen.iter_mut().zip(r.hands).for_each(|(s, h)| *s |= h);
    }
    assert_ne!(seen[2] & clubs, 0);
    assert_ne!(seen[3] & clubs, 0);
    assert_eq!(seen[0], g.hands[0]);
}

#[test]
fn blooper_leads_and_trump_leads_show_what_is_missing() {
    let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
    let c = |t: &str| parse_card(t).unwrap();
    assert_eq!(
        g.trumps_above(c("10H")),
        JOKERS | codes(&["JH", "QH", "KH", "AH"])
    );
    assert_eq!(g.trumps_above(c("LB")), codes(&["BB"]));
    assert_eq!(g.trumps_below(c("LB")), suit_mask(2));
    assert_eq!(g.trumps_below(c("4H")), codes(&["2H", "3H"]));
}

#[test]
fn states_sampled_from_an_observation_show_it() {
    let mut rng = SplitMix64::new(4);
    for (k, p) in variety().iter().enumerate() {
        let template = BackAlley::new(p.clone(), 0, None).unwrap();
        for g in walk(p, 20 + k as u64, 400).iter().step_by(5) {
            for seat in 0..PLAYERS {
                let obs = g.observation(seat);
                let a = template.sample_from_observation(&obs, &mut rng).unwrap();
                let b = template.sample_from_observation(&obs, &mut rng).unwrap();
                assert_eq!(a.observation(seat), obs);
                assert_ne!(a.to_json(), b.to_json());
                if g.phase == Phase::Play {
                    assert!(deal_replays_legally(&a));
                }
                if g.current_player() == Some(seat) {
                    assert_eq!(legal(&a), legal(g));
                }
            }
        }
    }
}

#[test]
fn rollouts_stop_when_the_deal_ends() {
    let g = after_bids(&["bid 1", "bid pass", "bid pass", "bid pass"], &[]);
    assert_eq!(g.rollout_value(0, &g), None);
    let mut end = g.clone();
    let mut rng = SplitMix64::new(5);
    let mut buf = Vec::new();
    while end.rollout_value(0, &g).is_none() {
        let a = end.heuristic_action(&mut rng, &mut buf);
        end.apply_unchecked(a);
    }
    let v0 = end.rollout_value(0, &g).unwrap();
    assert_eq!(end.rollout_value(1, &g), Some(-v0));
    // The one-deal schedule ends the game: the win dominates.
    assert!(v0.abs() >= GAME_WIN_VALUE || end.team_scores[0] == end.team_scores[1]);
}
