"""Builds the Python package umaph (python/umaph) and the shared library it
loads through ctypes (python/libumap.c: the headers' implementation) with
the compiler and the CBLAS on this machine, offline:

    python3 -m venv --system-site-packages env
    env/bin/pip install --no-build-isolation .      # or: pip wheel --no-build-isolation .

The library links the system's CBLAS (cblas.h and -lblas: Debian's
libblas-dev or libopenblas-dev) when a test program builds against it, else
the headers' portable sgemm (UMAP_NO_BLAS), and says which at build time.
UMAPH_BLAS=none forces the portable sgemm; UMAPH_BLAS=openblas (any library
name) links that library instead of -lblas. The metadata is in
pyproject.toml; the version is umap.h's."""
import os
import re
import shutil
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def header_version():
    with open(os.path.join(ROOT, "umap.h")) as f:
        return re.search(r'#define UMAP_VERSION_STRING "([^"]+)"', f.read()).group(1)


_CBLAS_PROBE = """#include <cblas.h>
int main(void) {
    float a = 2, b = 3, c = 0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
    return c == 6 ? 0 : 1;
}
"""


class BuildLibrary(build_ext):
    """build_ext for a library loaded by ctypes (no Python module inside):
    picks the BLAS by compiling and linking a probe with the same compiler."""

    def _links_cblas(self, library):
        tmp = tempfile.mkdtemp(prefix="umaph-blas-")
        try:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write(_CBLAS_PROBE)
            objects = self.compiler.compile([src], output_dir=tmp)
            self.compiler.link_executable(objects, "probe", output_dir=tmp, libraries=[library])
            return True
        except Exception:  # CompileError, LinkError: no usable CBLAS of that name
            return False
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def build_extensions(self):
        choice = os.environ.get("UMAPH_BLAS", "blas")
        for ext in self.extensions:
            if choice != "none" and self._links_cblas(choice):
                ext.libraries.insert(0, choice)
                print("umaph: linking CBLAS (cblas.h, -l%s)" % choice)
            else:
                ext.define_macros.append(("UMAP_NO_BLAS", "1"))
                print("umaph: %s: building with the headers' portable sgemm (UMAP_NO_BLAS); for the fast path "
                      "install a CBLAS (Debian: libblas-dev or libopenblas-dev) and reinstall"
                      % ("UMAPH_BLAS=none" if choice == "none" else "no CBLAS found (cblas.h and -l%s)" % choice))
        super().build_extensions()

    def get_export_symbols(self, ext):
        return []  # not a Python module: no PyInit_ to export (Windows asks for one)


setup(
    version=header_version(),
    package_dir={"": "python"},
    packages=["umaph"],
    ext_modules=[Extension(
        "umaph.libumap",
        sources=["python/libumap.c"],
        include_dirs=["."],
        depends=["umap.h", "umap_knn.h", "umap_vk.h"],
        libraries=["pthread", "m", "dl"] if os.name == "posix" else [],
        extra_compile_args=["-std=c99", "-O2"] if os.name == "posix" else [],
    )],
    cmdclass={"build_ext": BuildLibrary},
    # setuptools' scratch folder inside the Makefile's build/, not beside it
    options={"build": {"build_base": "build/pip"}},
    zip_safe=False,
)
