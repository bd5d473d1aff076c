#version 450
// adam.comp - one Adam step over a program's trained params, in the
// program's own device memory (umap_program_train_*), so a training loop
// never moves its weights. Mode 0 computes the global-norm clip scale (ONE
// workgroup, a fixed summation order); mode 1 updates every weight, a
// thread each. The step's values sit in a header the host writes before
// each submission, so a recorded command buffer replays with new values.
//
// Header (32-bit words from hdr; floats stored as their bits):
//   [0] apply (0: no step pending, every thread returns)
//   [1] lr  [2] beta1  [3] beta2  [4] eps  [5] weight decay
//   [6] 1 - beta1^t  [7] 1 - beta2^t  [8] max norm (0: no clipping)
//   [9] the clip scale (written by mode 0)  [10] params  [11] weights in all
//   [12] first moment base  [13] second moment base
//   then 4 words per param: weights, gradient, first index, count
// The update is umap_adam_update's: AdamW-style decay, bias-corrected.
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Mem { float mem[]; };

layout(push_constant) uniform Params { uint mode, hdr; } pc;

shared float partial[256];

uint word(uint i) { return floatBitsToUint(mem[i]); }

void main() {
    const uint h = pc.hdr;
    if (word(h) == 0u) return; // uniform across the dispatch
    const uint n = word(h + 10u);
    if (pc.mode == 0u) {
        const uint t = gl_LocalInvocationID.x;
        float s = 0.0;
        for (uint p = 0u; p < n; p++) {
            const uint g = word(h + 15u + 4u * p), count = word(h + 17u + 4u * p);
            for (uint i = t; i < count; i += 256u) {
                const float x = mem[g + i];
                s += x * x;
            }
        }
        partial[t] = s;
        barrier();
        for (uint w = 128u; w > 0u; w >>= 1) {
            if (t < w) partial[t] += partial[t + w];
            barrier();
        }
        if (t == 0u) {
            const float norm = sqrt(partial[0]), max_norm = mem[h + 8u];
            mem[h + 9u] = norm != norm ? 0.0 : norm > max_norm ? max_norm / norm : 1.0;
        }
        return;
    }
    const uint e = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (e >= word(h + 11u)) return;
    uint p = 0u;
    while (p + 1u < n && e >= word(h + 16u + 4u * (p + 1u))) p++;
    const uint w = word(h + 14u + 4u * p) + (e - word(h + 16u + 4u * p));
    const uint g = word(h + 15u + 4u * p) + (e - word(h + 16u + 4u * p));
    const float lr = mem[h + 1u], b1 = mem[h + 2u], b2 = mem[h + 3u], eps = mem[h + 4u], wd = mem[h + 5u];
    const float c1 = mem[h + 6u], c2 = mem[h + 7u];
    const float scale = mem[h + 8u] > 0.0 ? mem[h + 9u] : 1.0;
    const float grad = mem[g] * scale;
    const uint mi = word(h + 12u) + e, vi = word(h + 13u) + e;
    const float m = b1 * mem[mi] + (1.0 - b1) * grad;
    const float v = b2 * mem[vi] + (1.0 - b2) * grad * grad;
    mem[mi] = m;
    mem[vi] = v;
    mem[w] -= lr * ((m / c1) / (sqrt(v / c2) + eps) + wd * mem[w]);
}
