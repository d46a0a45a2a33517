// MAXIMUM / MINIMUM, row-wise: the innermost broadcast dimension runs as one loop with
// pointer strides (0 for a broadcast input, hoisted), and a plain elementwise op is one row
// of every element. Plain C++ (the compiler vectorizes the contiguous rows where it can);
// bit-identical to the reference (a comparison has no rounding).
#include "kernels/minmax/minmax.h"

namespace {

template <bool kMax>
inline int8_t Pick(int8_t a, int8_t b) {
  return kMax ? (a > b ? a : b) : (a < b ? a : b);
}

template <bool kMax>
void Row(const int8_t* in1, int32_t s1, const int8_t* in2, int32_t s2, int8_t* out, int32_t n) {
  if (s2 == 0) {
    const int8_t b = *in2;
    if (s1 == 1) {
      for (int32_t i = 0; i < n; ++i) out[i] = Pick<kMax>(in1[i], b);
    } else {
      for (int32_t i = 0; i < n; ++i, in1 += s1) out[i] = Pick<kMax>(*in1, b);
    }
  } else if (s1 == 0) {
    const int8_t a = *in1;
    for (int32_t i = 0; i < n; ++i, in2 += s2) out[i] = Pick<kMax>(a, *in2);
  } else if (s1 == 1 && s2 == 1) {
    for (int32_t i = 0; i < n; ++i) out[i] = Pick<kMax>(in1[i], in2[i]);
  } else {
    for (int32_t i = 0; i < n; ++i, in1 += s1, in2 += s2) out[i] = Pick<kMax>(*in1, *in2);
  }
}

template <bool kMax>
void Run(const s8_minmax_params& p, const int8_t* in1, const int8_t* in2, int8_t* out) {
  const s8_broadcast_shape& s = p.shape;
  const auto [total, plain] = tinyforge::kernels::Extent(s);
  if (plain) {
    Row<kMax>(in1, 1, in2, 1, out, total);
    return;
  }
  const int32_t s1 = s.in1_strides[5], s2 = s.in2_strides[5];
  tinyforge::kernels::ForEachBroadcastRow(s, [&](int32_t a, int32_t b, int32_t o, int32_t n) {
    Row<kMax>(in1 + a, s1, in2 + b, s2, out + o, n);
  });
}

}  // namespace

extern "C" void s8_maximum__scalar(const s8_minmax_params* params, const int8_t* input1,
                                   const int8_t* input2, int8_t* output) {
  Run<true>(*params, input1, input2, output);
}

extern "C" void s8_minimum__scalar(const s8_minmax_params* params, const int8_t* input1,
                                   const int8_t* input2, int8_t* output) {
  Run<false>(*params, input1, input2, output);
}
