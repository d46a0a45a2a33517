// DEPTHWISE_CONV_2D for Cortex-M55 (Helium / MVE) without scratch and without per-call set-up:
// s8_dwconv__mve's plane path packs the weights and fills zero-point padded planes per call
// (scratch: s8_dwconv_mve_scratch_bytes), which a streamed op pays on every block of rows;
// this variant reads the NHWC input and the 1HWC weights where they are. Lanes are 4
// channels; up to 4 consecutive output pixels along x share each weight load (one VLDRB, VMUL and
// VADD per pixel per tap). The input offset is not added per tap: the accumulator
// starts at the bias, adds w * x over the valid taps, then input_offset * sum(w) over the
// same taps (the same int32 sum modulo 2^32 as __ref's). Pixels whose window crosses the left
// or right edge run one at a time over their valid columns; rows outside the input are
// skipped for the whole row of outputs. Depth multipliers other than 1 run __ref. The
// planner chooses it where the plane path's scratch would raise the plan's peak
// (docs/decisions.md 58).
#include "kernels/common/isa.h"
#include "kernels/dwconv/dwconv.h"

#if TF_HAVE_MVE

#include <arm_mve.h>

#include "kernels/common/fixed_point.h"
#include "kernels/dwconv/mve_dwconv.h"

namespace tinyforge::dwconv_mve {
namespace {

struct Direct {
  int32_t c;         // channels (in_c == out_c)
  int32_t tap_x;     // input bytes per kx: dilation_w * c
  int32_t tap_y;     // input bytes per ky: dilation_h * in_w * c
  int32_t w_row;     // weight bytes per ky: k_w * c
  int32_t px_step;   // input bytes between neighbouring outputs along x: stride_w * c
  int32_t input_offset, output_offset, act_min, act_max;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
};

#if defined(__GNUC__) && !defined(__clang__)
// The rows of N (2 to 4) neighbouring pixels' 3-column windows, one group of 4 channels, in
// registers (GCC 12 keeps the C++ form's pointers and accumulators partly on the stack:
// about 3.4 instructions per MAC): per tap one weight load and its add to `wsum`, then per
// pixel a load, VMUL and VADD; every pointer steps by a register (the steps are channel
// counts, beyond VLDRB's 7-bit immediate; widening loads take low registers). `in` / `w`:
// the first pixel's first valid tap / its weights, at channel 0 of the group; rows of
// weights are 3 * c bytes apart.
#define TF_DW_W                       \
  "vldrb.s32 %q[qw], [%[w]]\n\t"       \
  "add %[w], %[w], %[wc]\n\t"          \
  "vadd.i32 %q[s], %q[s], %q[qw]\n\t"
#define TF_DW_PX(j)                           \
  "vldrb.s32 %q[qx], [%[p" #j "]]\n\t"         \
  "add %[p" #j "], %[p" #j "], %[tx]\n\t"      \
  "vmul.i32 %q[qx], %q[qx], %q[qw]\n\t"        \
  "vadd.i32 %q[a" #j "], %q[a" #j "], %q[qx]\n\t"
#define TF_DW_ROW(j) "add %[p" #j "], %[p" #j "], %[row]\n\t"
#define TF_DW_LOOP(tap, rows) \
  "wls lr, %[ny], 2f\n1:\n\t" tap tap tap rows "le lr, 1b\n2:\n"
template <int N>
inline void Taps3(const int8_t* in, const int8_t* w, int32_t ny, const struct Direct& d,
                  int32x4_t& a0, int32x4_t& a1, int32x4_t& a2, int32x4_t& a3,
                  int32x4_t& wsum) {
  const int8_t* p0 = in;
  const int8_t* p1 = in + d.px_step;
  const int8_t* p2 = in + 2 * d.px_step;
  const int8_t* p3 = in + 3 * d.px_step;
  const int32_t tx = d.tap_x, wc = d.c, row = d.tap_y - 3 * d.tap_x;
  int32x4_t qw, qx;
  if constexpr (N == 4) {
    __asm__ volatile(
        TF_DW_LOOP(TF_DW_W TF_DW_PX(0) TF_DW_PX(1) TF_DW_PX(2) TF_DW_PX(3),
                   TF_DW_ROW(0) TF_DW_ROW(1) TF_DW_ROW(2) TF_DW_ROW(3))
        : [a0] "+w"(a0), [a1] "+w"(a1), [a2] "+w"(a2), [a3] "+w"(a3), [s] "+w"(wsum),
          [qw] "=&w"(qw), [qx] "=&w"(qx), [p0] "+l"(p0), [p1] "+l"(p1), [p2] "+l"(p2),
          [p3] "+l"(p3), [w] "+l"(w)
        : [ny] "r"(ny), [tx] "r"(tx), [wc] "r"(wc), [row] "r"(row)
        : "lr", "memory");
  } else if constexpr (N == 3) {
    __asm__ volatile(
        TF_DW_LOOP(TF_DW_W TF_DW_PX(0) TF_DW_PX(1) TF_DW_PX(2),
                   TF_DW_ROW(0) TF_DW_ROW(1) TF_DW_ROW(2))
        : [a0] "+w"(a0), [a1] "+w"(a1), [a2] "+w"(a2), [s] "+w"(wsum), [qw] "=&w"(qw),
          [qx] "=&w"(qx), [p0] "+l"(p0), [p1] "+l"(p1), [p2] "+l"(p2), [w] "+l"(w)
        : [ny] "r"(ny), [tx] "r"(tx), [wc] "r"(wc), [row] "r"(row)
        : "lr", "memory");
    (void)a3;
    (void)p3;
  } else {
    static_assert(N == 2, "2 to 4 pixels");
    __asm__ volatile(
        TF_DW_LOOP(TF_DW_W TF_DW_PX(0) TF_DW_PX(1), TF_DW_ROW(0) TF_DW_ROW(1))
        : [a0] "+w"(a0), [a1] "+w"(a1), [s] "+w"(wsum), [qw] "=&w"(qw), [qx] "=&w"(qx),
          [p0] "+l"(p0), [p1] "+l"(p1), [w] "+l"(w)
        : [ny] "r"(ny), [tx] "r"(tx), [wc] "r"(wc), [row] "r"(row)
        : "lr", "memory");
    (void)a2;
    (void)a3;
    (void)p2;
    (void)p3;
  }
}
#undef TF_DW_LOOP
#undef TF_DW_ROW
#undef TF_DW_PX
#undef TF_DW_W
#endif

// One group of 4 channels (from `oc`) of N neighbouring output pixels along x whose windows
// have the same valid taps, ny rows by nx columns: `in` is the first pixel's input at its
// first valid tap (channel 0), `w` the weights of that tap, `out` the first pixel's output.
// kPred: the last, partial group (lanes from c - oc on are neither read nor written).
template <int N, bool kSingle, bool kNonNeg, bool kPred>
inline void Group(const Direct& d, const int8_t* in, const int8_t* w, int32_t ny, int32_t nx,
                  int8_t* out, int32_t oc) {
  const mve_pred16_t pred = kPred ? vctp32q(static_cast<uint32_t>(d.c - oc)) : 0xffff;
  auto load8 = [pred](const int8_t* ptr) {
    return kPred ? vldrbq_z_s32(ptr, pred) : vldrbq_s32(ptr);
  };
  auto load32 = [pred](const int32_t* ptr) {
    return kPred ? vldrwq_z_s32(ptr, pred) : vld1q_s32(ptr);
  };
  const int32x4_t b = d.bias != nullptr ? load32(d.bias + oc) : vdupq_n_s32(0);
  // Named accumulators (an array stays in memory: GCC spills it every tap).
  int32x4_t a0 = b, a1 = b, a2 = b, a3 = b;
  int32x4_t wsum = vdupq_n_s32(0);
  const int8_t* in_row = in + oc;
  const int8_t* w_row = w + oc;
  const int32_t tap_x = d.tap_x, px1 = d.px_step, px2 = 2 * d.px_step, px3 = 3 * d.px_step;
  const int32_t c = d.c;
  auto tap = [&](const int8_t* ip, const int8_t* wp) {
    const int32x4_t wv = load8(wp);
    wsum = vaddq_s32(wsum, wv);
    a0 = vaddq_s32(a0, vmulq_s32(load8(ip), wv));
    if constexpr (N > 1) a1 = vaddq_s32(a1, vmulq_s32(load8(ip + px1), wv));
    if constexpr (N > 2) a2 = vaddq_s32(a2, vmulq_s32(load8(ip + px2), wv));
    if constexpr (N > 3) a3 = vaddq_s32(a3, vmulq_s32(load8(ip + px3), wv));
  };
#if defined(__GNUC__) && !defined(__clang__)
  if constexpr (N > 1 && !kPred) {
    if (nx == 3 && d.w_row == 3 * c) {  // N pixels of a 3-column window: in registers
      Taps3<N>(in_row, w_row, ny, d, a0, a1, a2, a3, wsum);
      ny = 0;
    }
  }
#endif
  for (int32_t ky = 0; ky < ny; ++ky, in_row += d.tap_y, w_row += d.w_row) {
    if (nx == 3) {  // 3 columns (3x3 kernels, the common case) unrolled
      tap(in_row, w_row);
      tap(in_row + tap_x, w_row + c);
      tap(in_row + 2 * tap_x, w_row + 2 * c);
      continue;
    }
    const int8_t* ip = in_row;
    const int8_t* wp = w_row;
    for (int32_t kx = 0; kx < nx; ++kx, ip += tap_x, wp += c) tap(ip, wp);
  }
  const int32x4_t acc[4] = {a0, a1, a2, a3};
  const int32x4_t mult = load32(d.multiplier + oc);
  const int32x4_t shift = load32(d.shift + oc);
  const int32x4_t vmin = vdupq_n_s32(d.act_min), vmax = vdupq_n_s32(d.act_max);
  for (int j = 0; j < N; ++j) {
    int32x4_t r = vmlaq_n_s32(acc[j], wsum, d.input_offset);
    r = RequantVector<kSingle, kNonNeg>(r, mult, shift);
    r = vaddq_n_s32(r, d.output_offset);
    r = vminq_s32(vmaxq_s32(r, vmin), vmax);
    if (kPred) {
      vstrbq_p_s32(out + j * c + oc, r, pred);
    } else {
      vstrbq_s32(out + j * c + oc, r);
    }
  }
}

// Every channel of N pixels (as Group): whole groups of 4 unpredicated, then the partial
// group pixel by pixel.
template <int N, bool kSingle, bool kNonNeg>
void Pixels(const Direct& d, const int8_t* in, const int8_t* w, int32_t ny, int32_t nx,
            int8_t* out) {
  const int32_t whole = d.c & ~3;
  for (int32_t oc = 0; oc < whole; oc += 4) {
    Group<N, kSingle, kNonNeg, false>(d, in, w, ny, nx, out, oc);
  }
  if (whole < d.c) {
    for (int j = 0; j < N; ++j) {
      Group<1, kSingle, kNonNeg, true>(d, in + j * d.px_step, w, ny, nx, out + j * d.c, whole);
    }
  }
}

// Valid taps [lo, hi) of a window starting at input coordinate `x0` (dilation `dil`, `k`
// taps) over an input of `n`: lo = ceil(-x0 / dil) when x0 < 0, hi = ceil((n - x0) / dil).
inline void TapRange(int32_t x0, int32_t dil, int32_t k, int32_t n, int32_t* lo, int32_t* hi) {
  *lo = x0 < 0 ? (-x0 + dil - 1) / dil : 0;
  const int32_t room = n - x0;
  *hi = room <= 0 ? 0 : fx::Min(k, (room + dil - 1) / dil);
  if (*hi < *lo) *hi = *lo;
}

template <bool kSingle, bool kNonNeg>
void Run(const s8_dwconv_params& p, const int8_t* input, const int8_t* weights,
         const int32_t* bias, int8_t* output) {
  Direct d;
  d.c = p.out_c;
  d.tap_x = p.dilation_w * p.in_c;
  d.tap_y = p.dilation_h * p.in_w * p.in_c;
  d.w_row = p.k_w * p.out_c;
  d.px_step = p.stride_w * p.in_c;
  d.input_offset = p.input_offset;
  d.output_offset = p.output_offset;
  d.act_min = p.act_min;
  d.act_max = p.act_max;
  d.bias = bias;
  d.multiplier = p.multiplier;
  d.shift = p.shift;
  const int32_t eff_w = (p.k_w - 1) * p.dilation_w + 1;
  const int32_t in_row_bytes = p.in_w * p.in_c;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* in_batch = input + b * p.in_h * in_row_bytes;
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_top;
      int32_t ky0, ky1;
      TapRange(in_y0, p.dilation_h, p.k_h, p.in_h, &ky0, &ky1);
      const int32_t ny = ky1 - ky0;
      // Input row of the first valid tap (only read when ny > 0).
      const int8_t* in_row =
          ny > 0 ? in_batch + (in_y0 + ky0 * p.dilation_h) * in_row_bytes : in_batch;
      const int8_t* w_row = weights + ky0 * d.w_row;
      int8_t* out_row = output + ((b * p.out_h + oy) * p.out_w) * p.out_c;
      auto interior = [&](int32_t ox) {
        const int32_t x0 = ox * p.stride_w - p.pad_left;
        return x0 >= 0 && x0 + eff_w <= p.in_w;
      };
      int32_t ox = 0;
      while (ox < p.out_w) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_left;
        int8_t* out = out_row + ox * p.out_c;
        if (interior(ox)) {
          // (Non-negative shifts, rare, one pixel at a time: less code.)
          int32_t n = 1;
          while (!kNonNeg && n < 4 && ox + n < p.out_w && interior(ox + n)) ++n;
          const int8_t* in = in_row + in_x0 * p.in_c;
          if (kNonNeg || n == 1)
            Pixels<1, kSingle, kNonNeg>(d, in, w_row, ny, p.k_w, out);
          else if (n == 4)
            Pixels<kNonNeg ? 1 : 4, kSingle, kNonNeg>(d, in, w_row, ny, p.k_w, out);
          else if (n == 3)
            Pixels<kNonNeg ? 1 : 3, kSingle, kNonNeg>(d, in, w_row, ny, p.k_w, out);
          else
            Pixels<kNonNeg ? 1 : 2, kSingle, kNonNeg>(d, in, w_row, ny, p.k_w, out);
          ox += n;
          continue;
        }
        int32_t kx0, kx1;
        TapRange(in_x0, p.dilation_w, p.k_w, p.in_w, &kx0, &kx1);
        const int32_t nx = ny > 0 ? kx1 - kx0 : 0;
        const int8_t* in = nx > 0 ? in_row + (in_x0 + kx0 * p.dilation_w) * p.in_c : in_row;
        Pixels<1, kSingle, kNonNeg>(d, in, w_row + kx0 * p.out_c, ny, nx, out);
        ++ox;
      }
    }
  }
}

}  // namespace
}  // namespace tinyforge::dwconv_mve

extern "C" void s8_dwconv__mve_direct(const s8_dwconv_params* params, const int8_t* input,
                                      const int8_t* weights, const int32_t* bias,
                                      int8_t* output, void* /*scratch*/) {
  using tinyforge::dwconv_mve::Run;
  const s8_dwconv_params& p = *params;
  if (p.depth_multiplier != 1) {
    s8_dwconv__ref(params, input, weights, bias, output, nullptr);
    return;
  }
  bool non_neg = false;
  for (int32_t c = 0; c < p.out_c; ++c) non_neg = non_neg || p.shift[c] >= 0;
  if (p.rounding == TF_ROUNDING_SINGLE) {
    if (non_neg)
      Run<true, true>(p, input, weights, bias, output);
    else
      Run<true, false>(p, input, weights, bias, output);
  } else {
    if (non_neg)
      Run<false, true>(p, input, weights, bias, output);
    else
      Run<false, false>(p, input, weights, bias, output);
  }
}

#endif  // TF_HAVE_MVE
