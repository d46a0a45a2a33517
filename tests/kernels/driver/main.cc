// kernel_case_driver: checks tinyforge's __ref kernels bit-exactly against operator cases
// extracted from TensorFlow's TFLite reference interpreter (tests/kernels/tflite_cases.py).
//
//   kernel_case_driver CASES.jsonl [--outputs OUT.jsonl]
//
// CASES.jsonl holds one JSON case per line (schema: tests/kernels/tflite_cases.py). For
// each case prints "OK <name>" or "MISMATCH <name>: ..." (the first differing element, its
// index, ours vs TFLite's, and the count) or "ERROR <name>: ...". Exit status 0 only when
// every case is bit-exact. --outputs also writes what the kernel computed for each case,
// one {"name": ..., "data": [...]} per line (used to chain operators through a model).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/kernels/driver/case.h"

namespace tinyforge::testing {

int64_t CaseTensor::NumElements() const {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

Case ParseCase(const nlohmann::json& j) {
  auto tensor = [](const nlohmann::json& t) {
    CaseTensor r;
    r.shape = t.at("shape").get<std::vector<int32_t>>();
    r.dtype = t.at("dtype").get<std::string>();
    // Scales are float32 values written as exact decimal doubles: narrowing is exact.
    for (double s : t.value("scale", std::vector<double>{}))
      r.scales.push_back(static_cast<float>(s));
    r.zero_points = t.value("zero_point", std::vector<int32_t>{});
    const nlohmann::json& d = t.at("data");
    if (r.dtype == "int8") {
      for (int v : d) r.i8.push_back(static_cast<int8_t>(v));
    } else if (r.dtype == "int32") {
      r.i32 = d.get<std::vector<int32_t>>();
    } else if (r.dtype == "float32") {
      for (double v : d) r.f32.push_back(static_cast<float>(v));
    }
    return r;
  };
  Case c;
  c.name = j.at("name").get<std::string>();
  c.op = j.at("op").get<std::string>();
  c.options = j.value("options", nlohmann::json::object());
  for (const auto& t : j.at("inputs")) {
    if (t.is_null()) {
      c.inputs.emplace_back(std::nullopt);
    } else {
      c.inputs.emplace_back(tensor(t));
    }
  }
  for (const auto& t : j.at("outputs")) c.outputs.push_back(tensor(t));
  return c;
}

namespace {

// Row-major coordinates of flat index i in shape, e.g. "[0,3,1,7]".
std::string Coords(const std::vector<int32_t>& shape, int64_t i) {
  std::vector<int64_t> c(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = i % shape[k];
    i /= shape[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < c.size(); ++k) s += (k ? "," : "") + std::to_string(c[k]);
  return s + "]";
}

// Returns "" when equal, else a description of the first mismatch.
template <typename T, typename Show>
std::string Compare(const std::vector<T>& ours, const std::vector<T>& want,
                    const std::vector<int32_t>& shape, Show show) {
  if (ours.size() != want.size()) {
    return "size " + std::to_string(ours.size()) + " vs expected " + std::to_string(want.size());
  }
  int64_t first = -1, count = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (std::memcmp(&ours[i], &want[i], sizeof(T)) != 0) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++count;
    }
  }
  if (first < 0) return "";
  std::ostringstream m;
  m << "first mismatch at index " << first << " " << Coords(shape, first) << ": got "
    << show(ours[first]) << ", TFLite " << show(want[first]) << "; " << count << " of "
    << ours.size() << " elements differ";
  return m.str();
}

}  // namespace
}  // namespace tinyforge::testing

int main(int argc, char** argv) {
  using namespace tinyforge::testing;
  const bool with_outputs = argc == 4 && std::string(argv[2]) == "--outputs";
  if (argc != 2 && !with_outputs) {
    std::cerr << "usage: kernel_case_driver CASES.jsonl [--outputs OUT.jsonl]\n";
    return 2;
  }
  std::ofstream outputs;
  if (with_outputs) {
    outputs.open(argv[3]);
    if (!outputs) {
      std::cerr << "kernel_case_driver: cannot write " << argv[3] << "\n";
      return 2;
    }
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::cerr << "kernel_case_driver: cannot open " << argv[1] << "\n";
    return 2;
  }
  int ok = 0, bad = 0;
  std::string line;
  int line_no = 0;
  while (std::getline(file, line)) {
    ++line_no;
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      std::cout << "ERROR line " << line_no << ": not valid JSON\n";
      ++bad;
      continue;
    }
    Case c;
    try {  // Host test tool: a malformed case is reported, not fatal.
      c = ParseCase(j);
    } catch (const std::exception& e) {
      std::cout << "ERROR line " << line_no << ": " << e.what() << "\n";
      ++bad;
      continue;
    }
    RunResult r;
    try {
      r = RunCase(c);
    } catch (const std::exception& e) {
      r.error = std::string("exception: ") + e.what();
    }
    if (!r.output) {
      std::cout << "ERROR " << c.name << ": " << r.error << "\n";
      ++bad;
      continue;
    }
    if (with_outputs) {
      nlohmann::json o = {{"name", c.name}};
      if (!r.output->f32.empty()) {
        o["data"] = r.output->f32;
      } else {
        std::vector<int> v(r.output->i8.begin(), r.output->i8.end());
        o["data"] = v;
      }
      outputs << o.dump() << "\n";
    }
    const CaseTensor& want = c.outputs[0];
    std::string diff;
    if (want.dtype == "int8") {
      diff = Compare(r.output->i8, want.i8, want.shape, [](int8_t v) { return std::to_string(v); });
    } else if (want.dtype == "float32") {
      diff = Compare(r.output->f32, want.f32, want.shape, [](float v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
        return std::string(buf);
      });
    } else {
      diff = "unsupported output dtype " + want.dtype;
    }
    if (diff.empty()) {
      std::cout << "OK " << c.name << "\n";
      ++ok;
    } else {
      std::cout << "MISMATCH " << c.name << ": " << diff << "\n";
      ++bad;
    }
  }
  std::cout << "SUMMARY " << ok << " bit-exact, " << bad << " failed\n";
  return bad == 0 && ok > 0 ? 0 : 1;
}
