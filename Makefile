# Parlour: `make run` sets everything up and starts the server; `make test` sets everything up and runs
# every test. `make install` does the setup alone (a virtual environment in .venv/ and the code generated
# from proto/).
#
# Three Python distributions are installed in editable mode: proto/ (parlour-protocol: the generated
# parlour.v1 modules, made by `make proto` next to the .proto files), clients/python (parlour-client: the
# SDK, bots and CLI) and the server (engines/ and service/). `parlour` is a namespace package shared by
# the first two.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
GEN    := proto/parlour/v1
# Where the SDK held the generated code before parlour-protocol; removed so it cannot shadow $(GEN).
OLD_GEN := clients/python/parlour/v1
NODE_BOT := clients/node
PROTOS := $(wildcard proto/parlour/v1/*.proto)
# google/api/annotations.proto (REST routes), vendored for offline builds; its Python module comes from
# the googleapis-common-protos package, so only proto/ is generated.
GOOGLEAPIS := third_party/googleapis
# The browser the web page's tests drive (Debian's package by default).
CHROMIUM ?= /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# What `buf breaking` (in `make lint`) compares the contract in the working tree with, so that a change
# that breaks existing clients cannot land by accident (additive changes, new fields or calls, pass):
# - the last release: the newest tag v* that HEAD descends from. Everything changed since the release must
#   keep that release's clients working.
# - until there is a release tag, the contract before this work: on main (or any commit main contains),
#   the first parent of HEAD, i.e. main before its last merge or commit (so a merged branch is checked as a
#   whole, and the fields the last commit itself adds are additive and pass); on a branch, its merge base
#   with main (the whole branch and what is not committed yet). Without a local main, HEAD~1.
# It reads only the local git history (offline; a fresh clone has it, a clone of depth 1 does not).
# Override it with any git ref, e.g. make lint BREAKING_AGAINST=main
BREAKING_AGAINST ?= $(shell git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null \
  || { base=$$(git merge-base HEAD main 2>/dev/null) && [ "$$base" != "$$(git rev-parse HEAD)" ] && echo $$base; } \
  || echo HEAD~1)
# Space-separated extra arguments for `make run`, e.g. make run ARGS="--redis redis://localhost:6379/0"; it
# serves in one process unless they say otherwise (ARGS="--workers 4": four processes sharing the ports).
ARGS   ?=

.PHONY: install proto run test test-fast browser lint format bench clean docs

install: $(VENV)/.installed $(GEN)/.generated $(NODE_BOT)/node_modules/.installed

# The JavaScript bot (clients/node) and its pinned gRPC packages (npm ci), used by the tournament tests.
$(NODE_BOT)/node_modules/.installed: $(NODE_BOT)/package.json $(NODE_BOT)/package-lock.json
	cd $(NODE_BOT) && npm ci --no-audit --no-fund --quiet
	touch $@

$(VENV)/.installed: pyproject.toml proto/pyproject.toml clients/python/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e proto -e clients/python -e '.[dev]'
	touch $@

# Generated code is never committed and never edited: it is made here from proto/ whenever a .proto
# file (or the recipe) is newer than the last generation, into proto/parlour/v1 beside the .proto files
# (the package directory of parlour-protocol, installed in editable mode). Everything there but the .proto
# files is generated (and ignored by git). proto/codegen.py is the one recipe: building the wheel
# (proto/setup.py) runs it too, so the editable install and the wheel hold the same files.
proto: $(GEN)/.generated
$(GEN)/.generated: $(PROTOS) proto/codegen.py $(wildcard $(GOOGLEAPIS)/google/api/*.proto) $(VENV)/.installed
	rm -rf $(OLD_GEN)
	$(BIN)/python proto/codegen.py proto > $(VENV)/protoc.log 2>&1 || { cat $(VENV)/protoc.log; exit 1; }
	touch $@

run: install
	$(BIN)/parlour serve --workers 1 $(ARGS)

test: install browser
	PARLOUR_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest $(PYTEST_ARGS)

# The engines, the contract of every game and the units: every test that needs no Redis, server, browser or
# process of its own (tests/conftest.py marks those `services`), in about a minute.
test-fast: install
	$(BIN)/python -m pytest -m "not services" -q $(PYTEST_ARGS)

# The web page's tests drive Debian's chromium through Playwright (no browser is downloaded); installed
# here when missing, so a fresh machine needs nothing by hand.
browser: $(CHROMIUM)
$(CHROMIUM):
	@command -v apt-get >/dev/null || { echo "install chromium (or set CHROMIUM=/path/to/chromium)"; exit 1; }
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/buf lint
	@if git rev-parse -q --verify "$(BREAKING_AGAINST)^{commit}" >/dev/null; then \
	  echo "buf breaking --against $(BREAKING_AGAINST)"; $(BIN)/buf breaking --against '.git#ref=$(BREAKING_AGAINST)'; \
	else echo "buf breaking: SKIPPED, $(BREAKING_AGAINST) is not in this clone's history (a shallow clone? \
	  git fetch --unshallow)"; fi

# The documentation site (docs/, mkdocs.yml) at http://127.0.0.1:8000/, rebuilt on every change; `make test`
# builds it strictly (tests/test_docs.py).
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	$(BIN)/python bench/engine_speed.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/list_games.py
	$(BIN)/python bench/quotas.py
	$(BIN)/python bench/watchers.py
	$(BIN)/python bench/ladder.py --bots 200 --seconds 240 --compare-duplicate
	$(BIN)/python bench/ladder.py --bots 200 --seconds 90 --compare-direct
	$(BIN)/python bench/command_walk.py

clean:
	find $(GEN) -mindepth 1 -maxdepth 1 ! -name '*.proto' -exec rm -rf {} +
	rm -rf $(VENV) $(OLD_GEN) .pytest_cache .mypy_cache .ruff_cache
