// CONCATENATION, mve class, bit-exact with __ref: concat_rows.h's walk (copied inputs row by
// row, requantized ones through a 256-entry table of the same fx::Requantize as __ref, or
// per element when too small to repay the table), with the rows copied and looked up inline
// (DLSTP / LETP loops: 3 instructions per 16 bytes copied, 4 per 16 looked up by a VLDRB
// gather) instead of a memcpy or s8_lut__mve call per row: ShuffleNet's concatenations of
// two halves run one call per pixel row of 24 to 96 bytes.
#include "kernels/concat/concat.h"
#include "kernels/common/isa.h"

#if TF_HAVE_MVE

#include "kernels/common/strided_copy_mve.h"
#include "kernels/concat/concat_rows.h"

namespace {

// n bytes of in looked up in the 256-byte table, to out.
inline void LookupMve(const int8_t* in, const int8_t* table, int8_t* out, int32_t n) {
  __asm__ volatile(
      "dlstp.8 lr, %[n]\n"
      "1:\n\t"
      "vldrb.u8 q0, [%[s]], #16\n\t"
      "vldrb.u8 q1, [%[t], q0]\n\t"
      "vstrb.8 q1, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      : [s] "+r"(in), [d] "+r"(out)
      : [n] "r"(n), [t] "r"(table)
      : "q0", "q1", "lr", "memory");
}

}  // namespace

extern "C" void s8_concat__mve(const s8_concat_params* params, const int8_t* const* inputs,
                               int8_t* output) {
  namespace kn = tinyforge::kernels;
  kn::ConcatRows<tinyforge::strided::CopyMve, LookupMve>(*params, inputs, output);
}

#endif  // TF_HAVE_MVE
