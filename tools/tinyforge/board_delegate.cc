// The subcommands whose driver is Python, exec'd with the Python and the environment
// python_env.h describes (the same lookup as `compare --against pytorch`):
//   `run m --board B ...`, `profile ...`  ->  <python> -m tinyforge.board run|profile ARGS...
//     (python/tinyforge/board.py: compile, cross build, QEMU, compare)
//   `report ...`                          ->  <python> -m tinyforge.report ARGS...
//     (python/tinyforge/report.py: the HTML page of a compiled model)
//   `explore ...`                         ->  <python> -m tinyforge.explorer ARGS...
//     (python/tinyforge/explorer/: Model Explorer with the tinyforge adapter)
// The process is replaced, so the driver's exit code is the command's.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "python_env.h"

namespace tinyforge::cli {

std::optional<PythonDriver> WantsPythonDriver(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string sub = argv[1];
  if (sub == "profile") return PythonDriver{"tinyforge.board", 1};
  if (sub == "report") return PythonDriver{"tinyforge.report", 2};
  if (sub == "explore") return PythonDriver{"tinyforge.explorer", 2};
  if (sub != "run") return std::nullopt;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--board" || a.rfind("--board=", 0) == 0) return PythonDriver{"tinyforge.board", 1};
  }
  return std::nullopt;
}

int RunPythonDriver(const PythonDriver& driver, int argc, char** argv) {
  const std::string python = PythonExecutable();
  SetPythonEnvironment();
  std::vector<std::string> args = {python, "-m", driver.module};
  for (int i = driver.first_arg; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execvp(cargs[0], cargs.data());
  return Fail(Error::Io("cannot start " + python + " -m " + driver.module + ": " +
                        std::strerror(errno) + " (set TINYFORGE_PYTHON to a Python with tinyforge)"));
}

}  // namespace tinyforge::cli
