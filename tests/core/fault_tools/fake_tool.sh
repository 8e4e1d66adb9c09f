#!/bin/sh
# A CUDA tool that misbehaves on request, for the fault-injection tests (tests/core/test_faults.cpp).
# Linked as nvcc, nvdisasm or cuobjdump; LOWERSCOPE_NVCC/NVDISASM/CUOBJDUMP point at the link.
#   FAKE_<TOOL>_MODE   pass (default) | segv | abort | killed | hang | enospc | eio | child-crash | garbage
#   FAKE_REAL_<TOOL>   the real tool (pass mode, and --version / --list-gpu-* always)
#   FAKE_PIDS          hang mode writes "<own pid> <grandchild pid>" here once both run
tool=$(basename "$0")
upper=$(echo "$tool" | tr 'a-z' 'A-Z')
eval "mode=\${FAKE_${upper}_MODE:-pass}"
eval "real=\${FAKE_REAL_${upper}}"
case " $* " in
*" --version "* | *" --list-gpu-arch "* | *" --list-gpu-code "*) exec "$real" "$@" ;;
esac
case "$mode" in
pass) exec "$real" "$@" ;;
segv) kill -SEGV $$ ;;
abort) kill -ABRT $$ ;;
killed) kill -KILL $$ ;; # as the OOM killer would
hang)
    # A temporary file where nvcc keeps its own (it honours TMPDIR), and a child in our process
    # group, as cicc/ptxas would be.
    : >"${TMPDIR:-/tmp}/tmpxft_fake_$$.ii"
    sleep 600 &
    echo "$$ $!" >"$FAKE_PIDS.tmp" && mv "$FAKE_PIDS.tmp" "$FAKE_PIDS"
    wait
    ;;
enospc)
    echo "cc1plus: fatal error: error writing to /tmp/tmpxft_0000_k.cpp1.ii: No space left on device" >&2
    echo "nvcc fatal   : Failed to preprocess host compiler properties." >&2
    exit 1
    ;;
eio)
    echo "k.cu:1:10: fatal error: k.h: Input/output error" >&2
    exit 1
    ;;
child-crash)
    echo "nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)" >&2
    exit 1
    ;;
garbage)
    printf 'k.cu(1): error: bad token \033[2J\033]0;pwned\007 here\n' >&2
    exit 1
    ;;
esac
echo "fake_tool: unknown mode $mode" >&2
exit 99
