/* umap_digits.h - drawn digit images: data to try UMAP on without any files.

   Draws images of the digits 0-9 from a 5x7 bitmap font into 16x16 pixels
   (256 features in [0, 1]), each with its own size, position, slant, stroke
   width and pixel noise. Row i shows the digit i % 10, so labels come with
   the data and any first N rows hold every digit about equally. The images
   depend only on their count: the same N gives the same bits everywhere.
   Used by examples/umap_demo.c and by `umap fit --synthetic N`.

   In exactly one file:  #define UMAP_DIGITS_IMPLEMENTATION
                         #include "cli/umap_digits.h"  */
#ifndef UMAP_DIGITS_H
#define UMAP_DIGITS_H

#include <stdint.h>

#define UMAP_DIGITS_SIDE 16 /* images are SIDE x SIDE pixels */
#define UMAP_DIGITS_DIM (UMAP_DIGITS_SIDE * UMAP_DIGITS_SIDE)

#ifdef __cplusplus
extern "C" {
#endif

/* n images, row-major n x UMAP_DIGITS_DIM floats, into images; their digits
   (i % 10) into labels when it is not NULL */
void umap_digits_draw(int64_t n, float *images, int32_t *labels);

#ifdef __cplusplus
}
#endif
#endif /* UMAP_DIGITS_H */

#ifdef UMAP_DIGITS_IMPLEMENTATION
#ifndef UMAP_DIGITS_IMPLEMENTATION_DONE
#define UMAP_DIGITS_IMPLEMENTATION_DONE

#include <math.h>

/* the digits of a 5x7 bitmap font, one string per row, '#' = ink */
static const char *const umap_digits__font[10][7] = {
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
static float umap_digits__uniform(uint64_t *s, float lo, float hi) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return lo + (hi - lo) * (float)(*s >> 40) / 16777216.0f;
}

/* distance from (u, v) to the segment (ax, ay)-(bx, by) */
static float umap_digits__segment_distance(float u, float v, float ax, float ay, float bx, float by) {
    float dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    float t = len2 > 0 ? ((u - ax) * dx + (v - ay) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypotf(u - ax - t * dx, v - ay - t * dy);
}

/* Draws one digit: the font's ink cells joined by strokes to their right,
   lower and (where no straight path exists) diagonal neighbours, seen
   through a random scale, shift and slant, with a random stroke radius and
   noise. */
static void umap_digits__draw_one(int digit, uint64_t *rng, float *img) {
    const int side = UMAP_DIGITS_SIDE;
    const char *const *rows = umap_digits__font[digit];
    float scale = umap_digits__uniform(rng, 1.5f, 2.1f);  /* pixels per font cell */
    float slant = umap_digits__uniform(rng, -0.4f, 0.4f); /* shear: top to the right when > 0 */
    float width = umap_digits__uniform(rng, 0.3f, 0.85f); /* stroke radius, in font cells */
    float cx = side / 2.0f + umap_digits__uniform(rng, -1.0f, 1.0f);
    float cy = side / 2.0f + umap_digits__uniform(rng, -0.75f, 0.75f);
    int x, y, r, c;
    for (y = 0; y < side; y++)
        for (x = 0; x < side; x++) {
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
                    d = fminf(d, umap_digits__segment_distance(u, v, c, r, c, r));
                    if (right) d = fminf(d, umap_digits__segment_distance(u, v, c, r, c + 1, r));
                    if (down) d = fminf(d, umap_digits__segment_distance(u, v, c, r, c, r + 1));
                    if (left_down) d = fminf(d, umap_digits__segment_distance(u, v, c, r, c - 1, r + 1));
                    if (right_down) d = fminf(d, umap_digits__segment_distance(u, v, c, r, c + 1, r + 1));
                }
            ink = (width - d) * scale + 0.5f; /* a one-pixel soft edge */
            ink += umap_digits__uniform(rng, -0.1f, 0.1f);
            img[y * side + x] = ink < 0 ? 0 : ink > 1 ? 1 : ink;
        }
}

void umap_digits_draw(int64_t n, float *images, int32_t *labels) {
    uint64_t rng = 0x9E3779B97F4A7C15ull; /* one stream over all rows: the images depend on n only */
    int64_t i;
    for (i = 0; i < n; i++) {
        if (labels) labels[i] = (int32_t)(i % 10);
        umap_digits__draw_one((int)(i % 10), &rng, images + (size_t)i * UMAP_DIGITS_DIM);
    }
}

#endif /* UMAP_DIGITS_IMPLEMENTATION_DONE */
#endif /* UMAP_DIGITS_IMPLEMENTATION */
