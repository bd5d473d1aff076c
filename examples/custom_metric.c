/* custom_metric.c - UMAP with a distance of your own, as a C function.

   The digits of umap_demo.c (2,000 images of 16x16 pixels, drawn by
   cli/umap_digits.h), measured two ways: euclidean, which a one-pixel shift
   of the same stroke makes far, and a shift-tolerant distance of the kind
   no metric list has: the smallest euclidean distance between one image
   and the other moved by up to `reach` pixels in each direction. It is a
   umap_metric_fn: two rows in, a distance in double out, with a pointer of
   yours (here the image side and the reach). The library calls it from
   several threads at once, so it only reads. Prints each fit's time and
   how well its 2-D map keeps the digits apart (the 10-NN accuracy in the
   map), then refuses a broken distance, naming the pair.

   Build:  gcc -O2 -I. examples/custom_metric.c -o build/custom_metric -lblas -lpthread -lm
   (or `make build/custom_metric`). */
#define UMAP_IMPLEMENTATION
#include "umap.h"
#define UMAP_DIGITS_IMPLEMENTATION
#include "cli/umap_digits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 2000
#define SIDE UMAP_DIGITS_SIDE

typedef struct shifts {
    int side;  /* the images are side x side pixels */
    int reach; /* the largest shift tried, in pixels, each way */
} shifts;

/* min over shifts (dx, dy) of |a - b moved by (dx, dy)|, the pixels moved
   in from outside the image counting as blank */
static double shift_tolerant(const float *a, const float *b, int64_t dim, void *user_data) {
    const shifts *s = (const shifts *)user_data;
    double best = HUGE_VAL;
    int dx, dy, x, y;
    (void)dim; /* side * side */
    for (dy = -s->reach; dy <= s->reach; dy++)
        for (dx = -s->reach; dx <= s->reach; dx++) {
            double sum = 0.0;
            for (y = 0; y < s->side && sum < best; y++)
                for (x = 0; x < s->side; x++) {
                    int bx = x + dx, by = y + dy;
                    double v = bx >= 0 && bx < s->side && by >= 0 && by < s->side ? b[by * s->side + bx] : 0.0;
                    double d = a[y * s->side + x] - v;
                    sum += d * d;
                }
            if (sum < best) best = sum;
        }
    /* symmetric: a moved one way against b is b moved the other against a,
       and every shift is tried both ways */
    return sqrt(best);
}

/* a distance that is wrong for one pair, as a bug would make it */
static double broken(const float *a, const float *b, int64_t dim, void *user_data) {
    double d = shift_tolerant(a, b, dim, user_data);
    return a == b || d > 0.0 ? d : -1.0; /* two different but identical-looking images: -1 */
}

static int fit_and_score(const char *name, umap_config *config, const float *images, const int32_t *labels) {
    umap_fit_info info;
    umap_quality quality;
    umap_model *model = NULL;
    umap_result r;
    config->info = &info;
    r = umap_fit(config, images, N, SIDE * SIDE, &model);
    if (r != UMAP_OK) {
        fprintf(stderr, "custom_metric: %s: fit failed: %s: %s\n", name, umap_result_string(r), info.error_detail);
        return 1;
    }
    r = umap_quality_eval(NULL, images, N, SIDE * SIDE, umap_model_embedding(model), 2, labels, &quality);
    if (r != UMAP_OK) {
        fprintf(stderr, "custom_metric: quality failed: %s\n", umap_result_string(r));
        umap_model_free(model);
        return 1;
    }
    printf("  %-14s k-NN %5.2f s, fit %5.2f s: 10-NN accuracy in the map %.3f\n", name, info.knn_s, info.total_s,
           quality.knn_accuracy);
    umap_model_free(model);
    return 0;
}

int main(void) {
    static float images[N * SIDE * SIDE];
    static int32_t labels[N];
    shifts reach1 = {SIDE, 1};
    umap_config config = umap_config_default();
    umap_knn_desc desc;
    umap_knn_info info;
    static int32_t idx[N * 5];

    umap_digits_draw(N, images, labels);
    printf("custom_metric: %d drawn digits of %dx%d pixels\n", N, SIDE, SIDE);
    config.keep_data = UMAP_KEEP_NONE; /* the encoder places new rows; no rows kept */
    if (fit_and_score("euclidean", &config, images, labels)) return 1;
    config.metric = UMAP_METRIC_CUSTOM;
    config.metric_fn = shift_tolerant;
    config.metric_user_data = &reach1;
    if (fit_and_score("shift-tolerant", &config, images, labels)) return 1;

    /* a wrong distance is an error naming the pair, never a silent graph */
    memset(&desc, 0, sizeof desc);
    desc.k = 5;
    desc.metric = UMAP_METRIC_CUSTOM;
    desc.metric_fn = broken;
    desc.metric_user_data = &reach1;
    desc.info = &info;
    memcpy(images + 7 * SIDE * SIDE, images + 3 * SIDE * SIDE, SIDE * SIDE * sizeof(float)); /* rows 3, 7 alike */
    if (umap_knn(&desc, images, 100, SIDE * SIDE, idx, NULL) == UMAP_OK) {
        fprintf(stderr, "custom_metric: the broken distance was not caught\n");
        return 1;
    }
    printf("  a broken distance: %s\n", info.error_detail);
    return 0;
}
