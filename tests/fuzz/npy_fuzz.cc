// libFuzzer target for the .npy reader (compiler/exec/npy.h): any byte string must either
// read into a tensor or be rejected with one line of text naming the file. An accepted
// tensor must survive a round trip: written as .npy and read back, it is bit-equal. Crashes,
// sanitizer reports, escaping exceptions, multi-line diagnostics and round-trip differences
// are bugs. Built with clang++ (-fsanitize=fuzzer,address,undefined) by
// tests/fuzz/CMakeLists.txt.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "exec/npy.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "npy_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ex = tinyforge::exec;
  static const std::string kLabel = "fuzz.npy";
  auto t = ex::ParseNpy(std::span<const uint8_t>(data, size), kLabel);
  if (!t.ok()) {
    const std::string& msg = t.error().message();
    if (msg.rfind(kLabel + ": ", 0) != 0 || msg.find('\n') != std::string::npos) {
      Fail("malformed diagnostic", msg);
    }
    return 0;
  }
  const std::vector<uint8_t> bytes = ex::SerializeNpy(*t);
  auto again = ex::ParseNpy(bytes, "rewritten.npy");
  if (!again.ok()) Fail("a written tensor does not read back", again.error().message());
  if (!again->BitEqual(*t)) Fail("round trip", "read(write(t)) != t");
  return 0;
}
