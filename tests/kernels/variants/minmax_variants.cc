// minmax family (kernels/minmax): every maximum / minimum variant vs its reference.
// Shapes: bcast_cases.h.
#include "tests/kernels/variants/bcast_cases.h"

namespace {

bool MinMax(tfv::Context& ctx,
            void (*ref)(const s8_minmax_params*, const int8_t*, const int8_t*, int8_t*)) {
  const tfv::bcast::Shapes c = tfv::bcast::AnyShapes(ctx);
  s8_minmax_params p{};
  p.shape = tfv::bcast::Fill(c);
  tfv::bcast::ShapeParams(ctx, p.shape, c.in_place, "");
  return tfv::bcast::RunAndCompare(ctx, c, p, ref);
}

}  // namespace

TFV_FAMILY_TEST(maximum, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  return MinMax(ctx, &s8_maximum__ref);
}

TFV_FAMILY_TEST(minimum, tfv::bcast::kEdgeCases, tfv::bcast::EdgeKindName) {
  return MinMax(ctx, &s8_minimum__ref);
}
