"""app.py pauses garbage collection while its modules load (see its comment): importing it must leave collection on,
or every process that imports it (the tests, tools) would run without a cyclic collector."""

from __future__ import annotations

import gc
import importlib


def test_importing_the_app_leaves_garbage_collection_on() -> None:
    import app

    importlib.reload(app)  # the import itself, even when conftest imported the module first
    assert gc.isenabled()
