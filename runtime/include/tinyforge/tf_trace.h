/* tinyforge runtime: the on-device per-op tracer (docs/deploying.md, "Profiling on the
 * device"; the binary format: docs/trace-format.md).
 *
 * A ready tf_profile_fn that times every op with a hardware cycle counter and appends one
 * record per op to a caller-owned buffer. The buffer *is* the trace file at all times
 * (header + records, little-endian): drain its first tf_trace_bytes() bytes over
 * semihosting, a UART or a debugger memory read, then
 *     tinyforge profile --trace trace.bin --program <compile --target -o dir>
 * prints the per-op table and JSON of `tinyforge profile`, in cycles.
 *
 *   static uint8_t trace_buf[4096] __attribute__((aligned(4)));
 *   static tf_trace tr;
 *   tf_trace_init(&tr, trace_buf, sizeof trace_buf, TF_TRACE_SOURCE_AUTO, 100000000u);
 *   tf_trace_attach(&tr, &model);      // installs the hook; records the program's CRC
 *   tf_model_run(&model);              // one record per op
 *   tf_model_set_profiler(&model, NULL, NULL);
 *   send(trace_buf, tf_trace_bytes(&tr));
 *
 * Cycle sources (chosen at init):
 *   DWT      DWT->CYCCNT (Armv7-M, Armv8-M Mainline): enabled by init; chosen by AUTO when
 *            it is implemented and counts (QEMU's reads as 0: AUTO then takes SysTick).
 *   SYSTICK  the SysTick down-counter. If SysTick is off, init starts it (processor clock,
 *            reload 0xFFFFFF, no interrupt); if it already runs (an RTOS tick) it is used as
 *            configured, with period LOAD + 1. An op's cycles are exact when it takes less
 *            than one period (2^24 cycles: 0.17 s at 100 MHz); an op that spans a full
 *            period or more is flagged (record flag TF_TRACE_REC_WRAPPED, header flag
 *            TF_TRACE_WRAPPED; COUNTFLAG is how it is seen, so nothing else may read
 *            SYST_CSR while a model runs), its figure is then a lower bound.
 *   CUSTOM   a caller's up-counting 32-bit clock (tf_trace_set_clock), e.g. a timer.
 * The figure of an op is the counter difference between the hook's begin and end reads: the
 * kernel, the runtime's dispatch and part of the hook itself (docs/deploying.md gives the
 * overhead). Freestanding C / C++17, no heap; not thread-safe, like tf_model_run.
 */
#ifndef TINYFORGE_TF_TRACE_H_
#define TINYFORGE_TF_TRACE_H_

#include <stdint.h>

#include "tinyforge/tf_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format (docs/trace-format.md): a 32-byte header, then 12-byte records. */
#define TF_TRACE_MAGIC "TFTR"
#define TF_TRACE_VERSION 1
#define TF_TRACE_HEADER_BYTES 32
#define TF_TRACE_RECORD_BYTES 12

/* Cycle sources (header byte 10). AUTO is only an argument of tf_trace_init. */
enum {
  TF_TRACE_SOURCE_AUTO = 0,
  TF_TRACE_SOURCE_DWT = 1,
  TF_TRACE_SOURCE_SYSTICK = 2,
  TF_TRACE_SOURCE_CUSTOM = 3
};
/* Header flags (byte 11). */
enum { TF_TRACE_FULL = 1u, TF_TRACE_WRAPPED = 2u };
/* Record flags. */
enum { TF_TRACE_REC_WRAPPED = 1u };

/* A caller-provided clock: an up-counting 32-bit counter (wraps modulo 2^32). */
typedef uint32_t (*tf_trace_clock_fn)(void* user);

/* Tracer state, owned by the caller; fields are private (use the functions). */
typedef struct tf_trace {
  uint8_t* buf;
  uint32_t capacity; /* records that fit */
  uint32_t count;
  uint32_t dropped;
  uint32_t begin;    /* counter at the current op's begin */
  uint32_t period;   /* SysTick: LOAD + 1 */
  tf_trace_clock_fn clock;
  void* clock_user;
  uint8_t source;
  uint8_t flags;
} tf_trace;

/* Prepares `t` to write into `buffer` (`bytes` bytes, 4-byte aligned, at least the 32-byte
 * header; each op takes 12 more) and picks the cycle source: AUTO (DWT if it counts, else
 * SysTick), DWT or SYSTICK, or CUSTOM (call tf_trace_set_clock next). `clock_hz`: the
 * counter's frequency for the header (0: unknown). Writes the header (0 records).
 * Errors: TF_E_NULL_ARGUMENT (null pointer, unaligned buffer), TF_E_TRACE_BUFFER (buffer
 * smaller than the header), TF_E_TRACE_SOURCE (the source asked for is not there: DWT
 * without a counting CYCCNT, or DWT/SysTick/AUTO in a build not for an M-profile core). */
tf_status tf_trace_init(tf_trace* t, void* buffer, uint32_t bytes, int source,
                        uint32_t clock_hz);
/* Source CUSTOM: the clock the hook reads. */
void tf_trace_set_clock(tf_trace* t, tf_trace_clock_fn fn, void* user);
/* The source init chose (TF_TRACE_SOURCE_*). */
int tf_trace_source(const tf_trace* t);
/* Records the model's program CRC and op count in the header and installs tf_trace_hook
 * on `m` (tf_model_set_profiler(m, tf_trace_hook, t)). TF_E_NOT_READY if `m` is not
 * initialized. */
tf_status tf_trace_attach(tf_trace* t, tf_model* m);
/* The profiling hook (tf_profile_fn); `user` is the tf_trace. Records past the buffer's
 * capacity are counted (header `dropped`, flag TF_TRACE_FULL), not written. */
void tf_trace_hook(void* user, int32_t op_index, uint32_t kernel_id, int end);
/* Forgets the records (for the next run); keeps the source and the header fields. */
void tf_trace_reset(tf_trace* t);
/* Bytes of the trace in the buffer: header + records written. */
uint32_t tf_trace_bytes(const tf_trace* t);

#ifdef __cplusplus
}
#endif

#endif /* TINYFORGE_TF_TRACE_H_ */
