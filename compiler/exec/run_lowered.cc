#include "exec/run_lowered.h"

#include <numeric>
#include <optional>

#include "quant/op_params.h"
#include "exec/ref_ops.h"
#include "ir/shape_inference.h"
#include "kernels/kernels.h"

namespace tinyforge::exec {
namespace {

using ir::Layout;
using ir::OpType;

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

HostTensor Permuted(const HostTensor& x, std::span<const int64_t> perm) {
  ir::Shape shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) shape[i] = x.shape()[static_cast<size_t>(perm[i])];
  HostTensor y(x.dtype(), shape);
  Transpose(perm, x, y);
  return y;
}

// Runs `kernel(x_nhwc, w_kernel_layout, y_nhwc)` for an op of `layout`: NCHW data is
// transposed in and out; `w_perm` brings NCHW-layout weights into the kernel's layout.
template <class Kernel>
void Spatial(Layout layout, const HostTensor& x, const HostTensor* w,
             std::span<const int64_t> w_perm, HostTensor& y, Kernel kernel) {
  if (layout == Layout::kNHWC) {
    kernel(x, w, y);
    return;
  }
  const HostTensor xk = Permuted(x, kToNhwc);
  HostTensor yk = Permuted(y, kToNhwc);
  std::optional<HostTensor> wk;
  if (w) wk = Permuted(*w, w_perm);
  kernel(xk, wk ? &*wk : w, yk);
  y = Permuted(yk, kToNchw);
}

const int32_t* Bias(std::span<const HostTensor* const> in) { return in[2]->i32().data(); }

// A tensor's bytes as the data movement kernels take them (int8, or float32 as bytes).
const int8_t* Raw(const HostTensor& t) {
  if (t.dtype() == ir::DType::kFloat32) return reinterpret_cast<const int8_t*>(t.f32().data());
  return t.i8().data();
}
int8_t* RawOut(HostTensor& t) {
  if (t.dtype() == ir::DType::kFloat32) return reinterpret_cast<int8_t*>(t.f32().data());
  return t.i8().data();
}

}  // namespace

Status RunLoweredOp(const ir::Graph& g, const ir::Op& op, std::span<const HostTensor* const> in,
                    HostTensor& y) {
  const HostTensor& x = *in[0];
  switch (op.type) {
    case OpType::kQConv2d: {
      TF_ASSIGN_OR_RETURN(auto p, quant::ConvParams(g, op));
      const s8_conv_params b = p.Bind();
      static constexpr int64_t kOihwToOhwi[] = {0, 2, 3, 1};
      Spatial(op.attrs_as<ir::QConv2dAttrs>().layout, x, in[1], kOihwToOhwi, y,
              [&](const HostTensor& xk, const HostTensor* wk, HostTensor& yk) {
                s8_conv__ref(&b, xk.i8().data(), wk->i8().data(), Bias(in), yk.i8().data(),
                             nullptr);
              });
      return OkStatus();
    }
    case OpType::kQDwConv2d: {
      TF_ASSIGN_OR_RETURN(auto p, quant::DwConvParams(g, op));
      const s8_dwconv_params b = p.Bind();
      static constexpr int64_t kToOneHwc[] = {1, 2, 3, 0};  // [C*m,1,kh,kw] -> [1,kh,kw,C*m]
      Spatial(op.attrs_as<ir::QDwConv2dAttrs>().layout, x, in[1], kToOneHwc, y,
              [&](const HostTensor& xk, const HostTensor* wk, HostTensor& yk) {
                s8_dwconv__ref(&b, xk.i8().data(), wk->i8().data(), Bias(in), yk.i8().data(),
                               nullptr);
              });
      return OkStatus();
    }
    case OpType::kQFc: {
      TF_ASSIGN_OR_RETURN(auto p, quant::FcParams(g, op));
      const s8_fc_params b = p.Bind();
      s8_fc__ref(&b, x.i8().data(), in[1]->i8().data(), Bias(in), y.i8().data(), nullptr);
      return OkStatus();
    }
    case OpType::kQAvgPool2d:
    case OpType::kQMaxPool2d: {
      TF_ASSIGN_OR_RETURN(const s8_pool_params p, quant::PoolParams(g, op));
      const bool avg = op.type == OpType::kQAvgPool2d;
      Spatial(op.attrs_as<ir::QPool2dAttrs>().layout, x, nullptr, {}, y,
              [&](const HostTensor& xk, const HostTensor*, HostTensor& yk) {
                (avg ? s8_avgpool__ref : s8_maxpool__ref)(&p, xk.i8().data(), yk.i8().data());
              });
      return OkStatus();
    }
    case OpType::kQAdd: {
      TF_ASSIGN_OR_RETURN(const s8_add_params p, quant::AddParams(g, op));
      s8_add__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQSub: {
      TF_ASSIGN_OR_RETURN(const s8_add_params p, quant::AddParams(g, op));
      s8_sub__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQSquaredDifference: {
      TF_ASSIGN_OR_RETURN(const s8_add_params p, quant::SquaredDifferenceParams(g, op));
      s8_squared_difference__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQMaximum:
    case OpType::kQMinimum: {
      TF_ASSIGN_OR_RETURN(const s8_minmax_params p, quant::MinMaxParams(g, op));
      (op.type == OpType::kQMaximum ? s8_maximum__ref : s8_minimum__ref)(
          &p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQPrelu: {
      TF_ASSIGN_OR_RETURN(const s8_prelu_params p, quant::PreluParams(g, op));
      s8_prelu__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kGather: {
      TF_ASSIGN_OR_RETURN(const s8_gather_params p, quant::GatherParams(g, op));
      TF_RETURN_IF_ERROR(CheckGatherIndices(*in[1], p.axis_size, p.wrap_negative != 0));
      s8_gather__ref(&p, Raw(x), in[1]->i32().data(), RawOut(y));
      return OkStatus();
    }
    case OpType::kArgMax: {
      if (x.dtype() == ir::DType::kFloat32) {
        TF_ASSIGN_OR_RETURN(const f32_argmax_params p, quant::F32ArgMaxParams(g, op));
        f32_argmax__ref(&p, x.f32().data(), y.i32().data());
        return OkStatus();
      }
      TF_ASSIGN_OR_RETURN(const s8_argmax_params p, quant::ArgMaxParams(g, op));
      s8_argmax__ref(&p, x.i8().data(), y.i32().data());
      return OkStatus();
    }
    case OpType::kQBmm: {
      TF_ASSIGN_OR_RETURN(const s8_bmm_params p, quant::BmmParams(g, op));
      s8_bmm__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data(), nullptr);
      return OkStatus();
    }
    case OpType::kQMul: {
      TF_ASSIGN_OR_RETURN(const s8_mul_params p, quant::MulParams(g, op));
      s8_mul__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQMean:
    case OpType::kQSum:
    case OpType::kQReduceMax: {
      // Reduced dims that are not one run: the kernel reads x with them moved last (as the
      // layout pass's transpose does on a device).
      TF_ASSIGN_OR_RETURN(const std::vector<int64_t> perm, quant::ReductionPerm(g, op));
      const HostTensor xp = perm.empty() ? HostTensor() : Permuted(x, perm);
      const int8_t* in = (perm.empty() ? x : xp).i8().data();
      if (op.type == OpType::kQReduceMax) {
        TF_ASSIGN_OR_RETURN(const s8_reduce_max_params p, quant::ReduceMaxParams(g, op));
        s8_reduce_max__ref(&p, in, y.i8().data());
      } else {
        TF_ASSIGN_OR_RETURN(const s8_mean_params p, quant::MeanParams(g, op));
        s8_mean__ref(&p, in, y.i8().data());
      }
      return OkStatus();
    }
    case OpType::kQSoftmax: {
      TF_ASSIGN_OR_RETURN(const s8_softmax_params p, quant::SoftmaxParams(g, op));
      const int64_t rank = static_cast<int64_t>(x.shape().size());
      const int64_t axis =
          rank == 0 ? 0 : *ir::NormalizeAxis(op.attrs_as<ir::SoftmaxAttrs>().axis, rank);
      if (rank == 0 || axis == rank - 1) {
        s8_softmax__ref(&p, x.i8().data(), y.i8().data(), nullptr);
        return OkStatus();
      }
      // Move the axis innermost, run, move it back.
      std::vector<int64_t> perm(static_cast<size_t>(rank)), inv(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      perm.erase(perm.begin() + axis);
      perm.push_back(axis);
      for (size_t i = 0; i < perm.size(); ++i) {
        inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
      }
      const HostTensor xk = Permuted(x, perm);
      HostTensor yk(y.dtype(), xk.shape());
      s8_softmax__ref(&p, xk.i8().data(), yk.i8().data(), nullptr);
      y = Permuted(yk, inv);
      return OkStatus();
    }
    case OpType::kQLayerNorm: {
      TF_ASSIGN_OR_RETURN(s8_layernorm_params p, quant::LayerNormParams(g, op));
      p.scale = in[1]->i32().data();
      p.bias = in[2]->i32().data();
      s8_layernorm__ref(&p, x.i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQLstm: {
      TF_ASSIGN_OR_RETURN(const s8_lstm_params p, quant::LstmParams(g, op));
      std::vector<int32_t> scratch((S8_LSTM_SCRATCH_BYTES(p.units) + 3) / 4);
      s8_lstm__ref(&p, x.i8().data(), in[1]->i8().data(), in[2]->i8().data(),
                   in[3]->i32().data(), y.i8().data(), scratch.data());
      return OkStatus();
    }
    case OpType::kQLut: {
      TF_ASSIGN_OR_RETURN(const s8_lut_params p, quant::LutParams(g, op));
      s8_lut__ref(&p, x.i8().data(), in[1]->i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kRequantize: {
      TF_ASSIGN_OR_RETURN(const s8_requantize_params p, quant::RequantizeParams(g, op));
      s8_requantize__ref(&p, x.i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQConcat: {
      TF_ASSIGN_OR_RETURN(auto p, quant::ConcatParams(g, op));
      const s8_concat_params b = p.Bind();
      std::vector<const int8_t*> ptrs;
      for (const HostTensor* t : in) ptrs.push_back(t->i8().data());
      s8_concat__ref(&b, ptrs.data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kQPad: {
      TF_ASSIGN_OR_RETURN(const s8_pad_params p, quant::PadParams(g, op));
      s8_pad__ref(&p, x.i8().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kTranspose:
      if (x.dtype() == ir::DType::kFloat32 && g.kind == ir::GraphKind::kInt8) {
        TF_ASSIGN_OR_RETURN(const s8_transpose_params p, quant::TransposeParams(g, op));
        s8_transpose__ref(&p, Raw(x), RawOut(y));
        return OkStatus();
      }
      Transpose(op.attrs_as<ir::TransposeAttrs>().perm, x, y);
      return OkStatus();
    case OpType::kSlice:
      if (x.dtype() == ir::DType::kFloat32 && g.kind == ir::GraphKind::kInt8) {
        TF_ASSIGN_OR_RETURN(const s8_slice_params p, quant::SliceParams(g, op));
        s8_slice__ref(&p, Raw(x), RawOut(y));
        return OkStatus();
      }
      Slice(op.attrs_as<ir::SliceAttrs>(), x, y);
      return OkStatus();
    case OpType::kResize: {
      if (x.dtype() == ir::DType::kFloat32 && g.kind != ir::GraphKind::kInt8) {
        Resize(op.attrs_as<ir::ResizeAttrs>(), x, y);
        return OkStatus();
      }
      if (x.dtype() == ir::DType::kFloat32 && op.attrs_as<ir::ResizeAttrs>().bilinear) {
        TF_ASSIGN_OR_RETURN(const quant::F32ResizeKernelParams p, quant::F32ResizeParams(g, op));
        Spatial(op.attrs_as<ir::ResizeAttrs>().layout, x, nullptr, {}, y,
                [&](const HostTensor& xk, const HostTensor*, HostTensor& yk) {
                  f32_resize__ref(&p.params, xk.f32().data(), p.table.data(), yk.f32().data());
                });
        return OkStatus();
      }
      TF_ASSIGN_OR_RETURN(const quant::ResizeKernelParams p, quant::ResizeParams(g, op));
      if (op.attrs_as<ir::ResizeAttrs>().layout == Layout::kNHWC) {
        s8_resize__ref(&p.params, Raw(x), p.table.data(), RawOut(y));
        return OkStatus();
      }
      const HostTensor xn = Permuted(x, kToNhwc);
      HostTensor yn(y.dtype(), {y.shape()[0], y.shape()[2], y.shape()[3], y.shape()[1]});
      s8_resize__ref(&p.params, Raw(xn), p.table.data(), RawOut(yn));
      y = Permuted(yn, kToNchw);
      return OkStatus();
    }
    case OpType::kReshape:
      Reshape(x, y);
      return OkStatus();
    case OpType::kQuantize: {
      TF_ASSIGN_OR_RETURN(const s8_quantize_params p, quant::QuantizeParams(g, op));
      s8_quantize__ref(&p, x.f32().data(), y.i8().data());
      return OkStatus();
    }
    case OpType::kDequantize: {
      TF_ASSIGN_OR_RETURN(const s8_dequantize_params p, quant::DequantizeParams(g, op));
      s8_dequantize__ref(&p, x.i8().data(), y.f32().data());
      return OkStatus();
    }
    // The float fallback: the device's kernels, so host and board agree bit for bit.
    case OpType::kUnary: {
      TF_ASSIGN_OR_RETURN(const f32_unary_params p, quant::F32UnaryParams(g, op));
      f32_unary__ref(&p, x.f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kBinary: {
      TF_ASSIGN_OR_RETURN(const f32_binary_params p, quant::F32BinaryParams(g, op));
      f32_binary__ref(&p, x.f32().data(), in[1]->f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kCumsum: {
      TF_ASSIGN_OR_RETURN(const f32_cumsum_params p, quant::F32CumsumParams(g, op));
      f32_cumsum__ref(&p, x.f32().data(), y.f32().data());
      return OkStatus();
    }
    // Float models (fold-float): the device's kernels too.
    case OpType::kFConv2d:
    case OpType::kFDwConv2d: {
      TF_ASSIGN_OR_RETURN(const f32_conv_params p, quant::F32ConvParams(g, op));
      const bool dw = op.type == OpType::kFDwConv2d;
      static constexpr int64_t kOihwToOhwi[] = {0, 2, 3, 1};
      static constexpr int64_t kToOneHwc[] = {1, 2, 3, 0};
      Spatial(op.attrs_as<ir::FConv2dAttrs>().layout, x, in[1],
              dw ? std::span<const int64_t>(kToOneHwc) : std::span<const int64_t>(kOihwToOhwi),
              y, [&](const HostTensor& xk, const HostTensor* wk, HostTensor& yk) {
                (dw ? f32_dwconv__ref : f32_conv__ref)(&p, xk.f32().data(), wk->f32().data(),
                                                       in[2]->f32().data(), yk.f32().data());
              });
      return OkStatus();
    }
    case OpType::kFFc: {
      TF_ASSIGN_OR_RETURN(const f32_fc_params p, quant::F32FcParams(g, op));
      f32_fc__ref(&p, x.f32().data(), in[1]->f32().data(), in[2]->f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kFAvgPool2d:
    case OpType::kFMaxPool2d: {
      TF_ASSIGN_OR_RETURN(const f32_pool_params p, quant::F32PoolParams(g, op));
      const bool avg = op.type == OpType::kFAvgPool2d;
      Spatial(op.attrs_as<ir::FPool2dAttrs>().layout, x, nullptr, {}, y,
              [&](const HostTensor& xk, const HostTensor*, HostTensor& yk) {
                (avg ? f32_avgpool__ref : f32_maxpool__ref)(&p, xk.f32().data(), yk.f32().data());
              });
      return OkStatus();
    }
    // A float model's other ops (fold-float, decision 68): the device's kernels, the data
    // movement as bytes (the parameters the emitter encodes), so host and board agree.
    case OpType::kMean:
    case OpType::kSum:
    case OpType::kAmax: {
      TF_ASSIGN_OR_RETURN(const std::vector<int64_t> perm, quant::ReductionPerm(g, op));
      const HostTensor xp = perm.empty() ? HostTensor() : Permuted(x, perm);
      TF_ASSIGN_OR_RETURN(const f32_reduce_params p, quant::F32ReduceParams(g, op));
      f32_reduce__ref(&p, (perm.empty() ? x : xp).f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kSoftmax: {
      TF_ASSIGN_OR_RETURN(const f32_softmax_params p, quant::F32SoftmaxParams(g, op));
      f32_softmax__ref(&p, x.f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kLayerNorm: {
      TF_ASSIGN_OR_RETURN(const f32_layernorm_params p, quant::F32LayerNormParams(g, op));
      f32_layernorm__ref(&p, x.f32().data(), in[1]->f32().data(), in[2]->f32().data(),
                         y.f32().data());
      return OkStatus();
    }
    case OpType::kMatmul: {
      TF_ASSIGN_OR_RETURN(const f32_bmm_params p, quant::F32BmmParams(g, op));
      f32_bmm__ref(&p, x.f32().data(), in[1]->f32().data(), y.f32().data());
      return OkStatus();
    }
    case OpType::kCat: {
      TF_ASSIGN_OR_RETURN(auto p, quant::ConcatParams(g, op));
      const s8_concat_params b = p.Bind();
      std::vector<const int8_t*> ptrs;
      for (const HostTensor* t : in) ptrs.push_back(Raw(*t));
      s8_concat__ref(&b, ptrs.data(), RawOut(y));
      return OkStatus();
    }
    case OpType::kPad: {
      TF_ASSIGN_OR_RETURN(const s8_pad_params p, quant::PadParams(g, op));
      s8_pad__ref(&p, Raw(x), RawOut(y));
      return OkStatus();
    }
    default:
      return Error::Internal(std::string(ir::OpTypeName(op.type)) + " is not a lowered op");
  }
}

}  // namespace tinyforge::exec
