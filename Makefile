# umap.h - build, test and check. GNU make.
#
#   make                 the umap program (cli/), examples, benchmarks (bench/)
#                        and the scripts' programs into build/
#   make demo            build and run build/umap_demo (writes umap_demo.svg)
#   make test            build and run the gtest suites (build/tests) and the
#                        Python suite (test-python)
#   make python          build/libumap.so, the shared library python/umaph loads
#   make test-python     the Python package's pytest suite (skipped, with the
#                        reason, when /usr/bin/python3 lacks numpy or pytest)
#   make bench-python    the Python layer's overhead over the C transform
#   make sanitize        the same under ASan + UBSan (build/san/tests)
#   make check-headers   every header as C99 and C++11, decl and impl, per option
#                        set, gcc and clang, netlib's and OpenBLAS's cblas.h
#   make check-programs  every tool and example per compiler and cblas.h
#   make check-windows   the demo and the umap program for Windows (mingw-w64, Wine)
#   make cross           the cross-platform matrix: Windows, tcc, aarch64, armhf,
#                        riscv64, s390x, WebAssembly (node, Chromium), Cortex-M4
#                        (scripts/cross.sh; rows whose tools are missing are skipped)
#   make bench-step      one MLP training step, ours vs PyTorch
#   make bench-knn       k-NN parity and speed; vs FAISS and pynndescent on
#                        random4096 and fmnist10k (bench-knn-full adds fmnist70k)
#   make bench-batch     k-NN cost over batch sizes 1..4096
#   make bench-umap      UMAP fit/transform on Fashion-MNIST vs uwot and umap-learn
#   make fuzz            every fuzzer (clang + libFuzzer): FUZZ_SECONDS in all,
#                        split between them (FUZZ_*_SECONDS per target)
#   make shaders         shaders/*.comp -> SPIR-V (glslc, spirv-val) -> arrays in umap_vk.h
#   make check-shaders   fails when umap_vk.h's arrays differ from shaders/
#   make clean

# make's built-in default for CC is "cc" and for CXX "g++"; a value given on
# the command line or in the environment wins over these.
ifeq ($(origin CC),default)
CC = gcc
endif
ifeq ($(origin CXX),default)
CXX = g++
endif

CFLAGS ?= -O2 -g -Wall -Wextra -std=c99
CXXFLAGS ?= -O2 -g -Wall -Wextra -std=c++14
CPPFLAGS += -I.
LDFLAGS ?=
LDLIBS ?= -lblas -lpthread -lm -ldl
GTEST_LIBS ?= -lgtest_main -lgtest -lpthread

# -g1: line tables for the reports' stacks, without -g's variables (a shorter build)
SAN_FLAGS = -O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

BUILD := build
HEADERS := $(wildcard umap_knn.h umap.h umap_vk.h)

# one-file programs: the umap program and its readers/writers (cli/), the
# examples, the benchmarks (bench/) and the build scripts' programs (scripts/)
CLI_HEADERS := $(wildcard cli/*.h)
PROGRAM_DIRS := cli examples bench scripts
PROGRAM_SRC := $(foreach d,$(PROGRAM_DIRS),$(wildcard $(d)/*.c))
PROGRAM_BIN := $(foreach s,$(PROGRAM_SRC),$(BUILD)/$(basename $(notdir $(s))))
NOBLAS_BIN := $(if $(wildcard bench/bench_step.c),$(BUILD)/bench_step_noblas)

# With the Vulkan headers (Debian: libvulkan-dev) the tests build umap_vk.h
# with UMAP_VULKAN and run its suite on whatever driver is there (CI: Mesa's
# lavapipe, with the validation layer); without them, the suite checks that a
# build without UMAP_VULKAN answers UMAP_ERR_NO_DEVICE.
HAVE_VULKAN := $(wildcard /usr/include/vulkan/vulkan.h)
VK_DEFS := $(if $(HAVE_VULKAN),-DUMAP_VULKAN)
CPPFLAGS += $(VK_DEFS)

TEST_C := $(wildcard tests/*.c)
TEST_CC := $(wildcard tests/*.cc)
TEST_OBJ := $(patsubst tests/%.c,$(BUILD)/obj/tests/%.c.o,$(TEST_C)) \
            $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.cc.o,$(TEST_CC))
SAN_OBJ := $(patsubst tests/%.c,$(BUILD)/san/obj/tests/%.c.o,$(TEST_C)) \
           $(patsubst tests/%.cc,$(BUILD)/san/obj/tests/%.cc.o,$(TEST_CC))
# The same suites linked against an implementation built with UMAP_NO_BLAS,
# so the portable sgemm is tested too (tests/impl.c holds the implementation).
# tests/impl_scalar.c (a private copy without SIMD, to compare against) is
# built the same way, so the two copies' matrix products agree.
NOBLAS_TEST_OBJ := $(subst $(BUILD)/obj/tests/impl_scalar.c.o,$(BUILD)/obj/tests/impl_scalar_noblas.c.o,\
                   $(subst $(BUILD)/obj/tests/impl.c.o,$(BUILD)/obj/tests/impl_noblas.c.o,$(TEST_OBJ)))
NOBLAS_SAN_OBJ := $(subst $(BUILD)/san/obj/tests/impl_scalar.c.o,$(BUILD)/san/obj/tests/impl_scalar_noblas.c.o,\
                  $(subst $(BUILD)/san/obj/tests/impl.c.o,$(BUILD)/san/obj/tests/impl_noblas.c.o,$(SAN_OBJ)))

.PHONY: shaders check-shaders all python test-python bench-python bench-inverse bench-precomputed bench-metrics bench-sparse bench-densmap bench-update bench-custom test sanitize check-headers check-programs check-windows cross demo bench-step bench-knn bench-knn-full bench-batch bench-umap fuzz clean
.DEFAULT_GOAL := all

all: $(PROGRAM_BIN) $(NOBLAS_BIN) $(BUILD)/libumap.so

# ---- the shared library (python/libumap.c: the headers' implementation, and
# the struct layouts for bindings); python/umaph loads it through ctypes
$(BUILD)/libumap.so: python/libumap.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) $< -o $@ $(LDLIBS)

python: $(BUILD)/libumap.so

# The Python suite runs under the system's interpreter (Debian's numpy,
# scikit-learn, pytest, dask) against the package as a user installs it:
# `pip install --no-build-isolation .` into a venv that sees the system's
# packages (build/pyenv), from outside the checkout's python/ folder. Without
# numpy or pytest it says so and passes, so `make test` needs no optional
# package; without python3-venv or setuptools it tests the checkout's
# python/ and says so (PYTHON_REQUIRE_INSTALL=1, as CI sets, makes that a
# failure).
PYTHON ?= /usr/bin/python3
PYTEST_ARGS ?= -q
PYENV := $(BUILD)/pyenv
define RUN_PYTHON_TESTS
	@if ! $(PYTHON) -c 'import numpy, pytest' 2>/dev/null; then \
	    echo "== the Python suite is skipped: $(PYTHON) cannot import numpy and pytest"; \
	    echo "   (Debian: python3-numpy python3-pytest; python3-sklearn and python3-dask for all of it)"; \
	elif $(PYTHON) -c 'import ensurepip, setuptools, wheel' 2>/dev/null; then \
	    echo "== pip install --no-build-isolation . (into $(PYENV), a venv with the system's packages)"; \
	    rm -rf $(PYENV) && $(PYTHON) -m venv --system-site-packages $(PYENV) && \
	    $(PYENV)/bin/pip install -q --no-build-isolation --no-index --no-cache-dir . && \
	    echo "== the Python suite (python/tests) against the installed package" && \
	    cd $(PYENV) && UMAPH_TEST_INSTALLED=1 UMAP_CLI=$(CURDIR)/$(BUILD)/umap \
	        bin/python -m pytest -p no:cacheprovider --rootdir=$(CURDIR)/python $(PYTEST_ARGS) $(CURDIR)/python/tests; \
	elif [ "$(PYTHON_REQUIRE_INSTALL)" = 1 ]; then \
	    echo "== FAILED: $(PYTHON) cannot build the package (Debian: python3-venv python3-setuptools python3-wheel)"; \
	    exit 1; \
	else \
	    echo "== the Python suite (python/tests) against the checkout's python/: $(PYTHON) cannot install the"; \
	    echo "   package (Debian: python3-venv python3-setuptools python3-wheel)"; \
	    UMAPH_LIB=$(BUILD)/libumap.so UMAP_CLI=$(BUILD)/umap PYTHONPATH=python \
	        $(PYTHON) -m pytest -p no:cacheprovider $(PYTEST_ARGS) python/tests; \
	fi
endef

test-python: $(BUILD)/libumap.so $(BUILD)/umap
	$(RUN_PYTHON_TESTS)

# The benchmarks run OpenBLAS's AVX-512 kernels where the CPU has them
# (OpenBLAS takes an AMD EPYC with AVX-512 for a Zen without); elsewhere
# OpenBLAS picks its own, as forcing SkylakeX there ends in SIGILL.
BENCH_CORETYPE := $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX)
ifneq ($(BENCH_CORETYPE),)
bench-python bench-inverse bench-precomputed bench-metrics bench-sparse bench-densmap bench-update bench-custom bench-umap bench-step bench-knn bench-knn-full bench-batch: export OPENBLAS_CORETYPE = $(BENCH_CORETYPE)
endif

# The Python layer's cost: UMAP.transform against umap_transform from C
# (build/transform_time, linked to the same library) on Fashion-MNIST;
# BENCH_PYTHON_ARGS="--train 20000 --rounds 3"
BENCH_PYTHON_ARGS ?=
$(BUILD)/transform_time: python/bench/transform_time.c $(BUILD)/libumap.so
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -L$(BUILD) -lumap -Wl,-rpath,'$$ORIGIN'

bench-python: $(BUILD)/transform_time $(BUILD)/libumap.so
	$(PYTHON) python/bench/overhead.py $(BENCH_PYTHON_ARGS)

# inverse_transform on Fashion-MNIST: umap.h's decoder beside umap-learn's
# interpolation (Debian umap-learn, python3-sklearn);
# BENCH_INVERSE_ARGS="--runs 3 --peer-rows 1000"
BENCH_INVERSE_ARGS ?=
bench-inverse: export OMP_NUM_THREADS = 2
bench-inverse: export NUMBA_NUM_THREADS = 2
bench-inverse: $(BUILD)/libumap.so
	$(PYTHON) bench/inverse_transform.py --threads 2 $(BENCH_INVERSE_ARGS)

# metric="precomputed" on Fashion-MNIST's distance matrix, then on a sparse
# graph of the 60,000 training images' nearest: umap.h beside umap-learn
# (Debian umap-learn, python3-sklearn); BENCH_PRECOMPUTED_ARGS="--rows 6000 --graph-rows 20000"
BENCH_PRECOMPUTED_ARGS ?=
bench-precomputed: export OMP_NUM_THREADS = 2
bench-precomputed: export NUMBA_NUM_THREADS = 2
bench-precomputed: $(BUILD)/libumap.so
	$(PYTHON) bench/precomputed.py --threads 2 $(BENCH_PRECOMPUTED_ARGS)

# metrics haversine (clustered places on the sphere) and seuclidean
# (Fashion-MNIST, V the columns' variances): umap.h beside umap-learn;
# BENCH_METRICS_ARGS="--runs 1 --places 6000 --rows 3000"
BENCH_METRICS_ARGS ?=
bench-metrics: export OMP_NUM_THREADS = 2
bench-metrics: export NUMBA_NUM_THREADS = 2
bench-metrics: $(BUILD)/libumap.so
	$(PYTHON) bench/metrics.py --threads 2 $(BENCH_METRICS_ARGS)

# densMAP on Fashion-MNIST: umap.h beside umap-learn's densMAP (fit: time,
# memory, the radius correlation; transform of the test rows, which
# umap-learn refuses) (Debian umap-learn, python3-sklearn);
# BENCH_DENSMAP_ARGS="--runs 1 --peer-runs 1 --no-peer"
BENCH_DENSMAP_ARGS ?=
bench-densmap: export OMP_NUM_THREADS = 2
bench-densmap: export NUMBA_NUM_THREADS = 2
bench-densmap: $(BUILD)/libumap.so
	$(PYTHON) bench/densmap.py --threads 2 $(BENCH_DENSMAP_ARGS)

# continued training: fit 50,000 Fashion-MNIST rows, update with 10,000,
# against a refit of all 60,000; umap.h beside umap-learn's update (time,
# memory, how far the earlier rows move, the new rows' trustworthiness);
# BENCH_UPDATE_ARGS="--runs 1 --no-peer"
BENCH_UPDATE_ARGS ?=
bench-update: export OMP_NUM_THREADS = 2
bench-update: export NUMBA_NUM_THREADS = 2
bench-update: $(BUILD)/libumap.so
	$(PYTHON) bench/update.py --threads 2 $(BENCH_UPDATE_ARGS)

# a custom metric (manhattan as a numba.njit function) on Fashion-MNIST:
# umap.h beside umap-learn, each beside its built-in manhattan (fit: time,
# memory, trustworthiness) (Debian umap-learn, python3-numba);
# BENCH_CUSTOM_ARGS="--runs 1 --no-peer"
BENCH_CUSTOM_ARGS ?=
bench-custom: export OMP_NUM_THREADS = 2
bench-custom: export NUMBA_NUM_THREADS = 2
bench-custom: $(BUILD)/libumap.so
	$(PYTHON) bench/custom.py --threads 2 $(BENCH_CUSTOM_ARGS)

# sparse rows: a TF-IDF corpus of the machine's manual pages, umap.h beside
# umap-learn (fit: time, memory, trustworthiness) and pynndescent (k-NN)
# (Debian umap-learn, python3-pynndescent, python3-sklearn);
# BENCH_SPARSE_ARGS="--runs 1 --docs 5000"
BENCH_SPARSE_ARGS ?=
bench-sparse: export OMP_NUM_THREADS = 2
bench-sparse: export NUMBA_NUM_THREADS = 2
bench-sparse: $(BUILD)/libumap.so
	$(PYTHON) bench/sparse.py --threads 2 $(BENCH_SPARSE_ARGS)

# ---- the one-file programs, the implementation included inside each
define PROGRAM_RULE
$$(BUILD)/%: $(1)/%.c $$(HEADERS) $$(CLI_HEADERS)
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(LDFLAGS) $$< -o $$@ $$(LDLIBS)
endef
$(foreach d,$(PROGRAM_DIRS),$(eval $(call PROGRAM_RULE,$(d))))

$(BUILD)/bench_step_noblas: bench/bench_step.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DUMAP_NO_BLAS $(CFLAGS) $(LDFLAGS) $< -o $@ $(filter-out -lblas,$(LDLIBS))

# ---- tests: tests/*.c compiled as C, tests/*.cc as C++, linked together
$(BUILD)/obj/tests/%.c.o: tests/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/%.cc.o: tests/%.cc $(HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/impl_noblas.c.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DUMAP_NO_BLAS $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/impl_scalar_noblas.c.o: tests/impl_scalar.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DUMAP_NO_BLAS $(CFLAGS) -c $< -o $@

$(BUILD)/tests: $(TEST_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -pthread $^ -o $@ $(GTEST_LIBS) $(LDLIBS)

$(BUILD)/tests_noblas: $(NOBLAS_TEST_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -pthread $^ -o $@ $(GTEST_LIBS) $(filter-out -lblas,$(LDLIBS))

# the CLI suite (tests/test_cli.cc) runs build/umap as a child process
test: $(BUILD)/tests $(BUILD)/tests_noblas $(BUILD)/umap $(BUILD)/libumap.so
	./$(BUILD)/tests
	@echo "== the same suites with UMAP_NO_BLAS (portable sgemm), less the CLI suites (they run"
	@echo "   build/umap, the BLAS build: the first run did them) and those whose code the two"
	@echo "   builds share (NOBLAS_SKIP)"
	./$(BUILD)/tests_noblas --gtest_filter='-Cli*:$(NOBLAS_SKIP)'
	$(RUN_PYTHON_TESTS)

# ---- the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
$(BUILD)/san/obj/tests/%.c.o: tests/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c99 -Wall -Wextra $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/obj/tests/%.cc.o: tests/%.cc $(HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) -std=c++14 -Wall -Wextra $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/obj/tests/impl_noblas.c.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DUMAP_NO_BLAS -std=c99 -Wall -Wextra $(SAN_FLAGS) -c $< -o $@

$(BUILD)/san/obj/tests/impl_scalar_noblas.c.o: tests/impl_scalar.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DUMAP_NO_BLAS -std=c99 -Wall -Wextra $(SAN_FLAGS) -c $< -o $@

$(BUILD)/san/tests: $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(SAN_FLAGS) -pthread $^ -o $@ $(GTEST_LIBS) $(LDLIBS)

$(BUILD)/san/tests_noblas: $(NOBLAS_SAN_OBJ)
	@mkdir -p $(@D)
	$(CXX) $(SAN_FLAGS) -pthread $^ -o $@ $(GTEST_LIBS) $(filter-out -lblas,$(LDLIBS))

# the umap program under the same sanitizers, for the CLI suite
$(BUILD)/san/umap: cli/umap.c $(HEADERS) $(CLI_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=c99 -Wall -Wextra $(SAN_FLAGS) $< -o $@ $(LDLIBS)

SAN_ENV = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 UMAP_CLI=$(BUILD)/san/umap
# The Fashion-MNIST quality suites hold thresholds, not memory checks: the
# fits and transforms they run are the small suites' code at a larger n,
# and the sanitizers' instrumentation slows them most (make test runs them).
# So is `umap inverse`'s test: its decoders are the Decoder suite's, and its
# files the other CLI tests' readers and writers.
SAN_SKIP_QUALITY = SupervisedQuality.*:TransformQuality.*:DecoderQuality.*:PrecomputedQuality.*:SparseFitQuality.*:DensmapQuality.*:UpdateQuality.*:UmapFit.FashionMnistQuality:Cli.InverseDecodes*
# UMAP_NO_BLAS changes one thing: products of UMAP_BLAS_MIN_MACS or more,
# which the BLAS build gives to CBLAS (umap__gemm_portable), take the
# portable kernel there too. The suites below run the same code in both
# builds (the metrics' own kernels, the tuner's portable variants, the
# refinement, which has no product, and fits of a few hundred rows, whose
# products are all below that size), so the second run (make test's and
# make sanitize's, which also leaves out UmapFit's small fits) leaves them
# out; the k-NN, forward and gradient suites and the Fashion-MNIST quality
# suites keep the large products. (The sparse k-NN runs no product at all.)
NOBLAS_SKIP = Metrics.*:Tune.*:SparseKnn.*:SparseFit.*:Update.*:UmapConfig.*:ConfigLimits.*:UmapRefine.*:Progress.*:Decoder.*:InitModelFile.*:CustomMetric.*
sanitize: $(BUILD)/san/tests $(BUILD)/san/tests_noblas $(BUILD)/san/umap
	@echo "== the suites under the sanitizers, less the Fashion-MNIST quality suites"
	$(SAN_ENV) ./$(BUILD)/san/tests --gtest_filter='-Vulkan*:$(SAN_SKIP_QUALITY)'
	@echo "== the Vulkan suite: LeakSanitizer off (Mesa's drivers keep small allocations past"
	@echo "   vkDestroyInstance); its AllocationFailure test counts our own allocations instead"
	$(SAN_ENV) ASAN_OPTIONS=detect_leaks=0 ./$(BUILD)/san/tests --gtest_filter=Vulkan*
	@echo "== the same suites with UMAP_NO_BLAS (portable sgemm), less the CLI suites (they run"
	@echo "   build/san/umap, the BLAS build: the first run did them) and those whose code the"
	@echo "   two builds share (NOBLAS_SKIP)"
	$(SAN_ENV) ./$(BUILD)/san/tests_noblas --gtest_filter='-Vulkan*:Cli*:UmapFit.*:$(SAN_SKIP_QUALITY):$(NOBLAS_SKIP)'

# ---- the compile matrix (scripts/check_build.sh): every header alone, as C99
# and as C++11, declarations and implementation, per option set, with gcc and
# clang, against netlib's and OpenBLAS's cblas.h (each when installed) and
# after <complex.h> (the option sets compile umap_vk.h's implementation,
# which holds the other two's); check-programs compiles and links every tool
# and example per compiler, each with the next CBLAS header, and with
# UMAP_NO_BLAS. All with -Werror.
# CHK_OPT: optimisation for the header checks (-O2 turns on the warnings that
# need data-flow analysis, such as -Wmaybe-uninitialized).
CHK_OPT ?= -O2
CHK_COMPILERS ?= gcc:g++ clang:clang++
CHK_ENV = BUILD=$(BUILD) CHK_OPT="$(CHK_OPT)" COMPILERS="$(CHK_COMPILERS)" VK_DEFS="$(VK_DEFS)" LDLIBS="$(LDLIBS)"

check-headers:
	$(CHK_ENV) sh scripts/check_build.sh headers

check-programs:
	$(CHK_ENV) sh scripts/check_build.sh programs

# Windows x86-64 (mingw-w64, run under wine); skipped where they are missing
check-windows:
	BUILD=$(BUILD) sh scripts/check_windows.sh

# the cross-platform matrix (scripts/cross.sh): CROSS_ROWS="tcc s390x" for some
CROSS_ROWS ?=
cross: $(BUILD)/umap $(BUILD)/npy_close
	BUILD=$(BUILD) bash scripts/cross.sh $(CROSS_ROWS)

# ---- running
demo: $(BUILD)/umap_demo
	./$(BUILD)/umap_demo

# ---- UMAP benchmark: ours, uwot (r-cran-uwot) and umap-learn (umap-learn)
# on Fashion-MNIST in the same run, 2 threads each (see bench/bench_umap.c);
# BENCH_UMAP_ARGS="--sizes none --no-transform --supervised 60000": the
# supervised tasks alone (labels, 10% of them, none; ours vs umap-learn)
BENCH_UMAP_ARGS ?=
bench-umap: export OMP_NUM_THREADS = 2
bench-umap: export NUMBA_NUM_THREADS = 2
bench-umap: $(BUILD)/bench_umap
	./$(BUILD)/bench_umap $(BENCH_UMAP_ARGS)

# ---- fuzzing (Debian: clang, libclang-rt-14-dev): the model loader
# (fuzz_model: the whole load path; fuzz_modelfile_raw: the container parser
# and writer round trip) on fuzz/corpus, and the CLI's readers (fuzz_readers:
# npy, CSV, IDX, gzip, raw; sparse .npz and svmlight) on fuzz/corpus-readers. Working corpora and any
# crash land in build/fuzz/. FUZZ_SECONDS is the total, split so that CI's
# time stays what it was; each target's share can be set on its own.
FUZZ_SECONDS ?= 60
FUZZ_MODEL_SECONDS ?= $(shell echo $$(( $(FUZZ_SECONDS) * 2 / 5 )))
FUZZ_MODELFILE_RAW_SECONDS ?= $(shell echo $$(( $(FUZZ_SECONDS) / 5 )))
FUZZ_READERS_SECONDS ?= $(shell echo $$(( $(FUZZ_SECONDS) * 2 / 5 )))
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.
# -malloc_limit_mb: a single allocation above it is a finding (a bomb), well
# below -rss_limit_mb; -timeout: an input that takes longer (a file that
# loads, then asks transform for unbounded work) is a finding
FUZZ_RUN = -max_total_time=$(1) -timeout=10 -rss_limit_mb=3000 -malloc_limit_mb=1024
$(BUILD)/fuzz_model: fuzz/fuzz_model.c $(HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DUMAP_IMPLEMENTATION $< -o $@ $(LDLIBS)

$(BUILD)/fuzz_modelfile_raw: fuzz/fuzz_modelfile_raw.c $(HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< -o $@ $(LDLIBS)

$(BUILD)/fuzz_readers: fuzz/fuzz_readers.c cli/umap_io.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< -o $@

fuzz: $(BUILD)/fuzz_model $(BUILD)/fuzz_modelfile_raw $(BUILD)/fuzz_readers
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus-raw $(BUILD)/fuzz/corpus-readers
	cp -n fuzz/corpus/* $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	cp -n fuzz/corpus/* $(BUILD)/fuzz/corpus-raw/ 2>/dev/null || true
	cp -n fuzz/corpus-readers/* $(BUILD)/fuzz/corpus-readers/ 2>/dev/null || true
	cd $(BUILD)/fuzz && ../fuzz_model -max_len=65536 $(call FUZZ_RUN,$(FUZZ_MODEL_SECONDS)) \
	    -dict=../../fuzz/model.dict corpus
	cd $(BUILD)/fuzz && ../fuzz_modelfile_raw -max_len=4096 $(call FUZZ_RUN,$(FUZZ_MODELFILE_RAW_SECONDS)) \
	    -dict=../../fuzz/model.dict corpus-raw
	cd $(BUILD)/fuzz && ../fuzz_readers -max_len=65536 $(call FUZZ_RUN,$(FUZZ_READERS_SECONDS)) corpus-readers

# BENCH_ARGS: e.g. make bench-step BENCH_ARGS="--runs 50 --no-torch"
BENCH_ARGS ?=
bench-step: export OPENBLAS_NUM_THREADS = 2
bench-step: $(BUILD)/bench_step
	./$(BUILD)/bench_step $(BENCH_ARGS)

# ---- k-NN benchmarks. build/faiss_knn needs libfaiss-dev (static libfaiss.a,
# OpenMP, BLAS, LAPACK), which is not a CI dependency: `all` does not build it,
# and bench-knn goes on without it (the FAISS rows then say "not built").
# pynndescent (python3-pynndescent) runs from /usr/bin/python3 when present.
# Every side runs with 2 threads and the same OPENBLAS_CORETYPE.
# BENCH_KNN_ARGS: e.g. make bench-knn BENCH_KNN_ARGS="--runs 9 --metric euclidean"
FAISS_LIBS ?= -lfaiss -lblas -llapack -lpthread -lm
HAVE_FAISS := $(wildcard /usr/include/faiss/IndexFlat.h)
BENCH_KNN_ARGS ?=
BENCH_BATCH_ARGS ?=

$(BUILD)/bench_knn $(BUILD)/bench_batch: bench/knn_data.h

$(BUILD)/faiss_knn: bench/faiss_knn.cc bench/knn_data.h cli/umap_io.h
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) -O2 -g -Wall -Wextra -fopenmp $< -o $@ $(FAISS_LIBS)

bench-knn bench-knn-full bench-batch: export OPENBLAS_NUM_THREADS = 2
bench-knn bench-knn-full bench-batch: export OMP_NUM_THREADS = 2
bench-knn bench-knn-full: export NUMBA_NUM_THREADS = 2

bench-knn: $(BUILD)/bench_knn $(if $(HAVE_FAISS),$(BUILD)/faiss_knn)
	./$(BUILD)/bench_knn --threads 2 --metric both $(BENCH_KNN_ARGS)
	./$(BUILD)/bench_knn --compare --threads 2 --dataset random4096,fmnist10k --metric both $(BENCH_KNN_ARGS)

bench-knn-full: $(BUILD)/bench_knn $(if $(HAVE_FAISS),$(BUILD)/faiss_knn)
	./$(BUILD)/bench_knn --threads 2 --metric both $(BENCH_KNN_ARGS)
	./$(BUILD)/bench_knn --compare --threads 2 --dataset all --metric both --runs-large 1 $(BENCH_KNN_ARGS)

bench-batch: $(BUILD)/bench_batch
	./$(BUILD)/bench_batch --threads 2 $(BENCH_BATCH_ARGS)

# ---- Vulkan kernels: GLSL in shaders/ -> SPIR-V -> arrays in umap_vk.h.
# Needs glslc and spirv-tools (Debian packages of those names); users of the
# header need neither, the arrays are committed. ew_ops.glsl (the op codes
# ew_region.comp switches on) is generated from umap.h's op list; the
# unoptimised modules in spv-names/ only lend spirv_embed the push-constant
# member names that glslc -O strips.
SHADERS := $(wildcard shaders/*.comp)
SHADER_NAMES := $(basename $(notdir $(SHADERS)))
SPV := $(patsubst %,$(BUILD)/spv/%.spv,$(SHADER_NAMES)) $(patsubst %,$(BUILD)/spv-names/%.spv,$(SHADER_NAMES))
SPV_ARGS = $(foreach s,$(SHADER_NAMES),$(s)=$(BUILD)/spv/$(s).spv,$(BUILD)/spv-names/$(s).spv)
GLSLC = glslc --target-env=vulkan1.1 -fshader-stage=compute -I$(BUILD)/spv

$(BUILD)/spv/ew_ops.glsl: $(BUILD)/spirv_embed
	@mkdir -p $(@D)
	./$(BUILD)/spirv_embed --ew-ops $@

$(BUILD)/spv/%.spv: shaders/%.comp $(BUILD)/spv/ew_ops.glsl
	$(GLSLC) -O $< -o $@
	spirv-val --target-env vulkan1.1 $@

$(BUILD)/spv-names/%.spv: shaders/%.comp $(BUILD)/spv/ew_ops.glsl
	@mkdir -p $(@D)
	$(GLSLC) $< -o $@

$(BUILD)/spirv_embed: scripts/spirv_embed.c umap.h umap_knn.h
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -I. -DUMAP_NO_BLAS -DUMAP_NO_THREADS $< -o $@ -lm

shaders: $(SPV) $(BUILD)/spirv_embed
	./$(BUILD)/spirv_embed umap_vk.h $(SPV_ARGS)

# also proves that a push-constant struct differing from its shader fails the build
check-shaders: $(SPV) $(BUILD)/spirv_embed
	./$(BUILD)/spirv_embed --check umap_vk.h $(SPV_ARGS)
	BUILD=$(BUILD) CC=$(CC) CXX=$(CXX) sh scripts/check_pc_layout.sh

clean:
	rm -rf $(BUILD)

-include $(TEST_OBJ:.o=.d) $(SAN_OBJ:.o=.d)
