// The C API (tf_model.h) over rt::Model, which lives inside the caller's tf_model.
#include <new>

#include "tinyforge/runtime.h"
#include "tinyforge/tf_model.h"

namespace {

using tinyforge::rt::Model;
using tinyforge::rt::Status;

static_assert(sizeof(Model) <= sizeof(tf_model), "raise TF_MODEL_STATE_WORDS");
static_assert(alignof(Model) <= alignof(tf_model), "tf_model is under-aligned for Model");

Model* Get(tf_model* m) { return std::launder(reinterpret_cast<Model*>(m->state.words)); }
const Model* Get(const tf_model* m) {
  return std::launder(reinterpret_cast<const Model*>(m->state.words));
}
tf_status C(Status s) { return static_cast<tf_status>(s); }

// A tf_model not (successfully) initialized: its state may be garbage, but this check
// is only reached after tf_model_init has constructed a Model in it.
bool Ready(const tf_model* m) { return m != nullptr && Get(m)->ready(); }

}  // namespace

extern "C" {

tf_status tf_model_init(tf_model* m, const tf_model_def* def) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  Model* model = new (m->state.words) Model();  // placement: no allocation
  if (def == nullptr) return TF_E_NULL_ARGUMENT;
  return C(model->Init(*def));
}

tf_status tf_model_run(tf_model* m) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  return C(Get(m)->Run());
}

tf_status tf_model_invoke(tf_model* m, const void* input, uint32_t input_bytes, void* output,
                          uint32_t output_bytes) {
  if (m == nullptr || input == nullptr || output == nullptr) return TF_E_NULL_ARGUMENT;
  if (!Ready(m)) return TF_E_NOT_READY;
  tf_tensor_info in, out;
  const Model* model = Get(m);
  if (model->num_inputs() != 1 || model->num_outputs() != 1) return TF_E_BAD_INDEX;
  tf_status s = C(model->Input(0, &in));
  if (s != TF_OK) return s;
  s = C(model->Output(0, &out));
  if (s != TF_OK) return s;
  if (in.bytes != input_bytes || out.bytes != output_bytes) return TF_E_BAD_INDEX;
  __builtin_memcpy(in.data, input, input_bytes);
  s = C(Get(m)->Run());
  if (s != TF_OK) return s;
  __builtin_memcpy(output, out.data, output_bytes);
  return TF_OK;
}

int32_t tf_model_num_inputs(const tf_model* m) { return Ready(m) ? Get(m)->num_inputs() : 0; }
uint32_t tf_model_program_crc(const tf_model* m) { return Ready(m) ? Get(m)->program_crc() : 0; }
int32_t tf_model_num_outputs(const tf_model* m) { return Ready(m) ? Get(m)->num_outputs() : 0; }
int32_t tf_model_num_ops(const tf_model* m) { return Ready(m) ? Get(m)->num_ops() : 0; }

int32_t tf_model_error_op(const tf_model* m) { return m != nullptr ? Get(m)->error_op() : -1; }
uint32_t tf_model_error_kernel(const tf_model* m) {
  return m != nullptr ? Get(m)->error_kernel() : 0;
}

tf_status tf_model_input(const tf_model* m, int32_t index, tf_tensor_info* info) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  return C(Get(m)->Input(index, info));
}

tf_status tf_model_output(const tf_model* m, int32_t index, tf_tensor_info* info) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  return C(Get(m)->Output(index, info));
}

int32_t tf_model_num_states(const tf_model* m) { return Ready(m) ? Get(m)->num_states() : 0; }

tf_status tf_model_state(const tf_model* m, int32_t index, int32_t* input, int32_t* output) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  return C(Get(m)->StateInfo(index, input, output));
}

tf_status tf_model_reset_state(tf_model* m) {
  if (m == nullptr) return TF_E_NULL_ARGUMENT;
  return C(Get(m)->ResetState());
}

void tf_model_set_profiler(tf_model* m, tf_profile_fn fn, void* user) {
  if (m != nullptr) Get(m)->SetProfiler(fn, user);
}

}  // extern "C"
