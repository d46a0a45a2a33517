#include "target/board.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tinyforge::target {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string DefaultBoardsDir() { return TINYFORGE_BOARDS_DIR; }

Expected<Board> ParseBoard(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Error(path + ": cannot open");
  std::stringstream text;
  text << f.rdbuf();
  try {
    const json j = json::parse(text.str());
    if (j.value("schema", "") != "tinyforge.board/1") {
      return Error(path + ": not a tinyforge.board/1 description");
    }
    Board b;
    b.name = j.at("name").get<std::string>();
    b.cpu = j.at("cpu").get<std::string>();
    b.isa_class = j.at("isa_class").get<std::string>();
    const json& layout = j.at("layout");
    b.code_region = layout.at("code").get<std::string>();
    b.weights_region = layout.at("weights").get<std::string>();
    b.data_region = layout.at("data").get<std::string>();
    b.stack_region = layout.at("stack").get<std::string>();
    b.stack_size = j.at("defaults").at("stack_size").get<int64_t>();
    for (const json& m : j.at("memory")) {
      MemoryRegion r;
      r.name = m.at("name").get<std::string>();
      r.base = std::stoull(m.at("base").get<std::string>(), nullptr, 16);
      r.size = m.at("size").get<int64_t>();
      r.speed_rank = m.at("speed_rank").get<int>();
      r.purpose = m.at("purpose").get<std::string>();
      r.section = m.at("section").get<std::string>();
      b.memory.push_back(r);
    }
    return b;
  } catch (const std::exception& e) {
    return Error(path + ": " + e.what());
  }
}

}  // namespace

const MemoryRegion* Board::Find(std::string_view region) const {
  for (const MemoryRegion& m : memory) {
    if (m.name == region) return &m;
  }
  return nullptr;
}

std::vector<std::string> KnownTargets(std::string boards_dir) {
  if (boards_dir.empty()) boards_dir = DefaultBoardsDir();
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(boards_dir, ec)) {
    if (fs::exists(e.path() / "board.json")) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<Board> LoadBoard(std::string_view target, std::string boards_dir) {
  if (boards_dir.empty()) boards_dir = DefaultBoardsDir();
  const std::string t(target);
  if (t.size() > 5 && t.substr(t.size() - 5) == ".json") return ParseBoard(t);
  const fs::path direct = fs::path(boards_dir) / t / "board.json";
  if (fs::exists(direct)) return ParseBoard(direct.string());
  // A CPU name: the board carrying that core.
  std::vector<std::string> names = KnownTargets(boards_dir);
  for (const std::string& n : names) {
    auto b = ParseBoard((fs::path(boards_dir) / n / "board.json").string());
    if (b.ok() && b->cpu == t) return b;
  }
  std::string list;
  for (const std::string& n : names) {
    auto b = ParseBoard((fs::path(boards_dir) / n / "board.json").string());
    list += (list.empty() ? "" : ", ") + n + (b.ok() ? " (" + b->cpu + ")" : "");
  }
  return Error("--target: unknown target '" + t + "' (known: " + list + ")");
}

}  // namespace tinyforge::target
