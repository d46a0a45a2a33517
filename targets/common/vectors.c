// Vector table: core exceptions with their CMSIS handler names (weak defaults in startup.S
// report the exception and stop) and 32 external interrupts. tinyforge firmware enables no
// interrupt; a board that needs one overrides tf_irq_handler or extends this table.
#include <stdint.h>

typedef void (*tf_vector)(void);

extern uint32_t __tf_handler_stack_top[];
void Reset_Handler(void);
void NMI_Handler(void);
void HardFault_Handler(void);
void MemManage_Handler(void);
void BusFault_Handler(void);
void UsageFault_Handler(void);
void SecureFault_Handler(void);
void SVC_Handler(void);
void DebugMon_Handler(void);
void PendSV_Handler(void);
void SysTick_Handler(void);
void tf_irq_handler(void);

#define TF_IRQ4 tf_irq_handler, tf_irq_handler, tf_irq_handler, tf_irq_handler
#define TF_IRQ16 TF_IRQ4, TF_IRQ4, TF_IRQ4, TF_IRQ4

// 48 entries: VTOR needs the table aligned to the next power of two of its size.
__attribute__((section(".vectors"), used, aligned(256)))
const tf_vector tf_vector_table[16 + 32] = {
    (tf_vector)__tf_handler_stack_top,  // initial MSP: handlers only, see startup.S
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    SecureFault_Handler,  // Armv8-M; reserved on Armv7-M
    0,
    0,
    0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    TF_IRQ16,
    TF_IRQ16,
};
