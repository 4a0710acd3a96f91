# The two commands of the README's quick start; each sets up what it needs on a fresh machine.
#   make evaluate   the main job: the heuristic against random seats (win rates, intervals, ratings)
#   make serve      the web app on http://127.0.0.1:8000 (play the agents, replays, leagues); PORT=... RUNS=...
#   make docs       the documentation site in site/ (MkDocs, warnings as errors: what CI builds); `mkdocs serve` to browse it
#   make test       lint and the whole test suite, as CI runs it (.ci/run calls this); it also installs the
#                   rllib extra (Ray, RLlib: about 520 MB) and the integrations extra (Tianshou, SuperSuit: about
#                   240 MB), so the RLlib, Ray and recipe tests run instead of skipping, and the browser extra
#                   (Playwright, for the web app's tests in Debian's chromium, which .ci/run installs); it compiles
#                   every game's compiled engine into numba's disk cache first (while pip installs those extras),
#                   JOBS games at a time, so that the JOBS test workers (the CPUs, at most 4) load the machine code
#                   instead of each compiling it (a speed-up only: the tests run whatever it says); idle workers
#                   steal tests from busy ones. `make test-deps` is that set-up alone
# The virtual environment (.venv, or VENV=...) is made when absent and refreshed when pyproject.toml
# or setup.py change: torch the CPU way first (a local wheel on these machines), then the project.

VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.ice-envs-installed
TEST_STAMP := $(VENV)/.ice-envs-test-extras-installed
FAST_STAMP := $(VENV)/.ice-envs-fast-installed
DOCS_STAMP := $(VENV)/.ice-envs-docs-installed

.PHONY: evaluate test test-deps docs serve install clean-venv

# test workers and compile jobs: the machine's CPUs, at most 4 (each worker holds the compiled engines and torch)
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); if [ $$n -gt 4 ]; then n=4; fi; echo $$n)

PORT ?= 8000
RUNS ?= runs

evaluate: $(STAMP)
	$(BIN)/ice-envs evaluate cardiceo --players 4 --agents heuristic,random,random,random --games 400 --workers 2

test: test-deps
	$(BIN)/ruff check . && $(BIN)/ruff format --check .
	$(BIN)/pytest -q -n $(JOBS) --dist worksteal --durations=30

# what the tests need before they start: every extra, and the compiled engines in numba's disk cache. The
# warm-up needs only the project and numba, so it compiles on the CPUs while pip installs torch and the rest
# (a failed warm-up only means the tests compile what they use themselves)
test-deps: $(FAST_STAMP)
	@$(BIN)/python -m ice_envs.core.compiled_warmup --jobs $(JOBS) & warm=$$!; \
	$(MAKE) --no-print-directory $(TEST_STAMP); status=$$?; \
	wait $$warm || echo "compile warm-up failed: the tests compile what they use"; \
	exit $$status

serve: $(STAMP)
	$(BIN)/ice-envs serve --port $(PORT) --runs $(RUNS)

docs: $(DOCS_STAMP)
	$(BIN)/python -m mkdocs build --strict

install: $(STAMP)

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $(STAMP)

# the project with numba alone (no torch): what the compile warm-up imports
$(FAST_STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[fast]"
	touch $(FAST_STAMP)

# the test path only: `make evaluate` stays light
$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[all,rllib,integrations,docs,browser]"
	touch $(TEST_STAMP)

# the docs extra only (MkDocs, mkdocstrings): `make docs` needs neither Ray nor Tianshou
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[all,docs]"
	touch $(DOCS_STAMP)

clean-venv:
	rm -rf $(VENV)
