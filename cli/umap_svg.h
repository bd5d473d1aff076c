/* umap_svg.h - a 2-D scatter plot as an SVG file, for embeddings. C99/C++.
   MIT licence (see the end of this file). umap_svg_write_file needs only
   libc and libm; umap_svg_write, which takes a path, writes through umap.h's
   umap_output (a temporary renamed over the target when complete, so a
   failed write leaves an existing file as it was): include umap.h first.

   DO THIS
   -------
   In exactly one C or C++ file:

       #include "umap.h"
       #define UMAP_SVG_IMPLEMENTATION
       #include "cli/umap_svg.h"

   Everywhere else just #include it. Define UMAP_SVG_STATIC as well to keep
   the function private to that one file.

   QUICK START
   -----------
       char err[256];
       if (umap_svg_write("plot.svg", xy, n, labels, names, 10, "My data",
                          err, sizeof err) != 0)
           fprintf(stderr, "%s\n", err);

   WHAT YOU GET
   ------------
   A white 800 x 800 px square plot (equal aspect: one unit is as long on
   both axes), the title above it, the legend to its right. Each point is a
   small translucent circle (radius 1.2 px from about 18,000 points up,
   up to 3 px for fewer) coloured by its class (a tab10-like palette of
   20 colours, then cycling); labels outside [0, n_classes) are drawn light
   grey as "other". Points with a NaN or Inf coordinate are skipped. The limits
   ignore the 0.1 % most extreme values at either end of each axis (then
   add a 4 % margin), so a few far outliers do not squash the plot; points
   beyond the limits are left out and counted under the plot.
   The points of one class share one <g> that sets the colour once, and
   coordinates are rounded to 0.1 px: about 40 bytes a point (70,000 points
   make a 2.8 MB file). */
#ifndef UMAP_SVG_H
#define UMAP_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef UMAP_SVG_DEF
#ifdef UMAP_SVG_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define UMAP_SVG_DEF static __attribute__((unused))
#else
#define UMAP_SVG_DEF static
#endif
#else
#define UMAP_SVG_DEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the scatter plot of n points xy[2*i], xy[2*i+1] to the open
   stream f (not closed; name appears in messages). labels: n class ids, or
   NULL (one colour, no legend). class_names: n_classes names for the
   legend, or NULL ("class 0", "class 1", ...). n_classes <= 0 with labels:
   taken as the largest label + 1. title may be NULL. Returns 0 on success;
   else -1 with the reason in err (which may be NULL). */
UMAP_SVG_DEF int umap_svg_write_file(FILE *f, const char *name, const float *xy, int64_t n, const int32_t *labels,
                                     const char *const *class_names, int n_classes, const char *title, char *err,
                                     size_t err_size);
#ifdef UMAP_H
/* The same to path, through umap.h's umap_output: the file at path changes
   only when the whole plot is written. */
UMAP_SVG_DEF int umap_svg_write(const char *path, const float *xy, int64_t n, const int32_t *labels,
                                const char *const *class_names, int n_classes, const char *title, char *err,
                                size_t err_size);
#endif

#ifdef __cplusplus
}
#endif
#endif /* UMAP_SVG_H */

#ifdef UMAP_SVG_IMPLEMENTATION
#ifndef UMAP_SVG__IMPLEMENTED
#define UMAP_SVG__IMPLEMENTED

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UMAP_SVG__PLOT 800     /* side of the square plot, px */
#define UMAP_SVG__TOP 56       /* title band */
#define UMAP_SVG__LEGEND 210   /* legend band on the right */
#define UMAP_SVG__PAD 16       /* left margin */
#define UMAP_SVG__BOTTOM 28    /* band under the plot (the point count) */
#define UMAP_SVG__LEGEND_MAX 36 /* legend rows before "... more" */
#define UMAP_SVG__MAX_CLASSES 65536 /* labels at or above it are drawn as "other" */

/* tab10, then ten more that stay apart from it (tab20's darker and lighter
   siblings would read as the same class) */
static const char *const umap_svg__palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#393b79", "#e7ba52", "#637939", "#ad494a", "#7b4173", "#3182bd", "#fd8d3c", "#31a354", "#843c39", "#6baed6"};
#define UMAP_SVG__N_COLOURS ((int)(sizeof umap_svg__palette / sizeof umap_svg__palette[0]))

static int umap_svg__fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    if (err && err_size) {
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int umap_svg__cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* the q-quantile of the sorted v[0..n), by linear interpolation */
static double umap_svg__quantile(const float *v, int64_t n, double q) {
    double at = q * (double)(n - 1), f = floor(at);
    int64_t i = (int64_t)f;
    if (i + 1 >= n) return v[n - 1];
    return v[i] + (at - f) * (v[i + 1] - v[i]);
}

/* text with & < > " escaped */
static void umap_svg__text(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* one point as "<circle .../>", coordinates (inside the plot, so positive)
   rounded to 0.1 px */
static void umap_svg__circle(FILE *f, double x, double y, const char *r) {
    int xi = (int)(x * 10.0 + 0.5), yi = (int)(y * 10.0 + 0.5);
    fprintf(f, "<circle cx=\"%d.%d\" cy=\"%d.%d\" r=\"%s\"/>\n", xi / 10, xi % 10, yi / 10, yi % 10, r);
}

UMAP_SVG_DEF int umap_svg_write_file(FILE *f, const char *name, const float *xy, int64_t n, const int32_t *labels,
                                     const char *const *class_names, int n_classes, const char *title, char *err,
                                     size_t err_size) {
    const int width = UMAP_SVG__PAD + UMAP_SVG__PLOT + UMAP_SVG__LEGEND;
    const int height = UMAP_SVG__TOP + UMAP_SVG__PLOT + UMAP_SVG__BOTTOM;
    const double x0 = UMAP_SVG__PAD, y0 = UMAP_SVG__TOP; /* plot's top-left corner */
    float *sorted = NULL;
    int64_t *count = NULL; /* per group: classes, then "other" */
    int64_t i, n_finite = 0, n_outside = 0;
    double lo[2], hi[2], centre[2], span, scale, r;
    char radius[16];
    int n_groups, c, a, shown;

    if (err && err_size) err[0] = 0;
    if (!name) name = "(stream)";
    if (!f) return umap_svg__fail(err, err_size, "umap_svg_write: %s: no stream", name);
    if (n < 0 || (n > 0 && !xy)) return umap_svg__fail(err, err_size, "umap_svg_write: no points (xy NULL or n < 0)");
    if (!labels) n_classes = 0;
    else if (n_classes <= 0)
        for (i = 0; i < n; i++)
            if (labels[i] >= n_classes && labels[i] < UMAP_SVG__MAX_CLASSES) n_classes = labels[i] + 1;
    if (n_classes > UMAP_SVG__MAX_CLASSES) n_classes = UMAP_SVG__MAX_CLASSES; /* the rest are "other" */
    n_groups = (labels ? n_classes : 1) + 1;

    /* robust limits: the 0.1 % and 99.9 % quantiles of the finite points */
    sorted = (float *)malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    count = (int64_t *)calloc((size_t)n_groups, sizeof *count);
    if (!sorted || !count) {
        free(sorted);
        free(count);
        return umap_svg__fail(err, err_size, "umap_svg_write: out of memory for %lld points", (long long)n);
    }
    for (a = 0; a < 2; a++) {
        n_finite = 0;
        for (i = 0; i < n; i++)
            if (isfinite(xy[2 * i]) && isfinite(xy[2 * i + 1])) sorted[n_finite++] = xy[2 * i + a];
        lo[a] = -1.0;
        hi[a] = 1.0;
        if (n_finite > 0) {
            qsort(sorted, (size_t)n_finite, sizeof *sorted, umap_svg__cmp_float);
            lo[a] = umap_svg__quantile(sorted, n_finite, 0.001);
            hi[a] = umap_svg__quantile(sorted, n_finite, 0.999);
        }
        centre[a] = 0.5 * (lo[a] + hi[a]);
    }
    free(sorted);
    /* equal aspect: the longer side fills the plot, plus a 4 % margin each side */
    span = hi[0] - lo[0] > hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
    if (!(span > 0)) span = centre[0] != 0 || centre[1] != 0 ? 1e-3 * (fabs(centre[0]) + fabs(centre[1])) : 1.0;
    span *= 1.08;
    scale = UMAP_SVG__PLOT / span;
    /* dots: r 1.2 px from about 18,000 points up, larger (to 3 px) for fewer */
    r = n_finite > 0 ? 160.0 / sqrt((double)n_finite) : 3.0;
    r = r < 1.2 ? 1.2 : r > 3.0 ? 3.0 : r;
    snprintf(radius, sizeof radius, "%.1f", r);

    errno = 0;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    if (title) {
        fprintf(f, "<text x=\"%g\" y=\"36\" font-size=\"22\" font-weight=\"bold\" fill=\"#222\" text-anchor=\"middle\">",
                x0 + UMAP_SVG__PLOT / 2.0);
        umap_svg__text(f, title);
        fputs("</text>\n", f);
    }
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#cccccc\"/>\n", x0, y0,
            UMAP_SVG__PLOT, UMAP_SVG__PLOT);

    /* one group per class (and one for "other"), the fill set once */
    for (c = 0; c < n_groups; c++) {
        int other = c == n_groups - 1;
        int opened = 0;
        for (i = 0; i < n; i++) {
            double px, py;
            int32_t l = labels ? labels[i] : 0;
            int in_class = labels ? (l >= 0 && l < n_classes) : 1;
            if (other ? in_class : (!in_class || l != c)) continue;
            if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1])) continue;
            px = x0 + UMAP_SVG__PLOT / 2.0 + (xy[2 * i] - centre[0]) * scale;
            py = y0 + UMAP_SVG__PLOT / 2.0 - (xy[2 * i + 1] - centre[1]) * scale; /* y grows upwards */
            if (px < x0 || px > x0 + UMAP_SVG__PLOT || py < y0 || py > y0 + UMAP_SVG__PLOT) {
                n_outside++;
                continue;
            }
            if (!opened) {
                fprintf(f, "<g fill=\"%s\" fill-opacity=\"0.55\">\n",
                        other ? "#cccccc" : umap_svg__palette[c % UMAP_SVG__N_COLOURS]);
                opened = 1;
            }
            umap_svg__circle(f, px, py, radius);
            count[c]++;
        }
        if (opened) fputs("</g>\n", f);
    }

    /* legend: a dot, the name and the count, one row per class present */
    if (labels) {
        double lx = x0 + UMAP_SVG__PLOT + 20, ly = y0 + 14;
        shown = 0;
        for (c = 0; c < n_groups; c++) {
            char name[32];
            int other = c == n_groups - 1;
            if (!count[c]) continue;
            if (shown == UMAP_SVG__LEGEND_MAX) {
                fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"14\" fill=\"#666\">&#8230; more</text>\n", lx, ly + 5);
                break;
            }
            fprintf(f, "<circle cx=\"%g\" cy=\"%g\" r=\"6\" fill=\"%s\"/>\n", lx + 6, ly,
                    other ? "#cccccc" : umap_svg__palette[c % UMAP_SVG__N_COLOURS]);
            fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"15\" fill=\"#222\">", lx + 18, ly + 5);
            if (other) fputs("other", f);
            else if (class_names && class_names[c]) umap_svg__text(f, class_names[c]);
            else {
                snprintf(name, sizeof name, "class %d", c);
                fputs(name, f);
            }
            fprintf(f, " <tspan fill=\"#888\" font-size=\"12\">%lld</tspan></text>\n", (long long)count[c]);
            ly += 22;
            shown++;
        }
    }
    fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"12\" fill=\"#888\" text-anchor=\"end\">%lld points",
            x0 + UMAP_SVG__PLOT, y0 + UMAP_SVG__PLOT + 18, (long long)(n_finite - n_outside));
    if (n_outside) fprintf(f, " (%lld beyond the limits not shown)", (long long)n_outside);
    fputs("</text>\n", f);
    fprintf(f, "<!-- limits x [%g, %g] y [%g, %g]; %lld non-finite points skipped, %lld outside -->\n",
            centre[0] - span / 2, centre[0] + span / 2, centre[1] - span / 2, centre[1] + span / 2,
            (long long)(n - n_finite), (long long)n_outside);
    fputs("</svg>\n", f);
    free(count);
    if (ferror(f)) return umap_svg__fail(err, err_size, "%s: write failed: %s", name, strerror(errno ? errno : EIO));
    return 0;
}

#ifdef UMAP_H
UMAP_SVG_DEF int umap_svg_write(const char *path, const float *xy, int64_t n, const int32_t *labels,
                                const char *const *class_names, int n_classes, const char *title, char *err,
                                size_t err_size) {
    umap_output o;
    if (err && err_size) err[0] = 0;
    if (!path) return umap_svg__fail(err, err_size, "umap_svg_write: path is NULL");
    if (umap_output_open(&o, path) != UMAP_OK) return umap_svg__fail(err, err_size, "%s", o.error);
    if (umap_svg_write_file(o.file, path, xy, n, labels, class_names, n_classes, title, err, err_size) != 0) {
        umap_output_discard(&o);
        return -1;
    }
    if (umap_output_commit(&o) != UMAP_OK) return umap_svg__fail(err, err_size, "%s", o.error);
    return 0;
}
#endif

#endif /* UMAP_SVG__IMPLEMENTED */
#endif /* UMAP_SVG_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the umap.h authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
