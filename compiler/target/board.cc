#include "target/board.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tinyforge::target {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string DefaultBoardsDir() { return (fs::path(DataRoot()) / "targets" / "boards").string(); }

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
    b.emulated = j.contains("qemu");
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

// ---- --target CPU --memory SPEC -------------------------------------------------------------

Expected<nlohmann::json> ReadCpu(const std::string& boards_dir, const std::string& cpu) {
  const fs::path path = fs::path(boards_dir).parent_path() / "cpus.json";
  std::ifstream f(path);
  if (!f) return Error::Io(path.string() + ": cannot open");
  std::stringstream text;
  text << f.rdbuf();
  json all;
  try {
    all = json::parse(text.str()).at("cpus");
  } catch (const std::exception& e) {
    return Error::Internal(path.string() + ": " + e.what());
  }
  if (!all.contains(cpu)) {
    std::string list;
    for (const auto& [name, _] : all.items()) list += (list.empty() ? "" : ", ") + name;
    return Error("--memory: --target must be a CPU (" + list + "), got '" + cpu + "'");
  }
  return all.at(cpu);
}

// "512K", "2M", "4096", "0x1000": bytes; -1 when malformed.
int64_t ParseSize(std::string_view s) {
  if (s.empty()) return -1;
  int64_t unit = 1;
  if (s.back() == 'K' || s.back() == 'k') unit = 1024;
  if (s.back() == 'M' || s.back() == 'm') unit = 1024 * 1024;
  if (unit != 1) s.remove_suffix(1);
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex) s.remove_prefix(2);
  if (s.empty() || s.size() > 10) return -1;
  int64_t v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return -1;
    v = v * (hex ? 16 : 10) + d;
  }
  return v * unit;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// What a region named like this holds when the spec does not say: flash-like names are
// read-only constants, "itcm" code, anything else RAM.
std::string GuessPurpose(const std::string& name) {
  for (const char* rom : {"flash", "rom", "mram", "xip", "qspi", "ospi", "nvm"}) {
    if (name.find(rom) != std::string::npos) return "rom";
  }
  return name == "itcm" ? "code" : "ram";
}

Expected<Board> BoardFromSpec(const std::string& cpu, std::string_view spec,
                              const std::string& boards_dir) {
  TF_ASSIGN_OR_RETURN(const json c, ReadCpu(boards_dir, cpu));
  Board b;
  b.name = "custom";
  b.cpu = cpu;
  b.isa_class = c.at("isa_class").get<std::string>();
  b.stack_size = 8192;
  const std::string form = " (expected name:size@address[:speed_rank][:ram|rom|code], e.g. "
                           "sram:320K@0x20000000:0,flash:1M@0x08000000)";
  for (std::string_view item : Split(spec, ',')) {
    const std::string text(item);
    const size_t at = item.find('@');
    const std::vector<std::string_view> head = Split(item.substr(0, at), ':');
    if (at == std::string_view::npos || head.size() != 2) {
      return Error("--memory: '" + text + "'" + form);
    }
    const std::vector<std::string_view> tail = Split(item.substr(at + 1), ':');
    MemoryRegion r;
    r.name = std::string(head[0]);
    bool name_ok = !r.name.empty() && r.name.size() <= 15 && r.name[0] >= 'a' && r.name[0] <= 'z';
    for (char ch : r.name) {
      name_ok = name_ok && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
    }
    if (!name_ok) {
      return Error("--memory: region name '" + r.name +
                   "' must be 1-15 lowercase letters, digits or _, starting with a letter");
    }
    if (b.Find(r.name) != nullptr) return Error("--memory: region '" + r.name + "' twice");
    r.size = ParseSize(head[1]);
    if (r.size <= 0) return Error("--memory: '" + text + "': bad size '" + std::string(head[1]) + "'" + form);
    if (tail.empty() || tail.size() > 3 || tail[0].size() < 3 || tail[0].substr(0, 2) != "0x") {
      return Error("--memory: '" + text + "': bad address" + form);
    }
    const int64_t base = ParseSize(tail[0]);
    if (base < 0 || base + r.size > (int64_t{1} << 32)) {
      return Error("--memory: '" + text + "': the region must lie below 4 GiB" + form);
    }
    r.base = static_cast<uint64_t>(base);
    r.purpose = GuessPurpose(r.name);
    for (size_t k = 1; k < tail.size(); ++k) {
      if (tail[k] == "ram" || tail[k] == "rom" || tail[k] == "code") {
        r.purpose = std::string(tail[k]);
      } else if (tail[k].size() == 1 && tail[k][0] >= '0' && tail[k][0] <= '9') {
        r.speed_rank = tail[k][0] - '0';
      } else {
        return Error("--memory: '" + text + "': '" + std::string(tail[k]) +
                     "' is neither a speed rank (0-9) nor ram/rom/code" + form);
      }
    }
    if (tail.size() == 1 && r.purpose != "ram") r.speed_rank = 3;
    r.section = (r.purpose == "ram" ? ".tf_arena." : ".tf_const.") + r.name;
    for (const MemoryRegion& o : b.memory) {
      if (r.base < o.base + static_cast<uint64_t>(o.size) &&
          o.base < r.base + static_cast<uint64_t>(r.size)) {
        return Error("--memory: regions '" + o.name + "' and '" + r.name + "' overlap");
      }
    }
    b.memory.push_back(r);
  }
  // Constants and code in the largest read-only region (code regions if there is none);
  // data and stack in the fastest RAM (the larger on a tie).
  const MemoryRegion* rom = nullptr;
  const MemoryRegion* ram = nullptr;
  for (const char* purpose : {"rom", "code"}) {
    for (const MemoryRegion& m : b.memory) {
      if (m.purpose == purpose && (rom == nullptr || m.size > rom->size)) rom = &m;
    }
    if (rom != nullptr) break;
  }
  for (const MemoryRegion& m : b.memory) {
    if (m.purpose == "ram" && (ram == nullptr || m.speed_rank < ram->speed_rank ||
                               (m.speed_rank == ram->speed_rank && m.size > ram->size))) {
      ram = &m;
    }
  }
  if (rom == nullptr) {
    return Error("--memory: no flash/ROM region for the weights (add one, e.g. "
                 "flash:1M@0x08000000:rom)");
  }
  if (ram == nullptr) {
    return Error("--memory: no RAM region for the tensors (add one, e.g. sram:256K@0x20000000)");
  }
  if (ram->size <= b.stack_size) {
    return Error("--memory: RAM region '" + ram->name + "' (" + std::to_string(ram->size) +
                 " bytes) cannot hold the " + std::to_string(b.stack_size) + "-byte stack");
  }
  b.code_region = b.weights_region = rom->name;
  b.data_region = b.stack_region = ram->name;
  return b;
}

}  // namespace

const MemoryRegion* Board::Find(std::string_view region) const {
  for (const MemoryRegion& m : memory) {
    if (m.name == region) return &m;
  }
  return nullptr;
}

std::string DataRoot() {
  if (const char* env = std::getenv("TINYFORGE_ROOT"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path().parent_path() / "share" / "tinyforge";
    if (fs::is_directory(installed / "targets" / "boards", ec)) return installed.string();
  }
  return TINYFORGE_SOURCE_DIR;
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

Expected<Board> LoadBoard(std::string_view target, std::string boards_dir,
                          std::string_view memory) {
  if (boards_dir.empty()) boards_dir = DefaultBoardsDir();
  const std::string t(target);
  if (!memory.empty()) return BoardFromSpec(t, memory, boards_dir);
  if (t.size() > 5 && t.substr(t.size() - 5) == ".json") return ParseBoard(t);
  const fs::path direct = fs::path(boards_dir) / t / "board.json";
  if (fs::exists(direct)) return ParseBoard(direct.string());
  // A CPU name: the emulated board carrying that core (the vendor boards are compile-only).
  std::vector<std::string> names = KnownTargets(boards_dir);
  for (const std::string& n : names) {
    auto b = ParseBoard((fs::path(boards_dir) / n / "board.json").string());
    if (b.ok() && b->emulated && b->cpu == t) return b;
  }
  std::string list;
  for (const std::string& n : names) {
    auto b = ParseBoard((fs::path(boards_dir) / n / "board.json").string());
    list += (list.empty() ? "" : ", ") + n + (b.ok() ? " (" + b->cpu + ")" : "");
  }
  return Error("--target: unknown target '" + t + "' (known: " + list + ")");
}

}  // namespace tinyforge::target
