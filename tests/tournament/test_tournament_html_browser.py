"""The HTML report opened in a real headless browser (Debian's chromium).

The test adds a probe script to a copy of the report that reads what the
browser laid out — the standings rows as rendered text and the position,
size and colour of every chart mark — and dumps it into the DOM, which
``chromium --dump-dom`` prints. Chromium is installed by
``scripts/ci-system-deps.sh`` (run here if it is missing).
"""

from __future__ import annotations

import json

import pytest
from browser import probe

from cardref.cli import main

PROBE = """<script>
window.addEventListener("load", () => {
  const out = {summary: document.querySelector("#summary").innerText, rows: [], marks: []};
  for (const tr of document.querySelectorAll("#standings tbody tr")) {
    out.rows.push(tr.innerText.split("\\t"));
  }
  for (const g of document.querySelectorAll("svg.chart g.bot")) {
    const dot = g.querySelector("circle").getBoundingClientRect();
    const bar = g.querySelector("line").getBoundingClientRect();
    out.marks.push({
      chart: g.closest("svg").dataset.stat, name: g.dataset.name,
      value: Number(g.dataset.value), x: dot.x + dot.width / 2, size: dot.width,
      barLeft: bar.left, barRight: bar.right,
      fill: getComputedStyle(g.querySelector("circle")).fill,
      label: g.querySelector("text").getBoundingClientRect().width,
    });
  }
  out.align = {};
  for (const id of ["standings", "head-to-head", "by-seat"]) {
    const cells = document.querySelectorAll(`#${id} tbody tr:first-child > *`);
    out.align[id] = Array.from(cells, (c) => getComputedStyle(c).textAlign);
  }
  out.warnings = Array.from(document.querySelectorAll(".warning"), (w) => w.innerText);
  out.viewport = !!document.querySelector('meta[name="viewport"]');
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""

CONFIG = """
game = "take5"
players = 4
seed = 3
deal_groups = 2
output = "html.sqlite"
[report]
bootstrap = 200
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "first"
path = "bots/first.py"
"""


def test_the_html_report_shows_standings_and_ci_chart(chromium, make_config, workspace,
                                                      capsys):
    config = make_config(CONFIG)
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    results = workspace / "html.sqlite"
    capsys.readouterr()
    assert main(["report", str(results), "--format", "json"]) == 0
    standings = json.loads(capsys.readouterr().out)["standings"]
    page = workspace / "report.html"
    assert main(["report", str(results), "--format", "html", "-o", str(page)]) == 0
    seen = probe(chromium, page, PROBE, workspace)

    assert "take5, 4 players" in seen["summary"] and "24 of 24 games" in seen["summary"]
    # The standings table, as rendered: rank order, names, mean placement with its CI.
    assert [row[1] for row in seen["rows"]] == [s["name"] for s in standings]
    assert [row[0] for row in seen["rows"]] == [
        f"{s['rank_group']}=" if s["tied"] else str(s["rank"]) for s in standings]
    assert standings[0]["rank"] == 1 and not standings[0]["tied"]
    for row, s in zip(seen["rows"], standings):
        m = s["mean_placement"]
        assert row[3] == f"{m['value']:.2f} [{m['low']:.2f}, {m['high']:.2f}]"
    assert seen["rows"][0][1] == "heuristic"
    # Names left, numbers right, in every table (head-to-head's first number column too).
    assert seen["align"]["standings"] == ["right", "left", *["right"] * 6]
    assert seen["align"]["head-to-head"] == ["left", *["right"] * 3]
    assert seen["align"]["by-seat"] == ["left", *["right"] * 4]
    # Two deal groups: the page warns that its intervals mean little.
    assert len(seen["warnings"]) == 1 and "Only 2 deal groups" in seen["warnings"][0]
    assert seen["viewport"]

    # Two charts with a visible red dot inside a visible CI bar for every bot.
    for chart, key in (("mean_placement", "mean_placement"), ("rating", "rating")):
        marks = [m for m in seen["marks"] if m["chart"] == chart]
        assert [m["name"] for m in marks] == [s["name"] for s in standings]
        for mark, s in zip(marks, standings):
            assert mark["size"] > 0 and mark["label"] > 0
            assert mark["fill"] == "rgb(214, 45, 32)"
            assert mark["barLeft"] - 1 <= mark["x"] <= mark["barRight"] + 1
            assert mark["value"] == pytest.approx(s[key]["value"], rel=1e-5)
        # Positions follow values: a larger value is drawn further right.
        by_value = sorted(marks, key=lambda m: m["value"])
        assert [m["x"] for m in by_value] == sorted(m["x"] for m in marks)
        widest = max(m["barRight"] - m["barLeft"] for m in marks)
        assert widest > 2  # the intervals are drawn, not just the points
