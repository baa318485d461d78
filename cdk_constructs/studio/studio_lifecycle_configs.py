"""Studio lifecycle configurations (JupyterLab and Code Editor) rendered from studio_lifecycle/kube_context.sh."""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Mapping
from pathlib import Path

from aws_cdk import Fn, Stack
from aws_cdk import aws_sagemaker as sagemaker
from constructs import Construct

SCRIPT = Path(__file__).resolve().parents[2] / "studio_lifecycle" / "kube_context.sh"
APP_TYPES = {"JupyterLab": "jl", "CodeEditor": "ce"}
MAX_CONTENT = 16384  # StudioLifecycleConfigContent limit (base64 characters)


def render_script(settings: Mapping[str, str], *, script: Path = SCRIPT) -> str:
    """The script with ``settings`` assigned (shell-quoted) right after its ``#!`` line. Values may be tokens."""
    text = script.read_text()
    shebang, _, body = text.partition("\n")
    if not shebang.startswith("#!"):
        raise ValueError(f"{script} must start with a #! line")
    lines = [f"{key}={shlex.quote(value)}" for key, value in settings.items()]
    header = (
        "# --- set by the <Env>-Studio stack ---\n" + "\n".join(lines) + "\n" + "export " + " ".join(settings) + "\n"
    )
    return f"{shebang}\n{header}{body}"


class StudioLifecycleConfigs(Construct):
    """One ``AWS::SageMaker::StudioLifecycleConfig`` per app type (JupyterLab, Code Editor) for one team.

    The content is create-only in CloudFormation, so the name carries a hash of the rendered script: a change makes
    a new configuration (user profiles switch to it) and CloudFormation deletes the old one.

    Attributes: ``configs`` (app type -> ``CfnStudioLifecycleConfig``), ``arns`` (app type -> ARN).

    :param name_prefix: e.g. ``llmft-dev-ml-research``; the name is ``<prefix>-<jl|ce>-<hash>`` (<= 63 chars).
    :param settings: PLATFORM_REGION, PLATFORM_CLUSTER_NAME, PLATFORM_NAMESPACE, PLATFORM_KUBERNETES_VERSION and
        optionally MLFLOW_URI, MLFLOW_CREDENTIALS_SECRET_ARN.
    """

    def __init__(self, scope: Construct, construct_id: str, *, name_prefix: str, settings: Mapping[str, str]) -> None:
        super().__init__(scope, construct_id)
        content = render_script(settings)
        resolved = json.dumps(Stack.of(self).resolve(content), sort_keys=True)
        digest = hashlib.sha256(resolved.encode()).hexdigest()[:8]
        if len(name_prefix) + 12 > 63:
            raise ValueError(f"lifecycle config name prefix {name_prefix!r} is too long (max 51 characters)")
        if len(content) * 4 // 3 + 4 > MAX_CONTENT:
            raise ValueError(f"the rendered lifecycle script is too long for SageMaker ({len(content)} bytes)")
        self.configs: dict[str, sagemaker.CfnStudioLifecycleConfig] = {}
        for app_type, short in APP_TYPES.items():
            self.configs[app_type] = sagemaker.CfnStudioLifecycleConfig(
                self,
                app_type,
                studio_lifecycle_config_app_type=app_type,
                studio_lifecycle_config_name=f"{name_prefix}-{short}-{digest}",
                studio_lifecycle_config_content=Fn.base64(content),
            )
        self.content = content

    @property
    def arns(self) -> dict[str, str]:
        return {t: c.attr_studio_lifecycle_config_arn for t, c in self.configs.items()}
