// `tinyforge run m --board B ...` and `tinyforge profile m --board B ...`: the board driver
// is Python (python/tinyforge/board.py: compile, cross build, QEMU, compare); this execs
//   <python> -m tinyforge.board run|profile ARGS...
// with the Python and the environment python_env.h describes (the same lookup as `compare
// --against pytorch`). The process is replaced, so the driver's exit code is the command's.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "python_env.h"

namespace tinyforge::cli {

bool WantsBoardDriver(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string sub = argv[1];
  if (sub == "profile") return true;
  if (sub != "run") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--board" || a.rfind("--board=", 0) == 0) return true;
  }
  return false;
}

int RunBoardDriver(int argc, char** argv) {
  const std::string python = PythonExecutable();
  SetPythonEnvironment();
  std::vector<std::string> args = {python, "-m", "tinyforge.board"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execvp(cargs[0], cargs.data());
  return Fail(Error::Io("cannot start the board driver (" + python + " -m tinyforge.board): " +
                        std::strerror(errno) + " (set TINYFORGE_PYTHON to a Python with tinyforge)"));
}

}  // namespace tinyforge::cli
