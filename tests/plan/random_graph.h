// Seeded random op graphs for planner tests: chains, branches and joins, elementwise ops
// that may alias, convolution-like ops that may stream (with consistent row geometry),
// scratch buffers, graph outputs in the middle, pins.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "plan/graph_plan.h"

namespace tinyforge::plan::testing {

inline GraphSpec RandomGraph(std::mt19937& rng, int max_ops, bool pins = false,
                             const std::vector<std::string>& regions = {}) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  GraphSpec g;
  auto add_tensor = [&](int64_t bytes) {
    TensorSpec t;
    t.name = "t" + std::to_string(g.tensors.size());
    t.bytes = bytes;
    if (pins && !regions.empty() && pick(0, 9) == 0) {
      t.pin = regions[static_cast<size_t>(pick(0, static_cast<int>(regions.size()) - 1))];
    }
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  };
  const int inputs = pick(1, 2);
  for (int i = 0; i < inputs; ++i) {
    const int t = add_tensor(pick(1, 8) * pick(1, 40));
    g.tensors[static_cast<size_t>(t)].graph_input = true;
  }
  const int n = pick(1, max_ops);
  for (int k = 0; k < n; ++k) {
    OpSpec op;
    op.name = "op" + std::to_string(k);
    op.macs = pick(1, 10000);
    // Prefer recent tensors (chains), sometimes older ones (skip connections).
    auto recent = [&]() {
      const int hi = static_cast<int>(g.tensors.size()) - 1;
      return pick(0, 3) == 0 ? pick(0, hi) : std::max(0, hi - pick(0, 2));
    };
    const int kind = pick(0, 9);
    if (kind < 4) {  // streamable: rows of the input -> rows of the output
      const int in = recent();
      const int64_t in_bytes = g.tensors[static_cast<size_t>(in)].bytes;
      std::vector<int> divisors;
      for (int d = 1; d <= in_bytes && d <= 40; ++d) {
        if (in_bytes % d == 0) divisors.push_back(d);
      }
      const int rows =
          divisors[static_cast<size_t>(pick(0, static_cast<int>(divisors.size()) - 1))];
      rt::StreamGeometry s{};
      s.in_units = rows;
      s.in_unit_bytes = static_cast<int32_t>(in_bytes / rows);
      s.extent = pick(1, 4);
      s.stride = pick(1, 3);
      s.pad = pick(0, s.extent - 1);
      const int pad_bottom = pick(0, s.extent - 1);
      s.units = std::max(1, (rows + s.pad + pad_bottom - s.extent) / s.stride + 1);
      s.out_unit_bytes = pick(1, 3) * pick(1, 24);
      const int out = add_tensor(int64_t{s.units} * s.out_unit_bytes);
      op.inputs = {in};
      op.outputs = {out};
      op.in_place = InPlace::kStream;
      op.stream_options = {s};
      if (pick(0, 3) == 0) {  // a second cut of the same op: pixel-like units
        rt::StreamGeometry px = s;
        if (s.extent == 1 && s.stride == 1 && s.pad == 0 && s.units == s.in_units) {
          const int split = pick(1, 3);
          if (s.in_unit_bytes % split == 0 && s.out_unit_bytes % split == 0) {
            px.units *= split, px.in_units *= split;
            px.in_unit_bytes /= split, px.out_unit_bytes /= split;
            op.stream_options.push_back(px);
          }
        }
      }
      if (pick(0, 4) == 0) op.scratch_bytes = pick(1, 64);
    } else if (kind < 6) {  // elementwise, may alias its first input
      const int a = recent();
      op.inputs = {a};
      if (pick(0, 1) == 0) {
        std::vector<int> same;
        for (size_t t = 0; t < g.tensors.size(); ++t) {
          if (g.tensors[t].bytes == g.tensors[static_cast<size_t>(a)].bytes)
            same.push_back(static_cast<int>(t));
        }
        op.inputs.push_back(same[static_cast<size_t>(pick(0, static_cast<int>(same.size()) - 1))]);
      }
      op.outputs = {add_tensor(g.tensors[static_cast<size_t>(a)].bytes)};
      op.in_place = InPlace::kAlias;
      op.in_place_input = pick(0, static_cast<int>(op.inputs.size()) - 1);
      if (g.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(op.in_place_input)])].bytes !=
          g.tensors[static_cast<size_t>(op.outputs[0])].bytes) {
        op.in_place_input = 0;
      }
    } else {  // anything else: 1-3 inputs, 1-2 outputs, maybe scratch
      const int ni = pick(1, 3);
      for (int i = 0; i < ni; ++i) op.inputs.push_back(recent());
      const int no = pick(1, 2);
      for (int i = 0; i < no; ++i) op.outputs.push_back(add_tensor(pick(1, 8) * pick(1, 50)));
      if (pick(0, 2) == 0) op.scratch_bytes = pick(1, 100);
    }
    g.ops.push_back(op);
  }
  // Outputs: the last op's, plus a few others.
  for (int t : g.ops.back().outputs) g.tensors[static_cast<size_t>(t)].graph_output = true;
  for (auto& t : g.tensors) {
    if (!t.graph_input && pick(0, 7) == 0) t.graph_output = true;
  }
  return g;
}

}  // namespace tinyforge::plan::testing
