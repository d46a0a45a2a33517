// FULLY_CONNECTED, int8 activations and weights, int32 bias. Per-tensor or
// per-output-channel requantization. Numerics: TFLite Micro
// reference_integer_ops::FullyConnected / FullyConnectedPerChannel (double rounding).
//
// Layouts (dense, C order):
//   input   [batches, in_features]        int8 (any input rank flattened to 2-D)
//   weights [out_features, in_features]   int8, symmetric (zero point 0)
//   bias    [out_features]                int32, scale in_scale * w_scale; may be null
//   output  [batches, out_features]       int8
#ifndef TINYFORGE_KERNELS_FC_FC_H_
#define TINYFORGE_KERNELS_FC_FC_H_

#include <cstdint>

#include "kernels/common/rounding.h"
#include "kernels/common/rq_mode.h"

struct s8_fc_params {
  int32_t batches;        // > 0
  int32_t in_features;    // > 0
  int32_t out_features;   // > 0
  int32_t input_offset;   // -input zero point, in [-127, 128]
  int32_t output_offset;  // output zero point, in [-128, 127]
  // in_scale * w_scale[o] / out_scale = multiplier[o] * 2^(shift[o] - 31).
  // per_channel == 0: one entry, used for every output feature (per-tensor weights).
  // per_channel == 1: out_features entries. Owned by the caller.
  int32_t per_channel;
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t act_min, act_max;  // output clamp, -128 <= act_min <= act_max <= 127
  // Requantization rounding: TF_ROUNDING_DOUBLE (0, TFLite Micro) or TF_ROUNDING_SINGLE (1),
  // kernels/common/rounding.h. Zero-initialized structs get TFLM's double rounding.
  int32_t rounding;
};

// s8_fc__mve's requantization mode of a call (rq_mode.h): kRqDoubleNeg runs in the
// dispatcher, kRqSingleNeg and the rest in paths linked on demand (fc.inc).
inline int s8_fc_mve_mode(const s8_fc_params& p) {
  return tinyforge::rq::ChooseMode(p.shift, p.per_channel ? p.out_features : 1, p.rounding);
}

extern "C" {
// scratch: unused by __ref (may be null).
void s8_fc__ref(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M0/M3 and any core (plain C++); scratch: see fc.inc.
void s8_fc__scalar(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                   const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M4/M7/M33 (DSP); scratch: see fc.inc.
void s8_fc__dsp(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                const int32_t* bias, int8_t* output, void* scratch);
// Cortex-M55 (MVE); scratch: see fc.inc.
void s8_fc__mve(const s8_fc_params* params, const int8_t* input, const int8_t* weights,
                const int32_t* bias, int8_t* output, void* scratch);
}

#endif  // TINYFORGE_KERNELS_FC_FC_H_
