/* umap_demo.c - parametric UMAP on 3,000 digit images it draws itself.

   Draws 300 images of each digit 0-9 from a 5x7 bitmap font into 16x16
   pixels (256 features), each with its own size, position, slant, stroke
   width and pixel noise; fits a parametric UMAP (an MLP encoder 256 -> 2);
   prints the time of each phase and how well the 2-D map keeps the images'
   neighbourhoods; and draws the map to umap_demo.svg, one colour per digit.
   Expect ten well-separated clusters, one per digit, and a 10-NN accuracy
   in the map near 1.

   Build:  gcc -O2 -I. examples/umap_demo.c -o build/umap_demo -lblas -lpthread -lm
   (or `make demo`, which also runs it). */
#define UMAP_IMPLEMENTATION
#include "umap.h"
#define UMAP_SVG_IMPLEMENTATION
#include "tools/umap_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N_PER_DIGIT 300
#define N (10 * N_PER_DIGIT)
#define SIDE 16 /* images are SIDE x SIDE pixels */

/* the digits of a 5x7 bitmap font, one string per row, '#' = ink */
static const char *const font[10][7] = {
    {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
    {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
    {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
    {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
    {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
    {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
    {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
    {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
    {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
    {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
};

/* a uniform float in [lo, hi) from a xorshift64 state */
static float uniform(uint64_t *s, float lo, float hi) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return lo + (hi - lo) * (float)(*s >> 40) / 16777216.0f;
}

/* distance from (u, v) to the segment (ax, ay)-(bx, by) */
static float segment_distance(float u, float v, float ax, float ay, float bx, float by) {
    float dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    float t = len2 > 0 ? ((u - ax) * dx + (v - ay) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypotf(u - ax - t * dx, v - ay - t * dy);
}

/* Draws one digit: the font's ink cells joined by strokes to their right,
   lower and (where no straight path exists) diagonal neighbours, seen
   through a random scale, shift and slant, with a random stroke radius and
   noise. */
static void draw_digit(int digit, uint64_t *rng, float *img) {
    const char *const *rows = font[digit];
    float scale = uniform(rng, 1.5f, 2.1f);   /* pixels per font cell */
    float slant = uniform(rng, -0.4f, 0.4f);  /* shear: top to the right when > 0 */
    float width = uniform(rng, 0.3f, 0.85f);  /* stroke radius, in font cells */
    float cx = SIDE / 2.0f + uniform(rng, -1.0f, 1.0f), cy = SIDE / 2.0f + uniform(rng, -0.75f, 0.75f);
    int x, y, r, c;
    for (y = 0; y < SIDE; y++)
        for (x = 0; x < SIDE; x++) {
            /* this pixel's centre in font coordinates (cell centres at integers) */
            float v = (y + 0.5f - cy) / scale + 3.0f;
            float u = (x + 0.5f - cx) / scale + 2.0f - slant * (3.0f - v);
            float d = 1e9f, ink;
            for (r = 0; r < 7; r++)
                for (c = 0; c < 5; c++) {
                    int right, down, left_down, right_down;
                    if (rows[r][c] != '#') continue;
                    right = c < 4 && rows[r][c + 1] == '#';
                    down = r < 6 && rows[r + 1][c] == '#';
                    left_down = r < 6 && c > 0 && rows[r + 1][c - 1] == '#' && !down && rows[r][c - 1] != '#';
                    right_down = r < 6 && c < 4 && rows[r + 1][c + 1] == '#' && !down && !right;
                    d = fminf(d, segment_distance(u, v, c, r, c, r));
                    if (right) d = fminf(d, segment_distance(u, v, c, r, c + 1, r));
                    if (down) d = fminf(d, segment_distance(u, v, c, r, c, r + 1));
                    if (left_down) d = fminf(d, segment_distance(u, v, c, r, c - 1, r + 1));
                    if (right_down) d = fminf(d, segment_distance(u, v, c, r, c + 1, r + 1));
                }
            ink = (width - d) * scale + 0.5f; /* a one-pixel soft edge */
            ink += uniform(rng, -0.1f, 0.1f);
            img[y * SIDE + x] = ink < 0 ? 0 : ink > 1 ? 1 : ink;
        }
}

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
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    umap_config config = umap_config_default();
    umap_fit_info info;
    umap_quality quality;
    umap_model *model = NULL;
    umap_result r;
    char err[256];
    int i;

    /* the data: digit i % 10, so the first ten images are 0, 1, ..., 9 */
    for (i = 0; i < N; i++) {
        labels[i] = i % 10;
        draw_digit(labels[i], &rng, images + (size_t)i * SIDE * SIDE);
    }
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
