// Fault reporting. Every fault and unexpected exception ends here (via tf_fault_entry in
// startup.S, on the dedicated fault stack) and prints one line on the semihosting console,
//   tf-fault: UsageFault pc=0x10000456 lr=0x1000012b psr=0x61000000 cfsr=0x00100000
//             hfsr=0x00000000 [STKOF] thread stack overflow          (one line)
// then stops the emulator with exit status TF_EXIT_FAULT. No libc: the fault may have
// happened inside it, and its state may be corrupt.
#include <stdint.h>

#include "tf_board.h"
#include "tf_host.h"

#define TF_REG(addr) (*(volatile uint32_t*)(addr))
#define SCB_CFSR TF_REG(0xE000ED28u)
#define SCB_HFSR TF_REG(0xE000ED2Cu)
#define SCB_MMFAR TF_REG(0xE000ED34u)
#define SCB_BFAR TF_REG(0xE000ED38u)
#define SCB_SFSR TF_REG(0xE000EDE4u)  // Armv8-M Security Extension

// CFSR bits that mean the exception frame was not (completely) pushed.
#define CFSR_MSTKERR (1u << 4)
#define CFSR_MMARVALID (1u << 7)
#define CFSR_STKERR (1u << 12)
#define CFSR_BFARVALID (1u << 15)
#define CFSR_STKOF (1u << 20)

typedef struct {
  uint32_t mask;
  const char* name;
} bit_name;

static const bit_name kCfsrBits[] = {
    {1u << 0, "IACCVIOL"},   {1u << 1, "DACCVIOL"},    {1u << 3, "MUNSTKERR"},
    {1u << 4, "MSTKERR"},    {1u << 5, "MLSPERR"},     {1u << 8, "IBUSERR"},
    {1u << 9, "PRECISERR"},  {1u << 10, "IMPRECISERR"}, {1u << 11, "UNSTKERR"},
    {1u << 12, "STKERR"},    {1u << 13, "LSPERR"},     {1u << 16, "UNDEFINSTR"},
    {1u << 17, "INVSTATE"},  {1u << 18, "INVPC"},      {1u << 19, "NOCP"},
    {1u << 20, "STKOF"},     {1u << 24, "UNALIGNED"},  {1u << 25, "DIVBYZERO"},
};

extern uint32_t __tf_stack_guard[], __tf_stack_bottom[], __tf_stack_top[];
extern uint32_t __tf_handler_stack_bottom[], __tf_handler_stack_top[];

static char g_line[256];
static uint32_t g_len;

static void put(const char* s) {
  while (*s && g_len + 1 < sizeof g_line) g_line[g_len++] = *s++;
}
static void put_hex(const char* key, uint32_t v) {
  char buf[12] = " ";
  put(key);
  buf[0] = '0';
  buf[1] = 'x';
  for (int i = 0; i < 8; ++i) buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
  buf[10] = '\0';
  put(buf);
}

static const char* exception_name(uint32_t ipsr) {
  switch (ipsr) {
    case 2: return "NMI";
    case 3: return "HardFault";
    case 4: return "MemManage";
    case 5: return "BusFault";
    case 6: return "UsageFault";
    case 7: return "SecureFault";
    case 11: return "SVCall";
    case 12: return "DebugMonitor";
    case 14: return "PendSV";
    case 15: return "SysTick";
    default: return ipsr >= 16 ? "IRQ" : "exception";
  }
}

// The frame can be read only if it was pushed completely and lies inside one of our stacks:
// reading a wild address here would fault inside the fault handler and lock the core up.
// Armv7-M flags a failed push with MSTKERR/STKERR. Armv8-M reports STKOF both for an
// instruction that would cross the limit (the frame is then pushed normally, above the
// limit) and for a push that would (nothing pushed, SP left at the limit).
static int frame_readable(const uint32_t* frame, uint32_t cfsr) {
  if (cfsr & (CFSR_MSTKERR | CFSR_STKERR)) return 0;
  if ((cfsr & CFSR_STKOF) && (frame == __tf_stack_bottom || frame == __tf_handler_stack_bottom))
    return 0;
  const uint32_t* end = frame + 8;
  return (frame >= __tf_stack_bottom && end <= __tf_stack_top) ||
         (frame >= __tf_handler_stack_bottom && end <= __tf_handler_stack_top);
}

__attribute__((noreturn, used)) void tf_fault_report(const uint32_t* frame, uint32_t exc_return,
                                                     uint32_t ipsr) {
  static volatile int s_reporting;
  (void)exc_return;
  if (s_reporting) {  // a fault while reporting one: say so with what surely works
    tf_host_puts("tf-fault: nested fault\n");
    tf_host_exit(TF_EXIT_FAULT);
  }
  s_reporting = 1;

  const uint32_t cfsr = SCB_CFSR;
  const uint32_t hfsr = SCB_HFSR;
  ipsr &= 0x1FFu;
  g_len = 0;
  put("tf-fault: ");
  put(exception_name(ipsr));
  if (ipsr >= 16 || ipsr == 0) put_hex(" ipsr=", ipsr);
  if (frame_readable(frame, cfsr)) {
    put_hex(" pc=", frame[6]);
    put_hex(" lr=", frame[5]);
    put_hex(" psr=", frame[7]);
  } else {
    put(" pc=unknown (exception frame not stacked)");
  }
  put_hex(" cfsr=", cfsr);
  put_hex(" hfsr=", hfsr);
  if (cfsr & CFSR_MMARVALID) put_hex(" mmfar=", SCB_MMFAR);
  if (cfsr & CFSR_BFARVALID) put_hex(" bfar=", SCB_BFAR);
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  if (ipsr == 7) put_hex(" sfsr=", SCB_SFSR);
#endif
  put(" [");
  const char* sep = "";
  for (unsigned i = 0; i < sizeof kCfsrBits / sizeof kCfsrBits[0]; ++i) {
    if (cfsr & kCfsrBits[i].mask) {
      put(sep);
      put(kCfsrBits[i].name);
      sep = " ";
    }
  }
  if (hfsr & (1u << 30)) {
    put(sep);
    put("FORCED");
  }
  if (hfsr & (1u << 1)) {
    put(sep);
    put("VECTTBL");
  }
  put("]");
  // Armv8-M: PSPLIM tripped. Armv7-M: an access to the MPU guard below the stack (board.c).
  const uint32_t mmfar = SCB_MMFAR;
  if ((cfsr & CFSR_STKOF) ||
      ((cfsr & CFSR_MMARVALID) && mmfar >= (uint32_t)__tf_stack_guard &&
       mmfar < (uint32_t)__tf_stack_bottom))
    put(" thread stack overflow");
  put("\n");
  g_line[g_len] = '\0';
  tf_host_puts(g_line);
  tf_host_exit(TF_EXIT_FAULT);
}
