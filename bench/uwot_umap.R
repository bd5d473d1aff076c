# uwot_umap.R - uwot (R) UMAP: the R reference for bench/bench_umap.c,
# which runs it as a child process (one process per task, so that its peak
# memory is its own).
#
# Reads n x d float32 rows (raw, row-major, native-endian) from --data and
# fits uwot::umap(n_neighbors = 15, min_dist = 0.1, n_threads = T,
# n_sgd_threads = T, uwot's defaults otherwise: spectral init, 500 epochs up
# to 10,000 rows and 200 above, Annoy k-NN above 4,096 rows), with
# set.seed(--seed). With --test (m x d rows), the fit keeps its model
# (ret_model = TRUE) and umap_transform embeds the test rows, timed apart.
#
# Phases: uwot reports its progress through message(); every message is
# caught and time-stamped as it arrives (verbose = TRUE), so the phase
# boundaries are read off at millisecond resolution:
#   knn_s     start .. "Commencing smooth kNN distance calibration"
#   graph_s   .. "Initializing from ..." (or the first message after the
#             calibration); the fuzzy simplicial set
#   init_s    .. "Commencing optimization" (spectral init)
#   sgd_s     .. the end of umap()
# A boundary that does not show up is left out (fit_s is always printed).
#
# Output: one "RESULT key=value" line per measurement (fit_s, knn_s, graph_s,
# init_s, sgd_s, transform_s, peak_rss_kb = VmHWM of this process, n, d,
# n_epochs), the embeddings as raw float32 (n x 2) in --out and (m x 2) in
# --out-test. Other lines are progress and may be ignored.
#
#   OPENBLAS_NUM_THREADS=2 Rscript bench/uwot_umap.R --data X.f32 --n N --d D
#       [--test T.f32 --n-test M --out-test E_test.f32] [--out E.f32]
#       [--threads 2] [--seed 1] [--n-neighbors 15] [--min-dist 0.1]

suppressPackageStartupMessages(library(uwot))

args <- commandArgs(trailingOnly = TRUE)
opt <- list(data = NULL, n = NA, d = NA, test = NULL, n_test = NA, out = NULL, out_test = NULL,
            threads = 2L, seed = 1L, n_neighbors = 15L, min_dist = 0.1)
i <- 1
while (i <= length(args)) {
    key <- gsub("-", "_", sub("^--", "", args[i]))
    if (!(key %in% names(opt)) || i == length(args)) {
        cat("uwot_umap.R: bad argument", args[i], "\n")
        quit(status = 2)
    }
    opt[[key]] <- args[i + 1]
    i <- i + 2
}
n <- as.integer(opt$n); d <- as.integer(opt$d)
threads <- as.integer(opt$threads); seed <- as.integer(opt$seed)
if (is.null(opt$data) || is.na(n) || is.na(d)) {
    cat("usage: Rscript bench/uwot_umap.R --data X.f32 --n N --d D [--test T.f32 --n-test M] ...\n")
    quit(status = 2)
}

read_f32 <- function(path, rows, cols) {
    con <- file(path, "rb")
    v <- readBin(con, what = "numeric", size = 4, n = rows * cols + 1, endian = .Platform$endian)
    close(con)
    if (length(v) != rows * cols) {
        cat(sprintf("%s: %d floats, expected %d x %d\n", path, length(v), rows, cols))
        quit(status = 1)
    }
    matrix(v, nrow = rows, ncol = cols, byrow = TRUE)
}
write_f32 <- function(path, m) {
    con <- file(path, "wb")
    writeBin(as.vector(t(m)), con, size = 4)
    close(con)
}
vmhwm_kb <- function() {
    s <- grep("^VmHWM:", readLines("/proc/self/status"), value = TRUE)
    if (length(s) == 0) return(-1)
    as.numeric(gsub("[^0-9]", "", s))
}
now <- function() proc.time()[["elapsed"]]

x <- read_f32(opt$data, n, d)
cat(sprintf("uwot %s, R %s, n_threads %d, n_sgd_threads %d, OPENBLAS_NUM_THREADS=%s, data %d x %d\n",
            as.character(packageVersion("uwot")), getRversion(), threads, threads,
            Sys.getenv("OPENBLAS_NUM_THREADS", "(unset)"), n, d))
flush(stdout())

# every uwot message with the time it arrived
stamps <- list()
stamped <- function(expr) {
    withCallingHandlers(expr, message = function(m) {
        stamps[[length(stamps) + 1]] <<- list(t = now(), msg = conditionMessage(m))
        txt <- conditionMessage(m)
        # the time-stamped lines only (not the progress bar's pieces)
        if (grepl("^[0-9]{2}:[0-9]{2}:[0-9]{2} ", txt)) cat("  uwot:", sub("\n$", "", txt), "\n")
        invokeRestart("muffleMessage")
    })
}
first_at <- function(pattern, after = -Inf) {
    for (s in stamps) if (s$t >= after && grepl(pattern, s$msg)) return(s$t)
    NA
}

keep_model <- !is.null(opt$test)
set.seed(seed)
t0 <- now()
fit <- stamped(umap(x, n_neighbors = as.integer(opt$n_neighbors), min_dist = as.numeric(opt$min_dist),
                    n_threads = threads, n_sgd_threads = threads, ret_model = keep_model, verbose = TRUE))
t1 <- now()
emb <- if (keep_model) fit$embedding else fit
n_epochs <- if (n <= 10000) 500 else 200 # uwot's default (n_epochs = NULL)

cat(sprintf("RESULT n=%d\nRESULT d=%d\nRESULT n_epochs=%d\n", n, d, n_epochs))
cat(sprintf("RESULT fit_s=%.3f\n", t1 - t0))
t_cal <- first_at("smooth kNN distance calibration")
t_init <- first_at("^.*Initializ", if (is.na(t_cal)) -Inf else t_cal)
t_opt <- first_at("Commencing optimization")
if (!is.na(t_cal)) cat(sprintf("RESULT knn_s=%.3f\n", t_cal - t0))
if (!is.na(t_cal) && !is.na(t_init)) cat(sprintf("RESULT graph_s=%.3f\n", t_init - t_cal))
if (!is.na(t_init) && !is.na(t_opt)) cat(sprintf("RESULT init_s=%.3f\n", t_opt - t_init))
if (!is.na(t_opt)) cat(sprintf("RESULT sgd_s=%.3f\n", t1 - t_opt))
if (!is.null(opt$out)) write_f32(opt$out, emb)
flush(stdout())

if (keep_model) {
    m <- as.integer(opt$n_test)
    xt <- read_f32(opt$test, m, d)
    set.seed(seed + 1L)
    t0 <- now()
    et <- stamped(umap_transform(xt, fit, n_threads = threads, n_sgd_threads = threads, verbose = TRUE))
    t1 <- now()
    cat(sprintf("RESULT n_test=%d\nRESULT transform_s=%.3f\n", m, t1 - t0))
    if (!is.null(opt$out_test)) write_f32(opt$out_test, et)
}
cat(sprintf("RESULT peak_rss_kb=%.0f\n", vmhwm_kb()))
flush(stdout())
