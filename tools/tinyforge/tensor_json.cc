#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "commands.h"
#include "support/text.h"

namespace tinyforge::cli {

nlohmann::json QuantJson(const ir::QuantParams& q) {
  return {{"scale", q.scale},
          {"zero_point", q.zero_point},
          {"axis", q.axis ? nlohmann::json(*q.axis) : nlohmann::json(nullptr)},
          {"qmin", q.qmin},
          {"qmax", q.qmax}};
}

nlohmann::json TensorJson(const ir::Graph& g, ir::TensorId id) {
  const ir::Tensor& t = g.tensor(id);
  nlohmann::json j = {
      {"index", id},      {"name", t.name},         {"dtype", std::string(ir::DTypeName(t.dtype))},
      {"shape", t.shape}, {"bytes", t.num_bytes()}, {"constant", t.is_constant()}};
  if (t.quant) j["quant"] = QuantJson(*t.quant);
  return j;
}

std::string QuantSummary(const ir::QuantParams& q) {
  if (!q.axis) {
    return "q(s=" + FormatDouble(q.scale[0]) + ", zp=" + std::to_string(q.zero_point[0]) + ")";
  }
  const auto [smin, smax] = std::minmax_element(q.scale.begin(), q.scale.end());
  const auto [zmin, zmax] = std::minmax_element(q.zero_point.begin(), q.zero_point.end());
  std::string zp = *zmin == *zmax
                       ? std::to_string(*zmin)
                       : "[" + std::to_string(*zmin) + ".." + std::to_string(*zmax) + "]";
  char s[64];
  std::snprintf(s, sizeof s, "[%.3g..%.3g]", *smin, *smax);
  return "q(axis=" + std::to_string(*q.axis) + " x" + std::to_string(q.scale.size()) + ", s=" + s +
         ", zp=" + zp + ")";
}

std::string TypeSummary(const ir::Tensor& t) {
  std::string s = std::string(ir::DTypeName(t.dtype)) + FormatInts(t.shape);
  if (t.quant) s += " " + QuantSummary(*t.quant);
  return s;
}

nlohmann::json ValueSummary(const exec::HostTensor& t) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double sum = 0;
  int64_t nans = 0;
  int64_t argmax = -1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = t.at(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    if (v > hi || argmax < 0) {
      hi = std::max(hi, v);
      argmax = i;
    }
    sum += v;
  }
  const int64_t counted = t.num_elements() - nans;
  nlohmann::json j = {{"min", counted ? nlohmann::json(lo) : nlohmann::json(nullptr)},
                      {"max", counted ? nlohmann::json(hi) : nlohmann::json(nullptr)},
                      {"mean", counted ? nlohmann::json(sum / static_cast<double>(counted))
                                       : nlohmann::json(nullptr)},
                      {"argmax", argmax},
                      {"nan_count", nans}};
  return j;
}

}  // namespace tinyforge::cli
