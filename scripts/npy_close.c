/* Whether two embeddings agree to within a tolerance: the largest
   difference of any coordinate, relative to the largest coordinate of the
   first. For the cross-platform matrix (scripts/cross.sh), which compares
   what one machine computed from a model another machine saved.

     npy_close A.npy B.npy REL_TOL      exit 0 when close, 1 when not, 2 on error */
#define UMAP_IO_IMPLEMENTATION
#include "cli/umap_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    umap_io_matrix a, b;
    char err[512];
    double tol, scale = 0, diff = 0;
    int64_t i;
    if (argc != 4 || (tol = atof(argv[3])) <= 0) {
        fprintf(stderr, "usage: npy_close A.npy B.npy REL_TOL\n");
        return 2;
    }
    if (umap_io_read_matrix(argv[1], 0, &a, err, sizeof err) || umap_io_read_matrix(argv[2], 0, &b, err, sizeof err)) {
        fprintf(stderr, "npy_close: %s\n", err);
        return 2;
    }
    if (a.rows != b.rows || a.cols != b.cols) {
        fprintf(stderr, "npy_close: %s is %lld x %lld, %s is %lld x %lld\n", argv[1], (long long)a.rows,
                (long long)a.cols, argv[2], (long long)b.rows, (long long)b.cols);
        return 1;
    }
    for (i = 0; i < a.rows * a.cols; i++) {
        double d = fabs((double)a.data[i] - b.data[i]);
        if (!(d <= diff)) diff = d; /* a NaN on either side counts as the largest */
        if (fabs(a.data[i]) > scale) scale = fabs(a.data[i]);
    }
    printf("npy_close: %s vs %s: largest difference %.3g of coordinates up to %.3g (relative %.3g, tolerance %g)\n",
           argv[1], argv[2], diff, scale, scale > 0 ? diff / scale : diff, tol);
    umap_io_matrix_free(&a);
    umap_io_matrix_free(&b);
    return diff <= tol * (scale > 0 ? scale : 1) ? 0 : 1;
}
