// CONCATENATION, PAD, QUANTIZE, requantize and DEQUANTIZE parameter builders.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "quant/kernel_params.h"
#include "quant/params_check.h"

namespace tinyforge::quant {

using detail::CheckAllNonNegative;
using detail::CheckNonNegative;
using detail::CheckPositive;
using detail::CheckQuant;

namespace {

// (double)in_scale / (double)out_scale, as TFLM's PrepareQuantizeReference.
QuantizedMultiplier RequantizeMultiplier(TensorQuant input, TensorQuant output) {
  return QuantizeMultiplier(static_cast<double>(input.scale) / static_cast<double>(output.scale));
}

}  // namespace

s8_concat_params ConcatKernelParams::Bind() const {
  s8_concat_params p = params;
  p.inputs = inputs.data();
  return p;
}

Expected<ConcatKernelParams> MakeConcatParams(const std::vector<std::vector<int32_t>>& input_dims,
                                              int32_t axis, std::span<const TensorQuant> inputs,
                                              TensorQuant output, ConcatMode mode) {
  constexpr const char* kOp = "concat";
  if (input_dims.empty() || input_dims.size() != inputs.size()) {
    return Error{"concat: needs >= 1 input and one TensorQuant per input"};
  }
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  const int rank = static_cast<int>(input_dims[0].size());
  const int a = axis < 0 ? axis + rank : axis;
  if (rank == 0 || a < 0 || a >= rank) {
    return Error{"concat: axis " + std::to_string(axis) + " out of range for rank " +
                 std::to_string(rank)};
  }
  ConcatKernelParams r;
  int64_t outer = 1;
  for (int i = 0; i < a; ++i) outer *= input_dims[0][i];
  for (size_t k = 0; k < input_dims.size(); ++k) {
    const std::vector<int32_t>& d = input_dims[k];
    TF_QUANT_TRY_CHECK(CheckQuant(kOp, "inputs[k]", inputs[k]));
    if (static_cast<int>(d.size()) != rank) return Error{"concat: inputs differ in rank"};
    int64_t axis_inner = 1;
    for (int i = 0; i < rank; ++i) {
      TF_QUANT_TRY_CHECK(CheckPositive(kOp, "input_dims", d[i]));
      if (i != a && d[i] != input_dims[0][i]) {
        return Error{"concat: input " + std::to_string(k) + " differs in dimension " +
                     std::to_string(i) + " outside the axis"};
      }
      if (i >= a) axis_inner *= d[i];
    }
    s8_concat_input in{};
    in.axis_inner = static_cast<int32_t>(axis_inner);
    const bool same = inputs[k].scale == output.scale && inputs[k].zero_point == output.zero_point;
    in.requantize = (mode == ConcatMode::kRequantizeMismatched && !same) ? 1 : 0;
    in.input_zero_point = inputs[k].zero_point;
    const QuantizedMultiplier m = RequantizeMultiplier(inputs[k], output);
    in.multiplier = m.multiplier;
    in.shift = m.shift;
    r.inputs.push_back(in);
  }
  r.params.outer = static_cast<int32_t>(outer);
  r.params.num_inputs = static_cast<int32_t>(r.inputs.size());
  r.params.output_zero_point = output.zero_point;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_concat_check(r.params)));
  for (const s8_concat_input& in : r.inputs) {
    TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_concat_input_check(in)));
  }
  return r;
}

Expected<s8_gather_params> MakeGatherParams(std::span<const int32_t> input_dims, int64_t axis, bool wrap_negative,
                                            int64_t count) {
  constexpr const char* kOp = "gather";
  const int64_t rank = static_cast<int64_t>(input_dims.size());
  if (axis < 0 || axis >= rank) {
    return Error{std::string(kOp) + ": axis " + std::to_string(axis) + " out of range"};
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) (d < axis ? outer : inner) *= input_dims[static_cast<size_t>(d)];
  }
  const int64_t len = input_dims[static_cast<size_t>(axis)];
  if (outer > TF_LIMIT_DIM || inner > TF_LIMIT_DIM || len > TF_LIMIT_DIM || count > TF_LIMIT_DIM) {
    return Error{std::string(kOp) + ": tensor too large"};
  }
  s8_gather_params p{static_cast<int32_t>(outer), static_cast<int32_t>(len),
                     static_cast<int32_t>(count), static_cast<int32_t>(inner),
                     wrap_negative ? 1 : 0};
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_gather_check(p)));
  return p;
}

Expected<s8_argmax_params> MakeArgMaxParams(std::span<const int32_t> input_dims, int64_t axis,
                                            bool is_min) {
  constexpr const char* kOp = "argmax";
  const int64_t rank = static_cast<int64_t>(input_dims.size());
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1)) {
    return Error{std::string(kOp) + ": axis " + std::to_string(axis) + " out of range"};
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    (d < axis ? outer : inner) *= d == axis ? 1 : input_dims[static_cast<size_t>(d)];
  }
  const int64_t len = rank == 0 ? 1 : input_dims[static_cast<size_t>(axis)];
  if (outer > TF_LIMIT_DIM || inner > TF_LIMIT_DIM || len > TF_LIMIT_DIM) {
    return Error{std::string(kOp) + ": tensor too large"};
  }
  s8_argmax_params p{static_cast<int32_t>(outer), static_cast<int32_t>(len),
                     static_cast<int32_t>(inner), is_min ? 1 : 0};
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_argmax_check(p)));
  return p;
}

Expected<s8_transpose_params> MakeTransposeParams(std::span<const int32_t> input_dims,
                                                  std::span<const int64_t> perm,
                                                  TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "transpose";
  constexpr int kMax = kS8TransposeMaxDims;
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  if (input.scale != output.scale || input.zero_point != output.zero_point) {
    return Error{"transpose: input and output must share scale and zero point"};
  }
  const size_t rank = input_dims.size();
  std::vector<bool> seen(rank, false);
  for (int64_t d : perm) {
    if (perm.size() != rank || d < 0 || d >= static_cast<int64_t>(rank) ||
        seen[static_cast<size_t>(d)]) {
      return Error{"transpose: perm is not a permutation of the input's dims"};
    }
    seen[static_cast<size_t>(d)] = true;
  }
  // Output dims (as input dims) without the size-1 ones; runs adjacent in both orders merge.
  std::vector<int64_t> kept;
  for (int64_t d : perm) {
    TF_QUANT_TRY_CHECK(CheckPositive(kOp, "input_dims", input_dims[static_cast<size_t>(d)]));
    if (input_dims[static_cast<size_t>(d)] > 1) kept.push_back(d);
  }
  std::vector<std::vector<int64_t>> groups;  // in output order, each a run of input dims
  for (int64_t d : kept) {
    if (!groups.empty()) {
      int64_t next = groups.back().back() + 1;  // the input dim after the run, size-1 skipped
      while (next < static_cast<int64_t>(rank) && input_dims[static_cast<size_t>(next)] == 1) {
        ++next;
      }
      if (next == d) {
        groups.back().push_back(d);
        continue;
      }
    }
    groups.push_back({d});
  }
  if (groups.size() > static_cast<size_t>(kMax)) {
    return Error{"transpose: needs more than 6 dimensions after merging"};
  }
  // Input order of the groups: sorted by their first input dim.
  std::vector<size_t> by_input(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) by_input[i] = i;
  std::sort(by_input.begin(), by_input.end(),
            [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
  s8_transpose_params p{};
  const int lead = kMax - static_cast<int>(groups.size());
  for (int i = 0; i < kMax; ++i) p.input_dims[i] = 1, p.perm[i] = i;
  std::vector<int32_t> position(groups.size());  // group -> its input position
  for (size_t k = 0; k < by_input.size(); ++k) {
    int64_t n = 1;
    for (int64_t d : groups[by_input[k]]) n *= input_dims[static_cast<size_t>(d)];
    p.input_dims[lead + static_cast<int>(k)] = static_cast<int32_t>(n);
    position[by_input[k]] = lead + static_cast<int32_t>(k);
  }
  for (size_t i = 0; i < groups.size(); ++i) p.perm[lead + static_cast<int>(i)] = position[i];
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_transpose_check(p)));
  return p;
}

Expected<s8_slice_params> MakeSliceParams(std::span<const int32_t> input_dims,
                                          std::span<const int32_t> output_dims,
                                          std::span<const int64_t> begin,
                                          std::span<const int64_t> stride, TensorQuant input,
                                          TensorQuant output) {
  constexpr const char* kOp = "slice";
  constexpr int kMax = kS8SliceMaxDims;
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  if (input.scale != output.scale || input.zero_point != output.zero_point) {
    return Error{"slice: input and output must share scale and zero point"};
  }
  const size_t rank = input_dims.size();
  if (rank > static_cast<size_t>(kMax) || output_dims.size() != rank || begin.size() != rank ||
      stride.size() != rank) {
    return Error{"slice: needs <= 6 dimensions and a begin and stride per dimension"};
  }
  s8_slice_params p{};
  const int lead = kMax - static_cast<int>(rank);
  for (int i = 0; i < kMax; ++i) p.input_dims[i] = p.output_dims[i] = 1, p.stride[i] = 1;
  for (size_t i = 0; i < rank; ++i) {
    p.input_dims[lead + static_cast<int>(i)] = input_dims[i];
    p.output_dims[lead + static_cast<int>(i)] = output_dims[i];
    p.begin[lead + static_cast<int>(i)] = static_cast<int32_t>(begin[i]);
    // A dim the output takes one element of reads no second one: any stride is right.
    p.stride[lead + static_cast<int>(i)] = output_dims[i] == 1 ? 1 : static_cast<int32_t>(stride[i]);
  }
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_slice_check(p)));
  return p;
}

Expected<s8_pad_params> MakePadParams(std::span<const int32_t> input_dims,
                                      std::span<const std::pair<int32_t, int32_t>> paddings,
                                      TensorQuant input, TensorQuant output,
                                      std::optional<int8_t> pad_value) {
  constexpr const char* kOp = "pad";
  constexpr int kMax = kS8PadMaxDims;
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  if (input_dims.size() > static_cast<size_t>(kMax) || paddings.size() != input_dims.size()) {
    return Error{"pad: needs <= 5 dimensions and one (before, after) pair per dimension"};
  }
  if (input.scale != output.scale || input.zero_point != output.zero_point) {
    return Error{"pad: input and output must share scale and zero point"};
  }
  s8_pad_params p{};
  const int lead = kMax - static_cast<int>(input_dims.size());
  for (int i = 0; i < kMax; ++i) {
    p.input_dims[i] = 1;
    p.pad_before[i] = 0;
    p.pad_after[i] = 0;
  }
  for (size_t i = 0; i < input_dims.size(); ++i) {
    TF_QUANT_TRY_CHECK(CheckPositive(kOp, "input_dims", input_dims[i]));
    TF_QUANT_TRY_CHECK(CheckAllNonNegative(kOp, {{"paddings.before", paddings[i].first},
                                                 {"paddings.after", paddings[i].second}}));
    p.input_dims[lead + i] = input_dims[i];
    p.pad_before[lead + i] = paddings[i].first;
    p.pad_after[lead + i] = paddings[i].second;
  }
  p.pad_value = pad_value ? *pad_value : output.zero_point;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_pad_check(p)));
  return p;
}

Expected<s8_quantize_params> MakeQuantizeParams(int32_t size, TensorQuant output) {
  TF_QUANT_TRY_CHECK(CheckNonNegative("quantize", "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant("quantize", "output", output));
  const s8_quantize_params p{size, output.scale, output.zero_point};
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams("quantize", s8_quantize_check(p)));
  return p;
}

Expected<s8_requantize_params> MakeRequantizeParams(int32_t size, TensorQuant input,
                                                    TensorQuant output) {
  TF_QUANT_TRY_CHECK(CheckNonNegative("requantize", "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant("requantize", "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant("requantize", "output", output));
  const QuantizedMultiplier m = RequantizeMultiplier(input, output);
  s8_requantize_params p{};
  p.size = size;
  p.input_zero_point = input.zero_point;
  p.output_zero_point = output.zero_point;
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  p.act_min = -128;
  p.act_max = 127;
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams("requantize", s8_requantize_check(p)));
  return p;
}

Expected<s8_requantize_params> MakeReluParams(int32_t size, Activation activation,
                                              TensorQuant input, TensorQuant output) {
  constexpr const char* kOp = "relu";
  TF_QUANT_TRY_CHECK(CheckNonNegative(kOp, "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "input", input));
  TF_QUANT_TRY_CHECK(CheckQuant(kOp, "output", output));
  s8_requantize_params p{};
  p.size = size;
  if (activation == Activation::kRelu) {
    const QuantizedMultiplier m = RequantizeMultiplier(input, output);
    p.input_zero_point = input.zero_point;
    p.output_zero_point = output.zero_point;
    p.multiplier = m.multiplier;
    p.shift = m.shift;
    p.act_min = std::max<int32_t>(
        -128, output.zero_point + static_cast<int32_t>(RoundHalfAway(0.0f / output.scale)));
    p.act_max = 127;
    TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_requantize_check(p)));
    return p;
  }
  if (activation == Activation::kRelu6) {
    // Identity: SRDHM(2x, 2^30) == x exactly.
    p.input_zero_point = 0;
    p.output_zero_point = 0;
    p.multiplier = int32_t{1} << 30;
    p.shift = 1;
    const int32_t six = static_cast<int32_t>(RoundHalfAway(6.0f / input.scale)) + input.zero_point;
    p.act_min = input.zero_point;
    p.act_max = std::min<int32_t>(127, std::max<int32_t>(-128, six));
    TF_QUANT_TRY_CHECK(detail::CheckKernelParams(kOp, s8_requantize_check(p)));
    return p;
  }
  return Error{"relu: only RELU and RELU6 are supported standalone"};
}

Expected<s8_dequantize_params> MakeDequantizeParams(int32_t size, TensorQuant input) {
  TF_QUANT_TRY_CHECK(CheckNonNegative("dequantize", "size", size));
  TF_QUANT_TRY_CHECK(CheckQuant("dequantize", "input", input));
  const s8_dequantize_params p{size, input.scale, input.zero_point};
  TF_QUANT_TRY_CHECK(detail::CheckKernelParams("dequantize", s8_dequantize_check(p)));
  return p;
}

}  // namespace tinyforge::quant
