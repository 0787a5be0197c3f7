"""Pages opened in a real headless browser (Debian's chromium) for the tests.

A test adds a probe script to a copy of a page; the script reads what the
browser laid out and writes it as JSON into ``<pre id="probe">``, which
``chromium --dump-dom`` prints. Chromium comes from
``scripts/ci-system-deps.sh`` (run here if it is missing).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent

ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&amp;", "&"))


def find_chromium() -> str:
    """The chromium binary, installing the CI's system packages if it is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        subprocess.run(["sh", str(ROOT / "scripts" / "ci-system-deps.sh")], check=False,
                       capture_output=True, timeout=900)
        found = shutil.which("chromium")
    assert found, "chromium is not installed; run scripts/ci-system-deps.sh"
    return found


def probe(chromium: str, page: Path, script: str, workspace: Path,
          window: Optional[str] = None) -> Any:
    """What ``script`` (a ``<script>`` element) recorded on a copy of ``page``."""
    copy = workspace / "probe.html"
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"),
                    encoding="utf-8")
    size = [f"--window-size={window}"] if window else []
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={workspace / 'profile'}", *size, "--dump-dom", copy.as_uri()],
        capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, done.stderr[-2000:]
    text = found.group(1)
    for entity, char in ENTITIES:
        text = text.replace(entity, char)
    return json.loads(text)
