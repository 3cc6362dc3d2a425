# The two commands a newcomer needs:  make demo   and   make test
# Everything is installed into ./.venv from PyPI and crates.io; nothing else is assumed
# but Python >= 3.11 and a Rust toolchain.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS := $(VENV)/.deps
BUILT := $(VENV)/.built
NS3 := $(VENV)/.ns3
export VIRTUAL_ENV := $(abspath $(VENV))

RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml

.PHONY: demo test install ns3 browser bench reproduce rust-test py-test fuzz clean

demo: install
	$(BIN)/wtcp demo

test: install ns3 browser rust-test py-test

install: $(BUILT)

# ns-3 3.44 (the `ns3` extra: its Python wheel, through cppyy) for the tests that run the
# same scenarios in ns-3 and cross-check wtcp against it. The test set-up installs it;
# `make demo` does not need it.
ns3: $(NS3)

$(NS3): $(DEPS)
	$(BIN)/pip install -q "ns3==3.44.post0"
	touch $@

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

py-test: install ns3
	WTCP_REQUIRE_CHROMIUM=1 WTCP_REQUIRE_NS3=1 $(BIN)/pytest -q

# The scenario fuzzer at full size: 100 000 mutated scenarios (2 % through the CLI) in two
# worker processes, each case under a memory and a time limit; prints the count of every
# outcome and exits non-zero on any failure. `make test` runs a few hundred of them.
FUZZ_CASES ?= 100000
FUZZ_SEED ?= 1
fuzz: install
	$(BIN)/python tests/python/fuzzing.py --cases $(FUZZ_CASES) --workers 2 --seed $(FUZZ_SEED) --report fuzz-report.json

bench: install
	$(BIN)/python -m wtcp.bench

# The five papers (and the scorecard) at full size: wtcp-reproduce/report.html.
reproduce: install
	$(BIN)/wtcp reproduce all --out wtcp-reproduce

clean:
	rm -rf $(VENV) target
