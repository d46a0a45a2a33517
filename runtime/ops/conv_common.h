// Op glue shared by CONV_2D and DEPTHWISE_CONV_2D. The two parameter structs have one layout
// (asserted below): the same fields at the same places but for words 7..9 (conv: k_h, k_w,
// filter_in_c; dwconv: depth_multiplier, k_h, k_w), and the op records hold the same words in
// that order. So both families' glue decodes the record into an s8_conv_params by position
// and runs one validation and one streamed-call loop (defined once, in conv.cc), told where
// the kernel size is; the family's parameter check, weight size and scratch size are its own
// (docs/decisions.md 64: one instantiation for the two families, not two).
#ifndef TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_
#define TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_

#include <cstddef>

#include "op_util.h"

namespace tinyforge::rt::ops::conv_common {

// Where a family's kernel size lies in the conv layout: conv's own k_h / k_w, or dwconv's
// (words 8 and 9, conv's k_w and filter_in_c).
struct KernelSize {
  int32_t s8_conv_params::*h;
  int32_t s8_conv_params::*w;
};
inline constexpr KernelSize kConvKernel{&s8_conv_params::k_h, &s8_conv_params::k_w};
inline constexpr KernelSize kDwconvKernel{&s8_conv_params::k_w, &s8_conv_params::filter_in_c};

#define TF_CONV_SAME_PLACE(a, b) \
  static_assert(offsetof(s8_conv_params, a) == offsetof(s8_dwconv_params, b), #a " vs " #b)
TF_CONV_SAME_PLACE(batches, batches);
TF_CONV_SAME_PLACE(in_h, in_h);
TF_CONV_SAME_PLACE(in_w, in_w);
TF_CONV_SAME_PLACE(in_c, in_c);
TF_CONV_SAME_PLACE(out_h, out_h);
TF_CONV_SAME_PLACE(out_w, out_w);
TF_CONV_SAME_PLACE(out_c, out_c);
TF_CONV_SAME_PLACE(k_h, depth_multiplier);
TF_CONV_SAME_PLACE(k_w, k_h);
TF_CONV_SAME_PLACE(filter_in_c, k_w);
TF_CONV_SAME_PLACE(stride_h, stride_h);
TF_CONV_SAME_PLACE(stride_w, stride_w);
TF_CONV_SAME_PLACE(dilation_h, dilation_h);
TF_CONV_SAME_PLACE(dilation_w, dilation_w);
TF_CONV_SAME_PLACE(pad_top, pad_top);
TF_CONV_SAME_PLACE(pad_left, pad_left);
TF_CONV_SAME_PLACE(input_offset, input_offset);
TF_CONV_SAME_PLACE(output_offset, output_offset);
TF_CONV_SAME_PLACE(multiplier, multiplier);
TF_CONV_SAME_PLACE(shift, shift);
TF_CONV_SAME_PLACE(act_min, act_min);
TF_CONV_SAME_PLACE(act_max, act_max);
TF_CONV_SAME_PLACE(rounding, rounding);
TF_CONV_SAME_PLACE(warm, warm);
#undef TF_CONV_SAME_PLACE
static_assert(sizeof(s8_conv_params) == sizeof(s8_dwconv_params));

// The op records: word i of a dwconv record lands, decoded as conv, where the dwconv struct
// has it (the visitors of tinyforge/op_abi.h list the fields in struct order).
namespace layout_check {
struct Numbering {  // field i gets i
  int32_t n = 0;
  constexpr void operator()(int32_t& f) { f = n++; }
};
constexpr bool RecordsMatch() {
  s8_conv_params c{};
  s8_dwconv_params d{};
  Numbering nc, nd;
  abi::VisitParams(c, nc);
  abi::VisitParams(d, nd);
  return abi::ParamCount<s8_conv_params>() == abi::ParamCount<s8_dwconv_params>() &&
         c.batches == d.batches && c.in_h == d.in_h && c.in_w == d.in_w && c.in_c == d.in_c &&
         c.out_h == d.out_h && c.out_w == d.out_w && c.out_c == d.out_c &&
         c.k_h == d.depth_multiplier && c.k_w == d.k_h && c.filter_in_c == d.k_w &&
         c.stride_h == d.stride_h && c.stride_w == d.stride_w && c.dilation_h == d.dilation_h &&
         c.dilation_w == d.dilation_w && c.pad_top == d.pad_top && c.pad_left == d.pad_left &&
         c.input_offset == d.input_offset && c.output_offset == d.output_offset &&
         c.act_min == d.act_min && c.act_max == d.act_max && c.rounding == d.rounding;
}
static_assert(RecordsMatch(), "conv and dwconv op records differ beyond words 7..9");
}  // namespace layout_check

// The dwconv parameters held in an s8_conv_params (decoded by position).
inline s8_dwconv_params AsDwconv(const s8_conv_params& c) {
  s8_dwconv_params d;
  __builtin_memcpy(&d, &c, sizeof d);
  return d;
}

// Counts and decodes the op record into *p (conv layout).
Status Decode(const OpContext& op, s8_conv_params* p);
// Decodes the parameter words and what the caller sets from the op's flags (lean).
void DecodeAll(const OpContext& op, s8_conv_params* p);

// Validate_conv / Validate_dwconv after Decode and the family's parameter check: `kind` is
// the family's operator (the kernel's scratch reads p as its struct), `weight_bytes` its
// weight tensor's size (negative when it overflows).
TF_RT_COLD Status Validate(const OpContext& op, const s8_conv_params& p, OpKind kind,
                           KernelSize k, int64_t weight_bytes);

// Run_conv / Run_dwconv (`kind`): the whole tensor in one call, or unit by unit when streamed.
Status Run(const OpContext& op, OpKind kind);

}  // namespace tinyforge::rt::ops::conv_common

#endif  // TINYFORGE_RUNTIME_OPS_CONV_COMMON_H_
