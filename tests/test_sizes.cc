/* Sizes and shapes are checked before use: a caller's n, d, k or shape whose
   products overflow is UMAP_ERR_TOO_LARGE (or a shape error recorded in the
   graph) before anything is allocated or read. The data pointers here are
   small buffers on purpose: the checks must come before the first read. */
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

/* counts every request and remembers the largest, so a test can say that
   nothing huge (or nothing at all) was asked for */
struct CountingAllocator {
    long allocs = 0;
    size_t largest = 0;
    static void *alloc(size_t size, void *ud) {
        CountingAllocator *c = (CountingAllocator *)ud;
        c->allocs++;
        if (size > c->largest) c->largest = size;
        return size > ((size_t)1 << 30) ? nullptr : std::malloc(size);
    }
    static void release(void *p, void *) { std::free(p); }
    umap_allocator hook() {
        umap_allocator a;
        a.alloc_fn = alloc;
        a.free_fn = release;
        a.user_data = this;
        return a;
    }
};

umap_config tiny_config(CountingAllocator *ca, umap_fit_info *info) {
    umap_config c = umap_config_default();
    c.n_neighbors = 5;
    c.n_epochs = 2;
    c.batch_size = 32;
    c.refine_epochs = 0;
    c.hidden[0] = c.hidden[1] = 8;
    c.n_threads = 1;
    c.allocator = ca->hook();
    c.info = info;
    return c;
}

const int64_t kHugeD[] = {(int64_t)1 << 61, ((int64_t)1 << 61) + 1, INT64_MAX / 20, (int64_t)1 << 40,
                          (int64_t)1 << 32};

} // namespace

/* d near 2^61: d * sizeof(double) wrapped to a tiny buffer for the column
   statistics, which the scan then wrote past */
TEST(Sizes, FitHugeColumnsIsTooLargeBeforeAllocating) {
    std::vector<float> x(64, 1.0f);
    for (int64_t d : kHugeD) {
        CountingAllocator ca;
        umap_fit_info info;
        umap_config c = tiny_config(&ca, &info);
        umap_model *m = nullptr;
        EXPECT_EQ(umap_fit(&c, x.data(), 20, d, &m), UMAP_ERR_TOO_LARGE) << d;
        EXPECT_EQ(m, nullptr);
        EXPECT_EQ(ca.allocs, 0) << d;
        EXPECT_NE(std::string(info.error_detail).find(std::to_string(d)), std::string::npos) << info.error_detail;
    }
}

TEST(Sizes, FitHugeRowsIsTooLarge) {
    std::vector<float> x(64, 1.0f);
    for (int64_t n : {(int64_t)1 << 31, (int64_t)1 << 40, INT64_MAX}) {
        CountingAllocator ca;
        umap_fit_info info;
        umap_config c = tiny_config(&ca, &info);
        umap_model *m = nullptr;
        EXPECT_EQ(umap_fit(&c, x.data(), n, 4, &m), UMAP_ERR_TOO_LARGE) << n;
        EXPECT_EQ(ca.allocs, 0);
        EXPECT_NE(std::string(info.error_detail).find(std::to_string(n)), std::string::npos) << info.error_detail;
    }
    /* rows * columns past the k-NN's 2^40 elements, neither alone too large */
    CountingAllocator ca;
    umap_fit_info info;
    umap_config c = tiny_config(&ca, &info);
    umap_model *m = nullptr;
    EXPECT_EQ(umap_fit(&c, x.data(), (int64_t)1 << 29, (int64_t)1 << 12, &m), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(ca.allocs, 0);
}

TEST(Sizes, FitProjectionIsChecked) {
    std::vector<float> x(64, 1.0f);
    CountingAllocator ca;
    umap_fit_info info;
    umap_config c = tiny_config(&ca, &info);
    c.input_dims = 1 << 30;
    umap_model *m = nullptr;
    /* 20 x 2^31-1 is within the 2^40 limit; the projection 2^31 x 2^30 is not a size */
    umap_result r = umap_fit(&c, x.data(), 20, 2147483647, &m);
    EXPECT_EQ(r, UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(ca.allocs, 0);
}

TEST(Sizes, FitKnnHugeColumnsIsTooLarge) {
    std::vector<float> x(64, 1.0f);
    std::vector<int32_t> idx(64, 0);
    std::vector<float> dist(64, 1.0f);
    for (int64_t d : kHugeD) {
        CountingAllocator ca;
        umap_fit_info info;
        umap_config c = tiny_config(&ca, &info);
        umap_model *m = nullptr;
        EXPECT_EQ(umap_fit_knn(&c, x.data(), 20, d, idx.data(), dist.data(), 2, &m), UMAP_ERR_TOO_LARGE) << d;
        EXPECT_EQ(ca.allocs, 0) << d;
    }
    CountingAllocator ca;
    umap_fit_info info;
    umap_config c = tiny_config(&ca, &info);
    umap_model *m = nullptr;
    EXPECT_EQ(umap_fit_knn(&c, x.data(), INT64_MAX / 2, 4, idx.data(), dist.data(), 2, &m), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(ca.allocs, 0);
}

/* n near 2^62: n * d wrapped to 0, so the finiteness scan passed and the
   encoder ran over 2^62 rows */
TEST(Sizes, TransformHugeRowsIsTooLarge) {
    const int64_t n = 60, d = 3;
    std::vector<float> x((size_t)(n * d));
    for (int64_t i = 0; i < n * d; i++) x[(size_t)i] = (float)ut::unit(5, (uint64_t)i) + (float)(i % 3);
    CountingAllocator ca;
    umap_fit_info info;
    umap_config c = tiny_config(&ca, &info);
    umap_model *m = nullptr;
    ASSERT_EQ(umap_fit(&c, x.data(), n, d, &m), UMAP_OK) << info.error_detail;
    std::vector<float> out(64);
    for (int64_t rows : {(int64_t)1 << 62, ((int64_t)1 << 62) + 1, INT64_MAX / 3 + 1, INT64_MAX}) {
        long before = ca.allocs;
        EXPECT_EQ(umap_transform(m, x.data(), rows, d, out.data(), 1), UMAP_ERR_TOO_LARGE) << rows;
        EXPECT_EQ(umap_transform(m, x.data(), rows, d, out.data(), 0), UMAP_ERR_TOO_LARGE) << rows;
        EXPECT_EQ(ca.allocs, before) << rows;
    }
    /* and a small call still works */
    EXPECT_EQ(umap_transform(m, x.data(), 2, d, out.data(), 1), UMAP_OK);
    umap_model_free(m);
}

/* n * (2k + 16) candidates passed 2^63 while n and n * dim looked fine:
   the scan of the data then read 8 GiB from a small buffer */
TEST(Sizes, KnnCandidateBufferIsChecked) {
    std::vector<float> x(64, 1.0f);
    std::vector<int32_t> idx(64);
    std::vector<float> dist(64);
    CountingAllocator ca;
    umap_knn_info info;
    umap_knn_desc kd;
    std::memset(&kd, 0, sizeof kd);
    kd.k = 2147483646;
    kd.n_threads = 1;
    kd.allocator = ca.hook();
    kd.info = &info;
    const int64_t n = 2147483647;
    EXPECT_EQ(umap_knn(&kd, x.data(), n, 1, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE);
    EXPECT_NE(std::string(info.error_detail).find("2147483647"), std::string::npos) << info.error_detail;
    EXPECT_LT(ca.largest, (size_t)1 << 20);
    EXPECT_EQ(umap_knn_query(&kd, x.data(), n, x.data(), n, 1, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE);
    EXPECT_LT(ca.largest, (size_t)1 << 20);
    for (int64_t dim : {(int64_t)1 << 61, ((int64_t)1 << 61) + 1, INT64_MAX / 20, (int64_t)1 << 40}) {
        kd.k = 3;
        EXPECT_EQ(umap_knn(&kd, x.data(), 20, dim, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE) << dim;
        EXPECT_LT(ca.largest, (size_t)1 << 20);
    }
}

TEST(Sizes, QualityHugeSizesAreTooLarge) {
    std::vector<float> x(64, 1.0f), y(64, 1.0f);
    umap_quality q;
    umap_quality_desc qd;
    std::memset(&qd, 0, sizeof qd);
    qd.n_threads = 1;
    qd.k = 3;
    qd.classifier_k = 3;
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), 20, (int64_t)1 << 61, y.data(), 2, nullptr, &q), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), (int64_t)1 << 62, 4, y.data(), 2, nullptr, &q), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), (int64_t)1 << 33, 4, y.data(), 2, nullptr, &q), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(umap_quality_eval(&qd, x.data(), ((int64_t)1 << 31) - 1, 1 << 20, y.data(), 2, nullptr, &q),
              UMAP_ERR_TOO_LARGE);
}

/* ---- the IR: shapes, slices, the error formatter ---------------------------- */

namespace {
struct Graph {
    umap_graph *g = nullptr;
    Graph() { EXPECT_EQ(umap_graph_create(nullptr, &g), UMAP_OK); }
    ~Graph() { umap_graph_free(g); }
    std::string detail() const { return umap_graph_error_detail(g); }
};
umap_shape shape_of(int rank, int64_t fill) {
    umap_shape s = umap_shape0();
    s.rank = rank;
    for (int i = 0; i < rank && i < UMAP_MAX_RANK; i++) s.dim[i] = fill;
    return s;
}
} // namespace

/* start + len passed INT64_MAX and wrapped below the axis length */
TEST(Sizes, SliceHugeBoundsIsAGraphError) {
    const int64_t bad[][2] = {{1, INT64_MAX}, {INT64_MAX, 2}, {INT64_MAX, INT64_MAX}, {2, INT64_MAX - 1},
                              {4, 1}, {3, 2}, {-1, 2}, {0, 0}};
    for (const auto &b : bad) {
        Graph G;
        umap_tensor *x = umap_input(G.g, "x", umap_shape2(4, 3));
        EXPECT_EQ(umap_slice(G.g, x, 0, b[0], b[1]), nullptr) << b[0] << " " << b[1];
        EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE);
        EXPECT_NE(G.detail().find("slice"), std::string::npos) << G.detail();
    }
    Graph G;
    umap_tensor *x = umap_input(G.g, "x", umap_shape2(4, 3));
    EXPECT_NE(umap_slice(G.g, x, 0, 3, 1), nullptr);
    EXPECT_NE(umap_slice(G.g, x, 1, 0, 3), nullptr);
    EXPECT_EQ(umap_graph_status(G.g), UMAP_OK);
}

TEST(Sizes, ShapeNumelOverflowIsMinusOne) {
    EXPECT_EQ(umap_shape_numel(umap_shape2(INT64_MAX, 2)), -1);
    EXPECT_EQ(umap_shape_numel(umap_shape4((int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16)), -1);
    EXPECT_EQ(umap_shape_numel(umap_shape2(-1, 3)), -1);
    EXPECT_EQ(umap_shape_numel(shape_of(5, 2)), -1);
    EXPECT_EQ(umap_shape_numel(shape_of(-1, 2)), -1);
    EXPECT_EQ(umap_shape_numel(umap_shape3((int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20)), (int64_t)1 << 60);
}

TEST(Sizes, ReshapeAndBroadcastWithOverflowingNumel) {
    /* each dim alone is within the 2^40 limit, the product is not; 2^40 *
       2^40 wrapped to 0 in int64 and passed */
    const umap_shape huge[] = {
        umap_shape4((int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16),
        umap_shape2((int64_t)1 << 40, (int64_t)1 << 40),
        umap_shape3((int64_t)1 << 30, (int64_t)1 << 30, 1 << 4),
        umap_shape2(INT64_MAX, 1),
    };
    for (const umap_shape &s : huge) {
        Graph G;
        umap_tensor *x = umap_input(G.g, "x", umap_shape1(1));
        EXPECT_EQ(umap_reshape(G.g, x, s), nullptr);
        EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE) << G.detail();
        Graph H;
        umap_tensor *y = umap_input(H.g, "y", umap_shape1(1));
        EXPECT_EQ(umap_broadcast(H.g, y, s), nullptr);
        EXPECT_EQ(umap_graph_status(H.g), UMAP_ERR_SHAPE) << H.detail();
        Graph I;
        EXPECT_EQ(umap_input(I.g, "z", s), nullptr);
        EXPECT_EQ(umap_graph_status(I.g), UMAP_ERR_SHAPE) << I.detail();
        Graph J;
        EXPECT_EQ(umap_full(J.g, s, 1.0f), nullptr);
        EXPECT_EQ(umap_graph_status(J.g), UMAP_ERR_SHAPE);
    }
    /* 2^62 * 4 wraps to 0 in int64: must not pass as some other numel */
    Graph G;
    umap_tensor *x = umap_input(G.g, "x", umap_shape1(4));
    EXPECT_EQ(umap_reshape(G.g, x, umap_shape3((int64_t)1 << 62, 4, 1)), nullptr);
    EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE);
}

/* the error message of a rank-5 (or negative-rank) shape read dim[4] and
   beyond while formatting it (far beyond for a large rank) */
TEST(Sizes, RankFiveShapesAreNamedNotRead) {
    for (int rank : {5, 6, 64, 1 << 20, -1, -1000}) {
        umap_shape s = shape_of(rank, 2);
        {
            Graph G;
            EXPECT_EQ(umap_input(G.g, "x", s), nullptr);
            EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE);
            EXPECT_NE(G.detail().find("[rank " + std::to_string(rank) + "]"), std::string::npos) << G.detail();
        }
        {
            Graph G;
            umap_tensor *x = umap_input(G.g, "x", umap_shape1(32));
            EXPECT_EQ(umap_reshape(G.g, x, s), nullptr);
            EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE);
            EXPECT_NE(G.detail().find("[rank " + std::to_string(rank) + "]"), std::string::npos) << G.detail();
        }
        {
            Graph G;
            umap_tensor *x = umap_input(G.g, "x", umap_shape1(2));
            EXPECT_EQ(umap_broadcast(G.g, x, s), nullptr);
            EXPECT_EQ(umap_graph_status(G.g), UMAP_ERR_SHAPE);
            EXPECT_NE(G.detail().find("[rank " + std::to_string(rank) + "]"), std::string::npos) << G.detail();
        }
    }
}
