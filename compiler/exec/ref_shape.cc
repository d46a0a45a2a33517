// Data movement: reshape (a copy, since HostTensors own their storage) and cat.
#include <cstring>
#include <vector>

#include "exec/ref_ops.h"
#include "ir/shape_inference.h"
#include "quant/kernel_params.h"

namespace tinyforge::exec {
namespace {

template <class T>
std::span<const T> Elems(const HostTensor& t) {
  if constexpr (std::is_same_v<T, float>) return t.f32();
  if constexpr (std::is_same_v<T, int8_t>) return t.i8();
  if constexpr (std::is_same_v<T, int32_t>) return t.i32();
}

template <class T>
std::span<T> MutElems(HostTensor& t) {
  if constexpr (std::is_same_v<T, float>) return t.f32();
  if constexpr (std::is_same_v<T, int8_t>) return t.i8();
  if constexpr (std::is_same_v<T, int32_t>) return t.i32();
}

template <class T>
void CatTyped(int64_t axis, std::span<const HostTensor* const> xs, HostTensor& y) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < y.shape().size(); ++d) inner *= y.shape()[d];
  const int64_t outer = y.num_elements() / (y.shape()[static_cast<size_t>(axis)] * inner);
  auto out = MutElems<T>(y);
  size_t pos = 0;
  // For each outer index, the inputs' slabs follow each other along the axis.
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor* x : xs) {
      const int64_t slab = x->shape()[static_cast<size_t>(axis)] * inner;
      const auto in =
          Elems<T>(*x).subspan(static_cast<size_t>(o * slab), static_cast<size_t>(slab));
      std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(pos));
      pos += in.size();
    }
  }
}

}  // namespace

void Reshape(const HostTensor& x, HostTensor& y) {
  y = HostTensor::FromBytes(x.dtype(), y.shape(), x.ToBytes()).value();
}

namespace {

// Walks y in C order and copies each element from x at the offset `source(index of the y
// element, x's C-order strides)`.
template <typename Source>
void CopyElements(const HostTensor& x, HostTensor& y, Source source) {
  const ir::Shape& in = x.shape();
  const size_t rank = in.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
  const size_t esize = static_cast<size_t>(ir::DTypeSize(x.dtype()));
  const std::vector<uint8_t> src = x.ToBytes();
  std::vector<uint8_t> dst(static_cast<size_t>(y.num_elements()) * esize);
  std::vector<int64_t> idx(y.shape().size(), 0);
  const ir::Shape& out = y.shape();
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    const int64_t off = source(idx, in_strides);
    std::memcpy(&dst[static_cast<size_t>(i) * esize], &src[static_cast<size_t>(off) * esize],
                esize);
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  y = HostTensor::FromBytes(x.dtype(), out, dst).value();
}

}  // namespace

void Transpose(std::span<const int64_t> perm, const HostTensor& x, HostTensor& y) {
  CopyElements(x, y, [&](const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[static_cast<size_t>(perm[d])];
    return off;
  });
}

void Slice(const ir::SliceAttrs& a, const HostTensor& x, HostTensor& y) {
  CopyElements(x, y, [&](const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (a.begin[d] + idx[d] * a.stride[d]) * strides[d];
    return off;
  });
}

Status CheckGatherIndices(const HostTensor& indices, int64_t axis_size, bool wrap_negative) {
  const int64_t first = wrap_negative ? -axis_size : 0;
  for (const int32_t i : indices.i32()) {
    if (i < first || i >= axis_size) {
      return Error("gather: index " + std::to_string(i) + " out of range [" +
                   std::to_string(first) + ", " + std::to_string(axis_size) + ")");
    }
  }
  return OkStatus();
}

Status Gather(const ir::GatherAttrs& a, const HostTensor& x, const HostTensor& indices,
              HostTensor& y) {
  const ir::Shape& xs = x.shape();
  const size_t axis = static_cast<size_t>(*ir::NormalizeAxis(a.axis, static_cast<int64_t>(xs.size())));
  TF_RETURN_IF_ERROR(CheckGatherIndices(indices, xs[axis], a.wrap_negative));
  const ir::Shape& is = indices.shape();
  const auto ids = indices.i32();
  CopyElements(x, y, [&](const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
    int64_t k = 0;  // the element's position in the indices
    for (size_t d = 0; d < is.size(); ++d) k = k * is[d] + idx[axis + d];
    const int64_t id = ids[static_cast<size_t>(k)];
    int64_t off = (id < 0 ? id + static_cast<int64_t>(xs[axis]) : id) * strides[axis];
    for (size_t d = 0; d < axis; ++d) off += idx[d] * strides[d];
    for (size_t d = axis + 1; d < xs.size(); ++d) off += idx[d - 1 + is.size()] * strides[d];
    return off;
  });
  return OkStatus();
}

void Resize(const ir::ResizeAttrs& a, const HostTensor& x, HostTensor& y) {
  const ir::Shape& xs = x.shape();
  const ir::Shape& ys = y.shape();
  const bool nhwc = a.layout == ir::Layout::kNHWC;
  const size_t dh = nhwc ? 1 : 2, dw = nhwc ? 2 : 3, dc = nhwc ? 3 : 1;
  const int64_t n = xs[0], c = xs[dc], ih = xs[dh], iw = xs[dw], oh = ys[dh], ow = ys[dw];
  const auto th = quant::ResizeFloatTaps(static_cast<int32_t>(ih), static_cast<int32_t>(oh),
                                         a.scale_h, a.bilinear, a.align_corners,
                                         a.half_pixel_centers);
  const auto tw = quant::ResizeFloatTaps(static_cast<int32_t>(iw), static_cast<int32_t>(ow),
                                         a.scale_w, a.bilinear, a.align_corners,
                                         a.half_pixel_centers);
  auto offset = [&](int64_t b, int64_t h, int64_t w, int64_t ch, int64_t hh, int64_t ww) {
    return nhwc ? ((b * hh + h) * ww + w) * c + ch : ((b * c + ch) * hh + h) * ww + w;
  };
  const auto in = x.f32();
  auto out = y.f32();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < oh; ++i) {
        const quant::ResizeTap& ty = th[static_cast<size_t>(i)];
        for (int64_t j = 0; j < ow; ++j) {
          const quant::ResizeTap& tx = tw[static_cast<size_t>(j)];
          auto v = [&](int32_t r, int32_t col) {
            return in[static_cast<size_t>(offset(b, r, col, ch, ih, iw))];
          };
          const float top = v(ty.lo, tx.lo) * (1.0f - tx.w) + v(ty.lo, tx.hi) * tx.w;
          const float bot = v(ty.hi, tx.lo) * (1.0f - tx.w) + v(ty.hi, tx.hi) * tx.w;
          out[static_cast<size_t>(offset(b, i, j, ch, oh, ow))] =
              top * (1.0f - ty.w) + bot * ty.w;
        }
      }
    }
  }
}

void Cat(const ir::CatAttrs& a, std::span<const HostTensor* const> xs, HostTensor& y) {
  const int64_t axis = *ir::NormalizeAxis(a.axis, static_cast<int64_t>(y.shape().size()));
  switch (y.dtype()) {
    case ir::DType::kFloat32:
      CatTyped<float>(axis, xs, y);
      break;
    case ir::DType::kInt8:
      CatTyped<int8_t>(axis, xs, y);
      break;
    case ir::DType::kInt32:
      CatTyped<int32_t>(axis, xs, y);
      break;
  }
}

}  // namespace tinyforge::exec
