// libFuzzer target for the .tflite importer (docs/tflite-import.md): any byte string must
// either import into a graph the IR verifier accepts, or be rejected with one line of text
// naming the file. Crashes, sanitizer reports, exceptions and multi-line diagnostics are
// bugs; so is a file only the IR verifier rejects ("lowered graph: ..."): the importer's
// own checks must name the op or field first. Built with clang++
// (-fsanitize=fuzzer,address,undefined) by tests/fuzz/CMakeLists.txt.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <span>
#include <string>

#include "import/tflite/tflite_import.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string kLabel = "fuzz.tflite";
  auto graph = tinyforge::import::ImportTflite(std::span<const uint8_t>(data, size), kLabel);
  if (graph.ok()) {
    if (!tinyforge::ir::Verify(*graph).ok()) {
      std::fprintf(stderr, "imported graph fails the verifier\n");
      std::abort();
    }
    return 0;
  }
  const std::string& msg = graph.error().message();
  if (msg.rfind(kLabel + ": ", 0) != 0 || msg.find('\n') != std::string::npos ||
      msg.rfind(kLabel + ": lowered graph: ", 0) == 0) {
    std::fprintf(stderr, "malformed diagnostic: %s\n", msg.c_str());
    std::abort();
  }
  return 0;
}
