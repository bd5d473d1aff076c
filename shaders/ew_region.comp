#version 450
// ew_region.comp - a fused elementwise region as ONE dispatch: a small
// interpreter that reads the region's loads and instruction list from a
// buffer, so any fused chain runs on this one precompiled kernel.
//
// Program layout (32-bit words from prog_base, written by umap_vk.h):
//   [0] numel  [1..4] region shape, padded to rank 4  [5] n_loads  [6] n_ins
//   then n_loads loads of 8 words: kind, reg, imm (float bits), base, stride[4]
//   then n_ins instructions of 7 words: op, dst, a, b, c, f0, f1 (float bits)
// A load reads src[base + sum idx_q * stride_q] (kind 0 contiguous: base + e;
// 1 scalar: src[base]; 2 strided; 3 the immediate). Registers 0..31 hold
// instruction results, 32..63 the loads. The last instruction writes dst[e].
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Prog { uint prog[]; };
layout(std430, binding = 1) readonly buffer Src { float src[]; };
layout(std430, binding = 2) writeonly buffer Dst { float dst[]; };

// where the program starts in Prog and the output in Dst (the resident modes
// bind one buffer three times; eager mode binds three buffers at 0)
layout(push_constant) uniform Params { uint prog_base, dst_base; } pc;

// op codes: OP_<ID> is umap_op's value (OP_COPY: FILL's copy), generated from
// umap.h's UMAP_OP_LIST by `make shaders` (scripts/spirv_embed.c --ew-ops)
#include "ew_ops.glsl"

bool is_nan(float x) { return x != x; }

float log1p_(float x) {
    float u = 1.0 + x;
    return u == 1.0 ? x : log(u) * (x / (u - 1.0));
}

float tanh_(float x) {
    float e = exp(-2.0 * abs(x));
    float t = (1.0 - e) / (1.0 + e);
    return x < 0.0 ? -t : t;
}

float pow_(float a, float b) {
    if (b == 0.0) return 1.0;
    if (a == 0.0) return b > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    if (a < 0.0) {
        if (floor(b) != b) return uintBitsToFloat(0x7fc00000u);
        float m = pow(-a, b);
        return mod(b, 2.0) == 1.0 || mod(b, 2.0) == -1.0 ? -m : m;
    }
    return pow(a, b);
}

float apply(uint op, float a, float b, float c, float f0, float f1) {
    switch (op) {
    case OP_COPY: return a;
    case OP_NEG: return -a;
    case OP_EXP: return exp(a);
    case OP_LOG: return log(a);
    case OP_LOG1P: return log1p_(a);
    case OP_SQRT: return sqrt(a);
    case OP_RECIP: return 1.0 / a;
    case OP_ABS: return abs(a);
    case OP_RELU: return (a > 0.0 || is_nan(a)) ? a : 0.0;
    case OP_SIGMOID: { float e = exp(-abs(a)); return (a >= 0.0 ? 1.0 : e) / (1.0 + e); }
    case OP_TANH: return tanh_(a);
    case OP_SQUARE: return a * a;
    case OP_SIGN: return (a == 0.0 || is_nan(a)) ? a : (a > 0.0 ? 1.0 : -1.0);
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_POW: return pow_(a, b);
    case OP_MAX: return (is_nan(a) || a >= b) ? a : b;
    case OP_MIN: return (is_nan(a) || a <= b) ? a : b;
    case OP_LT: return a < b ? 1.0 : 0.0;
    case OP_LE: return a <= b ? 1.0 : 0.0;
    case OP_GT: return a > b ? 1.0 : 0.0;
    case OP_GE: return a >= b ? 1.0 : 0.0;
    case OP_EQ: return a == b ? 1.0 : 0.0;
    case OP_NE: return a != b ? 1.0 : 0.0;
    case OP_SELECT: return a != 0.0 ? b : c;
    case OP_CLAMP: { float t = a < f0 ? f0 : a; return t > f1 ? f1 : t; }
    }
    return 0.0;
}

void main() {
    const uint P = pc.prog_base;
    const uint numel = prog[P];
    const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (e >= numel) return;
    uint idx[4];
    uint rem = e;
    for (int q = 3; q >= 0; q--) {
        const uint d = prog[P + 1u + uint(q)];
        idx[q] = rem % d;
        rem /= d;
    }
    float reg[64];
    const uint n_loads = prog[P + 5u], n_ins = prog[P + 6u];
    uint at = P + 7u;
    for (uint l = 0u; l < n_loads; l++, at += 8u) {
        const uint kind = prog[at], r = prog[at + 1u], base = prog[at + 3u];
        float v;
        if (kind == 0u) v = src[base + e];
        else if (kind == 1u) v = src[base];
        else if (kind == 3u) v = uintBitsToFloat(prog[at + 2u]);
        else {
            uint off = base;
            for (int q = 0; q < 4; q++) off += idx[q] * prog[at + 4u + uint(q)];
            v = src[off];
        }
        reg[r] = v;
    }
    float result = 0.0;
    for (uint i = 0u; i < n_ins; i++, at += 7u) {
        result = apply(prog[at], reg[prog[at + 2u]], reg[prog[at + 3u]], reg[prog[at + 4u]],
                       uintBitsToFloat(prog[at + 5u]), uintBitsToFloat(prog[at + 6u]));
        reg[prog[at + 1u]] = result;
    }
    dst[pc.dst_base + e] = result;
}
