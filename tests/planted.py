"""A rule bug planted in a test-only copy of a game's Python reference.

``planted(game_id, old, new, folder)`` copies the game's reference module and
its loader into ``folder`` with the text ``old`` replaced by ``new`` (which
must occur exactly once), registers the copy in place of the game, and puts
the real one back on leaving. The Rust core is untouched, so the two engines
now read one rule differently; the verification tools must notice.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cardref import registry


def _absolute(text: str, package: str) -> str:
    """Relative imports of a module of ``package`` made absolute."""
    parent = package.rsplit(".", 1)[0]
    text = re.sub(r"^from \.\.\. ?", f"from {parent.rsplit('.', 1)[0]}.", text, flags=re.M)
    text = re.sub(r"^from \.\.", f"from {parent}.", text, flags=re.M)
    text = re.sub(r"^from \. import", f"from {package} import", text, flags=re.M)
    return re.sub(r"^from \.(\w)", rf"from {package}.\1", text, flags=re.M)


@contextmanager
def planted(game_id: str, old: str, new: str, folder: Path) -> Iterator[str]:
    """The game's reference with one rule changed, registered while inside."""
    original = registry.module(game_id)
    name = f"planted_{game_id}"
    source = Path(original.__file__).read_text(encoding="utf-8")
    assert source.count(old) == 1, f"{old!r} must occur once in the {game_id} reference"
    source = _absolute(source.replace(old, new), "cardref.reference")
    loader_name = original.GAME.loader
    source = source.replace(f'loader="{loader_name}"', f'loader="{name}_loading"')
    loader = Path(importlib.import_module(loader_name).__file__).read_text(encoding="utf-8")
    loader = loader.replace(f"from ..{game_id} import", f"from {name} import")
    loader = _absolute(loader, "cardref.reference.loading")
    (folder / f"{name}.py").write_text(source, encoding="utf-8")
    (folder / f"{name}_loading.py").write_text(loader, encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        registry.register(name)
        yield name
    finally:
        registry.register(original.__name__)
        sys.path.remove(str(folder))
        for module in (name, f"{name}_loading"):
            sys.modules.pop(module, None)
