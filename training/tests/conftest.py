import os

# Nothing in these tests may reach a hub: every model, tokenizer and dataset is built locally.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "false")
# The local MLflow store of the tests is MLflow's file store (the server uses PostgreSQL); MLflow 3 asks for an
# explicit opt-in to it.
os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_umask():
    """Entry points set the process umask (llm_platform.paths.share_with_team); put it back after each test."""
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


@pytest.fixture(scope="session")
def workspace(tmp_path_factory):
    """/fsx stand-in: models/, datasets/, checkpoints/ under a temp dir; a tiny model and prepared data. Built once
    per session and shared by test_sft and test_preemption, which write only below their own output folders."""
    from llm_platform import prepare_data
    from tiny import build_model, medical_rows, write_jsonl

    root = tmp_path_factory.mktemp("fsx")
    rows = medical_rows(24)
    corpus = [
        prepare_data.R1_PROMPT.format(question=r["Question"])
        + " "
        + prepare_data.R1_RESPONSE.format(reasoning=r["Complex_CoT"], answer=r["Response"])
        for r in rows
    ]
    model = build_model(root / "models/tiny", corpus)
    prepare_data.prepare(
        prepare_data.PrepareConfig(
            source=str(write_jsonl(root / "medical.jsonl", rows)),
            format="sft-r1",
            tokenizer_path=str(model),
            output_dir=str(root / "datasets/medical"),
            test_size=0.25,
        )
    )
    return root


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Test tiers (docs/testing.md "Tiers"): a module that trains or serves the tiny model or starts processes says
    `pytestmark = pytest.mark.e2e`; every other test is `unit` (`make test-fast` runs those)."""
    for item in items:
        if not item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.unit)
