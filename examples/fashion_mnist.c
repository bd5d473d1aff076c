/* fashion_mnist.c - parametric UMAP on Fashion-MNIST (70,000 images, 784 pixels).

   Reads the gzip IDX files of Debian's dataset-fashion-mnist (or of the
   directory given as the first argument) with cli/umap_io.h, fits a
   parametric UMAP on the 60,000 training then 10,000 test images (or the
   first --n of them), prints the time of each phase and the quality of the
   map, and writes PREFIX.svg (coloured by class, with a legend) and
   PREFIX.csv (x,y,label per image).

   Build:  gcc -O2 -I. examples/fashion_mnist.c -o build/fashion_mnist -lblas -lpthread -lm
   Data:   sudo apt-get install dataset-fashion-mnist
   Run:    ./build/fashion_mnist [DIR] [--n N] [--threads T] [--seed S] [--out PREFIX] */
#define UMAP_IMPLEMENTATION
#include "umap.h"
#define UMAP_IO_IMPLEMENTATION
#include "cli/umap_io.h"
#define UMAP_SVG_IMPLEMENTATION
#include "cli/umap_svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DIR "/usr/share/datasets/fashion-mnist"
#define PIXELS 784 /* 28 x 28 */

static const char *const class_names[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                            "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

/* one IDX file of the data set, read by cli/umap_io.h: 0, or -1 after
   printing why (with the package to install when the file is missing) */
static int read_part(const char *path, umap_io_matrix *images, umap_io_labels *classes) {
    char err[1400];
    umap_io_result r = images ? umap_io_read_matrix(path, 0, images, err, sizeof err)
                              : umap_io_read_labels(path, classes, err, sizeof err);
    if (r == UMAP_IO_OK) return 0;
    fprintf(stderr, "fashion_mnist: %s%s\n", err,
            r == UMAP_IO_ERR_OPEN ? " (sudo apt-get install dataset-fashion-mnist)" : "");
    return -1;
}

/* Loads the training then the test set, at most n images: pixels / 255
   into x (n x 784), classes into labels. Returns the number loaded, or -1. */
static long load_fashion_mnist(const char *dir, long n, float *x, int32_t *labels) {
    static const char *const parts[2] = {"train", "t10k"};
    char path[1024];
    long got = 0, take, i;
    int p;
    for (p = 0; p < 2 && got < n; p++) {
        umap_io_matrix images;
        umap_io_labels classes;
        snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte.gz", dir, parts[p]);
        if (read_part(path, &images, NULL)) return -1;
        if (images.cols != PIXELS) {
            fprintf(stderr, "fashion_mnist: %s is not an IDX file of 28x28 images\n", path);
            umap_io_matrix_free(&images);
            return -1;
        }
        snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte.gz", dir, parts[p]);
        if (read_part(path, NULL, &classes)) {
            umap_io_matrix_free(&images);
            return -1;
        }
        if (classes.n != images.rows) {
            fprintf(stderr, "fashion_mnist: %s: %lld labels for %lld images\n", path, (long long)classes.n,
                    (long long)images.rows);
            umap_io_matrix_free(&images);
            umap_io_labels_free(&classes);
            return -1;
        }
        take = images.rows < n - got ? (long)images.rows : n - got;
        for (i = 0; i < take * PIXELS; i++) x[got * PIXELS + i] = images.data[i] / 255.0f;
        memcpy(labels + got, classes.data, (size_t)take * sizeof *labels);
        got += take;
        umap_io_matrix_free(&images);
        umap_io_labels_free(&classes);
    }
    return got;
}

/* Called by fit at the start of each phase and after each training epoch. */
static int show_progress(const umap_progress *p, void *user_data) {
    (void)user_data;
    if (!strcmp(p->phase, "train"))
        printf("  %6.1f s  train: epoch %d of %d, loss %.4f\n", p->elapsed_s, p->epoch, p->n_epochs, p->loss);
    else
        printf("  %6.1f s  %s\n", p->elapsed_s, p->phase);
    fflush(stdout);
    return 0; /* non-zero would cancel the fit */
}

/* through a umap_output: an existing file is replaced only by a complete one */
static int write_csv(const char *path, const float *xy, const int32_t *labels, long n) {
    umap_output o;
    long i;
    if (umap_output_open(&o, path) != UMAP_OK) {
        fprintf(stderr, "%s\n", o.error);
        return -1;
    }
    fputs("x,y,label\n", o.file);
    for (i = 0; i < n; i++) fprintf(o.file, "%.5g,%.5g,%d\n", xy[2 * i], xy[2 * i + 1], (int)labels[i]);
    if (umap_output_commit(&o) != UMAP_OK) {
        fprintf(stderr, "%s\n", o.error);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *dir = DEFAULT_DIR, *prefix = "fashion_mnist";
    long n = 70000;
    umap_config config = umap_config_default();
    umap_quality_desc quality_desc = {0};
    umap_fit_info info;
    umap_quality quality;
    umap_model *model = NULL;
    umap_result r;
    const float *xy;
    float *x;
    int32_t *labels;
    char path[1024], title[128], err[256];
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) config.n_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) config.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) prefix = argv[++i];
        else if (argv[i][0] != '-') dir = argv[i];
        else {
            fprintf(stderr, "usage: %s [DIR] [--n N] [--threads T] [--seed S] [--out PREFIX]\n", argv[0]);
            return 2;
        }
    }
    if (n < 16 || n > 70000) {
        fprintf(stderr, "fashion_mnist: --n must be in 16..70000\n");
        return 2;
    }

    x = (float *)malloc((size_t)n * PIXELS * sizeof *x);
    labels = (int32_t *)malloc((size_t)n * sizeof *labels);
    if (!x || !labels || (n = load_fashion_mnist(dir, n, x, labels)) < 0) return 1;
    printf("fashion_mnist: %ld images of %d pixels from %s\n", n, PIXELS, dir);

    config.progress = show_progress;
    config.info = &info;
    r = umap_fit(&config, x, n, PIXELS, &model);
    if (r != UMAP_OK) {
        fprintf(stderr, "fashion_mnist: fit failed: %s: %s\n", umap_result_string(r), info.error_detail);
        return 1;
    }
    printf("phases: k-NN %.2f s (%s), graph %.2f s (%lld edges), PCA init %.2f s,\n"
           "        training %.2f s (%d epochs, %lld steps, loss %.4f), embed %.2f s, refine %.2f s,\n"
           "        distill %.2f s; total %.2f s\n",
           info.knn_s, info.knn.method == UMAP_KNN_EXACT ? "exact" : "NN-Descent", info.graph_s,
           (long long)info.n_edges, info.pca_s, info.train_s, info.epochs_run, (long long)info.steps,
           info.final_loss, info.embed_s, info.refine_s, info.distill_s, info.total_s);

    xy = umap_model_embedding(model);
    quality_desc.n_queries = 10000; /* an evenly spaced subset: enough for 3 digits */
    quality_desc.n_threads = config.n_threads;
    r = umap_quality_eval(&quality_desc, x, n, PIXELS, xy, 2, labels, &quality);
    if (r != UMAP_OK) {
        fprintf(stderr, "fashion_mnist: quality failed: %s\n", umap_result_string(r));
        return 1;
    }
    printf("quality (%ld queries): trustworthiness %.3f, 15-NN recall %.3f, 10-NN accuracy %.3f\n",
           n < 10000 ? n : 10000L, quality.trustworthiness, quality.knn_recall, quality.knn_accuracy);

    snprintf(title, sizeof title, "Fashion-MNIST, %ld images: parametric UMAP (umap.h)", n);
    snprintf(path, sizeof path, "%s.svg", prefix);
    if (umap_svg_write(path, xy, n, labels, class_names, 10, title, err, sizeof err) != 0) {
        fprintf(stderr, "fashion_mnist: %s\n", err);
        return 1;
    }
    printf("wrote %s\n", path);
    snprintf(path, sizeof path, "%s.csv", prefix);
    if (write_csv(path, xy, labels, n) != 0) {
        fprintf(stderr, "fashion_mnist: cannot write %s\n", path);
        return 1;
    }
    printf("wrote %s\n", path);
    umap_model_free(model);
    free(x);
    free(labels);
    return 0;
}
