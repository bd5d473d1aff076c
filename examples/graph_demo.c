/* graph_demo.c - the tensor compiler under umap.h, in two parts:

   1. the quick-start graph y = x @ w: the graph as built, the program after
      each compile stage, the fusion report and the output;
   2. a small MLP (2 -> 16 tanh -> 1) fitted to sin(x0) * cos(x1) on 256
      points by plain gradient descent, with gradients from umap_grad.

   Build:  cc -O2 -I. examples/graph_demo.c -o graph_demo -lblas -lpthread -lm
   (or `make demo`). Exits 1 if anything fails or the loss does not fall at
   least 5x. */
#define UMAP_IMPLEMENTATION
#include "umap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Report a failed call with the result's message and the detail the graph
   or program recorded, then exit. */
static void fail(const char *what, umap_result r, const umap_graph *g, const umap_program *p) {
    fprintf(stderr, "graph_demo: %s failed: %s", what, umap_result_string(r));
    if (p && umap_program_error_detail(p)[0]) fprintf(stderr, ": %s", umap_program_error_detail(p));
    else if (g && umap_graph_error_detail(g)[0]) fprintf(stderr, ": %s", umap_graph_error_detail(g));
    fputc('\n', stderr);
    exit(1);
}

#define CHECK(call, g, p)                                      \
    do {                                                       \
        umap_result check_r_ = (call);                         \
        if (check_r_ != UMAP_OK) fail(#call, check_r_, g, p);  \
    } while (0)

static const char *stage_name(umap_stage s) {
    switch (s) {
    case UMAP_STAGE_BUILT: return "built";
    case UMAP_STAGE_OPTIMIZED: return "optimized";
    case UMAP_STAGE_FUSED: return "fused";
    default: return "?";
    }
}

/* ---- part 1: y = x @ w ------------------------------------------------- */
static void quick_start(void) {
    static const float xs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    static const float ws[8] = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 0.0f, 1.0f, 0.5f}; /* [4,2] row-major */
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_tensor *x, *w, *y;
    const float *out = NULL;
    umap_shape shape;
    int s, j;

    printf("== part 1: y = x @ w, x [1,4], w [4,2]\n\n");
    CHECK(umap_graph_create(NULL, &g), NULL, NULL);
    x = umap_input(g, "x", umap_shape2(1, 4));
    w = umap_param(g, "w", umap_shape2(4, 2));
    y = umap_matmul(g, x, w);
    if (!y) fail("building y = x @ w", umap_graph_status(g), g, NULL);

    printf("-- graph as built (umap_graph_dump)\n");
    umap_graph_dump(g, 1, &y, stdout);

    CHECK(umap_compile(g, 1, &y, NULL, &p), g, NULL);
    for (s = 0; s < UMAP_STAGE_COUNT; s++) {
        printf("\n-- program, stage %s (umap_program_dump)\n", stage_name((umap_stage)s));
        umap_program_dump(p, (umap_stage)s, stdout);
    }
    printf("\n-- fusion report\n");
    umap_program_fusion_report(p, stdout);

    CHECK(umap_program_bind(p, "x", xs, 4), g, p);
    CHECK(umap_program_bind(p, "w", ws, 8), g, p);
    CHECK(umap_program_run(p), g, p);
    CHECK(umap_program_output(p, 0, &out, &shape), g, p);
    if (shape.rank != 2 || shape.dim[0] != 1 || shape.dim[1] != 2) {
        fprintf(stderr, "graph_demo: y has rank %d, expected [1,2]\n", shape.rank);
        exit(1);
    }
    printf("\n-- output\n");
    for (j = 0; j < 2; j++) {
        float want = 0.0f;
        int i;
        for (i = 0; i < 4; i++) want += xs[i] * ws[i * 2 + j];
        printf("y[0,%d] = %g (expected %g)\n", j, out[j], want);
        if (fabsf(out[j] - want) > 1e-5f) {
            fprintf(stderr, "graph_demo: wrong value for y[0,%d]\n", j);
            exit(1);
        }
    }
    umap_program_free(p);
    umap_graph_free(g);
}

/* ---- part 2: an MLP trained by gradient descent --------------------------- */
enum { N_POINTS = 256, N_HIDDEN = 16, N_STEPS = 2000, PRINT_EVERY = 200 };

static void train_mlp(void) {
    static float xs[N_POINTS * 2], ts[N_POINTS];
    static float w1[2 * N_HIDDEN], b1[N_HIDDEN], w2[N_HIDDEN], b2[1];
    float *params[4] = {w1, b1, w2, b2};
    const int64_t sizes[4] = {2 * N_HIDDEN, N_HIDDEN, N_HIDDEN, 1};
    const float lr = 0.1f;
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_tensor *x, *t, *pw[4], *h, *pred, *loss, *grads[4], *outs[5];
    umap_program_stats st;
    umap_rng rng;
    float first_loss = 0.0f, last_loss = 0.0f;
    int i, k, step;

    printf("\n== part 2: MLP 2 -> %d tanh -> 1, fit sin(x0)*cos(x1) on %d points\n\n", N_HIDDEN, N_POINTS);

    /* data and initial weights, all from the seeded RNG */
    umap_rng_init(&rng, 42, 0);
    for (i = 0; i < N_POINTS; i++) {
        xs[i * 2 + 0] = 4.0f * umap_rng_uniform(&rng) - 2.0f;
        xs[i * 2 + 1] = 4.0f * umap_rng_uniform(&rng) - 2.0f;
        ts[i] = sinf(xs[i * 2 + 0]) * cosf(xs[i * 2 + 1]);
    }
    for (i = 0; i < 2 * N_HIDDEN; i++) w1[i] = umap_rng_normal(&rng) * sqrtf(1.0f / 2.0f);
    for (i = 0; i < N_HIDDEN; i++) w2[i] = umap_rng_normal(&rng) * sqrtf(1.0f / N_HIDDEN);
    for (i = 0; i < N_HIDDEN; i++) b1[i] = 0.0f;
    b2[0] = 0.0f;

    /* loss = mean((tanh(x @ w1 + b1) @ w2 + b2 - t)^2); biases broadcast */
    CHECK(umap_graph_create(NULL, &g), NULL, NULL);
    x = umap_input(g, "x", umap_shape2(N_POINTS, 2));
    t = umap_input(g, "t", umap_shape2(N_POINTS, 1));
    pw[0] = umap_param(g, "w1", umap_shape2(2, N_HIDDEN));
    pw[1] = umap_param(g, "b1", umap_shape1(N_HIDDEN));
    pw[2] = umap_param(g, "w2", umap_shape2(N_HIDDEN, 1));
    pw[3] = umap_param(g, "b2", umap_shape1(1));
    h = umap_tanh(g, umap_add(g, umap_matmul(g, x, pw[0]), pw[1]));
    pred = umap_add(g, umap_matmul(g, h, pw[2]), pw[3]);
    loss = umap_mean(g, umap_square(g, umap_sub(g, pred, t)), UMAP_AXES_ALL, 0);
    if (!loss) fail("building the MLP", umap_graph_status(g), g, NULL);
    CHECK(umap_grad(g, loss, 4, pw, grads), g, NULL);

    outs[0] = loss;
    for (k = 0; k < 4; k++) outs[k + 1] = grads[k];
    CHECK(umap_compile(g, 5, outs, NULL, &p), g, NULL);
    umap_program_stats_get(p, &st);
    printf("forward + backward: %d nodes built, %d after optimisation, %d kernels per run\n",
           st.nodes[UMAP_STAGE_BUILT], st.nodes[UMAP_STAGE_OPTIMIZED], st.steps);
    printf("fused regions: %d (%d nodes); arena %lld bytes (%lld without reuse)\n\n", st.regions,
           st.fused_nodes, (long long)st.peak_bytes, (long long)st.unplanned_bytes);
    umap_program_fusion_report(p, stdout);
    putchar('\n');

    /* zero-copy binds: updating the arrays in place updates the model */
    CHECK(umap_program_bind(p, "x", xs, N_POINTS * 2), g, p);
    CHECK(umap_program_bind(p, "t", ts, N_POINTS), g, p);
    CHECK(umap_program_bind(p, "w1", w1, sizes[0]), g, p);
    CHECK(umap_program_bind(p, "b1", b1, sizes[1]), g, p);
    CHECK(umap_program_bind(p, "w2", w2, sizes[2]), g, p);
    CHECK(umap_program_bind(p, "b2", b2, sizes[3]), g, p);

    for (step = 0; step <= N_STEPS; step++) {
        const float *lv = NULL;
        CHECK(umap_program_run(p), g, p);
        CHECK(umap_program_output(p, 0, &lv, NULL), g, p);
        last_loss = lv[0];
        if (step == 0) first_loss = last_loss;
        if (!isfinite(last_loss)) {
            fprintf(stderr, "graph_demo: loss is not finite at step %d\n", step);
            exit(1);
        }
        if (step % PRINT_EVERY == 0) printf("step %5d  loss %.6f\n", step, last_loss);
        if (step == N_STEPS) break;
        for (k = 0; k < 4; k++) {
            const float *gv = NULL;
            int64_t n;
            CHECK(umap_program_output(p, k + 1, &gv, NULL), g, p);
            for (n = 0; n < sizes[k]; n++) params[k][n] -= lr * gv[n];
        }
    }
    printf("\nloss %.6f -> %.6f (%.1fx lower)\n", first_loss, last_loss, first_loss / last_loss);
    umap_program_free(p);
    umap_graph_free(g);
    if (!(last_loss * 5.0f <= first_loss)) {
        fprintf(stderr, "graph_demo: the loss fell less than 5x\n");
        exit(1);
    }
}

int main(void) {
    quick_start();
    train_mlp();
    printf("graph_demo: ok\n");
    return 0;
}
