/* bench_step.c - time one training step of an MLP, and the same step in
   PyTorch.

   The model: 784 -> 256 -> 256 -> 2, ReLU between layers, MSE loss against
   random targets, batch 4096. A step is one run of the compiled forward +
   backward program and one Adam update of every parameter (w1 b1 w2 b2 w3
   b3) through umap_program_train_step, so Adam runs where the program does.
   Only public APIs are used (umap.h, and umap_vk.h for --device vulkan:
   the step compiled for the Vulkan backend, UMAP_VK_MODE choosing the mode;
   the weights and Adam stay on the device, each step's update goes out with
   the next run, and per-op times are not split).

   Build:  cc -O2 -I. bench/bench_step.c -o bench_step -lblas -lpthread -lm
           (add -DUMAP_NO_BLAS and drop -lblas for the portable sgemm)
   Run:    OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=2 ./bench_step
           [--threads T] [--runs N] [--no-torch] [--dump] [--device cpu|vulkan]
   (or `make bench-step`). The PyTorch side runs bench/torch_step.py from the
   current directory with /usr/bin/python3, or with $UMAP_BENCH_PYTHON when
   set; with --device vulkan it runs on CUDA when PyTorch has it (the same
   GPU, what a user would pick instead), else on the CPU, and says which. */
#define _POSIX_C_SOURCE 200809L
#define UMAP_VK_IMPLEMENTATION /* umap.h comes along */
#include "umap_vk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

enum { BATCH = 4096, D_IN = 784, D_H = 256, D_OUT = 2, N_PARAMS = 6, WARMUP = 3 };

static const char *const TORCH_PYTHON_DEFAULT = "/usr/bin/python3";
static const char *const TORCH_SCRIPT = "bench/torch_step.py";

static void fail(const char *what, umap_result r, const umap_graph *g, const umap_program *p) {
    fprintf(stderr, "bench_step: %s failed: %s", what, umap_result_string(r));
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

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) { /* sorts v */
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "bench_step: out of memory\n");
        exit(1);
    }
    return p;
}

static void usage(void) {
    fprintf(stderr, "usage: bench_step [--threads T] [--runs N] [--no-torch] [--dump] [--device cpu|vulkan]\n");
    exit(2);
}

/* Runs the PyTorch script; returns 1 and fills *median_ms and *min_ms when it
   printed a median_ms= line, 0 (with a message) otherwise. */
static int run_torch(int threads, int runs, int gpu, double *median_ms, double *min_ms) {
    char cmd[1024], line[512];
    FILE *f;
    int got = 0, status;
    const char *python = getenv("UMAP_BENCH_PYTHON");
    if (!python || !python[0]) python = TORCH_PYTHON_DEFAULT;
    if (access(python, X_OK) != 0) {
        printf("PyTorch comparison skipped: %s not found\n", python);
        return 0;
    }
    if (access(TORCH_SCRIPT, R_OK) != 0) {
        printf("PyTorch comparison skipped: %s not found (run from the repository root)\n", TORCH_SCRIPT);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "%s %s --threads %d --runs %d --device %s 2>&1", python, TORCH_SCRIPT, threads,
             runs, gpu ? "gpu" : "cpu");
    printf("running: %s\n", cmd);
    fflush(stdout);
    f = popen(cmd, "r");
    if (!f) {
        printf("PyTorch comparison skipped: could not start %s\n", python);
        return 0;
    }
    *min_ms = -1.0;
    while (fgets(line, sizeof line, f)) {
        const char *m = strstr(line, "median_ms=");
        const char *n = strstr(line, "min_ms=");
        if (m && sscanf(m + 10, "%lf", median_ms) == 1) got = 1;
        if (n && sscanf(n + 7, "%lf", min_ms) != 1) *min_ms = -1.0;
        if (!m && !n) printf("  torch: %s", line);
    }
    status = pclose(f);
    if (status != -1 && WIFEXITED(status)) status = WEXITSTATUS(status);
    if (!got) {
        printf("PyTorch comparison skipped: no median_ms line from the script (exit status %d; "
               "is python3-torch installed?)\n", status);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    static const char *const names[N_PARAMS] = {"w1", "b1", "w2", "b2", "w3", "b3"};
    umap_shape pshape[N_PARAMS];
    float *pdata[N_PARAMS];
    int64_t pnumel[N_PARAMS];
    float *xs, *ts;
    int threads = 2, runs = 20, torch = 1, dump = 0, i, k, step;
    umap_graph *g = NULL;
    umap_program *p = NULL;
    umap_tensor *x, *t, *pw[N_PARAMS], *h1, *h2, *y, *loss, *grads[N_PARAMS], *outs[N_PARAMS + 1];
    umap_compile_desc cd;
    umap_train_desc train;
    int grad_out[N_PARAMS];
    umap_program_stats st;
    umap_profile prof;
    umap_rng rng;
    double *step_ms, *mm_ms, *rest_ms, *adam_ms, min_step, med_step, med_mm, med_rest, med_adam, gflop;
    double op_sum[UMAP_OP_COUNT] = {0}, region_sum = 0.0;
    int64_t op_calls[UMAP_OP_COUNT] = {0}, region_calls = 0;
    const char *env, *device = "cpu";
    umap_vk *vk = NULL;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-torch")) torch = 0;
        else if (!strcmp(argv[i], "--dump")) dump = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else usage();
    }
    if (threads < 1 || runs < 1) usage();

    printf("bench_step: MLP %d -> %d -> %d -> %d (ReLU), MSE, Adam, batch %d\n", D_IN, D_H, D_H, D_OUT, BATCH);
#ifdef UMAP_NO_BLAS
    printf("matmul: portable blocked sgemm (compiled with UMAP_NO_BLAS)\n");
#else
    printf("matmul: CBLAS sgemm from -lblas (compiled without UMAP_NO_BLAS)\n");
#endif
    env = getenv("OPENBLAS_CORETYPE");
    printf("threads %d, runs %d, OPENBLAS_CORETYPE=%s", threads, runs, env ? env : "(unset)");
    env = getenv("OPENBLAS_NUM_THREADS");
    printf(", OPENBLAS_NUM_THREADS=%s\n", env ? env : "(unset)");

    /* parameters (He init), data */
    pshape[0] = umap_shape2(D_IN, D_H);
    pshape[1] = umap_shape1(D_H);
    pshape[2] = umap_shape2(D_H, D_H);
    pshape[3] = umap_shape1(D_H);
    pshape[4] = umap_shape2(D_H, D_OUT);
    pshape[5] = umap_shape1(D_OUT);
    umap_rng_init(&rng, 1, 0);
    for (k = 0; k < N_PARAMS; k++) {
        int64_t n = umap_shape_numel(pshape[k]), j;
        float scale = pshape[k].rank == 2 ? sqrtf(2.0f / (float)pshape[k].dim[0]) : 0.0f;
        pnumel[k] = n;
        pdata[k] = (float *)xmalloc((size_t)n * sizeof(float));
        for (j = 0; j < n; j++) pdata[k][j] = umap_rng_normal(&rng) * scale;
    }
    xs = (float *)xmalloc((size_t)BATCH * D_IN * sizeof(float));
    ts = (float *)xmalloc((size_t)BATCH * D_OUT * sizeof(float));
    for (i = 0; i < BATCH * D_IN; i++) xs[i] = umap_rng_normal(&rng);
    for (i = 0; i < BATCH * D_OUT; i++) ts[i] = umap_rng_normal(&rng);

    /* the graph: forward, loss, and the gradients of all six parameters */
    CHECK(umap_graph_create(NULL, &g), NULL, NULL);
    x = umap_input(g, "x", umap_shape2(BATCH, D_IN));
    t = umap_input(g, "t", umap_shape2(BATCH, D_OUT));
    for (k = 0; k < N_PARAMS; k++) pw[k] = umap_param(g, names[k], pshape[k]);
    h1 = umap_relu(g, umap_add(g, umap_matmul(g, x, pw[0]), pw[1]));
    h2 = umap_relu(g, umap_add(g, umap_matmul(g, h1, pw[2]), pw[3]));
    y = umap_add(g, umap_matmul(g, h2, pw[4]), pw[5]);
    loss = umap_mean(g, umap_square(g, umap_sub(g, y, t)), UMAP_AXES_ALL, 0);
    if (!loss) fail("building the MLP", umap_graph_status(g), g, NULL);
    CHECK(umap_grad(g, loss, N_PARAMS, pw, grads), g, NULL);
    outs[0] = loss;
    for (k = 0; k < N_PARAMS; k++) outs[k + 1] = grads[k];

    memset(&cd, 0, sizeof cd);
    cd.n_threads = threads;
    cd.profile = 1;
    if (strcmp(device, "cpu") != 0) {
        char why[512];
        umap_vk_device_info dev;
        if (strcmp(device, "vulkan") != 0) usage();
        if (umap_vk_create(NULL, &vk, why, sizeof why) != UMAP_OK) {
            fprintf(stderr, "bench_step: --device vulkan: %s\n", why);
            return 1;
        }
        umap_vk_device(vk, &dev);
        cd.backend = umap_vk_backend(vk);
        printf("device: %s, %s backend\n", dev.name, cd.backend->name);
    }
    CHECK(umap_compile(g, N_PARAMS + 1, outs, &cd, &p), g, NULL);
    umap_program_stats_get(p, &st);
    printf("program: %d nodes built, %d optimized, %d kernels per run, %d fused regions, arena %.1f MiB\n",
           st.nodes[UMAP_STAGE_BUILT], st.nodes[UMAP_STAGE_OPTIMIZED], st.steps, st.regions,
           (double)st.peak_bytes / (1024.0 * 1024.0));
    if (dump) {
        umap_program_dump(p, UMAP_STAGE_FUSED, stdout);
        umap_program_fusion_report(p, stdout);
    }

    CHECK(umap_program_bind(p, "x", xs, (int64_t)BATCH * D_IN), g, p);
    CHECK(umap_program_bind(p, "t", ts, (int64_t)BATCH * D_OUT), g, p);
    for (k = 0; k < N_PARAMS; k++) CHECK(umap_program_bind(p, names[k], pdata[k], pnumel[k]), g, p);
    train = umap_train_desc_default();
    for (k = 0; k < N_PARAMS; k++) grad_out[k] = k + 1;
    train.n_params = N_PARAMS;
    train.params = names;
    train.grad_outputs = grad_out;
    train.adam.lr = 1e-3f;
    CHECK(umap_program_train_attach(p, &train), g, p);

    step_ms = (double *)xmalloc((size_t)runs * sizeof(double));
    mm_ms = (double *)xmalloc((size_t)runs * sizeof(double));
    rest_ms = (double *)xmalloc((size_t)runs * sizeof(double));
    adam_ms = (double *)xmalloc((size_t)runs * sizeof(double));
    {
        float first_loss = 0.0f, last_loss = 0.0f;
        for (step = 1; step <= WARMUP + runs; step++) {
            const float *lv = NULL;
            double t0, t1, t2;
            int timed = step > WARMUP;
            umap_program_profile_reset(p);
            t0 = now_ms();
            CHECK(umap_program_run(p), g, p);
            t1 = now_ms();
            CHECK(umap_program_train_step(p, step, 1.0f), g, p);
            t2 = now_ms();
            CHECK(umap_program_output(p, 0, &lv, NULL), g, p);
            if (step == 1) first_loss = lv[0];
            last_loss = lv[0];
            if (timed) {
                int r = step - WARMUP - 1;
                umap_program_profile(p, &prof);
                step_ms[r] = t2 - t0;
                mm_ms[r] = prof.ms[UMAP_OP_MATMUL];
                rest_ms[r] = step_ms[r] - mm_ms[r];
                adam_ms[r] = t2 - t1;
                for (k = 0; k < UMAP_OP_COUNT; k++) {
                    op_sum[k] += prof.ms[k];
                    op_calls[k] += prof.calls[k];
                }
                region_sum += prof.region_ms;
                region_calls += prof.region_calls;
            }
        }
        printf("loss %.4f at step 1, %.4f at step %d\n", first_loss, last_loss, WARMUP + runs);
    }

    for (min_step = step_ms[0], i = 1; i < runs; i++)
        if (step_ms[i] < min_step) min_step = step_ms[i];
    med_step = median(step_ms, runs);
    med_mm = median(mm_ms, runs);
    med_rest = median(rest_ms, runs);
    med_adam = median(adam_ms, runs);
    /* matmul work per step: forward 3 products; backward dW for all three
       layers and dX for layers 2 and 3 (x needs no gradient) */
    gflop = 2.0 * BATCH * (3.0 * (D_IN * D_H + D_H * D_H + D_H * D_OUT) - D_IN * D_H) * 1e-9;
    printf("\numap.h: median %.2f ms/step, min %.2f ms/step (%d timed steps after %d warm-up)\n", med_step,
           min_step, runs, WARMUP);
    if (vk) { /* a resident program runs as one submission, the last step's Adam included: no split by op */
        printf("  one submission per step: Adam of the previous step, forward and backward (%.1f GFLOP of matmul)%s\n",
               gflop, cd.backend == umap_vk_backend_mode(vk, UMAP_VK_EAGER) ? "; eager mode: Adam on the host" : "");
    } else {
        printf("  matmul  median %.2f ms/step (%.1f GFLOP, %.0f GFLOP/s)\n", med_mm, gflop,
               med_mm > 0.0 ? gflop / (med_mm * 1e-3) : 0.0);
        printf("  rest    median %.2f ms/step (everything else; of it Adam %.2f ms)\n", med_rest, med_adam);
        printf("  profile, mean ms/step by op (Adam not included):\n");
        for (k = 0; k < UMAP_OP_COUNT; k++)
            if (op_calls[k] > 0)
                printf("    %-14s %8.3f ms  %4.1f calls\n", umap_op_name((umap_op)k), op_sum[k] / runs,
                       (double)op_calls[k] / runs);
        if (region_calls > 0)
            printf("    %-14s %8.3f ms  %4.1f calls\n", "fused regions", region_sum / runs,
                   (double)region_calls / runs);
    }

    /* free everything first, so that PyTorch has the machine to itself */
    umap_program_free(p);
    umap_vk_free(vk); /* after the program compiled for it */
    umap_graph_free(g);
    for (k = 0; k < N_PARAMS; k++) {
        free(pdata[k]);
    }
    free(xs);
    free(ts);
    free(step_ms);
    free(mm_ms);
    free(rest_ms);
    free(adam_ms);
    if (torch) {
        double t_med = 0.0, t_min = -1.0;
        printf("\n");
        if (run_torch(threads, runs, strcmp(device, "cpu") != 0, &t_med, &t_min)) {
            printf("\n%-10s %12s %12s\n", "", "median ms", "min ms");
            printf("%-10s %12.2f %12.2f\n", "umap.h", med_step, min_step);
            if (t_min >= 0.0) printf("%-10s %12.2f %12.2f\n", "pytorch", t_med, t_min);
            else printf("%-10s %12.2f %12s\n", "pytorch", t_med, "?");
            printf("ratio umap.h / pytorch (median): %.2f\n", t_med > 0.0 ? med_step / t_med : 0.0);
        }
    }
    return 0;
}
