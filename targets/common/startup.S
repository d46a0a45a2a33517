/* tinyforge reset and fault entry for Armv7-M (Cortex-M3/M4) and Armv8-M Mainline
 * (Cortex-M33/M55).
 *
 * Written in assembly so that no compiled code runs before CPACR enables the FPU and MVE:
 * GCC 12 turns plain C copy loops into VLDR/VSTR or MVE instructions, which fault (NOCP)
 * while the coprocessors are off.
 *
 * Stacks: MSP (initial value from the vector table) serves exception handlers only. Thread
 * mode runs on PSP, whose stack sits at the bottom of TF_RAM, so a thread-stack overflow
 * faults into a handler that still has a good stack: Armv8-M catches it with PSPLIM
 * (UsageFault STKOF), Armv7-M with an MPU guard region below the stack (MemManage, set up
 * in board.c). The fault reporter then switches to a stack of its own (tf_fault_entry). */
    .syntax unified
    .thumb

    .equ TF_STACK_PAINT, 0xA5A5A5A5   /* must match kPaint in perf.c */

    .section .text.Reset_Handler, "ax", %progbits
    .global Reset_Handler
    .type Reset_Handler, %function
    .thumb_func
Reset_Handler:
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    ldr   r0, =0xE000ED88              /* CPACR */
    ldr   r1, [r0]
    orr   r1, r1, #(0xF << 20)         /* CP10 + CP11 full access: FPU and MVE */
    str   r1, [r0]
    dsb
    isb
#endif
    ldr   r0, =__tf_stack_top
    msr   psp, r0
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    ldr   r0, =__tf_stack_bottom
    msr   psplim, r0
    ldr   r0, =__tf_handler_stack_bottom
    msr   msplim, r0
#endif
    /* Paint the thread stack for tf_stack_high_water(). */
    ldr   r0, =__tf_stack_bottom
    ldr   r1, =__tf_stack_top
    ldr   r2, =TF_STACK_PAINT
1:  cmp   r0, r1
    bhs   2f
    str   r2, [r0], #4
    b     1b
2:  movs  r0, #2                       /* CONTROL.SPSEL: thread mode uses PSP */
    msr   control, r0
    isb
    /* Copy .data from its load image in TF_CODE. */
    ldr   r0, =__tf_data_start
    ldr   r1, =__tf_data_end
    ldr   r2, =__tf_data_load
3:  cmp   r0, r1
    bhs   4f
    ldr   r3, [r2], #4
    str   r3, [r0], #4
    b     3b
    /* Zero .bss (not the arenas: they are NOLOAD and documented as uninitialised). */
4:  ldr   r0, =__tf_bss_start
    ldr   r1, =__tf_bss_end
    movs  r2, #0
5:  cmp   r0, r1
    bhs   6f
    str   r2, [r0], #4
    b     5b
6:  bl    tf_start                     /* board.c: init, constructors, main, exit */
    b     .
    .pool
    .size Reset_Handler, . - Reset_Handler

/* Common entry of every fault and unexpected exception. Passes the exception frame (on MSP
 * or PSP, per EXC_RETURN bit 2), EXC_RETURN and IPSR to tf_fault_report (fault.c) on the
 * dedicated fault stack: after a stack overflow neither MSP nor PSP can be trusted, and
 * keeping MSP's contents intact preserves a frame pushed there. */
    .section .text.tf_fault_entry, "ax", %progbits
    .global tf_fault_entry
    .type tf_fault_entry, %function
    .thumb_func
tf_fault_entry:
    tst   lr, #4
    ite   eq
    mrseq r0, msp
    mrsne r0, psp
    mov   r1, lr
    mrs   r2, ipsr
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    movs  r3, #0
    msr   msplim, r3                   /* the fault stack lies above the MSP limit anyway */
#endif
    ldr   r3, =__tf_fault_stack_top
    mov   sp, r3
    b     tf_fault_report
    .pool
    .size tf_fault_entry, . - tf_fault_entry

/* void tf_stack_rearm(void) (tf_perf.h): repaint the thread stack below the current SP.
 * Assembly because it must have no frame: compiled C may read SP before pushing its own
 * registers and then paint over them. */
    .section .text.tf_stack_rearm, "ax", %progbits
    .global tf_stack_rearm
    .type tf_stack_rearm, %function
    .thumb_func
tf_stack_rearm:
    mov   r1, sp
    ldr   r0, =__tf_stack_bottom
    ldr   r2, =TF_STACK_PAINT
1:  cmp   r0, r1
    bhs   2f
    str   r2, [r0], #4
    b     1b
2:  bx    lr
    .pool
    .size tf_stack_rearm, . - tf_stack_rearm

/* CMSIS handler names, weak: firmware may define any of them (e.g. SysTick_Handler). */
    .macro tf_default_handler name
    .weak \name
    .thumb_set \name, tf_fault_entry
    .endm
    tf_default_handler NMI_Handler
    tf_default_handler HardFault_Handler
    tf_default_handler MemManage_Handler
    tf_default_handler BusFault_Handler
    tf_default_handler UsageFault_Handler
    tf_default_handler SecureFault_Handler
    tf_default_handler SVC_Handler
    tf_default_handler DebugMon_Handler
    tf_default_handler PendSV_Handler
    tf_default_handler SysTick_Handler
    tf_default_handler tf_irq_handler
