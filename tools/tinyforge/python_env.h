// How every `tinyforge` subcommand that runs Python (`run --board` / `profile` exec the board
// driver, `compare --against pytorch` runs tinyforge.interp) finds it. One lookup, in order:
//   1. $TINYFORGE_PYTHON, when set and not empty;
//   2. `python` or `python3` in the directory of this executable (a virtual environment's
//      bin/, where `pip install` puts `tinyforge`);
//   3. the source tree's .venv/bin/python (`make build` creates it);
//   4. `python3` from PATH.
// The Python side mirrors it for the other direction (python/tinyforge/paths.py find_cli:
// $TINYFORGE_BIN, then `tinyforge` next to the Python, then PATH, then build/).
#pragma once

#include <string>

namespace tinyforge::cli {

std::string PythonExecutable();

// The environment of a Python child: TINYFORGE_BIN (this executable, for the child's calls
// back into the CLI), TINYFORGE_ROOT (target::DataRoot(): the source tree, or an installed
// tinyforge's share/tinyforge; unless set) and, in a source tree, <root>/python first on
// PYTHONPATH (so it works without `pip install`).
void SetPythonEnvironment();

}  // namespace tinyforge::cli
