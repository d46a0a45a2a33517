// Graph-file writer and reader on valid files: round trip, container layout, Python-style
// JSON (NaN tokens, integer-valued doubles), robustness to every truncation and byte flip.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "builders.h"
#include "exec/executor.h"
#include "import/graph_file.h"
#include "import/json_util.h"
#include "ir/printer.h"
#include "ir/stats.h"

namespace tinyforge::import {
namespace {

uint64_t LE(const std::vector<uint8_t>& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[off + static_cast<size_t>(i)];
  return v;
}

TEST(GraphFile, RoundTripIsExact) {
  for (const ir::Graph& g : {testing::QdqConvGraph(), testing::FloatConvGraph()}) {
    auto bytes = WriteGraphBytes(g);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    auto back = ParseGraphFile(*bytes, "mem.tfg");
    ASSERT_TRUE(back.ok()) << back.error().message();
    ir::PrintOptions all;
    all.max_inline_constant = 1 << 20;
    EXPECT_EQ(ir::PrintGraph(*back, all), ir::PrintGraph(g, all));
    EXPECT_EQ(back->producer, g.producer);
  }
}

TEST(GraphFile, ContainerLayoutFollowsTheDoc) {
  const ir::Graph g = testing::QdqConvGraph();
  auto parts = SerializeGraph(g).value();
  const auto bytes = PackGraphFile(parts);
  EXPECT_EQ(std::memcmp(bytes.data(), "TFGRAPH\0", 8), 0);
  EXPECT_EQ(LE(bytes, 8, 4), 1u);
  EXPECT_EQ(LE(bytes, 12, 4), parts.json.size());
  EXPECT_EQ(LE(bytes, 16, 8), parts.blob.size());
  const size_t blob_off = (24 + parts.json.size() + 63) / 64 * 64;
  EXPECT_EQ(bytes.size(), blob_off + parts.blob.size());
  // Constants at 16-byte aligned offsets: w_q (54 bytes) at 0, b_q (12 bytes) at 64.
  const auto doc = nlohmann::json::parse(parts.json);
  EXPECT_EQ(doc["format"], "tinyforge-graph");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["kind"], "qdq");
  EXPECT_EQ(doc["tensors"][3]["data"]["offset"], 0);
  EXPECT_EQ(doc["tensors"][5]["data"]["offset"], 64);
  EXPECT_EQ(doc["tensors"][5]["data"]["size"], 12);
  EXPECT_TRUE(doc["tensors"][1]["quant"]["axis"].is_null());
  EXPECT_EQ(doc["tensors"][3]["quant"]["axis"], 0);
  EXPECT_EQ(doc["ops"][4]["attrs"]["padding"], nlohmann::json({1, 1, 1, 1}));
}

TEST(GraphFile, ScalesSurviveBitExactly) {
  ir::Graph g = testing::QdqConvGraph();
  g.tensor(1).quant->scale[0] = 0.1 + 0.2;  // 0.30000000000000004
  g.tensor(9).quant->scale[0] = 1.0 / 3.0;
  auto back = ParseGraphFile(WriteGraphBytes(g).value(), "mem").value();
  EXPECT_EQ(back.tensor(1).quant->scale[0], 0.1 + 0.2);
  EXPECT_EQ(back.tensor(9).quant->scale[0], 1.0 / 3.0);
}

TEST(GraphFile, WriterRefusesInvalidGraphsUnlessAsked) {
  ir::Graph g = testing::FloatConvGraph();
  g.ops[0].inputs[1] = 42;
  auto r = WriteGraphBytes(g);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("refusing to write an invalid graph"), std::string::npos);
  WriteOptions raw;
  raw.verify = false;
  EXPECT_TRUE(WriteGraphBytes(g, raw).ok());
}

TEST(GraphFile, FileReadAndWrite) {
  const auto dir = std::filesystem::temp_directory_path() / "tinyforge_import_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "g.tfg").string();
  ASSERT_TRUE(WriteGraphFile(testing::FloatConvGraph(), path).ok());
  auto g = ReadGraphFile(path);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->name, "float_conv");
  auto missing = ReadGraphFile((dir / "nope.tfg").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("nope.tfg: cannot open file"), std::string::npos);
  auto directory = ReadGraphFile(dir.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message().find("is a directory"), std::string::npos);
}

TEST(GraphFile, PythonStyleJsonIsAccepted) {
  // Python's json.dumps: spaces after separators, 6.0 for hardtanh bounds, "source": null,
  // "producer" absent, integer-valued scale written as 1.
  const char* json = R"({"format": "tinyforge-graph", "version": 1, "name": "py", "kind": "qdq",
    "tensors": [
      {"name": "x", "shape": [1, 4], "dtype": "float32"},
      {"name": "y", "shape": [1, 4], "dtype": "float32"},
      {"name": "q", "shape": [1, 4], "dtype": "int8",
       "quant": {"scale": [1], "zero_point": [0], "axis": null, "qmin": -128, "qmax": 127}},
      {"name": "z", "shape": [1, 4], "dtype": "float32"}],
    "ops": [
      {"type": "hardtanh", "name": "relu6", "inputs": [0], "outputs": [1],
       "attrs": {"min": 0.0, "max": 6.0}, "source": null},
      {"type": "quantize", "name": "q", "inputs": [1], "outputs": [2], "attrs": {}},
      {"type": "dequantize", "name": "dq", "inputs": [2], "outputs": [3]}],
    "inputs": [0], "outputs": [3], "extra_top_level_key": {"ignored": true}})";
  auto g = ParseGraphFile(PackGraphFile({json, {}}), "py.tfg");
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->ops[0].attrs_as<ir::HardtanhAttrs>().max, 6.0);
  EXPECT_EQ(g->tensor(2).quant->scale[0], 1.0);
  EXPECT_EQ(g->producer, "");
}

TEST(GraphFile, NonFiniteTokensBecomeFieldErrors) {
  // Python writes float('nan') as the bare token NaN; so does our writer for non-finite values.
  ir::Graph g = testing::QdqConvGraph();
  g.tensor(9).quant->scale[0] = std::numeric_limits<double>::infinity();
  WriteOptions raw;
  raw.verify = false;
  auto parts = SerializeGraph(g, raw).value();
  EXPECT_NE(parts.json.find("[Infinity]"), std::string::npos);
  auto r = ParseGraphFile(PackGraphFile(parts), "m.tfg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "m.tfg: tensor 'y_q' (#9): quant.scale[0]: must be finite and > 0, got inf");
  // Inside strings the tokens are left alone.
  ir::Graph named = testing::FloatConvGraph();
  named.name = "NaN Infinity -Infinity";
  auto back = ParseGraphFile(WriteGraphBytes(named).value(), "m.tfg");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->name, "NaN Infinity -Infinity");
}

// The writer's markers become Python's bare tokens, each of the three, anywhere (one pass
// over the text: thousands of markers stay linear); other text is left alone.
TEST(GraphFile, UnmarkNonFiniteReplacesEveryMarker) {
  const std::string nan = "\"\\u0001NaN\"", inf = "\"\\u0001Infinity\"",
                    neg = "\"\\u0001-Infinity\"";
  EXPECT_EQ(UnmarkNonFinite("[" + neg + "," + inf + "," + nan + "]"), "[-Infinity,Infinity,NaN]");
  EXPECT_EQ(UnmarkNonFinite(nan + inf), "NaNInfinity");
  EXPECT_EQ(UnmarkNonFinite("{\"a\": \"\\u0001Nope\", \"b\": \"\\u0001NaN\"}"),
            "{\"a\": \"\\u0001Nope\", \"b\": NaN}");
  EXPECT_EQ(UnmarkNonFinite("\"\\u0001NaN"), "\"\\u0001NaN");  // unterminated: left alone
  std::string many, want;
  for (int i = 0; i < 100000; ++i) many += nan + ",", want += "NaN,";
  EXPECT_EQ(UnmarkNonFinite(many), want);
}

// Every prefix of a valid file and every single-byte corruption must give a result or a
// one-line error, never a crash (run under ASan/UBSan too).
TEST(GraphFile, NoCrashOnAnyTruncationOrByteFlip) {
  const auto bytes = WriteGraphBytes(testing::QdqConvGraph()).value();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = ParseGraphFile(std::span<const uint8_t>(bytes.data(), n), "t.tfg");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
  }
  std::mt19937 rng(1234);  // seeded: failures reproduce
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto corrupt = bytes;
    const size_t pos = rng() % corrupt.size();
    corrupt[pos] = static_cast<uint8_t>(rng());
    auto r = ParseGraphFile(corrupt, "f.tfg");
    if (!r.ok()) {
      ++rejected;
      EXPECT_EQ(r.error().message().rfind("f.tfg: ", 0), 0u) << r.error().message();
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(GraphFile, DeeplyNestedJsonDoesNotOverflowTheStack) {
  std::string json(200000, '[');
  json += std::string(200000, ']');
  auto r = ParseGraphFile(PackGraphFile({json, {}}), "deep.tfg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "deep.tfg: graph: the JSON document is array, expected an object");
}

}  // namespace
}  // namespace tinyforge::import

namespace tinyforge::import {
namespace {

// Collects pointers to every number in a JSON document.
void Numbers(nlohmann::json& j, std::vector<nlohmann::json*>& out) {
  if (j.is_number()) out.push_back(&j);
  if (j.is_structured()) {
    for (auto& child : j) Numbers(child, out);
  }
}

// Replaces each number of the document, one at a time, by extreme values. Whatever the
// reader accepts must also be safe to compute stats on and to run (checked under
// ASan/UBSan in the sanitizer build): no overflow, no out-of-range access.
TEST(GraphFile, NoCrashOnExtremeValuesAnywhere) {
  const GraphFileParts parts = SerializeGraph(testing::QdqConvGraph()).value();
  const nlohmann::json doc = nlohmann::json::parse(parts.json);
  std::vector<nlohmann::json*> dummy;
  nlohmann::json probe = doc;
  Numbers(probe, dummy);
  const size_t count = dummy.size();
  ASSERT_GT(count, 50u);
  const std::vector<nlohmann::json> extremes = {
      -1,        0,          1,
      3,         2147483647, int64_t{1} << 40,
      INT64_MAX, INT64_MIN,  std::numeric_limits<uint64_t>::max(),
      1e308,     -0.5,       0.5};
  int accepted = 0;
  for (size_t i = 0; i < count; ++i) {
    for (const auto& v : extremes) {
      nlohmann::json mutated = doc;
      std::vector<nlohmann::json*> nums;
      Numbers(mutated, nums);
      *nums[i] = v;
      auto g = ParseGraphFile(PackGraphFile({mutated.dump(), parts.blob}), "x.tfg");
      if (!g.ok()) continue;
      ++accepted;
      const auto stats = ir::ComputeStats(*g);
      if (stats.macs > 1'000'000 || stats.activation_bytes > 10'000'000) continue;
      std::vector<exec::HostTensor> inputs;
      for (ir::TensorId t : g->inputs) {
        inputs.emplace_back(g->tensor(t).dtype, g->tensor(t).shape);
      }
      auto r = exec::Run(*g, inputs);
      EXPECT_TRUE(r.ok()) << r.error().message();
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace tinyforge::import
