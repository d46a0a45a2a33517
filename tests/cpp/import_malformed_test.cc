// Malformed graph files: each case must fail with a one-line diagnostic naming the file,
// the tensor/op/header and the field. Files are made by writing QdqConvGraph (tensors:
// 0 x, 1 x_q, 2 x_dq, 3 w_q, 4 w, 5 b_q, 6 b, 7 conv_out, ...; op #4 is conv1) and then
// editing the JSON or the bytes.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "builders.h"
#include "import/graph_file.h"

namespace tinyforge::import {
namespace {

using nlohmann::json;

std::string Message(const std::vector<uint8_t>& bytes) {
  auto r = ParseGraphFile(bytes, "m.tfg");
  return r.ok() ? "ok" : r.error().message();
}

GraphFileParts Parts() { return SerializeGraph(testing::QdqConvGraph()).value(); }

// Applies `edit` to the JSON document of the test graph and parses the result.
std::string EditJson(const std::function<void(json&)>& edit) {
  GraphFileParts parts = Parts();
  json doc = json::parse(parts.json);
  edit(doc);
  parts.json = doc.dump();
  return Message(PackGraphFile(parts));
}

std::vector<uint8_t> GoodBytes() { return PackGraphFile(Parts()); }

TEST(Malformed, ValidFileParses) { EXPECT_EQ(Message(GoodBytes()), "ok"); }

TEST(Malformed, BadMagic) {
  auto b = GoodBytes();
  b[3] = 'X';
  EXPECT_EQ(Message(b),
            "m.tfg: header: bad magic: not a tinyforge graph file (expected "
            "\"TFGRAPH\\0\")");
  EXPECT_EQ(Message({}), "m.tfg: header: truncated: file is 0 bytes, the header alone is 24");
  EXPECT_NE(Message({'{', '}'}).find("bad magic"), std::string::npos);
}

TEST(Malformed, BadVersion) {
  auto b = GoodBytes();
  b[8] = 2;
  EXPECT_EQ(Message(b),
            "m.tfg: header: version: unsupported container version 2 (this build "
            "reads version 1)");
  EXPECT_EQ(EditJson([](json& d) { d["version"] = 2; }),
            "m.tfg: graph: version: 2 does not match the container version 1");
}

TEST(Malformed, TruncatedBlob) {
  auto b = GoodBytes();
  b.resize(b.size() - 1);
  EXPECT_NE(Message(b).find("m.tfg: header: truncated: file is "), std::string::npos);
  b.resize(20);
  EXPECT_EQ(Message(b), "m.tfg: header: truncated: file is 20 bytes, the header alone is 24");
}

TEST(Malformed, TrailingGarbage) {
  auto b = GoodBytes();
  b.push_back(0);
  b.push_back(1);
  EXPECT_NE(Message(b).find("m.tfg: header: 2 bytes of trailing data after the blob"),
            std::string::npos);
}

TEST(Malformed, HugeBlobLengthDoesNotOverflow) {
  auto b = GoodBytes();
  for (int i = 16; i < 24; ++i) b[static_cast<size_t>(i)] = 0xff;
  EXPECT_NE(Message(b).find("header: truncated"), std::string::npos);
}

TEST(Malformed, NonZeroPadding) {
  GraphFileParts parts = Parts();
  auto b = PackGraphFile(parts);
  const size_t pad = 24 + parts.json.size();
  ASSERT_LT(pad % 64, 63u) << "test needs padding after the JSON";
  b[pad] = 'x';
  EXPECT_NE(Message(b).find("header: padding byte at offset"), std::string::npos);
}

TEST(Malformed, JsonSyntaxError) {
  GraphFileParts parts = Parts();
  parts.json.back() = ',';  // the final } becomes ,
  const std::string m = Message(PackGraphFile(parts));
  EXPECT_EQ(m.rfind("m.tfg: json: parse error at line 1, column ", 0), 0u) << m;
  parts.json = "";
  EXPECT_EQ(Message(PackGraphFile(parts)).rfind("m.tfg: json: ", 0), 0u);
}

TEST(Malformed, MissingOrMistypedTopLevelKeys) {
  EXPECT_EQ(EditJson([](json& d) { d.erase("tensors"); }), "m.tfg: graph: tensors: missing");
  EXPECT_EQ(EditJson([](json& d) { d.erase("outputs"); }), "m.tfg: graph: outputs: missing");
  EXPECT_EQ(EditJson([](json& d) { d["ops"] = json::object(); }),
            "m.tfg: graph: ops: expected a list, got object");
  EXPECT_EQ(EditJson([](json& d) { d["format"] = "onnx"; }),
            "m.tfg: graph: format: \"onnx\" is not \"tinyforge-graph\"");
  EXPECT_EQ(EditJson([](json& d) { d["kind"] = "int4"; }),
            "m.tfg: graph: kind: \"int4\" is not \"float\", \"qdq\" or \"int8\"");
  EXPECT_EQ(EditJson([](json& d) { d["name"] = 3; }),
            "m.tfg: graph: name: expected a string, got integer");
}

TEST(Malformed, TensorIndexOutOfRange) {
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["inputs"][1] = 99; }),
            "m.tfg: op 'conv1' (#4): inputs[1]: tensor index 99 out of range (11 tensors)");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["outputs"][0] = -1; }),
            "m.tfg: op 'conv1' (#4): outputs[0]: tensor index -1 out of range (11 tensors)");
  EXPECT_EQ(EditJson([](json& d) { d["outputs"] = {11}; }),
            "m.tfg: graph: outputs[0]: tensor index 11 out of range (11 tensors)");
  EXPECT_EQ(EditJson([](json& d) { d["inputs"] = {"x"}; }),
            "m.tfg: graph: inputs[0]: expected an integer, got string");
}

TEST(Malformed, ConvOutputShapeMismatch) {
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][7]["shape"] = {1, 3, 3, 3}; }),
            "m.tfg: op 'conv1' (#4): outputs[0]: shape [1,3,3,3] of 'conv_out' does not match "
            "inferred [1,3,2,2]");
}

TEST(Malformed, UnknownOpType) {
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["type"] = "no_such_op"; }),
            "m.tfg: op 'relu1' (#5): type: unknown op type \"no_such_op\"");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5].erase("type"); }),
            "m.tfg: op 'relu1' (#5): type: missing");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5].erase("name"); }), "m.tfg: op #5: name: missing");
}

TEST(Malformed, FloatWeightsIntoDequantize) {
  ir::Graph g = testing::QdqConvGraph();
  g.tensor(3) = testing::ConstF32("w_q", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  WriteOptions raw;
  raw.verify = false;
  EXPECT_EQ(Message(WriteGraphBytes(g, raw).value()),
            "m.tfg: op 'dq_w' (#2): inputs[0]: float32[3,2,3,3] 'w_q' must be int8 or int32 "
            "(with quant)");
  EXPECT_EQ(EditJson([](json& d) {
              auto& b = d["tensors"][5];  // int32 bias [3] = 12 bytes = float32 [3]
              b["dtype"] = "float32";
              b.erase("quant");
            }),
            "m.tfg: op 'dq_b' (#3): inputs[0]: float32[3] 'b_q' must be int8 or int32 (with "
            "quant)");
}

TEST(Malformed, DTypeAndQuantPresence) {
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0]["dtype"] = "float16"; }),
            "m.tfg: tensor 'x' (#0): dtype: unknown dtype \"float16\" (expected float32, int8 "
            "or int32)");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][1].erase("quant"); }),
            "m.tfg: tensor 'x_q' (#1): quant: required for int8 tensors");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0]["quant"] = d["tensors"][1]["quant"]; }),
            "m.tfg: tensor 'x' (#0): quant: not allowed on float32 tensors");
  // `order` (a lowered graph's rank-4 activation in PyTorch's order): "pytorch", rank 4.
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0]["order"] = "nhwc"; }),
            "m.tfg: tensor 'x' (#0): order: expected \"pytorch\", on a rank-4 tensor");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["order"] = "pytorch"; }),
            "m.tfg: tensor 'b_q' (#5): order: expected \"pytorch\", on a rank-4 tensor");
}

TEST(Malformed, NaNAndZeroScale) {
  GraphFileParts parts = Parts();
  const std::string from = "\"scale\":[0.05]";
  const size_t pos = parts.json.find(from);
  ASSERT_NE(pos, std::string::npos) << parts.json;
  parts.json.replace(pos, from.size(), "\"scale\":[NaN]");  // as Python's json.dumps writes it
  EXPECT_EQ(Message(PackGraphFile(parts)),
            "m.tfg: tensor 'x_q' (#1): quant.scale[0]: must be finite and > 0, got nan");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][1]["quant"]["scale"] = {0.0}; }),
            "m.tfg: tensor 'x_q' (#1): quant.scale[0]: must be finite and > 0, got 0");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][1]["quant"]["scale"] = {"0.05"}; }),
            "m.tfg: tensor 'x_q' (#1): quant.scale[0]: expected a number, got string");
}

TEST(Malformed, QuantDetails) {
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][1]["quant"]["zero_point"] = {-129}; }),
            "m.tfg: tensor 'x_q' (#1): quant.zero_point[0]: -129 outside [qmin, qmax] = "
            "[-128, 127]");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][1]["quant"]["zero_point"] = {1.5}; }),
            "m.tfg: tensor 'x_q' (#1): quant.zero_point[0]: expected an integer, got number");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][3]["quant"]["scale"] = {0.1, 0.2}; }),
            "m.tfg: tensor 'w_q' (#3): quant.zero_point: 3 values for 2 scales");
  EXPECT_EQ(EditJson([](json& d) {
              d["tensors"][3]["quant"]["scale"] = {0.1, 0.2};
              d["tensors"][3]["quant"]["zero_point"] = {0, 0};
            }),
            "m.tfg: tensor 'w_q' (#3): quant.scale: 2 values for per-channel axis 0 of size 3");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][3]["quant"].erase("qmax"); }),
            "m.tfg: tensor 'w_q' (#3): quant.qmax: missing");
}

TEST(Malformed, ConstantData) {
  // b_q is 12 bytes at offset 64 of an 76-byte blob.
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["data"]["offset"] = 68; }),
            "m.tfg: tensor 'b_q' (#5): data: bytes [68, 80) extend past the end of the "
            "76-byte blob");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["data"]["offset"] = 18446744073709551615u; }),
            "m.tfg: tensor 'b_q' (#5): data: bytes [18446744073709551615, ...) extend past the "
            "end of the 76-byte blob");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["data"]["size"] = 8; }),
            "m.tfg: tensor 'b_q' (#5): data.size: 8 bytes, expected 12 (3 x int32)");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["data"]["offset"] = -4; }),
            "m.tfg: tensor 'b_q' (#5): data.offset: expected a non-negative integer, got -4");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][5]["data"].erase("size"); }),
            "m.tfg: tensor 'b_q' (#5): data.size: missing");
  EXPECT_EQ(EditJson([](json& d) { d["inputs"] = {3}; }),
            "m.tfg: graph: inputs[0]: tensor 'w_q' (#3) is a constant; a graph input cannot "
            "have data");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["outputs"] = {3}; }),
            "m.tfg: op 'relu1' (#5): outputs[0]: tensor 'w_q' (#3) is a constant; it cannot be "
            "produced here");
}

TEST(Malformed, Shapes) {
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0]["shape"] = {1, 0, 4, 4}; }),
            "m.tfg: tensor 'x' (#0): shape: [1,0,4,4] must have at most 6 dims, each >= 1, and "
            "at most 2147483647 elements");
  EXPECT_NE(EditJson([](json& d) {
              d["tensors"][0]["shape"] = {1, 1, 1, 1, 1, 1, 1};
            }).find("tensor 'x' (#0): shape:"),
            std::string::npos);
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0]["shape"] = "1x2"; }),
            "m.tfg: tensor 'x' (#0): shape: expected a list of integers, got string");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][0].erase("name"); }),
            "m.tfg: tensor #0: name: missing");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][2] = 5; }),
            "m.tfg: tensor #2: expected an object, got integer");
}

TEST(Malformed, Attributes) {
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["attrs"].erase("stride"); }),
            "m.tfg: op 'conv1' (#4): attrs.stride: missing");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["attrs"]["stride"] = {2, 2, 2}; }),
            "m.tfg: op 'conv1' (#4): attrs.stride: expected 2 integers, got 3");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["attrs"]["groups"] = 1.0; }),
            "m.tfg: op 'conv1' (#4): attrs.groups: expected an integer, got number");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["attrs"]["output_padding"] = {0, 0}; }),
            "m.tfg: op 'conv1' (#4): attrs.output_padding: unknown attribute for conv2d");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4].erase("attrs"); }),
            "m.tfg: op 'conv1' (#4): attrs: missing (conv2d needs attributes)");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][4]["attrs"]["groups"] = 0; }),
            "m.tfg: op 'conv1' (#4): attrs.groups: 0 must be >= 1 and divide input channels 2 "
            "and output channels 3");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["attrs"] = {{"inplace", true}}; }),
            "m.tfg: op 'relu1' (#5): attrs.inplace: unknown attribute for relu");
}

TEST(Malformed, GraphStructure) {
  EXPECT_EQ(EditJson([](json& d) { std::swap(d["ops"][4], d["ops"][5]); }),
            "m.tfg: op 'relu1' (#4): inputs[0]: tensor 'conv_out' (#7) is used before it is "
            "produced (ops must be in topological order)");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["outputs"] = {7}; }),
            "m.tfg: op 'relu1' (#5): outputs[0]: tensor 'conv_out' (#7) is already produced by "
            "an earlier op or output; it cannot be produced here");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["name"] = "conv1"; }),
            "m.tfg: op 'conv1' (#5): name: duplicate op name");
  EXPECT_EQ(EditJson([](json& d) { d["tensors"][2]["name"] = "x"; }),
            "m.tfg: tensor 'x' (#2): name: duplicate tensor name");
  EXPECT_EQ(EditJson([](json& d) { d["ops"][5]["inputs"] = {7, 7}; }),
            "m.tfg: op 'relu1' (#5): inputs: relu takes 1 inputs, got 2");
  EXPECT_EQ(EditJson([](json& d) { d["kind"] = "float"; }),
            "m.tfg: tensor 'x_q' (#1): dtype: int8 in a graph of kind \"float\" (quantized "
            "tensors need kind \"qdq\")");
}

}  // namespace
}  // namespace tinyforge::import
