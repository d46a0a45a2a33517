// The board this firmware is built for: identity and memory regions, generated from
// targets/boards/<board>/board.json (tf_board_config.h, written by CMake), and the section
// attributes generated model code uses to place buffers in a region.
#ifndef TINYFORGE_TF_BOARD_H_
#define TINYFORGE_TF_BOARD_H_

#include <stdint.h>

#include "tf_board_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TF_REGION_CODE = 0,  // code and read-only data; the boot region
  TF_REGION_RAM = 1,   // read-write data: arenas, stacks
  TF_REGION_ROM = 2,   // read-only data, written by the ELF loader only
} tf_region_purpose;

typedef struct {
  const char* name;    // as in board.json and the linker script, e.g. "dtcm"
  uint32_t base;       // address the core uses (the Secure alias on an505/an547)
  uint32_t size;       // bytes
  uint8_t speed_rank;  // 0 = fastest on the real board; QEMU itself models no wait states
  uint8_t purpose;     // tf_region_purpose
} tf_region;

// All regions of board.json, in its order.
extern const tf_region tf_board_regions[];
extern const uint32_t tf_board_region_count;

// Placement. A buffer in a RAM region:   TF_ARENA(dtcm) static uint8_t arena[4096];
// a constant in a code or ROM region:     TF_CONST(qspi) static const int8_t w[] = {...};
// a constant wherever the board keeps weights by default ("layout.weights" in board.json):
//                                         TF_WEIGHTS static const int8_t w[] = {...};
// Arenas are 16-byte aligned and NOT zeroed at reset (they are NOLOAD). Naming a region the
// board does not have fails at link time.
#define TF_ARENA(region) __attribute__((section(".tf_arena." #region), aligned(16)))
#define TF_CONST(region) __attribute__((section(".tf_const." #region), aligned(16)))
#define TF_WEIGHTS __attribute__((section(".tf_weights"), aligned(16)))

// Exit status of firmware stopped by the fault handler (also for unexpected exceptions).
#define TF_EXIT_FAULT 125

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TINYFORGE_TF_BOARD_H_
