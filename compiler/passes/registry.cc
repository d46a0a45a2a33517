// The one list of passes, in default-pipeline order. Each entry says what holds after the
// pass and why it sits where it does; docs/passes.md's pipeline table is this list
// (tests/cpp/pass_lower_test.cc fails when they differ).
#include <array>

#include "passes/pass.h"

namespace tinyforge::passes {
namespace {

constexpr std::array<PassInfo, 14> kPasses = {{
    {"const-fold", ConstFold,
     "no op has only constant inputs, except `dequantize` (the quantized-weight marker)",
     "first: weights PT2E left as float behind a `quantize` (`fold_quantize=False`, QAT "
     "exports) become int8 constants, so fold-qdq sees one pattern"},
    {"fold-float", FoldFloat,
     "a float graph (exported without calibration) is lowered: kind `int8` with float32 "
     "tensors; conv2d/linear/pools are `fconv2d`, `fdwconv2d`, `ffc`, `favgpool2d`, "
     "`fmaxpool2d` with a following relu/hardtanh fused as their float clamp, elementwise ops "
     "and activations `unary`/`binary`; mean, sum, amax, softmax, layer_norm (weight and bias "
     "explicit), matmul, cat, pad and the data movement ops stay (float32); spatial ops "
     "`layout=NCHW`. Other graphs: unchanged",
     "needs constants folded; in fold-qdq's place for float graphs (the passes after it "
     "treat both results alike)"},
    {"fold-qdq", FoldQdq,
     "kind `int8`: only lowered ops; float only as graph input -> `quantize`, `dequantize` "
     "-> graph output and around the float fallback ops (`unary`, `binary`, `cumsum`), "
     "except chains `dequantize` -> `unary`... -> `quantize` of one int8 input, which are "
     "`qlut`s; spatial ops `layout=NCHW`",
     "needs constants folded; everything after works on int8 ops"},
    {"io-edges", IoEdges,
     "`--io=int8`: no quantize/dequantize left, the graph's inputs/outputs are the int8 "
     "tensors (`x.q`)",
     "only after fold-qdq are the edge q/dq the only ones"},
    {"fuse-activation", FuseActivation,
     "no `requantize` that only clamps directly after an op with an activation range, "
     "none after a `qlut` (composed into its table), none over 256+ elements (a `qlut`)",
     "needs fold-qdq's clamps; before compute-multipliers so removed clamps get no constants"},
    {"layout", ToNhwc,
     "`graph.layout = NHWC`: rank-4 activations NHWC (those no spatial op reaches, across "
     "ops other than transposes, keep PyTorch's order: `pytorch_order`; rank-3 ones between "
     "Conv1d layers lifted to [N, C, 1, L] first), conv weights OHWI, depthwise 1HWC; "
     "`graph.io_layout` = `--layout`",
     "needs lowered ops (they carry `layout`); before remove-noops, which resolves the "
     "transposes it inserts"},
    {"split-groups", SplitGroups,
     "no grouped `qconv2d`: per group a channel `slice`, an ungrouped `qconv2d`, one `qconcat`",
     "needs NHWC (channels last: the slices and the concat are on axis 3, filters OHWI); before "
     "compute-multipliers and precompute-bias, which then see ordinary convs"},
    {"remove-noops", RemoveNoops,
     "no identity op; every `transpose` moves data; `reshape` only as a view",
     "after layout; after fuse-activation (which leaves identity clamps behind)"},
    {"fold-pad", FoldPad,
     "no `qpad` by its input's zero point of H / W only whose one reader is a `qconv2d` or "
     "`qdwconv2d`: the pads are the conv's padding",
     "after remove-noops (a Conv1d's pad reaches its conv only then); before precompute-bias, "
     "which folds the input offset of unpadded convs only"},
    {"split-outputs", SplitOutputs,
     "no `qconv2d` or `qfc` output read only by `slice`s of disjoint output channels of 256+ "
     "elements each: one op per slice writes its channels",
     "after remove-noops (the slices of a GLU or of attention's q / k / v read the op's "
     "output directly only then); before compute-multipliers, which then sees ordinary ops"},
    {"split-concat", SplitConcat,
     "no `qconcat` over 16 inputs (the kernel's limit): longer ones are a tree of `qconcat`s "
     "(the first inputs joined into partial tensors quantized like the output)",
     "after split-groups and remove-noops, the last passes that make or remove concats (the "
     "partials it writes have >= 2 inputs each: remove-noops would keep them)"},
    {"compute-multipliers", ComputeMultipliers,
     "every rescaling op carries `multiplier`/`shift` constants; no kernel parameter needs a "
     "float",
     "after every pass that adds or removes rescaling ops"},
    {"precompute-bias", PrecomputeBias,
     "unpadded conv/depthwise/FC: bias holds `-input_zp * sum(w)`, `input_zp_folded=true`",
     "needs final weights and zero points; changes the bias, so after everything that reads "
     "it as the model's bias"},
    {"dce", Dce, "no dead op, no unused tensor", "last: cleans up after the others"},
}};

}  // namespace

std::span<const PassInfo> AllPasses() { return kPasses; }

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& p : kPasses) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace tinyforge::passes
