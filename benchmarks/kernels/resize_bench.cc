// resize rows of the kernel benchmark: 2x upsampling as a YOLO neck / U-Net decoder does
// it (nearest and half-pixel bilinear, TFLite's tables), per output element.
#include "benchmarks/kernels/bench_harness.h"

namespace {

// The 2x half-pixel table TFLite's integer algorithm gives (scale 512), or nearest's.
void Axis(int32_t in, bool bilinear, int32_t* t) {
  for (int32_t i = 0; i < 2 * in; ++i, t += 3) {
    if (!bilinear) {
      t[0] = t[1] = i / 2, t[2] = 0;
      continue;
    }
    const int32_t v = i * 512 + 256 - 512;
    int32_t lo = v < 0 ? 0 : v / 1024;
    int32_t hi = (v + 1023) / 1024;
    if (hi > in - 1) hi = in - 1;
    t[0] = lo, t[1] = hi, t[2] = lo == hi ? 0 : v - 1024 * lo;
  }
}

void ResizeCase(tfb::Bench& b, int32_t h, int32_t w, int32_t c, bool bilinear) {
  s8_resize_params p{1, h, w, c, 2 * h, 2 * w, bilinear ? 1 : 0};
  const int32_t n_in = h * w * c, n_out = 4 * n_in;
  int32_t* table = b.Alloc<int32_t>(static_cast<int32_t>(s8_resize_table_entries(p)));
  int8_t* in = b.Alloc<int8_t>(n_in);
  int8_t* out = b.Alloc<int8_t>(n_out);
  Axis(h, bilinear, table);
  Axis(w, bilinear, table + 3 * p.output_h);
  b.rng.Fill(in, n_in);
  b.macs = n_out;  // output elements
  b.Run(&s8_resize__ref, [&](auto* fn) { fn(&p, in, table, out); });
}

}  // namespace

TFB_CASE(resize, "resize nearest 2x 8x8x64", "") { ResizeCase(b, 8, 8, 64, false); }
TFB_CASE(resize, "resize nearest 2x 16x16x16", "") { ResizeCase(b, 16, 16, 16, false); }
TFB_CASE(resize, "resize nearest 2x 16x16x3", "") { ResizeCase(b, 16, 16, 3, false); }
TFB_CASE(resize, "resize bilinear 2x 8x8x64", "") { ResizeCase(b, 8, 8, 64, true); }
TFB_CASE(resize, "resize bilinear 2x 16x16x16", "") { ResizeCase(b, 16, 16, 16, true); }
