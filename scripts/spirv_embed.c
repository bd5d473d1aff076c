/* spirv_embed.c - writes compiled SPIR-V modules into umap_vk.h as uint32_t
   arrays, between its generated markers, so users need no shader compiler.

   Build:  cc -O2 -I. -DUMAP_NO_BLAS -DUMAP_NO_THREADS scripts/spirv_embed.c -o build/spirv_embed -lm
           (umap.h for umap_output: the header is replaced whole or not at all,
           through a temporary no planted file or symlink can redirect)
   Usage:  spirv_embed [--check] HEADER NAME=FILE.spv,NAMES.spv [...]
           spirv_embed --ew-ops OUT.glsl

   Everything between the line holding ">>spirv generated" and the line
   holding "<<spirv generated" in HEADER is replaced, per module in the order
   given, by `static const uint32_t umap_vk__spv_NAME[] = {...};` and, read
   from the module itself, the macros umap_vk.h checks its kernel table and
   push-constant structs against:
       UMAP_VK__BINDINGS_NAME          highest descriptor binding + 1
       UMAP_VK__PC_SIZE_NAME           bytes of the push-constant block
       UMAP_VK__PC_MEMBERS_NAME(X)     X(NAME, member, offset, size, type, elem)
                                       per member: type F32, U32, I32, ... of
                                       the member, or with elem [0] of its
                                       elements (vectors and arrays)
   NAMES.spv is the same shader compiled without -O: glslc -O strips the
   member names, the layout is read from FILE.spv and must agree.
   --ew-ops writes the GLSL include of op codes (OP_<ID> = umap_op's value,
   OP_COPY = UMAP_OP_COUNT) that shaders/ew_region.comp switches on, from
   umap.h's UMAP_OP_LIST, so the shader never repeats the list by hand.
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

/* a little-endian SPIR-V module's bytes, and its words in host order in *words */
static unsigned char *read_module(const char *path, size_t *size, uint32_t **words) {
    unsigned char *spv = (unsigned char *)read_all(path, size);
    size_t w;
    if (!spv || *size == 0 || *size % 4 != 0 ||
        !(spv[0] == 0x03 && spv[1] == 0x02 && spv[2] == 0x23 && spv[3] == 0x07) ||
        !(*words = (uint32_t *)malloc(*size))) {
        fprintf(stderr, "spirv_embed: %s is not a little-endian SPIR-V module\n", path);
        free(spv);
        return NULL;
    }
    for (w = 0; w < *size / 4; w++)
        (*words)[w] = (uint32_t)spv[4 * w] | (uint32_t)spv[4 * w + 1] << 8 | (uint32_t)spv[4 * w + 2] << 16 |
                      (uint32_t)spv[4 * w + 3] << 24;
    return spv;
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

/* ---- push-constant layout and bindings, read from the SPIR-V itself ---- */

enum { SPV_NAME_MEMBER = 6, SPV_CONSTANT = 43, SPV_TYPE_INT = 21, SPV_TYPE_FLOAT = 22, SPV_TYPE_VECTOR = 23,
       SPV_TYPE_ARRAY = 28, SPV_TYPE_STRUCT = 30, SPV_TYPE_POINTER = 32, SPV_VARIABLE = 59, SPV_DECORATE = 71,
       SPV_MEMBER_DECORATE = 72, SPV_DEC_ARRAY_STRIDE = 6, SPV_DEC_BINDING = 33, SPV_DEC_OFFSET = 35,
       SPV_CLASS_PUSH_CONSTANT = 9, MAX_MEMBERS = 32 };

/* what a module says about its interface */
typedef struct module_layout {
    int n_members;                  /* of the push-constant block (0: none) */
    unsigned offset[MAX_MEMBERS];   /* bytes from the block's start */
    unsigned size[MAX_MEMBERS];     /* bytes the member spans */
    char kind[MAX_MEMBERS][8];      /* its scalar type: F32, U32, I32, ... (of the elements: +"[0]") */
    char name[MAX_MEMBERS][64];     /* from OpMemberName ("" when stripped, as glslc -O does) */
    unsigned block_size;            /* end of the last member */
    int n_bindings;                 /* highest binding + 1 */
} module_layout;

static const uint32_t *find_op(const uint32_t *w, size_t nw, unsigned op, unsigned arg, uint32_t value) {
    size_t at = 5;
    while (at < nw) {
        unsigned count = w[at] >> 16;
        if (count == 0) break;
        if (at + count > nw) break;
        if ((w[at] & 0xffffu) == op && count > arg && w[at + arg] == value) return w + at;
        at += count;
    }
    return NULL;
}

/* bytes one value of type id takes (0: a type this tool does not size) */
static unsigned type_size(const uint32_t *w, size_t nw, uint32_t id) {
    const uint32_t *t;
    if ((t = find_op(w, nw, SPV_TYPE_INT, 1, id)) || (t = find_op(w, nw, SPV_TYPE_FLOAT, 1, id))) return t[2] / 8;
    if ((t = find_op(w, nw, SPV_TYPE_VECTOR, 1, id))) return type_size(w, nw, t[2]) * t[3];
    if ((t = find_op(w, nw, SPV_TYPE_ARRAY, 1, id))) {
        const uint32_t *len = find_op(w, nw, SPV_CONSTANT, 2, t[3]);
        const uint32_t *stride = NULL;
        size_t at = 5;
        while (at < nw && (w[at] >> 16)) { /* the array type's ArrayStride decoration */
            if ((w[at] & 0xffffu) == SPV_DECORATE && w[at + 1] == id && w[at + 2] == SPV_DEC_ARRAY_STRIDE) stride = w + at;
            at += w[at] >> 16;
        }
        if (!len) return 0;
        return len[3] * (stride ? stride[3] : type_size(w, nw, t[2]));
    }
    return 0;
}

/* the scalar type of type id as F32, U32, I32 (F64, ...), with "[0]"
   after it for a vector or an array (the C side checks its element); ""
   for a type this tool does not know */
static void type_kind(const uint32_t *w, size_t nw, uint32_t id, char kind[8]) {
    const uint32_t *t;
    kind[0] = 0;
    if ((t = find_op(w, nw, SPV_TYPE_INT, 1, id))) snprintf(kind, 8, "%c%u", t[3] ? 'I' : 'U', t[2]);
    else if ((t = find_op(w, nw, SPV_TYPE_FLOAT, 1, id))) snprintf(kind, 8, "F%u", t[2]);
    else if ((t = find_op(w, nw, SPV_TYPE_VECTOR, 1, id)) || (t = find_op(w, nw, SPV_TYPE_ARRAY, 1, id))) {
        type_kind(w, nw, t[2], kind);
        if (kind[0] && !strchr(kind, '[')) strcat(kind, "[0]");
        else kind[0] = 0; /* arrays of arrays: not in a push-constant block here */
    }
}

/* fills *m from module w; 0 ok, else prints why */
static int read_layout(const uint32_t *w, size_t nw, const char *path, module_layout *m) {
    size_t at = 5;
    uint32_t block = 0;
    memset(m, 0, sizeof *m);
    for (at = 5; at < nw && (w[at] >> 16); at += w[at] >> 16) {
        unsigned op = w[at] & 0xffffu, count = w[at] >> 16;
        if (at + count > nw || count < 4) continue; /* every instruction read below has 4 words or more */
        if (op == SPV_DECORATE && w[at + 2] == SPV_DEC_BINDING && (int)w[at + 3] + 1 > m->n_bindings)
            m->n_bindings = (int)w[at + 3] + 1;
        if (op == SPV_VARIABLE && w[at + 3] == SPV_CLASS_PUSH_CONSTANT) {
            const uint32_t *ptr = find_op(w, nw, SPV_TYPE_POINTER, 1, w[at + 1]);
            if (!ptr || block) {
                fprintf(stderr, "spirv_embed: %s: a push-constant block this tool cannot read\n", path);
                return 1;
            }
            block = ptr[3];
        }
    }
    if (block) {
        const uint32_t *st = find_op(w, nw, SPV_TYPE_STRUCT, 1, block);
        int i;
        if (!st || (int)(st[0] >> 16) - 2 > MAX_MEMBERS) {
            fprintf(stderr, "spirv_embed: %s: the push-constant block is not a struct of at most %d members\n", path,
                    MAX_MEMBERS);
            return 1;
        }
        m->n_members = (int)(st[0] >> 16) - 2;
        for (i = 0; i < m->n_members; i++) {
            const uint32_t *off = NULL;
            for (at = 5; at < nw && (w[at] >> 16); at += w[at] >> 16)
                if ((w[at] & 0xffffu) == SPV_MEMBER_DECORATE && w[at + 1] == block && (int)w[at + 2] == i &&
                    w[at + 3] == SPV_DEC_OFFSET)
                    off = w + at;
            for (at = 5; at < nw && (w[at] >> 16); at += w[at] >> 16)
                if ((w[at] & 0xffffu) == SPV_NAME_MEMBER && w[at + 1] == block && (int)w[at + 2] == i)
                    snprintf(m->name[i], sizeof m->name[i], "%s", (const char *)(w + at + 3));
            m->size[i] = type_size(w, nw, st[2 + i]);
            type_kind(w, nw, st[2 + i], m->kind[i]);
            if (!off || !m->size[i] || !m->kind[i][0]) {
                fprintf(stderr, "spirv_embed: %s: push-constant member %d has no offset or a type this tool cannot size\n",
                        path, i);
                return 1;
            }
            m->offset[i] = off[4];
            if (m->offset[i] + m->size[i] > m->block_size) m->block_size = m->offset[i] + m->size[i];
        }
    }
    return 0;
}

/* The macros beside a module's array: its bindings and its push-constant
   block, which umap_vk.h static-asserts its C structs against. Offsets and
   sizes come from the embedded module; the names from names_m (the same
   shader compiled without -O, which strips them). */
static void put_layout(char **s, size_t *len, size_t *cap, const char *name, int name_len, const module_layout *m,
                       const module_layout *names_m) {
    char line[256];
    int i;
    snprintf(line, sizeof line, "#define UMAP_VK__BINDINGS_%.*s %d\n#define UMAP_VK__PC_SIZE_%.*s %u\n", name_len,
             name, m->n_bindings, name_len, name, m->block_size);
    put(s, len, cap, line, strlen(line));
    snprintf(line, sizeof line, "#define UMAP_VK__PC_MEMBERS_%.*s(X)", name_len, name);
    put(s, len, cap, line, strlen(line));
    for (i = 0; i < m->n_members; i++) {
        char kind[8], *elem;
        snprintf(kind, sizeof kind, "%s", m->kind[i]);
        elem = strchr(kind, '[');
        if (elem) *elem = 0;
        snprintf(line, sizeof line, " \\\n    X(%.*s, %s, %u, %u, %s, %s)", name_len, name, names_m->name[i], m->offset[i],
                 m->size[i], kind, elem ? "[0]" : "");
        put(s, len, cap, line, strlen(line));
    }
    put(s, len, cap, "\n", 1);
}

/* the op codes ew_region.comp switches on: umap_op's own values, so the C
   side writes in->op as it is (umap_vk__ew_code) */
static int write_ew_ops(const char *path) {
    umap_output o; /* staged like every file the project writes: nothing planted is followed */
    FILE *f;
    if (umap_output_open(&o, path) != UMAP_OK) {
        fprintf(stderr, "spirv_embed: %s\n", o.error);
        return 1;
    }
    f = o.file;
    fprintf(f, "// generated by scripts/spirv_embed.c --ew-ops from umap.h's UMAP_OP_LIST; do not edit\n");
#define EW_OP(id, name, arity, cls, grad) fprintf(f, "const uint OP_%s = %du;\n", #id, (int)UMAP_OP_##id);
    UMAP_OP_LIST(EW_OP)
#undef EW_OP
    fprintf(f, "const uint OP_COPY = %du; // FILL's one instruction: copy its immediate\n", (int)UMAP_OP_COUNT);
    if (umap_output_commit(&o) != UMAP_OK) {
        fprintf(stderr, "spirv_embed: %s\n", o.error);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int check = 0, a = 1, i;
    size_t hsize = 0, len = 0, cap = 0;
    char *header, *out = NULL, *begin, *end;
    const char *path;
    if (argc == 3 && !strcmp(argv[1], "--ew-ops")) return write_ew_ops(argv[2]);
    if (a < argc && !strcmp(argv[a], "--check")) check = 1, a++;
    if (argc - a < 2) {
        fprintf(stderr, "usage: spirv_embed [--check] HEADER NAME=FILE.spv,NAMES.spv ...\n"
                        "       spirv_embed --ew-ops OUT.glsl\n");
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
        char *comma;
        size_t size = 0, names_size = 0, w, nw;
        unsigned char *spv, *names_spv;
        uint32_t *words, *names_words;
        module_layout layout, names_layout;
        char line[160];
        int m;
        if (!eq || eq == argv[i] || !(comma = strchr(argv[i], ','))) {
            fprintf(stderr, "spirv_embed: '%s' is not NAME=FILE.spv,NAMES.spv\n", argv[i]);
            return 1;
        }
        *comma = 0;
        if (!(spv = read_module(eq + 1, &size, &words)) || !(names_spv = read_module(comma + 1, &names_size, &names_words)))
            return 1;
        nw = size / 4;
        if (read_layout(words, nw, eq + 1, &layout) || read_layout(names_words, names_size / 4, comma + 1, &names_layout))
            return 1;
        for (m = 0; m < layout.n_members; m++) /* the two compilations agree, and each member has a name */
            if (layout.n_members != names_layout.n_members || layout.offset[m] != names_layout.offset[m] ||
                !names_layout.name[m][0]) {
                fprintf(stderr, "spirv_embed: %s and %s disagree on the push constants (member %d)\n", eq + 1,
                        comma + 1, m);
                return 1;
            }
        put_layout(&out, &len, &cap, argv[i], (int)(eq - argv[i]), &layout, &names_layout);
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
        free(names_spv);
        free(words);
        free(names_words);
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
