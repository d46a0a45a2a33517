// libFuzzer target for the graph file reader (.tfg, docs/graph-format.md): any byte string
// must either read into a verified graph or be rejected with one line of text naming the
// file. An accepted graph must also survive a round trip: writing it and reading the bytes
// back gives a graph that writes the same bytes again. Crashes, sanitizer reports, escaping
// exceptions, multi-line diagnostics and round-trip differences are bugs. Built with clang++
// (-fsanitize=fuzzer,address,undefined) by tests/fuzz/CMakeLists.txt.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "import/graph_file.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "tfg_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace imp = tinyforge::import;
  static const std::string kLabel = "fuzz.tfg";
  auto graph = imp::ParseGraphFile(std::span<const uint8_t>(data, size), kLabel);
  if (!graph.ok()) {
    const std::string& msg = graph.error().message();
    if (msg.rfind(kLabel + ": ", 0) != 0 || msg.find('\n') != std::string::npos) {
      Fail("malformed diagnostic", msg);
    }
    return 0;
  }
  auto bytes = imp::WriteGraphBytes(*graph);
  if (!bytes.ok()) Fail("an accepted graph does not write", bytes.error().message());
  auto again = imp::ParseGraphFile(*bytes, "rewritten.tfg");
  if (!again.ok()) Fail("a written graph does not read back", again.error().message());
  auto bytes2 = imp::WriteGraphBytes(*again);
  if (!bytes2.ok() || *bytes2 != *bytes) Fail("round trip", "write(read(write(g))) != write(g)");
  return 0;
}
