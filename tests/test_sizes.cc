/* Sizes and shapes are checked before use: a caller's n, d, k or shape whose
   products overflow is UMAP_ERR_TOO_LARGE (or a shape error recorded in the
   graph) before anything is allocated or read. The data pointers here are
   small buffers on purpose: the checks must come before the first read. */
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

/* A private copy of the CLI's readers whose allocator records the peak of
   live bytes, so a gzip bomb test can say how much was held before the
   refusal. */
namespace io_mem {
size_t live, peak, largest;
inline void *track(void *p, size_t size) {
    if (!p) return nullptr;
    *(size_t *)p = size;
    live += size;
    if (live > peak) peak = live;
    if (size > largest) largest = size;
    return (char *)p + 16;
}
inline void *alloc(size_t size) { return track(std::malloc(size + 16), size); }
inline void release(void *p) {
    if (!p) return;
    live -= *(size_t *)((char *)p - 16);
    std::free((char *)p - 16);
}
inline void *grow(void *p, size_t size) {
    if (!p) return alloc(size);
    size_t old = *(size_t *)((char *)p - 16);
    void *q = std::realloc((char *)p - 16, size + 16);
    if (!q) return nullptr;
    live -= old;
    return track(q, size);
}
inline void reset() { live = peak = largest = 0; }
} // namespace io_mem
#define UMAP_IO_STATIC
#define UMAP_IO_MALLOC(sz) io_mem::alloc(sz)
#define UMAP_IO_REALLOC(p, sz) io_mem::grow(p, sz)
#define UMAP_IO_FREE(p) io_mem::release(p)
#define UMAP_IO_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "cli/umap_io.h"
#pragma GCC diagnostic pop

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
    umap_allocator hook() { return ut::allocator_of(this); }
};

umap_config tiny_config(CountingAllocator *ca, umap_fit_info *info) {
    umap_config c = umap_config_default();
    c.n_neighbors = 5;
    c.n_epochs = 2;
    c.batch_size = 32;
    c.refine_epochs = 0;
    c.n_hidden = 2; /* a tiny net */
    c.hidden[0] = c.hidden[1] = 8;
    c.n_threads = 1;
    c.allocator = ca->hook();
    c.info = info;
    return c;
}

const int64_t kHugeD[] = {(int64_t)1 << 61, ((int64_t)1 << 61) + 1, INT64_MAX / 20, (int64_t)1 << 40,
                          (int64_t)1 << 32};

/* A fit of n x d rows (data: a small buffer; the checks must come before
   any row is read) with a counting allocator: what it returned, how many
   allocations it made and why it failed. input_dims < 0: the default;
   with idx, umap_fit_knn with those 2 neighbours a row. */
struct Attempt {
    umap_result r;
    long allocs;
    std::string detail;
};
Attempt try_fit(int64_t n, int64_t d, int input_dims = -1, const int32_t *idx = nullptr, const float *dist = nullptr) {
    static std::vector<float> x(64, 1.0f);
    CountingAllocator ca;
    umap_fit_info info;
    umap_config c = tiny_config(&ca, &info);
    umap_model *m = nullptr;
    if (input_dims >= 0) c.input_dims = input_dims;
    Attempt a;
    a.r = idx ? umap_fit_knn(&c, x.data(), n, d, idx, dist, 2, &m) : umap_fit(&c, x.data(), n, d, &m);
    EXPECT_EQ(m, nullptr);
    umap_model_free(m);
    a.allocs = ca.allocs;
    a.detail = info.error_detail;
    return a;
}

/* n rows of 3 columns around three levels, drawn from seed */
std::vector<float> three_columns(int64_t n, uint64_t seed) {
    std::vector<float> x((size_t)(n * 3));
    for (int64_t i = 0; i < n * 3; i++) x[(size_t)i] = (float)ut::unit(seed, (uint64_t)i) + (float)(i % 3);
    return x;
}

/* a model of tiny_config fitted to x (n x d), its allocations counted in ca */
umap_model *tiny_fit(CountingAllocator *ca, const std::vector<float> &x, int64_t n, int64_t d) {
    umap_fit_info info;
    umap_config c = tiny_config(ca, &info);
    umap_model *m = nullptr;
    EXPECT_EQ(umap_fit(&c, x.data(), n, d, &m), UMAP_OK) << info.error_detail;
    return m;
}

} // namespace

/* d near 2^61: d * sizeof(double) wrapped to a tiny buffer for the column
   statistics, which the scan then wrote past */
TEST(Sizes, FitHugeColumnsIsTooLargeBeforeAllocating) {
    for (int64_t d : kHugeD) {
        Attempt a = try_fit(20, d);
        EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE) << d;
        EXPECT_EQ(a.allocs, 0) << d;
        EXPECT_NE(a.detail.find(std::to_string(d)), std::string::npos) << a.detail;
    }
}

TEST(Sizes, FitHugeRowsIsTooLarge) {
    for (int64_t n : {(int64_t)1 << 31, (int64_t)1 << 40, INT64_MAX}) {
        Attempt a = try_fit(n, 4);
        EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE) << n;
        EXPECT_EQ(a.allocs, 0);
        EXPECT_NE(a.detail.find(std::to_string(n)), std::string::npos) << a.detail;
    }
    /* rows * columns past the k-NN's 2^40 elements, neither alone too large */
    Attempt a = try_fit((int64_t)1 << 29, (int64_t)1 << 12);
    EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(a.allocs, 0);
}

TEST(Sizes, FitProjectionIsChecked) {
    /* 20 x 2^31-1 is within the 2^40 limit; the projection 2^31 x 2^30 is not a size */
    Attempt a = try_fit(20, 2147483647, 1 << 30);
    EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(a.allocs, 0);
    /* 20 x 2^21 is data of a legal size, but its 2^21 x 2^21 covariance is not */
    a = try_fit(20, (int64_t)1 << 21, 10);
    EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE);
    EXPECT_NE(a.detail.find("covariance"), std::string::npos) << a.detail;
    EXPECT_EQ(a.allocs, 0);
}

TEST(Sizes, FitKnnHugeColumnsIsTooLarge) {
    std::vector<int32_t> idx(64, 0);
    std::vector<float> dist(64, 1.0f);
    for (int64_t d : kHugeD) {
        Attempt a = try_fit(20, d, -1, idx.data(), dist.data());
        EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE) << d;
        EXPECT_EQ(a.allocs, 0) << d;
    }
    Attempt a = try_fit(INT64_MAX / 2, 4, -1, idx.data(), dist.data());
    EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(a.allocs, 0);
}

/* n near 2^62: n * d wrapped to 0, so the finiteness scan passed and the
   encoder ran over 2^62 rows */
TEST(Sizes, TransformHugeRowsIsTooLarge) {
    const int64_t n = 60, d = 3;
    const std::vector<float> x = three_columns(n, 5);
    CountingAllocator ca;
    umap_model *m = tiny_fit(&ca, x, n, d);
    ASSERT_NE(m, nullptr);
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

/* On a 32-bit machine, sizes within the library's limits can still be past
   the address space: they must fail as too large before anything is read
   or allocated, never wrap (the 32-bit rows of make cross run this). */
TEST(Sizes, PastTheAddressSpaceIsTooLargeOn32BitMachines) {
    if (sizeof(size_t) >= 8) GTEST_SKIP() << "a 64-bit build: these sizes are legal here";
    const int64_t n = 60, d = 3;
    const std::vector<float> x = three_columns(n, 7);
    /* 2^26 x 32 floats: 2^31 elements, 8 GiB */
    Attempt a = try_fit((int64_t)1 << 26, 32);
    EXPECT_EQ(a.r, UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(a.allocs, 0);
    CountingAllocator ca;
    umap_model *m = tiny_fit(&ca, x, n, d);
    ASSERT_NE(m, nullptr);
    std::vector<float> out(64);
    long before = ca.allocs;
    /* 2^30 rows of 3: 12 GiB in, 8 GiB out */
    EXPECT_EQ(umap_transform(m, x.data(), (int64_t)1 << 30, d, out.data(), 1), UMAP_ERR_TOO_LARGE);
    EXPECT_EQ(ca.allocs, before);
    umap_model_free(m);
    std::vector<int32_t> idx(64);
    std::vector<float> dist(64);
    umap_knn_desc kd = umap_knn_desc();
    kd.k = 2;
    EXPECT_EQ(umap_knn(&kd, x.data(), (int64_t)1 << 26, 32, idx.data(), dist.data()), UMAP_ERR_TOO_LARGE);
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

/* ---- decompressed input is bounded -------------------------------------------- */

namespace {

/* a gzip member of one fixed-Huffman deflate block: `head` as literals,
   then `zeros` zero bytes as a literal and 258-byte matches at distance 1
   (13 bits per 258 bytes: a ratio near 160), CRC32 and ISIZE correct */
struct Gz {
    std::vector<unsigned char> bytes;
    uint64_t bitbuf = 0;
    int nbits = 0;
    void put(uint32_t v, int n) {
        bitbuf |= (uint64_t)v << nbits;
        nbits += n;
        while (nbits >= 8) {
            bytes.push_back((unsigned char)bitbuf);
            bitbuf >>= 8;
            nbits -= 8;
        }
    }
    void code(uint32_t c, int n) { /* Huffman codes go most significant bit first */
        uint32_t r = 0;
        for (int i = 0; i < n; i++) r |= ((c >> i) & 1u) << (n - 1 - i);
        put(r, n);
    }
    void literal(int v) {
        if (v < 144) code(0x30 + v, 8);
        else code(0x190 + (v - 144), 9);
    }
};

uint32_t crc32(const std::vector<unsigned char> &head, uint64_t zeros) {
    uint32_t t[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : head) c = t[(c ^ b) & 0xFF] ^ (c >> 8);
    for (uint64_t i = 0; i < zeros; i++) c = t[c & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::vector<unsigned char> gzip_zeros(const std::vector<unsigned char> &head, uint64_t zeros) {
    Gz g;
    const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    g.bytes.assign(hdr, hdr + 10);
    g.put(1, 1); /* BFINAL */
    g.put(1, 2); /* fixed Huffman */
    for (unsigned char b : head) g.literal(b);
    uint64_t left = zeros;
    if (left) {
        g.literal(0);
        left--;
    }
    while (left >= 258 && zeros > left) {
        g.code(0xC0 + (285 - 280), 8); /* length 258 */
        g.code(0, 5);                  /* distance 1 */
        left -= 258;
    }
    while (left--) g.literal(0);
    g.code(0, 7); /* end of block */
    if (g.nbits) g.put(0, 8 - g.nbits);
    uint32_t crc = crc32(head, zeros), isize = (uint32_t)(head.size() + zeros);
    for (int i = 0; i < 4; i++) g.bytes.push_back((unsigned char)(crc >> (8 * i)));
    for (int i = 0; i < 4; i++) g.bytes.push_back((unsigned char)(isize >> (8 * i)));
    return g.bytes;
}

std::vector<unsigned char> idx_header(uint32_t rows, uint32_t cols) {
    std::vector<unsigned char> h = {0, 0, 0x08, 2};
    for (uint32_t v : {rows, cols})
        for (int i = 3; i >= 0; i--) h.push_back((unsigned char)(v >> (8 * i)));
    return h;
}

std::vector<unsigned char> npy_header(uint64_t rows, uint64_t cols) {
    std::string d = "{'descr': '|u1', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                    std::to_string(cols) + "), }";
    while ((10 + d.size() + 1) % 64) d += ' ';
    d += '\n';
    std::vector<unsigned char> h = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(d.size() & 0xFF),
                                    (unsigned char)(d.size() >> 8)};
    for (char c : d) h.push_back((unsigned char)c);
    return h;
}

struct Read {
    umap_io_result r;
    std::string err;
    int64_t rows = 0, cols = 0;
};
Read read_matrix(const char *name, const std::vector<unsigned char> &b) {
    char err[512] = "";
    umap_io_matrix m;
    Read out;
    out.r = umap_io_read_matrix_memory(name, b.data(), b.size(), 4, &m, err, sizeof err);
    out.err = err;
    out.rows = m.rows;
    out.cols = m.cols;
    umap_io_matrix_free(&m);
    return out;
}

} // namespace

/* 64 MiB of zeros in a 400 KiB gzip: under any name that is not a raw
   stream, the first decompressed bytes already rule the file out, so the
   reader refuses it holding a few KiB, not the 64 MiB */
TEST(Sizes, GzipBombOfZerosIsRefusedEarly) {
    const uint64_t zeros = (uint64_t)64 << 20;
    std::vector<unsigned char> bomb = gzip_zeros({}, zeros);
    ASSERT_LT(bomb.size(), (size_t)1 << 20);
    const char *names[] = {"bomb.gz", "bomb.csv.gz", "bomb.npy.gz", "bomb.idx.gz", "train-images-idx3-ubyte.gz"};
    for (const char *name : names) {
        io_mem::reset();
        Read r = read_matrix(name, bomb);
        EXPECT_NE(r.r, UMAP_IO_OK) << name;
        EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
        EXPECT_LT(io_mem::peak, (size_t)4 << 20) << name << ": " << r.err;
        EXPECT_EQ(io_mem::live, 0u);
        umap_io_labels l;
        char err[512] = "";
        io_mem::reset();
        EXPECT_NE(umap_io_read_labels_memory(name, bomb.data(), bomb.size(), &l, err, sizeof err), UMAP_IO_OK);
        EXPECT_LT(io_mem::peak, (size_t)4 << 20) << name << ": " << err;
    }
    /* the CSV rule names the reason */
    Read r = read_matrix("bomb.csv.gz", bomb);
    EXPECT_NE(r.err.find("NUL byte"), std::string::npos) << r.err;
}

/* a header that states a small payload, then megabytes of zeros: refused
   as soon as the output passes what the header states */
TEST(Sizes, GzipLongerThanItsHeaderIsRefusedAtTheHeadersSize) {
    for (int npy = 0; npy < 2; npy++) {
        std::vector<unsigned char> head = npy ? npy_header(10, 10) : idx_header(10, 10);
        std::vector<unsigned char> bomb = gzip_zeros(head, (uint64_t)64 << 20);
        io_mem::reset();
        Read r = read_matrix(npy ? "x.npy.gz" : "x.idx.gz", bomb);
        EXPECT_EQ(r.r, UMAP_IO_ERR_TOO_LARGE) << r.err;
        EXPECT_NE(r.err.find("header states"), std::string::npos) << r.err;
        EXPECT_LT(io_mem::peak, (size_t)4 << 20) << r.err;
        /* and without a telling name: the IDX and .npy magic rule too */
        io_mem::reset();
        r = read_matrix("x.gz", bomb);
        EXPECT_EQ(r.r, UMAP_IO_ERR_TOO_LARGE) << r.err;
        EXPECT_LT(io_mem::peak, (size_t)4 << 20) << r.err;
    }
}

/* a header that states more than the compressed size could ever hold
   (deflate's ceiling is 1032 : 1) is refused before the payload */
TEST(Sizes, GzipHeaderClaimingTooMuchIsRefused) {
    for (int npy = 0; npy < 2; npy++) {
        std::vector<unsigned char> head = npy ? npy_header(1u << 20, 1u << 12) : idx_header(1u << 20, 1u << 12);
        std::vector<unsigned char> bomb = gzip_zeros(head, 1 << 16);
        io_mem::reset();
        Read r = read_matrix(npy ? "x.npy.gz" : "x.idx.gz", bomb);
        EXPECT_EQ(r.r, UMAP_IO_ERR_TOO_LARGE) << r.err;
        EXPECT_NE(r.err.find("header states 4294967296 bytes"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("UMAP_IO_MAX_GZ_RATIO"), std::string::npos) << r.err;
        EXPECT_LT(io_mem::peak, (size_t)1 << 20) << r.err;
    }
    /* a shape whose byte count is past 2^64 */
    std::vector<unsigned char> bomb = gzip_zeros(npy_header((uint64_t)1 << 40, (uint64_t)1 << 40), 1 << 10);
    Read r = read_matrix("x.npy.gz", bomb);
    EXPECT_EQ(r.r, UMAP_IO_ERR_TOO_LARGE) << r.err;
    EXPECT_NE(r.err.find("states more than"), std::string::npos) << r.err;
}

/* the trailer's ISIZE is the attacker's too: a 2 GiB claim at the end of a
   2 MiB file (within deflate's 1032 : 1) must not be allocated up front */
TEST(Sizes, GzipTrailerSizeIsNotTrusted) {
    std::vector<unsigned char> csv;
    while (csv.size() < ((size_t)2 << 20)) for (char c : std::string("1,2\n")) csv.push_back((unsigned char)c);
    std::vector<unsigned char> gz = gzip_zeros(csv, 0);
    for (int i = 0; i < 4; i++) gz[gz.size() - 4 + i] = (unsigned char)((0x80000000u >> (8 * i)) & 0xFF);
    io_mem::reset();
    Read r = read_matrix("t.csv.gz", gz);
    EXPECT_EQ(r.r, UMAP_IO_ERR_FORMAT) << r.err; /* ISIZE mismatch */
    EXPECT_NE(r.err.find("ISIZE"), std::string::npos) << r.err;
    EXPECT_LT(io_mem::largest, (size_t)64 << 20);
}

/* legitimate highly compressible files still read: all zeros, about 160 : 1 */
TEST(Sizes, GzipHighRatioDataStillReads) {
    const uint32_t rows = 4000, cols = 784;
    std::vector<unsigned char> idx = gzip_zeros(idx_header(rows, cols), (uint64_t)rows * cols);
    Read r = read_matrix("train-images-idx3-ubyte.gz", idx);
    ASSERT_EQ(r.r, UMAP_IO_OK) << r.err;
    EXPECT_EQ(r.rows, rows);
    EXPECT_EQ(r.cols, cols);
    r = read_matrix("zeros.gz", idx); /* by content */
    ASSERT_EQ(r.r, UMAP_IO_OK) << r.err;
    std::vector<unsigned char> npy = gzip_zeros(npy_header(rows, cols), (uint64_t)rows * cols);
    r = read_matrix("zeros.npy.gz", npy);
    ASSERT_EQ(r.r, UMAP_IO_OK) << r.err;
    EXPECT_EQ(r.rows, rows);
    /* a raw stream has no header: the general limit (the ratio) applies */
    std::vector<unsigned char> raw = gzip_zeros({}, (uint64_t)rows * 16);
    r = read_matrix("zeros.f32.gz", raw);
    ASSERT_EQ(r.r, UMAP_IO_OK) << r.err;
    EXPECT_EQ(r.rows, rows);
    EXPECT_EQ(r.cols, 4);
}

/* the real thing, where the package is installed (CI installs it) */
TEST(Sizes, GzipFashionMnistStillReads) {
    const char *path = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
    FILE *f = std::fopen(path, "rb");
    if (!f) GTEST_SKIP() << path << " is not installed (Debian: dataset-fashion-mnist)";
    std::fclose(f);
    char err[512] = "";
    umap_io_matrix m;
    io_mem::reset();
    ASSERT_EQ(umap_io_read_matrix(path, 0, &m, err, sizeof err), UMAP_IO_OK) << err;
    EXPECT_EQ(m.rows, 60000);
    EXPECT_EQ(m.cols, 784);
    /* the file, the inflated bytes (within a doubling) and the floats */
    EXPECT_LT(io_mem::peak, (size_t)60000 * 784 * (4 + 2) + ((size_t)64 << 20));
    umap_io_matrix_free(&m);
}

/* ---- inputs fuzz/fuzz_readers.c found; each runs as the fuzzer runs it ----- */

namespace {
/* the fuzzer's names: the first byte picks one, the second a raw width */
const char *const fuzz_names[] = {
    "f.npy", "f.csv", "f.idx", "f.gz", "f.f32", "f.u8", "f.npy.gz", "f.csv.gz", "train-images-idx3-ubyte.gz",
    "f.f32.gz", "f.u8.gz", "f",
};
void fuzz_readers_once(const std::vector<unsigned char> &in) {
    ASSERT_GE(in.size(), 2u);
    const char *name = fuzz_names[in[0] % (sizeof fuzz_names / sizeof fuzz_names[0])];
    char err[512] = "";
    umap_io_matrix m;
    umap_io_result r = umap_io_read_matrix_memory(name, in.data() + 2, in.size() - 2, 1 + in[1] % 8, &m, err, sizeof err);
    if (r == UMAP_IO_OK) {
        EXPECT_TRUE(m.data && m.rows >= 1 && m.cols >= 1);
    } else {
        EXPECT_EQ(std::string(err).compare(0, strlen(name), name), 0) << err;
    }
    umap_io_matrix_free(&m);
    umap_io_labels l;
    r = umap_io_read_labels_memory(name, in.data() + 2, in.size() - 2, &l, err, sizeof err);
    if (r == UMAP_IO_OK) {
        EXPECT_TRUE(l.data && l.n >= 1);
    } else {
        EXPECT_EQ(std::string(err).compare(0, strlen(name), name), 0) << err;
    }
    umap_io_labels_free(&l);
}
} // namespace

TEST(Sizes, FuzzReadersRegressions) {
    const std::vector<std::vector<unsigned char>> found = {
        /* a gzip member that inflates to nothing, its ISIZE too large to
           size a first buffer: the CRC of no bytes was taken at NULL + 0
           (UBSan: applying zero offset to null pointer) */
        {0x03, 0x00, 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0xf7, 0x60, 0x63, 0x03, 0x64,
         0x04, 0x01, 0x00, 0x60, 0x70, 0x00, 0x00, 0xf1, 0xac},
    };
    for (const auto &in : found) fuzz_readers_once(in);
}
