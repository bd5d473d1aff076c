/* startup.c - reset and fault handling for a Cortex-M4F on Arm's MPS2 board
   with the AN386 image, as qemu-system-arm -M mps2-an386 models it: the
   vector table, the FPU switched on before any C code runs, .data copied
   from flash and .bss zeroed, then main, whose result becomes the exit
   status reported to the debugger (qemu's -semihosting). It also holds the
   few semihosting calls the program needs (a string to the debugger's
   console, exit) and the stack's high-water mark.
   Part of examples/mcu: mcu_transform.c says how to build and run it. */
#include <stdint.h>

#include "mcu.h"

/* from the linker script (mps2_an386.ld) */
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];

int main(void);
void Reset_Handler(void);
void mcu_start(void) __attribute__((noreturn, used));
static void mcu_fault(void);

/* The stack's unused words hold this, so the deepest use can be found. */
#define MCU_STACK_FILL 0xa5a5a5a5u

/* The Cortex-M's system exceptions; no peripheral interrupt is enabled, so
   the table stops there. Any fault ends the run with a message. */
__attribute__((section(".isr_vector"), used)) void (*const mcu_vectors[16])(void) = {
    (void (*)(void))__stack_top, /* the initial stack pointer */
    Reset_Handler,
    mcu_fault, /* NMI */
    mcu_fault, /* HardFault */
    mcu_fault, /* MemManage */
    mcu_fault, /* BusFault */
    mcu_fault, /* UsageFault */
    0, 0, 0, 0,
    mcu_fault, /* SVCall */
    mcu_fault, /* DebugMonitor */
    0,
    mcu_fault, /* PendSV */
    mcu_fault, /* SysTick */
};

/* The FPU (coprocessors 10 and 11 in CPACR) must be on before the first
   floating-point instruction, and a C function built for the hard-float
   ABI may use one anywhere, so this part is assembly. */
__attribute__((naked)) void Reset_Handler(void) {
    __asm__ volatile("movw r0, #0xed88\n\t" /* CPACR, 0xe000ed88 */
                     "movt r0, #0xe000\n\t"
                     "ldr r1, [r0]\n\t"
                     "orr r1, r1, #0xf00000\n\t" /* CP10, CP11: full access */
                     "str r1, [r0]\n\t"
                     "dsb\n\t"
                     "isb\n\t" /* later instructions see the FPU on */
                     "b mcu_start\n\t");
}

void mcu_start(void) {
    volatile uint32_t *p;
    uint32_t *src = __data_load, *dst = __data_start;
    uintptr_t sp;
    while (dst < __data_end) *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end; dst++) *dst = 0;
    /* fill the stack below this frame; the margin keeps clear of it */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (p = __stack_limit; (uintptr_t)p + 256 < sp; p++) *p = MCU_STACK_FILL;
    mcu_exit(main());
}

/* ARM semihosting: bkpt 0xab stops for the debugger (here qemu), which
   reads the operation in r0 and its argument in r1, and answers in r0. */
static int mcu_semihost(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#define MCU_SYS_WRITE0 0x04
#define MCU_SYS_EXIT 0x18
#define MCU_ADP_APPLICATION_EXIT 0x20026 /* qemu exits 0 */
#define MCU_ADP_RUNTIME_ERROR 0x20023    /* qemu exits 1 */

void mcu_write(const char *s) { mcu_semihost(MCU_SYS_WRITE0, s); }

void mcu_exit(int status) {
    mcu_semihost(MCU_SYS_EXIT, (const void *)(uintptr_t)(status ? MCU_ADP_RUNTIME_ERROR : MCU_ADP_APPLICATION_EXIT));
    for (;;) {
    }
}

unsigned long mcu_stack_peak(void) {
    const volatile uint32_t *p = __stack_limit;
    while (p < __stack_top && *p == MCU_STACK_FILL) p++;
    return (unsigned long)((uintptr_t)__stack_top - (uintptr_t)p);
}

unsigned long mcu_stack_size(void) { return (unsigned long)((uintptr_t)__stack_top - (uintptr_t)__stack_limit); }

static void mcu_fault(void) {
    uint32_t ipsr;
    char msg[] = "mcu: fault: exception 000\n";
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    msg[22] = (char)('0' + ipsr / 100 % 10);
    msg[23] = (char)('0' + ipsr / 10 % 10);
    msg[24] = (char)('0' + ipsr % 10);
    mcu_write(msg);
    mcu_exit(1);
}
