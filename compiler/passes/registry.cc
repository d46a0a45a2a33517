// The one list of passes. Its order is the default pipeline; pipeline.cc says why.
#include <array>

#include "passes/pass.h"

namespace tinyforge::passes {
namespace {

constexpr std::array<PassInfo, 9> kPasses = {{
    {"const-fold", ConstFold, "evaluate ops whose inputs are all constants (not dequantize)"},
    {"fold-qdq", FoldQdq, "dequantize -> op -> quantize patterns become quantized int8 ops"},
    {"io-edges", IoEdges, "--io=int8: drop the edge quantize/dequantize (int8 in and out)"},
    {"fuse-activation", FuseActivation, "fold relu/relu6/hardtanh/clamp into the producer's range"},
    {"layout", ToNhwc, "NCHW -> NHWC activations, OIHW -> OHWI / 1HWC weights"},
    {"remove-noops", RemoveNoops, "alias away identity ops; data-preserving transposes -> views"},
    {"compute-multipliers", ComputeMultipliers, "Q31 multiplier + shift constants (TFLM rounding)"},
    {"precompute-bias", PrecomputeBias, "fold -input_zp * sum(w) into the bias where exact"},
    {"dce", Dce, "remove ops and tensors nothing uses"},
}};

}  // namespace

std::string_view IoTypeName(IoType io) { return io == IoType::kFloat ? "float" : "int8"; }

std::span<const PassInfo> AllPasses() { return kPasses; }

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& p : kPasses) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace tinyforge::passes
