"""The replay page in a real headless browser, for every game.

A match of built-in bots writes the page (``cardref.match(..., html=...)``).
A probe script added to a copy of it drives the page as a person would —
arrow keys, the step buttons, the jump box, the view menu — and records what
the browser shows at each point: the step, each seat's hand (cards face up,
or how many face down), the game's own parts of the table (Take 5's rows,
Back Alley's trick and trump, 5 Alive's total, Twenty-Two's trick, 100's
running total) and the action chosen. The test replays the same game through
the engine and checks every record: the full view shows every hand, a seat's
view only its own. Chromium comes from ``scripts/ci-system-deps.sh``.
"""

from __future__ import annotations

import json

import pytest
from browser import probe

import cardref

GAMES = {  # small tables and short games: the page holds every step
    "take5": (3, {"end_score": 12}),
    "back_alley": (4, {"schedule": [2, 1]}),
    "five_alive": (3, {"lives": 1, "hand_size": 5}),
    "twenty_two": (3, {"elimination_score": 6}),
    "hundred": (3, {"chips": 1}),
}

PROBE = """<script>
window.addEventListener("load", () => {
  const out = [];
  const $ = (id) => document.getElementById(id);
  const key = (k) => document.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true}));
  const jump = (k) => { $("jump").value = k; $("go").click(); };
  const view = (v) => { $("view").value = v; $("view").dispatchEvent(new Event("change")); };
  const cardsIn = (el) => Array.from(el.querySelectorAll("[data-card]"), (c) => c.dataset.card);
  const record = (label) => {
    const seats = {};
    for (const box of document.querySelectorAll("#table .seat")) {
      const hand = box.querySelector(".hand");
      const hidden = hand.querySelector("[data-hidden]");
      seats[box.dataset.seat] = {cards: cardsIn(hand),
                                 hidden: hidden ? +hidden.dataset.hidden : null,
                                 toAct: box.classList.contains("to-act")};
    }
    const parts = {};
    for (const el of document.querySelectorAll("#table .center [data-part]")) {
      if (el.dataset.part in parts) continue;
      parts[el.dataset.part] = {text: el.innerText, cards: cardsIn(el)};
    }
    const answer = document.querySelector("[data-part=answer]");
    const current = document.querySelector("#log li.current");
    out.push({label, step: +document.body.dataset.step, view: document.body.dataset.view,
              counter: $("counter").innerText, answer: answer ? answer.innerText : null,
              current: current ? current.innerText : null, seats, parts,
              height: $("table").getBoundingClientRect().height});
  };
  const mid = Math.floor(window.cardrefReplay.steps / 2);
  record("start");
  key("ArrowRight"); key("ArrowRight"); key("ArrowRight"); record("three steps forward");
  $("next").click(); $("prev").click(); key("ArrowLeft"); record("forward, back, back");
  jump(mid); record("jump");
  key("End"); record("end");
  key("Home"); record("home");
  view("1"); jump(mid); record("seat 1");
  key("ArrowRight"); record("seat 1, a step on");
  key("ArrowRight"); record("seat 1, two steps on");
  view("0"); record("seat 0");
  $("last").click(); record("seat 0 at the end");
  view("full"); record("full view at the end");
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _table(game: str, state: dict) -> dict[str, list[str]]:
    """The cards each game's own parts of the table must show."""
    if game == "take5":
        return {"rows": [c for row in state["rows"] for c in row]}
    if game == "back_alley":
        return {"trick": [card for _, card in state["trick"]]}
    if game == "twenty_two" and state["trick"]:
        return {"trick": [c for _, cards in state["trick"]["plays"] for c in cards]}
    return {}


def _check(game: str, players: int, record: dict, states: list, actions: list,
           names: list[str]) -> None:
    k, last = record["step"], len(actions)
    state = states[k]
    assert record["counter"] == f"Step {k} of {last}", record["label"]
    assert record["height"] > 200  # the table is drawn
    assert set(record["seats"]) == {str(p) for p in range(players)}
    for p in range(players):
        shown = record["seats"][str(p)]
        assert shown["toAct"] == (p == (actions[k][0] if k < last else None)), record["label"]
        if record["view"] == "full" or int(record["view"]) == p:
            assert shown["cards"] == state["hands"][p], (record["label"], p)
        else:  # another seat's hand: face down, as many cards as it holds
            assert shown["cards"] == [], (record["label"], p)
            assert shown["hidden"] == len(state["hands"][p]), (record["label"], p)
    for part, cards in _table(game, state).items():
        assert record["parts"][part]["cards"] == cards, (record["label"], part)
    if game == "five_alive":
        assert record["parts"]["total"]["text"].split()[0] == str(state["total"])
    if game == "hundred":
        assert record["parts"]["value"]["text"].split()[0] == str(state["value"])
    if game == "back_alley":
        trump = state["trump"]
        assert ("no trump" if trump == "none" else {"C": "clubs", "D": "diamonds", "H": "hearts",
                "S": "spades"}[trump]) in record["parts"]["trump"]["text"]
    if k < last and record["view"] in ("full", str(actions[k][0])):
        assert record["answer"] == actions[k][2], record["label"]
    if k and record["view"] == "full":
        seat, _, action, _ = actions[k - 1]
        assert record["current"] == f"[{seat}] {names[seat]}: {action}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_page_steps_through_every_game(game, chromium, tmp_path):
    players, variant = GAMES[game]
    page = tmp_path / f"{game}.html"
    result = cardref.match(game, ["heuristic", "random"], players=players, games=1, seed=3,
                           html=page, **variant)
    played = result.games[0]
    engine = cardref.load(game, players, **variant)
    state = engine.new_state(seed=played.seed)
    states = [json.loads(state.to_json())]
    for _, _, action, _ in played.actions:
        state.apply(action)
        states.append(json.loads(state.to_json()))
    assert state.is_terminal()

    shown = probe(chromium, page, PROBE, tmp_path, window="1400,1000")
    last, mid = len(played.actions), len(played.actions) // 2
    assert [r["step"] for r in shown] == [0, 3, 2, mid, last, 0, mid, mid + 1, mid + 2, mid + 2,
                                          last, last]
    assert [r["view"] for r in shown] == ["full"] * 6 + ["1", "1", "1", "0", "0", "full"]
    for record in shown:
        _check(game, players, record, states, played.actions, played.seating)
    if game == "take5":  # another seat's card goes down face down, in its view too
        seat1 = shown[6]
        if played.actions[mid - 1][0] != 1:
            assert seat1["current"].endswith("commits a card, face down")
