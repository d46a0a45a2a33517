// s8_conv__mve__tile23_single_x3: a 3 x 2 block routine of s8_conv__mve (mve_tile23.inc), a
// path linked on demand (kernels/common/paths.h).
#include "kernels/common/isa.h"

#if TF_HAVE_MVE
#define TFM_TILE23_NAME s8_conv__mve__tile23_single_x3
#define TFM_TILE23_LOOP TFM_TILE23_LOOP_X3
#define TFM_TILE23_RQ TFM_RQ_SINGLE
#include "kernels/conv/mve_tile23.inc"
#endif  // TF_HAVE_MVE
