//! Twenty-Two's unit tests (set comparison, subsets, the grammar, the
//! bots' draws, determinization).

use super::json::*;
use super::rules::*;
use super::*;
use crate::cards::bits;
use crate::game::{pick, NativeBots, Outcome, Rules, Search, StateJson};
use crate::params::{Param, Variant, VariantKeys};
use crate::rng::SplitMix64;
use serde_json::{json, Value};

/// The state the tests play: plain play, rule points not counted.
type TwentyTwo = super::TwentyTwo;

fn params(players: i64, given: &[(&str, Param)]) -> Result<Params, Error> {
    crate::games::parse_params::<TwentyTwo>(
        players,
        given
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn set(codes: &[&str]) -> u64 {
    codes.iter().fold(0, |a, c| a | 1 << parse_card(c).unwrap())
}

#[test]
fn card_codes_and_values() {
    for c in 0..52 {
        assert_eq!(parse_card(card_text(c)), Some(c));
    }
    let deck = params(2, &[]).unwrap().canonical_deck();
    assert_eq!(
        (
            deck[0].as_str(),
            deck[12].as_str(),
            deck[13].as_str(),
            deck[51].as_str()
        ),
        ("2C", "AC", "2D", "AS")
    );
    let values: Vec<u32> = (0..13).map(value_of).collect();
    assert_eq!(values, [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11]);
    assert_eq!(parse_card("1C"), None);
    assert_eq!(parse_card("10c"), None);
}

/// TT-7 written the obvious way: sort both, compare card by card.
fn beats_or_equals_by_definition(set: u64, bar: u64) -> bool {
    set.count_ones() == bar.count_ones()
        && bits(set as u128)
            .zip(bits(bar as u128))
            .all(|(a, b)| rank_of(a) >= rank_of(b))
}

#[test]
fn set_comparison_matches_its_definition() {
    let mut rng = SplitMix64::new(8);
    let mut random_set = |k: u32| {
        let mut set = 0u64;
        while set.count_ones() < k {
            set |= 1 << pick(&mut rng, 52);
        }
        set
    };
    for i in 0..20_000 {
        let k = 1 + (i % 11) as u32;
        let a = random_set(k);
        // Half the time a set one card away from `a`, decided late.
        let b = if i % 2 == 0 {
            random_set(k)
        } else {
            let moved = a & !(1 << (63 - a.leading_zeros())) | random_set(1);
            if moved.count_ones() == k {
                moved
            } else {
                a
            }
        };
        assert_eq!(
            beats_or_equals(a, b),
            beats_or_equals_by_definition(a, b),
            "{a:#x} {b:#x}"
        );
        assert_eq!(
            beats_or_equals(b, a),
            beats_or_equals_by_definition(b, a),
            "{b:#x} {a:#x}"
        );
    }
    for (a, b) in [(0, 0), (0, 1), (1 << 51, 0), (0, 3), (3, 0)] {
        assert_eq!(beats_or_equals(a, b), beats_or_equals_by_definition(a, b));
    }
    assert_eq!(rank_counts(set(&["2C", "2S", "AD"])), 2 | 1 << 48);
}

#[test]
fn set_comparison_is_pairwise_after_sorting() {
    assert!(beats_or_equals(set(&["6H", "7C"]), set(&["6C", "6D"])));
    assert!(beats_or_equals(set(&["6H", "6S"]), set(&["6C", "6D"])));
    assert!(!beats_or_equals(set(&["2S", "9H"]), set(&["6C", "6D"])));
    assert!(!beats_or_equals(set(&["6C", "6D"]), set(&["2S", "9H"])));
    assert!(is_lowest_set(
        set(&["2H", "3D"]),
        set(&["3C", "3D", "9S", "2H"])
    ));
    assert!(!is_lowest_set(
        set(&["2H", "9S"]),
        set(&["3C", "3D", "9S", "2H"])
    ));
    assert_eq!(
        highest(set(&["2C", "9D", "KH", "AS"]), 2),
        set(&["KH", "AS"])
    );
}

#[test]
fn subsets_come_in_lexicographic_order() {
    let seen: Vec<u64> = Subsets::new(set_of(&[1, 4, 7, 9])).of_sizes(2..3).collect();
    let expect: Vec<u64> = [(1, 4), (1, 7), (1, 9), (4, 7), (4, 9), (7, 9)]
        .iter()
        .map(|(a, b)| (1 << a) | (1 << b))
        .collect();
    assert_eq!(seen, expect);
    let mut count = 0;
    for s in Subsets::new(set_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).of_sizes(0..1) {
        assert_eq!(s, 0);
        count += 1;
    }
    assert_eq!(count, 1);
}

/// Every `j`-subset of a list, the obvious recursive way, in lexicographic order.
fn subsets_by_definition(cards: &[u8], j: usize, out: &mut Vec<u64>, chosen: u64) {
    if j == 0 {
        out.push(chosen);
        return;
    }
    for i in 0..cards.len().saturating_sub(j - 1) {
        subsets_by_definition(&cards[i + 1..], j - 1, out, chosen | 1 << cards[i]);
    }
}

fn set_of(cards: &[u8]) -> u64 {
    cards.iter().fold(0, |set, &c| set | 1 << c)
}

#[test]
fn subsets_match_the_recursive_listing_for_every_size() {
    let mut rng = SplitMix64::new(22);
    for _ in 0..300 {
        let mut deck: Vec<u8> = (0..52).collect();
        rng.shuffle(&mut deck);
        let n = pick(&mut rng, MAX_HAND + 1);
        let mut cards = deck[..n].to_vec();
        cards.sort_unstable();
        let subsets = Subsets::new(set_of(&cards));
        for j in 0..=n + 1 {
            let fast: Vec<u64> = subsets.of_sizes(j..j + 1).collect();
            let mut slow = Vec::new();
            subsets_by_definition(&cards, j, &mut slow, 0);
            assert_eq!(fast, slow, "cards {cards:?}, j = {j}");
        }
        // Several sizes at once: the sizes in turn.
        let most = pick(&mut rng, n + 1);
        let mut slow = Vec::new();
        for j in 0..=most {
            subsets_by_definition(&cards, j, &mut slow, 0);
        }
        assert_eq!(subsets.of_sizes(0..most + 1).collect::<Vec<_>>(), slow);
    }
}

#[test]
fn rank_subsets_match_the_recursive_listing() {
    for (nibble, by_size) in RANK_SUBSETS.iter().enumerate() {
        let suits: Vec<u8> = (0..4).filter(|s| nibble >> s & 1 == 1).collect();
        for (size, sets) in by_size.iter().enumerate() {
            let mut slow = Vec::new();
            subsets_by_definition(&suits, size, &mut slow, 0);
            let count = BINOMIAL[suits.len()][size] as usize;
            let fast: Vec<u64> = sets[..count].iter().map(|&s| u64::from(s)).collect();
            assert_eq!(fast, slow, "nibble {nibble:04b}, size {size}");
        }
    }
}

#[test]
fn action_grammar() {
    let a = TwentyTwo::parse_action("play 9S 9C").unwrap();
    assert_eq!(TwentyTwo::action_text(a), "play 9C 9S");
    assert_eq!(TwentyTwo::parse_action("discard"), Some(DISCARD));
    for bad in [
        "play",
        "play ",
        "discard ",
        "play 9C 9C",
        "play  9C",
        "Play 9C",
        "play 9C,9S",
        "pass",
    ] {
        assert_eq!(TwentyTwo::parse_action(bad), None, "{bad:?}");
    }
}

#[test]
fn action_texts_name_every_card_and_read_back() {
    for c in 0..52u32 {
        let text = TwentyTwo::action_text(PLAY | 1 << c);
        assert_eq!(text, format!("play {}", CARD_CODES[c as usize]));
    }
    let all = (1u64 << 52) - 1;
    let text = TwentyTwo::action_text(DISCARD | all);
    assert_eq!(text.split(' ').count(), 53);
    assert!(
        text.contains(" 9S 10C 10D ") && text.ends_with(" AS"),
        "{text}"
    );
    assert_eq!(TwentyTwo::parse_action(&text), Some(DISCARD | all));
    assert_eq!(TwentyTwo::action_text(DISCARD), "discard");
}

#[test]
fn variants_are_checked() {
    assert!(params(3, &[("tied_dealer", Param::Str("first".into()))]).is_ok());
    let bad = [
        (
            "tied_dealer",
            Param::Str("first".into()),
            Some(("last_trick_tie", Param::Str("last_played_wins".into()))),
        ),
        ("first_dealer", Param::Int(3), None),
        ("first_dealer", Param::Bool(true), None),
        ("elimination_score", Param::Int(31), None),
        ("first_hand_size", Param::Int(1), None),
    ];
    for (key, value, other) in bad {
        let mut given = vec![(key, value)];
        given.extend(other);
        assert!(
            matches!(params(3, &given), Err(Error::InvalidParams { .. })),
            "{key}"
        );
    }
    let random = params(3, &[("first_dealer", Param::Str("random".into()))]).unwrap();
    assert_eq!(random.first_dealer, FirstDealer::Random);
    assert_eq!(random.to_json()["first_dealer"], json!("random"));
}

#[test]
fn explicit_deck_is_dealt_from_the_dealers_left_without_the_generator() {
    let p = params(3, &[("first_dealer", Param::Int(2))]).unwrap();
    let g = TwentyTwo::new(p, 5, Some(&p.canonical_deck())).unwrap();
    assert_eq!(g.rng.state, 5);
    assert_eq!(g.hands[0], set(&["2C", "5C", "8C", "JC", "AC", "4D", "7D"]));
    assert_eq!((g.stock_size(), g.to_act, g.deal_size), (31, 0, 7));
    assert_eq!(card_text(g.stock[g.stock_top as usize] as u32), "10D"); // deck card 21
}

/// Random games: cards conserved, equal hands, JSON round trip, the bound of §7.
#[test]
fn random_games_conserve_cards_and_end() {
    let mut chooser = SplitMix64::new(3);
    let mut buf = Vec::new();
    for seed in 0..30u64 {
        let n = 2 + (seed % 5) as i64;
        let p = params(n, &[]).unwrap();
        let mut g = TwentyTwo::new(p, seed, None).unwrap();
        let bound = 12 * n * n * 11;
        let mut steps = 0;
        while !g.is_terminal() {
            g.check_consistency().unwrap();
            if steps % 17 == 0 {
                let back = TwentyTwo::from_json(p, &g.to_json()).unwrap();
                assert_eq!(back.to_json(), g.to_json());
            }
            buf.clear();
            g.legal_actions(&mut buf);
            assert!(!buf.is_empty());
            let a = buf[chooser.bounded(buf.len() as u64) as usize];
            assert_eq!(g.illegal_reason(a), None);
            g.apply_unchecked(a);
            steps += 1;
            assert!(steps <= bound);
        }
        g.check_consistency().unwrap();
        let placements = g.placements().unwrap();
        assert!(placements.contains(&1));
    }
}
/// The random bot's indices map one to one onto the legal actions, so a
/// uniform index is a uniform legal action.
#[test]
fn indexed_actions_are_the_legal_actions() {
    let mut chooser = SplitMix64::new(11);
    let mut buf = Vec::new();
    for seed in 0..40u64 {
        let n = 2 + (seed % 5) as i64;
        let rule = ["free_choice", "lowest_only_if_cannot_beat"][(seed / 5 % 2) as usize];
        let p = params(n, &[("follow_rule", Param::Str(rule.into()))]).unwrap();
        let mut g = TwentyTwo::new(p, seed, None).unwrap();
        while !g.is_terminal() {
            buf.clear();
            g.legal_actions(&mut buf);
            let mut count = 1;
            g.nth_legal(|c| {
                count = c;
                0
            });
            let mut indexed: Vec<Action> = (0..count)
                .map(|i| {
                    g.nth_legal(|c| {
                        assert_eq!(c, count);
                        i
                    })
                })
                .collect();
            indexed.sort_unstable();
            let mut legal = buf.clone();
            legal.sort_unstable();
            assert_eq!(indexed, legal, "{}", g.to_json());
            g.apply_unchecked(g.random_action(&mut chooser, &mut buf));
        }
    }
}

/// Every follow of this hand (but the forced final trick) is legal for the
/// hand its seat held then: its hand now plus what it played from then on.
fn follows_are_legal(g: &TwentyTwo) -> bool {
    let current = g.phase == Phase::Play && g.trick.len > 0;
    let mut from_here = [0u64; MAX_PLAYERS];
    let all: Vec<Trick> = g
        .tricks
        .iter()
        .copied()
        .chain(current.then_some(g.trick))
        .collect();
    for t in &all {
        for i in 0..t.len as usize {
            from_here[t.seats[i] as usize] |= t.sets[i];
        }
    }
    for t in &all {
        let mut bar = t.sets[0];
        for i in 0..t.len as usize {
            let s = t.seats[i] as usize;
            let then = g.hands[s] | from_here[s];
            let k = t.sets[i].count_ones();
            if i > 0 && then.count_ones() > 1 {
                let beats = beats_or_equals(t.sets[i], bar);
                let could = beats_or_equals(highest(then, k), bar);
                let lowest = is_lowest_set(t.sets[i], then)
                    && !(g.params.follow_rule == FollowRule::LowestOnlyIfCannotBeat && could);
                if !beats && !lowest {
                    return false;
                }
                if beats {
                    bar = t.sets[i];
                }
            }
        }
        for i in 0..t.len as usize {
            from_here[t.seats[i] as usize] &= !t.sets[i];
        }
    }
    true
}

fn heuristic_or_random(g: &TwentyTwo, rng: &mut SplitMix64, buf: &mut Vec<Action>) -> Action {
    if rng.next_u64().is_multiple_of(3) {
        g.random_action(rng, buf)
    } else {
        g.heuristic_action(rng, buf)
    }
}

/// Along many games (both follow rules): the seat's observation and legal
/// actions are kept, the state reloads, the hidden cards move, and every
/// earlier follow of the hand stays legal for the resampled hands.
#[test]
fn resample_keeps_the_view_and_what_the_plays_revealed() {
    let mut rng = SplitMix64::new(17);
    let mut buf = Vec::new();
    let mut constrained = 0;
    for seed in 0..20u64 {
        let n = 2 + (seed % 5) as i64;
        let rule = ["free_choice", "lowest_only_if_cannot_beat"][(seed / 5 % 2) as usize];
        let p = params(n, &[("follow_rule", Param::Str(rule.into()))]).unwrap();
        let mut g = TwentyTwo::new(p, seed, None).unwrap();
        let mut steps = 0;
        while !g.is_terminal() && steps < 400 {
            // Every state of the first 60 steps, then every third.
            let seats = if steps < 60 || steps % 3 == 0 { n } else { 0 };
            for seat in 0..seats as usize {
                let know = g.knowledge(seat);
                constrained += usize::from(know.floor.iter().any(|&f| f > 0));
                let a = g.resample(seat, &mut rng).unwrap_or_else(|e| {
                    panic!(
                        "seed {seed} step {steps} seat {seat}: {e:?} {}",
                        g.to_json()
                    )
                });
                assert_eq!(a.observation(seat), g.observation(seat));
                assert_eq!(a.current_player(), g.current_player());
                if g.current_player() == Some(seat) {
                    let (mut la, mut lg) = (Vec::new(), Vec::new());
                    a.legal_actions(&mut la);
                    g.legal_actions(&mut lg);
                    assert_eq!(la, lg);
                }
                let back = TwentyTwo::from_json(p, &a.to_json()).unwrap();
                assert_eq!(back.to_json(), a.to_json());
                assert!(
                    follows_are_legal(&a),
                    "seed {seed} step {steps} seat {seat}"
                );
                for s in 0..n as usize {
                    assert_eq!(a.hands[s].count_ones(), g.hands[s].count_ones());
                    assert_eq!(a.discards[s].count_ones(), g.discards[s].count_ones());
                    assert!(a.hands[s] & at_least(know.floor[s]) == a.hands[s]);
                }
                assert_eq!(a.history.len(), g.history.len());
            }
            let action = heuristic_or_random(&g, &mut rng, &mut buf);
            g.apply_unchecked(action);
            steps += 1;
        }
    }
    assert!(
        constrained > 100,
        "few states had a revealed floor: {constrained}"
    );
}

#[test]
fn resample_rewrites_the_hands_hidden_discards_in_the_history() {
    let p = params(4, &[]).unwrap();
    let mut g = TwentyTwo::new(p, 3, None).unwrap();
    let mut buf = Vec::new();
    let mut rng = SplitMix64::new(1);
    for _ in 0..5 {
        let a = g.heuristic_action(&mut rng, &mut buf);
        g.apply_unchecked(a);
    }
    assert_eq!(g.phase, Phase::Play);
    let r = g.resample(2, &mut rng).unwrap();
    let start = r.history.len() - 5;
    for (i, s) in [1usize, 2, 3, 0].iter().enumerate() {
        assert_eq!(r.history[start + i], DISCARD | r.discards[*s]);
    }
    assert_eq!(r.history[start + 4], g.history[start + 4]);
    assert_eq!(r.discards[2], g.discards[2]);
}

#[test]
fn a_lowest_set_follow_sets_a_floor() {
    // The leader leads its highest card; the next seat plays its lowest,
    // which does not meet the bar: every card it keeps ranks at least as high.
    let p = params(3, &[]).unwrap();
    let mut rng = SplitMix64::new(2);
    let mut checked = 0;
    for seed in 0..20 {
        let mut g = TwentyTwo::new(p, seed, None).unwrap();
        while g.phase == Phase::Discard {
            g.apply_unchecked(DISCARD);
        }
        let leader = g.to_act as usize;
        let lead = 1 << (63 - g.hands[leader].leading_zeros());
        g.apply_unchecked(PLAY | lead);
        let follower = g.to_act as usize;
        let low = g.hands[follower] & g.hands[follower].wrapping_neg();
        if beats_or_equals(low, lead) {
            continue;
        }
        g.apply_unchecked(PLAY | low);
        let floor = rank_of(low.trailing_zeros());
        assert_eq!(g.knowledge(leader).floor[follower], floor);
        assert_eq!(g.knowledge(follower).floor[follower], 0);
        for _ in 0..20 {
            let r = g.resample(leader, &mut rng).unwrap();
            assert_eq!(r.hands[follower] & !at_least(floor), 0);
        }
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn states_sampled_from_observations_show_them() {
    let mut rng = SplitMix64::new(5);
    let mut buf = Vec::new();
    for seed in 0..6u64 {
        let n = 2 + (seed % 5) as i64;
        let p = params(n, &[]).unwrap();
        let mut g = TwentyTwo::new(p, seed, None).unwrap();
        for step in 0.. {
            // Every state of the first 60 steps, then every fourth, and the end.
            let seats = if step < 60 || step % 4 == 0 || g.is_terminal() {
                n
            } else {
                0
            };
            for seat in 0..seats as usize {
                let obs = g.observation(seat);
                let a = g.sample_from_observation(&obs, &mut rng).unwrap();
                let b = g.sample_from_observation(&obs, &mut rng).unwrap();
                assert_eq!(a.observation(seat), obs);
                assert!(follows_are_legal(&a));
                if !g.is_terminal() {
                    assert_ne!(a.to_json(), b.to_json());
                }
                if g.current_player() == Some(seat) {
                    let (mut la, mut lg) = (Vec::new(), Vec::new());
                    a.legal_actions(&mut la);
                    g.legal_actions(&mut lg);
                    assert_eq!(la, lg);
                }
            }
            if g.is_terminal() {
                break;
            }
            let action = heuristic_or_random(&g, &mut rng, &mut buf);
            g.apply_unchecked(action);
        }
    }
}

#[test]
fn search_candidates_are_legal_and_hold_the_heuristics_choice() {
    let mut rng = SplitMix64::new(9);
    let mut buf = Vec::new();
    let p = params(4, &[]).unwrap();
    let mut g = TwentyTwo::new(p, 2, None).unwrap();
    for _ in 0..300 {
        if g.is_terminal() {
            break;
        }
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut cands = legal.clone();
        g.search_candidates(&mut cands);
        assert!(!cands.is_empty() && cands.iter().all(|a| legal.contains(a)));
        assert!(cands.len() <= 12 || g.phase == Phase::Play);
        let h = g.heuristic_action(&mut rng, &mut buf);
        let key = rank_counts(h & CARDS);
        assert!(cands.iter().any(|&a| rank_counts(a & CARDS) == key));
        // One candidate per multiset of ranks.
        let keys: std::collections::HashSet<u64> =
            cands.iter().map(|&a| rank_counts(a & CARDS)).collect();
        assert_eq!(keys.len(), cands.len());
        let a = heuristic_or_random(&g, &mut rng, &mut buf);
        g.apply_unchecked(a);
    }
}

/// Under `lowest_only_if_cannot_beat`, floors and ceilings that leave few
/// deals: seat 0 must hold four cards from 10 to K, seat 5 the 5H, and
/// only seats 4 and 5 may take the sixes (a state met in a random game).
#[test]
fn tight_floors_and_ceilings_still_deal() {
    let v: Value = serde_json::from_str(TIGHT).unwrap();
    let p = crate::games::parse_params::<TwentyTwo>(
        6,
        vec![(
            "follow_rule".into(),
            Param::Str("lowest_only_if_cannot_beat".into()),
        )],
    )
    .unwrap();
    let g = TwentyTwo::from_json(p, &v).unwrap();
    let know = g.knowledge(2);
    assert_eq!((know.floor[0], know.ceiling[0]), (8, 12));
    assert_eq!((know.floor[5], know.ceiling[5]), (2, 10));
    let mut rng = SplitMix64::new(1);
    for _ in 0..200 {
        let r = g.resample(2, &mut rng).unwrap();
        assert!(follows_are_legal(&r));
        assert_eq!(r.observation(2), g.observation(2));
    }
}

const TIGHT: &str = r#"{"active":[true,true,true,true,true,true],"deal_size":8,"dealer":1,"discards":[[],[],[],[],[],[]],"game":"twenty_two","hand_number":4,"hands":[["JD","JH","QS","KH"],["9D","10H","KC","KD"],["3D","4C","5D","8D"],["8H","10D","QH"],["7H","JC","QD"],["5H","6C","6S"]],"history":[],"last_trick":{"plays":[[2,["8C"]],[3,["9S"]],[4,["8H"]],[5,["7D"]],[0,["8S"]],[1,["9H"]]],"scorers":[3,1]},"out_hand":[0,0,0,0,0,0],"params":{"elimination_score":22,"first_dealer":0,"first_hand_size":7,"follow_rule":"lowest_only_if_cannot_beat","last_trick_tie":"all_tied_score","tied_dealer":"last"},"phase":"play","players":6,"rng":17501011716785866771,"score_piles":[[],["9H"],[],["9S","JS"],["10S"],[]],"scores":[0,9,0,19,10,0],"stock":[],"target_size":9,"to_act":0,"trick":{"bar":["QC"],"bar_holder":4,"leader":3,"plays":[[3,["9C"]],[4,["QC"]],[5,["4D"]]]},"tricks":[{"leader":2,"plays":[[2,["AD","AH","AS"]],[3,["3S","8C","8S"]],[4,["2S","4H","6H"]],[5,["2C","3C","3H"]],[0,["2H","5S","6D"]],[1,["2D","5C","7D"]]],"winner":2},{"leader":2,"plays":[[2,["KS"]],[3,["AC"]],[4,["7C"]],[5,["4S"]],[0,["10C"]],[1,["7S"]]],"winner":3}]}"#;
