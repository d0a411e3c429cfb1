"""The training options each have their own message naming the option (``--lr inf`` is refused, and
``--mse-weight -1`` says it is the MSE weight), and a validation fraction that would leave nothing to
train on says so, before any backbone is loaded."""

from __future__ import annotations

import math

import pytest
from student_fixtures import TRAIN, needs_hf

from semcer.errors import InputError
from semcer.judges.student.data import StudentRow, split_rows

pytestmark = needs_hf


def _config(**options):
    from semcer.training.student import TrainConfig

    return TrainConfig(**options)


REAL = [
    ("lr", "lr (--lr) must be a finite number more than 0", [0.0, -1e-5, math.inf, -math.inf, math.nan, "1e-5", True]),
    ("head_lr", "head_lr (--head-lr) must be a finite number more than 0", [0, math.inf, math.nan]),
    ("mse_weight", "mse_weight (--mse-weight) must be a finite number 0 or more", [-1.0, math.inf, math.nan]),
    ("dropout", "dropout must be a finite number at least 0 and less than 1", [1.0, -0.1, math.nan, math.inf]),
    ("val_fraction", "val_fraction (--val-fraction) must be a finite number at least 0 and less than 1",
     [1.0, -0.5, math.nan]),
    ("weight_decay", "weight_decay must be a finite number 0 or more", [-0.01, math.inf]),
    ("warmup_fraction", "warmup_fraction must be a finite number from 0 to 1", [1.5, math.nan]),
    ("max_grad_norm", "max_grad_norm must be a finite number 0 (no clipping) or more", [-1.0, math.inf]),
]


@pytest.mark.parametrize("name, message, values", REAL)
def test_each_real_option_is_named_in_its_own_message(name, message, values):
    for value in values:
        with pytest.raises(InputError) as info:
            _config(**{name: value}).check()
        assert str(info.value) == f"{message}, got {value!r}"


@pytest.mark.parametrize("name, least, flag", [
    ("max_length", 1, " (--max-length)"), ("batch_size", 1, " (--batch-size)"), ("eval_batch_size", 1, ""),
    ("grad_accum", 1, " (--grad-accum)"), ("head_hidden", 1, ""), ("patience", 1, " (--patience)"),
    ("epochs", 0, " (--epochs)"),
])
def test_each_whole_option_is_named_in_its_own_message(name, least, flag):
    for value in (least - 1, 2.5, True):
        with pytest.raises(InputError) as info:
            _config(**{name: value}).check()
        assert str(info.value) == f"{name}{flag} must be a whole number at least {least}, got {value!r}"


def test_the_edges_of_every_range_are_accepted():
    _config().check()
    _config(lr=1e-9, head_lr=10.0, mse_weight=0.0, dropout=0.0, val_fraction=0.0, weight_decay=0.0,
            warmup_fraction=1.0, max_grad_norm=0.0, epochs=0).check()
    _config(dropout=0.999, val_fraction=0.999).check()


def _rows(n: int, *, lines: int = 0) -> list[StudentRow]:
    """``n`` distinct edits, on ``lines`` lines (0: no line ids: split by edit)."""
    return [StudentRow(f"Tấm ⟦C⟧ám {k}", f"Tấm ⟦K⟧ám {k}", (0.2,) * 5, "vi", "S",
                       f"l{k % lines}" if lines else "") for k in range(n)]


def test_a_fraction_that_holds_out_everything_says_the_training_split_is_empty():
    from semcer.training.student import split_for_training

    with pytest.raises(InputError) as info:
        split_for_training(_rows(300), 0.999, 0)
    assert str(info.value) == ("--val-fraction 0.999 holds out all 300 distinct edits of the 300 judged edits, "
                               "leaving none to train on; give at most 0.996, or 0 (no validation)")
    train, val, unit = split_for_training(_rows(300), 0.996, 0)
    assert (len(train), len(val), unit) == (1, 299, "edit")
    with pytest.raises(InputError, match=r"^--val-fraction 0.9 holds out all 4 lines of the 40 judged edits, .* "
                                         r"give at most 0.75, or 0"):
        split_for_training(_rows(40, lines=4), 0.9, 0)
    assert len(split_for_training(_rows(40, lines=4), 0.75, 0)[0]) == 10


def test_data_of_one_line_cannot_be_split():
    from semcer.training.student import split_for_training

    with pytest.raises(InputError) as info:
        split_for_training(_rows(12, lines=1), 0.05, 0)
    assert str(info.value) == ("--val-fraction 0.05: all 12 judged edits are one line, which the validation split "
                               "takes whole, leaving nothing to train on; give more data, or --val-fraction 0 (no "
                               "validation, no early stop)")
    assert len(split_for_training(_rows(12, lines=1), 0.0, 0)[0]) == 12
    with pytest.raises(InputError, match=r"^no judged edits to train on$"):
        split_for_training([], 0.05, 0)


@pytest.mark.parametrize("units", [2, 3, 7, 30, 301])
def test_the_check_refuses_exactly_the_splits_that_would_leave_no_training_edit(units):
    """The check counts units as split_rows groups them: copies of an edit are one unit."""
    from semcer.training.student import split_for_training

    rows = _rows(units) + _rows(units)[:2]  # two edits twice
    for fraction in [k / 1000 for k in range(1, 1000, 7)] + [1 - 0.5 / units, 1 - 0.49 / units, 1 - 0.51 / units]:
        try:
            train, _, _ = split_rows(rows, fraction, 3)
            splits = bool(train)
        except InputError:
            splits = False
        try:
            split_for_training(rows, fraction, 3)
            checked = True
        except InputError as exc:
            checked = False
            assert "leaving none to train on" in str(exc)
        assert checked == splits, (units, fraction)


def test_the_cli_names_the_option_before_reading_the_data(tmp_path, capsys):
    from semcer.cli import main

    base = ["distill", "--data", str(tmp_path / "missing.jsonl"), "--backbone", str(tmp_path), "--out",
            str(tmp_path / "s"), "-q"]
    for extra, message in ((["--lr", "inf"], "lr (--lr) must be a finite number more than 0, got inf"),
                           (["--lr", "nan"], "lr (--lr) must be a finite number more than 0, got nan"),
                           (["--mse-weight", "-1"], "mse_weight (--mse-weight) must be a finite number 0 or more, "
                                                    "got -1.0"),
                           (["--head-lr", "0"], "head_lr (--head-lr) must be a finite number more than 0, got 0.0")):
        assert main([*base, *extra]) == 2
        assert capsys.readouterr().err == f"semcer: error: {message}\n"


def test_the_cli_says_the_training_split_is_empty_before_loading_the_backbone(tmp_path, capsys):
    from semcer.cli import main

    data = tmp_path / "labels.jsonl"
    lines = TRAIN.read_text(encoding="utf-8").splitlines()[:300]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    empty_backbone = tmp_path / "backbone"
    empty_backbone.mkdir()
    args = ["distill", "--data", str(data), "--backbone", str(empty_backbone), "--out", str(tmp_path / "s"), "-q"]
    assert main([*args, "--val-fraction", "0.999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semcer: error: --val-fraction 0.999 holds out all ") and err.count("\n") == 1, err
    assert "leaving none to train on" in err and "too few" not in err
    assert not (tmp_path / "s").exists()
    assert main([*args, "--val-fraction", "0.5"]) == 2  # the split is fine: now the (empty) backbone is refused
    assert "backbone" in capsys.readouterr().err
