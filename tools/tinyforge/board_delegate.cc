// `tinyforge run m --board B ...` and `tinyforge profile m --board B ...`: the board driver
// is Python (python/tinyforge/board.py: compile, cross build, QEMU, compare); this execs
//   <python> -m tinyforge.board run|profile ARGS...
// with the interpreter in the same bin/ directory as this executable if there is one (a
// virtual environment), else $TINYFORGE_PYTHON, else the source tree's .venv/bin/python,
// else python3 from PATH. The process is
// replaced, so the driver's exit code is the command's. TINYFORGE_BIN names this executable
// (the driver uses it for compile and the host run), TINYFORGE_ROOT the source tree when
// unset, and <root>/python is put first on PYTHONPATH.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

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
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::string python;
  if (!ec) {
    for (const char* name : {"python", "python3"}) {
      const fs::path cand = self.parent_path() / name;
      if (fs::exists(cand, ec)) {
        python = cand.string();
        break;
      }
    }
    ::setenv("TINYFORGE_BIN", self.c_str(), 1);
  }
  if (python.empty()) {
    const char* env = std::getenv("TINYFORGE_PYTHON");
    if (env != nullptr && *env != '\0') python = env;
  }
#ifdef TINYFORGE_SOURCE_DIR
  if (python.empty()) {  // the source tree's virtual environment (make build creates it)
    const fs::path venv = fs::path(TINYFORGE_SOURCE_DIR) / ".venv" / "bin" / "python";
    if (fs::exists(venv, ec)) python = venv.string();
  }
#endif
  if (python.empty()) python = "python3";
#ifdef TINYFORGE_SOURCE_DIR
  ::setenv("TINYFORGE_ROOT", TINYFORGE_SOURCE_DIR, 0);
  const char* root = std::getenv("TINYFORGE_ROOT");
  std::string path = std::string(root) + "/python";
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    path += ":" + std::string(old);
  }
  ::setenv("PYTHONPATH", path.c_str(), 1);
#endif
  std::vector<std::string> args = {python, "-m", "tinyforge.board"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  ::execvp(cargs[0], cargs.data());
  std::cerr << "error: cannot start the board driver (" << python << " -m tinyforge.board): "
            << std::strerror(errno) << " (set TINYFORGE_PYTHON to a Python with tinyforge)\n";
  return kExitFailure;
}

}  // namespace tinyforge::cli
