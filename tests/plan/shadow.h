// Test oracle for memory plans: executes a plan symbolically on byte-tagged memory. Every
// byte records which buffer wrote it last; an op reading a tensor checks that all of the
// tensor's bytes still carry its tag. Streamed ops are simulated unit by unit with the
// runtime's schedule (reads of each unit's window, line-buffer slots, flushes). Independent
// of place.cc and verify.cc.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "plan/graph_plan.h"
#include "tinyforge/stream.h"

namespace tinyforge::plan::testing {

class Shadow {
 public:
  Shadow(const GraphSpec& g, const MemoryPlan& mp) : g_(g), mp_(mp) {
    for (const RegionUsage& r : mp.regions) mem_.emplace_back(static_cast<size_t>(r.used), -1);
  }

  // Returns "" if every read sees the bytes its tensor's producer wrote, else what broke.
  std::string Run() {
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      if (g_.tensors[t].graph_input) Write(Tensor(t), Tag(t));
    }
    for (int k : mp_.order) {
      const OpSpec& op = g_.ops[static_cast<size_t>(k)];
      for (int t : op.inputs) {
        if (!Check(Tensor(static_cast<size_t>(t)), Tag(static_cast<size_t>(t)))) {
          return "op '" + op.name + "' reads '" + g_.tensors[static_cast<size_t>(t)].name +
                 "' after it was overwritten";
        }
      }
      const StreamChoice& sc = mp_.streams[static_cast<size_t>(k)];
      if (sc.option >= 0) {
        std::string err = Stream(static_cast<size_t>(k), sc);
        if (!err.empty()) return err;
        continue;
      }
      if (op.scratch_bytes > 0) {
        Write({mp_.scratch[static_cast<size_t>(k)], op.scratch_bytes}, -2 - k);
      }
      for (int t : op.outputs) Write(Tensor(static_cast<size_t>(t)), Tag(static_cast<size_t>(t)));
    }
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      if (g_.tensors[t].graph_output && !Check(Tensor(t), Tag(t))) {
        return "graph output '" + g_.tensors[t].name + "' was overwritten";
      }
    }
    return "";
  }

 private:
  struct Range {
    Placement at;
    int64_t size;
  };
  Range Tensor(size_t t) const { return {mp_.tensors[t], g_.tensors[t].bytes}; }
  static int Tag(size_t t) { return static_cast<int>(t); }

  void Write(const Range& r, int tag) {
    auto& m = mem_[static_cast<size_t>(r.at.region)];
    for (int64_t i = 0; i < r.size; ++i) m[static_cast<size_t>(r.at.offset + i)] = tag;
  }
  bool Check(const Range& r, int tag) const {
    const auto& m = mem_[static_cast<size_t>(r.at.region)];
    for (int64_t i = 0; i < r.size; ++i) {
      if (m[static_cast<size_t>(r.at.offset + i)] != tag) return false;
    }
    return true;
  }

  std::string Stream(size_t k, const StreamChoice& sc) {
    const OpSpec& op = g_.ops[k];
    const rt::StreamGeometry& geo = sc.geometry;  // rows, or blocks of rows (widening)
    const size_t in = static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)]);
    const size_t out = static_cast<size_t>(op.outputs[0]);
    const Placement pi = mp_.tensors[in], po = mp_.tensors[out], pl = mp_.line_buffers[k];
    const int32_t slots = static_cast<int32_t>(sc.line_bytes / geo.out_unit_bytes);
    std::string err;
    // Positions are only comparable inside one region; elsewhere nothing overlaps.
    const int64_t in_base = pi.offset;
    const int64_t out_base = po.region == pi.region ? po.offset : int64_t{1} << 40;
    const bool ok = rt::RunStream(
        geo, in_base, out_base, slots,
        [&](int32_t u, int32_t slot) {
          const int64_t top = int64_t{u} * geo.stride - geo.pad;
          for (int64_t r = std::max<int64_t>(top, 0);
               r < std::min<int64_t>(top + geo.extent, geo.in_units); ++r) {
            Range row{{pi.region, pi.offset + r * geo.in_unit_bytes}, geo.in_unit_bytes};
            if (err.empty() && !Check(row, Tag(in))) {
              err = "op '" + op.name + "' unit " + std::to_string(u) + " reads input row " +
                    std::to_string(r) + " after it was overwritten";
            }
          }
          Write({{pl.region, pl.offset + int64_t{slot} * geo.out_unit_bytes},
                 rt::StreamUnitBytes(geo, u)},
                -1000 - static_cast<int>(k));
        },
        [&](int32_t v, int32_t) {
          Write({{po.region, po.offset + int64_t{v} * geo.out_unit_bytes},
                 rt::StreamUnitBytes(geo, v)},
                Tag(out));
        });
    if (!ok) return "op '" + op.name + "': line buffer overrun";
    return err;
  }

  const GraphSpec& g_;
  const MemoryPlan& mp_;
  std::vector<std::vector<int>> mem_;
};

}  // namespace tinyforge::plan::testing
