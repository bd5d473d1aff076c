/* umap_demo.c - parametric UMAP on 3,000 digit images it draws itself.

   Draws 300 images of each digit 0-9 from a 5x7 bitmap font into 16x16
   pixels (256 features), each with its own size, position, slant, stroke
   width and pixel noise (cli/umap_digits.h, which `umap fit --synthetic`
   shares); fits a parametric UMAP (an MLP encoder 256 -> 2);
   prints the time of each phase and how well the 2-D map keeps the images'
   neighbourhoods; and draws the map to umap_demo.svg, one colour per digit.
   Expect ten well-separated clusters, one per digit, and a 10-NN accuracy
   in the map near 1.

   Build:  gcc -O2 -I. examples/umap_demo.c -o build/umap_demo -lblas -lpthread -lm
   (or `make demo`, which also runs it). */
#define UMAP_IMPLEMENTATION
#include "umap.h"
#define UMAP_SVG_IMPLEMENTATION
#include "cli/umap_svg.h"
#define UMAP_DIGITS_IMPLEMENTATION
#include "cli/umap_digits.h"

#include <stdio.h>
#include <stdlib.h>

#define N_PER_DIGIT 300
#define N (10 * N_PER_DIGIT)
#define SIDE UMAP_DIGITS_SIDE /* images are SIDE x SIDE pixels (cli/umap_digits.h draws them) */

/* Prints a few images side by side, darker characters for more ink. */
static void print_images(const float *images, int count) {
    static const char ramp[] = " .:-=+*#%@";
    int y, i, x;
    for (y = 0; y < SIDE; y++) {
        for (i = 0; i < count; i++) {
            for (x = 0; x < SIDE; x++) putchar(ramp[(int)(images[i * SIDE * SIDE + y * SIDE + x] * 9.99f)]);
            fputs("  ", stdout);
        }
        putchar('\n');
    }
}

int main(void) {
    static const char *const names[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    static float images[N * SIDE * SIDE];
    static int32_t labels[N];
    umap_config config = umap_config_default();
    umap_fit_info info;
    umap_quality quality;
    umap_model *model = NULL;
    umap_result r;
    char err[256];

    /* the data: digit i % 10, so the first ten images are 0, 1, ..., 9 */
    umap_digits_draw(N, images, labels);
    printf("umap_demo: %d images of the digits 0-9, %dx%d pixels = %d features; the first five:\n\n", N, SIDE,
           SIDE, SIDE * SIDE);
    print_images(images, 5);

    /* the fit: all defaults (15 neighbours, encoder 256 -> 100 -> 100 -> 2) */
    config.info = &info;
    printf("\nfitting parametric UMAP ...\n");
    r = umap_fit(&config, images, N, SIDE * SIDE, &model);
    if (r != UMAP_OK) {
        fprintf(stderr, "umap_demo: fit failed: %s: %s\n", umap_result_string(r), info.error_detail);
        return 1;
    }
    printf("  k-NN     %6.2f s  (%s, %d neighbours)\n", info.knn_s,
           info.knn.method == UMAP_KNN_EXACT ? "exact" : "NN-Descent", config.n_neighbors);
    printf("  graph    %6.2f s  (%lld edges, a = %.3f, b = %.3f)\n", info.graph_s, (long long)info.n_edges, info.a,
           info.b);
    printf("  PCA init %6.2f s\n", info.pca_s);
    printf("  training %6.2f s  (%d epochs, %lld Adam steps, loss %.3f)\n", info.train_s, info.epochs_run,
           (long long)info.steps, info.final_loss);
    printf("  embed    %6.2f s\n", info.embed_s);
    printf("  refine   %6.2f s  (%d epochs of classic UMAP on the map)\n", info.refine_s,
           umap_model_config(model)->refine_epochs);
    printf("  distill  %6.2f s  (the encoder fitted to the refined map)\n", info.distill_s);
    printf("  total    %6.2f s\n", info.total_s);

    /* how well the map keeps neighbourhoods: 15 neighbours, 10-NN classifier */
    r = umap_quality_eval(NULL, images, N, SIDE * SIDE, umap_model_embedding(model), 2, labels, &quality);
    if (r != UMAP_OK) {
        fprintf(stderr, "umap_demo: quality failed: %s\n", umap_result_string(r));
        return 1;
    }
    printf("\nquality: trustworthiness %.3f, 15-NN recall %.3f, 10-NN accuracy %.3f\n", quality.trustworthiness,
           quality.knn_recall, quality.knn_accuracy);

    if (umap_svg_write("umap_demo.svg", umap_model_embedding(model), N, labels, names, 10,
                       "umap.h: 3,000 drawn digits, 256 pixels -> 2-D", err, sizeof err) != 0) {
        fprintf(stderr, "umap_demo: %s\n", err);
        return 1;
    }
    printf("wrote umap_demo.svg\n");
    umap_model_free(model);
    return 0;
}
