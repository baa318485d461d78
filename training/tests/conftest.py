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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Test tiers (docs/testing.md "Tiers"): a module that trains or serves the tiny model or starts processes says
    `pytestmark = pytest.mark.e2e`; every other test is `unit` (`make test-fast` runs those)."""
    for item in items:
        if not item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.unit)
