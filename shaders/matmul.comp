#version 450
// matmul.comp - C[b] = op(A[b]) op(B[b]) for every batch b, op = transpose
// or not, all row-major; 16 x 16 output tiles, K staged through shared
// memory 16 at a time. A and B are windows of one source buffer.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };

layout(push_constant) uniform Params {
    uint M, N, K;
    uint ta, tb;          // 1: the operand is stored transposed
    uint a_base, b_base;  // element offsets of A and B in src
    uint a_step, b_step;  // per batch (0: shared by every batch)
    uint c_base;          // element offset of C in dst
} pc;

shared float As[16][17];
shared float Bs[16][17];

void main() {
    const uint batch = gl_WorkGroupID.z;
    const uint row = gl_WorkGroupID.y * 16u + gl_LocalInvocationID.y;
    const uint col = gl_WorkGroupID.x * 16u + gl_LocalInvocationID.x;
    const uint ly = gl_LocalInvocationID.y, lx = gl_LocalInvocationID.x;
    const uint a0 = pc.a_base + batch * pc.a_step, b0 = pc.b_base + batch * pc.b_step;
    float acc = 0.0;
    for (uint k0 = 0u; k0 < pc.K; k0 += 16u) {
        // A tile: rows of this group, columns k0 .. k0+15
        const uint ar = gl_WorkGroupID.y * 16u + ly, ak = k0 + lx;
        float av = 0.0;
        if (ar < pc.M && ak < pc.K) av = src[a0 + (pc.ta != 0u ? ak * pc.M + ar : ar * pc.K + ak)];
        As[ly][lx] = av;
        // B tile: rows k0 .. k0+15, columns of this group
        const uint bk = k0 + ly, bc = gl_WorkGroupID.x * 16u + lx;
        float bv = 0.0;
        if (bk < pc.K && bc < pc.N) bv = src[b0 + (pc.tb != 0u ? bc * pc.K + bk : bk * pc.N + bc)];
        Bs[ly][lx] = bv;
        barrier();
        for (uint k = 0u; k < 16u; k++) acc += As[ly][k] * Bs[k][lx];
        barrier();
    }
    if (row < pc.M && col < pc.N) dst[pc.c_base + batch * pc.M * pc.N + row * pc.N + col] = acc;
}
