"""The README and the docs as a newcomer reads them: the quick start, the two
install routes, the built-in bots, and every path and link they name exists
inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardref.bots import BUILTINS

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Top-level folders whose files the docs and comments name by path.
FOLDERS = ("docs", "python", "rust", "tests", "scripts", "tournaments", ".ci")
#: Files that name made-up paths on purpose (the sample trees of the build id's tests).
MADE_UP_PATHS = {"rust/tests/build_id.rs"}
PATH = re.compile(rf"(?<![\w./-])((?:{'|'.join(map(re.escape, FOLDERS))})/[\w./-]*[\w/])")


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def _fenced_blocks(text: str) -> list[str]:
    return re.findall(r"^```\w*\n(.*?)^```", text, re.M | re.S)


def test_the_quick_start_is_two_commands() -> None:
    blocks = _fenced_blocks(_section(README, "Quick start"))
    assert len(blocks) == 1
    assert blocks[0].splitlines() == ["make demo", "make test"]


def test_ci_runs_the_readmes_test_command() -> None:
    commands = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "make test" in commands


def _minimum_python() -> str:
    pyproject = (ROOT / "pyproject.toml").read_text()
    match = re.search(r'^requires-python = ">=(3\.\d+)"$', pyproject, re.M)
    assert match, "pyproject.toml has no requires-python lower bound"
    return match.group(1)


def test_both_install_routes_are_given_with_the_python_versions() -> None:
    install = _section(README, "Installing")
    assert "pip install" in install and ".whl" in install
    assert "make wheel" in install and "no Rust" in install
    assert "make build" in install and "checkout" in install
    minimum = _minimum_python()
    for text in (install, (ROOT / "docs" / "install.md").read_text()):
        assert f"Python {minimum}" in text or f"CPython {minimum}" in text


def test_the_install_guides_quick_start_config_is_the_shipped_one() -> None:
    guide = (ROOT / "docs" / "install.md").read_text()
    block = re.search(r"^```toml\n(.*?)^```", guide, re.M | re.S)
    assert block, "docs/install.md has no TOML block"
    shipped = tomllib.loads((ROOT / "tournaments" / "quickstart.toml").read_text())
    assert tomllib.loads(block.group(1)) == shipped


def test_the_tournament_docs_name_every_builtin_bot() -> None:
    text = (ROOT / "docs" / "tournaments.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `bots[].builtin`"))
    comment = next(line for line in text.splitlines() if line.startswith("builtin = "))
    for name in BUILTINS:
        assert f'"{name}"' in row and f'"{name}"' in comment, name


def _text_files() -> list[Path]:
    """The repository's docs, code and config (the rule book aside: it quotes its sources)."""
    keep = (".md", ".py", ".pyi", ".rs", ".toml", ".sh")
    found = [ROOT / name for name in ("README.md", "Makefile", "pyproject.toml", "Cargo.toml")]
    for folder in FOLDERS:
        found += [p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and (p.suffix in keep or p.name == "run")]
    return [p for p in found if not p.relative_to(ROOT).as_posix().startswith("docs/rules/")
            and p.relative_to(ROOT).as_posix() not in MADE_UP_PATHS]


def _outside_code_blocks(path: Path) -> str:
    """The text without fenced blocks in Markdown (example sessions and their
    output name files a reader makes, such as results files)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".md":
        text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return text


def test_every_repository_path_named_in_docs_and_comments_exists() -> None:
    missing = []
    for path in _text_files():
        text = _outside_code_blocks(path)
        for match in PATH.finditer(text):
            name = match.group(1).rstrip("/.")
            pattern = text[match.end():match.end() + 1] in ("<", "*", "{")
            if pattern or name.endswith(".sqlite"):
                continue  # a pattern (`test_<game>.py`) or a file a run makes
            if not (ROOT / name).exists():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, missing


@pytest.mark.parametrize("doc", sorted(p.relative_to(ROOT) for p in
                                       [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]))
def test_markdown_links_stay_inside_the_repository(doc: Path) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = ((ROOT / doc).parent / target.split("#")[0]).resolve()
        assert resolved.is_relative_to(ROOT), f"{doc}: {target} leaves the repository"
        assert resolved.exists(), f"{doc}: {target} does not exist"
