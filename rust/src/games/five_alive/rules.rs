//! 5 Alive's rules, in the order of its rule book (`docs/rules/five_alive.md`),
//! under the same headings and with the same function names as the Python
//! reference (`python/cardref/reference/five_alive.py`). The common play (a
//! card that moves no cards) stays inlined in the step, the rest out of line;
//! the tables and seat orders the rules use are small helpers at the end of
//! the file.

use crate::points::Count;
use super::{ALT75, BOMB, CODES, D1, D2, DECLINE, FLIP, FiveAlive, GameResult, HASBRO77, Hand, KINDS, MAX_PLAYERS, PASS, PendingBomb, Phase, Pile, REDEAL, RESPOND, REV, SET0, SET10, SET21, SKIP, Seats, WILD_KINDS};
use crate::cards::check_deck;
use crate::fired;
use crate::game::{Action, Error, Outcome, Rules};
use crate::params::{choice_key, invalid, variant_keys, Variant};
use crate::rng::SplitMix64;
use std::hint::select_unpredictable;

// ---------------------------------------------------------------------------
// §2 Card notation and deck order
// ---------------------------------------------------------------------------

/// Number cards are `0`..`7`; everything else, `=0` included, is wild.
#[inline]
fn is_number(card: u8) -> bool {
    card <= 7
}

// ---------------------------------------------------------------------------
// §3.1 Seats and direction
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    #[inline]
    pub(super) fn is_active(&self, seat: usize) -> bool {
        self.active >> seat & 1 == 1
    }

    /// The first active seat after `seat` going in direction `dir`.
    #[inline]
    pub(super) fn next_active(&self, seat: usize, dir: i8) -> usize {
        self.next[usize::from(dir < 0)][seat & 7] as usize
    }

    /// The other active players, from the next one in the direction of play
    /// (`seat` is active: the turn order comes back to it after them).
    pub(super) fn others(&self, seat: usize) -> Seats {
        debug_assert!(self.is_active(seat));
        others_of(self.active, seat, self.dir)
    }

    /// Who a D1/D2/BOMB affects: the others, minus teammates if they are spared.
    pub(super) fn targets(&self, seat: usize) -> Seats {
        let others = self.others(seat);
        if self.teammates_spared() {
            without_teammates(others, seat)
        } else {
            others
        }
    }
}

// ---------------------------------------------------------------------------
// §4 Setup, deal and who starts
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// A new game: round 1 is dealt from `deck` if given (top card first, no
    /// generator call), else from the generator's first shuffle.
    pub fn new(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        let first = match deck {
            Some(given) => {
                let canonical = params.canonical_cards();
                let order = check_deck(given, &params.canonical_deck())?;
                let cards: Vec<u8> = order.iter().map(|&i| canonical.cards[i]).collect();
                Some(Pile::from_slice(&cards))
            }
            None => None,
        };
        let mut game = FiveAlive::blank(params, seed);
        game.start_round(first);
        Ok(game)
    }

    /// §4.2: reset, shuffle (or take the explicit deck), deal, pick the opener.
    fn start_round(&mut self, deck: Option<Pile>) {
        if self.params.reset_direction_each_round || self.round == 1 {
            self.dir = 1;
        } else if self.dir == -1 {
            fired!(self.count, "FA-P2");
        }
        if self.round == 1 {
            fired!(self.count, "FA-P1");
        }
        self.total = 0;
        self.discard.clear();
        self.hands.iter_mut().for_each(Hand::clear);
        let deck = deck.unwrap_or_else(|| {
            let mut d = self.params.canonical_cards();
            let len = d.len as usize;
            self.rng.shuffle(&mut d.cards[..len]);
            d
        });
        let order = self.dealing_order(self.next_active(self.dealer as usize, 1), 1);
        let players = order.len as usize;
        let dealt = self.params.hand_size * players;
        // With A players, pass k round the table is D[kA..kA+A]: the i-th player
        // in dealing order gets card i of each, D[i], D[i+A], ...
        let passes = deck.as_slice()[..dealt].chunks_exact(players);
        for (i, &seat) in order.as_slice().iter().enumerate() {
            self.hands[seat as usize].deal(passes.clone(), i);
        }
        let rest = &deck.as_slice()[dealt..];
        self.draw.len = rest.len() as u8;
        for (to, &card) in self.draw.cards.iter_mut().zip(rest.iter().rev()) {
            *to = card;
        }
        self.current = self.next_active(self.dealer as usize, self.dir) as u8;
        self.phase = Phase::Play;
        self.round_start = self.history.len();
    }

    /// The active seats from `first` (or the next active one) going in `dir`.
    fn dealing_order(&self, first: usize, dir: i8) -> Seats {
        seats_in_order(self.active, first, dir)
    }
}

// ---------------------------------------------------------------------------
// §5 Turn structure and legal actions
// ---------------------------------------------------------------------------

impl<C: Count> Rules for FiveAlive<C> {
    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::GameOver).then_some(self.current as usize)
    }

    /// Play: `play K` per distinct playable kind in kind order, then `flip` when
    /// nothing fits (always with `allow_voluntary_flip`). Bomb: `respond 0`, `decline`.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        let hand = &self.hands[self.current as usize];
        match self.phase {
            Phase::Play => {
                let playable = self.playable();
                let mut kinds = playable;
                while kinds != 0 {
                    out.push(Action::from(kinds.trailing_zeros()));
                    kinds &= kinds - 1;
                }
                if playable == 0 || self.params.allow_voluntary_flip {
                    out.push(FLIP);
                }
            }
            Phase::BombResponse => {
                if hand.contains(0) {
                    out.push(RESPOND);
                }
                out.push(DECLINE);
            }
            Phase::GameOver => {}
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        match (self.phase, action) {
            (Phase::GameOver, _) => Some("the game is over".into()),
            (Phase::BombResponse, DECLINE) => None,
            (Phase::BombResponse, RESPOND) if self.hands[self.current as usize].contains(0) => None,
            (Phase::BombResponse, RESPOND) => {
                Some("it holds no 0 card to answer the Bomb with".into())
            }
            (Phase::BombResponse, _) => {
                Some("a Bomb awaits its answer: respond 0 or decline".into())
            }
            (Phase::Play, RESPOND | DECLINE) => Some("no Bomb awaits an answer".into()),
            (Phase::Play, FLIP) if self.params.allow_voluntary_flip || !self.can_play_something() => None,
            (Phase::Play, FLIP) => {
                Some("it can play a card, and only a player who cannot may flip".into())
            }
            (Phase::Play, card) => self.play_reason(card as u8),
        }
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.history.push(action);
        let seat = self.current as usize;
        // Cards first: one comparison for the common action (the action is
        // legal, so anything past FLIP and RESPOND is DECLINE).
        match action {
            card if card < KINDS as Action => self.play_card(seat, card as u8),
            FLIP => self.flip(seat),
            RESPOND => self.bomb_answer(seat, true),
            _ => self.bomb_answer(seat, false),
        }
        self.action_count += 1;
        self.check_cap();
    }
}

impl<C: Count> FiveAlive<C> {
    /// A wild card always fits; a number only if the total stays at 21 or less.
    #[inline]
    pub(super) fn fits(&self, card: u8) -> bool {
        !is_number(card) || self.total + card <= 21
    }

    /// The kinds the player to act may play, as a set (bit k = kind k): every
    /// wild card held, and the numbers held that keep the total at 21 or less.
    #[inline]
    pub(super) fn playable(&self) -> u32 {
        self.hands[self.current as usize].kinds & FITTING[usize::from(self.total) & 31]
    }

    /// Why playing `card` is illegal now, if it is.
    fn play_reason(&self, card: u8) -> Option<String> {
        let code = CODES[card as usize];
        if !self.hands[self.current as usize].contains(card) {
            Some(format!("card {code} is not in its hand"))
        } else if !self.fits(card) {
            Some(format!(
                "{code} would take the total {} over 21",
                self.total
            ))
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------------------
// §6.1 Playing a card
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// §6.1 steps 1-6: play the card, apply its effect, then the end checks.
    /// Inlined into the step: most cards take only the few lines up to the
    /// turn passing on; the rest is out of line.
    #[inline(always)]
    fn play_card(&mut self, player: usize, card: u8) {
        self.hands[player].remove_first(card);
        self.discard.push(card);
        if C::ON {
            self.note_card(player, card);
        }
        if MOVES_CARDS >> card & 1 == 1 {
            self.play_moving_card(player, card);
            return;
        }
        // A number or a wild card that changes only the total, the direction or
        // the turn: no life is lost (the game goes on, as it did before), and
        // only the player's hand can have run out.
        debug_assert!(self.goes_on());
        let next = self.card_effect(player, card);
        self.pass_turn(player, next);
    }

    /// §6.1 steps 5-6 after a card that took no cards from others and cost
    /// no life: the round ends if the player went out, else `next` plays.
    #[inline(always)]
    fn pass_turn(&mut self, player: usize, next: usize) {
        if self.hands[player].is_empty() {
            self.end_round(player, 1 << player);
        } else {
            self.current = next as u8;
        }
    }

    /// `play_card` for D1, D2, REDEAL and BOMB, whose effects move cards.
    #[inline(never)]
    fn play_moving_card(&mut self, player: usize, card: u8) {
        // D1 and D2, two thirds of these cards, keep the total, cost no life
        // and only add cards to the others' hands.
        if card <= D2 {
            self.make_others_draw(player, 1 + usize::from(card == D2));
            self.pass_turn(player, self.next_active(player, self.dir));
            return;
        }
        // The variant first: which of the two cards it is cannot be predicted.
        if self.params.bomb_response == BombResponse::Optional && card == BOMB {
            self.start_optional_bomb(player);
            return;
        }
        self.set_total(card);
        let mut batch = Seats::default();
        self.move_cards(player, card, &mut batch);
        // Only the player's hand can have run out, unless the card took cards
        // from others (Bomb answers, a Redeal).
        let touched = if TAKES_CARDS >> card & 1 == 1 {
            self.active
        } else {
            1 << player
        };
        self.after_effect(player, batch, touched);
    }

    /// §6.1 steps 3-6 after a card that moves cards (none skips or reverses):
    /// sudden death, game over, going out, next player. `touched`: the seats
    /// whose hands the action took cards from.
    #[inline(always)]
    pub(super) fn after_effect(&mut self, player: usize, batch: Seats, touched: u8) {
        if self.game_ends_after(batch) {
            return;
        }
        let gone_out = self.empty_hands(touched) & self.active;
        if gone_out != 0 {
            self.end_round(player, gone_out);
        } else {
            self.current = self.next_active(player, self.dir) as u8;
        }
    }
}

// ---------------------------------------------------------------------------
// §6.2 Card effects
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// The rule points of a card's effect that the card and the table decide.
    fn note_card(&mut self, player: usize, card: u8) {
        let two = self.active_count() == 2;
        if is_number(card) {
            fired!(self.count, "FA-P5");
            if self.total + card == 21 {
                fired!(self.count, "FA-P6");
            }
        }
        match card {
            SET21 => fired!(self.count, "FA-P7"),
            SET10 => fired!(self.count, "FA-P8"),
            SET0 => fired!(self.count, "FA-P9"),
            PASS => fired!(self.count, "FA-P10"),
            REV => {
                fired!(self.count, "FA-P11");
                if two {
                    fired!(self.count, "FA-P12");
                }
            }
            SKIP => {
                fired!(self.count, "FA-P13");
                if two {
                    fired!(self.count, "FA-P14");
                }
            }
            D1 => fired!(self.count, "FA-P15"),
            D2 => fired!(self.count, "FA-P16"),
            _ => {}
        }
        if self.teammates_spared() && matches!(card, D1 | D2 | BOMB) {
            fired!(self.count, "FA-P17");
        }
        if card == BOMB && self.hands[player].is_empty() {
            fired!(self.count, "FA-P28");
        }
    }

    /// §6.2 for every card but the cards it moves (`move_cards`). Returns who
    /// plays next if the round goes on (§6.1 step 6): the next active seat in
    /// the new direction, or for SKIP the one after it (FA-19).
    ///
    /// The total, the direction and the next player are worked out the same
    /// way for every card (tables and selects), so that which card was played
    /// costs no branch: a random player's card cannot be predicted. The three
    /// seats it can be are looked up before the card is known, so the card
    /// only selects one: a shorter chain of work from one turn to the next.
    #[inline]
    fn card_effect(&mut self, player: usize, card: u8) -> usize {
        self.set_total(card);
        let dir = self.dir;
        let (ahead, back) = (
            self.next_active(player, dir),
            self.next_active(player, -dir),
        );
        let past = self.next_active(ahead, dir);
        self.dir = select_unpredictable(card == REV, -dir, dir);
        let next = select_unpredictable(card == SKIP, past, ahead);
        select_unpredictable(card == REV, back, next)
    }

    /// D1 (`count` 1) and D2 (`count` 2): each target draws `count` cards, in
    /// turn order (§6.2, §6.3). When the draw pile holds them all and every
    /// other player is a target (nearly always), one loop over the seats with
    /// no branch on the count or the pile.
    #[inline]
    fn make_others_draw(&mut self, player: usize, count: usize) {
        let others = self.active_count() - 1;
        if self.teammates_spared() || usize::from(self.draw.len) < count * others {
            self.draw_one_by_one(player, count);
            return;
        }
        let mut seat = player;
        for _ in 0..others {
            seat = self.next_active(seat, self.dir);
            self.hands[seat].draw_from(&mut self.draw, count);
        }
    }

    /// The effects of REDEAL and BOMB beyond the total.
    fn move_cards(&mut self, player: usize, card: u8, batch: &mut Seats) {
        match card {
            REDEAL => {
                if !self.hands[player].is_empty() {
                    self.redeal(player);
                } else {
                    fired!(self.count, "FA-P18");
                }
            }
            _ => {
                for &seat in self.targets(player).as_slice() {
                    let has_zero = self.hands[seat as usize].contains(0);
                    if has_zero {
                        fired!(self.count, "FA-P23");
                    } else {
                        fired!(self.count, "FA-P24");
                    }
                    self.answer_bomb(seat as usize, has_zero, batch);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// §6.3-6.4 Drawing and rebuilding the draw pile
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// §6.3: one card from the top; rebuild first if the pile is empty.
    #[inline(always)]
    pub(super) fn draw(&mut self, seat: usize) {
        if self.draw.is_empty() {
            self.rebuild_draw_pile();
        }
        if !self.draw.is_empty() {
            let card = self.draw.pop();
            self.hands[seat].push(card);
        } else {
            fired!(self.count, "FA-P19");
        }
    }

    /// §6.4 (FA-17): everything under the top discard, shuffled bottom first.
    #[cold]
    fn rebuild_draw_pile(&mut self) {
        let len = self.discard.len as usize;
        if len < 2 {
            return;
        }
        fired!(self.count, "FA-P20");
        let cards = &mut self.discard.cards[..len - 1];
        self.rng.shuffle(cards);
        self.draw.len = cards.len() as u8;
        for (to, &card) in self.draw.cards.iter_mut().zip(cards.iter().rev()) {
            *to = card;
        }
        self.discard.cards[0] = self.discard.cards[len - 1];
        self.discard.len = 1;
    }
}

// ---------------------------------------------------------------------------
// §6.5 Redeal
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// §6.5 (FA-13): gather every active hand, sort, shuffle, deal them all out.
    pub(super) fn redeal(&mut self, player: usize) {
        fired!(self.count, "FA-P21");
        let mut counts = [0u8; KINDS];
        for s in (0..self.n()).filter(|&s| self.is_active(s)) {
            for (total, &count) in counts.iter_mut().zip(&self.hands[s].counts) {
                *total += count;
            }
        }
        // Sorted: each kind's copies in a row. A deck has at most 8 of a kind
        // (§1), so one 8-byte store writes them all (the slack takes what is
        // past them): no loop whose length a random hand decides.
        let mut gathered = Pile::EMPTY;
        for (kind, &count) in counts.iter().enumerate() {
            let at = gathered.len as usize;
            debug_assert!(count <= 8);
            let copies = u64::from(kind as u8) * (u64::MAX / 255);
            gathered.cards[at..at + 8].copy_from_slice(&copies.to_le_bytes());
            gathered.len += count;
        }
        let len = gathered.len as usize;
        self.rng.shuffle(&mut gathered.cards[..len]);
        let order = if self.params.redeal_deal_order == RedealDealOrder::PlayDirection {
            fired!(self.count, "FA-P22");
            self.dealing_order(self.next_active(player, self.dir), self.dir)
        } else {
            self.dealing_order(self.next_active(player, 1), 1)
        };
        // Card j goes to the (j mod A)-th of the A seats: each gets its card of
        // every full pass round the table (as in a round's deal), and the
        // first seats one more each from the short last pass.
        let seats = order.as_slice();
        let passes = gathered.as_slice().chunks_exact(seats.len());
        let last = passes.remainder();
        for (i, &s) in seats.iter().enumerate() {
            let hand = &mut self.hands[s as usize];
            hand.clear();
            hand.deal(passes.clone(), i);
            if let Some(&card) = last.get(i) {
                hand.push(card);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// §6.6 Bomb
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// One responder: discard a single 0 (never =0, FA-9) or lose a life.
    fn answer_bomb(&mut self, seat: usize, with_zero: bool, batch: &mut Seats) {
        if with_zero {
            self.hands[seat].remove_first(0);
            self.discard.push(0);
        } else {
            self.lose_life(seat, batch);
        }
    }

    /// Optional mode: the responders answer one action at a time.
    fn start_optional_bomb(&mut self, bomber: usize) {
        fired!(self.count, "FA-P25");
        let responders = self.targets(bomber);
        self.current = responders.seats[0];
        self.pending = Some(PendingBomb {
            bomber: bomber as u8,
            responders,
            index: 0,
            eliminated: Seats::default(),
        });
        self.phase = Phase::BombResponse;
    }

    /// `respond 0` or `decline`; after the last one the Bomb completes.
    fn bomb_answer(&mut self, seat: usize, respond: bool) {
        let Some(mut bomb) = self.pending else { return };
        if respond {
            fired!(self.count, "FA-P26");
        } else {
            fired!(self.count, "FA-P27");
        }
        self.answer_bomb(seat, respond, &mut bomb.eliminated);
        bomb.index += 1;
        if bomb.index < bomb.responders.len {
            self.current = bomb.responders.seats[bomb.index as usize];
            self.pending = Some(bomb);
            return;
        }
        self.pending = None;
        self.phase = Phase::Play;
        self.total = 0;
        let bomber = bomb.bomber as usize;
        self.after_effect(bomber, bomb.eliminated, self.active);
    }
}

// ---------------------------------------------------------------------------
// §6.7 Losing a life
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// One life off the seat (or its team); at 0 the seat is out at once and its
    /// hand goes to the bottom of the discard pile (FA-18).
    pub(super) fn lose_life(&mut self, seat: usize, batch: &mut Seats) {
        if self.params.team_play {
            let team = seat % 2;
            if self.team_lives[team] > 0 {
                fired!(self.count, "FA-P30");
            } else {
                fired!(self.count, "FA-P31");
            }
            self.team_lives[team] = self.team_lives[team].saturating_sub(1);
            return;
        }
        self.lives[seat] -= 1;
        if self.lives[seat] == 0 {
            fired!(self.count, "FA-P29");
            self.set_active(self.active & !(1 << seat));
            let hand = self.hands[seat].pile;
            self.discard.insert_bottom(hand.as_slice());
            self.hands[seat].clear();
            batch.push(seat);
        }
    }
}

// ---------------------------------------------------------------------------
// §6.8 Flip
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// Lose a life, keep the hand, total back to 0 (FA-5, FA-6).
    pub(super) fn flip(&mut self, player: usize) {
        if self.playable() == 0 {
            fired!(self.count, "FA-P3");
        } else {
            fired!(self.count, "FA-P4");
        }
        let mut batch = Seats::default();
        self.lose_life(player, &mut batch);
        self.total = 0;
        if self.game_ends_after(batch) {
            return;
        }
        if self.params.flip_ends_turn || !self.is_active(player) {
            self.current = self.next_active(player, self.dir) as u8;
        } else {
            fired!(self.count, "FA-P32");
        }
    }
}

// ---------------------------------------------------------------------------
// §7.1 Round end
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// Everyone else loses a life (teams: the other team), then a new deal by the
    /// player who went out (FA-4, FA-12). `gone_out`: the seats whose hands
    /// are empty, as a set.
    #[cold]
    fn end_round(&mut self, actor: usize, gone_out: u8) {
        const EVEN_SEATS: u8 = 0b0101_0101;
        fired!(self.count, "FA-P33");
        if gone_out.count_ones() > 1 {
            fired!(self.count, "FA-P34");
        }
        if gone_out >> actor & 1 == 0 {
            fired!(self.count, "FA-P35");
        }
        if self.params.team_play && gone_out & EVEN_SEATS != 0 && gone_out & EVEN_SEATS << 1 != 0 {
            fired!(self.count, "FA-P36");
        }
        let mut batch = Seats::default();
        if self.params.team_play {
            for team in 0..2 {
                if gone_out & EVEN_SEATS << team != 0 {
                    self.lose_life(1 - team, &mut batch);
                }
            }
        } else {
            // A life lost puts out only that seat, so the losers are known first.
            let mut losers = self.active & !gone_out;
            while losers != 0 {
                self.lose_life(losers.trailing_zeros() as usize, &mut batch);
                losers &= losers - 1;
            }
        }
        if self.game_ends_after(batch) {
            return;
        }
        let mut dealer = actor;
        while gone_out >> dealer & 1 == 0 {
            dealer = self.next_active(dealer, self.dir);
        }
        self.dealer = dealer as u8;
        self.round += 1;
        fired!(self.count, "FA-P37");
        self.start_round(None);
    }
}

// ---------------------------------------------------------------------------
// §7.3-7.4 Game end
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// Sudden death, then the standard end; records the batch's eliminations.
    /// Nothing to do unless someone was eliminated or a team has no lives left.
    #[inline]
    fn game_ends_after(&mut self, batch: Seats) -> bool {
        if batch.len > 0 || !self.goes_on() {
            self.close_batch(batch);
        }
        self.phase == Phase::GameOver
    }

    #[cold]
    fn close_batch(&mut self, batch: Seats) {
        if batch.len > 0 {
            self.elimination_log.push(batch);
            if batch.len > 1 {
                fired!(self.count, "FA-P39");
            }
        }
        if self.params.sudden_death && batch.len > 0 {
            fired!(self.count, "FA-P42");
            let ranking = self.sudden_death_ranking(batch);
            if C::ON {
                let lives = self.group_active_by(|s| (i64::from(self.lives[s]), 0));
                if lives.iter().any(|group| group.len > 1) {
                    fired!(self.count, "FA-P43");
                }
                if ranking[..ranking.len() - 1].iter().any(|group| group.len > 1) {
                    fired!(self.count, "FA-P44");
                }
            }
            self.finish("SUDDEN_DEATH", ranking);
        } else if self.params.team_play && self.team_lives.contains(&0) {
            if self.team_lives == [0, 0] {
                fired!(self.count, "FA-P41");
                let all = self.seats_where(|_| true);
                self.finish("TEAM_DRAW", vec![all]);
            } else {
                fired!(self.count, "FA-P40");
                let winner = if self.team_lives[0] > 0 { 0 } else { 1 };
                let groups = self.team_groups(winner);
                self.finish("TEAM", groups);
            }
        } else if !self.params.team_play && self.active_count() <= 1 {
            fired!(self.count, "FA-P38");
            // One group per seat at most: a single allocation.
            let mut ranking = Vec::with_capacity(self.n());
            ranking.push(self.seats_where(|s| self.is_active(s)));
            ranking.extend(self.eliminated_groups());
            self.finish("LAST_STANDING", ranking);
        }
    }

    fn team_groups(&self, better_team: usize) -> Vec<Seats> {
        vec![
            self.seats_where(|s| s % 2 == better_team),
            self.seats_where(|s| s % 2 != better_team),
        ]
    }

    /// Eliminated players, the latest batch first; one batch shares a rank.
    fn eliminated_groups(&self) -> impl Iterator<Item = Seats> + '_ {
        self.elimination_log.iter().rev().map(|b| b.sorted())
    }

    /// FA-23: more lives, then the lower sum of number cards in hand.
    fn sudden_death_ranking(&self, batch: Seats) -> Vec<Seats> {
        let hand_sum = |s: usize| {
            self.hands[s]
                .as_slice()
                .iter()
                .filter(|&&c| is_number(c))
                .map(|&c| c as i64)
                .sum()
        };
        let mut ranking = self.group_active_by(|s| (-(self.lives[s] as i64), hand_sum(s)));
        ranking.push(batch.sorted());
        ranking
    }

    fn finish(&mut self, reason: &'static str, ranking: Vec<Seats>) {
        self.phase = Phase::GameOver;
        self.pending = None;
        self.result = Some(GameResult { reason, ranking });
    }
}

impl<C: Count> Outcome for FiveAlive<C> {
    /// Lives left per seat; in team play each seat shows its team's lives.
    fn scores(&self) -> Vec<i64> {
        (0..self.n())
            .map(|s| if self.params.team_play { self.team_lives[s % 2] } else { self.lives[s] } as i64)
            .collect()
    }

    fn final_placements(&self) -> Vec<u32> {
        let mut placements = vec![0; self.n()];
        let mut better = 0;
        for group in self.result.iter().flat_map(|r| &r.ranking) {
            for &s in group.as_slice() {
                placements[s as usize] = 1 + better;
            }
            better += group.len as u32;
        }
        placements
    }

    /// Rounds dealt so far.
    fn rounds(&self) -> u32 {
        self.round
    }
}

// ---------------------------------------------------------------------------
// §7.5 Termination
// ---------------------------------------------------------------------------

impl<C: Count> FiveAlive<C> {
    /// FA-26: past `max_actions` the game ends; a pending Bomb is dropped.
    #[inline]
    fn check_cap(&mut self) {
        // The count only: it is below the cap nearly always, and the phase
        // is looked at out of line.
        if self.action_count >= self.params.max_actions {
            self.end_at_cap();
        }
    }

    #[cold]
    fn end_at_cap(&mut self) {
        if self.phase == Phase::GameOver {
            return;
        }
        if let Some(bomb) = self.pending {
            fired!(self.count, "FA-P46");
            if bomb.eliminated.len > 0 {
                self.elimination_log.push(bomb.eliminated);
                if bomb.eliminated.len > 1 {
                    fired!(self.count, "FA-P39");
                }
            }
        }
        let ranking = if self.params.team_play {
            let [a, b] = self.team_lives;
            if a == b {
                fired!(self.count, "FA-P48");
                vec![self.seats_where(|_| true)]
            } else {
                fired!(self.count, "FA-P47");
                self.team_groups(if a > b { 0 } else { 1 })
            }
        } else {
            fired!(self.count, "FA-P45");
            let mut groups = self.group_active_by(|s| (-(self.lives[s] as i64), 0));
            if C::ON && groups.iter().any(|group| group.len > 1) {
                fired!(self.count, "FA-P49");
            }
            groups.extend(self.eliminated_groups());
            groups
        };
        self.finish("CAP", ranking);
    }
}

// ---------------------------------------------------------------------------
// §8 Variants and config keys
// ---------------------------------------------------------------------------

choice_key! {
    /// `deck_profile` (FA-1).
    pub enum DeckProfile {
        /// The 77-card deck.
        Hasbro77 = "hasbro77",
        /// The 75-card deck.
        Alt75 = "alt75",
    }
}

choice_key! {
    /// `bomb_response` (FA-9).
    pub enum BombResponse {
        /// Every target answers at once, with a `0` if it holds one.
        Forced = "forced",
        /// Each target chooses, in turn.
        Optional = "optional",
    }
}

choice_key! {
    /// `redeal_deal_order` (FA-14).
    pub enum RedealDealOrder {
        /// From the player's left, clockwise.
        ClockwiseFromLeft = "clockwise_from_left",
        /// From the next player, in the direction of play.
        PlayDirection = "play_direction",
    }
}

variant_keys! {
    /// The variant keys of §8, checked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Params {
        /// Seven players are allowed only with this.
        allow_seven_players: bool = boolean(false),
        /// Which deck is in play.
        deck_profile: DeckProfile = choice,
        /// Lives per player (per team in team play).
        lives: u32 = int(5, 1, 1000),
        /// Cards dealt to each player.
        hand_size: usize = int(10, 1, i64::MAX / 8),
        /// The first dealer's seat.
        first_dealer: usize = int(0, 0, i64::MAX / 8),
        /// Whether each round starts clockwise.
        reset_direction_each_round: bool = boolean(true),
        /// Whether a player who can play may flip.
        allow_voluntary_flip: bool = boolean(false),
        /// Whether a flip ends the turn.
        flip_ends_turn: bool = boolean(true),
        /// How a Bomb is answered.
        bomb_response: BombResponse = choice,
        /// Who a Redeal deals to first.
        redeal_deal_order: RedealDealOrder = choice,
        /// Whether the first elimination ends the game.
        sudden_death: bool = boolean(false),
        /// Partnerships of alternate seats sharing lives.
        team_play: bool = boolean(false),
        /// Whether D1, D2 and Bomb hit the player's teammates.
        team_wilds_hit_teammates: bool = boolean(true),
        /// Actions after which the game stops.
        max_actions: u64 = int(10_000, 1, 1_000_000_000),
    }
}

impl Variant for Params {
    /// The cross-key checks of §8.
    fn check_config(&self) -> Result<(), Error> {
        let n = self.players;
        if n == 7 && !self.allow_seven_players {
            return Err(invalid(
                "players",
                "7 players need allow_seven_players = true".into(),
            ));
        }
        if self.first_dealer >= n {
            return Err(invalid(
                "first_dealer",
                format!(
                    "must be a seat from 0 to {}, got {}",
                    n - 1,
                    self.first_dealer
                ),
            ));
        }
        if self.team_play && n != 4 && n != 6 {
            return Err(invalid(
                "team_play",
                format!("needs 4 or 6 players, got {n}"),
            ));
        }
        if self.team_play && self.sudden_death {
            return Err(invalid(
                "sudden_death",
                "cannot be combined with team_play".into(),
            ));
        }
        if self.hand_size.saturating_mul(n) > self.deck_size() {
            return Err(invalid(
                "hand_size",
                format!(
                    "{} cards for {n} players is more than the {}-card deck",
                    self.hand_size,
                    self.deck_size()
                ),
            ));
        }
        Ok(())
    }

    /// The profile's cards in canonical kind order, as codes.
    fn canonical_deck(&self) -> Vec<String> {
        self.canonical_cards()
            .as_slice()
            .iter()
            .map(|&c| CODES[c as usize].to_string())
            .collect()
    }
}

// ---------------------------------------------------------------------------
// Helpers: tables, seat orders and fast paths the rules above use
// ---------------------------------------------------------------------------

/// The first seat of `active` after `seat` going in direction `dir` (§3.1):
/// the lowest active seat above it, else (round the table) the lowest of all;
/// the mirror image counter-clockwise. `seat` itself if it is the only one.
pub(super) fn next_seat(active: u8, seat: usize, dir: i8) -> usize {
    let active = u32::from(active);
    // With `seat` added, the wrap-around always finds a seat.
    let wrap = active | 1 << seat;
    if dir > 0 {
        let above = active & !((2u32 << seat) - 1);
        (if above != 0 { above } else { wrap }).trailing_zeros() as usize
    } else {
        let below = active & ((1u32 << seat) - 1);
        31 - (if below != 0 { below } else { wrap }).leading_zeros() as usize
    }
}

/// The seats of `active` in turn order going in `dir`, from `first` if it
/// is active, else from the next one after it (§3.1); each once.
pub(super) fn seats_in_order(active: u8, first: usize, dir: i8) -> Seats {
    let mut order = Seats::default();
    let mut s = if active >> first & 1 == 1 {
        first
    } else {
        next_seat(active, first, dir)
    };
    for _ in 0..active.count_ones() {
        order.push(s);
        s = next_seat(active, s, dir);
    }
    order
}

/// The other seats of `active` in turn order, from the next one after `seat`.
pub(super) fn others_of(active: u8, seat: usize, dir: i8) -> Seats {
    seats_in_order(active & !(1 << seat), next_seat(active, seat, dir), dir)
}

/// `seats` without `seat`'s teammates (the seats of its parity, FA-25).
pub(super) fn without_teammates(seats: Seats, seat: usize) -> Seats {
    let mut out = Seats::default();
    for &s in seats.as_slice().iter().filter(|&&s| s as usize % 2 != seat % 2) {
        out.push(s as usize);
    }
    out
}

/// The canonical decks (§2.2), built once: every round starts from one.
const HASBRO77_DECK: Pile = canonical_deck(&HASBRO77);

const ALT75_DECK: Pile = canonical_deck(&ALT75);

const fn canonical_deck(counts: &[u8; KINDS]) -> Pile {
    let mut pile = Pile::EMPTY;
    let mut kind = 0;
    while kind < KINDS {
        let mut copies = 0;
        while copies < counts[kind] {
            pile.cards[pile.len as usize] = kind as u8;
            pile.len += 1;
            copies += 1;
        }
        kind += 1;
    }
    pile
}

/// §6.2, the total per card: `total = (total & TOTAL_KEEP) + TOTAL_ADD`.
/// Numbers add their value; `=21`, `=10`, `=0` set it, and so do `REDEAL` and
/// a forced `BOMB` (to 0: the Bomb's answers do not read it, 6.6); the other
/// wild cards keep it.
const TOTAL_KEEP: [u8; KINDS] = [
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0,
];

const TOTAL_ADD: [u8; KINDS] = [0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 21, 10, 0, 0, 0];

/// `FITTING[t]`: the kinds that may be played at total `t` (§5.3), every wild
/// card and the numbers up to `21 - t`. 32 entries, so that a total masked
/// with 31 needs no bounds check (only 0..=21 occur).
pub(super) const FITTING: [u32; 32] = {
    let mut table = [WILD_KINDS; 32];
    let mut total = 0;
    while total <= 21 {
        let room = if 21 - total < 7 { 21 - total } else { 7 };
        table[total] = WILD_KINDS | ((1 << (room + 1)) - 1);
        total += 1;
    }
    table
};

/// The kinds whose effect moves cards between hands and piles.
const MOVES_CARDS: u32 = 1 << D1 | 1 << D2 | 1 << REDEAL | 1 << BOMB;

/// The kinds whose effect can take cards from other hands (D1 and D2 only add).
const TAKES_CARDS: u32 = 1 << REDEAL | 1 << BOMB;

impl Params {
    pub(super) fn counts(&self) -> &'static [u8; KINDS] {
        match self.deck_profile {
            DeckProfile::Hasbro77 => &HASBRO77,
            DeckProfile::Alt75 => &ALT75,
        }
    }

    pub(super) fn deck_size(&self) -> usize {
        self.counts().iter().map(|&c| c as usize).sum()
    }

    /// The profile's cards in canonical kind order (§2.2), as kinds.
    #[inline]
    fn canonical_cards(&self) -> Pile {
        match self.deck_profile {
            DeckProfile::Hasbro77 => HASBRO77_DECK,
            DeckProfile::Alt75 => ALT75_DECK,
        }
    }
}

impl<C: Count> FiveAlive<C> {
    pub(super) fn blank(params: Params, seed: u64) -> Self {
        let mut game = FiveAlive {
            count: C::default(),
params,
            rng: SplitMix64::new(seed),
            round: 1,
            dealer: params.first_dealer as u8,
            dir: 1,
            current: 0,
            phase: Phase::Play,
            total: 0,
            lives: [params.lives; MAX_PLAYERS],
            team_lives: [params.lives; 2],
            active: 0,
            next: [[0; 8]; 2],
            hands: [Hand::EMPTY; MAX_PLAYERS],
            draw: Pile::EMPTY,
            discard: Pile::EMPTY,
            pending: None,
            elimination_log: Vec::new(),
            action_count: 0,
            result: None,
            history: Vec::with_capacity(256),
            round_start: 0,
        };
        game.set_active(((1u32 << params.players) - 1) as u8);
        game
    }

    #[inline]
    pub(super) fn n(&self) -> usize {
        self.params.players
    }

    /// Sets the active seats and the turn order among them.
    pub(super) fn set_active(&mut self, active: u8) {
        self.active = active;
        for seat in 0..MAX_PLAYERS {
            self.next[0][seat] = next_seat(active, seat, 1) as u8;
            self.next[1][seat] = next_seat(active, seat, -1) as u8;
        }
    }

    /// The active seats, from `lives` (every seat in team play).
    pub(super) fn active_from_lives(&self) -> u8 {
        let all = (1u32 << self.n()) - 1;
        let alive = (0..self.n()).filter(|&s| self.lives[s] > 0);
        let alive = alive.fold(0u32, |set, s| set | 1 << s);
        (if self.params.team_play { all } else { alive }) as u8
    }

    #[inline]
    pub(super) fn active_count(&self) -> usize {
        self.active.count_ones() as usize
    }

    /// Whether D1, D2 and BOMB spare the player's teammates (team play without
    /// `team_wilds_hit_teammates`).
    fn teammates_spared(&self) -> bool {
        self.params.team_play && !self.params.team_wilds_hit_teammates
    }

    fn can_play_something(&self) -> bool {
        self.playable() != 0
    }

    /// The seats of `seats` whose hands are empty. Every hand is looked at,
    /// in a loop of fixed length: no branch on which seats they are.
    #[inline]
    fn empty_hands(&self, seats: u8) -> u8 {
        let empty = self.hands.iter().enumerate();
        let empty = empty.fold(0, |set, (s, hand)| set | u8::from(hand.is_empty()) << s);
        empty & seats
    }

    /// The total after `card` (§6.2).
    #[inline]
    fn set_total(&mut self, card: u8) {
        let kind = card as usize;
        self.total = (self.total & TOTAL_KEEP[kind]) + TOTAL_ADD[kind];
    }

    /// `make_others_draw` when the pile runs out on the way or teammates are
    /// spared: one card at a time, rebuilding the pile when it is empty.
    #[cold]
    fn draw_one_by_one(&mut self, player: usize, count: usize) {
        for &seat in self.targets(player).as_slice() {
            for _ in 0..count {
                self.draw(seat as usize);
            }
        }
    }

    /// Whether the game goes on with the lives as they are (§6.1 step 4).
    #[inline]
    fn goes_on(&self) -> bool {
        if self.params.team_play {
            !self.team_lives.contains(&0)
        } else {
            self.active_count() > 1
        }
    }

    fn seats_where(&self, keep: impl Fn(usize) -> bool) -> Seats {
        let mut out = Seats::default();
        for s in (0..self.n()).filter(|&s| keep(s)) {
            out.push(s);
        }
        out
    }

    /// Active seats grouped by `key`, the smallest key first.
    fn group_active_by(&self, key: impl Fn(usize) -> (i64, i64)) -> Vec<Seats> {
        let mut keys: Vec<(i64, i64)> = (0..self.n())
            .filter(|&s| self.is_active(s))
            .map(&key)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.iter()
            .map(|&k| self.seats_where(|s| self.is_active(s) && key(s) == k))
            .collect()
    }
}
