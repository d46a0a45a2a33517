"""board_run.status_text: the firmware prints a runtime status as "tf_status <value>" (its
texts stay out of the image, docs/decisions.md 74); the host spells it out from status.def,
every value as the runtime's own table does."""
import re

from tinyforge import board_run
from tinyforge.paths import repo_root


def test_every_status_is_spelled_out_from_status_def():
    text = (repo_root() / "runtime" / "include" / "tinyforge" / "status.def").read_text()
    rows = re.findall(r'^TF_STATUS\(\w+, (\w+), (\d+), "(.*)"\)$', text, re.M)
    assert len(rows) == text.count("\nTF_STATUS(")  # every line parsed
    for c_name, value, words in rows:
        line = f"model_runner: init failed: op 2 (kernel id 7): tf_status {value}"
        assert board_run.status_text(line) == (
            f"model_runner: init failed: op 2 (kernel id 7): {words} ({c_name})")


def test_unknown_status_and_plain_text():
    assert board_run.status_text("run failed on sample 0: tf_status 200") == (
        "run failed on sample 0: unknown status 200")
    assert board_run.status_text("model_runner: ok, 1 samples") == "model_runner: ok, 1 samples"
