// Elementwise ops in float32, written so that NaN propagates as in PyTorch (clamp-based
// relu/hardtanh keep NaN; a plain std::max would turn it into the bound).
#include <cmath>

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

void Add(const HostTensor& a, const HostTensor& b, HostTensor& y) {
  const auto ad = a.f32();
  const auto bd = b.f32();
  auto yd = y.f32();
  for (size_t i = 0; i < ad.size(); ++i) yd[i] = ad[i] + bd[i];
}

}  // namespace tinyforge::exec
