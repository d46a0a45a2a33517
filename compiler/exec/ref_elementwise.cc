// Elementwise ops in float32, written so that NaN propagates as in PyTorch (clamp-based
// relu/hardtanh keep NaN; a plain std::max would turn it into the bound).
#include <cmath>
#include <vector>

#include "exec/ref_ops.h"
#include "ir/unary_fn.h"

namespace tinyforge::exec {
namespace {

template <class F>
void Map(const HostTensor& x, HostTensor& y, F f) {
  const auto xd = x.f32();
  auto yd = y.f32();
  for (size_t i = 0; i < xd.size(); ++i) yd[i] = f(xd[i]);
}

}  // namespace

void Relu(const HostTensor& x, HostTensor& y) {
  Map(x, y, [](float v) { return v < 0.0f ? 0.0f : v; });
}

void Hardtanh(const ir::HardtanhAttrs& a, const HostTensor& x, HostTensor& y) {
  // PyTorch converts the Scalar bounds to the tensor's type (float32) before clamping.
  const float lo = static_cast<float>(a.min);
  const float hi = static_cast<float>(a.max);
  Map(x, y, [&](float v) { return v < lo ? lo : (v > hi ? hi : v); });
}

void UnaryFn(ir::OpType type, const ir::Attrs& attrs, const HostTensor& x, HostTensor& y) {
  Map(x, y, [&](float v) { return ir::EvalUnaryFn(type, attrs, v); });
}

void Binary(BinaryOp op, const HostTensor& a, const HostTensor& b, HostTensor& y) {
  const auto ad = a.f32();
  const auto bd = b.f32();
  auto yd = y.f32();
  // NumPy broadcasting: each input's stride per output dim (0 where it is broadcast).
  const ir::Shape& ys = y.shape();
  const size_t rank = ys.size();
  std::vector<int64_t> sa(rank, 0), sb(rank, 0);
  for (int k = 0; k < 2; ++k) {
    const ir::Shape& s = k == 0 ? a.shape() : b.shape();
    std::vector<int64_t>& st = k == 0 ? sa : sb;
    int64_t stride = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t d = s.size() - 1 - i;
      const size_t o = rank - 1 - i;
      st[o] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t ia = 0, ib = 0;
  for (size_t n = 0; n < yd.size(); ++n) {
    const float u = ad[static_cast<size_t>(ia)], v = bd[static_cast<size_t>(ib)];
    float r = 0.0f;
    switch (op) {
      case BinaryOp::kAdd: r = u + v; break;
      case BinaryOp::kSub: r = u - v; break;
      case BinaryOp::kMul: r = u * v; break;
      case BinaryOp::kPrelu: r = u >= 0 ? u : u * v; break;
      // torch.maximum / minimum propagate NaN.
      case BinaryOp::kMaximum: r = std::isnan(u) || std::isnan(v) ? NAN : (u > v ? u : v); break;
      case BinaryOp::kMinimum: r = std::isnan(u) || std::isnan(v) ? NAN : (u < v ? u : v); break;
    }
    yd[n] = r;
    for (size_t d = rank; d-- > 0;) {  // odometer step
      ia += sa[d], ib += sb[d];
      if (++idx[d] < ys[d]) break;
      ia -= sa[d] * ys[d], ib -= sb[d] * ys[d];
      idx[d] = 0;
    }
  }
}

}  // namespace tinyforge::exec
