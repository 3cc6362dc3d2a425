# The two commands a newcomer needs:  make demo   and   make test
# Everything is installed into ./.venv from PyPI and crates.io; nothing else is assumed
# but Python >= 3.11 and a Rust toolchain.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS := $(VENV)/.deps
TEST_DEPS := $(VENV)/.test-deps
BUILT := $(VENV)/.built
BUILT_FAST := $(VENV)/.built-fast
NS3 := $(VENV)/.ns3
export VIRTUAL_ENV := $(abspath $(VENV))

RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml

.PHONY: demo test test-setup test-installs test-fast install test-deps ns3 ns3-pch browser bpf-tools system-tools bench reproduce rust-test-build rust-test py-test fuzz clean

demo: install
	$(BIN)/wtcp demo

# The tests run on one build in Cargo.toml's `fast` profile (the extension and the Rust
# tests share it); `make demo` and `make bench` build the release extension.
# First what the tests need, two jobs at a time: the Rust tests compile (they need no
# venv) while pip and apt wait on the network and the disk. Then the Rust tests and
# pytest, one after the other, each with both cores.
test:
	@$(MAKE) --no-print-directory -j2 test-setup
	@$(MAKE) --no-print-directory rust-test py-test

test-setup: rust-test-build test-installs

# One after the other (pip and apt each change one place): the venv, the test tools,
# ns-3, the system packages, then the extension (after the Rust test build, whose crates
# it shares, if that still runs: cargo holds the build folder).
test-installs:
	@$(MAKE) --no-print-directory test-deps
	@$(MAKE) --no-print-directory ns3
	@$(MAKE) --no-print-directory system-tools
	@$(MAKE) --no-print-directory $(BUILT_FAST)
	@$(MAKE) --no-print-directory ns3-pch

install: $(BUILT)

# What the demo needs: wtcp's runtime dependencies (pyproject.toml), pinned by
# constraints.txt, and maturin to build the Rust core into the package.
$(DEPS): constraints.txt pyproject.toml
	@echo "make: creating $(VENV) with wtcp's runtime dependencies: numpy pandas matplotlib click rich duckdb cloudpickle (and maturin to build)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt maturin numpy pandas matplotlib click rich duckdb cloudpickle
	touch $@

# What the tests add (the `test` and `dask` extras).
test-deps: $(TEST_DEPS)

$(TEST_DEPS): $(DEPS)
	@echo "make test: installing the test tools into $(VENV): pytest pytest-xdist hypothesis pyarrow dask[distributed] nbclient nbformat ipykernel dpkt"
	$(BIN)/pip install -q -c constraints.txt pytest pytest-xdist hypothesis pyarrow dask distributed nbclient nbformat ipykernel dpkt
	touch $@

# ns-3 3.44 (the `ns3` extra: its Python wheel, through cppyy) for the tests that run the
# same scenarios in ns-3 and cross-check wtcp against it. The test set-up installs it;
# `make demo` does not need it.
ns3: $(NS3)

$(NS3): $(DEPS)
	@echo "make test: installing ns-3 3.44 into $(VENV) (pip: ns3==3.44.post0, about 200 MB)"
	$(BIN)/pip install -q "ns3==3.44.post0"
	touch $@

# ns-3's headers and the harness precompiled for cppyy (wtcp/ns3/pch.py): every process
# that loads ns-3 then starts in about 1.3 s of CPU instead of 9-12. Built again when the
# harness, ns-3 or cppyy change, on the first ns-3 load if not here. A build that fails
# (the reason printed) stops nothing: ns-3 then loads by parsing, and a harness that does
# not compile fails the ns-3 tests with the compiler's messages.
ns3-pch: $(NS3) $(BUILT_FAST)
	@echo "make test: precompiling ns-3's headers and wtcp's ns-3 harness into the environment (.venv/share/wtcp unless WTCP_CACHE_DIR; about 130 MB, 15-30 s)"
	@$(BIN)/python -c "from wtcp.ns3.modules import standard_pch; standard_pch()"

$(BUILT): $(DEPS) $(RUST_SRC)
	@echo "make: building the Rust core (release) into $(VENV) (cargo and maturin output in $(VENV)/build.log, shown if it fails)"
	@rm -f $(BUILT_FAST)
	@PIP_QUIET=2 $(BIN)/maturin develop --release -q > $(VENV)/build.log 2>&1 || { cat $(VENV)/build.log; exit 1; }
	@$(BIN)/python tools/algorithms_doc.py --if-changed
	@touch $@

# The same extension in Cargo.toml's `fast` profile (no LTO, incremental, overflow checks)
# for `make test` and `make test-fast`; it replaces the release build, which the next
# target that needs it (demo, bench, reproduce, fuzz) rebuilds.
$(BUILT_FAST): $(DEPS) $(RUST_SRC)
	@echo "make: building the Rust core (profile fast) into $(VENV) (cargo and maturin output in $(VENV)/build.log, shown if it fails)"
	@rm -f $(BUILT)
	@PIP_QUIET=2 $(BIN)/maturin develop --profile fast -q > $(VENV)/build.log 2>&1 || { cat $(VENV)/build.log; exit 1; }
	@$(BIN)/python tools/algorithms_doc.py --if-changed
	@touch $@

# With wtcp-py in the build (it has no tests of its own), Cargo resolves every shared crate's
# features as the extension's build does, and the two builds share the crates instead of
# compiling them again in a second variant.
rust-test-build:
	cargo test --profile fast --workspace --no-run

rust-test:
	cargo test --profile fast --workspace

# The edit-compile-test loop: the extension rebuilt in the `fast` profile if a source
# changed, the algorithm and engine crates' unit tests and the contract suite in the same
# profile (the engine's integration tests stay in `make test`), and pytest in two worker
# processes without ns-3, the kernel engine, the browser and the slowest end-to-end files
# (measured with --durations=0: README commands 308 s, paper reproductions 94 s, store
# concurrency 49 s, robustness 35 s, the kernel engine 34 s, a generated module built by
# cargo 28 s, cancellation 24 s, the bench 24 s, ns-3 44 s). `make test` runs everything.
FAST_SKIP := test_readme test_reproduce test_store_concurrency test_robust test_linux_engine test_new_algorithm test_cancel test_bench test_ns3 test_ns3_wifi test_ns3_pch
test-fast: $(BUILT_FAST) test-deps
	cargo test --profile fast -q -p wtcp-py -p wtcp-cc -p wtcp-engine --lib --test contract
	$(BIN)/pytest -q -rs -p no:cacheprovider -n 2 $(foreach f,$(FAST_SKIP),--ignore=tests/python/$(f).py)

# Headless Chromium for the test that opens the HTML report. Installed (Debian's package)
# only when running as root, as in CI; otherwise that test is skipped with a message and
# `sudo apt-get install chromium` enables it.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then \
	  true; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "make test: installing Chromium (apt-get install chromium) for the HTML report test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "make test: no Chromium; the HTML report's browser test will be skipped (enable it: sudo apt-get install chromium)"; \
	fi

# The two apt installs one after the other (apt holds one lock).
system-tools:
	@$(MAKE) --no-print-directory browser
	@$(MAKE) --no-print-directory bpf-tools

# clang, bpftool and libbpf's headers (Debian's packages) for the test that builds the
# example BPF congestion control (examples/bpf) and runs it on the linux engine. Installed
# only as root, as in CI; otherwise that test is skipped with a message.
bpf-tools:
	@if command -v clang >/dev/null 2>&1 && command -v bpftool >/dev/null 2>&1 && [ -f /usr/include/bpf/bpf_helpers.h ]; then \
	  true; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "make test: installing clang, bpftool and libbpf-dev (apt-get) for the BPF congestion control test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang llvm bpftool libbpf-dev >/dev/null; \
	else \
	  echo "make test: no clang or bpftool; the BPF congestion control test will be skipped (enable it: sudo apt-get install clang bpftool libbpf-dev)"; \
	fi

# -rs: the summary names every skipped test and why. Two worker processes (pytest-xdist;
# `loadgroup` keeps tests that share a long fixture run, such as the README's `wtcp
# reproduce all`, on one worker), then alone the files that measure wall time or run the
# kernel engine's real-time relay, which a busy second core would disturb.
SERIAL := test_cancel test_linux_engine
REQUIRE := WTCP_REQUIRE_CHROMIUM=$$(command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 && echo 1 || echo 0) WTCP_REQUIRE_NS3=1
py-test: $(BUILT_FAST) test-deps ns3
	$(REQUIRE) $(BIN)/pytest -q -rs -n 2 --dist loadgroup $(foreach f,$(SERIAL),--ignore=tests/python/$(f).py)
	$(REQUIRE) $(BIN)/pytest -q -rs $(foreach f,$(SERIAL),tests/python/$(f).py)

# The scenario fuzzer at full size: 100 000 mutated scenarios (2 % through the CLI) in two
# worker processes, each case under a memory and a time limit; prints the count of every
# outcome and exits non-zero on any failure. `make test` runs a few hundred of them.
FUZZ_CASES ?= 100000
FUZZ_SEED ?= 1
fuzz: install test-deps
	$(BIN)/python tests/python/fuzzing.py --cases $(FUZZ_CASES) --workers 2 --seed $(FUZZ_SEED) --report fuzz-report.json

bench: install
	$(BIN)/python -m wtcp.bench

# The five papers (and the scorecard) at full size: wtcp-reproduce/report.html.
reproduce: install
	$(BIN)/wtcp reproduce all --out wtcp-reproduce

clean:
	rm -rf $(VENV) target
