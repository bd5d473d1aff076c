// cli/umap_io.h: every reader on valid and malformed files, every writer
// round-tripped, the inflate decoder against `gzip`, the progress printer,
// and a mutation fuzz loop over the in-memory readers.
//
// The implementation of umap_io.h lives in this file only (tests/impl.c
// holds umap.h's). umap.h is included first for umap_io_progress.
#include "umap.h"
#define UMAP_IO_IMPLEMENTATION
#include "cli/umap_io.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

typedef std::vector<unsigned char> Bytes;

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/umap_io_test_XXXXXX";
        const char *d = mkdtemp(tmpl);
        dir_ = d ? d : "/tmp";
    }
    ~TempDir() {
        for (size_t i = 0; i < files_.size(); i++) unlink(files_[i].c_str());
        rmdir(dir_.c_str());
    }
    std::string path(const std::string &name) {
        std::string p = dir_ + "/" + name;
        files_.push_back(p);
        return p;
    }
    std::string write(const std::string &name, const Bytes &b) {
        std::string p = path(name);
        FILE *f = fopen(p.c_str(), "wb");
        if (f) {
            if (!b.empty()) fwrite(b.data(), 1, b.size(), f);
            fclose(f);
        }
        return p;
    }
    std::string write(const std::string &name, const std::string &s) { return write(name, Bytes(s.begin(), s.end())); }

  private:
    std::string dir_;
    std::vector<std::string> files_;
};

Bytes read_all(const std::string &path) {
    Bytes b;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return b;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) b.insert(b.end(), buf, buf + n);
    fclose(f);
    return b;
}

// runs a shell command with `in` on stdin (via a file), returns stdout
bool run_filter(TempDir &td, const std::string &cmd, const Bytes &in, Bytes *out) {
    static int counter = 0;
    std::string ip = td.write("filter_in_" + std::to_string(counter++), in);
    std::string full = cmd + " < '" + ip + "'";
    FILE *p = popen(full.c_str(), "r");
    if (!p) return false;
    out->clear();
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->insert(out->end(), buf, buf + n);
    return pclose(p) == 0;
}

bool have_gzip() { return system("gzip --version > /dev/null 2>&1") == 0; }

// a .npy v1/v2/v3 file with the given header dict and payload
Bytes npy(const std::string &dict, const Bytes &payload, int major = 1) {
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
    std::string h = dict;
    size_t pre = major == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64) h += ' ';
    h += '\n';
    if (major == 1) {
        b.push_back((unsigned char)(h.size() & 0xFF));
        b.push_back((unsigned char)(h.size() >> 8));
    } else {
        for (int i = 0; i < 4; i++) b.push_back((unsigned char)(h.size() >> (8 * i)));
    }
    b.insert(b.end(), h.begin(), h.end());
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

// the elements' little-endian bytes, as '<' files hold them on any machine
template <typename T> Bytes raw(const std::vector<T> &v) {
    Bytes b(v.size() * sizeof(T));
    const uint16_t probe = 1;
    if (!v.empty()) memcpy(b.data(), v.data(), b.size());
    if (*(const unsigned char *)&probe == 0)
        for (size_t i = 0; i < b.size(); i += sizeof(T)) std::reverse(b.begin() + i, b.begin() + i + sizeof(T));
    return b;
}

Bytes idx(int type, const std::vector<uint32_t> &dims, const Bytes &payload) {
    Bytes b = {0, 0, (unsigned char)type, (unsigned char)dims.size()};
    for (size_t i = 0; i < dims.size(); i++)
        for (int k = 3; k >= 0; k--) b.push_back((unsigned char)(dims[i] >> (8 * k)));
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

std::vector<float> iota_f(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++) v[i] = (float)i * 0.5f - 3.0f;
    return v;
}

struct Mat {
    umap_io_matrix m;
    umap_io_result r;
    char err[512];
    Mat() : r(UMAP_IO_OK) {
        memset(&m, 0, sizeof m);
        err[0] = 0;
    }
    ~Mat() { umap_io_matrix_free(&m); }
};
struct Lab {
    umap_io_labels l;
    umap_io_result r;
    char err[512];
    Lab() : r(UMAP_IO_OK) {
        memset(&l, 0, sizeof l);
        err[0] = 0;
    }
    ~Lab() { umap_io_labels_free(&l); }
};

void read_m(Mat &m, const std::string &path, int64_t dim = 0) {
    m.r = umap_io_read_matrix(path.c_str(), dim, &m.m, m.err, sizeof m.err);
}
void read_l(Lab &l, const std::string &path) { l.r = umap_io_read_labels(path.c_str(), &l.l, l.err, sizeof l.err); }

bool contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

}  // namespace

// ---------------------------------------------------------------- npy

TEST(CliIoNpy, ReadsF4F8U1AllVersions) {
    TempDir td;
    std::vector<float> f = iota_f(12);
    std::vector<double> d(f.begin(), f.end());
    for (int major = 1; major <= 3; major++) {
        Mat a, b;
        read_m(a, td.write("f4_" + std::to_string(major) + ".npy",
                           npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw(f), major)));
        ASSERT_EQ(a.r, UMAP_IO_OK) << a.err;
        EXPECT_EQ(a.m.rows, 3);
        EXPECT_EQ(a.m.cols, 4);
        for (int i = 0; i < 12; i++) EXPECT_EQ(a.m.data[i], f[i]);
        read_m(b, td.write("f8_" + std::to_string(major) + ".npy",
                           npy("{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(4,3)}", raw(d), major)));
        ASSERT_EQ(b.r, UMAP_IO_OK) << b.err;
        EXPECT_EQ(b.m.rows, 4);
        EXPECT_EQ(b.m.cols, 3);
        for (int i = 0; i < 12; i++) EXPECT_EQ(b.m.data[i], f[i]);
    }
    Mat u;
    Bytes pix = {0, 1, 2, 255, 128, 7};
    read_m(u, td.write("u1.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", pix)));
    ASSERT_EQ(u.r, UMAP_IO_OK) << u.err;
    EXPECT_EQ(u.m.data[3], 255.0f);
    // 1-D: n x 1; 3-D: trailing dims flattened; big-endian f4
    Mat one, three, be;
    read_m(one, td.write("v.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (12,), }", raw(f))));
    ASSERT_EQ(one.r, UMAP_IO_OK) << one.err;
    EXPECT_EQ(one.m.rows, 12);
    EXPECT_EQ(one.m.cols, 1);
    read_m(three, td.write("t.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 2), }", raw(f))));
    ASSERT_EQ(three.r, UMAP_IO_OK) << three.err;
    EXPECT_EQ(three.m.rows, 2);
    EXPECT_EQ(three.m.cols, 6);
    Bytes bef = raw(f);
    for (size_t i = 0; i < bef.size(); i += 4) {
        std::swap(bef[i], bef[i + 3]);
        std::swap(bef[i + 1], bef[i + 2]);
    }
    read_m(be, td.write("be.npy", npy("{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", bef)));
    ASSERT_EQ(be.r, UMAP_IO_OK) << be.err;
    for (int i = 0; i < 12; i++) EXPECT_EQ(be.m.data[i], f[i]);
}

TEST(CliIoNpy, Labels) {
    TempDir td;
    std::vector<int32_t> i4 = {3, 1, 4, 1, 5};
    std::vector<int64_t> i8 = {9, 2, 6, 5, 3};
    Lab a, b, c, big, fl, twod;
    read_l(a, td.write("a.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", raw(i4))));
    ASSERT_EQ(a.r, UMAP_IO_OK) << a.err;
    ASSERT_EQ(a.l.n, 5);
    EXPECT_EQ(a.l.data[2], 4);
    read_l(b, td.write("b.npy", npy("{'descr': '<i8', 'fortran_order': False, 'shape': (5, 1), }", raw(i8))));
    ASSERT_EQ(b.r, UMAP_IO_OK) << b.err;
    EXPECT_EQ(b.l.data[4], 3);
    read_l(c, td.write("c.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", Bytes{7, 8, 9})));
    ASSERT_EQ(c.r, UMAP_IO_OK) << c.err;
    EXPECT_EQ(c.l.data[0], 7);
    i8[3] = (int64_t)1 << 40;
    read_l(big, td.write("big.npy", npy("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }", raw(i8))));
    EXPECT_EQ(big.r, UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(big.err, "big.npy")) << big.err;
    EXPECT_TRUE(contains(big.err, "the label of row 3")) << big.err;
    read_l(fl, td.write("fl.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", raw(iota_f(3)))));
    EXPECT_EQ(fl.r, UMAP_IO_ERR_UNSUPPORTED);
    EXPECT_TRUE(contains(fl.err, "integers")) << fl.err;
    read_l(twod, td.write("twod.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                                          raw(std::vector<int32_t>{1, 2, 3, 4}))));
    EXPECT_EQ(twod.r, UMAP_IO_ERR_FORMAT);
}

TEST(CliIoNpy, Malformed) {
    TempDir td;
    std::vector<float> f = iota_f(12);
    Bytes good = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw(f));
    {  // header length runs past the end
        Bytes b(good.begin(), good.begin() + 40);
        Mat m;
        read_m(m, td.write("trunc.npy", b));
        EXPECT_EQ(m.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(m.err, "trunc.npy: truncated header")) << m.err;
        EXPECT_EQ(m.m.data, (float *)NULL);
    }
    {  // shorter than the preamble
        Mat m;
        read_m(m, td.write("tiny.npy", Bytes{0x93, 'N', 'U', 'M'}));
        EXPECT_EQ(m.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(m.err, "tiny.npy")) << m.err;
    }
    {  // wrong dtype
        Mat m;
        read_m(m, td.write("c8.npy", npy("{'descr': '<c8', 'fortran_order': False, 'shape': (3, 4), }", raw(f))));
        EXPECT_EQ(m.r, UMAP_IO_ERR_UNSUPPORTED);
        EXPECT_TRUE(contains(m.err, "c8.npy: unsupported dtype '<c8' at byte")) << m.err;
        Mat s;
        read_m(s, td.write("str.npy", npy("{'descr': '<U8', 'fortran_order': False, 'shape': (3,), }", Bytes(96))));
        EXPECT_EQ(s.r, UMAP_IO_ERR_UNSUPPORTED);
        Mat rec;
        read_m(rec, td.write("rec.npy", npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }",
                                            Bytes(12))));
        EXPECT_EQ(rec.r, UMAP_IO_ERR_FORMAT) << rec.err;
    }
    {  // fortran order
        Mat m;
        read_m(m, td.write("fo.npy", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", raw(f))));
        EXPECT_EQ(m.r, UMAP_IO_ERR_UNSUPPORTED);
        EXPECT_TRUE(contains(m.err, "fortran_order")) << m.err;
    }
    {  // shape says more / less than the payload
        Mat more, less, zero, scalar;
        read_m(more, td.write("more.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", raw(f))));
        EXPECT_EQ(more.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(more.err, "more.npy: the shape says 64 bytes")) << more.err;
        read_m(less, td.write("less.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", raw(f))));
        EXPECT_EQ(less.r, UMAP_IO_ERR_FORMAT);
        read_m(zero, td.write("zero.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", Bytes())));
        EXPECT_EQ(zero.r, UMAP_IO_ERR_FORMAT);
        read_m(scalar, td.write("scalar.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", raw(iota_f(1)))));
        EXPECT_EQ(scalar.r, UMAP_IO_ERR_FORMAT);
    }
    {  // overflowing shape
        Mat m;
        read_m(m, td.write("huge.npy", npy("{'descr': '<f4', 'fortran_order': False, "
                                           "'shape': (4294967296, 4294967296), }",
                                           raw(f))));
        EXPECT_EQ(m.r, UMAP_IO_ERR_TOO_LARGE) << m.err;
        Mat m2;
        read_m(m2, td.write("huge2.npy", npy("{'descr': '<f4', 'fortran_order': False, "
                                             "'shape': (99999999999999999999999, 1), }",
                                             raw(f))));
        EXPECT_NE(m2.r, UMAP_IO_OK);
    }
    {  // missing key, garbage header, unknown version
        Mat m, g, v;
        read_m(m, td.write("nokey.npy", npy("{'descr': '<f4', 'shape': (3, 4), }", raw(f))));
        EXPECT_EQ(m.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(m.err, "fortran_order")) << m.err;
        read_m(g, td.write("garbage.npy", npy("hello", raw(f))));
        EXPECT_EQ(g.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(g.err, "at byte 10")) << g.err;
        Bytes b = good;
        b[6] = 9;
        read_m(v, td.write("v9.npy", b));
        EXPECT_EQ(v.r, UMAP_IO_ERR_UNSUPPORTED);
    }
    {  // .npy name, not npy content
        Mat m;
        read_m(m, td.write("fake.npy", std::string("1,2,3\n")));
        EXPECT_EQ(m.r, UMAP_IO_ERR_FORMAT);
        EXPECT_TRUE(contains(m.err, "bad magic")) << m.err;
    }
}

// ---------------------------------------------------------------- csv

TEST(CliIoCsv, ReadsWithAndWithoutHeader) {
    TempDir td;
    Mat a, b, c;
    read_m(a, td.write("a.csv", std::string("x,y,z\n1,2,3\n4,5.5,-6e1\n\n\n")));
    ASSERT_EQ(a.r, UMAP_IO_OK) << a.err;
    EXPECT_EQ(a.m.rows, 2);
    EXPECT_EQ(a.m.cols, 3);
    EXPECT_EQ(a.m.data[5], -60.0f);
    read_m(b, td.write("b.csv", std::string("1, 2\r\n 3 ,4\r\n\"5\",6")));  // CRLF, blanks, quotes, no final newline
    ASSERT_EQ(b.r, UMAP_IO_OK) << b.err;
    EXPECT_EQ(b.m.rows, 3);
    EXPECT_EQ(b.m.data[4], 5.0f);
    // any file that is text goes to the CSV reader
    read_m(c, td.write("c.txt", std::string("7\n8\n")));
    ASSERT_EQ(c.r, UMAP_IO_OK) << c.err;
    EXPECT_EQ(c.m.rows, 2);
    EXPECT_EQ(c.m.cols, 1);
}

TEST(CliIoCsv, Malformed) {
    TempDir td;
    Mat ragged, nonnum, empty_field, blank_mid, nothing, only_header, binary;
    read_m(ragged, td.write("data.csv", std::string("a,b,c\n1,2,3\n4,5,6\n7,8\n")));
    EXPECT_EQ(ragged.r, UMAP_IO_ERR_FORMAT);
    /* line 4, 1-based, holds row 2, 0-based: the header is line 1 */
    EXPECT_STREQ(ragged.err + strlen(ragged.err) - strlen("data.csv:4 (row 2): expected 3 fields, got 2"),
                 "data.csv:4 (row 2): expected 3 fields, got 2");
    read_m(nonnum, td.write("n.csv", std::string("1,2\n3,abc\n")));
    EXPECT_EQ(nonnum.r, UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(nonnum.err, "n.csv:2 (row 1): field 2 is not a number: 'abc'")) << nonnum.err;
    read_m(empty_field, td.write("e.csv", std::string("1,2\n3,\n")));
    EXPECT_TRUE(contains(empty_field.err, "e.csv:2 (row 1): field 2 is empty")) << empty_field.err;
    read_m(blank_mid, td.write("m.csv", std::string("1,2\n\n3,4\n")));
    EXPECT_TRUE(contains(blank_mid.err, "m.csv:2: empty line")) << blank_mid.err;
    read_m(nothing, td.write("z.csv", std::string("")));
    EXPECT_EQ(nothing.r, UMAP_IO_ERR_FORMAT);
    read_m(only_header, td.write("h.csv", std::string("x,y\n")));
    EXPECT_TRUE(contains(only_header.err, "no data rows")) << only_header.err;
    read_m(binary, td.write("bin.dat", Bytes{1, 2, 0, 3}));
    EXPECT_TRUE(contains(binary.err, "NUL byte at byte 2")) << binary.err;
}

TEST(CliIoCsv, Labels) {
    TempDir td;
    Lab a, b, bad, frac, many;
    read_l(a, td.write("l.csv", std::string("label\n3\n-1\n7\n")));
    ASSERT_EQ(a.r, UMAP_IO_OK) << a.err;
    ASSERT_EQ(a.l.n, 3);
    EXPECT_EQ(a.l.data[1], -1);
    read_l(b, td.write("l2.csv", std::string("0\n1\n2.0\n")));
    ASSERT_EQ(b.r, UMAP_IO_OK) << b.err;
    EXPECT_EQ(b.l.data[2], 2);
    read_l(bad, td.write("l3.csv", std::string("0\nx\n")));
    EXPECT_TRUE(contains(bad.err, "l3.csv:2 (row 1):")) << bad.err;
    read_l(frac, td.write("l4.csv", std::string("0\n1.5\n")));
    EXPECT_TRUE(contains(frac.err, "l4.csv:2 (row 1): label '1.5'")) << frac.err;
    read_l(many, td.write("l5.csv", std::string("0,1\n")));
    EXPECT_TRUE(contains(many.err, "l5.csv:1 (row 0): expected one label")) << many.err;
    Lab huge;
    read_l(huge, td.write("l6.csv", std::string("1\n3e10\n")));
    EXPECT_EQ(huge.r, UMAP_IO_ERR_FORMAT);
    Lab nan;
    read_l(nan, td.write("l7.csv", std::string("1\nnan\n")));
    EXPECT_EQ(nan.r, UMAP_IO_ERR_FORMAT);
}

// ---------------------------------------------------------------- idx / raw

TEST(CliIoIdx, ImagesLabelsAndTypes) {
    TempDir td;
    Bytes pix(2 * 3 * 2);
    for (size_t i = 0; i < pix.size(); i++) pix[i] = (unsigned char)(i * 20);
    Mat img;
    read_m(img, td.write("images-idx3-ubyte", idx(0x08, {2, 3, 2}, pix)));
    ASSERT_EQ(img.r, UMAP_IO_OK) << img.err;
    EXPECT_EQ(img.m.rows, 2);
    EXPECT_EQ(img.m.cols, 6);
    EXPECT_EQ(img.m.data[7], 140.0f);
    Lab lab;
    read_l(lab, td.write("labels.idx", idx(0x08, {4}, Bytes{1, 2, 3, 9})));
    ASSERT_EQ(lab.r, UMAP_IO_OK) << lab.err;
    EXPECT_EQ(lab.l.n, 4);
    EXPECT_EQ(lab.l.data[3], 9);
    // float IDX (big-endian) found by its magic under any name
    std::vector<float> f = iota_f(6);
    Bytes be = raw(f);
    for (size_t i = 0; i < be.size(); i += 4) {
        std::swap(be[i], be[i + 3]);
        std::swap(be[i + 1], be[i + 2]);
    }
    Mat fl;
    read_m(fl, td.write("floats.bin", idx(0x0D, {3, 2}, be)));
    ASSERT_EQ(fl.r, UMAP_IO_OK) << fl.err;
    for (int i = 0; i < 6; i++) EXPECT_EQ(fl.m.data[i], f[i]);
}

TEST(CliIoIdx, Malformed) {
    TempDir td;
    Bytes pix(2 * 3 * 2, 5);
    Bytes full = idx(0x08, {2, 3, 2}, pix);
    Mat trunc, hdr, type, labels3d;
    read_m(trunc, td.write("t-idx3-ubyte", Bytes(full.begin(), full.end() - 1)));
    EXPECT_EQ(trunc.r, UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(trunc.err, "t-idx3-ubyte: the shape says 12 bytes of data at byte 16, the file has 11"))
        << trunc.err;
    read_m(hdr, td.write("h.idx", Bytes(full.begin(), full.begin() + 9)));
    EXPECT_TRUE(contains(hdr.err, "h.idx: IDX: truncated header")) << hdr.err;
    Bytes bad = full;
    bad[2] = 0x42;
    read_m(type, td.write("ty.idx", bad));
    EXPECT_TRUE(contains(type.err, "unknown element type 0x42 at byte 2")) << type.err;
    Lab l;
    read_l(l, td.write("l3.idx", full));
    EXPECT_TRUE(contains(l.err, "labels must be 1-D")) << l.err;
}

TEST(CliIoRaw, F32AndU8) {
    TempDir td;
    std::vector<float> f = iota_f(12);
    Mat ok, bad, nodim;
    read_m(ok, td.write("x.f32", raw(f)), 4);
    ASSERT_EQ(ok.r, UMAP_IO_OK) << ok.err;
    EXPECT_EQ(ok.m.rows, 3);
    EXPECT_EQ(ok.m.data[11], f[11]);
    read_m(bad, td.write("y.f32", raw(f)), 5);
    EXPECT_EQ(bad.r, UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(bad.err, "y.f32: size 48 bytes is not a non-zero multiple of 4 * 5")) << bad.err;
    read_m(nodim, td.write("z.f32", raw(f)), 0);
    EXPECT_EQ(nodim.r, UMAP_IO_ERR_ARGUMENT);
    Lab l;
    read_l(l, td.write("l.u8", Bytes{0, 9, 255}));
    ASSERT_EQ(l.r, UMAP_IO_OK) << l.err;
    EXPECT_EQ(l.l.data[2], 255);
    Mat missing;
    read_m(missing, td.path("does-not-exist.npy"));
    EXPECT_EQ(missing.r, UMAP_IO_ERR_OPEN);
    EXPECT_TRUE(contains(missing.err, "does-not-exist.npy: cannot open")) << missing.err;
}

// ---------------------------------------------------------------- gzip

// hand-made streams: header + deflate bytes + trailer
static Bytes gz_wrap(const Bytes &deflate, const Bytes &plain) {
    Bytes b = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    b.insert(b.end(), deflate.begin(), deflate.end());
    uint32_t t[256];
    umap_io__crc_table(t);
    uint32_t crc = umap_io__crc32(t, plain.data(), plain.size());
    for (int i = 0; i < 4; i++) b.push_back((unsigned char)(crc >> (8 * i)));
    for (int i = 0; i < 4; i++) b.push_back((unsigned char)(plain.size() >> (8 * i)));
    return b;
}

static umap_io_result gunzip(const Bytes &in, Bytes *out, char *err, size_t n, const char *name = "t.gz") {
    unsigned char *o = NULL;
    size_t on = 0;
    umap_io_result r = umap_io_gunzip(name, in.data(), in.size(), &o, &on, err, n);
    if (r == UMAP_IO_OK) out->assign(o, o + on);
    UMAP_IO_FREE(o);
    return r;
}

TEST(CliIoGzip, HandMadeStoredBlockAndErrors) {
    char err[512];
    Bytes plain = {'h', 'e', 'l', 'l', 'o'};
    // stored block: BFINAL=1 BTYPE=00, LEN=5, NLEN=~5
    Bytes stored = {0x01, 5, 0, 0xFA, 0xFF, 'h', 'e', 'l', 'l', 'o'};
    Bytes out;
    ASSERT_EQ(gunzip(gz_wrap(stored, plain), &out, err, sizeof err), UMAP_IO_OK) << err;
    EXPECT_EQ(out, plain);
    // two members concatenated, then zero padding
    Bytes two = gz_wrap(stored, plain), second = gz_wrap(stored, plain);
    two.insert(two.end(), second.begin(), second.end());
    two.push_back(0);
    ASSERT_EQ(gunzip(two, &out, err, sizeof err), UMAP_IO_OK) << err;
    EXPECT_EQ(out.size(), 10u);
    // bad NLEN
    Bytes bad_len = stored;
    bad_len[3] = 0;
    EXPECT_EQ(gunzip(gz_wrap(bad_len, plain), &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "stored block length")) << err;
    // block type 3
    EXPECT_EQ(gunzip(gz_wrap(Bytes{0x07, 0, 0}, plain), &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "t.gz: gzip: invalid block type 3 at byte 10")) << err;
    // bad CRC, bad ISIZE
    Bytes crc = gz_wrap(stored, plain);
    crc[crc.size() - 8] ^= 1;
    EXPECT_EQ(gunzip(crc, &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "CRC32 mismatch at byte 20")) << err;
    Bytes isz = gz_wrap(stored, plain);
    isz[isz.size() - 4] ^= 1;
    EXPECT_EQ(gunzip(isz, &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "ISIZE mismatch")) << err;
    // truncated inside the stored block, and inside the trailer
    Bytes full = gz_wrap(stored, plain);
    EXPECT_EQ(gunzip(Bytes(full.begin(), full.begin() + 17), &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_EQ(gunzip(Bytes(full.begin(), full.end() - 3), &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "truncated trailer")) << err;
    // not deflate; reserved flags; trailing garbage
    Bytes cm = full;
    cm[2] = 7;
    EXPECT_EQ(gunzip(cm, &out, err, sizeof err), UMAP_IO_ERR_UNSUPPORTED);
    Bytes fl = full;
    fl[3] = 0x80;
    EXPECT_EQ(gunzip(fl, &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    Bytes garbage = full;
    garbage.push_back('x');
    EXPECT_EQ(gunzip(garbage, &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "trailing garbage")) << err;
    // distance past the start: fixed block, first symbol a match
    // fixed code for length 3 (sym 257) is 0000001 (7 bits), distance code 0 (5 bits 00000)
    Bytes far = {0x03 | (0 << 3), 0x02, 0x00};  // BFINAL=1, BTYPE=01, then bits for 257 + dist 0
    EXPECT_EQ(gunzip(gz_wrap(far, plain), &out, err, sizeof err), UMAP_IO_ERR_FORMAT);
    EXPECT_TRUE(contains(err, "gzip:")) << err;
}

TEST(CliIoGzip, AgainstGzipTool) {
    if (!have_gzip()) GTEST_SKIP() << "no gzip binary";
    TempDir td;
    // text (dynamic blocks), tiny (fixed), random (stored), empty, long runs
    std::vector<Bytes> inputs;
    std::string text;
    for (int i = 0; i < 3000; i++) text += std::to_string(i * 7919 % 1000) + (i % 13 ? "," : "\n");
    inputs.push_back(Bytes(text.begin(), text.end()));
    inputs.push_back(Bytes{'a', 'b', 'c'});
    Bytes rnd(200000);
    uint32_t s = 12345;
    for (size_t i = 0; i < rnd.size(); i++) {
        s = s * 1664525u + 1013904223u;
        rnd[i] = (unsigned char)(s >> 24);
    }
    inputs.push_back(rnd);
    inputs.push_back(Bytes());
    inputs.push_back(Bytes(100000, 'z'));
    const char *levels[] = {"-1", "-9"};
    for (size_t k = 0; k < inputs.size(); k++) {
        for (int lv = 0; lv < 2; lv++) {
            Bytes gz, out;
            char err[512];
            ASSERT_TRUE(run_filter(td, std::string("gzip -c -n ") + levels[lv], inputs[k], &gz));
            ASSERT_EQ(gunzip(gz, &out, err, sizeof err), UMAP_IO_OK) << err << " input " << k;
            EXPECT_TRUE(out == inputs[k]) << "input " << k << " level " << levels[lv];
            // truncation anywhere is an error, never a crash
            for (size_t cut = 1; cut < gz.size(); cut += 1 + gz.size() / 23) {
                Bytes t(gz.begin(), gz.begin() + cut);
                EXPECT_NE(gunzip(t, &out, err, sizeof err), UMAP_IO_OK) << "cut " << cut;
            }
        }
    }
    // a gzipped CSV and npy read through the readers
    std::string csv = "a,b\n1,2\n3,4\n";
    Bytes gz;
    ASSERT_TRUE(run_filter(td, "gzip -c", Bytes(csv.begin(), csv.end()), &gz));
    Mat m;
    read_m(m, td.write("d.csv.gz", gz));
    ASSERT_EQ(m.r, UMAP_IO_OK) << m.err;
    EXPECT_EQ(m.m.rows, 2);
    ASSERT_TRUE(run_filter(td, "gzip -c",
                           npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw(iota_f(12))), &gz));
    Mat n;
    read_m(n, td.write("renamed.dat", gz));  // sniffed, whatever the name
    ASSERT_EQ(n.r, UMAP_IO_OK) << n.err;
    EXPECT_EQ(n.m.cols, 4);
}

TEST(CliIoGzip, CorruptedRealStream) {
    if (!have_gzip()) GTEST_SKIP() << "no gzip binary";
    TempDir td;
    std::string text;
    for (int i = 0; i < 2000; i++) text += std::to_string(i * 31 % 977) + ",";
    Bytes gz, out;
    ASSERT_TRUE(run_filter(td, "gzip -c -9", Bytes(text.begin(), text.end()), &gz));
    char err[512];
    int errors = 0;
    for (size_t at = 10; at + 8 < gz.size(); at += 7) {
        Bytes b = gz;
        b[at] ^= 0x5A;
        if (gunzip(b, &out, err, sizeof err) != UMAP_IO_OK) {
            errors++;
            EXPECT_TRUE(contains(err, "t.gz: gzip: ")) << err;
            EXPECT_TRUE(contains(err, " at byte ")) << err;
        }
    }
    EXPECT_GT(errors, 0);  // CRC32 catches what the decoder does not
}

TEST(CliIoGzip, FashionMnistMatchesGzip) {
    const char *files[] = {"/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz",
                           "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"};
    if (access(files[0], R_OK) != 0 || access(files[1], R_OK) != 0 || !have_gzip())
        GTEST_SKIP() << "fashion-mnist or gzip not installed";
    for (int k = 0; k < 2; k++) {
        Bytes gz = read_all(files[k]), mine, ref;
        char err[512];
        ASSERT_EQ(gunzip(gz, &mine, err, sizeof err, files[k]), UMAP_IO_OK) << err;
        std::string cmd = std::string("gzip -dc '") + files[k] + "'";
        FILE *p = popen(cmd.c_str(), "r");
        ASSERT_TRUE(p != NULL);
        unsigned char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) ref.insert(ref.end(), buf, buf + n);
        ASSERT_EQ(pclose(p), 0);
        EXPECT_TRUE(mine == ref) << files[k];
    }
    Mat img;
    Lab lab;
    read_m(img, files[1]);
    read_l(lab, files[0]);
    ASSERT_EQ(img.r, UMAP_IO_OK) << img.err;
    ASSERT_EQ(lab.r, UMAP_IO_OK) << lab.err;
    EXPECT_EQ(img.m.rows, 10000);
    EXPECT_EQ(img.m.cols, 784);
    EXPECT_EQ(lab.l.n, 10000);
    EXPECT_EQ(lab.l.data[0], 9);  // ankle boot
    EXPECT_EQ(lab.l.data[1], 2);  // pullover
    for (int64_t i = 0; i < img.m.rows * img.m.cols; i++) ASSERT_TRUE(img.m.data[i] >= 0 && img.m.data[i] <= 255);
}

// ---------------------------------------------------------------- sparse

// A zip archive as Python's zipfile writes it: each member stored, or
// deflated by the gzip tool (its raw deflate stream); zip64 puts the sizes
// in the central directory's extra field, as for members past 4 GiB.
struct ZipMember {
    std::string name;
    Bytes data;
};
static void put16(Bytes &b, unsigned v) {
    b.push_back((unsigned char)v);
    b.push_back((unsigned char)(v >> 8));
}
static void put32(Bytes &b, uint32_t v) {
    for (int i = 0; i < 4; i++) b.push_back((unsigned char)(v >> (8 * i)));
}
static void put64(Bytes &b, uint64_t v) {
    for (int i = 0; i < 8; i++) b.push_back((unsigned char)(v >> (8 * i)));
}
static bool deflate_raw(const Bytes &plain, Bytes *out) {
    TempDir td;
    Bytes gz;
    if (!have_gzip() || !run_filter(td, "gzip -c -n -9", plain, &gz) || gz.size() < 18) return false;
    out->assign(gz.begin() + 10, gz.end() - 8); /* no name stored (-n): the header is 10 bytes */
    return true;
}
static Bytes zip(const std::vector<ZipMember> &members, bool deflate, bool zip64 = false) {
    Bytes b, cd;
    uint32_t t[256];
    umap_io__crc_table(t);
    for (const ZipMember &m : members) {
        uint32_t crc = umap_io__crc32(t, m.data.data(), m.data.size());
        Bytes body = m.data;
        unsigned method = 0;
        if (deflate && deflate_raw(m.data, &body)) method = 8;
        uint32_t offset = (uint32_t)b.size();
        put32(b, 0x04034b50u), put16(b, 20), put16(b, 0), put16(b, method), put16(b, 0), put16(b, 0x21);
        put32(b, crc), put32(b, (uint32_t)body.size()), put32(b, (uint32_t)m.data.size());
        put16(b, (unsigned)m.name.size()), put16(b, 0);
        b.insert(b.end(), m.name.begin(), m.name.end());
        b.insert(b.end(), body.begin(), body.end());
        put32(cd, 0x02014b50u), put16(cd, 45), put16(cd, 20), put16(cd, 0), put16(cd, method), put16(cd, 0);
        put16(cd, 0x21), put32(cd, crc);
        put32(cd, zip64 ? 0xFFFFFFFFu : (uint32_t)body.size()), put32(cd, zip64 ? 0xFFFFFFFFu : (uint32_t)m.data.size());
        put16(cd, (unsigned)m.name.size()), put16(cd, zip64 ? 20 : 0), put16(cd, 0), put16(cd, 0), put16(cd, 0);
        put32(cd, 0), put32(cd, offset);
        cd.insert(cd.end(), m.name.begin(), m.name.end());
        if (zip64) put16(cd, 1), put16(cd, 16), put64(cd, m.data.size()), put64(cd, body.size());
    }
    uint32_t cd_off = (uint32_t)b.size();
    b.insert(b.end(), cd.begin(), cd.end());
    put32(b, 0x06054b50u), put16(b, 0), put16(b, 0), put16(b, (unsigned)members.size()),
        put16(b, (unsigned)members.size());
    put32(b, (uint32_t)cd.size()), put32(b, cd_off), put16(b, 0);
    return b;
}
static Bytes npy1(const std::string &descr, const std::string &shape, const Bytes &payload) {
    return npy("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", payload);
}
// scipy.sparse.save_npz's members for a matrix of the format given
static std::vector<ZipMember> npz_members(const std::string &format, int64_t rows, int64_t cols,
                                          const std::vector<int32_t> &a1, const std::vector<int32_t> &a2,
                                          const std::vector<double> &data) {
    bool coo = format == "coo";
    std::string n1 = std::to_string(a1.size()), n2 = std::to_string(a2.size()), nd = std::to_string(data.size());
    return {{coo ? "row.npy" : "indices.npy", npy1("<i4", "(" + n2 + ",)", raw(a2))},
            {coo ? "col.npy" : "indptr.npy", npy1("<i4", "(" + n1 + ",)", raw(a1))},
            {"format.npy", npy1("|S3", "()", Bytes(format.begin(), format.end()))},
            {"shape.npy", npy1("<i8", "(2,)", raw(std::vector<int64_t>{rows, cols}))},
            {"data.npy", npy1("<f8", "(" + nd + ",)", raw(data))}};
}

struct Sparse {
    umap_io_sparse s;
    umap_io_result r;
    char err[512];
    Sparse() : r(UMAP_IO_OK) {
        memset(&s, 0, sizeof s);
        err[0] = 0;
    }
    ~Sparse() { umap_io_sparse_free(&s); }
    void read(const std::string &name, const Bytes &b, int zero_based = -1, int64_t n_features = 0) {
        umap_io_sparse_free(&s);
        r = umap_io_read_sparse_memory(name.c_str(), b.data(), b.size(), zero_based, n_features, &s, err, sizeof err);
    }
    // the rows densified, for comparisons
    std::vector<float> dense() const {
        std::vector<float> d((size_t)(s.rows * s.cols), 0.0f);
        for (int64_t i = 0; i < s.rows; i++)
            for (int64_t t = s.indptr[i]; t < s.indptr[i + 1]; t++) d[(size_t)(i * s.cols + s.indices[t])] = s.values[t];
        return d;
    }
    // canonical: offsets from 0 to nnz, columns increasing and in range
    bool canonical() const {
        if (s.indptr[0] != 0) return false;
        for (int64_t i = 0; i < s.rows; i++) {
            if (s.indptr[i + 1] < s.indptr[i]) return false;
            for (int64_t t = s.indptr[i]; t < s.indptr[i + 1]; t++)
                if (s.indices[t] < 0 || s.indices[t] >= s.cols || (t > s.indptr[i] && s.indices[t] <= s.indices[t - 1]))
                    return false;
        }
        return true;
    }
};

/* the 3 x 4 matrix [[0 1 0 2] [0 0 0 0] [3 0 4 0]] */
static const std::vector<float> kSparseDense = {0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 4, 0};

TEST(CliIoSparse, NpzEveryFormatStoredDeflatedAndZip64) {
    std::vector<std::pair<std::string, std::vector<ZipMember>>> cases = {
        {"csr", npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4})},
        /* unsorted within a row, and a repeated column summed (scipy's sum_duplicates) */
        {"csr unsorted", npz_members("csr", 3, 4, {0, 3, 3, 5}, {3, 1, 3, 2, 0}, {0.5, 1, 1.5, 4, 3})},
        {"csc", npz_members("csc", 3, 4, {0, 1, 2, 3, 4}, {2, 0, 2, 0}, {3, 1, 4, 2})},
        /* coo: npz_members puts its first array in col.npy, its second in row.npy */
        {"coo", npz_members("coo", 3, 4, {2, 3, 0, 1}, {2, 0, 2, 0}, {4, 2, 3, 1})},
    };
    for (const auto &c : cases)
        for (int deflate = 0; deflate < 2; deflate++)
            for (int z64 = 0; z64 < 2; z64++) {
                Sparse sp;
                sp.read("m.npz", zip(c.second, deflate != 0, z64 != 0));
                ASSERT_EQ(sp.r, UMAP_IO_OK) << c.first << ": " << sp.err;
                EXPECT_EQ(sp.s.rows, 3);
                EXPECT_EQ(sp.s.cols, 4);
                EXPECT_EQ(sp.s.indptr[3], 4) << c.first;
                EXPECT_TRUE(sp.canonical()) << c.first;
                EXPECT_EQ(sp.dense(), kSparseDense) << c.first << " deflate " << deflate << " zip64 " << z64;
            }
    /* the format as numpy's unicode string ('<U3') reads too */
    auto m = npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4});
    m[2].data = npy1("<U3", "()", Bytes{'c', 0, 0, 0, 's', 0, 0, 0, 'r', 0, 0, 0});
    Sparse u;
    u.read("u.npz", zip(m, false));
    ASSERT_EQ(u.r, UMAP_IO_OK) << u.err;
    EXPECT_EQ(u.dense(), kSparseDense);
}

TEST(CliIoSparse, NpzDefectsAreNamed) {
    auto good = npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4});
    struct Case {
        std::string what, want;
        std::vector<ZipMember> members;
    };
    std::vector<Case> cases;
    cases.push_back({"decreasing offsets", "m.npz: indptr.npy: offset 2 is 1 after 2",
                     npz_members("csr", 3, 4, {0, 2, 1, 4}, {1, 3, 0, 2}, {1, 2, 3, 4})});
    cases.push_back({"offsets past nnz", "indptr.npy: the offsets end at 3, not at 4",
                     npz_members("csr", 3, 4, {0, 2, 2, 3}, {1, 3, 0, 2}, {1, 2, 3, 4})});
    cases.push_back({"a column out of range", "indices.npy: entry 1 (row 0) is 4, outside [0, 4)",
                     npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 4, 0, 2}, {1, 2, 3, 4})});
    cases.push_back({"a coo row out of range", "entry 0 is at (5, 2), outside 3 x 4",
                     npz_members("coo", 3, 4, {2}, {5}, {1})});
    cases.push_back({"counts that disagree", "4 values, 4 offsets, 3 indices: they must agree",
                     npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 3, 0}, {1, 2, 3, 4})});
    cases.push_back({"offsets for other rows", "indptr.npy: 3 offsets for 3 rows (needs 4)",
                     npz_members("csr", 3, 4, {0, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4})});
    cases.push_back({"a coo shape of empty rows past what its values back",
                     "m.npz: a shape of 1073741824 rows for 1 stored values (at most 64 rows a value past 2^24)",
                     npz_members("coo", (int64_t)1 << 30, 4, {2}, {5}, {1})});
    cases.push_back({"columns past UMAP_IO_MAX_COLS", "exceeds the limits",
                     npz_members("csr", 3, (int64_t)1 << 30, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4})});
    cases.push_back({"bsr", "a 'bsr' matrix; the reader takes csr, csc and coo",
                     npz_members("bsr", 3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4})});
    auto missing = good;
    missing.erase(missing.begin());
    cases.push_back({"no indices", "no indices.npy in the archive", missing});
    auto dense = std::vector<ZipMember>{{"arr_0.npy", npy1("<f4", "(3,)", raw(iota_f(3)))}};
    cases.push_back({"np.savez of a dense array", "no format.npy in the archive", dense});
    for (const Case &c : cases) {
        Sparse sp;
        sp.read("m.npz", zip(c.members, false));
        EXPECT_NE(sp.r, UMAP_IO_OK) << c.what;
        EXPECT_TRUE(contains(sp.err, c.want.c_str())) << c.what << ": " << sp.err;
        EXPECT_EQ(sp.s.indptr, (int64_t *)NULL);
    }
    /* a flipped payload byte fails the CRC32; any cut fails; neither crashes */
    Bytes z = zip(good, false);
    Bytes flipped = z;
    flipped[120] ^= 0x40;
    Sparse f;
    f.read("m.npz", flipped);
    EXPECT_NE(f.r, UMAP_IO_OK);
    for (size_t cut = 0; cut < z.size(); cut += 7) {
        Sparse t;
        t.read("m.npz", Bytes(z.begin(), z.begin() + (long)cut));
        EXPECT_NE(t.r, UMAP_IO_OK) << "cut " << cut;
    }
    /* the dense readers send sparse files to the sparse reader */
    TempDir td;
    Mat m;
    read_m(m, td.write("m.npz", z));
    EXPECT_EQ(m.r, UMAP_IO_ERR_UNSUPPORTED);
    EXPECT_TRUE(contains(m.err, "umap_io_read_sparse")) << m.err;
}

TEST(CliIoSparse, Svmlight) {
    std::string text = "# a comment line\n"
                       "1 qid:7 2:1 4:2  # one-based, as libsvm writes\n"
                       "\n"
                       "-1\n"
                       "3 1:3 3:4\n";
    Bytes b(text.begin(), text.end());
    Sparse sp;
    sp.read("d.svm", b);
    ASSERT_EQ(sp.r, UMAP_IO_OK) << sp.err;
    EXPECT_EQ(sp.s.rows, 3);
    EXPECT_EQ(sp.s.cols, 4);
    EXPECT_EQ(sp.dense(), kSparseDense);
    /* explicitly zero-based: one column more, every index as written */
    sp.read("d.svm", b, 1);
    ASSERT_EQ(sp.r, UMAP_IO_OK) << sp.err;
    EXPECT_EQ(sp.s.cols, 5);
    EXPECT_EQ(sp.s.indices[0], 2);
    /* an index 0 makes auto zero-based; a one-based read of it is an error */
    std::string z = "0 0:1 3:2\n1 1:5\n";
    sp.read("z.svmlight", Bytes(z.begin(), z.end()));
    ASSERT_EQ(sp.r, UMAP_IO_OK) << sp.err;
    EXPECT_EQ(sp.s.cols, 4);
    EXPECT_EQ(sp.s.indices[0], 0);
    sp.read("z.svmlight", Bytes(z.begin(), z.end()), 0);
    EXPECT_TRUE(contains(sp.err, "index 0 in a one-based file")) << sp.err;
    /* a width given: wider is fine, an index past it is an error */
    sp.read("d.svm", b, -1, 10);
    ASSERT_EQ(sp.r, UMAP_IO_OK) << sp.err;
    EXPECT_EQ(sp.s.cols, 10);
    sp.read("d.svm", b, -1, 3);
    EXPECT_TRUE(contains(sp.err, "index 4 (one-based) is past the 3 features")) << sp.err;
    /* the labels, through the labels reader */
    TempDir td;
    Lab l;
    read_l(l, td.write("d.svm", b));
    ASSERT_EQ(l.r, UMAP_IO_OK) << l.err;
    ASSERT_EQ(l.l.n, 3);
    EXPECT_EQ(l.l.data[0], 1);
    EXPECT_EQ(l.l.data[1], -1);
    EXPECT_EQ(l.l.data[2], 3);
    Lab frac;
    read_l(frac, td.write("f.svm", std::string("1.5 1:2\n")));
    EXPECT_TRUE(contains(frac.err, "f.svm:1 (row 0): the label '1.5' is not an int32 integer")) << frac.err;
    Mat dense;
    read_m(dense, td.path("d.svm"));
    EXPECT_TRUE(contains(dense.err, "umap_io_read_sparse")) << dense.err;
    /* each defect named by line and row */
    const char *bad[][2] = {
        {"1 1:1\n2 3:1 2:1\n", "x.svm:2 (row 1): index 2 after 3: indices must increase within a row"},
        {"1 1:1 1:2\n", "x.svm:1 (row 0): index 1 after 1"},
        {"a 1:1\n", "x.svm:1 (row 0): the label 'a' is not a number"},
        {"1 1:1\n\n1 x:1\n", "x.svm:3 (row 1): 'x:1': the index is not an integer"},
        {"1 -1:1\n", "'-1:1': the index is not an integer"},
        {"1 1:abc\n", "'1:abc': the value is not a number"},
        {"1 7\n", "x.svm:1 (row 0): '7' is not index:value"},
        {"# only comments\n\n", "x.svm: no rows"},
        {"1 1:1\0", "x.svm: not svmlight text (a NUL byte at byte 5)"},
        {"1 16777218:1\n", "x.svm: 16777218 columns exceed the limit UMAP_IO_MAX_COLS"},
    };
    for (auto &c : bad) {
        Bytes t(c[0], c[0] + strlen(c[0]) + (strstr(c[1], "NUL") ? 1 : 0));
        sp.read("x.svm", t);
        EXPECT_NE(sp.r, UMAP_IO_OK) << c[0];
        EXPECT_TRUE(contains(sp.err, c[1])) << c[0] << " -> " << sp.err;
    }
    /* gzipped */
    Bytes gz;
    if (have_gzip() && run_filter(td, "gzip -c", b, &gz)) {
        sp.read("d.svm.gz", gz);
        ASSERT_EQ(sp.r, UMAP_IO_OK) << sp.err;
        EXPECT_EQ(sp.dense(), kSparseDense);
    }
}

/* mutated npz and svmlight files: an error that names the file, or canonical rows */
TEST(CliIoSparse, MutatedFilesNeverCrash) {
    std::vector<std::pair<std::string, Bytes>> seeds;
    seeds.push_back({"m.npz", zip(npz_members("csr", 3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1, 2, 3, 4}), false)});
    seeds.push_back({"c.npz", zip(npz_members("coo", 3, 4, {2, 3, 0, 1}, {2, 0, 2, 0}, {4, 2, 3, 1}), true, true)});
    std::string text = "1 qid:7 2:1 4:2 # c\n-1\n3 1:3 3:4\n";
    seeds.push_back({"d.svm", Bytes(text.begin(), text.end())});
    uint32_t s = 0xBEEF;
    int ok = 0, failed = 0;
    for (int it = 0; it < 3000; it++) {
        const auto &seed = seeds[it % seeds.size()];
        Bytes b = seed.second;
        s = s * 1664525u + 1013904223u;
        for (int k = 0, n_mut = 1 + (int)((s >> 16) % 3); k < n_mut && !b.empty(); k++) {
            s = s * 1664525u + 1013904223u;
            size_t at = (s >> 8) % b.size();
            s = s * 1664525u + 1013904223u;
            switch ((s >> 28) % 3) {
            case 0: b[at] ^= (unsigned char)(1u << ((s >> 4) % 8)); break;
            case 1: b[at] = (unsigned char)(s >> 12); break;
            default: b.resize(at); break;
            }
        }
        Sparse sp;
        sp.read(seed.first, b, (int)(it % 3) - 1);
        if (sp.r == UMAP_IO_OK) {
            ASSERT_TRUE(sp.canonical()) << seed.first << " mutation " << it;
            ok++;
        } else {
            ASSERT_EQ(sp.s.indptr, (int64_t *)NULL);
            ASSERT_EQ(strncmp(sp.err, seed.first.c_str(), seed.first.size()), 0) << sp.err;
            failed++;
        }
    }
    EXPECT_GT(ok, 0);
    EXPECT_GT(failed, 0);
}

/* scipy's own files (save_npz compressed and not, each format, int64
   indices; dump_svmlight_file), when python3 with scipy is here */
TEST(CliIoSparse, ScipysFilesReadAsScipyReadsThem) {
    if (system("/usr/bin/python3 -c 'import scipy.sparse, sklearn' > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "no python3 with scipy and sklearn";
    TempDir td;
    std::string dir = td.path("");
    std::string script =
        "import sys, numpy as np, scipy.sparse as sp\n"
        "from sklearn.datasets import dump_svmlight_file\n"
        "d = sys.argv[1]\n"
        "X = sp.random(40, 25, density=0.15, format='lil', random_state=3, dtype=np.float64)\n"
        "X[0, 0] = 2.5\nX = X.tocsr()\n"
        "np.save(d + 'dense.npy', X.toarray().astype(np.float32))\n"
        "sp.save_npz(d + 'c.npz', X)\n"
        "sp.save_npz(d + 'u.npz', X, compressed=False)\n"
        "sp.save_npz(d + 'csc.npz', X.tocsc())\n"
        "sp.save_npz(d + 'coo.npz', X.tocoo())\n"
        "Y = X.copy(); Y.indices = Y.indices.astype(np.int64); Y.indptr = Y.indptr.astype(np.int64)\n"
        "sp.save_npz(d + 'i64.npz', Y)\n"
        "dump_svmlight_file(X, np.arange(40) % 4, d + 'x.svm')\n";
    std::string py = td.write("make.py", script);
    ASSERT_EQ(system(("/usr/bin/python3 " + py + " " + dir).c_str()), 0);
    const char *names[] = {"c.npz", "u.npz", "csc.npz", "coo.npz", "i64.npz", "x.svm"};
    for (const char *n : names) td.path(n);
    td.path("dense.npy");
    Mat want;
    read_m(want, dir + "dense.npy");
    ASSERT_EQ(want.r, UMAP_IO_OK) << want.err;
    for (const char *n : names) {
        Sparse sp;
        sp.r = umap_io_read_sparse((dir + n).c_str(), -1, 0, &sp.s, sp.err, sizeof sp.err);
        ASSERT_EQ(sp.r, UMAP_IO_OK) << n << ": " << sp.err;
        EXPECT_TRUE(sp.canonical()) << n;
        EXPECT_EQ(sp.dense(), std::vector<float>(want.m.data, want.m.data + want.m.rows * want.m.cols)) << n;
    }
}

// ---------------------------------------------------------------- writers

TEST(CliIoWrite, RoundTrips) {
    TempDir td;
    std::vector<float> f = iota_f(10);
    f[3] = 1.0f / 3.0f;
    f[4] = -1e-30f;
    std::vector<int32_t> labels = {1, 0, 4, 2, 3};
    char err[512];
    const char *names[] = {"o.npy", "o.csv", "o.f32"};
    for (int k = 0; k < 3; k++) {
        for (int cols = 1; cols <= 5; cols++) {
            if (10 % cols) continue;
            std::string p = td.path(std::to_string(cols) + names[k]);
            ASSERT_EQ(umap_io_write_matrix(p.c_str(), f.data(), 10 / cols, cols, NULL, err, sizeof err), UMAP_IO_OK)
                << err;
            Mat m;
            read_m(m, p, cols);
            ASSERT_EQ(m.r, UMAP_IO_OK) << m.err;
            EXPECT_EQ(m.m.rows, 10 / cols);
            EXPECT_EQ(m.m.cols, cols);
            for (int i = 0; i < 10; i++) EXPECT_EQ(m.m.data[i], f[i]) << names[k] << " " << i;
        }
    }
    // csv header names and the label column
    std::string p = td.path("xy.csv");
    ASSERT_EQ(umap_io_write_matrix(p.c_str(), f.data(), 5, 2, labels.data(), err, sizeof err), UMAP_IO_OK) << err;
    Bytes text = read_all(p);
    std::string s(text.begin(), text.end());
    EXPECT_EQ(s.substr(0, s.find('\n')), "x,y,label");
    Mat m;
    read_m(m, p);
    ASSERT_EQ(m.r, UMAP_IO_OK) << m.err;
    EXPECT_EQ(m.m.cols, 3);
    EXPECT_EQ(m.m.data[3 * 2 + 2], 4.0f);
    // int32: npy and csv; read back as labels when one column, as floats otherwise
    std::vector<int32_t> ix = {5, -7, 123456789, 0, 1, 2};
    std::string pn = td.path("i.npy"), pc = td.path("i.csv"), p1 = td.path("one.npy"), pr = td.path("i.i32");
    ASSERT_EQ(umap_io_write_i32(pn.c_str(), ix.data(), 2, 3, err, sizeof err), UMAP_IO_OK) << err;
    ASSERT_EQ(umap_io_write_i32(pc.c_str(), ix.data(), 3, 2, err, sizeof err), UMAP_IO_OK) << err;
    ASSERT_EQ(umap_io_write_i32(p1.c_str(), ix.data(), 6, 1, err, sizeof err), UMAP_IO_OK) << err;
    ASSERT_EQ(umap_io_write_i32(pr.c_str(), ix.data(), 6, 1, err, sizeof err), UMAP_IO_OK) << err;
    EXPECT_EQ(read_all(pr), raw(ix));
    Mat mn, mc;
    read_m(mn, pn);
    read_m(mc, pc);
    ASSERT_EQ(mn.r, UMAP_IO_OK) << mn.err;
    ASSERT_EQ(mc.r, UMAP_IO_OK) << mc.err;
    EXPECT_EQ(mn.m.cols, 3);
    EXPECT_EQ(mc.m.cols, 2);
    EXPECT_EQ(mn.m.data[2], 123456792.0f);  // nearest float
    EXPECT_EQ(mc.m.data[1], -7.0f);
    Lab l;
    read_l(l, p1);
    ASSERT_EQ(l.r, UMAP_IO_OK) << l.err;
    for (int i = 0; i < 6; i++) EXPECT_EQ(l.l.data[i], ix[i]);
    // errors: extension, labels in npy, bad dims, unwritable path
    EXPECT_EQ(umap_io_write_matrix(td.path("o.txt").c_str(), f.data(), 5, 2, NULL, err, sizeof err),
              UMAP_IO_ERR_UNSUPPORTED);
    EXPECT_TRUE(contains(err, "o.txt: unknown output extension")) << err;
    EXPECT_EQ(umap_io_write_matrix(td.path("l.npy").c_str(), f.data(), 5, 2, labels.data(), err, sizeof err),
              UMAP_IO_ERR_UNSUPPORTED);
    EXPECT_EQ(umap_io_write_matrix(td.path("z.npy").c_str(), f.data(), 0, 2, NULL, err, sizeof err),
              UMAP_IO_ERR_ARGUMENT);
    EXPECT_EQ(umap_io_write_matrix("/nonexistent-dir/x.npy", f.data(), 5, 2, NULL, err, sizeof err), UMAP_IO_ERR_OPEN);
    EXPECT_TRUE(contains(err, "/nonexistent-dir/x.npy: cannot create")) << err;
}

TEST(CliIoWrite, NpyHeaderIsAligned) {
    TempDir td;
    std::vector<float> f = iota_f(6);
    std::string p = td.path("a.npy");
    char err[256];
    ASSERT_EQ(umap_io_write_matrix(p.c_str(), f.data(), 3, 2, NULL, err, sizeof err), UMAP_IO_OK);
    Bytes b = read_all(p);
    size_t hlen = b[8] | (b[9] << 8);
    EXPECT_EQ((10 + hlen) % 64, 0u);
    EXPECT_EQ(b[10 + hlen - 1], '\n');
    EXPECT_EQ(b.size(), 10 + hlen + 24);
}

// ---------------------------------------------------------------- progress

static std::string progress_run(umap_io_progress_mode mode) {
    FILE *f = tmpfile();
    umap_io_progress_state s;
    memset(&s, 0, sizeof s);
    s.mode = mode;
    s.out = f;
    umap_progress p;
    memset(&p, 0, sizeof p);
    p.phase = "knn";
    umap_io_progress(&p, &s);
    p.phase = "graph";
    p.elapsed_s = 0.5;
    umap_io_progress(&p, &s);
    p.phase = "train";
    p.n_epochs = 100;
    for (int e = 1; e <= 100; e++) {
        p.epoch = e;
        p.loss = 1.0f / e;
        p.elapsed_s = 1.0 + e * 0.3;
        umap_io_progress(&p, &s);
    }
    p.phase = "embed";
    p.epoch = p.n_epochs = 0;
    umap_io_progress(&p, &s);
    /* the other counted phases: 20 reports each of refine epochs (10 s),
       distill steps (14 s) */
    auto counted = [&](const char *phase, int total, float loss, double t0, double span) {
        for (int e = 0; e <= total; e += total / 20) {
            p.phase = phase;
            p.epoch = e;
            p.n_epochs = total;
            p.loss = loss;
            p.elapsed_s = t0 + span * e / total;
            umap_io_progress(&p, &s);
        }
    };
    counted("refine", 200, 0.0f, 31.0, 10.0);
    counted("distill", 700, 0.5f, 41.0, 14.0);
    umap_io_progress_end(&s);
    std::string out;
    rewind(f);
    int c;
    while ((c = fgetc(f)) != EOF) out += (char)c;
    fclose(f);
    return out;
}

TEST(CliIoProgress, Modes) {
    EXPECT_EQ(progress_run(UMAP_IO_PROGRESS_QUIET), "");
    std::string lines = progress_run(UMAP_IO_PROGRESS_LINES);
    int n = 0;
    for (size_t i = 0; i < lines.size(); i++) n += lines[i] == '\n';
    EXPECT_GE(n, 14);  // knn, graph, ~every 10 % of 30 s of training, embed, refine and distill (10 s each)
    EXPECT_LE(n, 30);
    EXPECT_TRUE(lines.find("umap: knn, 0.0 s elapsed\n") == 0) << lines;
    EXPECT_NE(lines.find("umap: train epoch 100/100 (100%) loss 0.0100, 31.0 s elapsed\n"), std::string::npos) << lines;
    EXPECT_NE(lines.find("umap: refine epoch 0/200 (0%), 31.0 s elapsed\n"), std::string::npos) << lines;
    EXPECT_NE(lines.find("umap: refine epoch 200/200 (100%), 41.0 s elapsed\n"), std::string::npos) << lines;
    EXPECT_NE(lines.find("umap: distill step 700/700 (100%) loss 0.5000, 55.0 s elapsed\n"), std::string::npos) << lines;
    EXPECT_EQ(lines.find('\r'), std::string::npos);
    std::string bar = progress_run(UMAP_IO_PROGRESS_BAR);
    EXPECT_NE(bar.find("\r[#########           ]  45% train epoch 45/100 loss 0.0222, 14.5 s elapsed"), std::string::npos)
        << bar;
    EXPECT_NE(bar.find("\r[##########          ]  50% refine epoch 100/200, 36.0 s elapsed"), std::string::npos);
    EXPECT_EQ(bar[bar.size() - 1], '\n');
}

// ---------------------------------------------------------------- fuzz

TEST(CliIoFuzz, MutatedInputsNeverCrash) {
    std::vector<std::pair<std::string, Bytes> > seeds;
    seeds.push_back(std::make_pair(std::string("f.npy"),
                                   npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw(iota_f(12)))));
    seeds.push_back(std::make_pair(std::string("l.npy"),
                                   npy("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }",
                                       raw(std::vector<int64_t>{1, 2, 3, 4}))));
    std::string csv = "a,b,c\n1,2,3\n4.5,-6,7e3\n8,9,10\n";
    seeds.push_back(std::make_pair(std::string("f.csv"), Bytes(csv.begin(), csv.end())));
    seeds.push_back(std::make_pair(std::string("f-idx3-ubyte"), idx(0x08, {2, 2, 3}, Bytes(12, 7))));
    // a gzip stream with a dynamic block (zlib's output for this text, made once with gzip -9 -n)
    {
        std::string text;
        for (int i = 0; i < 200; i++) text += std::to_string(i * 37 % 101) + (i % 10 ? "," : "\n");
        Bytes gz;
        TempDir td;
        if (have_gzip() && run_filter(td, "gzip -c -9 -n", Bytes(text.begin(), text.end()), &gz))
            seeds.push_back(std::make_pair(std::string("f.csv.gz"), gz));
        Bytes stored = {0x01, 5, 0, 0xFA, 0xFF, '1', ',', '2', '\n', '3'};
        seeds.push_back(std::make_pair(std::string("s.gz"), gz_wrap(stored, Bytes{'1', ',', '2', '\n', '3'})));
    }
    uint32_t s = 0xC0FFEE;
    int ok = 0, failed = 0;
    for (int it = 0; it < 4000; it++) {
        const std::pair<std::string, Bytes> &seed = seeds[it % seeds.size()];
        Bytes b = seed.second;
        s = s * 1664525u + 1013904223u;
        int n_mut = 1 + (int)((s >> 16) % 4);
        for (int k = 0; k < n_mut && !b.empty(); k++) {
            s = s * 1664525u + 1013904223u;
            size_t at = (s >> 8) % b.size();
            s = s * 1664525u + 1013904223u;
            switch ((s >> 28) % 4) {
            case 0: b[at] ^= (unsigned char)(1u << ((s >> 4) % 8)); break;
            case 1: b[at] = (unsigned char)(s >> 12); break;
            case 2: b.resize(at); break;
            default: b.insert(b.begin() + (long)at, (unsigned char)(s >> 12)); break;
            }
        }
        char err[256];
        umap_io_matrix m;
        umap_io_labels l;
        umap_io_result r = umap_io_read_matrix_memory(seed.first.c_str(), b.data(), b.size(), 4, &m, err, sizeof err);
        if (r == UMAP_IO_OK) {
            ASSERT_TRUE(m.data != NULL);
            ASSERT_GT(m.rows, 0);
            ASSERT_GT(m.cols, 0);
            volatile float sink = 0;
            for (int64_t i = 0; i < m.rows * m.cols; i++) sink = sink + m.data[i];  // touches every element
            (void)sink;
            ok++;
        } else {
            ASSERT_EQ(m.data, (float *)NULL);
            ASSERT_TRUE(strncmp(err, seed.first.c_str(), seed.first.size()) == 0) << err;
            failed++;
        }
        umap_io_matrix_free(&m);
        r = umap_io_read_labels_memory(seed.first.c_str(), b.data(), b.size(), &l, err, sizeof err);
        if (r == UMAP_IO_OK) {
            ASSERT_GT(l.n, 0);
        }
        umap_io_labels_free(&l);
    }
    EXPECT_GT(ok, 0);
    EXPECT_GT(failed, 0);
}
