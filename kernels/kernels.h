// Every int8 kernel family's parameter struct and variant declarations, for code that
// dispatches over all of them (the runtime's kernel table, the compiler's emitter, tests).
// The families are listed once, in kernels/families.def; which variants exist is listed
// once per family in kernels/<family>/<family>.inc.
#ifndef TINYFORGE_KERNELS_KERNELS_H_
#define TINYFORGE_KERNELS_KERNELS_H_

#include "kernels/families.def"

#endif  // TINYFORGE_KERNELS_KERNELS_H_
