"""``cardref analyze --html`` opened in a real headless browser (Debian's
chromium): a probe script added to a copy of the page reads what the browser
laid out (the seats table as rendered, every interval mark's position and
size, the histogram bars) and dumps it into the DOM for ``--dump-dom``."""

from __future__ import annotations

import json
from pathlib import Path

from browser import probe

from cardref.cli import main

PROBE = """<script>
window.addEventListener("load", () => {
  const out = {rows: [], marks: [], bars: {}, points: []};
  for (const tr of document.querySelectorAll("#seats tbody tr")) {
    out.rows.push(tr.innerText.split("\\t"));
  }
  for (const g of document.querySelectorAll("svg g.mark")) {
    const dot = g.querySelector("circle").getBoundingClientRect();
    const bar = g.querySelector("line").getBoundingClientRect();
    out.marks.push({chart: g.closest("svg").dataset.chart, label: g.dataset.label,
                    value: Number(g.dataset.value), x: dot.x + dot.width / 2,
                    size: dot.width, left: bar.left, right: bar.right,
                    fill: getComputedStyle(g.querySelector("circle")).fill});
  }
  for (const svg of document.querySelectorAll("svg[data-chart]")) {
    out.bars[svg.dataset.chart] = Array.from(svg.querySelectorAll("rect"),
      (r) => r.getBoundingClientRect().height);
  }
  for (const tr of document.querySelectorAll("#rule-points tbody tr")) {
    out.points.push({id: tr.cells[0].innerText, never: tr.classList.contains("never"),
                     color: getComputedStyle(tr.cells[0]).color});
  }
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def test_the_analysis_page_draws_every_figure(chromium: str, tmp_path: Path) -> None:
    page, data = tmp_path / "a.html", tmp_path / "a.json"
    assert main(["analyze", "take5", "--games", "3000", "--skill-games", "2000", "--compare",
                 "end_rule=more_than", "--html", str(page), "--json", str(data),
                 "--quiet"]) == 0
    result = json.loads(data.read_text(encoding="utf-8"))
    seen = probe(chromium, page, PROBE, tmp_path)

    # The seats table as rendered: one row per seat, the win share with its interval.
    assert len(seen["rows"]) == 4
    for row, seat in zip(seen["rows"], result["seats"]):
        w = seat["win_share"]
        assert row[2] == (f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}%, "
                          f"{100 * w['high']:.1f}%]")
    # Every interval chart: a visible red dot inside its visible bar, placed by value.
    charts = {m["chart"] for m in seen["marks"]}
    assert {"win share", "mean score", "mean placement by bot",
            "win share difference"} <= charts
    for chart in charts:
        marks = [m for m in seen["marks"] if m["chart"] == chart]
        for m in marks:
            assert m["size"] > 0 and m["fill"] == "rgb(214, 45, 32)"
            assert m["left"] - 1 <= m["x"] <= m["right"] + 1
        by_value = sorted(marks, key=lambda m: m["value"])
        assert [m["x"] for m in by_value] == sorted(m["x"] for m in marks)
    # Histograms with bars that have height, one bar per rule point.
    assert max(seen["bars"]["actions"]) > 50 and max(seen["bars"]["rounds"]) > 50
    assert len(seen["bars"]["rule points"]) == len(result["rule_points"])
    # Never-fired rule points stand out in red.
    never = {p["id"] for p in result["rule_points"] if p["fired"] == 0}
    assert never and {p["id"] for p in seen["points"] if p["never"]} == never
    assert all(p["color"] == "rgb(176, 0, 32)" for p in seen["points"] if p["never"])
