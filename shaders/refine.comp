#version 450
// refine.comp - one epoch of umap_fit's refinement (classic UMAP on the
// embedding), an invocation per row: the row's new position from the old
// positions of every row, so the result does not depend on the order the
// invocations run in. The arithmetic is umap.h's umap__refine_row: the
// same hash draws (64-bit splitmix, done here in 32-bit halves so that no
// device needs shaderInt64), the same x^b polynomials, the same clipping.
//
// Slots offset[i] .. offset[i + 1] are row i's edges (both directions);
// chance[s] is the chance, out of 2^24, that this epoch uses slot s.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Old { float y_old[]; };
layout(std430, binding = 1) writeonly buffer New { float y_new[]; };
layout(std430, binding = 2) readonly buffer Off { uint offset[]; };
layout(std430, binding = 3) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = 4) readonly buffer Act { uint chance[]; };

layout(push_constant) uniform Params {
    uvec2 key;              // the epoch's hash key (low, high words)
    uint n, c, neg;         // rows, components (<= MAX_C), negatives per edge
    float a, b, gamma;
    float attraction;       // the weight of an edge's pull against its negatives' push
    float lr;
} pc;

const uint MAX_C = 8u;

// 64-bit words as (low, high)
uvec2 add64(uvec2 x, uvec2 y) {
    uint carry;
    uint lo = uaddCarry(x.x, y.x, carry);
    return uvec2(lo, x.y + y.y + carry);
}

uvec2 mul64(uvec2 x, uvec2 y) { // mod 2^64
    uint hi, lo;
    umulExtended(x.x, y.x, hi, lo);
    return uvec2(lo, hi + x.x * y.y + x.y * y.x);
}

uvec2 xor_shr(uvec2 z, uint s) { // z ^ (z >> s), 0 < s < 32
    return z ^ uvec2((z.x >> s) | (z.y << (32u - s)), z.y >> s);
}

uvec2 mix64(uvec2 z) { // splitmix64's finaliser, as umap__mix64
    z = add64(z, uvec2(0x7f4a7c15u, 0x9e3779b9u));
    z = mul64(xor_shr(z, 30u), uvec2(0x1ce4e5b9u, 0xbf58476du));
    z = mul64(xor_shr(z, 27u), uvec2(0x133111ebu, 0x94d049bbu));
    return xor_shr(z, 31u);
}

// x^b for x > 0, umap__pow_pos
float pow_pos(float x, float b) {
    uint u = floatBitsToUint(x);
    float e = float(int(u >> 23) - 127);
    float mant = uintBitsToFloat((u & 0x7fffffu) | 0x3f800000u);
    bool hi = mant > 1.41421356;
    float m = (hi ? 0.5 * mant : mant) - 1.0;
    e += hi ? 1.0 : 0.0;
    float y = b * (e + m * (1.44270712 + m * (-0.72109287 + m * (0.47974061 + m * (-0.36821882 +
                                                          m * (0.31795653 + m * -0.19860788))))));
    y = y > 126.0 ? 126.0 : y < -126.0 ? -126.0 : y;
    int k = int(y);
    k -= float(k) > y ? 1 : 0;
    float f = y - float(k);
    float p = 0.99999977 + f * (0.69315678 + f * (0.24013169 + f * (0.05587656 + f * (0.00894058 + f * 0.00189438))));
    return p * uintBitsToFloat(uint(k + 127) << 23);
}

float clip4(float v) {
    v = v < 4.0 ? v : 4.0;
    return v > -4.0 ? v : -4.0;
}

void main() {
    const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (i >= pc.n) return;
    const uint C = pc.c;
    const float two_ab = 2.0 * pc.a * pc.b, two_gb = 2.0 * pc.gamma * pc.b;
    float yi[MAX_C], step[MAX_C];
    for (uint c = 0u; c < C; c++) {
        yi[c] = y_old[i * C + c];
        step[c] = 0.0;
    }
    for (uint s = offset[i]; s < offset[i + 1u]; s++) {
        const uvec2 h = mix64(pc.key ^ uvec2(s, 0u));
        if ((h.y >> 8) >= chance[s]) continue; // this epoch skips the edge
        const uint j = nbr[s];
        float d2 = 0.0;
        for (uint c = 0u; c < C; c++) {
            const float t = yi[c] - y_old[j * C + c];
            d2 += t * t;
        }
        if (d2 > 0.0) { // attraction: d/dy log(1 + a d^2b)
            const float pb = pow_pos(d2, pc.b);
            const float coef = -two_ab * pb / (d2 * (pc.a * pb + 1.0));
            for (uint c = 0u; c < C; c++) step[c] += pc.attraction * clip4(coef * (yi[c] - y_old[j * C + c]));
        }
        for (uint q = 0u; q < pc.neg; q++) { // repulsion from uniformly drawn rows
            uint k, lo;
            umulExtended(mix64(add64(h, uvec2(q + 1u, 0u))).y, pc.n, k, lo);
            if (k == i) continue;
            d2 = 0.0;
            for (uint c = 0u; c < C; c++) {
                const float t = yi[c] - y_old[k * C + c];
                d2 += t * t;
            }
            if (d2 > 0.0) {
                const float coef = two_gb / ((0.001 + d2) * (pc.a * pow_pos(d2, pc.b) + 1.0));
                for (uint c = 0u; c < C; c++) step[c] += clip4(coef * (yi[c] - y_old[k * C + c]));
            } else { // coincident rows: pushed apart by the clip
                for (uint c = 0u; c < C; c++) step[c] += 4.0;
            }
        }
    }
    for (uint c = 0u; c < C; c++) y_new[i * C + c] = yi[c] + pc.lr * step[c];
}
