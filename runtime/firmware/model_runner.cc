// Firmware that runs one compiled model (model.h/model.cc from `tinyforge compile --target`)
// through the runtime; python/tinyforge/board.py (`tinyforge run --board`) drives it.
//
//   model_runner <input.bin> <output.bin> [profile | dump <prefix> | trace <file>]
//
// input.bin holds N >= 1 samples back to back; a sample is every model input's raw bytes, in
// input order, but the state inputs of a streaming model (docs/program-format.md, STATE):
// its N samples are one sequence of N calls from the reset state. The firmware runs N
// inferences in this one boot and writes N samples of outputs (every output's raw bytes, in
// order) to output.bin. Each inference is bracketed
// by TF_PERF region 0. For the first sample only:
//   profile      each op is bracketed by TF_PERF region 1 (one plugin event per op, in order)
//   dump PREFIX  after each op k, every arena j is written to the host file PREFIX<k>_<j>.bin
//                (k as %03d); `tinyforge run program.bin --dump-dir` writes the same files
//   trace FILE   the runtime's tracer (tinyforge/tf_trace.h, cycle source AUTO: SysTick under
//                QEMU) times each op into tf_trace_buffer, written to the host file FILE
//                (`tinyforge profile --trace FILE --program DIR` reads it); prints one line
//                "model_runner: trace: <source>, <records> records, <bytes> bytes"
// Prints one line "model_runner: ok, <N> samples, <ops> ops, run stack <bytes> bytes, ..."
// (the stack high-water of the first inference). Exit status: 0 ok, 1 a run failed,
// 2 bad arguments or input file, 3 the program failed validation (tf_model_init). A runtime
// status is printed as "tf_status <value>", which the host spells out from
// runtime/include/tinyforge/status.def (board_run.status_text): the texts (tf_status_str,
// 1.3 KB) stay out of this image (docs/decisions.md 74).
#include <cstdint>
#include <cstring>

#include "model.h"
#include "tf_board.h"
#include "tf_host.h"
#include "tf_perf.h"
#include "tf_print.h"
#include "tinyforge/tf_trace.h"

// The trace buffer, by this name for a debugger's memory read (docs/deploying.md): room for
// 512 ops. Global, not static, so that the symbol is in the ELF.
extern "C" {
__attribute__((aligned(4), used)) uint8_t tf_trace_buffer[TF_TRACE_HEADER_BYTES +
                                                          512 * TF_TRACE_RECORD_BYTES];
}

#ifndef TF_MODEL_DEF
#error "define TF_MODEL_DEF as the model's tf_model_def (tf_model_<name>)"
#endif

namespace {

tf_model g_model;
tf_trace g_trace;
const char* g_dump_prefix = nullptr;
int g_dump_errors = 0;

void ProfileOp(void*, int32_t, uint32_t, int end) {
  if (end) {
    TF_PERF_END(1);
  } else {
    TF_PERF_BEGIN(1);
  }
}

void DumpOp(void*, int32_t op, uint32_t, int end) {
  if (!end) return;
  const tf_model_def& def = TF_MODEL_DEF;
  for (uint32_t j = 0; j < def.num_arenas; ++j) {
    char path[256];
    tf_snprintf(path, sizeof path, "%s%03ld_%lu.bin", g_dump_prefix, static_cast<long>(op),
                static_cast<unsigned long>(j));
    if (tf_host_write_file(path, def.arenas[j].data, def.arenas[j].size) != 0) ++g_dump_errors;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = argc == 4 && std::strcmp(argv[3], "profile") == 0;
  const bool dump = argc == 5 && std::strcmp(argv[3], "dump") == 0;
  const bool trace = argc == 5 && std::strcmp(argv[3], "trace") == 0;
  if (argc != 3 && !profile && !dump && !trace) {
    tf_printf("usage: model_runner <input.bin> <output.bin> "
              "[profile | dump <prefix> | trace <file>]\n");
    return 2;
  }
  tf_status s = tf_model_init(&g_model, &TF_MODEL_DEF);
  if (s != TF_OK) {
    if (tf_model_error_op(&g_model) >= 0) {
      tf_printf("model_runner: init failed: op %ld (kernel id %lu): tf_status %d\n",
                static_cast<long>(tf_model_error_op(&g_model)),
                static_cast<unsigned long>(tf_model_error_kernel(&g_model)), static_cast<int>(s));
    } else {
      tf_printf("model_runner: init failed: tf_status %d\n", static_cast<int>(s));
    }
    return 3;
  }
  const int32_t num_inputs = tf_model_num_inputs(&g_model);
  const int32_t num_outputs = tf_model_num_outputs(&g_model);
  // The state inputs carry over from call to call: not read from the file.
  uint32_t state_inputs = 0;  // bit i: input i is a state input
  for (int32_t k = 0; k < tf_model_num_states(&g_model); ++k) {
    int32_t in = 0;
    if (tf_model_state(&g_model, k, &in, nullptr) != TF_OK || in >= 32) return 3;
    state_inputs |= 1u << in;
  }
  uint32_t sample_bytes = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    tf_tensor_info in;
    if (tf_model_input(&g_model, i, &in) != TF_OK) return 3;
    if ((state_inputs >> i & 1u) == 0) sample_bytes += in.bytes;
  }
  const int32_t file_bytes = tf_host_file_size(argv[1]);
  if (file_bytes < 0) {
    tf_printf("model_runner: %s: cannot read (error %ld)\n", argv[1],
              static_cast<long>(file_bytes));
    return 2;
  }
  if (sample_bytes == 0 || file_bytes == 0 ||
      static_cast<uint32_t>(file_bytes) % sample_bytes != 0) {
    tf_printf("model_runner: %s: %ld bytes is not a whole number of samples of %lu bytes\n",
              argv[1], static_cast<long>(file_bytes), static_cast<unsigned long>(sample_bytes));
    return 2;
  }
  const uint32_t samples = static_cast<uint32_t>(file_bytes) / sample_bytes;
  if (tf_host_write_file(argv[2], nullptr, 0) != 0) {
    tf_printf("model_runner: %s: cannot write\n", argv[2]);
    return 2;
  }
  uint32_t stack = 0, written = 0;
  for (uint32_t n = 0; n < samples; ++n) {
    uint32_t offset = n * sample_bytes;
    for (int32_t i = 0; i < num_inputs; ++i) {
      if (i < 32 && (state_inputs >> i & 1u) != 0) continue;
      tf_tensor_info in;
      (void)tf_model_input(&g_model, i, &in);
      const int32_t got = tf_host_read_at(argv[1], offset, in.data, in.bytes);
      if (got != static_cast<int32_t>(in.bytes)) {
        tf_printf("model_runner: %s: read failed at byte %lu (error %ld)\n", argv[1],
                  static_cast<unsigned long>(offset), static_cast<long>(got));
        return 2;
      }
      offset += in.bytes;
    }
    if (n == 0 && profile) tf_model_set_profiler(&g_model, ProfileOp, nullptr);
    if (n == 0 && dump) {
      g_dump_prefix = argv[4];
      tf_model_set_profiler(&g_model, DumpOp, nullptr);
    }
    if (n == 0 && trace) {
      s = tf_trace_init(&g_trace, tf_trace_buffer, sizeof tf_trace_buffer,
                        TF_TRACE_SOURCE_AUTO, TF_BOARD_CPU_HZ);
      if (s == TF_OK) s = tf_trace_attach(&g_trace, &g_model);
      if (s != TF_OK) {
        tf_printf("model_runner: trace: tf_status %d\n", static_cast<int>(s));
        return 1;
      }
    }
    tf_stack_rearm();
    TF_PERF_BEGIN(0);
    s = tf_model_run(&g_model);
    TF_PERF_END(0);
    if (n == 0) {
      stack = tf_stack_high_water();
      tf_model_set_profiler(&g_model, nullptr, nullptr);
    }
    if (s != TF_OK) {
      tf_printf("model_runner: run failed on sample %lu: tf_status %d\n",
                static_cast<unsigned long>(n), static_cast<int>(s));
      return 1;
    }
    for (int32_t i = 0; i < num_outputs; ++i) {
      tf_tensor_info out;
      (void)tf_model_output(&g_model, i, &out);
      if (tf_host_write_at(argv[2], written, out.data, out.bytes) != 0) {
        tf_printf("model_runner: %s: write failed\n", argv[2]);
        return 1;
      }
      written += out.bytes;
    }
  }
  if (trace) {
    const uint32_t bytes = tf_trace_bytes(&g_trace);
    if (tf_host_write_file(argv[4], tf_trace_buffer, bytes) != 0) {
      tf_printf("model_runner: %s: cannot write\n", argv[4]);
      return 1;
    }
    tf_printf("model_runner: trace: %s, %lu records, %lu bytes\n",
              tf_trace_source(&g_trace) == TF_TRACE_SOURCE_DWT ? "dwt" : "systick",
              static_cast<unsigned long>((bytes - TF_TRACE_HEADER_BYTES) /
                                         TF_TRACE_RECORD_BYTES),
              static_cast<unsigned long>(bytes));
  }
  if (g_dump_errors != 0) {
    tf_printf("model_runner: %d dump files could not be written\n", g_dump_errors);
    return 1;
  }
  tf_printf("model_runner: ok, %lu samples, %ld ops, run stack %lu bytes, stack %lu bytes, "
            "state %lu bytes\n",
            static_cast<unsigned long>(samples), static_cast<long>(tf_model_num_ops(&g_model)),
            static_cast<unsigned long>(stack), static_cast<unsigned long>(tf_stack_size()),
            static_cast<unsigned long>(sizeof g_model));
  return 0;
}
