// ADD op glue (runtime/ops/binary_glue.h). An ADD ending a pipe (streamed: a residual
// block's add, docs/decisions.md 99) runs by rows in the pipe executor, linked only where a
// program has a pipe (runtime/ops/pipe_run.cc).
#include "binary_glue.h"
#include "kernels/add/add_limits.h"

extern "C" TF_PATH_WEAK tinyforge::rt::Status tf_rt_pipe_add(const tinyforge::rt::OpContext& op,
                                                             bool validate);

namespace tinyforge::rt::ops {

Status Validate_add(const OpContext& op) {
  if (op.streamed()) return tf_rt_pipe_add != nullptr ? tf_rt_pipe_add(op, true) : Status::kBadOp;
  return ValidateBinary<OpKind::kAdd, s8_add_params>(op, s8_add_check);
}

Status Run_add(const OpContext& op) {
  if (op.streamed()) return tf_rt_pipe_add(op, false);  // (validated: linked)
  return RunBinary<s8_add_params>(op);
}

}  // namespace tinyforge::rt::ops
