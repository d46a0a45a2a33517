// Shape inference for the lowered int8 ops (docs/lowered-ops.md). Where a lowered op computes
// what a v1 op computes (qconv2d = conv2d, qmean = mean, ...), its shapes are checked by
// the v1 rule on the NCHW view of its shapes, so both share one set of formulas.
#include <algorithm>
#include <string>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"
#include "support/text.h"

namespace tinyforge::ir::internal {
namespace {

std::string Str(const Shape& s) { return FormatInts(s); }

Error AttrError(const char* field, const std::string& what) {
  return Error(std::string("attrs.") + field + ": " + what);
}

// [N,H,W,C] -> [N,C,H,W] and back; other ranks are returned unchanged.
Shape ToNchw(const Shape& s) { return s.size() == 4 ? Shape{s[0], s[3], s[1], s[2]} : s; }
Shape ToNhwc(const Shape& s) { return s.size() == 4 ? Shape{s[0], s[2], s[3], s[1]} : s; }

// The optional trailing (multiplier, shift) inputs: none, or both with `count` entries
// (count 0: one entry or `channels`).
Status CheckRequantInputs(std::span<const Shape> in, size_t base, int64_t count,
                          int64_t channels = 0) {
  if (in.size() == base) return OkStatus();
  if (in.size() != base + 2) {
    return Error("inputs: takes " + std::to_string(base) + " inputs, or " +
                 std::to_string(base + 2) + " with multiplier and shift, got " +
                 std::to_string(in.size()));
  }
  for (size_t i = base; i < base + 2; ++i) {
    const bool ok = in[i].size() == 1 &&
                    (count > 0 ? in[i][0] == count : (in[i][0] == 1 || in[i][0] == channels));
    if (!ok) {
      const std::string want = count > 0 ? "[" + std::to_string(count) + "]"
                                         : "[1] or [" + std::to_string(channels) + "]";
      return Error("inputs[" + std::to_string(i) + "]: " + (i == base ? "multiplier" : "shift") +
                   " shape " + Str(in[i]) + ", expected " + want);
    }
  }
  return OkStatus();
}

Status CheckActRange(int64_t act_min, int64_t act_max) {
  if (act_min < -128 || act_max > 127 || act_min > act_max) {
    return AttrError("act_min", "[" + std::to_string(act_min) + ", " + std::to_string(act_max) +
                                    "] must satisfy -128 <= act_min <= act_max <= 127");
  }
  return OkStatus();
}

Expected<std::vector<Shape>> Conv(const QConv2dAttrs& a, std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
  const bool nhwc = a.layout == Layout::kNHWC;
  std::vector<Shape> nchw = {nhwc ? ToNchw(in[0]) : in[0], in[1], in[2]};
  // OHWI [O,kh,kw,I] -> OIHW [O,I,kh,kw]
  if (nhwc && in[1].size() == 4) nchw[1] = {in[1][0], in[1][3], in[1][1], in[1][2]};
  Conv2dAttrs c{a.stride, a.padding, a.dilation, a.groups};
  TF_ASSIGN_OR_RETURN(std::vector<Shape> out, InferShapes(OpType::kConv2d, c, nchw));
  const int64_t channels = nchw[1].empty() ? 0 : nchw[1][0];
  TF_RETURN_IF_ERROR(CheckRequantInputs(in, 3, channels));
  if (nhwc) out[0] = ToNhwc(out[0]);
  return out;
}

Expected<std::vector<Shape>> DwConv(const QDwConv2dAttrs& a, std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
  if (a.depth_multiplier < 1) {
    return AttrError("depth_multiplier", std::to_string(a.depth_multiplier) + " must be >= 1");
  }
  const bool nhwc = a.layout == Layout::kNHWC;
  const Shape& w = in[1];
  const bool w_ok = w.size() == 4 && (nhwc ? w[0] == 1 : w[1] == 1);
  if (!w_ok) {
    return Error("inputs[1]: expected w as " +
                 std::string(nhwc ? "[1,kh,kw,C*mult]" : "[C*mult,1,kh,kw]") + ", got shape " +
                 Str(w));
  }
  std::vector<Shape> nchw = {nhwc ? ToNchw(in[0]) : in[0], nhwc ? Shape{w[3], 1, w[1], w[2]} : w,
                             in[2]};
  if (nchw[0].size() != 4) {
    return Error("inputs[0]: expected x as " + std::string(nhwc ? "[N,H,W,C]" : "[N,C,H,W]") +
                 ", got shape " + Str(in[0]));
  }
  if (nchw[1][0] != nchw[0][1] * a.depth_multiplier) {
    return Error("inputs[1]: weight shape " + Str(w) + " needs " +
                 std::to_string(nchw[0][1] * a.depth_multiplier) +
                 " output channels (C * depth_multiplier)");
  }
  Conv2dAttrs c{a.stride, a.padding, a.dilation, nchw[0][1]};
  TF_ASSIGN_OR_RETURN(std::vector<Shape> out, InferShapes(OpType::kConv2d, c, nchw));
  TF_RETURN_IF_ERROR(CheckRequantInputs(in, 3, nchw[1][0]));
  if (nhwc) out[0] = ToNhwc(out[0]);
  return out;
}

Expected<std::vector<Shape>> Fc(const QFcAttrs& a, std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
  TF_ASSIGN_OR_RETURN(std::vector<Shape> out, InferShapes(OpType::kLinear, NoAttrs{},
                                                          in.subspan(0, 3)));
  TF_RETURN_IF_ERROR(CheckRequantInputs(in, 3, 0, in[1][0]));
  return out;
}

// a[..., M, K] @ b[..., K, N] (a as [..., K, M] with adj_x, b as [..., N, K] with adj_y):
// [batch..., M, N], the batch dims broadcast NumPy-style.
Expected<std::vector<Shape>> Bmm(const QBmmAttrs& a, std::span<const Shape> in) {
  TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
  TF_RETURN_IF_ERROR(CheckRequantInputs(in, 2, 1));
  const Shape& x = in[0];
  const Shape& w = in[1];
  if (x.size() < 2 || w.size() < 2) {
    return Error("inputs: both operands need rank >= 2 (matrices), got " + Str(x) + " and " +
                 Str(w));
  }
  const int64_t m = a.adj_x ? x[x.size() - 1] : x[x.size() - 2];
  const int64_t k = a.adj_x ? x[x.size() - 2] : x[x.size() - 1];
  const int64_t kw = a.adj_y ? w[w.size() - 1] : w[w.size() - 2];
  const int64_t n = a.adj_y ? w[w.size() - 2] : w[w.size() - 1];
  if (k != kw) {
    return Error("inputs: inner dims differ (" + std::to_string(k) + " vs " + std::to_string(kw) +
                 ") in " + Str(x) + " @ " + Str(w));
  }
  TF_ASSIGN_OR_RETURN(Shape y, Broadcast(Shape(x.begin(), x.end() - 2), Shape(w.begin(), w.end() - 2)));
  y.push_back(m);
  y.push_back(n);
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Pool(const QPool2dAttrs& a, const Shape& x) {
  TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
  const bool nhwc = a.layout == Layout::kNHWC;
  if (x.size() != 4) {
    return Error("inputs[0]: expected x as " + std::string(nhwc ? "[N,H,W,C]" : "[N,C,H,W]") +
                 ", got shape " + Str(x));
  }
  for (int i = 0; i < 2; ++i) {
    if (a.kernel[i] < 1 || a.stride[i] < 1 || a.kernel[i] > kMaxElements ||
        a.stride[i] > kMaxElements) {
      return AttrError("kernel", "kernel " + FormatInts(a.kernel) + " and stride " +
                                     FormatInts(a.stride) + " must be >= 1");
    }
  }
  for (int64_t p : a.padding) {
    if (p < 0 || p > kMaxElements) {
      return AttrError("padding", "values must be >= 0, got " + FormatInts(a.padding));
    }
  }
  const Shape nchw = nhwc ? ToNchw(x) : x;
  Shape y = nchw;
  for (int i = 0; i < 2; ++i) {
    const int64_t in = nchw[2 + i];
    const int64_t before = a.padding[i], after = a.padding[2 + i];
    const int64_t out = ConvOutputSize(in, a.kernel[i], before, after, a.stride[i], 1);
    // The kernels average/max over the taps inside the input: every window needs one.
    if (out < 1 || before >= a.kernel[i] || (out - 1) * a.stride[i] - before >= in) {
      return AttrError("padding", FormatInts(a.padding) + " with kernel " +
                                      FormatInts(a.kernel) + " leaves a window outside input " +
                                      Str(x));
    }
    y[2 + i] = out;
  }
  return std::vector<Shape>{nhwc ? ToNhwc(y) : y};
}

// Float model layers: the int8 ops' shape rules (no multiplier/shift inputs, no int8 clamp).
Status CheckFloatClamp(double act_min, double act_max) {
  if (!(act_min <= act_max)) {
    return AttrError("act_min", "[" + FormatDouble(act_min) + ", " + FormatDouble(act_max) +
                                    "] must satisfy act_min <= act_max");
  }
  return OkStatus();
}

Expected<std::vector<Shape>> FloatLayer(OpType type, const Attrs& attrs,
                                        std::span<const Shape> in) {
  if (type == OpType::kFFc) {
    const auto& a = std::get<FFcAttrs>(attrs);
    TF_RETURN_IF_ERROR(CheckFloatClamp(a.act_min, a.act_max));
    return Fc(QFcAttrs{}, in);
  }
  if (type == OpType::kFAvgPool2d || type == OpType::kFMaxPool2d) {
    const auto& a = std::get<FPool2dAttrs>(attrs);
    QPool2dAttrs q;
    q.kernel = a.kernel, q.stride = a.stride, q.padding = a.padding, q.layout = a.layout;
    return Pool(q, in[0]);
  }
  const auto& a = std::get<FConv2dAttrs>(attrs);
  TF_RETURN_IF_ERROR(CheckFloatClamp(a.act_min, a.act_max));
  if (in.size() != 3 || in[1].size() != 4 || in[0].size() != 4) {
    return Error("inputs: expected x, w (rank 4) and b");
  }
  const bool nhwc = a.layout == Layout::kNHWC;
  if (type == OpType::kFConv2d) {
    return Conv(QConv2dAttrs{a.stride, a.padding, a.dilation, 1, -128, 127, a.layout, false}, in);
  }
  const int64_t c = in[0][nhwc ? 3 : 1];
  const int64_t out_c = nhwc ? in[1][3] : in[1][0];
  if (c < 1 || out_c % c != 0) {
    return Error("inputs[1]: depthwise weights " + Str(in[1]) + " need a multiple of the " +
                 std::to_string(c) + " input channels");
  }
  return DwConv(QDwConv2dAttrs{a.stride, a.padding, a.dilation, out_c / c, -128, 127, a.layout,
                               false},
                in);
}

Expected<std::vector<Shape>> Pad(const QPadAttrs& a, const Shape& x) {
  if (x.size() > 5) return Error("inputs[0]: qpad supports up to 5 dims, got " + Str(x));
  if (a.padding.size() != 2 * x.size()) {
    return AttrError("padding", FormatInts(a.padding) + " needs 2 values per dim of " + Str(x));
  }
  if (a.value < -128 || a.value > 127) {
    return AttrError("value", std::to_string(a.value) + " is outside int8");
  }
  Shape y = x;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t before = a.padding[2 * d], after = a.padding[2 * d + 1];
    if (before < 0 || after < 0 || before > kMaxElements || after > kMaxElements) {
      return AttrError("padding", "values must be >= 0, got " + FormatInts(a.padding));
    }
    y[d] += before + after;
  }
  if (!CheckedNumElements(y)) return Error("outputs[0]: padded tensor is too large");
  return std::vector<Shape>{y};
}

Expected<std::vector<Shape>> Transpose(const TransposeAttrs& a, const Shape& x) {
  std::vector<int64_t> sorted = a.perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == x.size();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok) {
    return AttrError("perm", FormatInts(a.perm) + " is not a permutation of the dims of " + Str(x));
  }
  Shape y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[static_cast<size_t>(a.perm[i])];
  return std::vector<Shape>{y};
}

}  // namespace

Expected<Shape> Broadcast(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape y(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return Error("inputs[1]: shape " + Str(b) + " does not broadcast with inputs[0] " + Str(a));
    }
    y[i] = std::max(da, db);
  }
  return y;
}

Expected<std::vector<Shape>> InferLoweredShapes(OpType type, const Attrs& attrs,
                                                std::span<const Shape> in) {
  switch (type) {
    case OpType::kQConv2d:
      return Conv(std::get<QConv2dAttrs>(attrs), in);
    case OpType::kQDwConv2d:
      return DwConv(std::get<QDwConv2dAttrs>(attrs), in);
    case OpType::kQFc:
      return Fc(std::get<QFcAttrs>(attrs), in);
    case OpType::kQAvgPool2d:
    case OpType::kQMaxPool2d:
      return Pool(std::get<QPool2dAttrs>(attrs), in[0]);
    case OpType::kFConv2d:
    case OpType::kFDwConv2d:
    case OpType::kFFc:
    case OpType::kFAvgPool2d:
    case OpType::kFMaxPool2d:
      return FloatLayer(type, attrs, in);
    case OpType::kQAdd:
    case OpType::kQSub:
    case OpType::kQSquaredDifference:
    case OpType::kQMul: {
      const auto& a = std::get<ClampAttrs>(attrs);
      TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
      TF_RETURN_IF_ERROR(CheckRequantInputs(in, 2, type == OpType::kQMul ? 1 : 3));
      TF_ASSIGN_OR_RETURN(Shape y, Broadcast(in[0], in[1]));
      if (y.size() > 6) return Error("inputs: broadcasting supports up to 6 dims");
      return std::vector<Shape>{y};
    }
    case OpType::kQPrelu: {
      TF_RETURN_IF_ERROR(CheckRequantInputs(in, 2, 2));  // [x >= 0, x < 0]
      TF_ASSIGN_OR_RETURN(Shape y, Broadcast(in[0], in[1]));
      if (y != in[0]) {
        return Error("inputs[1]: the slopes " + Str(in[1]) + " must broadcast to x " + Str(in[0]));
      }
      if (y.size() > 6) return Error("inputs: broadcasting supports up to 6 dims");
      return std::vector<Shape>{y};
    }
    case OpType::kQMaximum:
    case OpType::kQMinimum: {
      TF_ASSIGN_OR_RETURN(Shape y, Broadcast(in[0], in[1]));
      if (y.size() > 6) return Error("inputs: broadcasting supports up to 6 dims");
      return std::vector<Shape>{y};
    }
    case OpType::kQMean:
    case OpType::kQSum: {
      TF_RETURN_IF_ERROR(CheckRequantInputs(in, 1, 1));
      return InferShapes(OpType::kMean, attrs, in.subspan(0, 1));
    }
    case OpType::kQReduceMax:
      return InferShapes(OpType::kMean, attrs, in);
    case OpType::kQBmm:
      return Bmm(std::get<QBmmAttrs>(attrs), in);
    case OpType::kQLstm: {
      const auto& a = std::get<QLstmAttrs>(attrs);
      if (a.gate_multiplier.size() != 8 || a.gate_shift.size() != 8) {
        return Error("attrs: gate_multiplier and gate_shift need 8 entries each");
      }
      if (in[0].size() != 3 || (in[0][0] != 1 && in[0][1] != 1)) {
        return Error("inputs[0]: qlstm needs a batch-1 sequence [1, T, F] or [T, 1, F], got " +
                     Str(in[0]));
      }
      const int64_t f = in[0][2];
      if (in[1].size() != 2 || in[1][0] % 4 != 0 || in[1][0] < 4 || in[1][1] != f) {
        return Error("inputs[1]: w_x must have shape [4H, " + std::to_string(f) + "], got " +
                     Str(in[1]));
      }
      const int64_t h = in[1][0] / 4;
      if (in[2] != Shape{4 * h, h}) {
        return Error("inputs[2]: w_h must have shape [" + std::to_string(4 * h) + ", " +
                     std::to_string(h) + "], got " + Str(in[2]));
      }
      if (in[3] != Shape{8 * h}) {
        return Error("inputs[3]: bias must have shape [" + std::to_string(8 * h) + "], got " +
                     Str(in[3]));
      }
      return std::vector<Shape>{Shape{in[0][0], in[0][1], h}};
    }
    case OpType::kQSoftmax:
      TF_RETURN_IF_ERROR(CheckRequantInputs(in, 1, 1));
      return InferShapes(OpType::kSoftmax, attrs, in.subspan(0, 1));
    case OpType::kQLayerNorm: {
      if (in[0].empty()) return Error("inputs[0]: qlayernorm needs at least one dimension");
      for (size_t i = 1; i < 3; ++i) {
        if (in[i] != Shape{in[0].back()} && in[i] != Shape{1}) {
          return Error("inputs[" + std::to_string(i) + "]: must have shape [" +
                       std::to_string(in[0].back()) + "] or [1], got " + Str(in[i]));
        }
      }
      if (in[1] != in[2]) return Error("inputs[2]: must have the shape of inputs[1]");
      return std::vector<Shape>{in[0]};
    }
    case OpType::kQLut:
      if (in[1] != Shape{256}) {  // one entry per int8 value (kernels/lut/lut.h)
        return Error("inputs[1]: the table must have shape [256], got " + Str(in[1]));
      }
      return std::vector<Shape>{in[0]};
    case OpType::kRequantize: {
      const auto& a = std::get<ClampAttrs>(attrs);
      TF_RETURN_IF_ERROR(CheckActRange(a.act_min, a.act_max));
      TF_RETURN_IF_ERROR(CheckRequantInputs(in, 1, 1));
      return std::vector<Shape>{in[0]};
    }
    case OpType::kQConcat:
      return InferShapes(OpType::kCat, attrs, in);
    case OpType::kQPad:
      return Pad(std::get<QPadAttrs>(attrs), in[0]);
    case OpType::kTranspose:
      return Transpose(std::get<TransposeAttrs>(attrs), in[0]);
    default:
      return Error("not a lowered op type");
  }
}

}  // namespace tinyforge::ir::internal
