// `tinyforge compare M --against pytorch|qdq|float --input x.npy [--reference R] [--json]`:
// runs a lowered program (M, or M lowered here when it is not yet) and a reference
// execution side by side and prints, per op of the program, how far its output is from the
// reference tensor of the same name: max |diff|, max diff in LSB, SNR, the share of elements
// off by more than 1 LSB, and the first op where they diverge (docs/numerics.md).
//
// Matching: tensors by name (passes keep names, docs/passes.md); an NHWC tensor is
// transposed to the reference's NCHW first; against "float", "T.q" also matches "T".
// The program's inputs are the reference's tensors of the same names ("x.q" for an int8
// program), so both sides start from identical values.
#include <cmath>
#include <functional>
#include <map>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "commands.h"
#include "compare.h"
#include "exec/executor.h"
#include "exec/npy.h"
#include "exec/ref_ops.h"
#include "load_graph.h"
#include "passes/pipeline.h"
#include "passes/util.h"
#include "support/text.h"

namespace tinyforge::cli {

namespace {

using nlohmann::json;

// Real values (dequantized when quantized) in NCHW element order.
std::vector<double> Real(const exec::HostTensor& v, const std::optional<ir::QuantParams>& q,
                         bool nhwc) {
  exec::HostTensor t = v;
  if (nhwc) {
    exec::HostTensor y(v.dtype(), passes::PermuteShape(v.shape(), passes::kNhwcToNchw));
    exec::Transpose(passes::kNhwcToNchw, v, y);
    t = std::move(y);
  }
  std::vector<double> out(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double x = t.at(i);
    if (q && !q->per_channel()) x = (x - static_cast<double>(q->zero_point[0])) * q->scale[0];
    out[static_cast<size_t>(i)] = x;
  }
  return out;
}

struct Row {
  std::string op, tensor;
  ir::Shape shape;
  double max_abs = 0, max_lsb = 0, snr_db = 0, off_share = 0;
  double differ_share = 0;  // elements that differ at all (by more than half an LSB)
  bool has_lsb = false;
  // The op alone, fed the reference's values of its inputs: its own error, not carried in.
  bool alone = false;
  double alone_max_lsb = 0, alone_off_share = 0, alone_differ_share = 0;
};

Row Measure(const std::vector<double>& s, const std::vector<double>& r, double lsb) {
  Row row;
  double signal = 0, noise = 0;
  int64_t off = 0, differ = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double d = std::abs(s[i] - r[i]);
    row.max_abs = std::max(row.max_abs, d);
    signal += r[i] * r[i];
    noise += d * d;
    if (lsb > 0 && d > lsb * (1 + 1e-6)) ++off;
    if (lsb > 0 && d > lsb / 2) ++differ;
  }
  row.differ_share = s.empty() ? 0 : static_cast<double>(differ) / static_cast<double>(s.size());
  row.snr_db = noise == 0 ? std::numeric_limits<double>::infinity()
                          : 10 * std::log10(signal / noise);
  row.has_lsb = lsb > 0;
  row.max_lsb = lsb > 0 ? row.max_abs / lsb : 0;
  row.off_share = s.empty() ? 0 : static_cast<double>(off) / static_cast<double>(s.size());
  return row;
}

std::string Fixed(double v, int digits) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

ir::Shape WithoutOnes(const ir::Shape& s) {
  ir::Shape out;
  for (int64_t d : s) {
    if (d != 1) out.push_back(d);
  }
  return out;
}

// Whether a reference tensor of shape `ref` (NCHW) holds its elements in the order of the
// program's tensor of shape `ours` (stored NHWC when `nhwc`): the same extents but for
// dimensions of 1. Data-movement passes may store a tensor under its name in another order
// (a transpose folded into its neighbours): such a pair is not compared.
// A rank-3 reference [N, C, L] as the layout pass's lift (lift_1d.cc) stores it: [N, C, 1, L].
ir::Shape AsRank4(const ir::Shape& ref) {
  return ref.size() == 3 ? ir::Shape{ref[0], ref[1], 1, ref[2]} : ref;
}

bool SameOrder(const ir::Shape& ref, const ir::Shape& ours, bool nhwc) {
  if (!nhwc) return WithoutOnes(ref) == WithoutOnes(ours);
  return AsRank4(ref).size() == 4 && ours.size() == 4 &&
         passes::PermuteShape(AsRank4(ref), passes::kNchwToNhwc) == ours;
}

// A reference value (NCHW) in the layout the program stores tensor t in; nothing when the
// two do not hold the elements in the same order (SameOrder).
std::optional<exec::HostTensor> ToProgram(const exec::HostTensor& v, const ir::Graph& program,
                                          const std::vector<bool>& edge, ir::TensorId t) {
  const bool nhwc = passes::TensorLayout(program, edge, t) == ir::Layout::kNHWC;
  const ir::Shape& shape = program.tensor(t).shape;
  if (!SameOrder(v.shape(), shape, nhwc)) return std::nullopt;
  if (!nhwc) return exec::HostTensor::FromBytes(v.dtype(), shape, v.ToBytes()).value();
  exec::HostTensor y(v.dtype(), shape);
  exec::Transpose(passes::kNchwToNhwc,
                  exec::HostTensor::FromBytes(v.dtype(), AsRank4(v.shape()), v.ToBytes()).value(), y);
  return y;
}

}  // namespace

int Compare(const CompareArgs& args) {
  if (args.against != "pytorch" && args.against != "qdq" && args.against != "float") {
    return Fail(Error("--against: expected pytorch, qdq or float"));
  }
  auto model = LoadGraph(args.graph, args.rounding);
  if (!model.ok()) return Fail(model.error());
  // The reference graph: --reference, or the model itself when it is not lowered.
  const bool model_lowered = model->kind == ir::GraphKind::kInt8;
  std::string ref_path = args.reference;
  if (ref_path.empty()) {
    if (model_lowered) {
      return Fail(Error(args.graph + " is lowered: give the exported graph it " +
                                         "came from with --reference"));
    }
    ref_path = args.graph;
  }
  auto ref = LoadGraph(ref_path);
  if (!ref.ok()) return Fail(ref.error());
  if (ref->kind == ir::GraphKind::kInt8) {
    return Fail(Error(ref_path + ": the reference must be a float or qdq graph"));
  }
  if (args.against == "qdq" && ref->kind != ir::GraphKind::kQdq) {
    return Fail(Error(ref_path + ": --against qdq needs a qdq graph"));
  }
  // The program under test.
  ir::Graph program = std::move(*model);
  if (!model_lowered) {
    auto options = MakeLowerOptions(args.passes, args.io, args.layout);
    if (!options.ok()) return Fail(options.error());
    auto runs = passes::Lower(program, *options);
    if (!runs.ok()) return Fail(runs.error().WithPrefix(args.graph));
  }
  std::vector<exec::HostTensor> inputs;
  for (const std::string& p : args.inputs) {
    auto t = exec::ReadInputNpy(p);
    if (!t.ok()) return Fail(t.error());
    inputs.push_back(std::move(*t));
  }
  Status in_ok = exec::CheckInputs(*ref, inputs);
  if (!in_ok.ok()) return Fail(in_ok.error().WithPrefix(ref_path));

  // Both runs.
  auto refs = !args.reference_dump.empty() ? ReadDump(args.reference_dump, *ref)
               : args.against == "pytorch"
                   ? RunPytorch(ref_path, *ref, args.inputs)
                   : RunHost(*ref, args.against == "float" && ref->kind == ir::GraphKind::kQdq,
                             inputs);
  if (!refs.ok()) return Fail(refs.error());
  const std::vector<bool> edge = passes::EdgeTensors(program);
  // The program's inputs: the reference's tensors of the same names. Against float, the
  // quantized input tensors come from the qdq graph run as is (the float view has none),
  // or, for a float reference, quantize its input "T" for the program's "T.q".
  RefValues qdq_values;
  if (args.against == "float" && ref->kind == ir::GraphKind::kQdq) {
    auto q = RunHost(*ref, false, inputs);
    if (!q.ok()) return Fail(q.error());
    qdq_values = std::move(*q);
  }
  const RefValues& feed = qdq_values.empty() ? *refs : qdq_values;
  std::vector<exec::HostTensor> program_inputs;
  // The reference's value for input t, in the program's layout.
  auto feed_input = [&](const exec::HostTensor& v, ir::TensorId t) -> Status {
    auto value = ToProgram(v, program, edge, t);
    if (!value) {
      return Error("the reference's tensor '" + program.tensor(t).name + "' has shape " +
                   FormatInts(v.shape()) + ", the program's input " +
                   FormatInts(program.tensor(t).shape));
    }
    program_inputs.push_back(std::move(*value));
    return OkStatus();
  };
  for (ir::TensorId t : program.inputs) {
    const ir::Tensor& want = program.tensor(t);
    auto it = feed.find(want.name);
    if (it != feed.end()) {
      if (Status st = feed_input(it->second.value, t); !st.ok()) return Fail(st.error());
      continue;
    }
    const std::string stem =
        want.name.ends_with(".q") ? want.name.substr(0, want.name.size() - 2) : "";
    auto f = stem.empty() ? feed.end() : feed.find(stem);
    if (f == feed.end() || want.dtype != ir::DType::kInt8 || !want.quant ||
        f->second.value.dtype() != ir::DType::kFloat32) {
      return Fail(Error("the reference has no tensor '" + want.name +
                                         "' to feed the program's input of that name"));
    }
    exec::HostTensor q(ir::DType::kInt8, f->second.value.shape());
    exec::Quantize(*want.quant, f->second.value, q);
    if (Status st = feed_input(q, t); !st.ok()) return Fail(st.error());
  }
  exec::RunOptions run_options;
  run_options.keep_all = true;
  auto ours = exec::Run(program, program_inputs, run_options);
  if (!ours.ok()) return Fail(ours.error().WithPrefix(args.graph));

  // An op input as the op alone sees it (memoized): a constant (empty: RunAlone reads it
  // from the program), the reference's value, or, for a tensor the reference lacks, its
  // producer run alone on such values (recursively). nullopt: not feedable (a reference of
  // another dtype or quantization). A tensor with neither a reference nor a producer (a
  // program input quantized from the reference's float, a second output) is ours.
  std::vector<int> producer(program.tensors.size(), -1);
  // Tensors the program stores in another element order than the reference under the same
  // shape: a flatten of NHWC data into a qfc (the layout pass permutes the qfc's weight
  // columns instead) and reshapes of it. Not compared; fed alone from their producers.
  std::vector<bool> reordered(program.tensors.size(), false);
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const ir::Op& op = program.ops[i];
    const ir::TensorId out0 = op.outputs[0];
    producer[static_cast<size_t>(out0)] = static_cast<int>(i);
    if (op.type != ir::OpType::kReshape) continue;
    const ir::TensorId x = op.inputs[0];
    const ir::Shape& xs = program.tensor(x).shape;  // NHWC when stored so
    const bool nhwc = passes::TensorLayout(program, edge, x) == ir::Layout::kNHWC;
    reordered[static_cast<size_t>(out0)] =
        reordered[static_cast<size_t>(x)] ||
        (nhwc && xs.size() == 4 && xs[3] > 1 && xs[1] * xs[2] > 1 &&
         passes::TensorLayout(program, edge, out0) != ir::Layout::kNHWC);
  }
  std::map<ir::TensorId, std::optional<exec::HostTensor>> fed_memo;
  std::function<Expected<std::optional<exec::HostTensor>>(ir::TensorId)> fed =
      [&](ir::TensorId t) -> Expected<std::optional<exec::HostTensor>> {
    const ir::Tensor& d = program.tensor(t);
    if (d.is_constant()) return std::optional<exec::HostTensor>(exec::HostTensor());
    if (auto m = fed_memo.find(t); m != fed_memo.end()) return m->second;
    std::optional<exec::HostTensor> v;
    if (auto ref = refs->find(d.name); ref != refs->end() && !reordered[static_cast<size_t>(t)]) {
      if (ref->second.value.dtype() == d.dtype && ref->second.quant == d.quant) {
        v = ToProgram(ref->second.value, program, edge, t);
      }
    } else if (const int p = producer[static_cast<size_t>(t)]; p >= 0) {
      const ir::Op& src = program.ops[static_cast<size_t>(p)];
      std::vector<exec::HostTensor> ins;
      bool ok = true;
      for (ir::TensorId in : src.inputs) {
        auto x = fed(in);
        if (!x.ok()) return x.error();
        ok = ok && x->has_value();
        ins.push_back(x->has_value() ? std::move(**x) : exec::HostTensor());
      }
      if (ok) {
        auto out = exec::RunAlone(program, src, ins);
        if (!out.ok()) return out.error();
        v = std::move(*out);
      }
    } else if ((*ours).tensors[static_cast<size_t>(t)]) {
      v = *(*ours).tensors[static_cast<size_t>(t)];  // an input fed from the reference
    }
    fed_memo[t] = v;
    return v;
  };

  // One row per op whose output has a reference.
  std::vector<Row> rows;
  int first = -1;
  for (const ir::Op& op : program.ops) {
    const ir::TensorId t = op.outputs[0];
    const ir::Tensor& desc = program.tensor(t);
    auto it = refs->find(desc.name);
    if (it == refs->end() && args.against == "float" && desc.name.size() > 2 &&
        desc.name.ends_with(".q")) {
      it = refs->find(desc.name.substr(0, desc.name.size() - 2));
    }
    if (it == refs->end() || !(*ours).tensors[static_cast<size_t>(t)]) continue;
    if (reordered[static_cast<size_t>(t)]) continue;
    const bool nhwc = passes::TensorLayout(program, edge, t) == ir::Layout::kNHWC;
    if (!SameOrder(it->second.value.shape(), desc.shape, nhwc)) continue;
    const std::vector<double> s = Real(*(*ours).tensors[static_cast<size_t>(t)], desc.quant, nhwc);
    const std::vector<double> r = Real(it->second.value, it->second.quant, false);
    // One LSB: the program tensor's scale (for a float output, the int8 tensor it dequantizes).
    double lsb = desc.quant && !desc.quant->per_channel() ? desc.quant->scale[0] : 0;
    if (!desc.quant && op.type == ir::OpType::kDequantize) {
      const ir::Tensor& src = program.tensor(op.inputs[0]);
      if (src.quant) lsb = src.quant->scale[0];
    }
    Row row = Measure(s, r, lsb);
    row.op = op.name, row.tensor = desc.name, row.shape = it->second.value.shape();
    // The op alone on the reference's inputs (where the reference has them, same dtype and
    // quantization); an input the reference lacks (a tensor the compiler made: a group's
    // slice, a partial concat) is recomputed from the reference's values by its producers.
    std::vector<exec::HostTensor> values;
    bool feedable = true;
    for (ir::TensorId in : op.inputs) {
      auto value = fed(in);
      if (!value.ok()) return Fail(value.error());
      feedable = feedable && value->has_value();
      values.push_back(value->has_value() ? std::move(**value) : exec::HostTensor());
    }
    if (feedable && row.has_lsb) {
      auto alone = exec::RunAlone(program, op, values);
      if (!alone.ok()) return Fail(alone.error());
      const Row a = Measure(Real(*alone, desc.quant, nhwc), r, lsb);
      row.alone = true, row.alone_max_lsb = a.max_lsb, row.alone_off_share = a.off_share;
      row.alone_differ_share = a.differ_share;
    }
    const double share = row.alone ? row.alone_off_share : row.off_share;
    if (first < 0 && row.has_lsb && share > args.tolerance) first = static_cast<int>(rows.size());
    rows.push_back(std::move(row));
  }

  if (args.json) {
    json j = {{"graph", args.graph},
              {"reference", ref_path},
              {"against", args.against},
              {"tolerance", args.tolerance},
              {"ops", json::array()}};
    for (const Row& r : rows) {
      j["ops"].push_back({{"op", r.op},
                          {"tensor", r.tensor},
                          {"shape", r.shape},
                          {"max_abs_diff", r.max_abs},
                          {"max_diff_lsb", r.has_lsb ? json(r.max_lsb) : json(nullptr)},
                          {"snr_db", std::isinf(r.snr_db) ? json(nullptr) : json(r.snr_db)},
                          {"off_by_more_than_1_lsb", r.has_lsb ? json(r.off_share) : json(nullptr)},
                          {"differ", r.has_lsb ? json(r.differ_share) : json(nullptr)},
                          {"alone_max_diff_lsb", r.alone ? json(r.alone_max_lsb) : json(nullptr)},
                          {"alone_differ", r.alone ? json(r.alone_differ_share) : json(nullptr)},
                          {"alone_off_by_more_than_1_lsb",
                           r.alone ? json(r.alone_off_share) : json(nullptr)}});
    }
    j["first_divergence"] = first < 0 ? json(nullptr)
                                      : json({{"op", rows[static_cast<size_t>(first)].op},
                                              {"tensor", rows[static_cast<size_t>(first)].tensor}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "compare " << args.graph << " against " << args.against << " (" << ref_path
            << "): " << rows.size() << " ops matched by tensor name\n";
  std::cout << "   " << std::left << std::setw(4) << "#" << std::setw(28) << "op" << std::setw(28)
            << "tensor" << std::right << std::setw(12) << "max|diff|" << std::setw(9) << "LSB"
            << std::setw(9) << "SNR dB" << std::setw(9) << ">1 LSB"
            << "   alone: LSB  >1 LSB  differ\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::cout << (static_cast<int>(i) == first ? "-> " : "   ") << std::left << std::setw(4) << i
              << std::setw(28) << r.op << std::setw(28) << r.tensor << std::right << std::setw(12)
              << Fixed(r.max_abs, 5) << std::setw(9) << (r.has_lsb ? Fixed(r.max_lsb, 2) : "-")
              << std::setw(9) << Fixed(r.snr_db, 1) << std::setw(8)
              << (r.has_lsb ? Fixed(100 * r.off_share, 2) : "-") << (r.has_lsb ? "%" : " ");
    if (r.alone) {
      std::cout << std::setw(13) << Fixed(r.alone_max_lsb, 2) << std::setw(7)
                << Fixed(100 * r.alone_off_share, 2) << "%" << std::setw(7)
                << Fixed(100 * r.alone_differ_share, 2) << "%";
    }
    std::cout << "\n";
  }
  if (first < 0) {
    std::cout << "no divergence: every op, fed the reference's inputs, is within 1 LSB on at "
              << "least " << Fixed(100 * (1 - args.tolerance), 2) << "% of its elements\n";
  } else {
    const Row& r = rows[static_cast<size_t>(first)];
    std::cout << "first divergence: op '" << r.op << "' (tensor '" << r.tensor << "'): "
              << Fixed(100 * (r.alone ? r.alone_off_share : r.off_share), 2)
              << "% of its elements off by more than 1 LSB"
              << (r.alone ? " with the reference's inputs" : "") << "\n";
  }
  return kExitOk;
}

}  // namespace tinyforge::cli
