// Firmware that runs one compiled model (model.h/model.cc from `tinyforge compile --target`)
// through the runtime. argv: <input.bin> <output.bin> (semihosting files, raw tensor bytes).
// One inference is bracketed by TF_PERF region 0 (whole run); each op by region 1 when
// profiling is enabled (argv[3] == "profile"), through the runtime's per-op hook.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "model.h"
#include "tf_host.h"
#include "tf_perf.h"

#ifndef TF_MODEL_DEF
#error "define TF_MODEL_DEF as the model's tf_model_def (tf_model_<name>)"
#endif

namespace {

tf_model g_model;

void ProfileOp(void*, int32_t, uint32_t, int end) {
  if (end) {
    TF_PERF_END(1);
  } else {
    TF_PERF_BEGIN(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: model_runner <input.bin> <output.bin> [profile]\n");
    return 2;
  }
  tf_status s = tf_model_init(&g_model, &TF_MODEL_DEF);
  if (s != TF_OK) {
    std::printf("model_runner: init failed: %s\n", tf_status_str(s));
    return 3;
  }
  tf_tensor_info in, out;
  if (tf_model_input(&g_model, 0, &in) != TF_OK || tf_model_output(&g_model, 0, &out) != TF_OK) {
    return 3;
  }
  const int32_t n = tf_host_read_file(argv[1], in.data, in.bytes);
  if (n != static_cast<int32_t>(in.bytes)) {
    std::printf("model_runner: %s: expected %lu bytes, read %ld\n", argv[1],
                static_cast<unsigned long>(in.bytes), static_cast<long>(n));
    return 2;
  }
  if (argc > 3 && std::strcmp(argv[3], "profile") == 0) {
    tf_model_set_profiler(&g_model, ProfileOp, nullptr);
  }
  tf_stack_rearm();
  TF_PERF_BEGIN(0);
  s = tf_model_run(&g_model);
  TF_PERF_END(0);
  const uint32_t stack = tf_stack_high_water();
  if (s != TF_OK) {
    std::printf("model_runner: run failed: %s\n", tf_status_str(s));
    return 1;
  }
  if (tf_host_write_file(argv[2], out.data, out.bytes) != 0) return 1;
  std::printf("model_runner: ok, %ld ops, run stack %lu bytes, state %lu bytes\n",
              static_cast<long>(tf_model_num_ops(&g_model)), static_cast<unsigned long>(stack),
              static_cast<unsigned long>(sizeof g_model));
  return 0;
}
