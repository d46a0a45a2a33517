// AVERAGE_POOL_2D / MAX_POOL_2D and MEAN parameter builders.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/fixed_point.h"
#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {

using detail::CheckAllNonNegative;
using detail::CheckAllPositive;
using detail::CheckPositive;
using detail::CheckQuant;

Expected<s8_pool_params> MakePoolParams(const PoolSpec& s, TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "pool";
  TF_QUANT_TRY_CHECK(CheckAllPositive(kOp, {{"batches", s.batches}, {"in_h", s.in_h},
                                            {"in_w", s.in_w}, {"channels", s.channels},
                                            {"filter_h", s.filter_h}, {"filter_w", s.filter_w},
                                            {"stride_h", s.stride_h}, {"stride_w", s.stride_w}}));
  TF_QUANT_TRY_CHECK(CheckAllNonNegative(kOp, {{"padding.top", s.padding.top},
                                               {"padding.left", s.padding.left},
                                               {"padding.bottom", s.padding.bottom},
                                               {"padding.right", s.padding.right}}));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  if (input.scale != output.scale || input.zero_point != output.zero_point) {
    return Error{
        "pool: input and output must share scale and zero point (int8 pooling does "
        "not requantize); insert a requantize"};
  }
  // A window made only of padding would divide by zero (TFLite fails the op then).
  if (s.padding.top >= s.filter_h || s.padding.left >= s.filter_w ||
      s.padding.bottom >= s.filter_h || s.padding.right >= s.filter_w) {
    return Error{"pool: padding must be smaller than the filter"};
  }
  const int64_t span_h = int64_t{s.in_h} + s.padding.top + s.padding.bottom - s.filter_h;
  const int64_t span_w = int64_t{s.in_w} + s.padding.left + s.padding.right - s.filter_w;
  if (span_h < 0 || span_w < 0) return Error{"pool: filter larger than the padded input"};
  auto range = ActivationRangeInt8(s.activation, output.scale, output.zero_point);
  if (!range) return range.error().WithPrefix(kOp);

  s8_pool_params p{};
  p.batches = s.batches;
  p.in_h = s.in_h, p.in_w = s.in_w, p.channels = s.channels;
  p.out_h = static_cast<int32_t>(span_h / s.stride_h + 1);
  p.out_w = static_cast<int32_t>(span_w / s.stride_w + 1);
  p.filter_h = s.filter_h, p.filter_w = s.filter_w;
  p.stride_h = s.stride_h, p.stride_w = s.stride_w;
  p.pad_top = s.padding.top, p.pad_left = s.padding.left;
  p.act_min = range->min, p.act_max = range->max;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_pool_check(p)));
  return p;
}

bool ReductionIsOneRun(std::span<const int32_t> input_dims, std::span<const int32_t> axes) {
  const int rank = static_cast<int>(input_dims.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int32_t a : axes) {
    const int r = a < 0 ? a + rank : a;
    if (r >= 0 && r < rank) reduced[static_cast<size_t>(r)] = true;
  }
  // Over the dims of size > 1: reduced ones, then kept ones, ... must change at most twice
  // (kept* reduced* kept*).
  int runs = 0;
  bool prev = false;
  for (int i = 0; i < rank; ++i) {
    if (input_dims[i] == 1) continue;
    const bool r = reduced[static_cast<size_t>(i)];
    if (r && !prev) ++runs;
    prev = r;
  }
  return runs <= 1;
}

namespace {

struct ReduceSplit {
  int64_t outer = 1, reduce = 1, inner = 1;
};

// input_dims viewed as [outer, reduce, inner] around the reduced axes: after dropping dims
// of size 1 (reduced or not), the reduced ones must form one contiguous run.
Expected<ReduceSplit> SplitReduction(const char* op, std::span<const int32_t> input_dims,
                                     std::span<const int32_t> axes) {
  const int rank = static_cast<int>(input_dims.size());
  if (rank == 0 || axes.empty()) {
    return Error{std::string(op) + ": needs a non-scalar input and >= 1 axis"};
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int32_t a : axes) {
    const int r = a < 0 ? a + rank : a;
    if (r < 0 || r >= rank) {
      return Error{std::string(op) + ": axis " + std::to_string(a) + " out of range for rank " +
                   std::to_string(rank)};
    }
    reduced[static_cast<size_t>(r)] = true;
  }
  for (int i = 0; i < rank; ++i) {
    TF_QUANT_TRY_CHECK(CheckPositive(op, "input_dims[i]", input_dims[i]));
  }
  if (!ReductionIsOneRun(input_dims, axes)) {
    return Error{std::string(op) +
                 ": reduced axes must be contiguous (e.g. {1, 2} of NHWC; the layout pass "
                 "moves other sets together with a transpose)"};
  }
  // Dims of size 1 go to `outer`; the run of reduced dims of size > 1 splits the rest.
  int first = rank, last = -1;
  for (int i = 0; i < rank; ++i) {
    if (reduced[static_cast<size_t>(i)] && input_dims[i] > 1) first = std::min(first, i), last = i;
  }
  ReduceSplit s;
  for (int i = 0; i < rank; ++i) {
    if (i >= first && i <= last) {
      s.reduce *= input_dims[i];
    } else if (i > last) {
      s.inner *= input_dims[i];
    } else {
      s.outer *= input_dims[i];
    }
  }
  if (s.outer * s.reduce * s.inner > INT32_MAX) return Error{std::string(op) + ": tensor too large"};
  return s;
}

}  // namespace

Expected<s8_reduce_max_params> MakeReduceMaxParams(std::span<const int32_t> input_dims,
                                                   std::span<const int32_t> axes) {
  TF_ASSIGN_OR_RETURN(ReduceSplit s, SplitReduction("reduce_max", input_dims, axes));
  s8_reduce_max_params p{};
  p.outer = static_cast<int32_t>(s.outer);
  p.reduce_size = static_cast<int32_t>(s.reduce);
  p.inner = static_cast<int32_t>(s.inner);
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams("reduce_max", s8_reduce_max_check(p)));
  return p;
}

Expected<s8_mean_params> MakeMeanParams(std::span<const int32_t> input_dims,
                                        std::span<const int32_t> axes, TensorQuant input,
                                        TensorQuant output, bool sum) {
  const char* kOp = sum ? "sum" : "mean";
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  TF_ASSIGN_OR_RETURN(ReduceSplit split, SplitReduction(kOp, input_dims, axes));
  const int64_t outer = split.outer, reduce = split.reduce, inner = split.inner;

  // PrepareMeanOrSum: double in_scale / out_scale; then QuantizedMeanOrSum folds 1/count.
  QuantizedMultiplier m =
      QuantizeMultiplier(static_cast<double>(input.scale) / static_cast<double>(output.scale));
  if (!sum) {
    int shift = 63 - fx::CountLeadingZeros64(static_cast<uint64_t>(reduce));
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    if (shift < 0) return Error{"mean: in_scale / out_scale too small to fold the count"};
    m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / reduce);
    m.shift -= shift;
  }

  s8_mean_params p{};
  p.outer = static_cast<int32_t>(outer);
  p.reduce_size = static_cast<int32_t>(reduce);
  p.inner = static_cast<int32_t>(inner);
  p.input_zero_point = input.zero_point;
  p.output_zero_point = output.zero_point;
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_mean_check(p)));
  return p;
}

}  // namespace tinyforge::quant
