// BuiltinOptions union -> TfOptions (tflite_options.h).
#include "import/tflite/tflite_options.h"

#include <cstring>

namespace tinyforge::import::tflite {
namespace {

// The elements of a verified vector, copied bytewise (see Vec in tflite_reader.cc).
std::vector<int32_t> Ints(const flatbuffers::Vector<int32_t>* v) {
  std::vector<int32_t> out(v ? v->size() : 0);
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(int32_t));
  return out;
}

}  // namespace

bool DecodeOptions(const fb::Operator* o, TfOptions& opt) {
  opt.options_type = static_cast<uint8_t>(o->builtin_options_type());
  if (opt.options_type != 0 && !o->builtin_options()) return false;
  using T = fb::BuiltinOptions;
  switch (o->builtin_options_type()) {
    case T::Conv2DOptions: {
      const auto* p = o->builtin_options_as_Conv2DOptions();
      opt.padding = static_cast<int8_t>(p->padding());
      opt.stride_w = p->stride_w();
      opt.stride_h = p->stride_h();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      opt.dilation_w = p->dilation_w_factor();
      opt.dilation_h = p->dilation_h_factor();
      opt.quantized_bias_type = static_cast<int8_t>(p->quantized_bias_type());
      break;
    }
    case T::DepthwiseConv2DOptions: {
      const auto* p = o->builtin_options_as_DepthwiseConv2DOptions();
      opt.padding = static_cast<int8_t>(p->padding());
      opt.stride_w = p->stride_w();
      opt.stride_h = p->stride_h();
      opt.depth_multiplier = p->depth_multiplier();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      opt.dilation_w = p->dilation_w_factor();
      opt.dilation_h = p->dilation_h_factor();
      break;
    }
    case T::Pool2DOptions: {
      const auto* p = o->builtin_options_as_Pool2DOptions();
      opt.padding = static_cast<int8_t>(p->padding());
      opt.stride_w = p->stride_w();
      opt.stride_h = p->stride_h();
      opt.filter_w = p->filter_width();
      opt.filter_h = p->filter_height();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      break;
    }
    case T::FullyConnectedOptions: {
      const auto* p = o->builtin_options_as_FullyConnectedOptions();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      opt.weights_format = p->weights_format();
      opt.keep_num_dims = p->keep_num_dims();
      opt.asymmetric_quantize_inputs = p->asymmetric_quantize_inputs();
      opt.quantized_bias_type = static_cast<int8_t>(p->quantized_bias_type());
      break;
    }
    case T::TransposeConvOptions: {
      const auto* p = o->builtin_options_as_TransposeConvOptions();
      opt.padding = static_cast<int8_t>(p->padding());
      opt.stride_w = p->stride_w();
      opt.stride_h = p->stride_h();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      opt.quantized_bias_type = static_cast<int8_t>(p->quantized_bias_type());
      break;
    }
    case T::SoftmaxOptions:
      opt.beta = o->builtin_options_as_SoftmaxOptions()->beta();
      break;
    case T::ConcatenationOptions: {
      const auto* p = o->builtin_options_as_ConcatenationOptions();
      opt.axis = p->axis();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      break;
    }
    case T::AddOptions:
      opt.activation =
          static_cast<int8_t>(o->builtin_options_as_AddOptions()->fused_activation_function());
      break;
    case T::MulOptions:
      opt.activation =
          static_cast<int8_t>(o->builtin_options_as_MulOptions()->fused_activation_function());
      break;
    case T::SubOptions:
      opt.activation =
          static_cast<int8_t>(o->builtin_options_as_SubOptions()->fused_activation_function());
      break;
    case T::ReshapeOptions:
      opt.new_shape = Ints(o->builtin_options_as_ReshapeOptions()->new_shape());
      break;
    case T::ReducerOptions:
      opt.keep_dims = o->builtin_options_as_ReducerOptions()->keep_dims();
      break;
    case T::SqueezeOptions:
      opt.squeeze_dims = Ints(o->builtin_options_as_SqueezeOptions()->squeeze_dims());
      break;
    case T::LeakyReluOptions:
      opt.alpha = o->builtin_options_as_LeakyReluOptions()->alpha();
      break;
    case T::GeluOptions:
      opt.approximate = o->builtin_options_as_GeluOptions()->approximate();
      break;
    case T::MirrorPadOptions:
      opt.mirror_mode = static_cast<int8_t>(o->builtin_options_as_MirrorPadOptions()->mode());
      break;
    case T::StridedSliceOptions: {
      const auto* p = o->builtin_options_as_StridedSliceOptions();
      opt.begin_mask = p->begin_mask();
      opt.end_mask = p->end_mask();
      opt.ellipsis_mask = p->ellipsis_mask();
      opt.new_axis_mask = p->new_axis_mask();
      opt.shrink_axis_mask = p->shrink_axis_mask();
      opt.offset = p->offset();
      break;
    }
    case T::SplitOptions:
      opt.num_splits = o->builtin_options_as_SplitOptions()->num_splits();
      break;
    case T::SplitVOptions:
      opt.num_splits = o->builtin_options_as_SplitVOptions()->num_splits();
      break;
    case T::PackOptions: {
      const auto* p = o->builtin_options_as_PackOptions();
      opt.count = p->values_count();
      opt.axis = p->axis();
      break;
    }
    case T::UnpackOptions: {
      const auto* p = o->builtin_options_as_UnpackOptions();
      opt.count = p->num();
      opt.axis = p->axis();
      break;
    }
    case T::GatherOptions: {
      const auto* p = o->builtin_options_as_GatherOptions();
      opt.axis = p->axis();
      opt.batch_dims = p->batch_dims();
      break;
    }
    case T::ArgMaxOptions:
      opt.out_type = static_cast<int8_t>(o->builtin_options_as_ArgMaxOptions()->output_type());
      break;
    case T::ArgMinOptions:
      opt.out_type = static_cast<int8_t>(o->builtin_options_as_ArgMinOptions()->output_type());
      break;
    case T::ShapeOptions:
      opt.out_type = static_cast<int8_t>(o->builtin_options_as_ShapeOptions()->out_type());
      break;
    case T::ResizeBilinearOptions: {
      const auto* p = o->builtin_options_as_ResizeBilinearOptions();
      opt.align_corners = p->align_corners();
      opt.half_pixel_centers = p->half_pixel_centers();
      break;
    }
    case T::ResizeNearestNeighborOptions: {
      const auto* p = o->builtin_options_as_ResizeNearestNeighborOptions();
      opt.align_corners = p->align_corners();
      opt.half_pixel_centers = p->half_pixel_centers();
      break;
    }
    case T::SpaceToDepthOptions:
      opt.block_size = o->builtin_options_as_SpaceToDepthOptions()->block_size();
      break;
    case T::DepthToSpaceOptions:
      opt.block_size = o->builtin_options_as_DepthToSpaceOptions()->block_size();
      break;
    case T::UnidirectionalSequenceLSTMOptions: {
      const auto* p = o->builtin_options_as_UnidirectionalSequenceLSTMOptions();
      opt.activation = static_cast<int8_t>(p->fused_activation_function());
      opt.cell_clip = p->cell_clip();
      opt.proj_clip = p->proj_clip();
      opt.time_major = p->time_major();
      opt.asymmetric_quantize_inputs = p->asymmetric_quantize_inputs();
      opt.diagonal_recurrent_tensors = p->diagonal_recurrent_tensors();
      break;
    }
    case T::BatchMatMulOptions: {
      const auto* p = o->builtin_options_as_BatchMatMulOptions();
      opt.adj_x = p->adj_x();
      opt.adj_y = p->adj_y();
      opt.asymmetric_quantize_inputs = p->asymmetric_quantize_inputs();
      break;
    }
    case T::WhileOptions: {
      const auto* p = o->builtin_options_as_WhileOptions();
      opt.cond_subgraph = p->cond_subgraph_index();
      opt.body_subgraph = p->body_subgraph_index();
      break;
    }
    case T::TransposeOptions:
    case T::SliceOptions:
    case T::ExpandDimsOptions:
    case T::TileOptions:
    case T::ReverseV2Options:
    case T::NONE:
    case T::HardSwishOptions:
    case T::PadOptions:
    case T::PadV2Options:
    case T::DequantizeOptions:
    case T::QuantizeOptions:
    case T::MaximumMinimumOptions:
    case T::SquaredDifferenceOptions:
      break;  // no fields
  }
  // A type code outside this list is kept as is; the op check rejects it if the op needs
  // options (the flatbuffers Verifier skips union members the schema does not declare).
  return true;
}


}  // namespace tinyforge::import::tflite
