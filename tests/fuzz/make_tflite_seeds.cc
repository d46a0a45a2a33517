// Writes the seed corpus of tflite_fuzz: three small, valid int8 .tflite models that
// together use every operator the importer accepts (built with the flatbuffers builder of
// our schema subset, so no TensorFlow is needed).
//   tflite_make_seeds DIR
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "schema_subset_generated.h"

namespace {

namespace fb = ::tinyforge::tflite_fb;
using flatbuffers::Offset;

class Builder {
 public:
  Builder() { buffers_.push_back(fb::CreateBuffer(b_)); }  // buffer 0: the empty sentinel

  struct Quant {
    std::vector<float> scale;
    std::vector<int64_t> zero_point;
    int axis = 0;
  };

  // Returns the tensor index. `data`: little-endian bytes of a constant, or empty.
  int Tensor(const char* name, std::vector<int32_t> shape, fb::TensorType type, Quant q,
             std::vector<uint8_t> data = {}) {
    uint32_t buffer = 0;
    if (!data.empty()) {
      b_.ForceVectorAlignment(data.size(), 1, 16);
      buffers_.push_back(fb::CreateBuffer(b_, b_.CreateVector(data)));
      buffer = static_cast<uint32_t>(buffers_.size() - 1);
    }
    Offset<fb::QuantizationParameters> qp = 0;
    if (!q.scale.empty()) {
      qp = fb::CreateQuantizationParameters(b_, 0, 0, b_.CreateVector(q.scale),
                                            b_.CreateVector(q.zero_point),
                                            fb::QuantizationDetails::NONE, 0, q.axis);
    }
    tensors_.push_back(
        fb::CreateTensor(b_, b_.CreateVector(shape), type, buffer, b_.CreateString(name), qp));
    return static_cast<int>(tensors_.size() - 1);
  }

  int Act(const char* name, std::vector<int32_t> shape, float scale, int zp) {
    return Tensor(name, std::move(shape), fb::TensorType::INT8, {{scale}, {zp}});
  }

  void Op(int code, std::vector<int32_t> in, std::vector<int32_t> out,
          fb::BuiltinOptions type = fb::BuiltinOptions::NONE, Offset<void> options = 0) {
    if (!codes_.count(code)) {
      const int8_t dep = static_cast<int8_t>(code < 127 ? code : 127);
      const int index = static_cast<int>(code_list_.size());
      code_list_.push_back(fb::CreateOperatorCode(b_, dep, 0, 1, code));
      codes_[code] = index;
    }
    ops_.push_back(fb::CreateOperator(b_, static_cast<uint32_t>(codes_[code]), b_.CreateVector(in),
                                      b_.CreateVector(out), type, options));
  }

  flatbuffers::FlatBufferBuilder& fbb() { return b_; }

  std::vector<uint8_t> Finish(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
    auto sg = fb::CreateSubGraph(b_, b_.CreateVector(tensors_), b_.CreateVector(inputs),
                                 b_.CreateVector(outputs), b_.CreateVector(ops_),
                                 b_.CreateString("main"));
    std::vector<Offset<fb::SubGraph>> sgs = {sg};
    auto model = fb::CreateModel(b_, 3, b_.CreateVector(code_list_), b_.CreateVector(sgs),
                                 b_.CreateString("tinyforge fuzz seed"), b_.CreateVector(buffers_));
    fb::FinishModelBuffer(b_, model);
    return std::vector<uint8_t>(b_.GetBufferPointer(), b_.GetBufferPointer() + b_.GetSize());
  }

 private:
  flatbuffers::FlatBufferBuilder b_;
  std::vector<Offset<fb::Buffer>> buffers_;
  std::vector<Offset<fb::Tensor>> tensors_;
  std::vector<Offset<fb::Operator>> ops_;
  std::vector<Offset<fb::OperatorCode>> code_list_;
  std::map<int, int> codes_;
};

std::vector<uint8_t> Int8s(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 37 + seed * 11) % 255 - 127);
  return v;
}

std::vector<uint8_t> Int32s(std::vector<int32_t> values) {
  std::vector<uint8_t> v(values.size() * 4);
  std::memcpy(v.data(), values.data(), v.size());  // the host is little-endian, as TFLite
  return v;
}

// CONV_2D (per-channel, SAME, stride 2, RELU) -> DEPTHWISE_CONV_2D (VALID) ->
// AVERAGE_POOL_2D -> RESHAPE -> FULLY_CONNECTED (per-tensor, no bias) -> SOFTMAX.
std::vector<uint8_t> Cnn() {
  Builder m;
  auto& b = m.fbb();
  const int x = m.Act("x", {1, 8, 8, 3}, 0.05f, -3);
  const int w1 = m.Tensor("conv/w", {4, 3, 3, 3}, fb::TensorType::INT8,
                          {{0.01f, 0.02f, 0.015f, 0.03f}, {0, 0, 0, 0}, 0}, Int8s(108, 1));
  const int b1 = m.Tensor("conv/b", {4}, fb::TensorType::INT32,
                          {{5e-4f, 1e-3f, 7.5e-4f, 1.5e-3f}, {0, 0, 0, 0}, 0},
                          Int32s({10, -20, 30, -40}));
  const int y1 = m.Act("conv", {1, 4, 4, 4}, 0.1f, -128);
  m.Op(3, {x, w1, b1}, {y1}, fb::BuiltinOptions::Conv2DOptions,
       fb::CreateConv2DOptions(b, fb::Padding::SAME, 2, 2, fb::ActivationFunctionType::RELU)
           .Union());
  const int w2 = m.Tensor("dw/w", {1, 3, 3, 4}, fb::TensorType::INT8,
                          {{0.02f, 0.01f, 0.03f, 0.02f}, {0, 0, 0, 0}, 3}, Int8s(36, 2));
  const int b2 = m.Tensor("dw/b", {4}, fb::TensorType::INT32,
                          {{2e-3f, 1e-3f, 3e-3f, 2e-3f}, {0, 0, 0, 0}, 0}, Int32s({7, 0, -7, 3}));
  const int y2 = m.Act("dw", {1, 2, 2, 4}, 0.08f, -10);
  m.Op(4, {y1, w2, b2}, {y2}, fb::BuiltinOptions::DepthwiseConv2DOptions,
       fb::CreateDepthwiseConv2DOptions(b, fb::Padding::VALID, 1, 1, 1).Union());
  const int y3 = m.Act("pool", {1, 1, 1, 4}, 0.08f, -10);
  m.Op(1, {y2}, {y3}, fb::BuiltinOptions::Pool2DOptions,
       fb::CreatePool2DOptions(b, fb::Padding::VALID, 2, 2, 2, 2).Union());
  const int shape = m.Tensor("shape", {2}, fb::TensorType::INT32, {}, Int32s({1, 4}));
  const int y4 = m.Act("flat", {1, 4}, 0.08f, -10);
  m.Op(22, {y3, shape}, {y4});
  const int w5 = m.Tensor("fc/w", {5, 4}, fb::TensorType::INT8, {{0.02f}, {0}}, Int8s(20, 3));
  const int y5 = m.Act("logits", {1, 5}, 0.2f, 5);
  m.Op(9, {y4, w5, -1}, {y5}, fb::BuiltinOptions::FullyConnectedOptions,  // no bias (optional)
       fb::CreateFullyConnectedOptions(b).Union());
  const int y6 = m.Act("probs", {1, 5}, 1.0f / 256, -128);
  m.Op(25, {y5}, {y6}, fb::BuiltinOptions::SoftmaxOptions,
       fb::CreateSoftmaxOptions(b, 1.0f).Union());
  return m.Finish({x}, {y6});
}

// ADD (RELU6) -> MUL -> PAD -> MAX_POOL_2D -> CONCATENATION -> MEAN -> LOGISTIC ->
// QUANTIZE (int8 -> int8) -> HARD_SWISH -> LEAKY_RELU (no ELU: TF's reference op resolver,
// which test_tflite_oracle.py runs the seeds with, has none).
std::vector<uint8_t> Elementwise() {
  Builder m;
  auto& b = m.fbb();
  const int a = m.Act("a", {1, 4, 4, 2}, 0.1f, 0);
  const int s = m.Act("sum", {1, 4, 4, 2}, 0.2f, 1);
  m.Op(0, {a, a}, {s}, fb::BuiltinOptions::AddOptions,
       fb::CreateAddOptions(b, fb::ActivationFunctionType::RELU6).Union());
  const int p = m.Act("prod", {1, 4, 4, 2}, 0.3f, -2);
  m.Op(18, {s, a}, {p}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(b).Union());
  const int pads = m.Tensor("pads", {4, 2}, fb::TensorType::INT32, {},
                            Int32s({0, 0, 1, 1, 0, 1, 0, 0}));
  const int d = m.Act("padded", {1, 6, 5, 2}, 0.3f, -2);
  m.Op(34, {p, pads}, {d}, fb::BuiltinOptions::PadOptions, fb::CreatePadOptions(b).Union());
  const int e = m.Act("maxpool", {1, 3, 2, 2}, 0.3f, -2);
  m.Op(17, {d}, {e}, fb::BuiltinOptions::Pool2DOptions,
       fb::CreatePool2DOptions(b, fb::Padding::VALID, 2, 2, 2, 2).Union());
  const int f = m.Act("cat", {1, 3, 2, 4}, 0.3f, -2);
  m.Op(2, {e, e}, {f}, fb::BuiltinOptions::ConcatenationOptions,
       fb::CreateConcatenationOptions(b, 3).Union());
  const int axes = m.Tensor("axes", {2}, fb::TensorType::INT32, {}, Int32s({1, 2}));
  const int g = m.Act("mean", {1, 1, 1, 4}, 0.1f, 3);
  m.Op(40, {f, axes}, {g}, fb::BuiltinOptions::ReducerOptions,
       fb::CreateReducerOptions(b, true).Union());
  const int h = m.Act("sigmoid", {1, 1, 1, 4}, 1.0f / 256, -128);
  m.Op(14, {g}, {h});
  const int i = m.Act("requant", {1, 1, 1, 4}, 0.01f, 0);
  m.Op(114, {h}, {i});
  const int j = m.Act("hard_swish", {1, 1, 1, 4}, 0.008f, -5);
  m.Op(117, {i}, {j});
  const int k = m.Act("leaky_relu", {1, 1, 1, 4}, 0.01f, 10);
  m.Op(98, {j}, {k}, fb::BuiltinOptions::LeakyReluOptions,
       fb::CreateLeakyReluOptions(b, 0.2f).Union());
  return m.Finish({a}, {k});
}

// Float edges: QUANTIZE (float input) -> TANH -> RELU -> RELU6 -> PADV2 -> SQUEEZE ->
// DEQUANTIZE (float output).
std::vector<uint8_t> FloatEdges() {
  Builder m;
  auto& b = m.fbb();
  const int x = m.Tensor("x", {1, 6}, fb::TensorType::FLOAT32, {});
  const int q = m.Act("q", {1, 6}, 0.05f, 2);
  m.Op(114, {x}, {q});
  const int t = m.Act("tanh", {1, 6}, 1.0f / 128, 0);
  m.Op(28, {q}, {t});
  const int r = m.Act("relu", {1, 6}, 0.01f, -128);
  m.Op(19, {t}, {r});
  const int r6 = m.Act("relu6", {1, 6}, 0.01f, -128);
  m.Op(21, {r}, {r6});
  const int pads = m.Tensor("pads", {2, 2}, fb::TensorType::INT32, {}, Int32s({0, 0, 2, 1}));
  const int value = m.Tensor("value", {}, fb::TensorType::INT8, {{0.01f}, {-128}}, {7});
  const int pd = m.Act("padv2", {1, 9}, 0.01f, -128);
  m.Op(60, {r6, pads, value}, {pd}, fb::BuiltinOptions::PadV2Options,
       fb::CreatePadV2Options(b).Union());
  const int sq = m.Act("squeeze", {9}, 0.01f, -128);
  std::vector<int32_t> dims = {0};
  m.Op(43, {pd}, {sq}, fb::BuiltinOptions::SqueezeOptions,
       fb::CreateSqueezeOptions(b, b.CreateVector(dims)).Union());
  const int y = m.Tensor("y", {9}, fb::TensorType::FLOAT32, {});
  m.Op(6, {sq}, {y});
  return m.Finish({x}, {y});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(argv[1], ec);
  const std::pair<const char*, std::vector<uint8_t>> seeds[] = {
      {"cnn.tflite", Cnn()},
      {"elementwise.tflite", Elementwise()},
      {"float_edges.tflite", FloatEdges()}};
  for (const auto& [name, bytes] : seeds) {
    const std::string path = std::string(argv[1]) + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
