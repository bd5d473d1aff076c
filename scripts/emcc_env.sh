# emcc_env.sh - sourced by scripts/cross_wasm.sh and scripts/cross_web.sh
# (from the repository root, with BUILD set): checks for emcc and node,
# exiting 77 with a "skipped: " line when one is missing, prepares the
# environment Debian's emscripten needs and sets EMFLAGS, the flags both
# builds share.

# need TOOL PACKAGE: exit 77 (skipped) when TOOL is missing
need() {
    if ! command -v "$1" > /dev/null 2>&1; then
        echo "skipped: $1 not installed (Debian: $2)"
        exit 77
    fi
}
need emcc emscripten
need em-config emscripten
need node nodejs

# Debian's emscripten runs its JS optimiser with `node` and expects acorn
# from Debian's node-acorn in /usr/share/nodejs, where Debian's node looks
# but another node (NodeSource's, say) does not.
if ! node -e 'require("acorn")' > /dev/null 2>&1; then
    export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
    if ! node -e 'require("acorn")' > /dev/null 2>&1; then
        echo "skipped: node cannot load acorn for emcc (Debian: node-acorn)"
        exit 77
    fi
fi

# The system libraries (libc, compiler-rt, ...): Debian's package ships them
# built, in a frozen read-only cache, so that one is used as it is (a cache
# of our own would cost minutes of building on its first run). Another
# emscripten (emsdk) builds them on its first run: into build/emcache, kept
# between runs. An EM_CACHE the caller sets is used, and built into (an
# empty EM_FROZEN_CACHE lifts Debian's freeze for it).
if [ -z "${EM_CACHE:-}" ] && [ "$(em-config FROZEN_CACHE 2> /dev/null)" != True ]; then
    case $BUILD in
    /*) export EM_CACHE="$BUILD/emcache" ;;
    *) export EM_CACHE="$PWD/$BUILD/emcache" ;;
    esac
fi
if [ -n "${EM_CACHE:-}" ]; then
    mkdir -p "$EM_CACHE"
    export EM_FROZEN_CACHE=
fi

# SINGLE_FILE: the wasm inside the .js, so one file runs anywhere (and
# emscripten 3.1's loader cannot fetch a .wasm by path under node 18+)
# shellcheck disable=SC2034 # read by the scripts that source this
EMFLAGS="-std=c99 -O2 -Wall -Wextra -Werror -DUMAP_NO_BLAS -DUMAP_NO_THREADS -I."
EMFLAGS="$EMFLAGS -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1"

# now: seconds since the epoch, for the steps' times
now() { date +%s; }

# limit SECONDS COMMAND...: COMMAND, stopped after SECONDS where coreutils'
# timeout is there (a hung run fails instead of stalling the matrix)
limit() {
    if command -v timeout > /dev/null 2>&1; then
        timeout "$@"
    else
        shift
        "$@"
    fi
}
