"""Write every chart of one environment, examples included, to dist/<env>/ as plain YAML.

    python -m k8s_charts --env dev [--out dist]

Values that exist only after deployment are `${VAR}` placeholders (see k8s_charts.values); fill them with
`envsubst` or Flux post-build substitution from the stack outputs before `kubectl apply`.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cdk8s

from config import DEFAULT_ENV, EnvironmentConfig, load_config
from k8s_charts.examples import example_charts
from k8s_charts.platform import platform_charts
from k8s_charts.values import PlatformValues


def write_dist(env: str, out: Path, *, examples: bool = True, config: EnvironmentConfig | None = None) -> list[Path]:
    """Synthesize ``env``'s charts into ``out/<env>/`` (replacing what was there); returns the files.

    :param examples: also the example jobs (k8s_charts/examples.py). Default True; `make gitops` leaves them out
        (Argo CD would run them).
    :param config: the environment's loaded config. Default: ``load_config(env)``.
    """
    config = config or load_config(env)
    values = PlatformValues.placeholders(config)
    target = out / env
    if target.exists():
        shutil.rmtree(target)
    app = cdk8s.App(
        outdir=str(target), yaml_output_type=cdk8s.YamlOutputType.FILE_PER_CHART, output_file_extension=".yaml"
    )
    platform_charts(app, config, values)
    if examples:
        example_charts(app, config, values)
    app.synth()
    return sorted(target.glob("*.yaml"))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m k8s_charts", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default=DEFAULT_ENV, help="environment (config/<env>.yaml), default dev")
    parser.add_argument("--out", default="dist", type=Path, help="output folder, default dist")
    args = parser.parse_args()
    for path in write_dist(args.env, args.out):
        print(path)


if __name__ == "__main__":
    main()
