// Host reference implementations of every op type, in float32 with PyTorch's semantics
// (NCHW activations, OIHW weights). They are the oracle the compiler's lowered graphs and
// the device kernels are compared against, so clarity beats speed.
//
// Common contract: the caller (the executor) has verified the graph, so input shapes and
// attributes are what ir::InferShapes accepts, and `y` is allocated with the inferred
// output shape and the output's dtype. The functions do not re-check.
//
// Numerics:
//  - conv2d / linear accumulate in double, add the bias, round once to float32
//    (PyTorch's float kernels differ by ~1e-6 relative, from their summation order).
//  - avg_pool2d sums in float32 in row-major window order and divides once, as PyTorch's
//    CPU kernel does; mean sums in double; softmax subtracts the max (stable).
//  - NaN propagates through relu, hardtanh, max_pool2d, softmax, as in PyTorch.
//  - quantize / dequantize: PyTorch's decomposed ops bit for bit, see QuantizeValue.
#pragma once

#include <span>

#include "exec/host_tensor.h"
#include "ir/attrs.h"
#include "ir/op.h"
#include "ir/quant.h"

namespace tinyforge::exec {

// x [N,C,H,W], w [O,C/groups,kh,kw], b [O] or null -> y [N,O,Ho,Wo].
void Conv2d(const ir::Conv2dAttrs& a, const HostTensor& x, const HostTensor& w, const HostTensor* b,
            HostTensor& y);
// x [...,in], w [out,in], b [out] or null -> y [...,out].
void Linear(const HostTensor& x, const HostTensor& w, const HostTensor* b, HostTensor& y);
// torch.matmul of two rank >= 2 tensors (batch dims broadcast), float32.
void Matmul(const HostTensor& a, const HostTensor& b, HostTensor& y);

void Relu(const HostTensor& x, HostTensor& y);
void Hardtanh(const ir::HardtanhAttrs& a, const HostTensor& x, HostTensor& y);
// The float functions of one input (ir/unary_fn.h: sigmoid, tanh, hardswish, silu, ...).
void UnaryFn(ir::OpType type, const ir::Attrs& attrs, const HostTensor& x, HostTensor& y);
// y = a op b with NumPy broadcasting (y has the broadcast shape).
enum class BinaryOp { kAdd, kSub, kMul, kMaximum, kMinimum, kPrelu };
void Binary(BinaryOp op, const HostTensor& a, const HostTensor& b, HostTensor& y);

// x [N,C,H,W] or [C,H,W]; padding [top, left, bottom, right].
void MaxPool2d(const ir::MaxPool2dAttrs& a, const HostTensor& x, HostTensor& y);
void AvgPool2d(const ir::AvgPool2dAttrs& a, const HostTensor& x, HostTensor& y);

void Mean(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y);
void Sum(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y);
void Amax(const ir::MeanAttrs& a, const HostTensor& x, HostTensor& y);
void Pad(const ir::PadAttrs& a, const HostTensor& x, HostTensor& y);
void Softmax(const ir::SoftmaxAttrs& a, const HostTensor& x, HostTensor& y);
// Over the last dim (mean and variance in double); weight / bias may be null.
void LayerNorm(const ir::LayerNormAttrs& a, const HostTensor& x, const HostTensor* weight,
               const HostTensor* bias, HostTensor& y);
// float32 x -> int32 indices; ties and NaN as torch.argmax (first index; NaN is the max).
void ArgMax(const ir::ArgMaxAttrs& a, const HostTensor& x, HostTensor& y);

// Any dtype (data movement only).
void Reshape(const HostTensor& x, HostTensor& y);
void Cat(const ir::CatAttrs& a, std::span<const HostTensor* const> xs, HostTensor& y);
// y = x.permute(perm); y is allocated with the permuted shape.
void Transpose(std::span<const int64_t> perm, const HostTensor& x, HostTensor& y);
void Slice(const ir::SliceAttrs& a, const HostTensor& x, HostTensor& y);
// Every int32 index in [0, axis_size) ([-axis_size, axis_size) with wrap_negative), else
// the error naming the first one outside
// (docs/decisions.md 39: the runtime refuses such a run too).
Status CheckGatherIndices(const HostTensor& indices, int64_t axis_size, bool wrap_negative);
// y = x gathered along a.axis by the int32 `indices` (checked with CheckGatherIndices).
Status Gather(const ir::GatherAttrs& a, const HostTensor& x, const HostTensor& indices,
              HostTensor& y);
// Float32 resize (quant::ResizeFloatTaps); y is allocated with its shape.
void Resize(const ir::ResizeAttrs& a, const HostTensor& x, HostTensor& y);

// x float32 -> y int8/int32 with `q` (y's parameters); per-channel along q.axis of y.
void Quantize(const ir::QuantParams& q, const HostTensor& x, HostTensor& y);
// x int8/int32 with `q` (x's parameters) -> y float32. Per-tensor: DequantizeValue.
// Per-channel, as dequantize_per_channel: float32(q - zp) * float32(scale), i.e. the
// scales are taken to be the float32 tensor PT2E's observers produce (see
// docs/graph-format.md: the file stores them as the doubles of those float32 values).
void Dequantize(const ir::QuantParams& q, const HostTensor& x, HostTensor& y);

// PyTorch's quantized_decomposed.quantize_per_tensor on one value:
//   clamp(nearbyint(x * (float)(1.0 / scale)) + (float)zp, qmin, qmax)
// with the multiply, the round (half to even) and the add in float32. Per-channel
// quantize_per_channel computes 1.0f / float32(scale) instead, which is the same float
// whenever the scale is a float32 value (a float quotient rounded from double is exact). NaN gives
// 0 clamped into [qmin, qmax] (what PyTorch's int8 conversion yields on x86); values beyond the
// int32 range saturate (where PyTorch's own float->int32 conversion overflows).
int64_t QuantizeValue(float x, double scale, int64_t zero_point, int64_t qmin, int64_t qmax);
// ((float)q - (float)zp) * (float)scale, all in float32.
float DequantizeValue(int64_t q, double scale, int64_t zero_point);

}  // namespace tinyforge::exec
