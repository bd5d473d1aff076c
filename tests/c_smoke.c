/* The public header used from C99: zero-initialised descriptors, compound
   literals, the quick start. Called from test_base.cc. Returns 0 on success,
   else the line that failed. */
#include "umap.h"

#include <string.h>

int umap_test_c_smoke(void);

int umap_test_c_smoke(void) {
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_tensor *x, *w, *y;
    float xs[4] = {1, 2, 3, 4};
    float ws[8] = {1, 0, 0, 1, 1, 1, 2, -1};
    const float *out = NULL;
    umap_shape s;
    int fail = 0;

    if (umap_graph_create(&(umap_graph_desc){0}, &g) != UMAP_OK) return __LINE__;
    x = umap_input(g, "x", umap_shape2(1, 4));
    w = umap_param(g, "w", umap_shape2(4, 2));
    y = umap_matmul(g, x, w);
    if (!y) { fail = __LINE__; goto done; }
    if (umap_compile(g, 1, &y, &(umap_compile_desc){.n_threads = 1}, &p) != UMAP_OK) { fail = __LINE__; goto done; }
    if (umap_program_bind(p, "x", xs, 4) != UMAP_OK) { fail = __LINE__; goto done; }
    if (umap_program_bind(p, "w", ws, 8) != UMAP_OK) { fail = __LINE__; goto done; }
    if (umap_program_run(p) != UMAP_OK) { fail = __LINE__; goto done; }
    if (umap_program_output(p, 0, &out, &s) != UMAP_OK) { fail = __LINE__; goto done; }
    if (s.rank != 2 || s.dim[0] != 1 || s.dim[1] != 2) { fail = __LINE__; goto done; }
    /* [1,2,3,4] @ [[1,0],[0,1],[1,1],[2,-1]] = [12, 1] */
    if (out[0] != 12.0f || out[1] != 1.0f) { fail = __LINE__; goto done; }
done:
    umap_program_free(p);
    umap_graph_free(g);
    return fail;
}
