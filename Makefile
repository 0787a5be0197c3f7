# cardref: short, self-documenting targets. `make help` lists them.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help demo test test-rust test-python thorough lint bench bench-referee build wheel \
	check-standalone clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q maturin -e '.[test,dev]'
	touch $(STAMP)

build: $(STAMP)  ## build the Rust extension into the venv (release)
	$(BIN)/maturin develop --release -q

demo: build  ## play a small real tournament and print the standings
	$(BIN)/cardref tournament tournaments/quickstart.toml --restart

test: test-rust test-python  ## the whole test suite: Rust tests, then pytest on both engines

test-rust:  ## cargo tests (game logic, scenarios) without Python
	cargo test --release

test-python: build  ## pytest (scenarios, differential and invariant property tests, API)
	$(BIN)/pytest

wheel: $(STAMP)  ## build the release wheel into dist/ (abi3: any CPython >= 3.9, no Rust needed)
	rm -f dist/cardref-*.whl
	$(BIN)/maturin build --release --out dist --interpreter $(BIN)/python --features abi3

check-standalone: build wheel  ## the wheel installed outside the checkout; docs tests from a git archive of HEAD
	scripts/check-standalone.sh

thorough: build  ## the long Hypothesis profile (by hand; tens of minutes)
	CARDREF_PROFILE=thorough $(BIN)/pytest

lint: $(STAMP)  ## rustfmt, clippy and ruff
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	$(BIN)/ruff check python tests

bench: build  ## engine speed: native vs Python-driven vs reference
	$(BIN)/cardref bench

bench-referee: build  ## the referee's overhead per decision: subprocess vs in-process bot
	$(BIN)/cardref bench --referee

clean:  ## remove build products and the venv
	rm -rf target dist $(VENV)
