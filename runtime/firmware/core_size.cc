// Links the runtime core and nothing else (no kernels, no op glue, no printf): its size is
// the runtime's fixed flash cost. Exits with the init status of an empty definition.
#include "tinyforge/tf_model.h"

namespace {
tf_model g_model;
const tf_kernel_entry* volatile g_kernels = nullptr;  // opaque to the optimizer
}  // namespace

int main() {
  tf_model_def def{};
  def.kernels = g_kernels;
  tf_status s = tf_model_init(&g_model, &def);
  if (s == TF_OK) s = tf_model_run(&g_model);
  tf_tensor_info info;
  (void)tf_model_input(&g_model, 0, &info);
  (void)tf_model_output(&g_model, 0, &info);
  tf_model_set_profiler(&g_model, nullptr, nullptr);
  return s == TF_E_NULL_ARGUMENT ? 0 : 1;
}
