// LUT op glue: input, a 256-byte int8 table, output. The kernels read element i before
// writing it: in-place (output == input, exactly) is allowed; the table may alias nothing.
#include "kernels/lut/lut_limits.h"
#include "op_util.h"

namespace tinyforge::rt::ops {

Status Validate_lut(const OpContext& op) {
  s8_lut_params p{};
  TF_RT_TRY((DecodeWhole<OpKind::kLut>(op, abi::kLutOperands, s8_lut_check, &p)));
  TF_RT_TRY(Expect(op, abi::kLutIn, fmt::kInt8, p.size));
  TF_RT_TRY(Expect(op, abi::kLutTable, fmt::kInt8, TF_LUT_ENTRIES));
  TF_RT_TRY(Expect(op, abi::kLutOut, fmt::kInt8, p.size, true));
  TF_RT_TRY(Disjoint(op.tensor(abi::kLutTable), op.tensor(abi::kLutOut)));
  return DisjointOrSame(op.tensor(abi::kLutIn), op.tensor(abi::kLutOut));
}

Status Run_lut(const OpContext& op) {
  return RunTwoInputs<s8_lut_params, int8_t, int8_t>(op, abi::kLutIn, abi::kLutTable,
                                                      abi::kLutOut);
}

}  // namespace tinyforge::rt::ops
