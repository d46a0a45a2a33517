// Direct tests of the runtime validator (runtime/ops Validate_<op>): every size check and
// every parameter range of every op, so that removing or loosening any check fails a test.
//
//   * Sizes: for each op, a small valid program loads (Status::kOk); then each operand in
//     turn is one element too small and one too large (int8: one byte), of the wrong dtype,
//     and (outputs) placed in a constant segment: each must be rejected with kBadParams.
//   * Ranges: the family's s8_<family>_check (kernels/<family>/<family>_limits.h, the one
//     definition the compiler uses too) accepts every bound at the limit and rejects one past
//     it, naming the field; through the runtime, one past each bound is rejected, and at the
//     limit accepted wherever the limit fits a small program (dims at 2^24 do not).
#include <gtest/gtest.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "harness.h"
#include "kernels/add/add_limits.h"
#include "kernels/f32/f32_limits.h"
#include "kernels/concat/concat_limits.h"
#include "kernels/conv/conv_limits.h"
#include "kernels/dwconv/dwconv_limits.h"
#include "kernels/fc/fc_limits.h"
#include "kernels/bmm/bmm_limits.h"
#include "kernels/layernorm/layernorm_limits.h"
#include "kernels/lstm/lstm_limits.h"
#include "kernels/logistic/logistic_limits.h"
#include "kernels/lut/lut_limits.h"
#include "kernels/mean/mean_limits.h"
#include "kernels/minmax/minmax_limits.h"
#include "kernels/argmax/argmax_limits.h"
#include "kernels/gather/gather_limits.h"
#include "kernels/mul/mul_limits.h"
#include "kernels/pad/pad_limits.h"
#include "kernels/slice/slice_limits.h"
#include "kernels/transpose/transpose_limits.h"
#include "kernels/pool/pool_limits.h"
#include "kernels/quantize/quantize_limits.h"
#include "kernels/resize/resize_limits.h"
#include "kernels/softmax/softmax_limits.h"
#include "kernels/tanh/tanh_limits.h"

namespace tinyforge::rt {
namespace {

using testing::Builder;
using testing::Loaded;

// ---- A one-op program described operand by operand -------------------------------------

struct Operand {
  uint8_t dtype = fmt::kInt8;
  int64_t elements = 0;   // 0: absent (fmt::kNoTensor)
  bool constant = false;  // in the flash segment (zeros), else in the arena
  bool output = false;    // declared as the program's output (else, if in the arena, input)
  bool at_least = false;  // scratch, line buffer, broadcast input: any size >= `elements`
  int32_t value = 0;      // constants: every int32 element (int8: every byte is 0)
  bool raw = false;       // scratch / line buffer: bytes of no dtype, never an I/O
};

struct OpCase {
  uint32_t kernel = 0;
  std::vector<Operand> operands;
  std::vector<int32_t> params;
  uint32_t flags = 0;
};

uint32_t DtypeBytes(uint8_t dtype) { return dtype == fmt::kInt8 ? 1 : 4; }

// Loads `c` through Model::Init: constants zero-filled, arena tensors disjoint and 16-aligned.
Status Load(const OpCase& c) {
  uint32_t arena = 0;
  for (const Operand& o : c.operands) {
    if (o.elements > 0 && !o.constant) {
      arena += (static_cast<uint32_t>(o.elements) * DtypeBytes(o.dtype) + 31) / 16 * 16;
    }
  }
  Builder b(arena + 16);
  std::vector<int32_t> ids;
  uint32_t offset = 0;
  bool have_input = false;
  for (const Operand& o : c.operands) {
    if (o.elements <= 0) {
      ids.push_back(fmt::kNoTensor);
      continue;
    }
    const uint32_t bytes = static_cast<uint32_t>(o.elements) * DtypeBytes(o.dtype);
    if (o.constant) {
      if (o.dtype == fmt::kInt32) {
        ids.push_back(b.Const(std::vector<int32_t>(static_cast<size_t>(o.elements), o.value),
                              o.dtype));
      } else {
        ids.push_back(b.Const(std::vector<uint8_t>(bytes, 0), o.dtype));
      }
      continue;
    }
    const int32_t t = b.Arena(o.dtype, offset, bytes);
    offset += (bytes + 31) / 16 * 16;
    ids.push_back(t);
    const std::vector<int32_t> dims = {static_cast<int32_t>(o.elements)};
    if (o.output) {
      if (o.dtype == fmt::kFloat32) {
        b.p.io.push_back({t, true, dims, 0.0f, 0});
      } else {
        b.Output(t, dims);
      }
    } else if (!have_input && !o.raw) {
      have_input = true;
      if (o.dtype == fmt::kFloat32) {
        b.p.io.push_back({t, false, dims, 0.0f, 0});
      } else {
        b.Input(t, dims);
      }
    }
  }
  b.Op(c.kernel, ids, c.params, c.flags);
  const std::vector<uint8_t> image = b.Image();
  if (image.empty()) return Status::kBadHeader;  // the writer refused it
  Loaded l(image, testing::RegionSizes(b.p));
  return l.status;
}

// Expects every size / dtype / placement change of every operand of `c` to be rejected.
void ExpectSizeChecks(const char* name, const OpCase& c) {
  ASSERT_EQ(Load(c), Status::kOk) << name << ": the baseline program must load";
  for (size_t i = 0; i < c.operands.size(); ++i) {
    const Operand& o = c.operands[i];
    if (o.elements <= 0) continue;
    OpCase m = c;
    m.operands[i].elements = o.elements - 1;
    if (m.operands[i].elements > 0) {
      EXPECT_EQ(Load(m), Status::kBadParams) << name << ": operand " << i << " one element short";
    }
    m = c;
    m.operands[i].elements = o.elements + 1;
    EXPECT_EQ(Load(m), o.at_least ? Status::kOk : Status::kBadParams)
        << name << ": operand " << i << " one element too many";
    m = c;
    m.operands[i].dtype = o.dtype == fmt::kInt8 ? fmt::kInt32 : fmt::kInt8;
    m.operands[i].elements = o.elements * DtypeBytes(o.dtype) / DtypeBytes(m.operands[i].dtype);
    if (m.operands[i].elements > 0 && !o.raw) {  // raw bytes have no dtype to get wrong
      EXPECT_EQ(Load(m), Status::kBadParams) << name << ": operand " << i << " of another dtype";
    }
    if (o.output || o.raw) {
      m = c;
      m.operands[i].constant = true;
      m.operands[i].output = false;
      if (o.output) {  // keep an output declared: the other arena operand
        for (auto& other : m.operands) {
          if (!other.constant && other.elements > 0 && !other.raw) {
            other.output = true;
            break;
          }
        }
      }
      EXPECT_NE(Load(m), Status::kOk) << name << ": writable operand " << i << " in flash";
    }
  }
}

// ---- Range tables ----------------------------------------------------------------------

// One bound of one field: `set(p, v)` writes it; [lo, hi] its valid range. runtime_lo /
// runtime_hi: the limit also fits a small program, so the runtime must accept it there.
template <class P>
struct Range {
  using Setter = std::function<void(P&, int64_t)>;
  using Prepare = std::function<void(P&)>;
  Range(const char* f, Setter s, int64_t l, int64_t h, bool rl, bool rh, Prepare pr = Prepare())
      : field(f), set(std::move(s)), lo(l), hi(h), runtime_lo(rl), runtime_hi(rh),
        prepare(std::move(pr)) {}
  const char* field;
  Setter set;
  int64_t lo, hi;
  bool runtime_lo, runtime_hi;
  Prepare prepare;  // adjusts the baseline for this field's limits (optional)
};

#define TF_FIELD(P, f) \
  #f, [](P& p, int64_t v) { p.f = static_cast<decltype(p.f)>(v); }

template <class P>
void ExpectRanges(const char* name, const P& base, const char* (*check)(const P&),
                  OpCase (*make)(const P&), const std::vector<Range<P>>& ranges) {
  ASSERT_EQ(check(base), nullptr) << name << ": baseline rejected: " << check(base);
  ASSERT_EQ(Load(make(base)), Status::kOk) << name << ": the baseline program must load";
  for (const Range<P>& r : ranges) {
    const std::string what = std::string(name) + "." + r.field;
    P start = base;
    if (r.prepare) r.prepare(start);
    struct Probe {
      int64_t v;
      bool valid, runtime;
    };
    std::vector<Probe> probes = {{r.lo, true, r.runtime_lo}, {r.hi, true, r.runtime_hi}};
    if (r.lo > INT32_MIN) probes.push_back({r.lo - 1, false, true});
    if (r.hi < INT32_MAX) probes.push_back({r.hi + 1, false, true});
    for (const Probe& pr : probes) {
      P p = start;
      r.set(p, pr.v);
      const char* why = check(p);
      if (pr.valid) {
        EXPECT_EQ(why, nullptr) << what << " = " << pr.v << " (at the limit) rejected: " << why;
      } else {
        EXPECT_NE(why, nullptr) << what << " = " << pr.v << " (one past the limit) accepted";
        if (why != nullptr) {
          // The reason names the field (its leading name, before any index).
          std::string field = r.field;
          field = field.substr(0, field.find('['));
          EXPECT_NE(std::string(why).find(field), std::string::npos) << what << ": " << why;
        }
      }
      if (pr.runtime) {
        EXPECT_EQ(Load(make(p)), pr.valid ? Status::kOk : Status::kBadParams)
            << what << " = " << pr.v << " through the runtime";
      }
    }
  }
}

// ---- Per-op baselines ------------------------------------------------------------------

Operand In(int64_t n, uint8_t dtype = fmt::kInt8) { return {dtype, n, false, false, false, 0}; }
Operand Const(int64_t n, uint8_t dtype = fmt::kInt8) { return {dtype, n, true, false, false, 0}; }
Operand Out(int64_t n, uint8_t dtype = fmt::kInt8) { return {dtype, n, false, true, false, 0}; }
Operand None() { return {fmt::kInt8, 0, false, false, false, 0}; }
Operand Scratch(int64_t n) { return {fmt::kInt8, n, false, false, true, 0, true}; }
// An ADD / MUL input: it must reach the last index the broadcast strides give; more is fine.
Operand Broadcast(int64_t n) { return {fmt::kInt8, n, false, false, true, 0}; }

s8_conv_params ConvBase() {
  s8_conv_params p{};
  p.batches = 1, p.in_h = 4, p.in_w = 4, p.in_c = 2, p.out_h = 2, p.out_w = 2, p.out_c = 4;
  p.k_h = 3, p.k_w = 3, p.filter_in_c = 2, p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase ConvCase(const s8_conv_params& p) {
  const int64_t out_c = p.out_c > 0 && p.out_c < 64 ? p.out_c : 1;
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  return {KernelId("s8_conv__ref"),
          {In(dim(p.batches) * dim(p.in_h) * dim(p.in_w) * dim(p.in_c)),
           Const(out_c * dim(p.k_h) * dim(p.k_w) * dim(p.filter_in_c)),
           Const(out_c, fmt::kInt32), Const(out_c, fmt::kInt32), Const(out_c, fmt::kInt32),
           Out(dim(p.batches) * dim(p.out_h) * dim(p.out_w) * out_c), None()},
          emit::EncodeParams(p)};
}

s8_dwconv_params DwconvBase() {
  s8_dwconv_params p{};
  p.batches = 1, p.in_h = 4, p.in_w = 4, p.in_c = 2, p.out_h = 2, p.out_w = 2, p.out_c = 4;
  p.depth_multiplier = 2, p.k_h = 3, p.k_w = 3, p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase DwconvCase(const s8_dwconv_params& p) {
  const int64_t out_c = p.out_c > 0 && p.out_c < 64 ? p.out_c : 1;
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  return {KernelId("s8_dwconv__ref"),
          {In(dim(p.batches) * dim(p.in_h) * dim(p.in_w) * dim(p.in_c)),
           Const(dim(p.k_h) * dim(p.k_w) * out_c), Const(out_c, fmt::kInt32),
           Const(out_c, fmt::kInt32), Const(out_c, fmt::kInt32),
           Out(dim(p.batches) * dim(p.out_h) * dim(p.out_w) * out_c), None()},
          emit::EncodeParams(p)};
}

s8_fc_params FcBase() {
  s8_fc_params p{};
  p.batches = 2, p.in_features = 5, p.out_features = 3, p.per_channel = 1;
  p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase FcCase(const s8_fc_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  const int64_t quant = p.per_channel == 1 ? dim(p.out_features) : 1;
  return {KernelId("s8_fc__ref"),
          {In(dim(p.batches) * dim(p.in_features)), Const(dim(p.out_features) * dim(p.in_features)),
           Const(dim(p.out_features), fmt::kInt32), Const(quant, fmt::kInt32),
           Const(quant, fmt::kInt32), Out(dim(p.batches) * dim(p.out_features)), None()},
          emit::EncodeParams(p)};
}

s8_bmm_params BmmBase() {
  s8_bmm_params p{};
  p.batches = 2, p.lhs_batches = 2, p.rhs_batches = 1, p.rows = 3, p.depth = 5, p.cols = 4;
  p.multiplier = 1 << 30, p.shift = -3, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase BmmCase(const s8_bmm_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  return {KernelId("s8_bmm__ref"),
          {In(dim(p.lhs_batches) * dim(p.rows) * dim(p.depth)),
           In(dim(p.rhs_batches) * dim(p.depth) * dim(p.cols)),
           Out(dim(p.batches) * dim(p.rows) * dim(p.cols)), None()},
          emit::EncodeParams(p)};
}

s8_pool_params PoolBase() {
  s8_pool_params p{};
  p.batches = 1, p.in_h = 3, p.in_w = 3, p.channels = 2, p.out_h = 1, p.out_w = 1;
  p.filter_h = 3, p.filter_w = 3, p.stride_h = p.stride_w = 1, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase PoolCaseOf(const char* kernel, const s8_pool_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  return {KernelId(kernel),
          {In(dim(p.batches) * dim(p.in_h) * dim(p.in_w) * dim(p.channels)),
           Out(dim(p.batches) * dim(p.out_h) * dim(p.out_w) * dim(p.channels))},
          emit::EncodeParams(p)};
}
OpCase AvgpoolCase(const s8_pool_params& p) { return PoolCaseOf("s8_avgpool__ref", p); }
OpCase MaxpoolCase(const s8_pool_params& p) { return PoolCaseOf("s8_maxpool__ref", p); }

s8_broadcast_shape Dense(int32_t n) {
  return {{1, 1, 1, 1, 1, n}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1}};
}
s8_add_params AddBase() {
  s8_add_params p{};
  p.shape = Dense(8), p.left_shift = 20, p.input1_multiplier = p.input2_multiplier = 1 << 30;
  p.output_multiplier = 1 << 30, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase AddCase(const s8_add_params& p) {
  return {KernelId("s8_add__ref"), {Broadcast(8), Broadcast(8), Out(8)}, emit::EncodeParams(p)};
}
OpCase SubCase(const s8_add_params& p) {
  return {KernelId("s8_sub__ref"), {Broadcast(8), Broadcast(8), Out(8)}, emit::EncodeParams(p)};
}
s8_add_params SquaredDifferenceBase() {
  s8_add_params p = AddBase();
  p.left_shift = 7;
  return p;
}
OpCase SquaredDifferenceCase(const s8_add_params& p) {
  return {KernelId("s8_squared_difference__ref"), {Broadcast(8), Broadcast(8), Out(8)},
          emit::EncodeParams(p)};
}
s8_minmax_params MinMaxBase() { return {Dense(8)}; }
OpCase MaximumCase(const s8_minmax_params& p) {
  return {KernelId("s8_maximum__ref"), {Broadcast(8), Broadcast(8), Out(8)},
          emit::EncodeParams(p)};
}
OpCase MinimumCase(const s8_minmax_params& p) {
  return {KernelId("s8_minimum__ref"), {Broadcast(8), Broadcast(8), Out(8)},
          emit::EncodeParams(p)};
}
s8_mul_params MulBase() {
  s8_mul_params p{};
  p.shape = Dense(8), p.output_multiplier = 1 << 30, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase MulCase(const s8_mul_params& p) {
  return {KernelId("s8_mul__ref"), {Broadcast(8), Broadcast(8), Out(8)}, emit::EncodeParams(p)};
}

s8_prelu_params PreluBase() {
  s8_prelu_params p{};
  p.shape = Dense(8), p.output_multiplier_1 = p.output_multiplier_2 = 1 << 30;
  return p;
}
OpCase PreluCase(const s8_prelu_params& p) {
  return {KernelId("s8_prelu__ref"), {Broadcast(8), Broadcast(8), Out(8)}, emit::EncodeParams(p)};
}
s8_argmax_params ArgmaxBase() { return {2, 5, 3, 0}; }
OpCase ArgmaxCase(const s8_argmax_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  return {KernelId("s8_argmax__ref"),
          {In(dim(p.outer) * dim(p.axis_size) * dim(p.inner)),
           Out(dim(p.outer) * dim(p.inner), fmt::kInt32)},
          emit::EncodeParams(p)};
}

s8_gather_params GatherBase() { return {2, 5, 3, 4, 0}; }
OpCase GatherCase(const s8_gather_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  return {KernelId("s8_gather__ref"),
          {In(dim(p.outer) * dim(p.axis_size) * dim(p.inner)), In(dim(p.count), fmt::kInt32),
           Out(dim(p.outer) * dim(p.count) * dim(p.inner))},
          emit::EncodeParams(p)};
}

// diff_min as the compiler derives it from the shift (-floor(31 * 2^26 / 2^3)).
s8_softmax_params SoftmaxBase() { return {2, 5, 1 << 30, 3, -(31 << 23)}; }
OpCase SoftmaxCase(const s8_softmax_params& p) {
  const int64_t n = (p.rows > 0 && p.rows < 64 ? p.rows : 1) *
                    (p.depth > 0 && p.depth < 64 ? p.depth : 1);
  return {KernelId("s8_softmax__ref"), {In(n), Out(n), None()}, emit::EncodeParams(p)};
}

s8_mean_params MeanBase() {
  s8_mean_params p{};
  p.outer = 2, p.reduce_size = 3, p.inner = 4, p.multiplier = 1 << 30;
  return p;
}
OpCase MeanCase(const s8_mean_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  return {KernelId("s8_mean__ref"),
          {In(dim(p.outer) * dim(p.reduce_size) * dim(p.inner)), Out(dim(p.outer) * dim(p.inner))},
          emit::EncodeParams(p)};
}

s8_reduce_max_params ReduceMaxBase() { return {2, 3, 4}; }
OpCase ReduceMaxCase(const s8_reduce_max_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  return {KernelId("s8_reduce_max__ref"),
          {In(dim(p.outer) * dim(p.reduce_size) * dim(p.inner)), Out(dim(p.outer) * dim(p.inner))},
          emit::EncodeParams(p)};
}

template <class P>
int64_t SizeOf(const P& p) {
  return p.size > 0 && p.size < 64 ? p.size : 1;
}
s8_logistic_params LogisticBase() { return {10, 0, 57, 1 << 30, 1}; }
OpCase LogisticCase(const s8_logistic_params& p) {
  return {KernelId("s8_logistic__ref"), {In(SizeOf(p)), Out(SizeOf(p))}, emit::EncodeParams(p)};
}
s8_tanh_params TanhBase() { return {10, 0, 57, 1 << 30, 1}; }
OpCase TanhCase(const s8_tanh_params& p) {
  return {KernelId("s8_tanh__ref"), {In(SizeOf(p)), Out(SizeOf(p))}, emit::EncodeParams(p)};
}
s8_layernorm_params LayerNormBase() { return {2, 5, 0, 3, 7, 0, 4, 1, nullptr, nullptr}; }
// input, scale and bias (int32 constants, depth entries or one), output.
OpCase LayerNormCase(const s8_layernorm_params& p) {
  const int64_t rows = p.rows > 0 && p.rows < 64 ? p.rows : 1;
  const int64_t depth = p.depth > 0 && p.depth < 64 ? p.depth : 1;
  const int64_t channels = p.per_channel ? depth : 1;
  return {KernelId("s8_layernorm__ref"),
          {In(rows * depth), Const(channels, fmt::kInt32), Const(channels, fmt::kInt32),
           Out(rows * depth)},
          emit::EncodeParams(p)};
}
s8_lstm_params LstmBase() {
  s8_lstm_params p{};
  p.steps = 3, p.in_features = 5, p.units = 4;
  for (int i = 0; i < 8; ++i) p.gate_multiplier[i] = 1 << 30, p.gate_shift[i] = -3;
  p.hidden_multiplier = 1 << 30, p.hidden_shift = -20, p.hidden_offset = -5;
  p.hidden_init = -5, p.cell_log2 = -11, p.cell_clip = 0;
  return p;
}
// input, w_x, w_h (int8 constants), bias (int32 constant), output, scratch (required).
OpCase LstmCase(const s8_lstm_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  const int64_t t = dim(p.steps), f = dim(p.in_features), h = dim(p.units);
  return {KernelId("s8_lstm__ref"),
          {In(t * f), Const(4 * h * f), Const(4 * h * h), Const(8 * h, fmt::kInt32), Out(t * h),
           Scratch(11 * h + 4)},
          emit::EncodeParams(p)};
}
s8_lut_params LutBase() { return {10}; }
// input, the table (an int8 constant of exactly 256 entries), output.
OpCase LutCase(const s8_lut_params& p) {
  Operand table;
  table.elements = TF_LUT_ENTRIES;
  table.constant = true;
  return {KernelId("s8_lut__ref"), {In(SizeOf(p)), table, Out(SizeOf(p))}, emit::EncodeParams(p)};
}
s8_resize_params ResizeBase() { return {1, 2, 3, 4, 4, 6, 1}; }
// input, the coordinate table (int32 constant, 3 per output row and column), output.
OpCase ResizeCase(const s8_resize_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  const int64_t b = dim(p.batches), c = dim(p.channels);
  return {KernelId("s8_resize__ref"),
          {In(b * dim(p.input_h) * dim(p.input_w) * c),
           Const(3 * (dim(p.output_h) + dim(p.output_w)), fmt::kInt32),
           Out(b * dim(p.output_h) * dim(p.output_w) * c)},
          emit::EncodeParams(p)};
}
s8_requantize_params RequantizeBase() {
  s8_requantize_params p{};
  p.size = 10, p.multiplier = 1 << 30, p.act_min = -128, p.act_max = 127;
  return p;
}
OpCase RequantizeCase(const s8_requantize_params& p) {
  return {KernelId("s8_requantize__ref"), {In(SizeOf(p)), Out(SizeOf(p))}, emit::EncodeParams(p)};
}
s8_quantize_params QuantizeBase() { return {10, 0.5f, 0}; }
OpCase QuantizeCase(const s8_quantize_params& p) {
  return {KernelId("s8_quantize__ref"), {In(SizeOf(p), fmt::kFloat32), Out(SizeOf(p))},
          emit::EncodeParams(p)};
}
s8_dequantize_params DequantizeBase() { return {10, 0.5f, 0}; }
OpCase DequantizeCase(const s8_dequantize_params& p) {
  return {KernelId("s8_dequantize__ref"), {In(SizeOf(p)), Out(SizeOf(p), fmt::kFloat32)},
          emit::EncodeParams(p)};
}

// The float fallback (kernels/f32): float32 operands.
f32_unary_params F32UnaryBase() { return {10, kF32Exp}; }
OpCase F32UnaryCase(const f32_unary_params& p) {
  return {KernelId("f32_unary__ref"), {In(SizeOf(p), fmt::kFloat32), Out(SizeOf(p), fmt::kFloat32)},
          emit::EncodeParams(p)};
}
f32_binary_params F32BinaryBase() { return {Dense(8), kF32Atan2}; }
OpCase F32BinaryCase(const f32_binary_params& p) {
  Operand a = Broadcast(8), b = Broadcast(8);
  a.dtype = b.dtype = fmt::kFloat32;
  return {KernelId("f32_binary__ref"), {a, b, Out(8, fmt::kFloat32)}, emit::EncodeParams(p)};
}
f32_cumsum_params F32CumsumBase() { return {2, 3, 4}; }
OpCase F32CumsumCase(const f32_cumsum_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  const int64_t n = dim(p.outer) * dim(p.length) * dim(p.inner);
  return {KernelId("f32_cumsum__ref"), {In(n, fmt::kFloat32), Out(n, fmt::kFloat32)},
          emit::EncodeParams(p)};
}

// Float model layers (kernels/f32, decision 52): float32 operands, no quantization.
f32_conv_params F32ConvBase() {
  f32_conv_params p{};
  p.batches = 1, p.in_h = 5, p.in_w = 5, p.in_c = 3, p.out_h = 3, p.out_w = 3, p.out_c = 4;
  p.k_h = p.k_w = 3, p.stride_h = p.stride_w = 1, p.dilation_h = p.dilation_w = 1;
  p.act_min = 0.0f, p.act_max = 6.0f;
  return p;
}
OpCase F32ConvCaseOf(const char* kernel, const f32_conv_params& p, bool depthwise) {
  const int64_t out_c = p.out_c > 0 && p.out_c < 64 ? p.out_c : 1;
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  const int64_t taps = dim(p.k_h) * dim(p.k_w);
  constexpr uint8_t f = fmt::kFloat32;
  return {KernelId(kernel),
          {In(dim(p.batches) * dim(p.in_h) * dim(p.in_w) * dim(p.in_c), f),
           Const(depthwise ? taps * out_c : out_c * taps * dim(p.in_c), f), Const(out_c, f),
           None(), None(), Out(dim(p.batches) * dim(p.out_h) * dim(p.out_w) * out_c, f), None()},
          emit::EncodeParams(p)};
}
OpCase F32ConvCase(const f32_conv_params& p) { return F32ConvCaseOf("f32_conv__ref", p, false); }
f32_conv_params F32DwconvBase() {
  f32_conv_params p = F32ConvBase();
  p.out_c = 6;  // depth multiplier 2
  return p;
}
OpCase F32DwconvCase(const f32_conv_params& p) {
  return F32ConvCaseOf("f32_dwconv__ref", p, true);
}
f32_fc_params F32FcBase() { return {2, 5, 3, -1.0f, 1.0f}; }
OpCase F32FcCase(const f32_fc_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  constexpr uint8_t f = fmt::kFloat32;
  return {KernelId("f32_fc__ref"),
          {In(dim(p.batches) * dim(p.in_features), f),
           Const(dim(p.out_features) * dim(p.in_features), f), Const(dim(p.out_features), f),
           None(), None(), Out(dim(p.batches) * dim(p.out_features), f), None()},
          emit::EncodeParams(p)};
}
f32_pool_params F32PoolBase() {
  f32_pool_params p{};
  p.batches = 1, p.in_h = 3, p.in_w = 3, p.channels = 2, p.out_h = 1, p.out_w = 1;
  p.filter_h = 3, p.filter_w = 3, p.stride_h = p.stride_w = 1;
  return p;
}
OpCase F32PoolCaseOf(const char* kernel, const f32_pool_params& p) {
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 4096 ? d : 1; };
  return {KernelId(kernel),
          {In(dim(p.batches) * dim(p.in_h) * dim(p.in_w) * dim(p.channels), fmt::kFloat32),
           Out(dim(p.batches) * dim(p.out_h) * dim(p.out_w) * dim(p.channels), fmt::kFloat32)},
          emit::EncodeParams(p)};
}
OpCase F32AvgpoolCase(const f32_pool_params& p) {
  return F32PoolCaseOf("f32_avgpool__ref", p);
}
OpCase F32MaxpoolCase(const f32_pool_params& p) {
  return F32PoolCaseOf("f32_maxpool__ref", p);
}

s8_pad_params PadBase() { return {{1, 1, 2, 3, 2}, {0, 0, 1, 0, 1}, {0, 0, 0, 2, 1}, 0}; }
OpCase PadCase(const s8_pad_params& p) {
  int64_t in = 1, out = 1;
  for (int i = 0; i < kS8PadMaxDims; ++i) {
    const int64_t d = p.input_dims[i] > 0 && p.input_dims[i] < 64 ? p.input_dims[i] : 1;
    const int64_t b = p.pad_before[i] >= 0 && p.pad_before[i] < 64 ? p.pad_before[i] : 0;
    const int64_t a = p.pad_after[i] >= 0 && p.pad_after[i] < 64 ? p.pad_after[i] : 0;
    in *= d;
    out *= d + b + a;
  }
  return {KernelId("s8_pad__ref"), {In(in), Out(out)}, emit::EncodeParams(p)};
}

s8_transpose_params TransposeBase() { return {{1, 1, 1, 2, 3, 4}, {0, 1, 2, 5, 3, 4}}; }
OpCase TransposeCase(const s8_transpose_params& p) {
  int64_t n = 1;
  for (int i = 0; i < kS8TransposeMaxDims; ++i) {
    n *= p.input_dims[i] > 0 && p.input_dims[i] < 64 ? p.input_dims[i] : 1;
  }
  return {KernelId("s8_transpose__ref"), {In(n), Out(n)}, emit::EncodeParams(p)};
}

s8_slice_params SliceBase() {
  return {{1, 1, 1, 4, 5, 6}, {1, 1, 1, 2, 3, 2}, {0, 0, 0, 1, 0, 1}, {1, 1, 1, 2, 2, 3}};
}
OpCase SliceCase(const s8_slice_params& p) {
  int64_t in = 1, out = 1;
  for (int i = 0; i < kS8SliceMaxDims; ++i) {
    in *= p.input_dims[i] > 0 && p.input_dims[i] < 64 ? p.input_dims[i] : 1;
    out *= p.output_dims[i] > 0 && p.output_dims[i] < 64 ? p.output_dims[i] : 1;
  }
  return {KernelId("s8_slice__ref"), {In(in), Out(out)}, emit::EncodeParams(p)};
}

// CONCATENATION of two inputs: the fixed part, then each input's descriptor words.
struct ConcatSpec {
  s8_concat_params p;
  s8_concat_input in[2];
};
ConcatSpec ConcatBase() {
  ConcatSpec c{};
  c.p.outer = 2, c.p.num_inputs = 2;
  c.in[0] = {3, 0, 0, 0, 0};
  c.in[1] = {5, 1, -4, 1 << 30, -1};
  return c;
}
OpCase ConcatCase(const ConcatSpec& c) {
  std::vector<int32_t> params = emit::EncodeParams(c.p);
  for (const s8_concat_input& in : c.in) {
    int32_t w[abi::kConcatInputWords];
    abi::FieldWriter fw{w};
    s8_concat_input copy = in;
    abi::VisitConcatInput(copy, fw);
    params.insert(params.end(), w, w + abi::kConcatInputWords);
  }
  auto dim = [](int32_t d) -> int64_t { return d > 0 && d < 64 ? d : 1; };
  const int64_t outer = dim(c.p.outer);
  return {KernelId("s8_concat__ref"),
          {In(outer * dim(c.in[0].axis_inner)), In(outer * dim(c.in[1].axis_inner)),
           Out(outer * (dim(c.in[0].axis_inner) + dim(c.in[1].axis_inner)))},
          params};
}

// ---- Sizes -----------------------------------------------------------------------------

TEST(Validator, EveryOperandSizeOfEveryOp) {
  ExpectSizeChecks("conv", ConvCase(ConvBase()));
  ExpectSizeChecks("dwconv", DwconvCase(DwconvBase()));
  ExpectSizeChecks("fc", FcCase(FcBase()));
  s8_fc_params per_tensor = FcBase();
  per_tensor.per_channel = 0;
  ExpectSizeChecks("fc per-tensor", FcCase(per_tensor));
  ExpectSizeChecks("bmm", BmmCase(BmmBase()));
  OpCase bmm_const = BmmCase(BmmBase());  // a constant rhs (.tflite)
  bmm_const.operands[1].constant = true;
  ExpectSizeChecks("bmm constant rhs", bmm_const);
  ExpectSizeChecks("avgpool", AvgpoolCase(PoolBase()));
  ExpectSizeChecks("maxpool", MaxpoolCase(PoolBase()));
  ExpectSizeChecks("add", AddCase(AddBase()));
  ExpectSizeChecks("mul", MulCase(MulBase()));
  ExpectSizeChecks("prelu", PreluCase(PreluBase()));
  ExpectSizeChecks("argmax", ArgmaxCase(ArgmaxBase()));
  ExpectSizeChecks("gather", GatherCase(GatherBase()));
  ExpectSizeChecks("sub", SubCase(AddBase()));
  ExpectSizeChecks("squared_difference", SquaredDifferenceCase(SquaredDifferenceBase()));
  ExpectSizeChecks("maximum", MaximumCase(MinMaxBase()));
  ExpectSizeChecks("minimum", MinimumCase(MinMaxBase()));
  ExpectSizeChecks("softmax", SoftmaxCase(SoftmaxBase()));
  ExpectSizeChecks("mean", MeanCase(MeanBase()));
  ExpectSizeChecks("logistic", LogisticCase(LogisticBase()));
  ExpectSizeChecks("tanh", TanhCase(TanhBase()));
  ExpectSizeChecks("lut", LutCase(LutBase()));
  ExpectSizeChecks("layernorm", LayerNormCase(LayerNormBase()));
  ExpectSizeChecks("lstm", LstmCase(LstmBase()));
  OpCase lstm_no_scratch = LstmCase(LstmBase());  // the state lives in it: required
  lstm_no_scratch.operands[5] = None();
  EXPECT_EQ(Load(lstm_no_scratch), Status::kBadParams);
  s8_layernorm_params broadcast = LayerNormBase();
  broadcast.per_channel = 0;
  ExpectSizeChecks("layernorm broadcast", LayerNormCase(broadcast));
  ExpectSizeChecks("requantize", RequantizeCase(RequantizeBase()));
  ExpectSizeChecks("quantize", QuantizeCase(QuantizeBase()));
  ExpectSizeChecks("dequantize", DequantizeCase(DequantizeBase()));
  ExpectSizeChecks("f32_unary", F32UnaryCase(F32UnaryBase()));
  ExpectSizeChecks("f32_binary", F32BinaryCase(F32BinaryBase()));
  ExpectSizeChecks("f32_cumsum", F32CumsumCase(F32CumsumBase()));
  ExpectSizeChecks("f32_conv", F32ConvCase(F32ConvBase()));
  ExpectSizeChecks("f32_dwconv", F32DwconvCase(F32DwconvBase()));
  ExpectSizeChecks("f32_fc", F32FcCase(F32FcBase()));
  ExpectSizeChecks("f32_avgpool", F32AvgpoolCase(F32PoolBase()));
  ExpectSizeChecks("f32_maxpool", F32MaxpoolCase(F32PoolBase()));
  {  // float clamp order, depthwise channel multiple, window geometry
    f32_conv_params c = F32ConvBase();
    c.act_min = 7.0f;
    EXPECT_EQ(Load(F32ConvCase(c)), Status::kBadParams);
    f32_conv_params d = F32DwconvBase();
    d.out_c = 5;
    EXPECT_EQ(Load(F32DwconvCase(d)), Status::kBadParams);
    f32_conv_params g = F32ConvBase();
    g.out_h = 1;  // 5 rows, 3 taps: 1 output row would need bottom padding -2
    EXPECT_EQ(Load(F32ConvCase(g)), Status::kBadParams);
    f32_fc_params f = F32FcBase();
    f.act_max = -2.0f;
    EXPECT_EQ(Load(F32FcCase(f)), Status::kBadParams);
  }
  ExpectSizeChecks("pad", PadCase(PadBase()));
  ExpectSizeChecks("concat", ConcatCase(ConcatBase()));
  ExpectSizeChecks("transpose", TransposeCase(TransposeBase()));
  ExpectSizeChecks("slice", SliceCase(SliceBase()));
  ExpectSizeChecks("resize", ResizeCase(ResizeBase()));
}

TEST(Validator, ScratchAndLineBufferSizes) {
  // s8_conv__scalar asks for 5 * k_h * k_w * in_c + 4 bytes of scratch.
  const s8_conv_params p = ConvBase();
  OpCase c = ConvCase(p);
  c.kernel = KernelId("s8_conv__scalar");
  c.operands[6] = Scratch(5 * 3 * 3 * 2 + 4);
  ExpectSizeChecks("conv scratch", c);
  c.operands[6].elements = 0;
  EXPECT_EQ(Load(c), Status::kBadParams) << "conv__scalar without its scratch";
  // fc__scalar: 4 * in_features + 4.
  OpCase f = FcCase(FcBase());
  f.kernel = KernelId("s8_fc__scalar");
  f.operands[6] = Scratch(4 * 5 + 4);
  ExpectSizeChecks("fc scratch", f);
  f.operands[6].elements = 0;
  EXPECT_EQ(Load(f), Status::kBadParams) << "fc__scalar without its scratch";
  // bmm__scalar: the rhs transposed (20 bytes, + 4) and two widened lhs rows (4 * 5 + 4).
  OpCase m = BmmCase(BmmBase());
  m.kernel = KernelId("s8_bmm__scalar");
  m.operands[3] = Scratch(24 + 24);
  ExpectSizeChecks("bmm scratch", m);
  m.operands[3].elements = 0;
  EXPECT_EQ(Load(m), Status::kBadParams) << "bmm__scalar without its scratch";
  // softmax__scalar: the exp table (1 KB) from kSoftmaxTableMinScalar elements on, else none.
  s8_softmax_params sp = SoftmaxBase();
  sp.rows = 32, sp.depth = 32;  // 1,024 elements
  OpCase t = SoftmaxCase(sp);
  t.kernel = KernelId("s8_softmax__scalar");
  t.operands[2] = Scratch(1024);
  ExpectSizeChecks("softmax table", t);
  t.operands[2].elements = 0;
  EXPECT_EQ(Load(t), Status::kBadParams) << "softmax__scalar without its table";
  OpCase small = SoftmaxCase(SoftmaxBase());
  small.kernel = KernelId("s8_softmax__scalar");
  EXPECT_EQ(Load(small), Status::kOk) << "softmax__scalar on 10 elements needs no table";
  // Streamed ops: the line buffer holds at least one output row (out_w * channels bytes).
  OpCase s = ConvCase(p);
  s.flags = fmt::kOpFlagStream;
  s.operands.push_back(Scratch(2 * 4));
  ExpectSizeChecks("conv streamed", s);
  OpCase d = DwconvCase(DwconvBase());
  d.flags = fmt::kOpFlagStream;
  d.operands.push_back(Scratch(2 * 4));
  ExpectSizeChecks("dwconv streamed", d);
  s8_pool_params pp = PoolBase();
  pp.in_h = 4, pp.out_h = 2, pp.filter_h = 2, pp.stride_h = 2;
  for (const char* k : {"s8_avgpool__ref", "s8_maxpool__ref"}) {
    OpCase q = PoolCaseOf(k, pp);
    q.flags = fmt::kOpFlagStream;
    q.operands.push_back(Scratch(1 * 2));
    ExpectSizeChecks(k, q);
  }
}

TEST(Validator, BroadcastShapeReachesIntoInputs) {
  // add, mul, sub, squared_difference, maximum, minimum, prelu: one shape check.
  for (int kind = 0; kind < 7; ++kind) {
    auto make = [&](const s8_broadcast_shape& s, int64_t n1, int64_t n2, int64_t n_out) {
      OpCase c;
      if (kind == 6) {
        s8_prelu_params p = PreluBase();
        p.shape = s;
        c = PreluCase(p);
      } else if (kind == 1) {
        s8_mul_params p = MulBase();
        p.shape = s;
        c = MulCase(p);
      } else if (kind >= 4) {
        c = (kind == 4 ? MaximumCase : MinimumCase)(s8_minmax_params{s});
      } else {
        s8_add_params p = kind == 3 ? SquaredDifferenceBase() : AddBase();
        p.shape = s;
        c = kind == 0 ? AddCase(p) : kind == 2 ? SubCase(p) : SquaredDifferenceCase(p);
      }
      c.operands = {Broadcast(n1), Broadcast(n2), Out(n_out)};
      return c;
    };
    // Input 2 broadcast over 6 rows of 8: it must hold 8 bytes, input 1 48.
    const s8_broadcast_shape rows = {{1, 1, 1, 1, 6, 8}, {0, 0, 0, 0, 8, 1}, {0, 0, 0, 0, 0, 1}};
    EXPECT_EQ(Load(make(rows, 48, 8, 48)), Status::kOk);
    EXPECT_EQ(Load(make(rows, 47, 8, 48)), Status::kBadParams);
    EXPECT_EQ(Load(make(rows, 48, 7, 48)), Status::kBadParams);
    EXPECT_EQ(Load(make(rows, 48, 8, 47)), Status::kBadParams);
    EXPECT_EQ(Load(make(rows, 48, 8, 49)), Status::kBadParams);
    EXPECT_EQ(Load(make(rows, 49, 9, 48)), Status::kOk) << "inputs larger than read";
    s8_broadcast_shape bad = rows;
    bad.out_dims[0] = 0;
    EXPECT_EQ(Load(make(bad, 48, 8, 48)), Status::kBadParams) << "out_dims 0";
    bad = rows;
    bad.out_dims[5] = TF_LIMIT_DIM + 1;
    EXPECT_EQ(Load(make(bad, 48, 8, 48)), Status::kBadParams) << "out_dims past the limit";
    bad = rows;
    bad.in2_strides[4] = -1;
    EXPECT_EQ(Load(make(bad, 48, 8, 48)), Status::kBadParams) << "negative stride";
    bad = rows;
    bad.in1_strides[4] = INT32_MAX;
    EXPECT_EQ(Load(make(bad, 48, 8, 48)), Status::kBadParams) << "stride reach past int32";
  }
}

TEST(Validator, RequantizationShiftArrays) {
  // Per-channel shifts are read from the program: each must lie in [-31, 30].
  for (int32_t shift : {-32, -31, 30, 31}) {
    const Status want = shift >= TF_LIMIT_SHIFT_MIN && shift <= TF_LIMIT_SHIFT_MAX
                            ? Status::kOk
                            : Status::kBadParams;
    for (OpCase c : {ConvCase(ConvBase()), DwconvCase(DwconvBase()), FcCase(FcBase())}) {
      c.operands[4].value = shift;  // the shift array (every channel)
      EXPECT_EQ(Load(c), want) << "kernel id " << c.kernel << " shift " << shift;
    }
  }
}

// ---- Ranges ----------------------------------------------------------------------------

// Geometry and quantization fields every convolution struct has. A window dim or stride at
// its limit alone no longer fits the baseline's input/output sizes (the window geometry
// check, runtime/src/op_checks.cc, tested by Consistency.* in lifetime_test.cc): those
// limits are checked on s8_*_check only.
template <class P>
std::vector<Range<P>> ConvRanges() {
  return {
      {TF_FIELD(P, rounding), 0, 1, true, true},
      {TF_FIELD(P, batches), 1, TF_LIMIT_DIM, true, false},
      {TF_FIELD(P, in_h), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, in_w), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, out_h), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, out_w), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, k_h), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, k_w), 1, TF_LIMIT_DIM, false, false},
      {TF_FIELD(P, stride_h), 1, TF_LIMIT_STRIDE, true, false},
      {TF_FIELD(P, stride_w), 1, TF_LIMIT_STRIDE, true, false},
      {TF_FIELD(P, dilation_h), 1, TF_LIMIT_STRIDE, true, true},
      {TF_FIELD(P, dilation_w), 1, TF_LIMIT_STRIDE, true, true},
      {TF_FIELD(P, pad_top), 0, TF_LIMIT_STRIDE, true, false},
      {TF_FIELD(P, pad_left), 0, TF_LIMIT_STRIDE, true, false},
      {TF_FIELD(P, input_offset), -127, 128, true, true},
      {TF_FIELD(P, output_offset), -128, 127, true, true},
      {TF_FIELD(P, act_min), -128, 127, true, true},
      {TF_FIELD(P, act_max), -128, 127, true, true, [](P& p) { p.act_min = -128; }},
  };
}

TEST(Validator, ConvRanges) {
  auto r = ConvRanges<s8_conv_params>();
  // in_c / filter_in_c: one group (in_c == filter_in_c); a dim at the limit needs both.
  r.push_back({TF_FIELD(s8_conv_params, in_c), 2, 2, true, true});
  r.push_back({TF_FIELD(s8_conv_params, filter_in_c), 1, 2, true, true});  // 2 or 1 groups
  r.push_back({TF_FIELD(s8_conv_params, out_c), 1, TF_LIMIT_DIM, false, false,
               [](s8_conv_params& p) { p.filter_in_c = p.in_c = 1; }});
  ExpectRanges<s8_conv_params>("conv", ConvBase(), s8_conv_check, ConvCase, r);
  // Groups must divide in_c and out_c.
  s8_conv_params g = ConvBase();
  g.in_c = 4, g.filter_in_c = 2, g.out_c = 3;
  EXPECT_NE(s8_conv_check(g), nullptr);
  g.out_c = 4;
  EXPECT_EQ(s8_conv_check(g), nullptr);
  g.filter_in_c = 3;
  EXPECT_NE(s8_conv_check(g), nullptr);
  // The largest window position must fit int32.
  g = ConvBase();
  g.out_h = 32768, g.stride_h = 65536;
  EXPECT_NE(s8_conv_check(g), nullptr);
  g.out_h = 32767, g.k_h = 1;
  EXPECT_EQ(s8_conv_check(g), nullptr);
}

TEST(Validator, DwconvRanges) {
  auto r = ConvRanges<s8_dwconv_params>();
  r.push_back({TF_FIELD(s8_dwconv_params, depth_multiplier), 2, 2, true, true});
  r.push_back({TF_FIELD(s8_dwconv_params, in_c), 2, 2, true, true});
  r.push_back({TF_FIELD(s8_dwconv_params, out_c), 4, 4, true, true});
  ExpectRanges<s8_dwconv_params>("dwconv", DwconvBase(), s8_dwconv_check, DwconvCase, r);
  s8_dwconv_params p = DwconvBase();
  p.depth_multiplier = 0;
  EXPECT_NE(s8_dwconv_check(p), nullptr);
  p.depth_multiplier = TF_LIMIT_DIM + 1;
  EXPECT_NE(s8_dwconv_check(p), nullptr);
  p = DwconvBase();
  p.in_c = TF_LIMIT_DIM / 2, p.out_c = TF_LIMIT_DIM;
  EXPECT_EQ(s8_dwconv_check(p), nullptr);
}

TEST(Validator, FcRanges) {
  using P = s8_fc_params;
  ExpectRanges<P>("fc", FcBase(), s8_fc_check, FcCase,
                  {{TF_FIELD(P, rounding), 0, 1, true, true},
                   {TF_FIELD(P, batches), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(P, in_features), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(P, out_features), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(P, per_channel), 0, 1, true, true},
                   {TF_FIELD(P, input_offset), -127, 128, true, true},
                   {TF_FIELD(P, output_offset), -128, 127, true, true},
                   {TF_FIELD(P, act_min), -128, 127, true, true},
                   {TF_FIELD(P, act_max), -128, 127, true, true, [](P& p) { p.act_min = -128; }}});
}

TEST(Validator, BmmRanges) {
  using P = s8_bmm_params;
  auto all_batches = [](P& p) { p.batches = TF_LIMIT_DIM; };
  ExpectRanges<P>("bmm", BmmBase(), s8_bmm_check, BmmCase,
                  {{TF_FIELD(P, rounding), 0, 1, true, true},
                   {TF_FIELD(P, batches), 1, TF_LIMIT_DIM, true, false,
                    [](P& p) { p.lhs_batches = 1; }},
                   {TF_FIELD(P, lhs_batches), 1, TF_LIMIT_DIM, false, false, all_batches},
                   {TF_FIELD(P, rhs_batches), 1, TF_LIMIT_DIM, false, false, all_batches},
                   {TF_FIELD(P, rows), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(P, depth), 1, TF_LIMIT_BMM_DEPTH, true, false},
                   {TF_FIELD(P, cols), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(P, lhs_transposed), 0, 1, true, true},
                   {TF_FIELD(P, rhs_transposed), 0, 1, true, true},
                   {TF_FIELD(P, lhs_offset), -127, 128, true, true},
                   {TF_FIELD(P, rhs_offset), -127, 128, true, true},
                   {TF_FIELD(P, output_offset), -128, 127, true, true},
                   {TF_FIELD(P, multiplier), 0, INT32_MAX, true, true},
                   {TF_FIELD(P, shift), TF_LIMIT_SHIFT_MIN, TF_LIMIT_SHIFT_MAX, true, true},
                   {TF_FIELD(P, act_min), -128, 127, true, true},
                   {TF_FIELD(P, act_max), -128, 127, true, true, [](P& p) { p.act_min = -128; }}});
  // An operand's batch count divides the output's (batch b reads b % count).
  for (bool lhs : {true, false}) {
    P p = BmmBase();
    p.batches = 4;
    (lhs ? p.lhs_batches : p.rhs_batches) = 3;
    ASSERT_NE(s8_bmm_check(p), nullptr);
    EXPECT_NE(std::string(s8_bmm_check(p)).find(lhs ? "lhs_batches" : "rhs_batches"),
              std::string::npos);
    EXPECT_EQ(Load(BmmCase(p)), Status::kBadParams);
    (lhs ? p.lhs_batches : p.rhs_batches) = 2;
    EXPECT_EQ(s8_bmm_check(p), nullptr);
    EXPECT_EQ(Load(BmmCase(p)), Status::kOk);
  }
}

std::vector<Range<s8_pool_params>> PoolRanges() {
  using P = s8_pool_params;
  // A pad at the limit needs a filter past it (every window covers an input pixel).
  auto wide = [](P& p) { p.filter_h = p.filter_w = TF_LIMIT_STRIDE + 2; };
  // An output extent at the limit needs an input as large (stride 1).
  auto big = [](P& p) { p.in_h = p.in_w = TF_LIMIT_DIM; };
  return {{TF_FIELD(P, batches), 1, TF_LIMIT_DIM, true, false},
          {TF_FIELD(P, in_h), 1, TF_LIMIT_DIM, true, false},
          {TF_FIELD(P, in_w), 1, TF_LIMIT_DIM, true, false},
          {TF_FIELD(P, channels), 1, TF_LIMIT_DIM, true, false},
          {TF_FIELD(P, out_h), 1, TF_LIMIT_DIM, false, false, big},
          {TF_FIELD(P, out_w), 1, TF_LIMIT_DIM, false, false, big},
          {TF_FIELD(P, filter_h), 1, TF_LIMIT_DIM, false, false},  // geometry: op_checks
          {TF_FIELD(P, filter_w), 1, TF_LIMIT_DIM, false, false},
          {TF_FIELD(P, stride_h), 1, TF_LIMIT_STRIDE, true, true},
          {TF_FIELD(P, stride_w), 1, TF_LIMIT_STRIDE, true, true},
          {TF_FIELD(P, pad_top), 0, TF_LIMIT_STRIDE, true, false, wide},
          {TF_FIELD(P, pad_left), 0, TF_LIMIT_STRIDE, true, false, wide},
          {TF_FIELD(P, act_min), -128, 127, true, true},
          {TF_FIELD(P, act_max), -128, 127, true, true, [](P& p) { p.act_min = -128; }}};
}

// Every window covers at least one input pixel (through the runtime; `base`: 3x3 input,
// 3x3 filter, stride 1): the int8 and float pools share the check (window_limits.h).
template <class P>
void ExpectPoolWindows(const P& base, OpCase (*make)(const P&)) {
  P p = base;
  p.pad_top = 2, p.out_h = 3;  // == filter_h - 1: the first window still reaches row 0
  EXPECT_EQ(Load(make(p)), Status::kOk);
  p.pad_top = 3;  // == filter_h: a window of padding only
  EXPECT_EQ(Load(make(p)), Status::kBadParams);
  p = base;
  p.pad_left = 3;
  EXPECT_EQ(Load(make(p)), Status::kBadParams);
  p = base;
  p.filter_h = 1, p.out_h = 3;  // the last window starts on the last row
  EXPECT_EQ(Load(make(p)), Status::kOk);
  p.out_h = 4;  // one more: below the input
  EXPECT_EQ(Load(make(p)), Status::kBadParams);
  p = base;
  p.filter_w = 1, p.out_w = 3;
  EXPECT_EQ(Load(make(p)), Status::kOk);
  p.out_w = 4;
  EXPECT_EQ(Load(make(p)), Status::kBadParams);
}

TEST(Validator, PoolRanges) {
  ExpectRanges<s8_pool_params>("avgpool", PoolBase(), s8_pool_check, AvgpoolCase, PoolRanges());
  ExpectRanges<s8_pool_params>("maxpool", PoolBase(), s8_pool_check, MaxpoolCase, PoolRanges());
  ExpectPoolWindows(PoolBase(), AvgpoolCase);
  ExpectPoolWindows(PoolBase(), MaxpoolCase);
}

// The float pools share the int8 pools' geometry check (kernels/common/window_limits.h).
TEST(Validator, F32PoolWindows) {
  EXPECT_EQ(Load(F32AvgpoolCase(F32PoolBase())), Status::kOk);
  ExpectPoolWindows(F32PoolBase(), F32AvgpoolCase);
  ExpectPoolWindows(F32PoolBase(), F32MaxpoolCase);
  f32_conv_params c = F32ConvBase();  // the convolutions' stride limit is the int8 one's
  c.stride_h = TF_LIMIT_STRIDE + 1;
  EXPECT_NE(f32_conv_check(c), nullptr);
}

TEST(Validator, AddMulRanges) {
  using A = s8_add_params;
  ExpectRanges<A>("add", AddBase(), s8_add_check, AddCase,
                  {{TF_FIELD(A, rounding), 0, 1, true, true},
                   {TF_FIELD(A, input1_offset), -128, 128, true, true},
                   {TF_FIELD(A, input2_offset), -128, 128, true, true},
                   {TF_FIELD(A, left_shift), 0, 20, true, true},
                   {TF_FIELD(A, input1_shift), -31, 0, true, true},
                   {TF_FIELD(A, input2_shift), -31, 0, true, true},
                   {TF_FIELD(A, output_shift), -31, 0, true, true},
                   {TF_FIELD(A, output_offset), -128, 127, true, true},
                   {TF_FIELD(A, act_min), -128, 127, true, true},
                   {TF_FIELD(A, act_max), -128, 127, true, true, [](A& p) { p.act_min = -128; }}});
  using M = s8_mul_params;
  ExpectRanges<M>("mul", MulBase(), s8_mul_check, MulCase,
                  {{TF_FIELD(M, rounding), 0, 1, true, true},
                   {TF_FIELD(M, input1_offset), -128, 128, true, true},
                   {TF_FIELD(M, input2_offset), -128, 128, true, true},
                   {TF_FIELD(M, output_shift), -31, 30, true, true},
                   {TF_FIELD(M, output_offset), -128, 127, true, true},
                   {TF_FIELD(M, act_min), -128, 127, true, true},
                   {TF_FIELD(M, act_max), -128, 127, true, true, [](M& p) { p.act_min = -128; }}});
  using R = s8_prelu_params;
  ExpectRanges<R>("prelu", PreluBase(), s8_prelu_check, PreluCase,
                  {{TF_FIELD(R, rounding), 0, 1, true, true},
                   {TF_FIELD(R, input_offset), -128, 128, true, true},
                   {TF_FIELD(R, alpha_offset), -128, 128, true, true},
                   {TF_FIELD(R, output_shift_1), -31, 30, true, true},
                   {TF_FIELD(R, output_shift_2), -31, 30, true, true},
                   {TF_FIELD(R, output_offset), -128, 127, true, true}});
  // SUB: ADD's parameters and ranges.
  ExpectRanges<A>("sub", AddBase(), s8_add_check, SubCase,
                  {{TF_FIELD(A, rounding), 0, 1, true, true},
                   {TF_FIELD(A, input1_offset), -128, 128, true, true},
                   {TF_FIELD(A, input2_offset), -128, 128, true, true},
                   {TF_FIELD(A, left_shift), 0, 20, true, true},
                   {TF_FIELD(A, input1_shift), -31, 0, true, true},
                   {TF_FIELD(A, input2_shift), -31, 0, true, true},
                   {TF_FIELD(A, output_shift), -31, 0, true, true},
                   {TF_FIELD(A, output_offset), -128, 127, true, true},
                   {TF_FIELD(A, act_min), -128, 127, true, true},
                   {TF_FIELD(A, act_max), -128, 127, true, true, [](A& p) { p.act_min = -128; }}});
  // SQUARED_DIFFERENCE: left shift <= 7 ((a - b)^2 fits int32), output shift either sign.
  ExpectRanges<A>("squared_difference", SquaredDifferenceBase(), s8_squared_difference_check,
                  SquaredDifferenceCase,
                  {{TF_FIELD(A, rounding), 0, 1, true, true},
                   {TF_FIELD(A, input1_offset), -128, 128, true, true},
                   {TF_FIELD(A, input2_offset), -128, 128, true, true},
                   {TF_FIELD(A, left_shift), 0, 7, true, true},
                   {TF_FIELD(A, input1_shift), -31, 0, true, true},
                   {TF_FIELD(A, input2_shift), -31, 0, true, true},
                   {TF_FIELD(A, output_shift), -31, 30, true, true},
                   {TF_FIELD(A, output_offset), -128, 127, true, true},
                   {TF_FIELD(A, act_min), -128, 127, true, true},
                   {TF_FIELD(A, act_max), -128, 127, true, true, [](A& p) { p.act_min = -128; }}});
}

TEST(Validator, ActivationRanges) {
  using S = s8_softmax_params;
  ExpectRanges<S>("softmax", SoftmaxBase(), s8_softmax_check, SoftmaxCase,
                  {{TF_FIELD(S, rows), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(S, depth), 1, (1 << 19) - 1, true, false},
                   // the runtime also requires diff_min to be the shift's (op_checks):
                   // shift and diff_min move together, so their limits are the check's
                   {TF_FIELD(S, input_left_shift), 0, 31, false, false,
                    [](S& p) { p.diff_min = 0; }},
                   {TF_FIELD(S, diff_min), INT32_MIN, 0, false, false}});
  using L = s8_logistic_params;
  ExpectRanges<L>("logistic", LogisticBase(), s8_logistic_check, LogisticCase,
                  {{TF_FIELD(L, size), 1, TF_LIMIT_BYTES, true, false},
                   {TF_FIELD(L, input_zero_point), -128, 127, true, true},
                   {TF_FIELD(L, input_range_radius), 0, TF_LIMIT_BYTES, true, true},
                   {TF_FIELD(L, input_left_shift), -31, 30, true, true}});
  using U = s8_lut_params;
  ExpectRanges<U>("lut", LutBase(), s8_lut_check, LutCase,
                  {{TF_FIELD(U, size), 1, TF_LIMIT_BYTES, true, false}});
  using M = s8_lstm_params;
  ExpectRanges<M>("lstm", LstmBase(), s8_lstm_check, LstmCase,
                  {{TF_FIELD(M, steps), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(M, in_features), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(M, units), 1, TF_LIMIT_LSTM_UNITS, true, false},
                   {"gate_shift[3]", [](M& p, int64_t v) { p.gate_shift[3] = static_cast<int32_t>(v); },
                    -31, 30, true, true},
                   {TF_FIELD(M, hidden_shift), -31, 30, true, true},
                   {TF_FIELD(M, hidden_offset), -128, 127, true, true},
                   {TF_FIELD(M, hidden_init), -128, 127, true, true},
                   {TF_FIELD(M, cell_log2), -15, -9, true, true},
                   {TF_FIELD(M, cell_clip), 0, 32767, true, true}});
  using N = s8_layernorm_params;
  ExpectRanges<N>("layernorm", LayerNormBase(), s8_layernorm_check, LayerNormCase,
                  {{TF_FIELD(N, rows), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(N, depth), 1, TF_LIMIT_LAYERNORM_DEPTH, true, false},
                   {TF_FIELD(N, rms), 0, 1, true, true},
                   {TF_FIELD(N, input_zero_point), -128, 127, true, true},
                   {TF_FIELD(N, eps_hi), 0, (1 << 30) - 1, true, true},
                   {TF_FIELD(N, scale_exp), -32, 32, true, true},
                   {TF_FIELD(N, per_channel), 0, 1, true, true}});
  using T = s8_tanh_params;
  ExpectRanges<T>("tanh", TanhBase(), s8_tanh_check, TanhCase,
                  {{TF_FIELD(T, size), 1, TF_LIMIT_BYTES, true, false},
                   {TF_FIELD(T, input_zero_point), -128, 127, true, true},
                   {TF_FIELD(T, input_range_radius), 0, TF_LIMIT_BYTES, true, true},
                   {TF_FIELD(T, input_left_shift), -31, 30, true, true}});
}

TEST(Validator, ResizeRangesAndTable) {
  using R = s8_resize_params;
  ExpectRanges<R>("resize", ResizeBase(), s8_resize_check, ResizeCase,
                  {{TF_FIELD(R, batches), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, input_h), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, input_w), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, channels), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, output_h), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, output_w), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, bilinear), 0, 1, true, true}});
  // The table's values (every entry `value` here): indices inside the input (2 x 3).
  OpCase c = ResizeCase(ResizeBase());
  c.operands[1].value = 1;
  EXPECT_EQ(Load(c), Status::kOk);
  c.operands[1].value = 2;  // row 2 of a 2-row input
  EXPECT_EQ(Load(c), Status::kBadParams);
  c.operands[1].value = -1;
  EXPECT_EQ(Load(c), Status::kBadParams);
  // Weights in [0, 1024], each entry on its own (the check the validator runs).
  const R p = ResizeBase();
  std::vector<int32_t> t(static_cast<size_t>(s8_resize_table_entries(p)), 0);
  EXPECT_EQ(s8_resize_check_table(p, t.data()), nullptr);
  for (size_t i = 2; i < t.size(); i += 3) {
    for (int32_t w : {-1, 1025}) {
      t[i] = w;
      ASSERT_NE(s8_resize_check_table(p, t.data()), nullptr) << i << " " << w;
      EXPECT_NE(std::string(s8_resize_check_table(p, t.data())).find("weight"), std::string::npos);
    }
    t[i] = 1024;
    EXPECT_EQ(s8_resize_check_table(p, t.data()), nullptr);
  }
  // Column indices against input_w (3), row indices against input_h (2).
  t.assign(t.size(), 0);
  t[3 * p.output_h + 1] = 2;
  EXPECT_EQ(s8_resize_check_table(p, t.data()), nullptr);
  t[1] = 2;
  EXPECT_NE(s8_resize_check_table(p, t.data()), nullptr);
}

TEST(Validator, TransposeRanges) {
  using T = s8_transpose_params;
  std::vector<Range<T>> dims;
  for (int i = 0; i < kS8TransposeMaxDims; ++i) {
    dims.push_back({"input_dims[i]",
                    [i](T& p, int64_t v) { p.input_dims[i] = static_cast<int32_t>(v); }, 1,
                    TF_LIMIT_DIM, true, false});
  }
  ExpectRanges<T>("transpose", TransposeBase(), s8_transpose_check, TransposeCase, dims);
  // perm: every entry in [0, 5] and each dim once; the runtime refuses the program otherwise.
  const T bad[] = {{{1, 1, 1, 2, 3, 4}, {0, 1, 2, 5, 3, 3}},   // 3 twice, 4 missing
                   {{1, 1, 1, 2, 3, 4}, {0, 1, 2, 5, 3, 6}},   // out of range
                   {{1, 1, 1, 2, 3, 4}, {-1, 1, 2, 5, 3, 4}}};  // negative
  for (const T& p : bad) {
    ASSERT_NE(s8_transpose_check(p), nullptr);
    EXPECT_NE(std::string(s8_transpose_check(p)).find("perm"), std::string::npos);
    EXPECT_EQ(Load(TransposeCase(p)), Status::kBadParams);
  }
  T reversed = TransposeBase();
  for (int i = 0; i < kS8TransposeMaxDims; ++i) reversed.perm[i] = kS8TransposeMaxDims - 1 - i;
  EXPECT_EQ(s8_transpose_check(reversed), nullptr);
  EXPECT_EQ(Load(TransposeCase(reversed)), Status::kOk);
}

TEST(Validator, GatherRangesAndConstantIndices) {
  using G = s8_gather_params;
  ExpectRanges<G>("gather", GatherBase(), s8_gather_check, GatherCase,
                  {{TF_FIELD(G, outer), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(G, axis_size), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(G, count), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(G, inner), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(G, wrap_negative), 0, 1, true, true}});
  // Constant indices are checked at load: every value in [0, axis_size).
  OpCase c = GatherCase(GatherBase());
  c.operands[1].constant = true;
  for (int32_t v : {0, 4}) {
    c.operands[1].value = v;
    EXPECT_EQ(Load(c), Status::kOk) << "constant index " << v;
  }
  for (int32_t v : {-1, 5}) {
    c.operands[1].value = v;
    EXPECT_EQ(Load(c), Status::kBadParams) << "constant index " << v;
  }
  // With wrap_negative: [-axis_size, axis_size).
  G wrap = GatherBase();
  wrap.wrap_negative = 1;
  OpCase w = GatherCase(wrap);
  w.operands[1].constant = true;
  for (int32_t v : {-5, -1, 4}) {
    w.operands[1].value = v;
    EXPECT_EQ(Load(w), Status::kOk) << "wrapped constant index " << v;
  }
  for (int32_t v : {-6, 5}) {
    w.operands[1].value = v;
    EXPECT_EQ(Load(w), Status::kBadParams) << "wrapped constant index " << v;
  }
}

TEST(Validator, ArgmaxRanges) {
  using A = s8_argmax_params;
  ExpectRanges<A>("argmax", ArgmaxBase(), s8_argmax_check, ArgmaxCase,
                  {{TF_FIELD(A, outer), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(A, axis_size), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(A, inner), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(A, is_min), 0, 1, true, true}});
  // The output must be int32 even when its byte count matches.
  OpCase c = ArgmaxCase(ArgmaxBase());
  c.operands[1] = Out(2 * 3 * 4);
  EXPECT_EQ(Load(c), Status::kBadParams) << "int8 output of argmax";
  c = ArgmaxCase(ArgmaxBase());
  c.operands[1].dtype = fmt::kFloat32;
  EXPECT_EQ(Load(c), Status::kBadParams) << "float32 output of argmax";
}

TEST(Validator, SliceRanges) {
  using S = s8_slice_params;
  std::vector<Range<S>> r;
  for (int i = 0; i < 3; ++i) {  // the unused leading dims: every field at its limits
    r.push_back({"input_dims[i]", [i](S& p, int64_t v) { p.input_dims[i] = static_cast<int32_t>(v); },
                 1, TF_LIMIT_DIM, true, false});
    r.push_back({"stride[i]", [i](S& p, int64_t v) { p.stride[i] = static_cast<int32_t>(v); }, 1,
                 TF_LIMIT_DIM, true, true});
  }
  ExpectRanges<S>("slice", SliceBase(), s8_slice_check, SliceCase, r);
  // The last element read must lie inside the input: begin, output dims and stride.
  const auto reads_past = [](void (*edit)(S&)) {
    S p = SliceBase();
    edit(p);
    return p;
  };
  const S bad[] = {reads_past([](S& p) { p.begin[5] = 2; }),        // 2 + 1 * 3 = 5 < 6: ok
                   reads_past([](S& p) { p.begin[5] = 3; }),        // 3 + 3 = 6: past
                   reads_past([](S& p) { p.output_dims[4] = 4; }),  // 0 + 3 * 2 = 6 > 4
                   reads_past([](S& p) { p.stride[3] = 4; }),       // 1 + 4 = 5 > 3
                   reads_past([](S& p) { p.begin[3] = -1; })};
  EXPECT_EQ(s8_slice_check(bad[0]), nullptr);
  EXPECT_EQ(Load(SliceCase(bad[0])), Status::kOk);
  for (size_t k = 1; k < sizeof bad / sizeof bad[0]; ++k) {
    EXPECT_NE(s8_slice_check(bad[k]), nullptr) << k;
    EXPECT_EQ(Load(SliceCase(bad[k])), Status::kBadParams) << k;
  }
}

TEST(Validator, MeanPadConcatRanges) {
  using M = s8_mean_params;
  ExpectRanges<M>("mean", MeanBase(), s8_mean_check, MeanCase,
                  {{TF_FIELD(M, rounding), 0, 1, true, true},
                   {TF_FIELD(M, outer), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(M, reduce_size), 1, 1 << 23, true, false},
                   {TF_FIELD(M, inner), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(M, input_zero_point), -128, 127, true, true},
                   {TF_FIELD(M, output_zero_point), -128, 127, true, true},
                   {TF_FIELD(M, shift), -31, 30, true, true}});
  using R = s8_reduce_max_params;
  ExpectRanges<R>("reduce_max", ReduceMaxBase(), s8_reduce_max_check, ReduceMaxCase,
                  {{TF_FIELD(R, outer), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, reduce_size), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(R, inner), 1, TF_LIMIT_DIM, true, false}});
  using P = s8_pad_params;
  std::vector<Range<P>> pad;
  for (int i = 0; i < kS8PadMaxDims; ++i) {
    pad.push_back({"input_dims[i]", [i](P& p, int64_t v) { p.input_dims[i] = static_cast<int32_t>(v); },
                   1, TF_LIMIT_DIM, true, false});
    pad.push_back({"pad_before[i]", [i](P& p, int64_t v) { p.pad_before[i] = static_cast<int32_t>(v); },
                   0, TF_LIMIT_DIM, true, false});
    pad.push_back({"pad_after[i]", [i](P& p, int64_t v) { p.pad_after[i] = static_cast<int32_t>(v); },
                   0, TF_LIMIT_DIM, true, false});
  }
  pad.push_back({TF_FIELD(P, pad_value), -128, 127, true, true});
  ExpectRanges<P>("pad", PadBase(), s8_pad_check, PadCase, pad);

  using C = ConcatSpec;
  auto check = [](const C& c) -> const char* {
    if (const char* why = s8_concat_check(c.p)) return why;
    for (const s8_concat_input& in : c.in) {
      if (const char* why = s8_concat_input_check(in)) return why;
    }
    return nullptr;
  };
  std::vector<Range<C>> concat = {
      {"rounding", [](C& c, int64_t v) { c.p.rounding = static_cast<int32_t>(v); }, 0, 1, true, true},
      {"outer", [](C& c, int64_t v) { c.p.outer = static_cast<int32_t>(v); }, 1, TF_LIMIT_DIM, true,
       false},
      {"output_zero_point", [](C& c, int64_t v) { c.p.output_zero_point = static_cast<int32_t>(v); },
       -128, 127, true, true}};
  for (int k = 0; k < 2; ++k) {
    concat.push_back({"axis_inner", [k](C& c, int64_t v) { c.in[k].axis_inner = static_cast<int32_t>(v); },
                      1, TF_LIMIT_DIM, true, false});
    concat.push_back({"requantize", [k](C& c, int64_t v) { c.in[k].requantize = static_cast<int32_t>(v); },
                      0, 1, true, true});
    concat.push_back({"input_zero_point",
                      [k](C& c, int64_t v) { c.in[k].input_zero_point = static_cast<int32_t>(v); },
                      -128, 127, true, true});
    concat.push_back({"shift", [k](C& c, int64_t v) { c.in[k].shift = static_cast<int32_t>(v); },
                      -31, 30, true, true});
  }
  ExpectRanges<C>("concat", ConcatBase(), +check, ConcatCase, concat);
  // num_inputs: the check's own bounds (the runtime then also needs that many operands).
  s8_concat_params p = ConcatBase().p;
  for (int32_t n : {0, TF_LIMIT_CONCAT_INPUTS + 1}) {
    p.num_inputs = n;
    EXPECT_NE(s8_concat_check(p), nullptr) << n;
  }
  for (int32_t n : {1, TF_LIMIT_CONCAT_INPUTS}) {
    p.num_inputs = n;
    EXPECT_EQ(s8_concat_check(p), nullptr) << n;
  }
}

TEST(Validator, QuantizeRanges) {
  using R = s8_requantize_params;
  ExpectRanges<R>("requantize", RequantizeBase(), s8_requantize_check, RequantizeCase,
                  {{TF_FIELD(R, rounding), 0, 1, true, true},
                   {TF_FIELD(R, size), 1, TF_LIMIT_BYTES, true, false},
                   {TF_FIELD(R, input_zero_point), -128, 127, true, true},
                   {TF_FIELD(R, output_zero_point), -128, 127, true, true},
                   {TF_FIELD(R, shift), -31, 30, true, true},
                   {TF_FIELD(R, act_min), -128, 127, true, true},
                   {TF_FIELD(R, act_max), -128, 127, true, true, [](R& p) { p.act_min = -128; }}});
  using Q = s8_quantize_params;
  ExpectRanges<Q>("quantize", QuantizeBase(), s8_quantize_check, QuantizeCase,
                  {{TF_FIELD(Q, size), 1, TF_LIMIT_BYTES / 4, true, false},
                   {TF_FIELD(Q, zero_point), -128, 127, true, true}});
  // The float fallback: a function code of the right arity, sizes in range.
  for (int32_t fn = -1; fn <= kF32NumFns; ++fn) {
    f32_unary_params u = F32UnaryBase();
    u.fn = fn;
    f32_binary_params b = F32BinaryBase();
    b.fn = fn;
    const int32_t arity = f32_fn_arity(fn);
    EXPECT_EQ(Load(F32UnaryCase(u)), arity == 1 ? Status::kOk : Status::kBadParams) << fn;
    EXPECT_EQ(Load(F32BinaryCase(b)), arity == 2 ? Status::kOk : Status::kBadParams) << fn;
  }
  using C = f32_cumsum_params;
  ExpectRanges<C>("f32_cumsum", F32CumsumBase(), f32_cumsum_check, F32CumsumCase,
                  {{TF_FIELD(C, outer), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](C& p) { p.length = p.inner = 1; }},
                   {TF_FIELD(C, length), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](C& p) { p.outer = p.inner = 1; }},
                   {TF_FIELD(C, inner), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](C& p) { p.outer = p.length = 1; }}});
  using D = s8_dequantize_params;
  ExpectRanges<D>("dequantize", DequantizeBase(), s8_dequantize_check, DequantizeCase,
                  {{TF_FIELD(D, size), 1, TF_LIMIT_BYTES / 4, true, false},
                   {TF_FIELD(D, zero_point), -128, 127, true, true}});
  // Scales: finite and > 0.
  const float limit = std::nextafter(3.4e38f, 0.0f);
  for (float scale : {0.0f, -1.0f, NAN, INFINITY, 3.4e38f, FLT_MIN, limit}) {
    const bool ok = scale == FLT_MIN || scale == limit;
    Q q = QuantizeBase();
    q.scale = scale;
    EXPECT_EQ(s8_quantize_check(q) == nullptr, ok) << scale;
    EXPECT_EQ(Load(QuantizeCase(q)), ok ? Status::kOk : Status::kBadParams) << scale;
    D d = DequantizeBase();
    d.scale = scale;
    EXPECT_EQ(s8_dequantize_check(d) == nullptr, ok) << scale;
    EXPECT_EQ(Load(DequantizeCase(d)), ok ? Status::kOk : Status::kBadParams) << scale;
  }
}

// ---- A float model's other ops (decision 68) -----------------------------------------

constexpr uint8_t kF32 = fmt::kFloat32;
int64_t Dim(int32_t d) { return d > 0 && d < 4096 ? d : 1; }
f32_reduce_params F32ReduceBase() { return {2, 3, 4, 1}; }
OpCase F32ReduceCase(const f32_reduce_params& p) {
  return {KernelId("f32_reduce__ref"),
          {In(Dim(p.outer) * Dim(p.length) * Dim(p.inner), kF32),
           Out(Dim(p.outer) * Dim(p.inner), kF32)},
          emit::EncodeParams(p)};
}
f32_softmax_params F32SoftmaxBase() { return {2, 3, 4}; }
OpCase F32SoftmaxCase(const f32_softmax_params& p) {
  const int64_t n = Dim(p.outer) * Dim(p.length) * Dim(p.inner);
  return {KernelId("f32_softmax__ref"), {In(n, kF32), Out(n, kF32)}, emit::EncodeParams(p)};
}
f32_argmax_params F32ArgmaxBase() { return {2, 3, 4, 0}; }
OpCase F32ArgmaxCase(const f32_argmax_params& p) {
  return {KernelId("f32_argmax__ref"),
          {In(Dim(p.outer) * Dim(p.axis_size) * Dim(p.inner), kF32),
           Out(Dim(p.outer) * Dim(p.inner), fmt::kInt32)},
          emit::EncodeParams(p)};
}
f32_layernorm_params F32LayerNormBase() { return {3, 4, 1e-5f, 0}; }
OpCase F32LayerNormCase(const f32_layernorm_params& p) {
  const int64_t d = Dim(p.depth);
  return {KernelId("f32_layernorm__ref"),
          {In(Dim(p.rows) * d, kF32), Const(d, kF32), Const(d, kF32), Out(Dim(p.rows) * d, kF32)},
          emit::EncodeParams(p)};
}
f32_bmm_params F32BmmBase() { return {2, 3, 4, 5, 0, 1}; }
OpCase F32BmmCase(const f32_bmm_params& p) {
  const int64_t n = Dim(p.batches), r = Dim(p.rows), k = Dim(p.depth), c = Dim(p.cols);
  return {KernelId("f32_bmm__ref"),
          {In((p.a_broadcast == 1 ? 1 : n) * r * k, kF32),
           In((p.b_broadcast == 1 ? 1 : n) * k * c, kF32), Out(n * r * c, kF32)},
          emit::EncodeParams(p)};
}

f32_resize_params F32ResizeBase() { return {1, 2, 3, 4, 4, 6}; }
// input, the coordinate table (int32 constant; every entry `value`, 0 by default), output.
OpCase F32ResizeCase(const f32_resize_params& p) {
  const int64_t b = Dim(p.batches), c = Dim(p.channels);
  return {KernelId("f32_resize__ref"),
          {In(b * Dim(p.input_h) * Dim(p.input_w) * c, kF32),
           Const(3 * (Dim(p.output_h) + Dim(p.output_w)), fmt::kInt32),
           Out(b * Dim(p.output_h) * Dim(p.output_w) * c, kF32)},
          emit::EncodeParams(p)};
}

// The data movement kinds on float32 operands: parameters in bytes (4 per element).
OpCase AsFloat(OpCase c) {
  for (Operand& o : c.operands) {
    if (o.elements > 0 && o.dtype == fmt::kInt8) o.dtype = kF32, o.elements /= 4;
  }
  return c;
}

TEST(Validator, FloatModelOps) {
  ExpectSizeChecks("f32_bmm", F32BmmCase(F32BmmBase()));
  ExpectSizeChecks("f32_reduce", F32ReduceCase(F32ReduceBase()));
  ExpectSizeChecks("f32_softmax", F32SoftmaxCase(F32SoftmaxBase()));
  ExpectSizeChecks("f32_argmax", F32ArgmaxCase(F32ArgmaxBase()));
  ExpectSizeChecks("f32_layernorm", F32LayerNormCase(F32LayerNormBase()));
  using R = f32_reduce_params;
  ExpectRanges<R>("f32_reduce", F32ReduceBase(), f32_reduce_check, F32ReduceCase,
                  {{TF_FIELD(R, outer), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](R& p) { p.length = p.inner = 1; }},
                   {TF_FIELD(R, length), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](R& p) { p.outer = p.inner = 1; }},
                   {TF_FIELD(R, inner), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](R& p) { p.outer = p.length = 1; }},
                   {TF_FIELD(R, op), 0, 2, true, true}});
  using S = f32_softmax_params;
  ExpectRanges<S>("f32_softmax", F32SoftmaxBase(), f32_softmax_check, F32SoftmaxCase,
                  {{TF_FIELD(S, length), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](S& p) { p.outer = p.inner = 1; }},
                   {TF_FIELD(S, inner), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](S& p) { p.outer = p.length = 1; }}});
  using A = f32_argmax_params;
  ExpectRanges<A>("f32_argmax", F32ArgmaxBase(), f32_argmax_check, F32ArgmaxCase,
                  {{TF_FIELD(A, axis_size), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](A& p) { p.outer = p.inner = 1; }},
                   {TF_FIELD(A, is_min), 0, 1, true, true}});
  using N = f32_layernorm_params;
  ExpectRanges<N>("f32_layernorm", F32LayerNormBase(), f32_layernorm_check, F32LayerNormCase,
                  {{TF_FIELD(N, rows), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](N& p) { p.depth = 1; }},
                   {TF_FIELD(N, depth), 1, TF_LIMIT_F32_ELEMENTS, true, false,
                    [](N& p) { p.rows = 1; }},
                   {TF_FIELD(N, rms), 0, 1, true, true}});
  for (float eps : {-1e-5f, NAN, INFINITY}) {
    N n = F32LayerNormBase();
    n.eps = eps;
    EXPECT_NE(f32_layernorm_check(n), nullptr) << eps;
    EXPECT_EQ(Load(F32LayerNormCase(n)), Status::kBadParams) << eps;
  }
  using B = f32_bmm_params;
  ExpectRanges<B>("f32_bmm", F32BmmBase(), f32_bmm_check, F32BmmCase,
                  {{TF_FIELD(B, batches), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(B, rows), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(B, depth), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(B, cols), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(B, a_broadcast), 0, 1, true, true},
                   {TF_FIELD(B, b_broadcast), 0, 1, true, true}});

  using Z = f32_resize_params;
  ExpectSizeChecks("f32_resize", F32ResizeCase(F32ResizeBase()));
  ExpectRanges<Z>("f32_resize", F32ResizeBase(), f32_resize_check, F32ResizeCase,
                  {{TF_FIELD(Z, batches), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(Z, input_h), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(Z, channels), 1, TF_LIMIT_DIM, true, false},
                   {TF_FIELD(Z, output_w), 1, TF_LIMIT_DIM, true, false}});
  // Every entry of the table is `value`: 1 is a row / column index and a (tiny) weight;
  // 2 is past the 2 input rows; -1 a negative index.
  for (int32_t v : {1, 2, -1}) {
    OpCase c = F32ResizeCase(F32ResizeBase());
    c.operands[1].value = v;
    EXPECT_EQ(Load(c), v == 1 ? Status::kOk : Status::kBadParams) << v;
  }
  f32_resize_params rp = F32ResizeBase();
  std::vector<int32_t> table(3 * (4 + 6), 0);
  EXPECT_EQ(f32_resize_check_table(rp, table.data()), nullptr);
  for (int32_t w : {0x3f800001, static_cast<int32_t>(0xbf800000u), 0x7fc00000}) {  // >1, -1, NaN
    table[5] = w;
    EXPECT_NE(f32_resize_check_table(rp, table.data()), nullptr) << w;
  }
  table[5] = 0x3f800000;  // 1.0
  EXPECT_EQ(f32_resize_check_table(rp, table.data()), nullptr);
  OpCase in_arena = F32ResizeCase(F32ResizeBase());  // a table that could change: refused
  in_arena.operands[1].constant = false;
  EXPECT_NE(Load(in_arena), Status::kOk);

  // Data movement of float32 tensors as bytes: whole elements, input and output alike.
  s8_transpose_params t = TransposeBase();  // [2, 3] floats -> [3, 2]: the bytes stay last
  const int32_t perm[6] = {0, 1, 2, 4, 3, 5};
  for (int i = 0; i < 6; ++i) t.perm[i] = perm[i];
  ExpectSizeChecks("transpose float32", AsFloat(TransposeCase(t)));
  s8_slice_params sl = SliceBase();
  sl.input_dims[5] = sl.output_dims[5] = 4, sl.begin[5] = 0, sl.stride[5] = 1;
  ExpectSizeChecks("slice float32", AsFloat(SliceCase(sl)));
  s8_pad_params pd = PadBase();
  pd.input_dims[4] = 4, pd.pad_before[4] = pd.pad_after[4] = 0;
  ExpectSizeChecks("pad float32", AsFloat(PadCase(pd)));
  pd.pad_value = 1;  // not +0.0 bytes
  EXPECT_EQ(Load(PadCase(pd)), Status::kOk);
  EXPECT_EQ(Load(AsFloat(PadCase(pd))), Status::kBadParams);
  s8_resize_params rs = ResizeBase();
  rs.channels = 8, rs.bilinear = 0;
  ExpectSizeChecks("resize float32", AsFloat(ResizeCase(rs)));
  rs.bilinear = 1;  // blends bytes: not for float32
  EXPECT_EQ(Load(ResizeCase(rs)), Status::kOk);
  EXPECT_EQ(Load(AsFloat(ResizeCase(rs))), Status::kBadParams);
  ConcatSpec cc = ConcatBase();
  cc.in[0].axis_inner = 4, cc.in[1].axis_inner = 8, cc.in[1].requantize = 0;
  ExpectSizeChecks("concat float32", AsFloat(ConcatCase(cc)));
  cc.in[1].requantize = 1;
  EXPECT_EQ(Load(AsFloat(ConcatCase(cc))), Status::kBadParams);
  s8_gather_params ga = GatherBase();
  ga.inner = 8;
  OpCase gf = AsFloat(GatherCase(ga));
  ExpectSizeChecks("gather float32", gf);
  OpCase mixed = AsFloat(SliceCase(sl));  // float32 in, int8 out of the same bytes
  mixed.operands[1].dtype = fmt::kInt8, mixed.operands[1].elements *= 4;
  EXPECT_EQ(Load(mixed), Status::kBadParams);
}

}  // namespace
}  // namespace tinyforge::rt
