/* The one translation unit that holds the implementation, compiled as C:
   umap.h's and, through umap_vk.h, the Vulkan side's (with UMAP_VULKAN when
   the Makefile found the Vulkan headers, else its "not built" stand-ins). */
#define UMAP_IMPLEMENTATION
#define UMAP_VK_IMPLEMENTATION
#include "umap_vk.h"

#include <string.h>

/* Test hook (test_umap.cc): the push field's vector lookup against the
   scalar one, on n places around a field of random rows: inside the grid,
   past its edges (the far branch, in some lanes of a vector and not in
   others) and NaN. Returns how many places differ in their bits, or -1
   where this build or CPU has no vector lookup; *n_off: the places off the
   grid. */
int umap_test_push_field_lanes(int n, int *n_off);
#ifdef UMAP__REFINE_AVX2
__attribute__((target("avx2"))) static int umap__test_push_lanes(const umap__push_field *f, umap_rng *rng, int n,
                                                                 int *n_off) {
    int i, l, differ = 0;
    for (i = 0; i < n; i += UMAP__RL) {
        float y0s[UMAP__RL], y1s[UMAP__RL], v0[UMAP__RL], v1[UMAP__RL];
        umap__rvf y0, y1, o0, o1;
        for (l = 0; l < UMAP__RL; l++) { /* the grid spans about -4 .. 8: about half the places lie off it */
            y0s[l] = 18.0f * umap_rng_uniform(rng) - 7.0f;
            y1s[l] = 18.0f * umap_rng_uniform(rng) - 7.0f;
            if ((i / UMAP__RL + l) % 29 == 0) y1s[l] = NAN;
        }
        memcpy(&y0, y0s, sizeof y0);
        memcpy(&y1, y1s, sizeof y1);
        umap__push_field_at_v(f, &y0, &y1, &o0, &o1);
        memcpy(v0, &o0, sizeof v0);
        memcpy(v1, &o1, sizeof v1);
        for (l = 0; l < UMAP__RL; l++) {
            float want[2];
            float ux = (y0s[l] - f->lo[0]) / f->cell[0], uy = (y1s[l] - f->lo[1]) / f->cell[1];
            umap__push_field_at(f, y0s[l], y1s[l], want);
            *n_off += !(ux >= 0.0f && ux < (float)(f->g - 1) && uy >= 0.0f && uy < (float)(f->g - 1));
            differ += memcmp(&v0[l], &want[0], sizeof(float)) != 0 || memcmp(&v1[l], &want[1], sizeof(float)) != 0;
        }
    }
    return differ;
}
#endif
int umap_test_push_field_lanes(int n, int *n_off) {
#ifdef UMAP__REFINE_AVX2
    umap_allocator alloc;
    umap__push_field f;
    umap_rng rng;
    float emb[2 * 300];
    int i, differ;
    *n_off = 0;
    if (!umap__cpu_has(UMAP__CPU_AVX2)) return -1;
    memset(&alloc, 0, sizeof alloc);
    umap_rng_init(&rng, 7, 0);
    for (i = 0; i < 2 * 300; i++) emb[i] = 10.0f * umap_rng_uniform(&rng) - 3.0f;
    if (umap__push_field_build(&f, &alloc, emb, 300, 1.577f, 0.8951f, 1.0f, NULL, 0) != UMAP_OK) return n + 1;
    differ = umap__test_push_lanes(&f, &rng, n, n_off);
    umap__push_field_free(&alloc, &f);
    return differ;
#else
    (void)n;
    *n_off = 0;
    return -1;
#endif
}
