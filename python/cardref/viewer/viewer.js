"use strict";
// The replay page: draws one game step by step from the data above (see
// cardref/viewer/__init__.py). Everything is built with DOM calls and text
// nodes: names, messages and tracebacks come from bots and are never HTML.
(function () {
  const DATA = JSON.parse(document.getElementById("replay-data").textContent);
  const N = DATA.players;
  const LAST = DATA.steps.length - 1;

  // The views, rebuilt from their patches ------------------------------------

  function patch(old, change) {
    if ("=" in change) return change["="];
    if ("+" in change) return old.slice(change.s || 0).concat(change["+"]);
    if ("i" in change) {
      const out = old.slice();
      for (const [index, part] of Object.entries(change.i)) out[+index] = patch(out[+index], part);
      return out;
    }
    const out = Object.assign({}, old);
    for (const key of change.r || []) delete out[key];
    for (const [key, part] of Object.entries(change.k)) out[key] = patch(out[key], part);
    return out;
  }

  function build(patches) {
    const out = [];
    let current;
    for (const p of patches) {
      current = patch(current, p);
      out.push(current);
    }
    return out;
  }

  const FULL = build(DATA.full);
  const SEATS = DATA.seats.map(build);

  // Small helpers --------------------------------------------------------------

  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  const name = (p) => `seat ${p} (${DATA.names[p]})`;
  // A seat's short label: its bot's name, with the seat when that bot sits twice.
  const who = DATA.names.map((n, p) => (DATA.names.indexOf(n) !== DATA.names.lastIndexOf(n) ? `${n}#${p}` : n));
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);

  function cards(list, face, opts) {
    const o = opts || {};
    return h("div", {class: "cards" + (o.cls ? " " + o.cls : ""), "data-part": o.part},
      list.map((code, i) => {
        const card = face(code, o.small);
        if (o.mark && o.mark(code, i)) card.classList.add(o.markClass || "placing");
        return card;
      }));
  }

  function backs(n, small) {
    const shown = Math.min(n, 13);
    const el = h("div", {class: "cards", "data-hidden": n},
      Array.from({length: shown}, () => h("span", {class: "card back" + (small ? " small" : "")})));
    if (n > shown || n === 0) el.append(h("span", {class: "count"}, n === 0 ? "no cards" : `×${n}`));
    return el;
  }

  function pips(have, max, full, empty) {
    if (max > 12) return `${have} of ${max}`;
    return full.repeat(Math.max(0, have)) + empty.repeat(Math.max(0, max - have));
  }

  // Card faces -------------------------------------------------------------------

  const SUITS = {C: "♣", D: "♦", H: "♥", S: "♠"};
  const SUIT_NAMES = {C: "clubs", D: "diamonds", H: "hearts", S: "spades"};

  function standardCard(code, small) {
    const size = small ? " small" : "";
    if (code === "BB" || code === "LB") {
      return h("span", {class: "card joker" + size, "data-card": code,
        title: code === "BB" ? "Big Blooper" : "Little Blooper"},
        h("span", {class: "rank"}, code), h("span", {class: "suit"}, "★"));
    }
    const suit = code.slice(-1);
    const red = suit === "H" || suit === "D";
    return h("span", {class: "card" + (red ? " red" : "") + size, "data-card": code, title: code},
      h("span", {class: "rank"}, code.slice(0, -1)), h("span", {class: "suit"}, SUITS[suit] || suit));
  }

  function bullheads(n) {
    if (n === 55) return 7;
    if (n % 11 === 0) return 5;
    if (n % 10 === 0) return 3;
    if (n % 5 === 0) return 2;
    return 1;
  }

  function take5Card(code, small) {
    const k = bullheads(Number(code));
    return h("span", {class: `card heads-${k}` + (small ? " small" : ""), "data-card": code,
      title: `${code}: ${plural(k, "bullhead")}`},
      h("span", {class: "rank"}, code), h("span", {class: "heads"}, "▲" + k));
  }

  const WILDS = {D1: "Draw 1", D2: "Draw 2", PASS: "Pass", REV: "Reverse", SKIP: "Skip",
    "=21": "= 21", "=10": "= 10", "=0": "= 0", REDEAL: "Redeal", BOMB: "Bomb"};

  function fiveAliveCard(code, small) {
    const size = small ? " small" : "";
    if (/^[0-7]$/.test(code)) {
      return h("span", {class: "card number" + size, "data-card": code, title: code},
        h("span", {class: "rank"}, code));
    }
    return h("span", {class: "card wild" + size, "data-card": code, title: WILDS[code] || code},
      h("span", {class: "rank"}, WILDS[code] || code));
  }

  // What every game shares: hands seen from the view --------------------------

  // A seat's hand: every hand in the full view, only the viewer's own otherwise.
  const handOf = (v, p) => (v.hands ? v.hands[p] : p === v.seat ? v.hand : null);
  const sizeOf = (v, p) => (v.hand_sizes ? v.hand_sizes[p] : v.hands ? v.hands[p].length : 0);
  const labelled = (face, seat, code, small) =>
    h("div", {class: "play", "data-seat": seat}, face(code, small), who[seat]);

  // The games --------------------------------------------------------------------

  const take5 = {
    card: take5Card,
    secret: (action) => (action.startsWith("play ") ? "commits a card, face down" : null),
    size(v, p) {
      if (v.hands) return v.hands[p].length;
      if (v.phase !== "commit") return v.hand.length;
      return v.hand.length + (v.committed[v.seat] ? 1 : 0) - (v.committed[p] ? 1 : 0);
    },
    out: () => false,
    info(v, p) {
      const pile = v.piles[p];
      const roundHeads = v.round_heads ? v.round_heads[p] : sum(pile.map((c) => bullheads(+c)));
      const lines = [h("div", {class: "seat-info"}, h("b", {}, `${v.scores[p]} bullheads`),
        ` · this round +${roundHeads}`)];
      let committed = null;
      if (v.hands) committed = v.committed[p];
      else if (p === v.seat) committed = v.my_commitment;
      if (committed) {
        lines.push(h("div", {class: "seat-info"}, "committed ", take5Card(committed, true)));
      } else if (!v.hands && p !== v.seat && v.committed[p]) {
        lines.push(h("div", {class: "seat-info"}, "committed a card (face down)"));
      }
      if (pile.length) lines.push(h("div", {class: "seat-info"}, "taken: ", cards(pile, take5Card, {small: true})));
      return lines;
    },
    center(v) {
      const out = [h("div", {class: "line"}, `Round ${v.round} · turn ${Math.min(v.turn + 1, 10)} of 10 · `,
        v.phase.replace("_", " "), ` · the game ends at ${v.params.end_score} bullheads (▲ = bullheads on a card)`)];
      const rows = h("div", {"data-part": "rows"});
      v.rows.forEach((row, r) => {
        // Empty places up to the sixth: the card that would go there takes the row.
        const slots = Array.from({length: 6 - row.length},
          (_, i) => h("span", {class: "card slot" + (row.length + i === 5 ? " danger" : ""),
            title: row.length + i === 5 ? "a card placed here takes the row" : null}));
        const heads = sum(row.map((c) => bullheads(+c)));
        rows.append(h("div", {class: "row", "data-row": r}, h("span", {class: "label"}, `Row ${r}`),
          cards(row, take5Card), slots, h("span", {class: "count"}, `▲${heads}`)));
      });
      out.push(rows);
      if (v.revealed && v.revealed.length) {
        out.push(h("div", {class: "line"}, "Revealed this turn, placed lowest first:"));
        out.push(h("div", {class: "plays", "data-part": "revealed"}, v.revealed.map(([code, seat], i) => {
          const el = labelled(take5Card, seat, code);
          if (i === v.next_to_place) el.classList.add("winning");
          return el;
        })));
      }
      return out;
    },
  };

  function bidText(bids, p) {
    const mine = bids.filter(([seat]) => seat === p).map(([, bid]) => bid);
    return mine.length ? mine.join(", ") : "–";
  }

  const backAlley = {
    card: standardCard,
    secret: () => null,
    size: sizeOf,
    out: () => false,
    info(v, p) {
      const team = p % 2 === 0 ? "A" : "B";
      return [h("div", {class: "seat-info"}, `team ${team} · bid `, h("b", {}, bidText(v.bids, p)),
        ` · tricks ${v.tricks_won[p]}`)];
    },
    center(v) {
      const stock = v.stock ? v.stock.length : v.stock_size;
      const trump = v.trump === "none" ? "no trump" : `${SUITS[v.trump]} ${SUIT_NAMES[v.trump]}`;
      const out = [h("div", {class: "line"}, `Deal ${v.hand_index + 1} · ${plural(v.hand_size, "card")} each · `,
        `dealer ${name(v.dealer)} · ${v.phase}`)];
      out.push(h("div", {class: "row", "data-part": "trump"}, "Trump: ", h("b", {}, trump), " · upcard ",
        v.upcard ? standardCard(v.upcard) : "none", ` · stock ${stock} · trumps `,
        v.trump_broken ? "broken" : "not broken"));
      if (v.turned_jokers && v.turned_jokers.length) {
        out.push(h("div", {class: "line"}, "Jokers turned under the stock: ",
          cards(v.turned_jokers, standardCard, {small: true})));
      }
      if (v.joker_exchange) {
        const x = v.joker_exchange;
        out.push(h("div", {class: "line"}, `${name(x.seat)} discarded `, standardCard(x.discarded, true),
          x.drawn ? [" and drew ", standardCard(x.drawn, true)] : " and drew a card"));
      }
      const teams = [0, 1].map((t) => {
        const seats = [t, t + 2];
        const tricks = v.tricks_won[t] + v.tricks_won[t + 2];
        return h("span", {"data-team": t}, h("b", {}, `Team ${"AB"[t]}`),
          ` (${who[t]}, ${who[t + 2]}): ${v.team_scores[t]} points, `,
          `${plural(tricks, "trick")} this deal, bids ${seats.map((s) => bidText(v.bids, s)).join(" + ")}`);
      });
      out.push(h("div", {class: "line"}, teams[0], " · ", teams[1]));
      out.push(h("div", {class: "plays", "data-part": "trick"},
        v.trick.length ? v.trick.map(([seat, code]) => labelled(standardCard, seat, code))
          : h("span", {}, v.phase === "play" ? `${name(v.to_act)} leads` : "no trick in play")));
      const done = v.completed_tricks;
      if (done.length) {
        const t = done[done.length - 1];
        out.push(h("div", {class: "line"}, `Last trick (${done.length} played), won by ${name(t.winner)}: `,
          h("span", {class: "cards"}, t.cards.map(([, code]) => standardCard(code, true)))));
      }
      if (v.deals.length) {
        const d = v.deals[v.deals.length - 1];
        out.push(h("div", {class: "line"}, `Previous deal (${d.hand_size} cards): ${d.outcome}, `,
          `tricks ${d.tricks.join("–")}, points ${d.points.join(" / ")}`));
      }
      if (v.result) out.push(h("div", {class: "banner"}, `Result: ${v.result}`));
      return out;
    },
  };

  const fiveAlive = {
    card: fiveAliveCard,
    secret: () => null,
    size: sizeOf,
    out: (v, p) => !v.team_lives && v.lives[p] === 0,
    info(v, p) {
      const lives = v.team_lives ? v.team_lives[p % 2] : v.lives[p];
      const who = v.team_lives ? `team ${p % 2} lives ` : "lives ";
      return [h("div", {class: "seat-info", "data-part": "lives"}, who,
        h("span", {class: "pips"}, pips(lives, v.params.lives, "♥", "♡")), ` (${lives})`)];
    },
    center(v) {
      const draw = v.draw_pile ? v.draw_pile.length : v.draw_size;
      const pile = v.discard_pile;
      const out = [h("div", {class: "line"}, `Round ${v.round} · dealer ${name(v.dealer)} · play goes `,
        v.dir === 1 ? "↻ clockwise" : "↺ counter-clockwise")];
      out.push(h("div", {class: "big", "data-part": "total"}, String(v.total), h("small", {}, " / 21")));
      out.push(h("div", {class: "row"}, h("span", {}, "Draw pile "), backs(Math.min(draw, 1)),
        h("span", {class: "count"}, `${draw}`), h("span", {}, " · discards (top last) "),
        pile.length ? cards(pile.slice(-8), fiveAliveCard,
          {part: "discards", mark: (c, i) => i === Math.min(pile.length, 8) - 1}) : "none"));
      if (v.pending_bomb) {
        const b = v.pending_bomb;
        out.push(h("div", {class: "line"}, `Bomb by ${name(b.bomber)}: answering `,
          b.responders.map((s) => who[s]).join(", ")));
      }
      if (v.result) {
        out.push(h("div", {class: "banner"}, `${v.result.reason}: `,
          v.result.ranking.map((group) => group.map((s) => who[s]).join(" = ")).join(" > ")));
      }
      return out;
    },
  };

  function playsOf(tricks, trick, p) {
    let n = 0;
    for (const t of tricks.concat(trick ? [trick] : [])) {
      for (const [seat, set] of t.plays) if (seat === p) n += set.length;
    }
    return n;
  }

  const twentyTwo = {
    card: standardCard,
    secret(action) {
      if (!action.startsWith("discard")) return null;
      const n = action.split(" ").length - 1;
      return n ? `discards ${plural(n, "card")}, face down` : "keeps every card";
    },
    size(v, p) {
      if (v.hands) return v.hands[p].length;
      if (!v.active[p] || v.phase === "game_over") return 0;
      return v.deal_size - playsOf(v.tricks, v.trick, p);
    },
    out: (v, p) => !v.active[p],
    info(v, p) {
      const limit = v.params.elimination_score;
      const lines = [h("div", {class: "seat-info"}, h("b", {}, `${v.scores[p]} of ${limit}`), " ",
        h("span", {class: "bar"}, h("span", {style: `width:${Math.min(100, 100 * v.scores[p] / limit)}%`})),
        v.out_hand[p] ? ` · out in hand ${v.out_hand[p]}` : "")];
      let discards = null;
      if (v.discards) discards = v.discards[p];
      else if (p === v.seat) discards = v.my_discards;
      if (discards && discards.length) {
        lines.push(h("div", {class: "seat-info"}, "discarded ", cards(discards, standardCard, {small: true})));
      } else if (!discards && v.discard_counts[p]) {
        lines.push(h("div", {class: "seat-info"}, `discarded ${plural(v.discard_counts[p], "card")}`));
      }
      if (v.score_piles[p].length) {
        lines.push(h("div", {class: "seat-info"}, "score pile ", cards(v.score_piles[p], standardCard, {small: true})));
      }
      return lines;
    },
    center(v) {
      const stock = v.stock ? v.stock.length : v.stock_size;
      const out = [h("div", {class: "line"}, `Hand ${v.hand_number} · ${plural(v.deal_size, "card")} each · `,
        `next target ${v.target_size} · dealer ${name(v.dealer)} · ${v.phase} · stock ${stock}`)];
      if (v.trick) {
        const t = v.trick;
        out.push(h("div", {class: "line"}, `Trick ${v.tricks.length + 1}, led by ${name(t.leader)}; to beat: `,
          t.bar.length ? h("span", {class: "cards"}, t.bar.map((c) => standardCard(c, true))) : "nothing yet"));
        out.push(h("div", {class: "plays", "data-part": "trick"}, t.plays.map(([seat, set]) => {
          const el = h("div", {class: "play" + (seat === t.bar_holder ? " winning" : ""), "data-seat": seat},
            cards(set, standardCard), who[seat]);
          return el;
        })));
      }
      if (v.tricks.length) {
        out.push(h("div", {class: "trick-list"}, v.tricks.map((t, i) => h("div", {},
          `Trick ${i + 1}: `, t.plays.map(([seat, set]) => `${who[seat]} ${set.join(" ")}`).join(" · "),
          ` → ${who[t.winner]}`))));
      }
      if (v.last_trick) {
        out.push(h("div", {class: "line"}, "Last hand's final trick: ",
          v.last_trick.plays.map(([seat, set]) => `${who[seat]} ${set.join(" ")}`).join(" · "),
          "; scored by ", v.last_trick.scorers.map((s) => who[s]).join(", ")));
      }
      return out;
    },
  };

  const hundred = {
    card: standardCard,
    secret: () => null,
    size: sizeOf,
    out: (v, p) => v.chips[p] === 0,
    info(v, p) {
      return [h("div", {class: "seat-info", "data-part": "chips"}, "chips ",
        h("span", {class: "pips"}, pips(v.chips[p], v.params.chips, "●", "○")), ` (${v.chips[p]})`)];
    },
    center(v) {
      const stock = v.stock ? v.stock.length : v.stock_size;
      const pile = v.pile;
      const out = [h("div", {class: "line"}, `Deal ${v.deal_number} · dealer ${name(v.dealer)} · play goes `,
        v.dir === 1 ? "↻ clockwise" : "↺ counter-clockwise")];
      out.push(h("div", {class: "big", "data-part": "value"}, String(v.value), h("small", {}, " / 100")));
      out.push(h("div", {class: "row"}, "Stock ", backs(Math.min(stock, 1)), h("span", {class: "count"}, `${stock}`),
        " · pile (top last) ", pile.length ? cards(pile.slice(-8), standardCard,
          {part: "pile", mark: (c, i) => i === Math.min(pile.length, 8) - 1}) : "empty"));
      if (v.recent.length) {
        out.push(h("div", {class: "line"}, "Recent: ",
          v.recent.map(([seat, action]) => `${who[seat]} ${action}`).join(" · ")));
      }
      if (v.result) {
        out.push(h("div", {class: "banner"}, `${v.result.reason}: `,
          v.result.ranking.map((group) => group.map((s) => who[s]).join(" = ")).join(" > ")));
      }
      return out;
    },
  };

  const GAMES = {take5, back_alley: backAlley, five_alive: fiveAlive, twenty_two: twentyTwo, hundred};
  const GAME = GAMES[DATA.game];

  // Where we are -------------------------------------------------------------------

  let step = 0;
  let viewer = null; // null: the referee's full view; else a seat

  const $ = (id) => document.getElementById(id);
  const current = () => (viewer === null ? FULL[step] : SEATS[viewer][step]);

  // An action as the viewer saw it: another seat's secret action is not shown.
  function actionText(k) {
    const s = DATA.steps[k];
    const hidden = viewer !== null && viewer !== s.seat ? GAME.secret(s.action) : null;
    return hidden || s.action;
  }

  function seatBox(v, p) {
    const st = DATA.steps[step];
    const hand = handOf(v, p);
    const failed = DATA.statuses[p] !== "ok";
    const tags = h("span", {class: "tags"},
      st.to_act === p ? h("span", {class: "turn"}, "to act") : null,
      viewer === p ? h("span", {}, "this view") : null,
      failed ? h("span", {class: "bad", title: DATA.messages[p] || ""}, DATA.statuses[p]) : null,
      GAME.out(v, p) ? h("span", {}, "out") : null);
    const box = h("div", {class: "seat", "data-seat": p},
      h("div", {class: "seat-head"}, h("span", {}, `${p} · ${DATA.names[p]}`), tags),
      GAME.info(v, p),
      h("div", {class: "hand", "data-seat": p},
        hand ? cards(hand, GAME.card, {part: "hand"}) : backs(GAME.size(v, p))));
    if (st.to_act === p) box.classList.add("to-act");
    if (viewer === p) box.classList.add("viewer");
    if (GAME.out(v, p)) box.classList.add("out");
    if (failed) box.classList.add("failed");
    return box;
  }

  function drawTable(v) {
    const top = Math.ceil(N / 2);
    const seats = Array.from({length: N}, (_, p) => seatBox(v, p));
    const upper = h("div", {class: "ring top"}, seats.slice(0, top));
    const lower = h("div", {class: "ring bottom"}, seats.slice(top).reverse());
    const center = h("div", {class: "center", "data-part": "center"}, GAME.center(v));
    if (step === LAST && DATA.over) center.append(resultBanner());
    $("table").replaceChildren(upper, center, lower);
  }

  function resultBanner() {
    const places = DATA.placements || [];
    return h("div", {class: "banner", "data-part": "result"}, "Game over · scores ",
      DATA.scores.map((s, p) => `${who[p]} ${s}`).join(", "),
      places.length ? ` · placements ${places.map((pl, p) => `${who[p]} ${pl}`).join(", ")}` : "");
  }

  function describeMove() {
    const st = DATA.steps[step];
    const parts = [];
    if (step === 0) parts.push("The deal.");
    else {
      const prev = DATA.steps[step - 1];
      const fallback = prev.actor === "fallback" ? " (fallback)" : "";
      parts.push(`${name(prev.seat)}: ${actionText(step - 1)}${fallback}.`);
    }
    if (st.to_act !== null && st.to_act !== undefined) parts.push(`Next to act: ${name(st.to_act)}.`);
    else if (!DATA.over && step === LAST) parts.push("The record ends here: the game was stopped.");
    $("move").textContent = parts.join(" ");
  }

  function drawTurn() {
    const st = DATA.steps[step];
    const panel = $("turn");
    panel.replaceChildren();
    if (st.action === undefined || (viewer !== null && viewer !== st.seat)) return;
    const ms = (1000 * st.seconds).toFixed(st.seconds < 0.001 ? 3 : 1);
    const how = st.actor === "fallback" ? "the fallback chose"
      : st.actor === "human" ? "the person chose" : `it answered in ${ms} ms`;
    const legal = h("div", {class: "legal"},
      st.legal.map((a) => h("span", {class: a === st.action ? "chosen" : null}, a)));
    if (st.legal_count > st.legal.length) {
      legal.append(h("span", {}, `… and ${st.legal_count - st.legal.length} more`));
    }
    panel.append(h("h2", {}, `${name(st.seat)} to act: ${plural(st.legal_count, "legal action")}; ${how} `,
      h("code", {"data-part": "answer"}, st.action)), legal);
  }

  function drawLog() {
    const items = DATA.steps.slice(0, LAST).map((s, k) => {
      const li = h("li", {"data-step": k + 1, class: s.actor === "fallback" ? "fallback" : null},
        `[${s.seat}] ${DATA.names[s.seat]}: ${actionText(k)}`);
      li.addEventListener("click", () => go(k + 1));
      return li;
    });
    $("log").replaceChildren(...items);
  }

  function markLog() {
    for (const li of $("log").children) {
      const k = +li.dataset.step;
      li.classList.toggle("current", k === step);
      li.classList.toggle("future", k > step);
    }
    const now = $("log").querySelector("li.current");
    if (now && now.scrollIntoView) now.scrollIntoView({block: "nearest"});
  }

  function render() {
    const v = current();
    $("counter").textContent = `Step ${step} of ${LAST}`;
    $("slider").value = step;
    $("jump").value = step;
    describeMove();
    drawTable(v);
    drawTurn();
    markLog();
    $("json").textContent = JSON.stringify(v, null, 1);
    document.body.dataset.step = step;
    document.body.dataset.view = viewer === null ? "full" : viewer;
    try {
      history.replaceState(null, "", `#step=${step}&view=${viewer === null ? "full" : viewer}`);
    } catch (e) { /* a page opened from a file may refuse: the position is then not kept */ }
  }

  function go(k) {
    step = Math.max(0, Math.min(LAST, Math.round(Number(k)) || 0));
    render();
  }

  function setView(value) {
    viewer = value === "full" ? null : Number(value);
    $("view").value = value;
    drawLog();
    render();
  }

  // The page around the table ------------------------------------------------------

  function header() {
    document.title = `${DATA.title} · cardref replay`;
    $("title").textContent = DATA.title;
    const variant = Object.entries(DATA.variant).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
    $("about").textContent = `${DATA.game} · ${DATA.players} players · seed ${DATA.seed} · ` +
      `${DATA.engine} engine · ${variant.length ? "variant: " + variant.join(", ") : "standard rules"}`;
    const problems = DATA.statuses.map((status, p) => {
      if (status === "ok") return null;
      const box = h("div", {class: "problem", "data-seat": p},
        h("b", {}, `${name(p)} forfeited: ${status}`), DATA.messages[p] ? ` — ${DATA.messages[p]}` : "");
      if (DATA.tracebacks[p]) box.append(h("pre", {class: "traceback"}, DATA.tracebacks[p]));
      return box;
    });
    $("problems").replaceChildren(...problems.filter(Boolean));
    const select = $("view");
    select.replaceChildren(h("option", {value: "full"}, "Referee: everything"),
      ...DATA.names.map((n, p) => h("option", {value: p}, `Seat ${p} (${n}): what it saw`)));
  }

  function wire() {
    $("slider").max = LAST;
    $("jump").max = LAST;
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("last").addEventListener("click", () => go(LAST));
    $("slider").addEventListener("input", (e) => go(e.target.value));
    $("go").addEventListener("click", () => go($("jump").value));
    $("jump").addEventListener("keydown", (e) => { if (e.key === "Enter") go($("jump").value); });
    $("view").addEventListener("change", (e) => setView(e.target.value));
    document.addEventListener("keydown", (e) => {
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
      const moves = {ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: LAST};
      if (e.key in moves) {
        e.preventDefault();
        go(moves[e.key]);
      }
    });
  }

  function start() {
    header();
    wire();
    const wanted = new URLSearchParams(location.hash.slice(1));
    const view = wanted.get("view");
    viewer = view !== null && view !== "full" && +view >= 0 && +view < N ? +view : null;
    $("view").value = viewer === null ? "full" : String(viewer);
    step = Math.max(0, Math.min(LAST, Number(wanted.get("step")) || 0));
    drawLog();
    render();
  }

  window.cardrefReplay = {go, setView, steps: LAST, view: () => ({step, viewer})};
  start();
})();
