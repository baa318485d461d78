"""`llmp-download-model`: a Hugging Face model -> the team's FSx ``models/`` directory.

* Revision-pinned: ``revision`` must be a full 40-hex commit sha, so every job trains the same weights; a branch
  or tag is refused unless ``allow_unpinned: true``.
* Resumable: ``huggingface_hub.snapshot_download`` into ``local_dir`` keeps finished files and resumes partial
  ones (it tracks them under ``<local_dir>/.cache/huggingface``), so a restarted pod continues where it stopped.
* No-op if present: a marker ``.llmp-download.json`` (repo, revision, files) is written only after the whole
  snapshot arrived; a run that finds the marker for the same repo and revision, with every listed file still
  there, downloads nothing.

Credentials for gated models come from ``HF_TOKEN`` in the pod's environment; the Hub cache is ``HF_HOME``
(``/fsx/hf-cache`` under the team storage contract).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from llm_platform.paths import set_hf_home, share_with_team
from llm_platform.steps import entry_point

MARKER = ".llmp-download.json"
COMMIT_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass
class DownloadConfig:
    repo_id: str
    revision: str
    local_dir: str  # e.g. /fsx/models/qwen2.5-7b-instruct
    allow_patterns: list[str] = field(
        default_factory=lambda: ["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja", "*.tiktoken"]
    )
    allow_unpinned: bool = False
    max_workers: int = 8

    def __post_init__(self) -> None:
        if not self.allow_unpinned and not COMMIT_SHA.match(self.revision):
            raise ValueError(
                f"revision {self.revision!r} is not a commit sha; pin the 40-hex commit of "
                f"{self.repo_id} (Hub: Files and versions -> History), or set allow_unpinned: true"
            )


def present(cfg: DownloadConfig) -> bool:
    marker = Path(cfg.local_dir) / MARKER
    if not marker.is_file():
        return False
    try:
        data = json.loads(marker.read_text())
    except ValueError:
        return False
    return (data.get("repo_id"), data.get("revision")) == (cfg.repo_id, cfg.revision) and all(
        (Path(cfg.local_dir) / f).is_file() for f in data.get("files", [])
    )


def download(cfg: DownloadConfig) -> Path:
    """Download (or resume) the snapshot; returns the directory. Does nothing when it is already complete."""
    target = Path(cfg.local_dir)
    if present(cfg):
        print(f"{cfg.repo_id}@{cfg.revision} already in {target}; nothing to do")
        return target
    set_hf_home()
    from huggingface_hub import snapshot_download

    target.mkdir(parents=True, exist_ok=True)
    snapshot_download(
        repo_id=cfg.repo_id,
        revision=cfg.revision,
        local_dir=str(target),
        allow_patterns=cfg.allow_patterns,
        max_workers=cfg.max_workers,
    )
    files = sorted(
        str(p.relative_to(target))
        for p in target.rglob("*")
        if p.is_file() and ".cache" not in p.relative_to(target).parts and p.name != MARKER
    )
    if not files:
        raise RuntimeError(f"{cfg.repo_id}@{cfg.revision}: no file matched {cfg.allow_patterns}")
    tmp = target / (MARKER + ".tmp")
    tmp.write_text(json.dumps({"repo_id": cfg.repo_id, "revision": cfg.revision, "files": files}, indent=2))
    tmp.replace(target / MARKER)
    return target


def main(argv: list[str] | None = None) -> int:
    share_with_team()
    return entry_point(
        "download-model",
        argv,
        build=lambda data: DownloadConfig(**data),
        run=lambda cfg: print(download(cfg)) or 0,
        describe=lambda cfg: f"would download {cfg.repo_id}@{cfg.revision} into {cfg.local_dir}",
    )


if __name__ == "__main__":
    sys.exit(main())
