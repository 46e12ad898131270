# Parlour: `make run` sets everything up and starts the server; `make test` sets everything up and runs
# every test. `make install` does the setup alone (a virtual environment in .venv/ and the code generated
# from proto/).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
GEN    := clients/python/parlour/v1
PROTOS := $(wildcard proto/parlour/v1/*.proto)
# Space-separated extra arguments for `make run`, e.g. make run ARGS="--redis redis://localhost:6379/0"
ARGS   ?=

.PHONY: install proto run test lint format bench clean

install: $(VENV)/.installed $(GEN)/.generated

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e clients/python -e '.[dev]'
	touch $@

# Generated code is never committed and never edited: it is made here from proto/ whenever a .proto
# file is newer than the last generation.
proto: $(GEN)/.generated
$(GEN)/.generated: $(PROTOS) $(VENV)/.installed
	rm -rf $(GEN)
	mkdir -p $(GEN)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grpc_tools.protoc -Iproto \
	  --python_out=clients/python --grpc_python_out=clients/python \
	  --mypy_out=clients/python --mypy_grpc_out=clients/python $(PROTOS) > $(VENV)/protoc.log 2>&1 \
	  || { cat $(VENV)/protoc.log; exit 1; }
	touch $(GEN)/__init__.py $@

run: install
	$(BIN)/parlour serve $(ARGS)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/buf lint

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/server.py

clean:
	rm -rf $(VENV) $(GEN) .pytest_cache .mypy_cache .ruff_cache
