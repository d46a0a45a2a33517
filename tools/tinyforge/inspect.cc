// `tinyforge inspect m.tfg [--json]`: what is in a graph file, per op and in total.
#include <iostream>

#include "commands.h"
#include "import/graph_file.h"
#include "load_graph.h"
#include "ir/printer.h"
#include "ir/stats.h"
#include "support/text.h"

namespace tinyforge::cli {
namespace {

using nlohmann::json;

std::string Refs(const ir::Graph& g, const std::vector<ir::TensorId>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    out += (i ? ", %" : "%") + std::to_string(ids[i]) + " " + TypeSummary(g.tensor(ids[i]));
  }
  return out;
}

std::string Pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

void PrintText(const ir::Graph& g, const ir::GraphStats& st) {
  std::cout << "graph " << g.name << "  kind=" << ir::GraphKindName(g.kind);
  if (!g.producer.empty()) std::cout << "  producer=" << Quote(g.producer);
  std::cout << "\n";
  for (ir::TensorId t : g.inputs) {
    std::cout << "input   %" << t << " " << ir::PrintName(g.tensor(t).name) << ": "
              << TypeSummary(g.tensor(t)) << "\n";
  }
  for (ir::TensorId t : g.outputs) {
    std::cout << "output  %" << t << " " << ir::PrintName(g.tensor(t).name) << ": "
              << TypeSummary(g.tensor(t)) << "\n";
  }
  size_t name_w = 4, type_w = 4;
  for (const ir::Op& op : g.ops) {
    name_w = std::max(name_w, op.name.size());
    type_w = std::max(type_w, ir::OpTypeName(op.type).size());
  }
  std::cout << "\n"
            << Pad("#", 4) << Pad("name", name_w + 2) << Pad("type", type_w + 2)
            << Pad("MACs", 14, true) << Pad("params", 12, true) << "  inputs -> outputs\n";
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    const ir::OpStats& os = st.ops[i];
    const std::string params = os.constant_folded ? std::string("(folded)")
                               : os.params        ? WithThousands(os.params)
                                                  : "-";
    std::cout << Pad(std::to_string(i), 4) << Pad(op.name, name_w + 2)
              << Pad(std::string(ir::OpTypeName(op.type)), type_w + 2)
              << Pad(os.macs ? WithThousands(os.macs) : "-", 14, true) << Pad(params, 12, true)
              << "  " << Refs(g, op.inputs) << " -> " << Refs(g, op.outputs) << "\n";
  }
  std::cout << "\ntotals: " << g.ops.size() << " ops, " << WithThousands(st.macs) << " MACs, "
            << WithThousands(st.params) << " params, " << WithThousands(st.constant_bytes)
            << " bytes of constants, " << WithThousands(st.activation_bytes)
            << " bytes of activations";
  if (st.largest_activation >= 0) {
    std::cout << ", largest activation " << WithThousands(st.largest_activation_bytes)
              << " bytes (%" << st.largest_activation << " "
              << ir::PrintName(g.tensor(st.largest_activation).name) << ")";
  }
  std::cout << "\n";
  const std::string floats = ir::DescribeFloatShare(g, ir::ComputeFloatShare(g, st));
  if (!floats.empty()) std::cout << "float: " << floats << "\n";
}

json ToJson(const ir::Graph& g, const ir::GraphStats& st) {
  json j;
  j["name"] = g.name;
  j["kind"] = std::string(ir::GraphKindName(g.kind));
  j["producer"] = g.producer;
  j["inputs"] = json::array();
  for (ir::TensorId t : g.inputs) j["inputs"].push_back(TensorJson(g, t));
  j["outputs"] = json::array();
  for (ir::TensorId t : g.outputs) j["outputs"].push_back(TensorJson(g, t));
  j["ops"] = json::array();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    json o = {{"index", i},
              {"name", op.name},
              {"type", std::string(ir::OpTypeName(op.type))},
              {"source", op.source},
              {"macs", st.ops[i].macs},
              {"params", st.ops[i].params},
              {"param_bytes", st.ops[i].param_bytes},
              {"constant_folded", st.ops[i].constant_folded},
              {"inputs", json::array()},
              {"outputs", json::array()}};
    for (ir::TensorId t : op.inputs) o["inputs"].push_back(TensorJson(g, t));
    for (ir::TensorId t : op.outputs) o["outputs"].push_back(TensorJson(g, t));
    j["ops"].push_back(std::move(o));
  }
  const ir::FloatShare fs = ir::ComputeFloatShare(g, st);
  j["float_ops"] = {{"ops", fs.ops}, {"cost", fs.cost}, {"total_cost", fs.total},
                    {"percent", fs.percent()}};
  j["totals"] = {{"ops", g.ops.size()},
                 {"tensors", g.tensors.size()},
                 {"macs", st.macs},
                 {"params", st.params},
                 {"constant_bytes", st.constant_bytes},
                 {"activation_bytes", st.activation_bytes},
                 {"largest_activation", st.largest_activation < 0
                                            ? json(nullptr)
                                            : json{{"index", st.largest_activation},
                                                   {"name", g.tensor(st.largest_activation).name},
                                                   {"bytes", st.largest_activation_bytes}}}};
  return j;
}

}  // namespace

int Inspect(const InspectArgs& args) {
  auto graph = LoadGraph(args.graph);  // .tfg or .tflite (load_graph.h)
  if (!graph.ok()) return Fail(graph.error());
  const ir::GraphStats stats = ir::ComputeStats(*graph);
  if (args.json) {
    // Replace invalid UTF-8 rather than throw: names come from the file.
    std::cout << ToJson(*graph, stats).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    PrintText(*graph, stats);
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
