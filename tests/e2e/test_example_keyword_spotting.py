"""The keyword-spotting example on a fixed subset (tests/e2e/example_checks.py)."""
from __future__ import annotations

import shutil

import pytest

from example_checks import ON_BOARD, check, evaluation, one_torch_thread  # noqa: F401

# 65 clips: one clip is 1.5 pp; the subset allows int8 to differ from float on one clip.
SMOKE_GAP_PP = 1.6


@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="espeak-ng / sox not installed (apt-get install espeak-ng sox)")
def test_keyword_spotting(cli, tmp_path):
    from keyword_spotting import dataset, train

    model, meta = train.load_trained()
    n_test, n_train = len(dataset.voices("test")), len(dataset.voices("train"))
    # every 4th test voice (50 voices, 650 clips); calibration: 15 training voices, 195 clips
    test = dataset.build("test", range(0, n_test, 4), data_dir=tmp_path / "data")
    calib = dataset.build("train", range(0, n_train, 40), data_dir=tmp_path / "data")
    x = train.standardise(test["x"], meta).numpy()
    c = train.standardise(calib["x"], meta).numpy()
    rep, _ = evaluation.evaluate("keyword spotting (subset)", model, x, test["y"], c,
                                 tmp_path / "kws", name="ds_cnn_kws", log=lambda _: None,
                                 run_on_board=ON_BOARD)
    check(rep, min_float=0.85)


# The sequence models (issue 15 part 4) on a handful of clips: their graphs cannot be rebatched
# (time-major steps), so every host stage runs one `tinyforge run` per clip, and the GRU's
# export alone takes ~15 s. Every 40th test voice (5 voices, 65 clips), calibration as above.
@pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                    reason="espeak-ng / sox not installed (apt-get install espeak-ng sox)")
@pytest.mark.parametrize("arch", ["gru", "attention"])
def test_keyword_spotting_sequence_model(arch, cli, tmp_path):
    from keyword_spotting import dataset, train

    model, meta = train.load_trained(arch)
    n_test, n_train = len(dataset.voices("test")), len(dataset.voices("train"))
    test = dataset.build("test", range(0, n_test, 40), data_dir=tmp_path / "data")
    calib = dataset.build("train", range(0, n_train, 40), data_dir=tmp_path / "data")
    x = train.standardise(test["x"], meta).numpy()
    c = train.standardise(calib["x"], meta).numpy()
    rep, _ = evaluation.evaluate(f"keyword spotting (subset, {arch})", model, x, test["y"], c,
                                 tmp_path / arch, name=train.name(arch), log=lambda _: None,
                                 run_on_board=ON_BOARD)
    check(rep, min_float=0.85, max_gap_pp=SMOKE_GAP_PP)
