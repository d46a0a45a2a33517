#include "python_env.h"

#include <cstdlib>
#include <filesystem>

#include "target/board.h"

namespace tinyforge::cli {

namespace fs = std::filesystem;

std::string PythonExecutable() {
  if (const char* env = std::getenv("TINYFORGE_PYTHON"); env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const char* name : {"python", "python3"}) {
      const fs::path cand = self.parent_path() / name;
      if (fs::exists(cand, ec)) return cand.string();
    }
  }
#ifdef TINYFORGE_SOURCE_DIR
  const fs::path venv = fs::path(TINYFORGE_SOURCE_DIR) / ".venv" / "bin" / "python";
  if (fs::exists(venv, ec)) return venv.string();
#endif
  return "python3";
}

void SetPythonEnvironment() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) ::setenv("TINYFORGE_BIN", self.c_str(), 1);
  ::setenv("TINYFORGE_ROOT", target::DataRoot().c_str(), 0);
  if (const char* root = std::getenv("TINYFORGE_ROOT");
      root != nullptr && *root != '\0' && fs::is_directory(fs::path(root) / "python", ec)) {
    std::string path = std::string(root) + "/python";
    if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
      path += ":" + std::string(old);
    }
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
}

}  // namespace tinyforge::cli
