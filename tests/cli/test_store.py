"""`semcer store info|export|import` (in process)."""

from __future__ import annotations

import pytest
from helpers import dump, fill_store

from semcer.cli import main
from semcer.store.sqlite import SCHEMA_VERSION


@pytest.fixture
def filled_store(tmp_path):
    return fill_store(tmp_path / "filled.sqlite")


def test_cli_info_export_import(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    assert main(["store", "info", str(filled_store)]) == 0
    out = capsys.readouterr().out
    assert "edits: 190" in out and "150  counting:v1" in out and f"schema version: {SCHEMA_VERSION}" in out

    parquet = tmp_path / "all.parquet"
    assert main(["store", "export", str(filled_store), str(parquet)]) == 0
    assert "exported 190" in capsys.readouterr().out
    assert main(["store", "export", str(filled_store), str(tmp_path / "one.parquet"), "--judge", "counting:v1"]) == 0
    assert "exported 150" in capsys.readouterr().out

    target = tmp_path / "new.sqlite"
    assert main(["store", "import", str(target), str(parquet)]) == 0
    assert "imported 190" in capsys.readouterr().out
    assert dump(target) == dump(filled_store)


def test_cli_errors_are_one_line(tmp_path, filled_store, capsys):
    assert main(["store", "info", str(tmp_path / "missing.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semcer: error:") and "missing.sqlite" in err and err.count("\n") == 1

    assert main(["store", "export", str(filled_store), str(tmp_path / "x.parquet"), "--judge", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "no edits of judge 'nobody'" in err and "counting:v1" in err
    assert not (tmp_path / "x.parquet").exists()
