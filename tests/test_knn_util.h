/* Helpers for the k-NN suites: data generators (uniform, clustered, with
   duplicates and zero rows), a naive double-precision reference, checks of
   a k-NN result against it, recall, and a counting allocator that fails on
   demand. */
#ifndef UMAP_TEST_KNN_UTIL_H
#define UMAP_TEST_KNN_UTIL_H

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "test_util.h"
#include "cli/umap_io.h" /* the IDX reader (its implementation is in test_cli_io.cc) */

/* the sanitizer builds repeat every suite: they get smaller problems */
#if defined(__SANITIZE_ADDRESS__)
#define KT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KT_SANITIZED 1
#endif
#endif
#ifndef KT_SANITIZED
#define KT_SANITIZED 0
#endif

namespace kt {

/* The custom metric the tests run (UMAP_METRIC_CUSTOM): a weighted
   manhattan, unlike every built-in, scaled by *user_data, so that a lost
   user_data shows. kt::desc sets it with the custom metric. */
extern "C" inline double custom_metric(const float *a, const float *b, int64_t dim, void *user_data) {
    double s = 0.0;
    for (int64_t j = 0; j < dim; j++) s += (double)(1 + j % 3) * std::fabs((double)a[j] - (double)b[j]);
    return s * *(const double *)user_data;
}
inline double *custom_scale() {
    static double scale = 0.5;
    return &scale;
}

inline umap_knn_desc desc(int k, umap_metric m = UMAP_METRIC_EUCLIDEAN, umap_knn_method method = UMAP_KNN_EXACT) {
    umap_knn_desc d;
    std::memset(&d, 0, sizeof d);
    d.k = k;
    d.metric = m;
    d.method = method;
    if (m == UMAP_METRIC_CUSTOM) {
        d.metric_fn = custom_metric;
        d.metric_user_data = custom_scale();
    }
    return d;
}

/* N(0, 1), a pure function of (seed, i) */
inline double normal(uint64_t seed, uint64_t i) {
    double u1 = 1.0 - ut::unit(seed, 2 * i), u2 = ut::unit(seed, 2 * i + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/* n rows in dim columns: a mixture of `clusters` clusters, each spread over
   a random `intrinsic`-dimensional subspace (scale varies per cluster) plus
   a little isotropic noise: low intrinsic dimension, like real data */
inline std::vector<float> clustered(int64_t n, int64_t dim, int clusters, int intrinsic, uint64_t seed) {
    std::vector<double> centers((size_t)(clusters * dim)), basis((size_t)(clusters * intrinsic * dim));
    std::vector<double> scale((size_t)clusters);
    uint64_t c = 0;
    for (auto &v : centers) v = 4.0 * normal(seed, c++);
    for (auto &v : basis) v = normal(seed + 1, c++) / std::sqrt((double)intrinsic);
    for (int q = 0; q < clusters; q++) scale[(size_t)q] = 0.5 + 1.5 * ut::unit(seed + 2, (uint64_t)q);
    std::vector<float> x((size_t)(n * dim));
    std::vector<double> z((size_t)intrinsic);
    for (int64_t i = 0; i < n; i++) {
        int q = (int)(ut::unit(seed + 3, (uint64_t)i) * clusters);
        if (q >= clusters) q = clusters - 1;
        for (int t = 0; t < intrinsic; t++) z[(size_t)t] = scale[(size_t)q] * normal(seed + 4, (uint64_t)(i * intrinsic + t));
        for (int64_t j = 0; j < dim; j++) {
            double v = centers[(size_t)(q * dim + j)] + 0.05 * normal(seed + 5, (uint64_t)(i * dim + j));
            for (int t = 0; t < intrinsic; t++) v += basis[(size_t)((q * intrinsic + t) * dim + j)] * z[(size_t)t];
            x[(size_t)(i * dim + j)] = (float)v;
        }
    }
    return x;
}

/* the metrics that read rows as sets or for equality (0/1 test data) */
inline bool binary_metric(umap_metric m) {
    return m == UMAP_METRIC_HAMMING || m == UMAP_METRIC_JACCARD || m == UMAP_METRIC_DICE || m == UMAP_METRIC_RUSSELLRAO;
}
/* hellinger reads rows as shares: its test data is the absolute values;
   haversine reads 2 columns as latitude and longitude: its test data is
   pairs of values squeezed into [-pi/2, pi/2] and [-pi, pi] */
inline std::vector<float> for_metric(umap_metric m, std::vector<float> x) {
    if (m == UMAP_METRIC_HELLINGER)
        for (float &v : x) v = std::fabs(v);
    if (m == UMAP_METRIC_HAVERSINE)
        for (size_t i = 0; i < x.size(); i++) x[i] = (float)((i % 2 ? 1.9 : 0.95) * std::atan((double)x[i]));
    return x;
}

/* copy row `from` onto row `to` */
inline void copy_row(std::vector<float> &x, int64_t dim, int64_t from, int64_t to) {
    for (int64_t j = 0; j < dim; j++) x[(size_t)(to * dim + j)] = x[(size_t)(from * dim + j)];
}
inline void zero_row(std::vector<float> &x, int64_t dim, int64_t row) {
    for (int64_t j = 0; j < dim; j++) x[(size_t)(row * dim + j)] = 0.0f;
}

/* the public distance conventions, in double, written from their
   definitions (scipy's, umap-learn's for jaccard, dice, russellrao and
   hellinger) on the raw rows; p:
   minkowski's */
inline double dist(umap_metric m, const float *a, const float *b, int64_t dim, double p = 2.0) {
    switch (m) {
    case UMAP_METRIC_COSINE:
    case UMAP_METRIC_CORRELATION: {
        double ma = 0, mb = 0, ab = 0, aa = 0, bb = 0;
        if (m == UMAP_METRIC_CORRELATION) {
            for (int64_t j = 0; j < dim; j++) { ma += a[j]; mb += b[j]; }
            ma /= (double)dim;
            mb /= (double)dim;
        }
        for (int64_t j = 0; j < dim; j++) {
            ab += ((double)a[j] - ma) * ((double)b[j] - mb);
            aa += ((double)a[j] - ma) * ((double)a[j] - ma);
            bb += ((double)b[j] - mb) * ((double)b[j] - mb);
        }
        if (aa == 0.0 || bb == 0.0) return 1.0; /* a zero (constant) row: similarity 0 */
        return 1.0 - ab / (std::sqrt(aa) * std::sqrt(bb));
    }
    case UMAP_METRIC_MANHATTAN: {
        double s = 0;
        for (int64_t j = 0; j < dim; j++) s += std::fabs((double)a[j] - b[j]);
        return s;
    }
    case UMAP_METRIC_CHEBYSHEV: {
        double s = 0;
        for (int64_t j = 0; j < dim; j++) s = std::max(s, std::fabs((double)a[j] - b[j]));
        return s;
    }
    case UMAP_METRIC_MINKOWSKI: {
        double s = 0;
        for (int64_t j = 0; j < dim; j++) s += std::pow(std::fabs((double)a[j] - b[j]), p);
        return std::pow(s, 1.0 / p);
    }
    case UMAP_METRIC_HAMMING: {
        int64_t c = 0;
        for (int64_t j = 0; j < dim; j++) c += a[j] != b[j];
        return (double)c / (double)dim;
    }
    case UMAP_METRIC_HELLINGER: { /* umap-learn's, but a zero row at sqrt(1/2) from a nonzero one */
        double sx = 0, sy = 0, bc = 0;
        for (int64_t j = 0; j < dim; j++) {
            sx += a[j];
            sy += b[j];
            bc += std::sqrt((double)a[j] * (double)b[j]);
        }
        if (sx == 0.0 && sy == 0.0) return 0.0;
        if (sx == 0.0 || sy == 0.0) return std::sqrt(0.5);
        double v = 1.0 - bc / std::sqrt(sx * sy);
        return std::sqrt(v > 0.0 ? v : 0.0);
    }
    case UMAP_METRIC_CANBERRA: {
        double s = 0;
        for (int64_t j = 0; j < dim; j++) {
            double den = std::fabs((double)a[j]) + std::fabs((double)b[j]);
            if (den > 0.0) s += std::fabs((double)a[j] - b[j]) / den;
        }
        return s;
    }
    case UMAP_METRIC_BRAYCURTIS: {
        double num = 0, den = 0;
        for (int64_t j = 0; j < dim; j++) {
            num += std::fabs((double)a[j] - b[j]);
            den += std::fabs((double)a[j] + b[j]);
        }
        return den > 0.0 ? num / den : 0.0;
    }
    case UMAP_METRIC_DICE:
    case UMAP_METRIC_RUSSELLRAO: {
        int64_t tt = 0, neq = 0, nx = 0, ny = 0;
        for (int64_t j = 0; j < dim; j++) {
            bool x = a[j] != 0.0f, y = b[j] != 0.0f;
            tt += x && y;
            neq += x != y;
            nx += x;
            ny += y;
        }
        if (m == UMAP_METRIC_DICE) return neq == 0 ? 0.0 : (double)neq / (double)(2 * tt + neq);
        return (tt == nx && tt == ny) ? 0.0 : (double)(dim - tt) / (double)dim;
    }
    case UMAP_METRIC_HAVERSINE: { /* the angle between the points' unit vectors: atan2(|u x v|, u.v) */
        double u[3] = {std::cos((double)a[0]) * std::cos((double)a[1]), std::cos((double)a[0]) * std::sin((double)a[1]),
                       std::sin((double)a[0])};
        double v[3] = {std::cos((double)b[0]) * std::cos((double)b[1]), std::cos((double)b[0]) * std::sin((double)b[1]),
                       std::sin((double)b[0])};
        double c0 = u[1] * v[2] - u[2] * v[1], c1 = u[2] * v[0] - u[0] * v[2], c2 = u[0] * v[1] - u[1] * v[0];
        return std::atan2(std::sqrt(c0 * c0 + c1 * c1 + c2 * c2), u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
    }
    case UMAP_METRIC_JACCARD: {
        int64_t any = 0, both = 0;
        for (int64_t j = 0; j < dim; j++) {
            any += a[j] != 0.0f || b[j] != 0.0f;
            both += a[j] != 0.0f && b[j] != 0.0f;
        }
        return any ? (double)(any - both) / (double)any : 0.0;
    }
    case UMAP_METRIC_CUSTOM: return custom_metric(a, b, dim, custom_scale());
    default: {
        double s = 0;
        for (int64_t j = 0; j < dim; j++) {
            double d = (double)a[j] - b[j];
            s += d * d;
        }
        return std::sqrt(s);
    }
    }
}

/* The naive reference: every distance in double, sorted by (distance,
   index). self: queries == base and row i skips itself. */
struct Ref {
    int64_t nq = 0, k = 0;
    std::vector<int32_t> idx;
    std::vector<double> d;
};
inline Ref reference(umap_metric m, const float *base, int64_t nb, const float *q, int64_t nq, int64_t dim, int64_t k,
                     bool self, double p = 2.0) {
    Ref r;
    r.nq = nq;
    r.k = k;
    r.idx.resize((size_t)(nq * k));
    r.d.resize((size_t)(nq * k));
    std::vector<std::pair<double, int32_t>> row;
    row.reserve((size_t)nb);
    for (int64_t i = 0; i < nq; i++) {
        row.clear();
        for (int64_t j = 0; j < nb; j++)
            if (!(self && i == j)) row.push_back({dist(m, q + i * dim, base + j * dim, dim, p), (int32_t)j});
        std::partial_sort(row.begin(), row.begin() + k, row.end());
        for (int64_t t = 0; t < k; t++) {
            r.idx[(size_t)(i * k + t)] = row[(size_t)t].second;
            r.d[(size_t)(i * k + t)] = row[(size_t)t].first;
        }
    }
    return r;
}
inline Ref reference_self(umap_metric m, const std::vector<float> &x, int64_t n, int64_t dim, int64_t k,
                          double p = 2.0) {
    return reference(m, x.data(), n, x.data(), n, dim, k, true, p);
}

struct Tol {
    double rtol = 1e-5, atol = 1e-6; /* reported distance vs the reference distance of the same rank */
    double tie = 1e-6;               /* relative: a different index is accepted only this close to a tie */
};

/* Checks a k-NN result (either array may be empty = not produced) against
   the reference: indices in range, distinct, never self; distances
   ascending, equal distances in index order; distance of rank t equal to
   the reference's; and an index different from the reference's only where
   its true distance is within the tie tolerance of the reference's, and
   never where the two are exact ties (those go by the smaller index). */
inline ::testing::AssertionResult check_knn(const std::vector<int32_t> &idx, const std::vector<float> &d, const Ref &ref,
                                            umap_metric m, const float *base, int64_t nb, const float *q, int64_t dim,
                                            bool self, Tol tol = Tol(), double p = 2.0) {
    const int64_t n = ref.nq, k = ref.k;
    if (!idx.empty() && (int64_t)idx.size() != n * k) return ::testing::AssertionFailure() << "indices size " << idx.size();
    if (!d.empty() && (int64_t)d.size() != n * k) return ::testing::AssertionFailure() << "distances size " << d.size();
    std::vector<int32_t> seen;
    for (int64_t i = 0; i < n; i++) {
        if (!idx.empty()) {
            seen.assign(idx.begin() + i * k, idx.begin() + (i + 1) * k);
            std::sort(seen.begin(), seen.end());
            if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
                return ::testing::AssertionFailure() << "row " << i << " lists an index twice";
        }
        for (int64_t t = 0; t < k; t++) {
            size_t at = (size_t)(i * k + t);
            double rd = ref.d[at];
            if (!d.empty()) {
                double gd = d[at];
                if (!(std::fabs(gd - rd) <= tol.atol + tol.rtol * std::fabs(rd)))
                    return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": distance " << gd
                                                         << ", reference " << rd << " (index " << ref.idx[at] << ")";
                if (t > 0 && !(d[at - 1] <= d[at]))
                    return ::testing::AssertionFailure()
                           << "row " << i << " rank " << t << ": distances not ascending " << d[at - 1] << " > " << d[at];
                if (t > 0 && !idx.empty() && d[at - 1] == d[at] && !(idx[at - 1] < idx[at]))
                    return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": equal distances "
                                                         << d[at] << " but indices " << idx[at - 1] << ", " << idx[at];
            }
            if (idx.empty()) continue;
            int32_t g = idx[at];
            if (g < 0 || g >= nb) return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": index " << g;
            if (self && g == i) return ::testing::AssertionFailure() << "row " << i << " lists itself";
            if (g == ref.idx[at]) continue;
            double gt = dist(m, q + i * dim, base + (int64_t)g * dim, dim, p);
            if (gt == rd)
                return ::testing::AssertionFailure()
                       << "row " << i << " rank " << t << ": index " << g << " but the reference has " << ref.idx[at]
                       << " at the same distance " << rd << " (ties go to the smaller index)";
            if (!(std::fabs(gt - rd) <= tol.tie * (1.0 + std::fabs(rd))))
                return ::testing::AssertionFailure()
                       << "row " << i << " rank " << t << ": index " << g << " (true distance " << gt
                       << "), reference index " << ref.idx[at] << " (distance " << rd << ")";
        }
    }
    return ::testing::AssertionSuccess();
}

/* fraction of listed neighbours whose true distance is within the exact
   k-th distance (robust to ties) */
inline double recall(const std::vector<int32_t> &idx, const std::vector<float> &exact_d, int64_t n, int64_t k,
                     umap_metric m, const std::vector<float> &x, int64_t dim, double p = 2.0) {
    int64_t hit = 0;
    for (int64_t i = 0; i < n; i++) {
        double kth = exact_d[(size_t)(i * k + k - 1)];
        for (int64_t t = 0; t < k; t++) {
            int32_t g = idx[(size_t)(i * k + t)];
            if (g < 0 || g >= n || g == i) continue;
            if (dist(m, &x[(size_t)(i * dim)], &x[(size_t)(g * dim)], dim, p) <= kth * (1 + 1e-6) + 1e-7) hit++;
        }
    }
    return (double)hit / (double)(n * k);
}

/* structural validity of an approximate result: in range, no self, no
   repeats, ascending, distances the true ones */
inline ::testing::AssertionResult valid_knn(const std::vector<int32_t> &idx, const std::vector<float> &d, int64_t n,
                                            int64_t k, umap_metric m, const std::vector<float> &x, int64_t dim,
                                            double rtol = 1e-5, double atol = 1e-6, double p = 2.0) {
    std::vector<int32_t> seen;
    for (int64_t i = 0; i < n; i++) {
        seen.assign(idx.begin() + i * k, idx.begin() + (i + 1) * k);
        std::sort(seen.begin(), seen.end());
        if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
            return ::testing::AssertionFailure() << "row " << i << " lists an index twice";
        for (int64_t t = 0; t < k; t++) {
            size_t at = (size_t)(i * k + t);
            int32_t g = idx[at];
            if (g < 0 || g >= n) return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": index " << g;
            if (g == i) return ::testing::AssertionFailure() << "row " << i << " lists itself";
            double gt = dist(m, &x[(size_t)(i * dim)], &x[(size_t)(g * dim)], dim, p);
            if (!(std::fabs(d[at] - gt) <= atol + rtol * std::fabs(gt)))
                return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": index " << g << " distance "
                                                     << d[at] << ", true " << gt;
            if (t > 0 && !(d[at - 1] <= d[at]))
                return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": not ascending";
            if (t > 0 && d[at - 1] == d[at] && !(idx[at - 1] < idx[at]))
                return ::testing::AssertionFailure() << "row " << i << " rank " << t << ": equal distances, indices "
                                                     << idx[at - 1] << ", " << idx[at];
        }
    }
    return ::testing::AssertionSuccess();
}

template <class T> ::testing::AssertionResult bits_equal(const std::vector<T> &a, const std::vector<T> &b) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "size " << a.size() << " vs " << b.size();
    for (size_t i = 0; i < a.size(); i++)
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
            return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs " << b[i];
    return ::testing::AssertionSuccess();
}

/* counts every allocation; fails every one from number fail_after on
   (< 0: never); thread-safe */
struct FailingAlloc {
    std::atomic<long> attempts{0}, live{0}, peak_live{0};
    long fail_after = -1;
    static void *alloc(size_t size, void *ud) {
        FailingAlloc *f = (FailingAlloc *)ud;
        long n = f->attempts.fetch_add(1);
        if (f->fail_after >= 0 && n >= f->fail_after) return nullptr;
        void *p = std::malloc(size);
        if (p) f->live.fetch_add(1);
        return p;
    }
    static void release(void *p, void *ud) {
        FailingAlloc *f = (FailingAlloc *)ud;
        if (!p) return;
        f->live.fetch_sub(1);
        std::free(p);
    }
    umap_allocator hook() {
        umap_allocator a;
        a.alloc_fn = alloc;
        a.free_fn = release;
        a.user_data = this;
        return a;
    }
};

/* the first n images of an IDX3 file (gzipped or not, read by
   cli/umap_io.h), as floats in [0, 1]; empty if the file is missing or short */
inline std::vector<float> read_idx_images(const char *path, int64_t n, int64_t *dim_out) {
    std::vector<float> x;
    umap_io_matrix m;
    *dim_out = 0;
    if (umap_io_read_matrix(path, 0, &m, nullptr, 0) != UMAP_IO_OK) return x;
    if (m.rows >= n) {
        x.resize((size_t)(n * m.cols));
        for (size_t i = 0; i < x.size(); i++) x[i] = m.data[i] * (1.0f / 255.0f);
        *dim_out = m.cols;
    }
    umap_io_matrix_free(&m);
    return x;
}

/* the first n labels of an IDX1 file; empty if the file is missing or short */
inline std::vector<int32_t> read_idx_labels(const char *path, int64_t n) {
    std::vector<int32_t> l;
    umap_io_labels got;
    if (umap_io_read_labels(path, &got, nullptr, 0) != UMAP_IO_OK) return l;
    if (got.n >= n) l.assign(got.data, got.data + n);
    umap_io_labels_free(&got);
    return l;
}

/* The first n Fashion-MNIST test images (t10k, pixels / 255) and their
   labels; false (both empty) when the Debian package
   dataset-fashion-mnist is not installed, for the caller to skip. */
inline bool fashion_mnist_t10k(int64_t n, std::vector<float> *x, int64_t *d, std::vector<int32_t> *labels) {
    *x = read_idx_images("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz", n, d);
    *labels = read_idx_labels("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz", n);
    if (x->empty() || labels->empty()) {
        x->clear();
        labels->clear();
        return false;
    }
    return true;
}

} // namespace kt

#endif
