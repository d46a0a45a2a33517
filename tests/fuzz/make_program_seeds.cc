// Writes the fuzzer's seed corpus: small valid programs covering every operator kind, a
// streamed convolution and an external segment layout. Usage: program_make_seeds <dir>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "emit/program_writer.h"
#include "tinyforge/kernel_ids.h"

namespace {

using namespace tinyforge;
namespace fmt = rt::fmt;

struct Seed {
  emit::Program p;
  Seed(uint32_t arena) {
    p.regions = {{"ram", arena, 16}};
    p.segments = {{"flash", {}}};
    p.rounding = TF_ROUNDING_SINGLE;  // every requantizing op below uses it
  }
  template <class T>
  int32_t C(const std::vector<T>& v, uint8_t dtype) {
    return p.AddConstant(0, dtype,
                         {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)});
  }
  int32_t A(uint8_t dtype, uint32_t off, uint32_t size) {
    return p.AddArenaTensor(0, dtype, off, size);
  }
};

void Save(const std::string& dir, const std::string& name, const emit::Program& p) {
  auto image = emit::WriteProgram(p);
  if (!image.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), image.error().message().c_str());
    std::exit(1);
  }
  for (uint8_t mode : {0, 1}) {  // first byte: the fuzzer's mode (see program_fuzz.cc)
    std::ofstream f(dir + "/" + name + (mode ? "_repair" : "_raw"), std::ios::binary);
    f.put(static_cast<char>(mode));
    f.write(reinterpret_cast<const char*>(image->data()),
            static_cast<std::streamsize>(image->size()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: program_make_seeds <dir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  {  // conv 3x3 streamed in place, then fc, softmax
    Seed s(512);
    s8_conv_params c{1, 4, 4, 2, 4, 4, 2,  3,       3,       2,    1,
                     1, 1, 1, 1, 1, 3, -4, nullptr, nullptr, -128, 127, TF_ROUNDING_SINGLE, 0, 0};
    const int32_t in = s.A(fmt::kInt8, 32, 32), out = s.A(fmt::kInt8, 16, 32);
    const int32_t line = s.A(fmt::kInt8, 80, 32);
    s.p.ops.push_back({rt::KernelId("s8_conv__ref"),
                       {in, s.C(std::vector<int8_t>(36, 3), fmt::kInt8),
                        s.C(std::vector<int32_t>{5, -5}, fmt::kInt32),
                        s.C(std::vector<int32_t>(2, 1 << 30), fmt::kInt32),
                        s.C(std::vector<int32_t>(2, -2), fmt::kInt32), out, fmt::kNoTensor, line},
                       emit::EncodeParams(c),
                       fmt::kOpFlagStream});
    s8_fc_params f{1, 32, 5, 4, 1, 0, nullptr, nullptr, -128, 127, TF_ROUNDING_SINGLE};
    const int32_t logits = s.A(fmt::kInt8, 128, 5), probs = s.A(fmt::kInt8, 144, 5);
    s.p.ops.push_back({rt::KernelId("s8_fc__ref"),
                       {out, s.C(std::vector<int8_t>(160, -2), fmt::kInt8), fmt::kNoTensor,
                        s.C(std::vector<int32_t>{1 << 30}, fmt::kInt32),
                        s.C(std::vector<int32_t>{-4}, fmt::kInt32), logits, fmt::kNoTensor},
                       emit::EncodeParams(f)});
    s8_softmax_params sm{1, 5, 1717986918, 23, -248};
    s.p.ops.push_back({rt::KernelId("s8_softmax__ref"), {logits, probs, fmt::kNoTensor},
                       emit::EncodeParams(sm)});
    s.p.io = {{in, false, {1, 4, 4, 2}, 0.5f, 0}, {probs, true, {1, 5}, 1.0f / 256, -128}};
    Save(dir, "conv_fc_softmax", s.p);
  }
  {  // dwconv, pools, add in place, mean
    Seed s(512);
    s8_dwconv_params d{1, 4, 4, 2, 4, 4, 2, 1,       3,       3,    1,
                       1, 1, 1, 1, 1, 0, 0, nullptr, nullptr, -128, 127, TF_ROUNDING_SINGLE, 0, 0};
    const int32_t x = s.A(fmt::kInt8, 0, 32), y = s.A(fmt::kInt8, 48, 32);
    s.p.ops.push_back({rt::KernelId("s8_dwconv__ref"),
                       {x, s.C(std::vector<int8_t>(18, 1), fmt::kInt8), fmt::kNoTensor,
                        s.C(std::vector<int32_t>(2, 1 << 30), fmt::kInt32),
                        s.C(std::vector<int32_t>(2, -1), fmt::kInt32), y, fmt::kNoTensor},
                       emit::EncodeParams(d)});
    s8_pool_params pl{1, 4, 4, 2, 2, 2, 2, 2, 2, 2, 0, 0, -128, 127};
    const int32_t a = s.A(fmt::kInt8, 96, 8), m = s.A(fmt::kInt8, 112, 8);
    s.p.ops.push_back({rt::KernelId("s8_avgpool__ref"), {y, a}, emit::EncodeParams(pl)});
    s.p.ops.push_back({rt::KernelId("s8_maxpool__ref"), {y, m}, emit::EncodeParams(pl)});
    s8_add_params ad{{{1, 1, 1, 1, 1, 8}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}},
                     1,
                     2,
                     20,
                     1 << 30,
                     -1,
                     1 << 30,
                     -1,
                     1 << 30,
                     -18,
                     0,
                     -128,
                     127,
                     TF_ROUNDING_SINGLE,
                     0,
                     0,
                     0,
                     0};
    s.p.ops.push_back({rt::KernelId("s8_add__ref"), {a, m, a}, emit::EncodeParams(ad)});
    s8_mean_params mn{1, 4, 2, 0, 0, 1 << 30, -1, TF_ROUNDING_SINGLE};
    const int32_t o = s.A(fmt::kInt8, 128, 2);
    s.p.ops.push_back({rt::KernelId("s8_mean__ref"), {a, o}, emit::EncodeParams(mn)});
    s.p.io = {{x, false, {1, 4, 4, 2}, 0.5f, 0}, {o, true, {2}, 0.5f, 0}};
    Save(dir, "dw_pool_add_mean", s.p);
  }
  {  // a residual pipe (docs/decisions.md 99): conv 3x3 into a window, then ADD of the
     // window and the conv's input, by rows
    Seed s(512);
    s8_conv_params c{1, 4, 4, 2, 4, 4, 2,  3,       3,       2,    1,
                     1, 1, 1, 1, 1, 3, -4, nullptr, nullptr, -128, 127, TF_ROUNDING_SINGLE, 0, 0};
    const int32_t in = s.A(fmt::kInt8, 0, 32), window = s.A(fmt::kInt8, 32, 24);
    const int32_t out = s.A(fmt::kInt8, 64, 32), line = s.A(fmt::kInt8, 96, 16);
    emit::ProgramOp conv{rt::KernelId("s8_conv__ref"),
                         {in, s.C(std::vector<int8_t>(36, 3), fmt::kInt8),
                          s.C(std::vector<int32_t>{5, -5}, fmt::kInt32),
                          s.C(std::vector<int32_t>(2, 1 << 30), fmt::kInt32),
                          s.C(std::vector<int32_t>(2, -2), fmt::kInt32), window, fmt::kNoTensor,
                          fmt::kNoTensor},
                         emit::EncodeParams(c),
                         fmt::kOpFlagStream | fmt::kOpFlagPipeOut};
    conv.stream_rows = 1;
    conv.in_place_input = 0;
    conv.in_place_output = 5;
    s.p.ops.push_back(conv);
    s8_add_params ad{{{1, 1, 1, 4, 4, 2}, {0, 0, 0, 8, 2, 1}, {0, 0, 0, 8, 2, 1}},
                     4, 0, 20, 1 << 30, -1, 1 << 30, -1, 1 << 30, -18, 0, -128, 127,
                     TF_ROUNDING_SINGLE, 0, 0, 0, 0};
    emit::ProgramOp add{rt::KernelId("s8_add__ref"), {window, in, out, line},
                        emit::EncodeParams(ad), fmt::kOpFlagStream | fmt::kOpFlagPipeIn};
    add.stream_rows = 1;
    add.in_place_input = 0;
    add.in_place_output = 2;
    s.p.ops.push_back(add);
    s.p.io = {{in, false, {1, 4, 4, 2}, 0.5f, 0}, {out, true, {1, 4, 4, 2}, 0.5f, 0}};
    Save(dir, "residual_pipe", s.p);
  }
  {  // quantize, mul, logistic, tanh, requantize, pad, concat, dequantize
    Seed s(1024);
    const int32_t f = s.A(fmt::kFloat32, 0, 64), q = s.A(fmt::kInt8, 64, 16);
    s8_quantize_params qp{16, 0.1f, 3};
    s.p.ops.push_back({rt::KernelId("s8_quantize__ref"), {f, q}, emit::EncodeParams(qp)});
    s8_mul_params mp{{{1, 1, 1, 1, 1, 16}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}},
                     -3,
                     -3,
                     1 << 30,
                     -5,
                     0,
                     -128,
                     127,
                     TF_ROUNDING_SINGLE};
    const int32_t sq = s.A(fmt::kInt8, 96, 16);
    s.p.ops.push_back({rt::KernelId("s8_mul__ref"), {q, q, sq}, emit::EncodeParams(mp)});
    s8_logistic_params lg{16, 0, 57, 1717986918, 1};
    s.p.ops.push_back({rt::KernelId("s8_logistic__ref"), {sq, sq}, emit::EncodeParams(lg)});
    s8_tanh_params th{16, 0, 57, 1717986918, 1};
    const int32_t t = s.A(fmt::kInt8, 128, 16);
    s.p.ops.push_back({rt::KernelId("s8_tanh__ref"), {sq, t}, emit::EncodeParams(th)});
    s8_requantize_params rq{16, 0, 1, 1 << 30, 0, -128, 127, TF_ROUNDING_SINGLE};
    const int32_t r = s.A(fmt::kInt8, 160, 16);
    s.p.ops.push_back({rt::KernelId("s8_requantize__ref"), {t, r}, emit::EncodeParams(rq)});
    s8_pad_params pd{{1, 1, 1, 4, 4}, {0, 0, 0, 1, 1}, {0, 0, 0, 1, 1}, -128};
    const int32_t pr = s.A(fmt::kInt8, 192, 36);
    s.p.ops.push_back({rt::KernelId("s8_pad__ref"), {r, pr}, emit::EncodeParams(pd)});
    s8_concat_params cp{4, 2, nullptr, 0, TF_ROUNDING_SINGLE};
    std::vector<int32_t> cw = emit::EncodeParams(cp);
    for (int32_t v : {4, 0, 0, 0, 0, 9, 1, 0, 1 << 30, 0}) cw.push_back(v);
    const int32_t cat = s.A(fmt::kInt8, 240, 52);
    s.p.ops.push_back({rt::KernelId("s8_concat__ref"), {r, pr, cat}, cw});
    s8_dequantize_params dq{52, 0.25f, 0};
    const int32_t out = s.A(fmt::kFloat32, 320, 208);
    s.p.ops.push_back({rt::KernelId("s8_dequantize__ref"), {cat, out}, emit::EncodeParams(dq)});
    s.p.io = {{f, false, {16}, 0.0f, 0}, {out, true, {52}, 0.0f, 0}};
    Save(dir, "elementwise_data", s.p);
  }
  return 0;
}
