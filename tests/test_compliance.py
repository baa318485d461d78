"""cfn-lint and cdk-nag over every synthesized template of every shipped environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, Synth

NAG_PLUGIN = "AwsSolutions"
ACK_KEY = "aws:cdk:acknowledged-rules"


def test_cfn_lint_is_clean(env_synth: Synth) -> None:
    templates = sorted(str(env_synth.outdir / s.template_file) for s in env_synth.stacks.values())
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    proc = subprocess.run(
        [str(cfn_lint), "--format", "parseable", *templates], cwd=ROOT, capture_output=True, text=True, check=False
    )
    # cfn-lint exits non-zero for any error, warning or informational finding (include_checks: I).
    assert proc.returncode == 0 and not proc.stdout.strip(), f"cfn-lint findings:\n{proc.stdout}{proc.stderr}"


def test_cdk_nag_has_no_unacknowledged_findings(env_synth: Synth) -> None:
    report = env_synth.validation_report or {"pluginReports": []}
    findings = [
        f"{v['ruleName']} at {c['constructPath']}: {v['description']}"
        for plugin in report["pluginReports"]
        if plugin["pluginName"] == NAG_PLUGIN
        for v in plugin["violations"]
        for c in v["violatingConstructs"]
    ]
    assert not findings, "unacknowledged cdk-nag findings:\n" + "\n".join(findings)
    assert env_synth.error is None, env_synth.error


def test_cdk_nag_runs_on_every_stack(env_synth: Synth) -> None:
    """The plugin is registered on the app; a deliberately bad bucket in a throwaway app proves it reports."""
    import aws_cdk as cdk
    from aws_cdk import aws_s3 as s3
    from cdk_nag import AwsSolutionsChecks

    app = cdk.App(outdir=str(env_synth.outdir.parent / "nag-probe"), builtin_cloud_formation_validation=False)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    s3.Bucket(cdk.Stack(app, "Probe"), "Unencrypted")
    try:
        app.synth()
    except RuntimeError as exc:
        assert "ValidationFailed" in str(exc)
    else:  # pragma: no cover - would mean the plugin is inert and the test above proves nothing
        raise AssertionError("cdk-nag reported nothing for an insecure bucket")


def test_every_acknowledgement_has_a_specific_reason(env_synth: Synth) -> None:
    short = []
    count = 0
    for construct in env_synth.app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type != ACK_KEY:
                continue
            for rule, reason in entry.data.items():
                count += 1
                if len((reason or "").strip()) < 20:
                    short.append(f"{construct.node.path}: {rule} reason {reason!r}")
    assert count > 0, "expected at least the AZ-pinning acknowledgements"
    assert not short, "acknowledgements need a specific reason of at least 20 characters:\n" + "\n".join(short)
