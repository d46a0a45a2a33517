"""Every command that compiles a model for a board (run --board, profile, report, explore)
takes each pass-through `tinyforge compile` option and passes it on unchanged."""
import pytest

from tinyforge import board, compile_options, report
from tinyforge.explorer import __main__ as explorer

# One value per valued option, as `tinyforge compile` spells them.
VALUES = {"--io": "float", "--layout": "nhwc", "--memory": "sram", "--kernels": "ref",
          "--rounding": "double", "--optimize": "size", "--hot-constants": "auto"}


def test_every_option_has_a_value_here():
    assert set(VALUES) == {opt for opt, _ in compile_options.VALUED}


@pytest.mark.parametrize("command", ["run", "profile", "report", "explore"])
def test_command_passes_every_compile_option_on(command):
    argv = [x for opt, value in VALUES.items() for x in (opt, value)]
    argv += [opt for opt, _ in compile_options.FLAGS]
    if command in ("run", "profile"):
        args = board._parser().parse_args([command, "m.tflite", "--board", "an547", *argv])
    elif command == "report":
        args = report._parser().parse_args(["m.tflite", "-o", "r.html", *argv])
    else:
        args = explorer._parser().parse_args(["m.tflite", *argv])
    assert compile_options.compile_options(args) == argv


def test_nothing_given_passes_nothing():
    args = report._parser().parse_args(["m.tflite", "-o", "r.html"])
    assert compile_options.compile_options(args) == []
