/* The part of QEMU's TCG plugin API that tf_insncount.c uses, declared here because Debian
 * (like most distributions) ships qemu-system-arm without include/qemu/qemu-plugin.h. The
 * declarations follow that header as of each release; to check what a QEMU binary exports:
 *   nm -D "$(command -v qemu-system-arm)" | grep qemu_plugin_
 *
 * The build passes TF_QEMU_VERSION = major * 10000 + minor * 100 + micro of the QEMU that
 * will load the plugin (targets/qemu/CMakeLists.txt runs `qemu-system-arm --version`). It
 * selects the plugin API level, which is also the version the plugin declares to QEMU:
 *   1  QEMU 6.0 .. 8.2   inline counters on plain memory; insn_data returns a pointer
 *   2  QEMU 9.0          per-vCPU scoreboards replace the inline counters
 *   3  QEMU 9.1 and up   qemu_plugin_insn_data copies into a caller buffer
 * Later QEMUs (API 4, 5, ...) still load plugins built for level 3 (their minimum is 2).
 * Only level 1 (QEMU 7.2, Debian 12) has been run; levels 2 and 3 are written against the
 * upstream header and compile, but are untested. */
#ifndef TINYFORGE_QEMU_PLUGIN_API_H_
#define TINYFORGE_QEMU_PLUGIN_API_H_

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

#ifndef TF_QEMU_VERSION
#error "define TF_QEMU_VERSION (major*10000 + minor*100 + micro of qemu-system-arm)"
#endif
#if TF_QEMU_VERSION >= 90100
#define TF_QEMU_PLUGIN_API 3
#elif TF_QEMU_VERSION >= 90000
#define TF_QEMU_PLUGIN_API 2
#elif TF_QEMU_VERSION >= 60000
#define TF_QEMU_PLUGIN_API 1
#else
#error "tf_insncount needs QEMU 6.0 or later"
#endif

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
  const char* target_name;
  struct {
    int min;
    int cur;
  } version;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_mem_rw {
  QEMU_PLUGIN_MEM_R = 1,
  QEMU_PLUGIN_MEM_W,
  QEMU_PLUGIN_MEM_RW,
};
/* Bits 0..3: log2 of the access size; bit 4: sign-extended; bit 5: big-endian; bit 6:
 * store (unchanged from QEMU 4.2 to 10.x; read only through the accessors below). */
typedef uint32_t qemu_plugin_meminfo_t;

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
/* Data memory accesses of one instruction (loads, stores; also those a helper makes, e.g.
 * MVE's VLDR/VSTR), after it executed; vaddr is the address the core used (no MMU on
 * M-profile, so the physical address). */
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn* insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void* userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn* insn);
void qemu_plugin_outs(const char* string);

#if TF_QEMU_PLUGIN_API >= 2
struct qemu_plugin_scoreboard;
typedef struct {
  struct qemu_plugin_scoreboard* score;
  size_t offset;
} qemu_plugin_u64;

struct qemu_plugin_scoreboard* qemu_plugin_scoreboard_new(size_t element_size);
void qemu_plugin_scoreboard_free(struct qemu_plugin_scoreboard* score);
uint64_t qemu_plugin_u64_get(qemu_plugin_u64 entry, unsigned int vcpu_index);
uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb* tb,
                                                       enum qemu_plugin_op op,
                                                       qemu_plugin_u64 entry, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(struct qemu_plugin_insn* insn,
                                                         enum qemu_plugin_op op,
                                                         qemu_plugin_u64 entry, uint64_t imm);
#else
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
#endif

#if TF_QEMU_PLUGIN_API >= 3
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn* insn, void* dest, size_t len);
#else
const void* qemu_plugin_insn_data(const struct qemu_plugin_insn* insn);
#endif

#endif /* TINYFORGE_QEMU_PLUGIN_API_H_ */
