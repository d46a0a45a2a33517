// CONV_2D op glue: validates the op record at init, rebuilds s8_conv_params on the stack
// and calls the kernel (whole tensor, or row by row through a line buffer when streamed).
// Also defines what it shares with DEPTHWISE_CONV_2D (conv_common.h), once for the two.
#include "conv_common.h"
#include "kernels/conv/conv_limits.h"
#include "kernels/dwconv/dwconv.h"
#include "tinyforge/in_place.h"
#if TF_HAVE_MVE
#include "kernels/dwconv/mve_dwconv.h"
#endif

namespace tinyforge::rt::ops {

namespace conv_common {

Status Decode(const OpContext& op, s8_conv_params* p) {
  TF_RT_TRY(ExpectCounts(op, abi::kConvOperands, abi::ParamCount<s8_conv_params>()));
  DecodeAll(op, p);
  return Status::kOk;
}

void DecodeAll(const OpContext& op, s8_conv_params* p) {
  abi::DecodeParams(op, p);
  p->lean = (op.flags() & fmt::kOpFlagLean) != 0 ? 1 : 0;
}

namespace {
StreamGeometry Rows(const s8_conv_params& p, int32_t k_h) {
  return WindowRows(p.in_h, p.in_w * p.in_c, p.out_h, p.out_w * p.out_c, p.stride_h, p.pad_top,
                    k_h, p.dilation_h);
}
// The scratch the op's kernel needs for p, given to it as the family's own struct.
int64_t KernelScratchOf(const OpContext& op, OpKind kind, const s8_conv_params& p) {
  if (kind == OpKind::kDwconv) {
    const s8_dwconv_params d = AsDwconv(p);
    return KernelScratch<OpKind::kDwconv>(op, d);
  }
  return KernelScratch<OpKind::kConv>(op, p);
}

// Whether the op's kernel may write its output exactly over its input for p (in_place.h),
// with, for s8_dwconv__mve, the plane path of p's rounding and kernel size (up to 16 taps,
// or wide) in the firmware (without it the dispatcher would take a path that is not in
// place). A build without the variant's instruction set (the host) runs it as __ref, which
// is (dwconv.h).
bool DwconvInPlaceHere(const OpContext& op, const s8_dwconv_params& p) {
  if (!DwconvInPlace(op.kernel_id(), p)) return false;
#if TF_HAVE_MVE
  if (op.kernel_id() == KernelId("s8_dwconv__mve")) {
    namespace dm = tinyforge::dwconv_mve;
    const bool single = p.rounding == TF_ROUNDING_SINGLE;
    if (s8_dwconv_mve_make_plan(p).groups > 1) {
      return single ? dm::s8_dwconv__mve__plane_wide_single != nullptr
                    : dm::s8_dwconv__mve__plane_wide != nullptr;
    }
    return single ? dm::s8_dwconv__mve__plane_single != nullptr
                  : dm::s8_dwconv__mve__plane != nullptr;
  }
#endif
  return true;
}

// The LEAN flag (program_format.h): s8_dwconv__mve's 4-channel planes, or s8_conv__mve's
// tables in the bias operand, which must hold what the kernel would build
// (s8_conv_mve_lean_word: checked word by word, once at init).
Status CheckLean(const OpContext& op, const s8_conv_params& p, OpKind kind) {
  if (kind == OpKind::kDwconv) {
    return op.kernel_id() == KernelId("s8_dwconv__mve") ? Status::kOk : Status::kBadParams;
  }
  s8_conv_params b = p;
  b.multiplier = reinterpret_cast<const int32_t*>(op.data(abi::kConvMultiplier));
  b.shift = reinterpret_cast<const int32_t*>(op.data(abi::kConvShift));
  const int table = s8_conv_mve_table_kind(b);
  if (op.kernel_id() != KernelId("s8_conv__mve") || !op.has(abi::kConvBias) || table == 0) {
    return Status::kBadParams;
  }
  const int32_t words = s8_conv_mve_lean_words(b);
  TF_RT_TRY(Expect(op, abi::kConvBias, fmt::kInt32, Product(p.out_c + words, 4)));
#if TF_HAVE_MVE || !defined(__arm__)
  // (A firmware without Helium has no s8_conv__mve in its kernel table, so a LEAN conv
  // never gets here: the check is linked where the kernel is, and on hosts.)
  const auto* bias = reinterpret_cast<const int32_t*>(op.data(abi::kConvBias));
  const auto* weights = reinterpret_cast<const int8_t*>(op.data(abi::kConvWeights));
  for (int32_t i = 0; i < words; ++i) {
    const int32_t want = s8_conv_mve_lean_word(b, table, weights, bias, bias + p.out_c, i);
    if (bias[p.out_c + i] != want) return Status::kBadParams;
  }
  return Status::kOk;
#else
  return Status::kUnknownKernel;
#endif
}
}  // namespace

Status Validate(const OpContext& op, const s8_conv_params& p, OpKind kind, KernelSize k,
                int64_t weight_bytes) {
  using abi::kConvOperands;
  TF_RT_TRY(ExpectRounding(op, p));
  bool unpadded = true;
  TF_RT_TRY(CheckWindows(op, {p.in_h, p.out_h, p.*k.h, p.stride_h, p.dilation_h, p.pad_top},
                         {p.in_w, p.out_w, p.*k.w, p.stride_w, p.dilation_w, p.pad_left}, true,
                         &unpadded));
  TF_RT_TRY(Expect(op, abi::kConvIn, fmt::kInt8, Product(p.batches, p.in_h, p.in_w, p.in_c)));
  TF_RT_TRY(Expect(op, abi::kConvWeights, fmt::kInt8, weight_bytes));
  if (!p.lean && op.has(abi::kConvBias)) {
    TF_RT_TRY(Expect(op, abi::kConvBias, fmt::kInt32, Product(p.out_c, 4)));
  }
  TF_RT_TRY(Expect(op, abi::kConvMultiplier, fmt::kInt32, Product(p.out_c, 4)));
  TF_RT_TRY(Expect(op, abi::kConvShift, fmt::kInt32, Product(p.out_c, 4)));
  TF_RT_TRY(ExpectValues(op, abi::kConvShift, TF_LIMIT_SHIFT_MIN, TF_LIMIT_SHIFT_MAX));
  if (p.lean) TF_RT_TRY(CheckLean(op, p, kind));  // (reads the weights, multiplier, shift)
  TF_RT_TRY(
      Expect(op, abi::kConvOut, fmt::kInt8, Product(p.batches, p.out_h, p.out_w, p.out_c), true));
  TF_RT_TRY(ExpectInputOffset(op, abi::kConvIn, p.input_offset, unpadded));
  TF_RT_TRY(ExpectZeroPoint(op, abi::kConvOut, p.output_offset));
  TF_RT_TRY(ExpectClamp(op, abi::kConvOut, p.act_min, p.act_max));
  const TensorRef in = op.tensor(abi::kConvIn), out = op.tensor(abi::kConvOut);
  const int32_t slots1[] = {abi::kConvWeights, abi::kConvBias, abi::kConvMultiplier,
                            abi::kConvShift};
  for (int32_t slot : slots1) {
    if (op.has(slot)) TF_RT_TRY(Disjoint(op.tensor(slot), out));
  }
  // A streamed op calls its kernel on units only: their scratch.
  int64_t scratch = op.streamed() ? 0 : KernelScratchOf(op, kind, p);
  if (op.streamed()) {
    TF_RT_TRY(StreamLinked());
    if (p.batches != 1) return Status::kBadParams;
    const StreamGeometry g = StreamedGeometry(op, Rows(p, p.*k.h));
    TF_RT_TRY(ExpectLineBuffer(op, kConvOperands, g.out_unit_bytes, in, out));
    // Unit calls see out_h = the unit's rows (the last may have fewer) and a cut input.
    for (int32_t i = 0; i < 2; ++i) {  // the first unit, the last (maybe partial) unit
      const s8_conv_params unit = StreamUnitParams(p, g, i == 0 ? 0 : g.units - 1);
      const int64_t unit_scratch = KernelScratchOf(op, kind, unit);
      scratch = scratch > unit_scratch ? scratch : unit_scratch;
    }
    const int32_t slots2[] = {abi::kConvWeights, abi::kConvBias, abi::kConvMultiplier,
                              abi::kConvShift, abi::kConvScratch};
    for (int32_t slot : slots2) {
      if (op.has(slot) && !op.pipe_out()) {
        TF_RT_TRY(Disjoint(op.tensor(slot), op.tensor(kConvOperands)));
      }
    }
  } else if (in.Overlaps(out)) {
    // Exactly in place in one call: only where the kernel allows it (in_place.h).
    const bool allowed = kind == OpKind::kDwconv ? DwconvInPlaceHere(op, AsDwconv(p))
                                                 : ConvInPlace(op.kernel_id(), p);
    if (!in.SameBytes(out) || !allowed) return Status::kBadAlias;
  }
  if (scratch < 0) return Status::kUnknownKernel;  // the id is not a kernel of this family
  if (op.has(abi::kConvScratch)) {
    const TensorRef s = op.tensor(abi::kConvScratch);
    if (!s.in_arena() || int64_t{s.size} < scratch) return Status::kBadParams;
    TF_RT_TRY(Disjoint(s, in));
    TF_RT_TRY(Disjoint(s, out));
  } else if (scratch > 0) {
    return Status::kBadParams;
  }
  return Status::kOk;
}

namespace {
using ConvFn = void (*)(const s8_conv_params*, const int8_t*, const int8_t*, const int32_t*,
                        int8_t*, void*);
using DwconvFn = void (*)(const s8_dwconv_params*, const int8_t*, const int8_t*, const int32_t*,
                          int8_t*, void*);

// Calls the op's kernel through its own function type (a dwconv kernel reads p as its struct,
// the same layout: see conv_common.h).
struct Kernel {
  void (*fn)();
  bool depthwise;
  const int8_t* weights;
  const int32_t* bias;
  void* scratch;
  void operator()(const s8_conv_params& p, const uint8_t* in, uint8_t* out) const {
    const int8_t* x = reinterpret_cast<const int8_t*>(in);
    int8_t* y = reinterpret_cast<int8_t*>(out);
    if (depthwise) {
      reinterpret_cast<DwconvFn>(fn)(reinterpret_cast<const s8_dwconv_params*>(&p), x, weights,
                                     bias, y, scratch);
    } else {
      reinterpret_cast<ConvFn>(fn)(&p, x, weights, bias, y, scratch);
    }
  }
};
}  // namespace

Status Run(const OpContext& op, OpKind kind) {
  s8_conv_params p{};
  DecodeAll(op, &p);
  const TensorRef in = op.tensor(abi::kConvIn), out = op.tensor(abi::kConvOut);
  p.multiplier = reinterpret_cast<const int32_t*>(op.data(abi::kConvMultiplier));
  p.shift = reinterpret_cast<const int32_t*>(op.data(abi::kConvShift));
  const bool depthwise = kind == OpKind::kDwconv;
  const Kernel kernel{
      op.entry().kernel, depthwise,
      reinterpret_cast<const int8_t*>(op.data(abi::kConvWeights)),
      op.has(abi::kConvBias) ? reinterpret_cast<const int32_t*>(op.data(abi::kConvBias))
                             : nullptr,
      op.has(abi::kConvScratch) ? op.data(abi::kConvScratch) : nullptr};
  if (!op.streamed()) {
    kernel(p, in.data, out.data);
    return Status::kOk;
  }
  const int32_t k_h = p.*(depthwise ? kDwconvKernel : kConvKernel).h;
  // (A pipe member writing a window has no line buffer.)
  return RunStreamed(op, p, StreamedGeometry(op, Rows(p, k_h)), in, out,
                     op.pipe_out() ? TensorRef{} : op.tensor(abi::kConvOperands), kernel);
}

}  // namespace conv_common

namespace {
// Flattened: the check's texts (the compiler's messages) fold away.
[[gnu::flatten]] Status CheckConv(const s8_conv_params& p) { return CheckParams(s8_conv_check(p)); }
}  // namespace

Status Validate_conv(const OpContext& op) {
  s8_conv_params p{};
  TF_RT_TRY(conv_common::Decode(op, &p));
  TF_RT_TRY(CheckConv(p));
  return conv_common::Validate(op, p, OpKind::kConv, conv_common::kConvKernel,
                               Product(p.out_c, p.k_h, p.k_w, p.filter_in_c));
}

Status Run_conv(const OpContext& op) { return conv_common::Run(op, OpKind::kConv); }

}  // namespace tinyforge::rt::ops
