/* spirv_embed.c - writes compiled SPIR-V modules into umap_vk.h as uint32_t
   arrays, between its generated markers, so users need no shader compiler.

   Build:  cc -O2 -I. -DUMAP_NO_BLAS -DUMAP_NO_THREADS tools/spirv_embed.c -o build/spirv_embed -lm
           (umap.h for umap_output: the header is replaced whole or not at all,
           through a temporary no planted file or symlink can redirect)
   Usage:  spirv_embed [--check] HEADER NAME=FILE.spv [NAME=FILE.spv ...]

   Everything between the line holding ">>spirv generated" and the line
   holding "<<spirv generated" in HEADER is replaced by one array per module,
   `static const uint32_t umap_vk__spv_NAME[] = {...};`, in the order given.
   With --check nothing is written: the exit status is 1 when HEADER's
   arrays differ from the modules (CI runs this on freshly compiled shaders).
   `make shaders` compiles shaders/ with glslc, checks each module with
   spirv-val, and runs this tool. Exit status: 0 ok, 1 differs or failed. */
#define UMAP_IMPLEMENTATION
#include "umap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char *)malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = 0;
            *size = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

/* appends to a growing string; exits on OOM (a build tool) */
static void put(char **s, size_t *len, size_t *cap, const char *text, size_t n) {
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *s = (char *)realloc(*s, *cap);
        if (!*s) {
            fprintf(stderr, "spirv_embed: out of memory\n");
            exit(1);
        }
    }
    memcpy(*s + *len, text, n);
    *len += n;
    (*s)[*len] = 0;
}

int main(int argc, char **argv) {
    int check = 0, a = 1, i;
    size_t hsize = 0, len = 0, cap = 0;
    char *header, *out = NULL, *begin, *end;
    const char *path;
    if (a < argc && !strcmp(argv[a], "--check")) check = 1, a++;
    if (argc - a < 2) {
        fprintf(stderr, "usage: spirv_embed [--check] HEADER NAME=FILE.spv ...\n");
        return 1;
    }
    path = argv[a++];
    if (!(header = read_all(path, &hsize))) {
        fprintf(stderr, "spirv_embed: cannot read %s\n", path);
        return 1;
    }
    begin = strstr(header, ">>spirv generated");
    end = begin ? strstr(begin, "<<spirv generated") : NULL;
    if (!begin || !end) {
        fprintf(stderr, "spirv_embed: %s has no '>>spirv generated' ... '<<spirv generated' markers\n", path);
        return 1;
    }
    begin = strchr(begin, '\n');   /* keep the marker line */
    while (end > begin && end[-1] != '\n') end--; /* keep the end marker line */
    if (!begin) return 1;
    begin++;
    put(&out, &len, &cap, header, (size_t)(begin - header));
    for (i = a; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t size = 0, w, nw;
        unsigned char *spv;
        char line[160];
        if (!eq || eq == argv[i]) {
            fprintf(stderr, "spirv_embed: '%s' is not NAME=FILE.spv\n", argv[i]);
            return 1;
        }
        if (!(spv = (unsigned char *)read_all(eq + 1, &size)) || size == 0 || size % 4 != 0 ||
            !(spv[0] == 0x03 && spv[1] == 0x02 && spv[2] == 0x23 && spv[3] == 0x07)) {
            fprintf(stderr, "spirv_embed: %s is not a little-endian SPIR-V module\n", eq + 1);
            return 1;
        }
        nw = size / 4;
        snprintf(line, sizeof line, "static const uint32_t umap_vk__spv_%.*s[%lu] = {\n", (int)(eq - argv[i]),
                 argv[i], (unsigned long)nw);
        put(&out, &len, &cap, line, strlen(line));
        for (w = 0; w < nw; w++) {
            unsigned long v = (unsigned long)spv[4 * w] | (unsigned long)spv[4 * w + 1] << 8 |
                              (unsigned long)spv[4 * w + 2] << 16 | (unsigned long)spv[4 * w + 3] << 24;
            snprintf(line, sizeof line, "%s0x%08lxu,%s", w % 8 == 0 ? "    " : " ", v,
                     w % 8 == 7 || w + 1 == nw ? "\n" : "");
            put(&out, &len, &cap, line, strlen(line));
        }
        put(&out, &len, &cap, "};\n", 3);
        free(spv);
    }
    put(&out, &len, &cap, end, hsize - (size_t)(end - header));
    if (check) {
        if (len != hsize || memcmp(out, header, len) != 0) {
            fprintf(stderr, "spirv_embed: the SPIR-V arrays in %s differ from shaders/ (run `make shaders`)\n", path);
            return 1;
        }
        printf("spirv_embed: %s matches its %d shader module(s)\n", path, argc - a);
        return 0;
    }
    if (len != hsize || memcmp(out, header, len) != 0) {
        umap_output o;
        if (umap_output_open(&o, path) != UMAP_OK) {
            fprintf(stderr, "spirv_embed: %s\n", o.error);
            return 1;
        }
        fwrite(out, 1, len, o.file);
        if (umap_output_commit(&o) != UMAP_OK) { /* a short write is the stream's error: commit reports it */
            fprintf(stderr, "spirv_embed: %s\n", o.error);
            return 1;
        }
        printf("spirv_embed: wrote %d module(s) into %s\n", argc - a, path);
    } else {
        printf("spirv_embed: %s already up to date\n", path);
    }
    free(out);
    free(header);
    return 0;
}
