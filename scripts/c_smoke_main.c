/* The C smoke test (tests/c_smoke.c) as a program of its own, for the
   platforms the gtest suite does not reach (tcc, WebAssembly, the cross
   matrix's rows: scripts/cross.sh). Prints "c_smoke: passed", or the line
   of tests/c_smoke.c that failed and exits 1.

     cc -std=c99 -I. scripts/c_smoke_main.c -o c_smoke -lblas -lpthread -lm */
#define UMAP_IMPLEMENTATION
#include "umap.h"

#include "../tests/c_smoke.c"

#include <stdio.h>

int main(void) {
    int line = umap_test_c_smoke();
    if (line) {
        printf("c_smoke: FAILED at tests/c_smoke.c:%d\n", line);
        return 1;
    }
    printf("c_smoke: passed\n");
    return 0;
}
