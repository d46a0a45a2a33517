// Every int8 kernel family's parameter struct and variant declarations, for code that
// dispatches over all of them (the runtime's kernel table, the compiler's emitter, tests).
// Which variants exist is listed once per family in kernels/<family>/<family>.inc.
#ifndef TINYFORGE_KERNELS_KERNELS_H_
#define TINYFORGE_KERNELS_KERNELS_H_

#include "kernels/add/add.h"
#include "kernels/concat/concat.h"
#include "kernels/conv/conv.h"
#include "kernels/dwconv/dwconv.h"
#include "kernels/fc/fc.h"
#include "kernels/logistic/logistic.h"
#include "kernels/mean/mean.h"
#include "kernels/mul/mul.h"
#include "kernels/pad/pad.h"
#include "kernels/pool/pool.h"
#include "kernels/quantize/quantize.h"
#include "kernels/softmax/softmax.h"
#include "kernels/tanh/tanh.h"

#endif  // TINYFORGE_KERNELS_KERNELS_H_
