// `tinyforge ops [--json]`: what this build supports, from the registries themselves: the
// graph-file op types (compiler/ir/op_types.def), the .tflite builtins the importer lowers
// (compiler/import/tflite), and every kernel variant per operator kind and instruction-set
// class (kernels/families.def and the families' .inc). docs/ops.md is generated from it
// (python -m tinyforge.ops_doc) together with the PyTorch front end's op table.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "import/tflite/tflite_import.h"
#include "ir/op.h"
#include "tinyforge/kernel_ids.h"

namespace tinyforge::cli {

namespace {

const char* IsaName(rt::Isa isa) {
  switch (isa) {
    case rt::Isa::kRef: return "ref";
    case rt::Isa::kScalar: return "scalar";
    case rt::Isa::kDsp: return "dsp";
    case rt::Isa::kMve: return "mve";
  }
  return "?";
}

}  // namespace

int Ops(const OpsArgs& args) {
  nlohmann::json j;
  j["graph_ops"] = nlohmann::json::array();
  for (int t = 0; t < ir::kNumOpTypes; ++t) {
    const ir::OpType type = static_cast<ir::OpType>(t);
    const ir::OpTypeInfo& info = ir::GetOpTypeInfo(type);
    j["graph_ops"].push_back({{"name", std::string(info.name)},
                              {"lowered", ir::IsLoweredOp(type)},
                              {"min_inputs", info.min_inputs},
                              {"max_inputs", info.max_inputs},
                              {"outputs", info.num_outputs}});
  }
  j["tflite_builtins"] = nlohmann::json::array();
  for (const auto& [name, version] : import::SupportedTfliteBuiltins()) {
    j["tflite_builtins"].push_back({{"name", name}, {"max_version", version}});
  }
  j["kernels"] = nlohmann::json::array();
  for (const rt::KernelInfo& k : rt::kKernels) {
    j["kernels"].push_back(
        {{"op", rt::OpKindName(k.op)}, {"symbol", k.symbol}, {"isa", IsaName(k.isa)}});
  }
  if (args.json) {
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "graph-file ops:";
  for (const auto& op : j["graph_ops"]) std::cout << " " << op["name"].get<std::string>();
  std::cout << "\n.tflite builtins:";
  for (const auto& op : j["tflite_builtins"]) std::cout << " " << op["name"].get<std::string>();
  std::cout << "\nkernels:";
  for (const auto& k : j["kernels"]) std::cout << " " << k["symbol"].get<std::string>();
  std::cout << "\n(docs/ops.md: the PyTorch ops and what each maps to)\n";
  return kExitOk;
}

}  // namespace tinyforge::cli
