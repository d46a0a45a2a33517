// Helpers shared by the op glue (runtime/ops/*.cc): operand checks for Validate_<op>, and
// the row-streaming driver for Run_<op>. Internal to the runtime.
#ifndef TINYFORGE_RUNTIME_OPS_OP_UTIL_H_
#define TINYFORGE_RUNTIME_OPS_OP_UTIL_H_

#include <cstddef>
#include <cstdint>

#include "kernels/common/isa.h"
#include "kernels/common/limits.h"
#if TF_HAVE_MVE
#include "kernels/common/strided_copy_mve.h"
#endif
#include "kernels/common/paths.h"
#include "tinyforge/kernel_table.h"
#include "tinyforge/op_abi.h"
#include "tinyforge/runtime.h"
#include "tinyforge/stream.h"

namespace tinyforge::rt::ops {

// Largest geometry value and byte count accepted (kernels/common/limits.h).
inline constexpr int64_t kMaxDim = TF_LIMIT_DIM;
inline constexpr int64_t kMaxBytes = TF_LIMIT_BYTES;

inline bool InRange(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// The family's parameter range check (s8_<family>_check in kernels/<family>/<family>_limits.h,
// shared with the compiler): kBadParams when it names a field out of range.
inline Status CheckParams(const char* why) { return why == nullptr ? Status::kOk : Status::kBadParams; }

// a * b, or -1 when a factor is < 0 or the product exceeds kMaxBytes (op_checks.cc: out of
// line, a 64-bit division each; the validators call it a few times an op, at init).
TF_RT_COLD int64_t Product2(int64_t a, int64_t b);
// a * b * ..., or -1 once the product exceeds kMaxBytes (every factor must be >= 0).
inline int64_t Product(int64_t a) { return a; }
template <class... R>
inline int64_t Product(int64_t a, int64_t b, R... rest) {
  return Product(Product2(a, b), rest...);
}

// Scratch bytes the op's kernel needs for parameters `p` of operator kKind, or -1 when the
// kernel is not one of kKind's: ScratchBytes (tinyforge/kernel_ids.h) of the kernel's id, from
// its table entry, which links that kernel's scratch expression alone. For the families whose
// variants' expressions are of some size (conv, dwconv, softmax, bmm, lstm); where none needs
// scratch (ScratchBytes(id, p) != 0 then checks that the id is the family's) or all are a
// line of arithmetic (fc), ScratchBytes over the family measured as small or smaller.
template <OpKind kKind, class P>
inline int64_t KernelScratch(const OpContext& op, const P& p) {
  return op.entry().scratch(&p, kKind);
}

// Operand `slot` is present, has `dtype` and exactly `bytes` bytes; `writable` (outputs,
// scratch) also requires it to be in an arena rather than a constant segment.
// (This and the other checks declared TF_RT_COLD here are defined once, in op_checks.cc: inlined,
// each validator carried its own copies.)
TF_RT_COLD Status Expect(const OpContext& op, int32_t slot, uint8_t dtype, int64_t bytes,
                         bool writable = false);

// Every int32 of operand `slot` (validated int32 tensor) lies in [lo, hi].
TF_RT_COLD Status ExpectValues(const OpContext& op, int32_t slot, int32_t lo, int32_t hi);

inline Status Disjoint(const TensorRef& a, const TensorRef& b) {
  return a.Overlaps(b) ? Status::kBadAlias : Status::kOk;
}

// The optional scratch operand `slot` of a kernel needing `bytes` (< 0: the id is no kernel
// of the family): in an arena, large enough, overlapping none of `avoid` (the op's other
// operands); absent only when the kernel needs none.
template <size_t kN>
inline Status ExpectScratch(const OpContext& op, int32_t slot, int64_t bytes,
                            const TensorRef (&avoid)[kN]) {
  if (bytes < 0) return Status::kUnknownKernel;
  if (!op.has(slot)) return bytes > 0 ? Status::kBadParams : Status::kOk;
  const TensorRef s = op.tensor(slot);
  if (!s.in_arena() || int64_t{s.size} < bytes) return Status::kBadParams;
  for (const TensorRef& t : avoid) TF_RT_TRY(Disjoint(s, t));
  return Status::kOk;
}

// Output written element by element after reading the same input element: it may be the
// input's exact bytes, or not overlap it at all.
inline Status DisjointOrSame(const TensorRef& in, const TensorRef& out) {
  return in.Overlaps(out) && !in.SameBytes(out) ? Status::kBadAlias : Status::kOk;
}

// ---- Program-level consistency (docs/program-format.md, "Consistency checks") ----------

// Whether parameter struct P has a `rounding` field (requantizing families). C++17.
template <class P, class = void>
struct HasRounding {
  static constexpr bool value = false;
};
template <class P>
struct HasRounding<P, decltype(void(P{}.rounding))> {
  static constexpr bool value = true;
};

// The op's requantization rounding is the program's (one mode per program).
template <class P>
inline Status ExpectRounding(const OpContext& op, const P& p) {
  return static_cast<uint32_t>(p.rounding) == op.rounding() ? Status::kOk : Status::kBadParams;
}

// The tensor in `slot` has zero point `zero_point`: the op's zero-point parameter agrees
// with the tensor's producer and other consumers. A tensor without recorded quantization
// (scale 0, zero point 0: hand-built test programs; the compiler records every int8
// activation's) is not checked: no single changed byte can drop a recorded quantization.
// (These checks are out of line, runtime/src/op_checks.cc: they run once, at init.)
TF_RT_COLD Status ExpectZeroPoint(const OpContext& op, int32_t slot, int32_t zero_point);

// The input offset of a conv, dwconv or FC: minus the input's zero point, or 0 where the
// compiler folded it into the bias (op flag ZP_FOLDED, only for unpadded windows).
TF_RT_COLD Status ExpectInputOffset(const OpContext& op, int32_t slot, int32_t input_offset,
                                   bool unpadded);

// The output clamp: a fused activation's for the output tensor's quantization, unless the
// op declares an arbitrary clamp (op flag CLAMP) or the tensor records no quantization.
TF_RT_COLD Status ExpectClamp(const OpContext& op, int32_t out_slot, int32_t act_min,
                             int32_t act_max);

// One spatial dim of a window op (conv, dwconv, pool): `out` windows of extent
// (k - 1) * dilation + 1 at `stride` over `in` padded by `before` and an implicit `after`
// (the record keeps only the top/left pads).
struct WindowDim {
  int32_t in, out, k, stride, dilation, before;
};

// A window op's geometry, both dims: out == (in + before + after - extent) / stride + 1 with
// 0 <= before, after, and TFLite's SAME or VALID padding unless the op declares explicit pads
// (op flag PADS, tinyforge/window.h). before, after < extent (no window made only of
// padding) for SAME/VALID and wherever `padding_windows` is false (pools: an average over no
// pixel); a convolution with declared pads may have such windows (their output is the bias:
// a transposed convolution lowered to a 1x1 conv over a zero-stuffed map). Then the PARTIAL
// op flag: set exactly where the windows leave input rows or columns unread
// (WindowLeavesInputUnread). Clears *unpadded unless `after` can be 0 with `before` 0 in
// both dims. Dims are validated (> 0). kBadParams on any mismatch.
TF_RT_COLD Status CheckWindows(const OpContext& op, const WindowDim& h, const WindowDim& w,
                               bool padding_windows, bool* unpadded);

// The two window kinds' parameter structs (int8 and float): convolutions name the kernel
// k_h / k_w and have a dilation; pools name it filter_h / filter_w.
template <class P>
Status CheckConvWindows(const OpContext& op, const P& p, bool* unpadded) {
  return CheckWindows(op, {p.in_h, p.out_h, p.k_h, p.stride_h, p.dilation_h, p.pad_top},
                      {p.in_w, p.out_w, p.k_w, p.stride_w, p.dilation_w, p.pad_left}, true,
                      unpadded);
}
template <class P>
Status CheckPoolWindows(const OpContext& op, const P& p, bool* unpadded) {
  return CheckWindows(op, {p.in_h, p.out_h, p.filter_h, p.stride_h, 1, p.pad_top},
                      {p.in_w, p.out_w, p.filter_w, p.stride_w, 1, p.pad_left}, false,
                      unpadded);
}

// Checks the operand count (`fixed` slots, + 1 line buffer if the op is streamed) and the
// parameter count.
inline Status ExpectCounts(const OpContext& op, int32_t fixed, int32_t params) {
  const int32_t operands = fixed + (op.streamed() ? 1 : 0);
  if (op.num_operands() != operands || op.num_params() != params) return Status::kBadOp;
  return Status::kOk;
}

// A streamed op (fmt::kOpFlagStream): the line buffer is the last operand, int8, in an
// arena, at least one unit (`row_bytes`: the op's rows per call times one output row), overlapping neither input nor output nor `other`
// (scratch, weights); the input and output may overlap each other (that is the point).
TF_RT_COLD Status ExpectLineBuffer(const OpContext& op, int32_t slot, int64_t row_bytes,
                                  const TensorRef& in, const TensorRef& out);

// The start of a scratch-free op's Validate_<op>: `operands` operand slots (+ 1 line buffer
// if streamed) and the family's parameter count, the parameter record decoded into *p and
// range-checked by its `check` (kernels/<family>/<family>_limits.h), the program's rounding
// (if the family requantizes), and a kernel that needs no scratch.
template <OpKind kKind, class P>
Status DecodeChecked(const OpContext& op, int32_t operands, const char* (*check)(const P&),
                     P* p) {
  TF_RT_TRY(ExpectCounts(op, operands, abi::ParamCount<P>()));
  abi::DecodeParams(op, p);
  TF_RT_TRY(CheckParams(check(*p)));
  if constexpr (HasRounding<P>::value) TF_RT_TRY(ExpectRounding(op, *p));
  if (ScratchBytes<kKind>(op.kernel_id(), *p) != 0) return Status::kUnknownKernel;
  return Status::kOk;
}

// DecodeChecked for a whole-tensor op (not streamed).
template <OpKind kKind, class P>
Status DecodeWhole(const OpContext& op, int32_t operands, const char* (*check)(const P&), P* p) {
  if (op.streamed()) return Status::kBadOp;
  return DecodeChecked<kKind>(op, operands, check, p);
}

// ---- The parameter record in place -----------------------------------------------------
// Whether parameter struct P is, byte for byte, its record's parameter words: only int32
// fields, no padding, visited (VisitParams) in declaration order, on a little-endian core.
// Proved at compile time: the fields numbered 0, 1, ... in visiting order and the struct
// reinterpreted as words (__builtin_bit_cast) must read 0, 1, ... . Then Run_<op> hands the
// kernel a pointer into the op record (4-byte aligned: docs/program-format.md) instead of
// decoding a copy: 2 to 3 instructions a word, 48 to 105 per call for the elementwise and
// data-movement families (24 to 35 words), against 8 to 430 elements per call in the
// sequence and breadth models (docs/decisions.md 72).
template <int kWords>
struct ParamWordArray {
  int32_t w[kWords];
};
struct FieldNumberer {
  int n = 0;
  bool all_int = true;
  constexpr void operator()(int32_t& f) { f = n++; }
  constexpr void operator()(float&) { all_int = false, ++n; }
};
template <class P>
constexpr bool InPlaceParams() {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr int kWords = abi::ParamCount<P>();
  if constexpr (sizeof(P) != 4 * static_cast<size_t>(kWords)) {
    return false;
  } else {
    P p{};
    FieldNumberer c;
    abi::VisitParams(p, c);
    if (!c.all_int) return false;
    const auto words = __builtin_bit_cast(ParamWordArray<kWords>, p);
    for (int i = 0; i < kWords; ++i) {
      if (words.w[i] != i) return false;
    }
    return true;
  }
#else
  return false;
#endif
}

// The op's parameters: the record's words themselves when InPlaceParams<P>(), else decoded
// into *copy.
template <class P>
inline const P* Params(const OpContext& op, P* copy) {
  if constexpr (InPlaceParams<P>()) {
    return reinterpret_cast<const P*>(op.params_data());
  } else {
    abi::DecodeParams(op, copy);
    return copy;
  }
}

// Run_<op> of a kernel `void(const P*, const A*, const B*, Out*)`: operands `a` and `b` in,
// `out` out (a lookup table, a coordinate table or a second input as B).
template <class P, class A, class B, class Out = int8_t>
Status RunTwoInputs(const OpContext& op, int32_t a, int32_t b, int32_t out) {
  using Fn = void (*)(const P*, const A*, const B*, Out*);
  P copy;
  reinterpret_cast<Fn>(op.entry().kernel)(Params(op, &copy),
                                          reinterpret_cast<const A*>(op.data(a)),
                                          reinterpret_cast<const B*>(op.data(b)),
                                          reinterpret_cast<Out*>(op.data(out)));
  return Status::kOk;
}

// Run_<op> of a one-input kernel `void(const P*, const In*, Out*)` (abi::kUnIn, abi::kUnOut).
template <class P, class In = int8_t, class Out = int8_t>
Status RunUnary(const OpContext& op) {
  using Fn = void (*)(const P*, const In*, Out*);
  P copy;
  reinterpret_cast<Fn>(op.entry().kernel)(
      Params(op, &copy), reinterpret_cast<const In*>(op.data(abi::kUnIn)),
      reinterpret_cast<Out*>(op.data(abi::kUnOut)));
  return Status::kOk;
}

// The byte counts of a one-input op's input and output (negative when they overflow:
// rejected as any wrong size).
struct IoBytes {
  int64_t in, out;
};

// The sizes of an elementwise op: `size` bytes in, `size` bytes out.
inline constexpr auto kSizeInSizeOut = [](const auto& p) { return IoBytes{p.size, p.size}; };

// Validate_<op> of a one-input int8 -> int8 op (abi::kUnIn, abi::kUnOut): P decoded and
// checked; input and output of the IoBytes `sizes(p)` gives, the output writable; the two
// disjoint, or the very same bytes when the kernel reads element i before writing it
// (`in_place`).
template <OpKind kKind, class P, class Sizes>
Status ValidateInt8Unary(const OpContext& op, const char* (*check)(const P&), Sizes sizes,
                         bool in_place = false) {
  P p{};
  TF_RT_TRY((DecodeWhole<kKind>(op, abi::kUnOperands, check, &p)));
  const auto [in_bytes, out_bytes] = sizes(p);
  TF_RT_TRY(Expect(op, abi::kUnIn, fmt::kInt8, in_bytes));
  TF_RT_TRY(Expect(op, abi::kUnOut, fmt::kInt8, out_bytes, true));
  const TensorRef in = op.tensor(abi::kUnIn), out = op.tensor(abi::kUnOut);
  return in_place ? DisjointOrSame(in, out) : Disjoint(in, out);
}

// The data movement kinds (transpose, slice, pad, concat, gather, resize nearest) move bytes,
// so they move float32 tensors too (a float model, docs/decisions.md 68): the parameters
// then count bytes (the compiler adds an innermost dim of 4). The dtype of an op's moved
// operands: float32 when operand `slot` (its first input) is, else int8.
inline uint8_t MovedDType(const OpContext& op, int32_t slot) {
  return op.has(slot) && op.tensor(slot).dtype == fmt::kFloat32 ? fmt::kFloat32 : fmt::kInt8;
}

// Expect() for a moved operand of `dtype`: a float32 one is whole elements.
inline Status ExpectMoved(const OpContext& op, int32_t slot, uint8_t dtype, int64_t bytes,
                          bool writable = false) {
  if (dtype == fmt::kFloat32 && bytes % 4 != 0) return Status::kBadParams;
  return Expect(op, slot, dtype, bytes, writable);
}

// Validate_<op> of a one-input data movement op: as ValidateInt8Unary, int8 or float32 (the
// same for input and output); `float_ok(p)`: whether the parameters may move float32 (a
// pad value or a blend that is not whole bytes may not).
template <OpKind kKind, class P, class Sizes, class FloatOk>
Status ValidateMoveUnary(const OpContext& op, const char* (*check)(const P&), Sizes sizes,
                         FloatOk float_ok) {
  P p{};
  TF_RT_TRY((DecodeWhole<kKind>(op, abi::kUnOperands, check, &p)));
  const auto [in_bytes, out_bytes] = sizes(p);
  const uint8_t dtype = MovedDType(op, abi::kUnIn);
  if (dtype == fmt::kFloat32 && !float_ok(p)) return Status::kBadParams;
  TF_RT_TRY(ExpectMoved(op, abi::kUnIn, dtype, in_bytes));
  TF_RT_TRY(ExpectMoved(op, abi::kUnOut, dtype, out_bytes, true));
  return Disjoint(op.tensor(abi::kUnIn), op.tensor(abi::kUnOut));
}
inline constexpr auto kAnyParams = [](const auto&) { return true; };

// The geometry a streamed op runs: `rows` (its ConvRows / PoolRows) in units of the op
// record's rows per call (docs/program-format.md, STREAM).
inline StreamGeometry StreamedGeometry(const OpContext& op, const StreamGeometry& rows) {
  return StreamBlocks(rows, op.stream_rows());
}

// One unit of a streamed op: the kernel call for unit u, its input cut to start at `in`, its
// output into the line-buffer slot `out`; ctx is the caller's.
using StreamUnitFn = void (*)(const void* ctx, int32_t u, const uint8_t* in, uint8_t* out);

}  // namespace tinyforge::rt::ops

// Executes the schedule of a streamed op with geometry g (RunStream), `ring` its line buffer,
// calling unit(ctx, ...) for each unit. One definition (runtime/ops/stream_run.cc) for every
// streamed operator: a template per params struct and kernel call took ~770 bytes an operator
// kind. Linked on demand, like a kernel path (kernels/common/paths.h): the generated model.cc
// of a program with a streamed op names it (TF_STREAM_LINK, tinyforge/kernel_table.h), as do
// tables of every kernel; elsewhere it reads as null and the validators refuse a streamed op
// (StreamLinked).
extern "C" TF_PATH_WEAK tinyforge::rt::Status tf_rt_run_streamed_units(
    const tinyforge::rt::StreamGeometry& g, const tinyforge::rt::TensorRef& in,
    const tinyforge::rt::TensorRef& out, const tinyforge::rt::TensorRef& ring,
    tinyforge::rt::ops::StreamUnitFn unit, const void* ctx);

namespace tinyforge::rt::ops {
// Copies n bytes forward (dst <= src, or the ranges disjoint): the streamed-op and pipe
// executors' moves of finished rows. On Helium 16 bytes per 3 instructions (newlib's
// memcpy took about 0.6 a byte: 5,000 instructions per streamed op of DS-CNN's 8,000-byte
// maps, docs/decisions.md 86); elsewhere the C library's memmove.
inline void CopyForward(uint8_t* dst, const uint8_t* src, uint32_t n) {
#if TF_HAVE_MVE
  strided::CopyMve(reinterpret_cast<const int8_t*>(src), reinterpret_cast<int8_t*>(dst),
                   static_cast<int32_t>(n));
#else
  __builtin_memmove(dst, src, n);
#endif
}
}  // namespace tinyforge::rt::ops

// The pipe executor (runtime/ops/pipe_run.cc; tinyforge/pipe.h): a pipe's ops go to it
// instead, with the same arguments. Linked on demand (TF_PIPE_LINK, tinyforge/kernel_table.h).
extern "C" TF_PATH_WEAK tinyforge::rt::Status tf_rt_pipe_units(
    const tinyforge::rt::OpContext& op, const tinyforge::rt::StreamGeometry& g,
    const tinyforge::rt::TensorRef& in, const tinyforge::rt::TensorRef& out,
    const tinyforge::rt::TensorRef& ring, tinyforge::rt::ops::StreamUnitFn unit,
    const void* ctx);

namespace tinyforge::rt::ops {

// A streamed op can run: the firmware links the streamed-op executor (else kUnknownKernel:
// the code the op needs is missing from the image, as a kernel missing from the table).
inline Status StreamLinked() {
  return tf_rt_run_streamed_units != nullptr ? Status::kOk : Status::kUnknownKernel;
}

// Executes a streamed op: `run_unit(p_unit, in_rows, out_rows)` runs the kernel for one unit
// (StreamUnitParams) with the input cut to start at `in_rows`. A member of a pipe
// (op.pipe()) records its stage and runs the next member, or the pipe if it is the last.
// P is a params struct with in_h, out_h, stride_h, pad_top (conv, dwconv, pool).
template <class P, class RunUnit>
Status RunStreamed(const OpContext& op, const P& p, const StreamGeometry& g, const TensorRef& in,
                   const TensorRef& out, const TensorRef& ring, const RunUnit& run_unit) {
  struct Ctx {
    const P* p;
    const StreamGeometry* g;
    const RunUnit* run_unit;
  };
  const Ctx ctx{&p, &g, &run_unit};
  const StreamUnitFn unit = [](const void* c, int32_t u, const uint8_t* unit_in,
                               uint8_t* unit_out) {
    const Ctx& x = *static_cast<const Ctx*>(c);
    (*x.run_unit)(StreamUnitParams(*x.p, *x.g, u), unit_in, unit_out);
  };
  if (op.pipe() != nullptr || (op.flags() & (fmt::kOpFlagPipeIn | fmt::kOpFlagPipeOut)) != 0) {
    return tf_rt_pipe_units != nullptr ? tf_rt_pipe_units(op, g, in, out, ring, unit, &ctx)
                                       : Status::kUnknownKernel;
  }
  return tf_rt_run_streamed_units(g, in, out, ring, unit, &ctx);
}

}  // namespace tinyforge::rt::ops

#endif  // TINYFORGE_RUNTIME_OPS_OP_UTIL_H_
