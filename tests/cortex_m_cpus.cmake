# The Cortex-M classes the freestanding compile checks (tests/kernels/check_cortex_m.cmake,
# tests/runtime/check_cortex_m.cmake) build for: M3 soft-float (scalar), M4 DSP + FPU, M55
# MVE. One entry per class, its GCC flags separated by escaped semicolons.
set(cpus
  "-mcpu=cortex-m3\;-mfloat-abi=soft"
  "-mcpu=cortex-m4\;-mfloat-abi=hard\;-mfpu=fpv4-sp-d16"
  "-mcpu=cortex-m55\;-mfloat-abi=hard")
