// In-place execution: which operand of an op may share bytes with its output. The one
// definition the planner's callers (compiler/emit: which ops to offer in place) and the
// loader (runtime/src/model.cc: which declared in-place partners to accept) both use, so
// the compiler cannot write a program the runtime refuses for aliasing
// (docs/program-format.md, "Lifetimes and in-place partners"). Freestanding C++17.
#ifndef TINYFORGE_RUNTIME_IN_PLACE_H_
#define TINYFORGE_RUNTIME_IN_PLACE_H_

#include <cstdint>

#include "tinyforge/kernel_ids.h"
#include "tinyforge/op_abi.h"

namespace tinyforge::rt {

enum class InPlaceMode : uint8_t {
  kNone,
  // The output may be exactly an input's bytes (same offset and size): elementwise kernels
  // that read element i before writing it. For add and mul the input must be read densely
  // (not broadcast), which the op's validator checks on the broadcast strides.
  kExact,
  // With fmt::kOpFlagStream: the output may overlap the input by the offsets the stream
  // schedule completes with (tinyforge/stream.h); the validator checks the schedule.
  kStream,
};

struct InPlaceRule {
  InPlaceMode mode = InPlaceMode::kNone;
  uint8_t inputs = 0;  // bit i set: operand slot i may be the output's partner
  uint8_t output = 0;  // the output's operand slot
  // A kStream op that some kernels may also run in one whole-tensor call with the output
  // exactly over the input: the op's validator checks that its kernel does for its
  // parameters (CONV_2D: ConvInPlace, DEPTHWISE_CONV_2D: DwconvInPlace below).
  bool exact_by_kernel = false;
  // A kExact op that may also end a pipe (tinyforge/pipe.h), streamed (fmt::kOpFlagStream):
  // its in-place input slot is then the window it reads, its output the pipe's.
  bool pipe_tail = false;
};

constexpr InPlaceRule InPlaceRuleOf(OpKind op) {
  switch (op) {
    case OpKind::kConv:
      return {InPlaceMode::kStream, 1u << abi::kConvIn, abi::kConvOut, true};
    case OpKind::kDwconv:
      return {InPlaceMode::kStream, 1u << abi::kConvIn, abi::kConvOut, true};
    case OpKind::kAvgpool:
    case OpKind::kMaxpool:
      return {InPlaceMode::kStream, 1u << abi::kPoolIn, abi::kPoolOut};
    case OpKind::kAdd:  // (a residual block's add may end a pipe)
      return {InPlaceMode::kExact, (1u << abi::kBinIn1) | (1u << abi::kBinIn2), abi::kBinOut,
              false, true};
    case OpKind::kMul:
      return {InPlaceMode::kExact, (1u << abi::kBinIn1) | (1u << abi::kBinIn2), abi::kBinOut};
    case OpKind::kPrelu:  // x, never the slopes
      return {InPlaceMode::kExact, 1u << abi::kBinIn1, abi::kBinOut};
    case OpKind::kF32Binary:
      return {InPlaceMode::kExact, (1u << abi::kBinIn1) | (1u << abi::kBinIn2), abi::kBinOut};
    case OpKind::kLogistic:
    case OpKind::kTanh:
    case OpKind::kF32Unary:
    case OpKind::kF32Cumsum:
      return {InPlaceMode::kExact, 1u << abi::kUnIn, abi::kUnOut};
    case OpKind::kLut:
      return {InPlaceMode::kExact, 1u << abi::kLutIn, abi::kLutOut};
    case OpKind::kLayerNorm:  // a row is read whole before any of it is written
      return {InPlaceMode::kExact, 1u << abi::kNormIn, abi::kNormOut};
    default:
      return {};
  }
}

// The DEPTHWISE_CONV_2D variants that may write their output exactly over their input in
// one whole-tensor call, and for which parameters (kernels/dwconv/dwconv.h). The compiler
// offers such an op in place, the dwconv validator accepts it, the variant harness tests it.
constexpr bool DwconvInPlace(uint32_t kernel, const s8_dwconv_params& p) {
  if (kernel == KernelId("s8_dwconv__mve")) return s8_dwconv_mve_in_place(p);
  if (kernel == KernelId("s8_dwconv__dsp") || kernel == KernelId("s8_dwconv__scalar")) {
    return s8_dwconv_dsp_in_place(p);
  }
  return false;
}

// The CONV_2D variants that may write their output exactly over their input in one
// whole-tensor call: an ungrouped 1x1 stride-1 convolution whose output has its input's
// shape (kernels/conv/conv.h, s8_conv_same_pixels). s8_conv__mve copies each tile's pixels
// into its scratch first; s8_conv__dsp and s8_conv__scalar widen a tile's pixels into their
// scratch before writing its outputs (K <= 32000: larger K runs __ref, which is in place
// only with scratch).
constexpr bool ConvInPlace(uint32_t kernel, const s8_conv_params& p) {
  if (kernel == KernelId("s8_conv__mve") || kernel == KernelId("s8_conv__dsp") ||
      kernel == KernelId("s8_conv__scalar")) {
    return s8_conv_same_pixels(p) && p.in_c <= 32000;
  }
  return false;
}

// Whether an op of kind `op` (streamed: fmt::kOpFlagStream set) may have operand slots
// `in_slot` and `out_slot` as in-place partners (for an exact_by_kernel op not streamed, the
// validator then checks the kernel).
constexpr bool InPlaceAllowed(OpKind op, bool streamed, uint32_t in_slot, uint32_t out_slot) {
  const InPlaceRule r = InPlaceRuleOf(op);
  if (streamed && r.pipe_tail) {
    return in_slot < 8 && ((r.inputs >> in_slot) & 1u) != 0 && out_slot == r.output;
  }
  if (streamed ? r.mode != InPlaceMode::kStream
               : r.mode != InPlaceMode::kExact && !r.exact_by_kernel) {
    return false;
  }
  return in_slot < 8 && ((r.inputs >> in_slot) & 1u) != 0 && out_slot == r.output;
}

}  // namespace tinyforge::rt

#endif  // TINYFORGE_RUNTIME_IN_PLACE_H_
