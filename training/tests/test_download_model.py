"""llmp-download-model: pinned revision, marker written only after a complete snapshot, no-op when present.

The Hub transfer itself is huggingface_hub.snapshot_download (resumable by design); the tests replace it to see
what the step asks of it, since nothing may be downloaded here."""

from __future__ import annotations

import json

import pytest
from llm_platform import download_model

SHA = "0123456789abcdef0123456789abcdef01234567"


def config(tmp_path, **kw):
    return download_model.DownloadConfig(repo_id="org/model", revision=SHA, local_dir=str(tmp_path / "m"), **kw)


def test_unpinned_revision_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="'main' is not a commit sha"):
        download_model.DownloadConfig(repo_id="org/model", revision="main", local_dir=str(tmp_path))
    download_model.DownloadConfig(repo_id="org/model", revision="main", local_dir=str(tmp_path), allow_unpinned=True)


def test_download_then_noop(tmp_path, monkeypatch) -> None:
    import huggingface_hub

    calls = []

    def fake_snapshot(**kw):
        calls.append(kw)
        (tmp_path / "m/config.json").write_text("{}")
        (tmp_path / "m/model.safetensors").write_bytes(b"x")
        return kw["local_dir"]

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    cfg = config(tmp_path)
    download_model.download(cfg)
    assert calls[0]["revision"] == SHA and calls[0]["local_dir"] == str(tmp_path / "m")
    marker = json.loads((tmp_path / "m" / download_model.MARKER).read_text())
    assert marker == {"repo_id": "org/model", "revision": SHA, "files": ["config.json", "model.safetensors"]}
    download_model.download(cfg)
    assert len(calls) == 1  # present: nothing fetched
    (tmp_path / "m/model.safetensors").unlink()  # a file went missing: fetch again
    download_model.download(cfg)
    assert len(calls) == 2


def test_interrupted_download_leaves_no_marker_and_is_resumed(tmp_path, monkeypatch) -> None:
    import huggingface_hub

    def failing(**kw):
        (tmp_path / "m/config.json").write_text("{}")
        raise OSError("connection reset")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", failing)
    with pytest.raises(OSError):
        download_model.download(config(tmp_path))
    assert not (tmp_path / "m" / download_model.MARKER).exists()
    assert not download_model.present(config(tmp_path))
    other = download_model.DownloadConfig(repo_id="org/model", revision="f" * 40, local_dir=str(tmp_path / "m"))
    assert not download_model.present(other)
