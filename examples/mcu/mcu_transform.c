/* mcu_transform.c - parametric UMAP's transform of new rows on a
   microcontroller: a Cortex-M4F (Arm's MPS2 board with the AN386 image),
   run under qemu-system-arm. The model is a byte array in flash (a file
   `umap fit --save` wrote, turned into C by scripts/bin2c.c), loaded by
   umap_load_memory into a fixed arena in RAM; the rows, in flash too, are
   embedded by the encoder alone (UMAP_TRANSFORM_ENCODER). No file I/O, no
   threads (UMAP_NO_THREADS), no BLAS (UMAP_NO_BLAS) and no heap: every
   byte the library allocates comes from the arena, through the model's
   umap_allocator and through UMAP_MALLOC / UMAP_FREE alike, and the arena
   is bounded, so running out of it is an error the calls return (which
   the program checks as well).

   scripts/cross_mcu.sh does all of it (a model, rows, the build, the run
   and a comparison with the x86-64 result). By hand, from the repository
   root, with a model m.safetensors (`umap fit ... --keep-none --save`)
   and rows.c defining `const float mcu_rows[]` and
   `const int mcu_n_rows, mcu_n_cols` (the script writes one):

     cc -std=c99 -O2 scripts/bin2c.c -o bin2c && ./bin2c mcu_model m.safetensors > model.c
     arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 \
         --specs=nano.specs --specs=rdimon.specs -std=c99 -O2 -I. -Iexamples/mcu \
         -ffunction-sections -fdata-sections -nostartfiles -T examples/mcu/mps2_an386.ld \
         -Wl,--gc-sections -Wl,--wrap=_sbrk -Wl,--wrap=_open \
         examples/mcu/mcu_transform.c examples/mcu/startup.c model.c rows.c -lm -o mcu.elf
     qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel mcu.elf

   It prints each row's coordinates ("row I" and each float's bits in hex,
   exact, then in decimal), "stat NAME VALUE" lines (the arena's and the
   stack's use) and "mcu: ok", and exits 0 (qemu with it) when every check
   passed. -DMCU_ARENA_SIZE=BYTES sizes the arena (3 MiB: an encoder-only
   model needs far less, but one that keeps training rows, as a default fit
   does, tabulates its push field while it loads, in megabytes). The two
   --wrap options let the program count, and refuse, any call for heap
   memory or to open a file that reaches newlib.
   newlib-nano's printf has no long long, so where the library's messages
   give a row number (%lld) they read "row ld"; full newlib (no
   --specs=nano.specs) prints them whole, for more code. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mcu.h"

#ifndef MCU_ARENA_SIZE
#define MCU_ARENA_SIZE (3u << 20) /* most of the board's 4 MB of RAM */
#endif

/* The arena: a simple first-fit allocator. Blocks tile the memory from
   the bottom, each behind a header with its size; a new block takes the
   first free one big enough (split when the rest is worth keeping), else
   extends the top. Free neighbours merge, and a free run that reaches the
   top lowers it, as the next allocation walks past them. The library
   frees its scratch memory before a call returns, so a call's memory is
   reused by the next one. */
typedef struct mcu_block {
    uint32_t size; /* of the block, header included */
    uint32_t used; /* the header is 8 bytes: payloads stay 8-aligned */
} mcu_block;

typedef struct mcu_arena {
    unsigned char *base;
    size_t size;     /* bytes of memory */
    size_t limit;    /* the top stays below this (lowered to test running out) */
    size_t top;      /* the blocks end here */
    size_t used;     /* bytes in used blocks, headers included */
    size_t peak;     /* highest top since the last mcu_arena_tidy */
    size_t max_peak; /* highest top ever */
} mcu_arena;

static unsigned char mcu_memory[MCU_ARENA_SIZE] __attribute__((section(".bss.mcu_arena"), aligned(8)));
static mcu_arena mcu_heap;

static mcu_block *mcu_block_at(const mcu_arena *a, size_t off) { return (mcu_block *)(void *)(a->base + off); }

static void *mcu_alloc(size_t size, void *user_data) {
    mcu_arena *a = (mcu_arena *)user_data;
    mcu_block *b;
    size_t need, off;
    if (size > a->limit) return NULL; /* also keeps the rounding below from wrapping */
    need = sizeof(mcu_block) + ((size + 7) & ~(size_t)7);
    for (off = 0; off < a->top; off += b->size) {
        b = mcu_block_at(a, off);
        if (b->used) continue;
        while (off + b->size < a->top && !mcu_block_at(a, off + b->size)->used)
            b->size += mcu_block_at(a, off + b->size)->size;
        if (off + b->size == a->top) { /* free up to the top: the top comes down */
            a->top = off;
            break;
        }
        if (b->size >= need) {
            if (b->size - need >= 2 * sizeof(mcu_block)) {
                mcu_block *rest = mcu_block_at(a, off + need);
                rest->size = b->size - (uint32_t)need;
                rest->used = 0;
                b->size = (uint32_t)need;
            }
            b->used = 1;
            a->used += b->size;
            return b + 1;
        }
    }
    if (a->top > a->limit || need > a->limit - a->top) return NULL;
    b = mcu_block_at(a, a->top);
    b->size = (uint32_t)need;
    b->used = 1;
    a->top += need;
    a->used += need;
    if (a->top > a->peak) a->peak = a->top;
    if (a->top > a->max_peak) a->max_peak = a->top;
    return b + 1;
}

static void mcu_free(void *p, void *user_data) {
    mcu_arena *a = (mcu_arena *)user_data;
    mcu_block *b = (mcu_block *)p - 1;
    if (!p) return;
    b->used = 0;
    a->used -= b->size;
    if ((unsigned char *)b + b->size == a->base + a->top) a->top = (size_t)((unsigned char *)b - a->base);
}

static void mcu_arena_init(mcu_arena *a, unsigned char *memory, size_t size) {
    memset(a, 0, sizeof *a);
    a->base = memory;
    a->size = a->limit = size;
}

/* Merges every run of free blocks and lowers the top over one at the end:
   the same blocks in use then give the same layout, so a call repeated
   from here takes the same memory (the checks below rely on it). Returns
   the top, from where the peak is counted again. */
static size_t mcu_arena_tidy(mcu_arena *a) {
    size_t off = 0, end = 0;
    while (off < a->top) {
        mcu_block *b = mcu_block_at(a, off);
        if (b->used) end = off + b->size;
        else
            while (off + b->size < a->top && !mcu_block_at(a, off + b->size)->used)
                b->size += mcu_block_at(a, off + b->size)->size;
        off += b->size;
    }
    a->top = a->peak = end;
    return end;
}

/* Whatever the library allocates without the model's allocator goes to the
   same arena (UMAP_MALLOC's second argument is the allocator's user data,
   NULL where there is none), counted: load and transform allocate through
   the allocator given to umap_load_memory, so the count should stay 0. */
static unsigned long mcu_default_allocs;
#define UMAP_MALLOC(sz, ud) ((void)(ud), mcu_default_allocs++, mcu_alloc((sz), &mcu_heap))
#define UMAP_FREE(p, ud) ((void)(ud), mcu_free((p), &mcu_heap))
#define UMAP_NO_BLAS
#define UMAP_NO_THREADS
#define UMAP_IMPLEMENTATION
/* arm-none-eabi's ABI sizes an enum by its values (-fshort-enums), so the
   library's checks that an enum argument is not negative always hold
   there, which -Wextra reports */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#include "umap.h"
#pragma GCC diagnostic pop

/* from model.c and rows.c */
extern const unsigned char mcu_model[];
extern const size_t mcu_model_size;
extern const float mcu_rows[];
extern const int mcu_n_rows, mcu_n_cols;

/* The linker sends newlib's calls for heap memory and for opening a file
   here (-Wl,--wrap=_sbrk -Wl,--wrap=_open): refused and counted, so the
   run shows the library took neither. */
static unsigned long mcu_sbrk_calls, mcu_open_calls;
void *__wrap__sbrk(ptrdiff_t incr);
int __wrap__open(const char *path, int flags, ...);
void *__wrap__sbrk(ptrdiff_t incr) {
    (void)incr;
    mcu_sbrk_calls++;
    errno = ENOMEM;
    return (void *)-1;
}
int __wrap__open(const char *path, int flags, ...) {
    (void)path;
    (void)flags;
    mcu_open_calls++;
    errno = ENOSYS;
    return -1;
}

/* --- output: lines built here, written by semihosting (no stdio: newlib's
   buffers and its float formatting would take heap memory) --- */
typedef struct mcu_line {
    char s[200];
    size_t n;
} mcu_line;

static void mcu_put(mcu_line *l, const char *s) {
    while (*s && l->n + 1 < sizeof l->s) l->s[l->n++] = *s++;
    l->s[l->n] = 0;
}

static void mcu_put_u(mcu_line *l, unsigned long v) {
    char d[24];
    int i = (int)sizeof d - 1;
    d[i] = 0;
    do d[--i] = (char)('0' + v % 10); while ((v /= 10) && i > 0);
    mcu_put(l, d + i);
}

static void mcu_put_hex(mcu_line *l, uint32_t v) {
    char d[11];
    int i;
    d[0] = '0';
    d[1] = 'x';
    for (i = 0; i < 8; i++) d[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
    d[10] = 0;
    mcu_put(l, d);
}

/* six decimals, for people: the hex bits are what the comparison reads */
static void mcu_put_f(mcu_line *l, float f) {
    double v = f;
    unsigned long ip, fp;
    char d[8];
    int i;
    if (!(v - v == 0)) {
        mcu_put(l, "nan/inf");
        return;
    }
    if (v < 0) {
        mcu_put(l, "-");
        v = -v;
    }
    if (v >= 1e9) {
        mcu_put(l, ">=1e9");
        return;
    }
    ip = (unsigned long)v;
    fp = (unsigned long)((v - (double)ip) * 1e6 + 0.5);
    if (fp >= 1000000) {
        ip++;
        fp -= 1000000;
    }
    mcu_put_u(l, ip);
    for (i = 6; i > 0; i--, fp /= 10) d[i] = (char)('0' + fp % 10);
    d[0] = '.';
    d[7] = 0;
    mcu_put(l, d);
}

static void mcu_end(mcu_line *l) {
    mcu_put(l, "\n");
    mcu_write(l->s);
    l->n = 0;
    l->s[0] = 0;
}

static void mcu_stat(const char *name, unsigned long v) {
    mcu_line l = {{0}, 0};
    mcu_put(&l, "stat ");
    mcu_put(&l, name);
    mcu_put(&l, " ");
    mcu_put_u(&l, v);
    mcu_end(&l);
}

static int mcu_fail(const char *what, umap_result r, const char *detail) {
    mcu_line l = {{0}, 0};
    mcu_put(&l, "mcu: FAILED: ");
    mcu_put(&l, what);
    if (r != UMAP_OK) {
        mcu_put(&l, ": ");
        mcu_put(&l, umap_result_string(r));
    }
    if (detail && detail[0]) {
        mcu_put(&l, ": ");
        mcu_put(&l, detail);
    }
    mcu_end(&l);
    return 1;
}

static umap_result mcu_transform_rows(const umap_model *m, const float *rows, int n, float *out, char *detail,
                                      size_t detail_size) {
    umap_transform_desc td;
    memset(&td, 0, sizeof td);
    td.mode = UMAP_TRANSFORM_ENCODER;
    td.n_threads = 1;
    td.detail = detail;
    td.detail_size = detail_size;
    return umap_transform_with(m, &td, rows, n, mcu_n_cols, out);
}

static umap_result mcu_transform(const umap_model *m, float *out, char *detail, size_t detail_size) {
    return mcu_transform_rows(m, mcu_rows, mcu_n_rows, out, detail, detail_size);
}

int main(void) {
    umap_allocator al;
    umap_model *m = NULL;
    umap_result r;
    char detail[256];
    float *out, *again;
    size_t n_out, load_peak, model_bytes, level, top, call_bytes;
    int i, j, c, failed = 0;
    mcu_line l = {{0}, 0};

    mcu_arena_init(&mcu_heap, mcu_memory, sizeof mcu_memory);
    memset(&al, 0, sizeof al);
    al.alloc_fn = mcu_alloc;
    al.free_fn = mcu_free;
    al.user_data = &mcu_heap;
    mcu_put(&l, "mcu: umap " UMAP_VERSION_STRING ", a model of ");
    mcu_put_u(&l, (unsigned long)mcu_model_size);
    mcu_put(&l, " bytes, ");
    mcu_put_u(&l, (unsigned long)mcu_n_rows);
    mcu_put(&l, " rows of ");
    mcu_put_u(&l, (unsigned long)mcu_n_cols);
    mcu_end(&l);

    if ((r = umap_load_memory(mcu_model, mcu_model_size, &al, &m, detail, sizeof detail)) != UMAP_OK)
        return mcu_fail("umap_load_memory", r, detail);
    load_peak = mcu_heap.peak;
    model_bytes = mcu_heap.used;
    if (umap_model_n_features(m) != mcu_n_cols) return mcu_fail("the rows' width is not the model's", UMAP_OK, NULL);
    c = umap_model_n_components(m);
    n_out = (size_t)mcu_n_rows * (size_t)c;
    out = (float *)mcu_alloc(n_out * sizeof(float), &mcu_heap);
    again = (float *)mcu_alloc(n_out * sizeof(float), &mcu_heap);
    if (!out || !again) return mcu_fail("no room in the arena for the outputs", UMAP_OK, NULL);

    level = mcu_heap.used;
    top = mcu_arena_tidy(&mcu_heap);
    if ((r = mcu_transform(m, out, detail, sizeof detail)) != UMAP_OK) return mcu_fail("transform", r, detail);
    call_bytes = mcu_heap.peak - top;
    if (mcu_heap.used != level) failed = mcu_fail("transform kept arena memory after it returned", UMAP_OK, NULL);
    /* the same rows again: the same bits and the same memory */
    if (mcu_arena_tidy(&mcu_heap) != top) failed = mcu_fail("the arena's layout changed", UMAP_OK, NULL);
    if ((r = mcu_transform(m, again, detail, sizeof detail)) != UMAP_OK) return mcu_fail("transform (again)", r, detail);
    if (memcmp(out, again, n_out * sizeof(float)) != 0) failed = mcu_fail("a second transform differs", UMAP_OK, NULL);
    if (mcu_heap.peak - top != call_bytes || mcu_heap.used != level)
        failed = mcu_fail("a second transform took other memory", UMAP_OK, NULL);

    /* one byte short of what the call took: it must fail, and give all back
       (unless it fitted in the free space below the top) */
    if (call_bytes > 0) {
        mcu_arena_tidy(&mcu_heap);
        mcu_heap.limit = top + call_bytes - 1;
        r = mcu_transform(m, again, detail, sizeof detail);
        mcu_heap.limit = mcu_heap.size;
        if (r != UMAP_ERR_OUT_OF_MEMORY)
            failed = mcu_fail("transform one byte short of memory did not run out", r, detail);
        if (mcu_heap.used != level) failed = mcu_fail("transform out of memory kept arena memory", UMAP_OK, NULL);
    }

    { /* a row holding NaN is refused, and the message names it */
        float *bad = (float *)mcu_alloc((size_t)mcu_n_cols * sizeof(float), &mcu_heap);
        if (!bad) return mcu_fail("no room in the arena for a row", UMAP_OK, NULL);
        memcpy(bad, mcu_rows, (size_t)mcu_n_cols * sizeof(float));
        bad[mcu_n_cols / 2] = NAN;
        r = mcu_transform_rows(m, bad, 1, again, detail, sizeof detail);
        mcu_free(bad, &mcu_heap);
        if (r != UMAP_ERR_NON_FINITE) failed = mcu_fail("a row holding NaN was not refused", r, detail);
        mcu_put(&l, "mcu: a row holding NaN: ");
        mcu_put(&l, umap_result_string(r));
        mcu_put(&l, ": ");
        mcu_put(&l, detail);
        mcu_end(&l);
        if (mcu_heap.used != level) failed = mcu_fail("a refused transform kept arena memory", UMAP_OK, NULL);
    }

    for (i = 0; i < mcu_n_rows; i++) {
        mcu_put(&l, "row ");
        mcu_put_u(&l, (unsigned long)i);
        for (j = 0; j < c; j++) {
            uint32_t bits;
            memcpy(&bits, &out[(size_t)i * c + j], sizeof bits);
            mcu_put(&l, " ");
            mcu_put_hex(&l, bits);
        }
        for (j = 0; j < c; j++) {
            mcu_put(&l, " ");
            mcu_put_f(&l, out[(size_t)i * c + j]);
        }
        mcu_end(&l);
    }

    mcu_free(again, &mcu_heap);
    mcu_free(out, &mcu_heap);
    umap_model_free(m);
    if (mcu_heap.used != 0 || mcu_arena_tidy(&mcu_heap) != 0)
        failed = mcu_fail("the model's memory did not all come back", UMAP_OK, NULL);
    /* loading one byte short of what it took fails as cleanly */
    mcu_heap.limit = load_peak - 1;
    m = NULL;
    r = umap_load_memory(mcu_model, mcu_model_size, &al, &m, detail, sizeof detail);
    mcu_heap.limit = mcu_heap.size;
    if (r != UMAP_ERR_OUT_OF_MEMORY || m) failed = mcu_fail("a load one byte short of memory did not run out", r, detail);
    umap_model_free(m);
    if (mcu_heap.used != 0) failed = mcu_fail("a load out of memory kept arena memory", UMAP_OK, NULL);

    mcu_stat("arena_size", (unsigned long)mcu_heap.size);
    mcu_stat("arena_peak", (unsigned long)mcu_heap.max_peak);
    mcu_stat("model_bytes", (unsigned long)model_bytes);
    mcu_stat("load_peak", (unsigned long)load_peak);
    mcu_stat("transform_peak", (unsigned long)(top + call_bytes));
    mcu_stat("stack_size", mcu_stack_size());
    mcu_stat("stack_peak", mcu_stack_peak());
    mcu_stat("default_allocator_calls", mcu_default_allocs);
    mcu_stat("sbrk_calls", mcu_sbrk_calls);
    mcu_stat("open_calls", mcu_open_calls);
    if (mcu_sbrk_calls || mcu_open_calls) failed = mcu_fail("newlib was asked for heap memory or a file", UMAP_OK, NULL);
    mcu_write(failed ? "mcu: FAILED\n" : "mcu: ok\n");
    return failed;
}
