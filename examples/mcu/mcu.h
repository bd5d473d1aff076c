/* mcu.h - what startup.c gives the program of examples/mcu: a string to the
   debugger's console and the exit (both by semihosting), and the stack's
   size and deepest use. */
#ifndef MCU_H
#define MCU_H

void mcu_write(const char *s);
void mcu_exit(int status) __attribute__((noreturn));
unsigned long mcu_stack_peak(void); /* bytes of stack ever used */
unsigned long mcu_stack_size(void); /* bytes the linker script reserved */

#endif
