/* umap_web.c - parametric UMAP in a web page: the demo's digits fitted in
   WebAssembly (examples/web/index.html draws the map on a canvas).

   The data are examples/umap_demo.c's: 3,000 images of the digits 0-9 that
   cli/umap_digits.h draws (row i shows the digit i % 10). The page calls
   umap_web_fit(n), reads the n x 2 map through umap_web_embedding() and the
   digits through umap_web_labels(), and may ask umap_web_quality() for the
   map's trustworthiness. Single-threaded, no BLAS: a page has neither.

   Build (what `scripts/cross_web.sh` does, which also tests the page in
   headless Chromium), from the repository root:

     mkdir -p build/web && cp examples/web/index.html build/web/
     emcc -O2 -std=c99 -DUMAP_NO_BLAS -DUMAP_NO_THREADS -I. examples/web/umap_web.c \
         -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web,worker \
         -sEXPORTED_RUNTIME_METHODS=UTF8ToString \
         --extern-pre-js examples/web/umap_web_pre.js --extern-post-js examples/web/umap_web_post.js \
         -o build/web/umap_web.js

   then open build/web/index.html (from file://; no server needed: the wasm
   is inside umap_web.js). Debian's emscripten with NodeSource's node needs
   NODE_PATH=/usr/share/nodejs for its optimiser's acorn. */
#define UMAP_IMPLEMENTATION
#include "umap.h"
#define UMAP_DIGITS_IMPLEMENTATION
#include "cli/umap_digits.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define UMAP_WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define UMAP_WEB_EXPORT
#endif

/* the last fit, kept for the page to read the map from */
static float *umap_web__images;
static int32_t *umap_web__labels;
static umap_model *umap_web__model;
static int umap_web__n;
static char umap_web__error[320];

UMAP_WEB_EXPORT int umap_web_fit(int n);
UMAP_WEB_EXPORT const float *umap_web_embedding(void);
UMAP_WEB_EXPORT const int32_t *umap_web_labels(void);
UMAP_WEB_EXPORT double umap_web_quality(void);
UMAP_WEB_EXPORT const char *umap_web_error(void);

static void umap_web__release(void) {
    umap_model_free(umap_web__model);
    free(umap_web__images);
    free(umap_web__labels);
    umap_web__model = NULL;
    umap_web__images = NULL;
    umap_web__labels = NULL;
    umap_web__n = 0;
}

/* Fits n drawn digit images with every default (as the demo does). 0 on
   success, else a umap_result; umap_web_error() says why. */
int umap_web_fit(int n) {
    umap_config config = umap_config_default();
    umap_fit_info info;
    umap_result r;
    umap_web__release();
    umap_web__error[0] = '\0';
    if (n < 10) {
        snprintf(umap_web__error, sizeof umap_web__error, "n = %d: at least 10 images (one per digit)", n);
        return UMAP_ERR_INVALID_ARGUMENT;
    }
    umap_web__images = (float *)malloc((size_t)n * UMAP_DIGITS_DIM * sizeof(float));
    umap_web__labels = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    if (!umap_web__images || !umap_web__labels) {
        umap_web__release();
        snprintf(umap_web__error, sizeof umap_web__error, "out of memory for %d images", n);
        return UMAP_ERR_OUT_OF_MEMORY;
    }
    umap_digits_draw(n, umap_web__images, umap_web__labels);
    config.info = &info;
    r = umap_fit(&config, umap_web__images, n, UMAP_DIGITS_DIM, &umap_web__model);
    if (r != UMAP_OK) {
        snprintf(umap_web__error, sizeof umap_web__error, "fit failed: %s: %s", umap_result_string(r),
                 info.error_detail);
        umap_web__release();
        return (int)r;
    }
    umap_web__n = n;
    return 0;
}

/* the last fit's map, n x 2 floats (NULL before a fit) */
const float *umap_web_embedding(void) { return umap_web__model ? umap_model_embedding(umap_web__model) : NULL; }

/* the last fit's digits, n ints */
const int32_t *umap_web_labels(void) { return umap_web__labels; }

/* the last map's trustworthiness (15 neighbours), -1 when there is none */
double umap_web_quality(void) {
    umap_quality q;
    if (!umap_web__model) return -1;
    if (umap_quality_eval(NULL, umap_web__images, umap_web__n, UMAP_DIGITS_DIM, umap_model_embedding(umap_web__model),
                          2, umap_web__labels, &q) != UMAP_OK)
        return -1;
    return q.trustworthiness;
}

const char *umap_web_error(void) { return umap_web__error; }

#ifndef __EMSCRIPTEN__
/* natively, a check of the exports: `cc -I. examples/web/umap_web.c -lm ...` */
int main(void) {
    if (umap_web_fit(1000) != 0) {
        printf("umap_web: %s\n", umap_web_error());
        return 1;
    }
    printf("umap_web: fitted 1000 images, trustworthiness %.3f\n", umap_web_quality());
    return 0;
}
#endif
