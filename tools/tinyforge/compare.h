// Internal to `tinyforge compare`: the reference executions (compare_ref.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "exec/host_tensor.h"
#include "ir/graph.h"
#include "support/expected.h"

namespace tinyforge::cli {

// A reference value and the quantization of its tensor (nullopt for float tensors).
struct RefValue {
  exec::HostTensor value;
  std::optional<ir::QuantParams> quant;
};
using RefValues = std::map<std::string, RefValue>;  // by tensor name

// `ref` run by the host executor: as it is (qdq, float graphs) or, for "float" on a qdq
// graph, its float view (every dequantize(quantize(t)) read as t: activations unquantized,
// weights as the file has them).
Expected<RefValues> RunHost(const ir::Graph& ref, bool float_view,
                            const std::vector<exec::HostTensor>& inputs);

// Reference values dumped earlier: DIR/manifest.json ({name: file}, as tinyforge.interp
// writes it) or DIR/NNN_<name>.npy files of `tinyforge run --dump-dir` (NNN = tensor index
// in `ref`).
Expected<RefValues> ReadDump(const std::string& dir, const ir::Graph& ref);

// `ref_path` run by tinyforge.interp (PyTorch ops; the Python python_env.h finds).
Expected<RefValues> RunPytorch(const std::string& ref_path, const ir::Graph& ref,
                               const std::vector<std::string>& input_paths);

}  // namespace tinyforge::cli
