// Subcommands of the `tinyforge` CLI. Each returns the process exit code (docs/decisions.md):
//   0 success, 1 failure while running, 2 invalid input (malformed graph file or .npy,
//   wrong input shape or dtype, bad command line).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/host_tensor.h"
#include "ir/graph.h"

namespace tinyforge::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitInvalidInput = 2;

struct InspectArgs {
  std::string graph;
  bool json = false;
};
int Inspect(const InspectArgs& args);

struct RunArgs {
  std::string graph;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string dump_dir;
  bool json = false;
};
int Run(const RunArgs& args);

// Shared JSON descriptions (tensor_json.cc).
nlohmann::json QuantJson(const ir::QuantParams& q);
nlohmann::json TensorJson(const ir::Graph& g, ir::TensorId id);
// Compact human summary of quant params: "q(s=0.02, zp=-128)" or
// "q(axis=0 x64, s=[0.0011..0.034], zp=[0..0])".
std::string QuantSummary(const ir::QuantParams& q);
// "int8[1,64,25,5] q(...)".
std::string TypeSummary(const ir::Tensor& t);
// min / max / mean of a tensor's values (NaN-aware: NaNs are counted, not summed).
nlohmann::json ValueSummary(const exec::HostTensor& t);

}  // namespace tinyforge::cli
