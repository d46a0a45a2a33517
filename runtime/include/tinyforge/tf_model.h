/* tinyforge runtime: the plain C API.
 *
 * A compiled model is a program image (program.bin, or the const arrays in the generated
 * model.cc), a kernel table holding the kernels the program uses, and one arena per memory
 * region the program needs. The caller owns all of them; the runtime never allocates.
 *
 *   static tf_model m;                              // storage for the runtime state
 *   tf_status s = tf_model_init(&m, &tf_model_kws); // validates the program (CRC, tables,
 *                                                   // every offset, every kernel id)
 *   tf_tensor_info in;  tf_model_input(&m, 0, &in); // in.data: int8 NHWC, in.scale, ...
 *   ... write in.bytes bytes to in.data ...
 *   s = tf_model_run(&m);
 *   tf_tensor_info out; tf_model_output(&m, 0, &out);
 *
 * Input and output tensors live in the arenas: write the inputs before every run (a run may
 * reuse their bytes) and read the outputs before the next one. Not thread-safe: one run of
 * a tf_model at a time. Freestanding C / C++17, no heap, no exceptions.
 *
 * State (streaming models, docs/program-format.md STATE): a program may pair an input with
 * an output of the same shape and quantization (a GRU's hidden state, a ring buffer of past
 * frames). Each successful run copies the output into the input, so the next run continues
 * from it; tf_model_init and tf_model_reset_state set the state inputs to zero (int8: the
 * zero point). Do not write a state input before a run, except to set a chosen initial
 * state after a reset.
 */
#ifndef TINYFORGE_TF_MODEL_H_
#define TINYFORGE_TF_MODEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes, listed once (tinyforge/status.def); 0 is success. */
typedef uint8_t tf_status;
#define TF_STATUS(cpp_name, c_name, value, text) enum { c_name = value };
#include "tinyforge/status.def"
#undef TF_STATUS

/* Short English text for a status, e.g. "program CRC mismatch". Never NULL. */
const char* tf_status_str(tf_status status);

/* Element types of tensors. */
enum { TF_DTYPE_INT8 = 1, TF_DTYPE_INT32 = 2, TF_DTYPE_FLOAT32 = 3 };

#define TF_MAX_RANK 6

typedef struct tf_tensor_info {
  void* data;                /* in an arena; valid until the model is re-initialized */
  uint32_t bytes;            /* size of data */
  uint8_t dtype;             /* TF_DTYPE_* */
  uint8_t rank;              /* 1..TF_MAX_RANK */
  int32_t dims[TF_MAX_RANK]; /* outermost first (NHWC for images); unused entries 0 */
  float scale;               /* real = scale * (q - zero_point); 0 for float32 tensors */
  int32_t zero_point;
} tf_tensor_info;

/* One memory region's arena: `size` bytes at `data`, 16-byte aligned, owned by the caller. */
typedef struct tf_arena {
  uint8_t* data;
  uint32_t size;
} tf_arena;

/* A constant segment kept outside the program array (weights pinned to another region). */
typedef struct tf_segment {
  const uint8_t* data; /* 16-byte aligned; NULL: the segment is inside the program array */
  uint32_t size;
  /* NULL, or a RAM buffer of `size` bytes (16-byte aligned) that tf_model_init copies the
   * segment into; the program then reads its constants there (compile --hot-constants:
   * the hottest weights in fast RAM, their image in flash). */
  uint8_t* ram;
} tf_segment;

struct tf_kernel_entry; /* C++ (tinyforge/runtime.h); model.cc builds the table */

/* Everything tf_model_init needs; the generated model.cc defines one as tf_model_<name>. */
typedef struct tf_model_def {
  const uint8_t* program;     /* program image: header, tables, ops (+ inline constants) */
  uint32_t program_size;      /* bytes of `program` */
  const tf_segment* segments; /* num_segments entries, or NULL (all inside `program`) */
  uint32_t num_segments;
  const tf_arena* arenas; /* one per region of the program, in the program's order */
  uint32_t num_arenas;
  const struct tf_kernel_entry* kernels; /* kernel table: only the kernels this model uses */
  uint32_t num_kernels;
} tf_model_def;

/* Per-op profiling hook: called before (end = 0) and after (end = 1) every op. */
typedef void (*tf_profile_fn)(void* user, int32_t op_index, uint32_t kernel_id, int end);

/* Runtime state, owned by the caller. Opaque: use the functions below. */
#define TF_MODEL_STATE_WORDS 48
typedef struct tf_model {
  union {
    void* words[TF_MODEL_STATE_WORDS];
    uint64_t align_u64;
  } state;
} tf_model;

/* Validates the program against the kernel table and arenas and prepares `m`. On failure
 * `m` is unusable until a successful init. */
tf_status tf_model_init(tf_model* m, const tf_model_def* def);
/* Runs every op once, in order. Returns the first failing op's status. */
tf_status tf_model_run(tf_model* m);
/* Convenience for single-input, single-output models: copies `input` (exactly the input
 * tensor's size) into input 0, runs, copies output 0 to `output` (exactly its size). */
tf_status tf_model_invoke(tf_model* m, const void* input, uint32_t input_bytes, void* output,
                          uint32_t output_bytes);

int32_t tf_model_num_inputs(const tf_model* m);
int32_t tf_model_num_outputs(const tf_model* m);
int32_t tf_model_num_ops(const tf_model* m);
/* After a failed tf_model_init: the index of the op the failure is about (-1 if none) and
 * its kernel id (0 if none; tinyforge::rt::FindKernel names it). */
int32_t tf_model_error_op(const tf_model* m);
uint32_t tf_model_error_kernel(const tf_model* m);
tf_status tf_model_input(const tf_model* m, int32_t index, tf_tensor_info* info);
tf_status tf_model_output(const tf_model* m, int32_t index, tf_tensor_info* info);
/* State pairs: how many, and pair `index`'s input and output index (either pointer may be
 * NULL). */
int32_t tf_model_num_states(const tf_model* m);
tf_status tf_model_state(const tf_model* m, int32_t index, int32_t* input, int32_t* output);
/* Sets every state input to zero (int8: its zero point), as after tf_model_init. */
tf_status tf_model_reset_state(tf_model* m);
/* Installs (fn != NULL) or removes the profiling hook. */
void tf_model_set_profiler(tf_model* m, tf_profile_fn fn, void* user);
/* The program's head CRC (bytes 12..15 of program.bin): identifies the program, e.g. in a
 * device trace (tinyforge/tf_trace.h). 0 if `m` is not initialized. */
uint32_t tf_model_program_crc(const tf_model* m);

/* Arena placement for generated code: TF_ARENA_SECTION(dtcm) puts an array in the board's
 * .tf_arena.dtcm section (targets/README.md); on the host it is a plain aligned array. */
#if defined(__arm__) && !defined(TF_NO_SECTIONS)
#define TF_ARENA_SECTION(region) __attribute__((section(".tf_arena." #region), aligned(16)))
#define TF_CONST_SECTION(region) __attribute__((section(".tf_const." #region), aligned(16)))
#define TF_WEIGHTS_SECTION __attribute__((section(".tf_weights"), aligned(16)))
#else
#define TF_ARENA_SECTION(region) __attribute__((aligned(16)))
#define TF_CONST_SECTION(region) __attribute__((aligned(16)))
#define TF_WEIGHTS_SECTION __attribute__((aligned(16)))
#endif

#ifdef __cplusplus
}
#endif

#endif /* TINYFORGE_TF_MODEL_H_ */
