"""`llmft`: one command from a job spec to a running job.

    llmft render SPEC [-o FILE]         the manifests (GitOps, `kubectl apply -f`), after preflight
    llmft submit SPEC [--dry-run]       preflight, then apply to the cluster (dry run: print, create nothing)
    llmft run --local SPEC [--fsx DIR]  the step on this machine, as its pod would run it (smoke test)
    llmft status NAME | logs NAME [-f] | cancel NAME | list
    llmft port-forward NAME [--local-port 8000]   a serve job's endpoint on localhost (wakes it if asleep)
    llmft promote SPEC --image IMAGE [-o FILE] [--retire]
    llmft promote EVAL_SPEC --evaluate [-o FILE]
                                                platform admins: the promotion (or retirement) Job of a production
                                                serve spec

Serve jobs (`type: serve`, docs/serving.md) resolve their registered model in MLflow (MLFLOW_TRACKING_URI and the
team's user from the environment); `--registry FILE` renders from a YAML snapshot instead (examples/registry.yaml).

Common options: --env (default $LLMFT_ENV, else dev) picks config/<env>.yaml; --team overrides the spec's team
(default: the kube context's namespace). Exit codes: 0 ok, 1 refused by preflight or invalid spec (or an error llmft
did not foresee: one line, LLMFT_DEBUG=1 for the traceback), 2 cluster error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from llmft import progress
from llmft.cluster import Cluster, ClusterError
from llmft.job_types.base import get as job_type

if TYPE_CHECKING:  # imported where used: `--help`, status, logs, list and cancel never load the config or cdk8s
    from llmft.preflight import Result
    from llmft.spec import JobSpec

STARTED = time.monotonic()


def run_preflight(args: argparse.Namespace, *, cluster: Cluster | None) -> tuple[JobSpec, Result]:
    from config import load_config
    from k8s_charts.values import PlatformValues
    from llmft.build import resolve_image
    from llmft.preflight import preflight
    from llmft.spec import load_spec

    spec = load_spec(args.spec)
    if args.team:
        spec = spec.model_copy(update={"team": args.team})
    config = load_config(args.env)
    namespace = spec.team or Cluster.context_namespace()
    values = PlatformValues.placeholders(config)
    image = resolve_image(spec, config=config, namespace=namespace or "", cluster=cluster)
    result = preflight(
        spec,
        config=config,
        values=values,
        image=image,
        context_namespace=namespace,
        cluster=cluster,
        check_registry=cluster is not None,
        registry=_registry(args, spec),
    )
    return spec, result


def _registry(args: argparse.Namespace, spec: JobSpec):
    """Where a serve job's model is looked up: ``--registry FILE`` (a snapshot), else MLflow from the environment
    (None when it cannot be reached: preflight says how to fix it)."""
    if job_type(spec.type).workload != "deployment":
        return None
    from llmft.registry import FileRegistry, MlflowRegistry, RegistryUnavailable

    if getattr(args, "registry", None):
        return FileRegistry.load(args.registry)
    try:
        return MlflowRegistry.from_environment()
    except RegistryUnavailable as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return None


def _print_refusal(spec: JobSpec, args: argparse.Namespace, result: Result) -> None:
    team = result.team.name if result.team else spec.team or "?"
    print(
        f"llmft: preflight refused {spec.name} (env {args.env}, team {team}, tier {spec.tier}); nothing was created:",
        file=sys.stderr,
    )
    print(result.report(), file=sys.stderr)


def cmd_render(args: argparse.Namespace) -> int:
    spec, result = run_preflight(args, cluster=None)
    if not result.ok or result.plan is None:
        _print_refusal(spec, args, result)
        return 1
    if args.output and (Path(args.output).is_dir() or args.output.endswith("/")):
        return _render_to_checkout(args, result.plan)
    text = result.plan.yaml()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {len(result.plan.manifests)} objects to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _render_to_checkout(args: argparse.Namespace, plan) -> int:
    """`llmft render SPEC -o CHECKOUT`: the job's manifests where the team's Argo CD Application syncs them,
    ``CHECKOUT/<delivery.path>/teams/<team>/<job>.yaml`` (config/gitops.py), for Git rather than kubectl."""
    from config import load_config
    from config.gitops import team_job_file
    from llmft.build import for_git

    config = load_config(args.env)
    target = Path(args.output) / team_job_file(config.gitops_path, plan.team.name, plan.spec.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    existed = target.exists()
    target.write_text(for_git(plan))
    print(
        f"{'updated' if existed else 'wrote'} {target} ({len(plan.manifests)} objects). Commit and push it: Argo "
        f"CD's application team-{plan.team.name} syncs {config.gitops_path}/teams/{plan.team.name} into namespace "
        f"{plan.team.namespace}; delete the file (git rm) to delete the job.",
        file=sys.stderr,
    )
    if existed:
        print(
            "note: a submitted job never changes: Argo CD cannot replace its immutable step ConfigMap; give a "
            "changed job a new name",
            file=sys.stderr,
        )
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if args.registry and not args.dry_run:
        print(
            "llmft: --registry renders from a snapshot, which may be stale; a submit resolves the model in MLflow "
            "itself: drop --registry, or add --dry-run",
            file=sys.stderr,
        )
        return 1
    cluster = None if args.dry_run else Cluster.connect()
    if cluster is None and not args.dry_run:
        print(
            "llmft: the cluster is not reachable (kubectl get --raw /readyz failed); check your kube context, or "
            "use --dry-run / `llmft render` to see the manifests",
            file=sys.stderr,
        )
        return 2
    spec, result = run_preflight(args, cluster=cluster)
    if not result.ok or result.plan is None:
        _print_refusal(spec, args, result)
        return 1
    plan = result.plan
    print(
        f"preflight passed for {spec.name} (env {args.env}, team {plan.team.name}, tier {spec.tier}):", file=sys.stderr
    )
    print(result.report(), file=sys.stderr)
    if args.dry_run:
        if job_type(spec.type).step == "sft":  # the training FLOPs model is SFT's (llm_platform.memory)
            estimate = progress.estimate_lines(plan.step, plan.manifests[-1], progress.pricer_for(args.env))
            print("\n".join(estimate), file=sys.stderr)
        sys.stdout.write(plan.yaml())
        print(f"dry run: {len(plan.manifests)} objects rendered, nothing created ({wall_time():.2f}s)", file=sys.stderr)
        return 0
    assert cluster is not None
    try:
        out = (
            cluster.create_serve(plan.manifests)
            if job_type(spec.type).workload == "deployment"
            else cluster.create_job(plan.manifests[0], plan.manifests[-1])
        )
    except ClusterError as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    print(
        f"submitted {spec.name} to namespace {plan.team.namespace} in {time.monotonic() - started:.1f}s; follow it "
        f"with `llmft status {spec.name}` and `llmft logs {spec.name} -f`",
        file=sys.stderr,
    )
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    """`llmft promote SPEC --image IMAGE`: the promotion Job (llmft/promote.py) of a production serve spec, the
    version resolved in MLflow (passed and pinned, else refused). Prints or writes it; a platform admin applies it."""
    from k8s_charts import serving
    from llmft.promote import promotion_manifests

    if args.evaluate:
        return _evaluate(args)
    if not args.image:
        print("llmft: promote needs --image (an image with kubectl, pinned by digest)", file=sys.stderr)
        return 1
    if args.retire:
        return _retire(args)
    spec, result = run_preflight(args, cluster=None)
    if job_type(spec.type).workload != "deployment" or spec.tier not in serving.PRODUCTION_TIERS:
        print(
            f"llmft: promote is for serve specs of a production tier ({', '.join(serving.PRODUCTION_TIERS)}); "
            f"{spec.name} is type {spec.type}, tier {spec.tier}: use `llmft submit`",
            file=sys.stderr,
        )
        return 1
    if not result.ok or result.plan is None:
        _print_refusal(spec, args, result)
        return 1
    try:
        manifests = promotion_manifests(result.plan.manifests, image=args.image)
    except ValueError as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return 1
    _emit(manifests, args.output)
    print(
        f"{spec.name}: {spec.serve.model} version {result.plan.model.version} (passed, digest pinned); apply the "
        f"ConfigMap and Job in namespace {serving.PROMOTION_NAMESPACE} (platform admins only), then `kubectl logs "
        f"-n {serving.PROMOTION_NAMESPACE} job/{manifests[1]['metadata']['name']}`",
        file=sys.stderr,
    )
    return 0


def _emit(manifests: list[dict], output: str | None) -> None:
    """The manifests as YAML documents, to ``output`` (a file) or standard output."""
    import yaml

    text = yaml.safe_dump_all(manifests, sort_keys=False)
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _evaluate(args: argparse.Namespace) -> int:
    """`llmft promote EVAL_SPEC --evaluate`: the platform's gated evaluation (llmft/promote_evaluate.py) of a team's
    `type: evaluate` spec, in the platform namespace with the evaluator's credentials. Prints or writes it."""
    from k8s_charts import serving
    from llmft.promote_evaluate import evaluation_manifests, spec_problems

    if args.image or args.retire:
        print("llmft: --evaluate takes neither --image nor --retire (it runs the platform's image)", file=sys.stderr)
        return 1
    spec, result = run_preflight(args, cluster=None)
    problems = spec_problems(spec, result.team)
    if not result.ok or result.plan is None:
        _print_refusal(spec, args, result)
    elif not problems:
        try:
            manifests = evaluation_manifests(result.plan)
        except ValueError as exc:
            problems = [str(exc)]
    if problems:
        print(f"llmft: {spec.name} is not a gated evaluation the platform runs as the evaluator:", file=sys.stderr)
        print("\n".join(f"  - {p}" for p in problems), file=sys.stderr)
    if problems or not result.ok or result.plan is None:
        return 1
    _emit(manifests, args.output)
    print(
        f"{spec.name}: apply the ConfigMap and PyTorchJob in namespace {serving.PROMOTION_NAMESPACE} (platform admins "
        f"only); Kueue admits it in {result.plan.team.name}'s {result.plan.tier.name} queue, then `kubectl logs -n "
        f"{serving.PROMOTION_NAMESPACE} {manifests[1]['metadata']['name']}-worker-0` shows the verdict",
        file=sys.stderr,
    )
    return 0


def _retire(args: argparse.Namespace) -> int:
    """`llmft promote SPEC --image IMAGE --retire`: the Job that deletes a production endpoint as the promoter (teams
    may not delete production objects). Needs neither MLflow nor preflight: the spec names the endpoint."""
    from k8s_charts import serving
    from llmft.promote import retirement_manifests
    from llmft.spec import load_spec

    spec = load_spec(args.spec)
    team = args.team or spec.team
    if job_type(spec.type).workload != "deployment" or spec.tier not in serving.PRODUCTION_TIERS or not team:
        print(
            f"llmft: --retire is for serve specs of a production tier with a team; {spec.name} is type {spec.type}, "
            f"tier {spec.tier}, team {team or 'unset'}: `llmft cancel` removes other jobs",
            file=sys.stderr,
        )
        return 1
    try:
        job = retirement_manifests(spec.name, team, image=args.image)
    except ValueError as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return 1
    _emit(job, args.output)
    print(
        f"{spec.name}: apply the Job in namespace {serving.PROMOTION_NAMESPACE} (platform admins only); it deletes "
        f"the endpoint's ScaledObject, Service and Deployment in {team}",
        file=sys.stderr,
    )
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    if not args.local:
        print("llmft: run needs --local (to run on the cluster: llmft submit SPEC)", file=sys.stderr)
        return 1
    if args.python:  # the interpreter that runs the step has the engine: serve specs' engine_args are checked there
        from llmft.preflight import ENGINE_PYTHON_ENV

        os.environ.setdefault(ENGINE_PYTHON_ENV, args.python)
    from llm_platform.paths import LOCAL_FSX_ENV

    from llmft.local import mlflow_defaults

    # without MLflow variables in the shell, the local run logs, registers and resolves serve models in DIR/mlruns
    os.environ.update(mlflow_defaults(Path(args.fsx), os.environ))
    # preflight's memory check reads a model's config.json under /fsx in the local stand-in (llmft/memory_check.py)
    before = os.environ.get(LOCAL_FSX_ENV)
    os.environ[LOCAL_FSX_ENV] = str(Path(args.fsx).resolve())
    try:
        spec, result = run_preflight(args, cluster=None)
    finally:
        if before is None:
            os.environ.pop(LOCAL_FSX_ENV, None)
        else:
            os.environ[LOCAL_FSX_ENV] = before
    if not result.ok or result.plan is None:
        _print_refusal(spec, args, result)
        return 1
    from llmft import local

    if job_type(spec.type).workload == "deployment":
        return _run_serve_locally(result.plan, args)
    try:
        return local.run(result.plan, fsx=Path(args.fsx), python=args.python, nproc=args.nproc, check=args.check)
    except ValueError as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return 1


def _run_serve_locally(plan, args: argparse.Namespace) -> int:
    """`llmft run --local` of a serve spec: the version the registry resolved, from the local stand-in of the
    team's /fsx (``--fsx``), behind the CPU OpenAI-compatible server (llm_platform.serve) on 127.0.0.1."""
    from llmft import local

    if args.check:
        print(
            f"llmft: {plan.spec.serve.model} version {plan.model.version} resolves to {plan.model.model_dir}; "
            f"nothing else to check for a serve job",
            file=sys.stderr,
        )
        return 0
    from k8s_charts.serving import ENGINE_PORT

    model_dir = Path(local.map_fsx(plan.model.model_dir, Path(args.fsx)))
    return local.run_serve(
        model_dir, plan.spec.serve.model, port=args.port or ENGINE_PORT, python=args.python, digest=plan.model.digest
    )


def _cluster_namespace(args: argparse.Namespace) -> tuple[Cluster, str]:
    cluster = Cluster.connect()
    if cluster is None:
        raise ClusterError("the cluster is not reachable; check your kube context (`kubectl config current-context`)")
    namespace = args.team or Cluster.context_namespace()
    if not namespace:
        raise ClusterError("no namespace: pass --team or set the kube context's namespace")
    return cluster, namespace


def cmd_status(args: argparse.Namespace) -> int:
    cluster, namespace = _cluster_namespace(args)
    table = cluster.status(args.name, namespace)  # first: says when there is no such job
    step = cluster.step_files(namespace, args.name).get(args.name)
    if step is not None and progress.tracked(step):
        try:
            found, where = progress.job_progress(
                cluster,
                args.name,
                namespace,
                step,
                client=progress.mlflow_client(),
                pricer=progress.pricer_for(args.env),
            )
            sys.stdout.write("\n".join(progress.status_lines(found, where)) + "\n")
        except progress.ProgressUnavailable as exc:
            sys.stdout.write(f"progress: unavailable: {exc}\n")
    sys.stdout.write(table)
    return 0


def cmd_logs(args: argparse.Namespace) -> int:
    cluster, namespace = _cluster_namespace(args)
    return cluster.logs(args.name, namespace, follow=args.follow)


def cmd_cancel(args: argparse.Namespace) -> int:
    cluster, namespace = _cluster_namespace(args)
    sys.stdout.write(cluster.delete(args.name, namespace))
    return 0


def cmd_port_forward(args: argparse.Namespace) -> int:
    """`llmft port-forward NAME`: the serve job's Service on localhost:LOCAL_PORT. A Deployment scaled to zero is
    woken first (held at one replica, waited for until ready: llmft.cluster.Cluster.wake) and handed back to its
    autoscaler when the forwarding ends, which lets it sleep again unless requests keep it busy."""
    cluster, namespace = _cluster_namespace(args)
    woke = None
    try:
        woke = cluster.wake(args.name, namespace, timeout_s=args.wait)
        if woke:
            print(
                f"{args.name} was scaled to zero: woke it ({woke}); it goes back to its autoscaler when this ends",
                file=sys.stderr,
            )
        print(
            f"forwarding http://localhost:{args.local_port} -> svc/{args.name}:80 in {namespace} (Ctrl-C stops); "
            f"e.g. curl http://localhost:{args.local_port}/v1/models",
            file=sys.stderr,
        )
        return cluster.port_forward(args.name, namespace, local_port=args.local_port)
    finally:
        if woke:
            cluster.release(args.name, namespace)


def cmd_list(args: argparse.Namespace) -> int:
    cluster, namespace = _cluster_namespace(args)
    sys.stdout.write(cluster.list_jobs(namespace))
    steps = {job: step for job, step in cluster.step_files(namespace).items() if progress.tracked(step)}
    if not steps:
        return 0
    try:
        client, pricer = progress.mlflow_client(), progress.pricer_for(args.env)
    except progress.ProgressUnavailable as exc:
        sys.stdout.write(f"\nprogress: unavailable: {exc}\n")
        return 0
    rows = [progress.LIST_HEADER]
    for job, step in sorted(steps.items()):
        try:
            rows.append(
                progress.list_row(
                    job, *progress.job_progress(cluster, job, namespace, step, client=client, pricer=pricer)
                )
            )
        except progress.ProgressUnavailable as exc:
            rows.append(progress.list_row(job, None, None, str(exc)))
    sys.stdout.write("\n" + "\n".join(rows) + "\n")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="llmft", description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--env",
        default=os.environ.get("LLMFT_ENV", "dev"),
        help="environment: config/<env>.yaml (default $LLMFT_ENV, else dev)",
    )
    common.add_argument("--team", help="team (namespace); default: the spec's team, else the kube context's")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", parents=[common], help="print the manifests of a job spec")
    r.add_argument("spec")
    r.add_argument(
        "-o",
        "--output",
        help="write to this file instead of stdout; a directory (a checkout of the "
        "environment's GitOps repository) gets <path>/teams/<team>/<job>.yaml",
    )
    r.add_argument(
        "--registry",
        help="serve jobs: resolve the model from this YAML snapshot of the registry "
        "instead of MLflow (examples/registry.yaml)",
    )
    r.set_defaults(func=cmd_render)
    s = sub.add_parser("submit", parents=[common], help="preflight, then create the job")
    s.add_argument("spec")
    s.add_argument("--dry-run", action="store_true", help="preflight and print; create nothing, no cluster needed")
    s.add_argument("--registry", help="serve jobs: resolve the model from this YAML snapshot (with --dry-run)")
    s.set_defaults(func=cmd_submit)
    lr = sub.add_parser("run", parents=[common], help="run a job spec's step on this machine (--local)")
    lr.add_argument("spec")
    lr.add_argument("--local", action="store_true", help="run here, as the pod would (the only mode)")
    lr.add_argument("--fsx", default="fsx", help="local directory standing for the team's /fsx (default ./fsx)")
    lr.add_argument("--nproc", type=int, help="processes for torchrun steps (default: local GPUs, else 1)")
    lr.add_argument("--python", help="interpreter with the training package (default: this one)")
    lr.add_argument("--check", action="store_true", help="only parse and validate the step file (its --check)")
    lr.add_argument("--registry", help="serve jobs: resolve the model from this YAML snapshot instead of MLflow")
    lr.add_argument("--port", type=int, help="serve jobs: local port (default: the engine's, 30000)")
    lr.set_defaults(func=cmd_run)
    for name, func, text in (
        ("status", cmd_status, "the job, its pods, and its progress, ETA and cost so far"),
        ("cancel", cmd_cancel, "delete the job"),
        ("logs", cmd_logs, "logs of every pod of the job"),
    ):
        c = sub.add_parser(name, parents=[common], help=text)
        c.add_argument("name")
        if name == "logs":
            c.add_argument("-f", "--follow", action="store_true")
        c.set_defaults(func=func)
    sub.add_parser("list", parents=[common], help="the team's llmft jobs, with progress, ETA and cost").set_defaults(
        func=cmd_list
    )
    pf = sub.add_parser("port-forward", parents=[common], help="a serve job's endpoint on localhost")
    pf.add_argument("name")
    pf.add_argument("--local-port", type=int, default=8000, help="local port (default 8000)")
    pf.add_argument("--wait", type=int, default=1800, help="seconds to wait for a woken replica (default 1800)")
    pf.set_defaults(func=cmd_port_forward)
    pr = sub.add_parser(
        "promote", parents=[common], help="platform admins: the promotion Job of a production serve spec"
    )
    pr.add_argument("spec")
    pr.add_argument("--image", help="an image with kubectl that runs the Job (pin it by digest); not with --evaluate")
    pr.add_argument("-o", "--output", help="write to this file instead of stdout")
    pr.add_argument("--retire", action="store_true", help="the Job that deletes the endpoint (as the promoter) instead")
    pr.add_argument(
        "--evaluate",
        action="store_true",
        help="SPEC is a team's gated `type: evaluate` spec: the platform's evaluation of it, run as the evaluator",
    )
    pr.set_defaults(func=cmd_promote)
    from llmft.pipeline import add_subcommand  # issue 33: `llmft pipeline` (llmft/pipeline.py)

    add_subcommand(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except ClusterError as exc:
        print(f"llmft: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if type(exc).__name__ == "ConfigError":  # config._base.ConfigError, not imported up front (see above)
            print(f"llmft: {exc}", file=sys.stderr)
            return 1
        if os.environ.get("LLMFT_DEBUG"):
            raise
        # a spec must never meet a traceback: what llmft did not foresee is still one line, and a bug to report
        print(
            f"llmft: could not process {getattr(args, 'spec', None) or args.command}: {type(exc).__name__}: {exc}. "
            f"This is a bug in llmft, not in your spec's rules; please report it with the spec (LLMFT_DEBUG=1 shows "
            f"the traceback)",
            file=sys.stderr,
        )
        return 1


def wall_time() -> float:
    """Seconds since this process started (Linux: /proc/self/stat field 22, in clock ticks since boot), so a dry
    run reports what the user waited, interpreter start and imports included; else since this module loaded."""
    try:
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        uptime = float(open("/proc/uptime").read().split()[0])
        return max(uptime - started, 0.0)
    except (OSError, ValueError, IndexError):
        return time.monotonic() - STARTED
