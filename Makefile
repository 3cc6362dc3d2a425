# The two commands a newcomer needs:  make demo   and   make test
# Everything is installed into ./.venv from PyPI and crates.io; nothing else is assumed
# but Python >= 3.11 and a Rust toolchain.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS := $(VENV)/.deps
BUILT := $(VENV)/.built
export VIRTUAL_ENV := $(abspath $(VENV))

RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml

.PHONY: demo test install browser bench reproduce rust-test py-test clean

demo: install
	$(BIN)/wtcp demo

test: install browser rust-test py-test

install: $(BUILT)

$(DEPS): constraints.txt pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt maturin numpy pandas matplotlib click rich duckdb pytest hypothesis pyarrow dask distributed
	touch $@

$(BUILT): $(DEPS) $(RUST_SRC)
	$(BIN)/maturin develop --release -q
	touch $@

rust-test:
	cargo test --workspace --exclude wtcp-py

# Headless Chromium (Debian's package) for the test that opens the HTML report.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

py-test: install
	WTCP_REQUIRE_CHROMIUM=1 $(BIN)/pytest -q

bench: install
	$(BIN)/python -m wtcp.bench

# The five papers (and the scorecard) at full size: wtcp-reproduce/report.html.
reproduce: install
	$(BIN)/wtcp reproduce all --out wtcp-reproduce

clean:
	rm -rf $(VENV) target
