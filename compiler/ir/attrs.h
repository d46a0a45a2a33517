// Typed attributes of ops: one struct per attribute set, held in the ir::Attrs variant.
//
// Each struct lists its fields once, in `Fields(self, f)`, which calls f("name", field) for
// every field in file order. The graph-file reader and writer and the IR printer/parser
// walk that list, so a new attribute is added in exactly one place. Field types are limited
// to: int64_t, double, bool, Vec2, Pad4, std::vector<int64_t>.
//
// Value ranges (stride >= 1, ...) are checked by the verifier (ir/shape_inference.h), not
// here: a struct may hold any value while a pass rewrites it.
#pragma once

#include <array>
#include <cstdint>
#include <variant>
#include <vector>

namespace tinyforge::ir {

using Vec2 = std::array<int64_t, 2>;  // [height, width]
using Pad4 = std::array<int64_t, 4>;  // [top, left, bottom, right], elements of zero padding

struct NoAttrs {
  template <class S, class F>
  static void Fields(S&, F&&) {}
  friend bool operator==(const NoAttrs&, const NoAttrs&) = default;
};

struct Conv2dAttrs {
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  Vec2 dilation{1, 1};
  int64_t groups = 1;  // depthwise: groups == C
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("groups", s.groups);
  }
  friend bool operator==(const Conv2dAttrs&, const Conv2dAttrs&) = default;
};

struct HardtanhAttrs {
  double min = -1.0;  // applied as float32, like PyTorch's Scalar on a float tensor
  double max = 1.0;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("min", s.min);
    f("max", s.max);
  }
  friend bool operator==(const HardtanhAttrs&, const HardtanhAttrs&) = default;
};

struct MaxPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};  // padded positions never win (-inf)
  Vec2 dilation{1, 1};
  bool ceil_mode = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("dilation", s.dilation);
    f("ceil_mode", s.ceil_mode);
  }
  friend bool operator==(const MaxPool2dAttrs&, const MaxPool2dAttrs&) = default;
};

struct AvgPool2dAttrs {
  Vec2 kernel{1, 1};
  Vec2 stride{1, 1};
  Pad4 padding{0, 0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0 = none
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("kernel", s.kernel);
    f("stride", s.stride);
    f("padding", s.padding);
    f("ceil_mode", s.ceil_mode);
    f("count_include_pad", s.count_include_pad);
    f("divisor_override", s.divisor_override);
  }
  friend bool operator==(const AvgPool2dAttrs&, const AvgPool2dAttrs&) = default;
};

struct MeanAttrs {
  std::vector<int64_t> dims;  // non-empty, distinct; negative counts from the end
  bool keepdim = false;
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("dims", s.dims);
    f("keepdim", s.keepdim);
  }
  friend bool operator==(const MeanAttrs&, const MeanAttrs&) = default;
};

struct ReshapeAttrs {
  std::vector<int64_t> shape;  // the output shape; at most one -1 (inferred)
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("shape", s.shape);
  }
  friend bool operator==(const ReshapeAttrs&, const ReshapeAttrs&) = default;
};

struct CatAttrs {
  int64_t axis = 0;  // negative counts from the end
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
  }
  friend bool operator==(const CatAttrs&, const CatAttrs&) = default;
};

struct SoftmaxAttrs {
  int64_t axis = -1;  // negative counts from the end
  template <class S, class F>
  static void Fields(S& s, F&& f) {
    f("axis", s.axis);
  }
  friend bool operator==(const SoftmaxAttrs&, const SoftmaxAttrs&) = default;
};

using Attrs = std::variant<NoAttrs, Conv2dAttrs, HardtanhAttrs, MaxPool2dAttrs, AvgPool2dAttrs,
                           MeanAttrs, ReshapeAttrs, CatAttrs, SoftmaxAttrs>;

}  // namespace tinyforge::ir
