// Runs the model compiled by tinyforge_add_model (model.h: tf_model_net) once on a fixed
// input and prints every output value, through the C library's printf (retargeted to the
// board's console: semihosting on the emulated boards, a UART on one's own board).
//
// Input: byte k of the input tensors (in input order) is (37 * k + 11) mod 256; a float32
// input takes element k = ((37 * k + 11) mod 256 - 128) / 64. Output lines:
//   output <i> <dtype>[<dims>]: <v0> <v1> ...     (int8/int32 in decimal; float32 as the
//                                                  hexadecimal bits of each value)
// then "done", and main returns 0 (QEMU's exit status). Any failure prints one line and
// returns 1.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "model.h"

namespace {

tf_model g_model;  // the runtime state (a few hundred bytes; no heap)

const char* DtypeName(uint8_t dtype) {
  switch (dtype) {
    case TF_DTYPE_INT8: return "int8";
    case TF_DTYPE_INT32: return "int32";
    case TF_DTYPE_FLOAT32: return "float32";
    default: return "?";
  }
}

void FillInput(const tf_tensor_info& in, uint32_t& k) {
  if (in.dtype == TF_DTYPE_FLOAT32) {
    float* v = static_cast<float*>(in.data);
    for (uint32_t i = 0; i < in.bytes / 4; ++i, ++k) {
      v[i] = static_cast<float>(static_cast<int32_t>((37u * k + 11u) % 256u) - 128) / 64.0f;
    }
    return;
  }
  uint8_t* b = static_cast<uint8_t*>(in.data);
  for (uint32_t i = 0; i < in.bytes; ++i, ++k) b[i] = static_cast<uint8_t>(37u * k + 11u);
}

void PrintOutput(int32_t index, const tf_tensor_info& out) {
  std::printf("output %ld %s[", static_cast<long>(index), DtypeName(out.dtype));
  for (int d = 0; d < out.rank; ++d) std::printf(d ? ",%ld" : "%ld", static_cast<long>(out.dims[d]));
  std::printf("]:");
  if (out.dtype == TF_DTYPE_INT8) {
    const int8_t* v = static_cast<const int8_t*>(out.data);
    for (uint32_t i = 0; i < out.bytes; ++i) std::printf(" %d", v[i]);
  } else {  // int32, float32: 4-byte words
    for (uint32_t i = 0; i < out.bytes / 4; ++i) {
      uint32_t w;
      std::memcpy(&w, static_cast<const uint8_t*>(out.data) + 4 * i, 4);
      if (out.dtype == TF_DTYPE_INT32) {
        std::printf(" %ld", static_cast<long>(static_cast<int32_t>(w)));
      } else {
        std::printf(" 0x%08lx", static_cast<unsigned long>(w));
      }
    }
  }
  std::printf("\n");
}

}  // namespace

int main() {
  tf_status s = tf_model_init(&g_model, &tf_model_net);
  if (s != TF_OK) {
    std::printf("tf_model_init failed: %s\n", tf_status_str(s));
    return 1;
  }
  uint32_t k = 0;
  for (int32_t i = 0; i < tf_model_num_inputs(&g_model); ++i) {
    tf_tensor_info in;
    if (tf_model_input(&g_model, i, &in) != TF_OK) return 1;
    FillInput(in, k);
  }
  s = tf_model_run(&g_model);
  if (s != TF_OK) {
    std::printf("tf_model_run failed: %s\n", tf_status_str(s));
    return 1;
  }
  for (int32_t i = 0; i < tf_model_num_outputs(&g_model); ++i) {
    tf_tensor_info out;
    if (tf_model_output(&g_model, i, &out) != TF_OK) return 1;
    PrintOutput(i, out);
  }
  std::printf("done\n");
  return 0;
}
