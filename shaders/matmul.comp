#version 450
// matmul.comp - C[b] = op(A[b]) op(B[b]) for every batch b, op = transpose
// or not, all row-major. Register-blocked: a workgroup of 16 x 16 threads
// computes a (16 R) x (16 R) tile of C, each thread R x R outputs held in
// registers (rows R ty + i, columns R tx + j: with R = 4 a thread reads its
// 4 rows and 4 columns of each k as one vec4 each, 2 shared loads per 16
// multiply-adds), with K staged through shared memory 16 at a time. R is a specialisation constant: umap_vk.h builds R = 4 for products
// with enough 64 x 64 tiles to fill the device and R = 1 (plain 16 x 16
// tiles, 16 times as many workgroups) for the small ones.
// Tiles are loaded along the operand's contiguous axis, whichever it is.
layout(local_size_x = 16, local_size_y = 16) in;
layout(constant_id = 0) const uint R = 4u;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Params {
    uint M, N, K;
    uint ta, tb;          // 1: the operand is stored transposed
    uint a_base, b_base;  // element offsets of A and B in src
    uint a_step, b_step;  // per batch (0: shared by every batch)
    uint c_base;          // element offset of C in dst
} pc;

const uint T = 16u * R;   // the tile's side
// As[k][m / 4][m % 4] and Bs[k][n / 4][n % 4], a vec4 of padding per k so
// that the tile loads' stores land on distinct banks
shared vec4 As[16][T / 4u + 1u];
shared vec4 Bs[16][T / 4u + 1u];

void main() {
    const uint batch = gl_WorkGroupID.z;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, tid = ty * 16u + tx;
    const uint row0 = gl_WorkGroupID.y * T, col0 = gl_WorkGroupID.x * T;
    const uint a0 = pc.a_base + batch * pc.a_step, b0 = pc.b_base + batch * pc.b_step;
    float acc[R][R];
    for (uint i = 0u; i < R; i++)
        for (uint j = 0u; j < R; j++) acc[i][j] = 0.0;
    for (uint k0 = 0u; k0 < pc.K; k0 += 16u) {
        // 16 T elements of each operand, 256 threads: R loads each
        for (uint q = 0u; q < R; q++) {
            const uint e = tid + 256u * q;
            uint m, k;
            if (pc.ta != 0u) { m = e % T; k = e / T; } // A stored K x M: contiguous along m
            else { k = e % 16u; m = e / 16u; }          // A stored M x K: contiguous along k
            const uint gm = row0 + m, gk = k0 + k;
            As[k][m >> 2u][m & 3u] = (gm < pc.M && gk < pc.K) ? src[a0 + (pc.ta != 0u ? gk * pc.M + gm : gm * pc.K + gk)] : 0.0;
            uint n, kb;
            if (pc.tb != 0u) { kb = e % 16u; n = e / 16u; } // B stored N x K: contiguous along k
            else { n = e % T; kb = e / T; }                 // B stored K x N: contiguous along n
            const uint gn = col0 + n, gkb = k0 + kb;
            Bs[kb][n >> 2u][n & 3u] = (gn < pc.N && gkb < pc.K) ? src[b0 + (pc.tb != 0u ? gn * pc.K + gkb : gkb * pc.N + gn)] : 0.0;
        }
        barrier();
        for (uint k = 0u; k < 16u; k++) {
            float a[R], b[R];
            if (R == 4u) {
                const vec4 av = As[k][ty], bv = Bs[k][tx];
                for (uint i = 0u; i < R; i++) a[i] = av[i];
                for (uint j = 0u; j < R; j++) b[j] = bv[j];
            } else {
                for (uint i = 0u; i < R; i++) a[i] = As[k][(R * ty + i) >> 2u][(R * ty + i) & 3u];
                for (uint j = 0u; j < R; j++) b[j] = Bs[k][(R * tx + j) >> 2u][(R * tx + j) & 3u];
            }
            for (uint i = 0u; i < R; i++)
                for (uint j = 0u; j < R; j++) acc[i][j] += a[i] * b[j];
        }
        barrier();
    }
    const uint c0 = pc.c_base + batch * pc.M * pc.N;
    for (uint i = 0u; i < R; i++) {
        const uint row = row0 + R * ty + i;
        if (row >= pc.M) break;
        for (uint j = 0u; j < R; j++) {
            const uint col = col0 + R * tx + j;
            if (col < pc.N) dst[c0 + row * pc.N + col] = acc[i][j];
        }
    }
}
