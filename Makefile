# privnb: `make run` (default sweep -> results/) and `make test` each set up .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SWEEP  ?= 00_tour.quick
WORKERS ?= 2
TEST_WORKERS ?= 2

# Point the loaders at the shared data folder when it is there and the user has not chosen one.
SHARED_DATA := $(abspath ../shared/data)
ifeq ($(origin PRIVNB_DATA), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export PRIVNB_DATA := $(SHARED_DATA)
endif
endif
export MPLBACKEND := Agg
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: run test lint sweep bench clean distclean setup

setup: $(STAMP)

$(STAMP): pyproject.toml
	@echo "setting up $(VENV): pip install -e '.[dev]' (a few minutes the first time)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	@echo "make run: the quick sweep of every notebook into results/ ($(WORKERS) workers; each notebook a minute or more)"
	$(BIN)/privnb sweep notebooks/sweeps/*.quick.yaml --out results --workers $(WORKERS)

lint: $(STAMP)
	$(BIN)/ruff check privnb tests benchmarks
	$(BIN)/ruff format --check privnb tests benchmarks

test: $(STAMP) lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder notebooks tests/notebooks tests/sweeps tests --nbval-lax --nbval-current-env -p no:cacheprovider

sweep: $(STAMP)
	$(BIN)/privnb sweep notebooks/sweeps/$(SWEEP).yaml --out results --workers $(WORKERS)

bench: $(STAMP)
	@for script in benchmarks/bench_*.py; do \
		echo "== $$script"; $(BIN)/python $$script || exit 1; \
	done

clean:
	rm -rf results .pytest_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
