#!/usr/bin/env bash
# The install test (CTest `install`, label install; issue 33): installs the build into a throwaway
# prefix and runs the INSTALLED programs from there, then builds the .deb and checks its contents
# and dependencies.
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR GUI(0|1) [FAKE_GPU_LIBRARY]
# Checks:
#   * `cmake --install BUILD --prefix TMP`: bin/, share/lowerscope (kernels), man pages (when the
#     build found help2man), and with the GUI the desktop entry, the metainfo (appstreamcli validate,
#     when appstreamcli exists), the SVG and PNG icons;
#   * no installed binary has a RUNPATH into the build or source folder, and the installed
#     `lowerscope-cli doctor` finds no tool through a build-folder path (.tools/ of the checkout)
#     unless $LOWERSCOPE_TOOLS_DIR names it, as a user would;
#   * the installed `lowerscope-cli doctor`, `build share/lowerscope/kernels/saxpy.cu` (skipped
#     without nvcc), and a `run` on the fake GPU through the installed runner next to it;
#   * with the GUI: an offscreen screenshot from the installed `lowerscope` (a real PNG, not blank);
#   * `cpack -G DEB`: the package's files and Depends (with the GUI: Qt 6, QScintilla, Graphviz by
#     Debian package name; never CUDA).
set -uo pipefail # not -e: every check runs and reports; `fail` counts

build=$(cd "$1" && pwd -P)
source=$(cd "$2" && pwd -P)
gui=${3:-0}
fake_gpu=${4:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lowerscope-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fails=0
step() { printf '== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
skip() { printf '   SKIPPED: %s\n' "$*"; }
fail() { printf '   FAIL: %s\n' "$*" >&2; fails=$((fails + 1)); }
need_file() { if [ -e "$prefix/$1" ]; then ok "$1"; else fail "$1 is not installed"; fi; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || {
    cat "$tmp/install.log" >&2
    fail "cmake --install failed"
    exit 1
}

step "installed files"
for f in bin/lowerscope-cli bin/lowerscope-runner share/lowerscope/opcodes.json share/lowerscope/help \
    share/lowerscope/kernels/saxpy.cu share/lowerscope/kernels/saxpy.json; do
    need_file "$f"
done
# Man pages: when the build found help2man (cmake/install.cmake), one per program and subcommand.
if grep -q '^HELP2MAN_EXECUTABLE:FILEPATH=/' "$build/CMakeCache.txt"; then
    for p in lowerscope-cli lowerscope-cli-build lowerscope-cli-inspect lowerscope-cli-doctor lowerscope-runner; do
        page=share/man/man1/$p.1
        need_file "$page"
        [ -e "$prefix/$page" ] && ! grep -q '^\.TH ' "$prefix/$page" && fail "$page has no .TH header"
    done
    # The subcommand pages are the subcommands' own --help: an option of `build` is on its page.
    grep -q -- 'arch' "$prefix/share/man/man1/lowerscope-cli-build.1" || fail "lowerscope-cli-build.1 does not list --arch"
else
    skip "man pages (the build found no help2man)"
fi
if [ "$gui" = 1 ]; then
    app=io.github.lowerscope.Lowerscope
    for f in bin/lowerscope share/applications/$app.desktop share/metainfo/$app.metainfo.xml \
        share/icons/hicolor/scalable/apps/lowerscope.svg share/man/man1/lowerscope.1; do
        need_file "$f"
    done
    for s in 16 24 32 48 64 128 256; do
        png=$prefix/share/icons/hicolor/${s}x${s}/apps/lowerscope.png
        # The PNG header's width and height (bytes 16..23, big endian).
        dims=$(od -An -tu1 -j16 -N8 "$png" 2>/dev/null | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}' || true)
        [ "$dims" = "${s}x${s}" ] && ok "icon ${s}x${s}" || fail "icon $png is '$dims', not ${s}x${s}"
    done
    if command -v appstreamcli >/dev/null; then
        if appstreamcli validate --no-net --explain "$prefix/share/metainfo/$app.metainfo.xml" >"$tmp/as.log" 2>&1; then
            ok "appstreamcli validate"
        else
            cat "$tmp/as.log" >&2
            fail "appstreamcli validate"
        fi
    else
        skip "appstreamcli validate (no appstreamcli: Debian package appstream)"
    fi
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$prefix/share/applications/$app.desktop" && ok "desktop-file-validate" ||
            fail "desktop-file-validate"
    fi
fi

step "no build-folder paths in the installed programs"
elves=()
for f in "$prefix"/bin/*; do
    [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && elves+=("$f")
done
[ "${#elves[@]}" -ge 2 ] || fail "fewer than two ELF programs in $prefix/bin"
for f in "${elves[@]}"; do
    rpath=$(readelf -d "$f" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
    case ":$rpath:" in
    *"$build"* | *"$source"*) fail "$(basename "$f") has RUNPATH '$rpath' into the build or source folder" ;;
    *) ok "$(basename "$f"): RUNPATH '${rpath}'" ;;
    esac
    # Strings in the loaded read-only data naming a file under the build folder. The build folder
    # itself is compiled in (core/build/toolchain.cpp: the program compares its own location with it
    # to tell a build-folder run); a path *below* it would be a file the installed program reads.
    objcopy -O binary --only-section=.rodata "$f" "$tmp/rodata" 2>/dev/null || : >"$tmp/rodata"
    below=$(strings -n 8 "$tmp/rodata" | grep -F "$build/" | grep -vxF "$build" | head -3 || true)
    [ -z "$below" ] && ok "$(basename "$f"): no path below the build folder" ||
        fail "$(basename "$f") names build-folder files: $below"
done
# Behaviour: with $LOWERSCOPE_TOOLS_DIR unset, the installed doctor finds nothing in the checkout's
# .tools/ or the build folder (a build-folder program would: toolchain.cpp's fallback).
env -u LOWERSCOPE_TOOLS_DIR "$prefix/bin/lowerscope-cli" doctor --json "$tmp/doctor-bare.json" >/dev/null 2>&1 || true
if [ -s "$tmp/doctor-bare.json" ]; then
    leaked=$(grep -o '"path": *"[^"]*"' "$tmp/doctor-bare.json" | grep -F -e "$build/" -e "$source/.tools" || true)
    [ -z "$leaked" ] && ok "the installed doctor uses no build-folder tool path" ||
        fail "the installed doctor found tools through build-folder paths: $leaked"
else
    fail "the installed lowerscope-cli doctor --json wrote nothing"
fi

step "the installed lowerscope-cli"
# As a user would: the checkout's tool folder (nvdisasm, cuobjdump from scripts/bootstrap) named in
# the environment, when it exists.
if [ -z "${LOWERSCOPE_TOOLS_DIR:-}" ] && [ -d "$source/.tools/bin" ]; then
    export LOWERSCOPE_TOOLS_DIR=$source/.tools/bin
fi
export LOWERSCOPE_CACHE_DIR=$tmp/cache
cd "$tmp"
"$prefix/bin/lowerscope-cli" --version >/dev/null && ok "lowerscope-cli --version" || fail "lowerscope-cli --version"
"$prefix/bin/lowerscope-runner" --help >/dev/null 2>&1 && ok "lowerscope-runner --help" || fail "lowerscope-runner --help"
rc=0
"$prefix/bin/lowerscope-cli" doctor --json "$tmp/doctor.json" >"$tmp/doctor.txt" 2>&1 || rc=$?
cat "$tmp/doctor.txt"
case $rc in
0) ok "doctor: every tool found" ;;
2) ok "doctor ran (exit 2: a tool is missing, see above)" ;;
*) fail "doctor exited $rc" ;;
esac
have_nvcc=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["toolchain"]; print(int(all(t[k]["found"] for k in ("nvcc","ptxas","nvdisasm"))))' "$tmp/doctor.json" 2>/dev/null || echo 0)
saxpy=$prefix/share/lowerscope/kernels/saxpy.cu
if [ "$have_nvcc" = 1 ]; then
    if "$prefix/bin/lowerscope-cli" build "$saxpy" --json "$tmp/build.json" >"$tmp/build.txt" 2>&1 &&
        python3 - "$tmp/build.json" "$saxpy" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] and d["source"] == sys.argv[2], d.get("error")
names = [k["name"] for k in d["kernels"]]
assert len(names) == 1 and names[0].startswith("saxpy("), names
assert d["kernels"][0]["sass"].count("FFMA") >= 1
EOF
        ok "build share/lowerscope/kernels/saxpy.cu"
    else
        cat "$tmp/build.txt" >&2
        fail "the installed lowerscope-cli could not build saxpy.cu"
    fi
    # The installed CLI starts the installed runner next to it (no --runner, no $LOWERSCOPE_RUNNER).
    if [ -n "$fake_gpu" ] && [ -f "$fake_gpu" ]; then
        if env -u LOWERSCOPE_RUNNER LOWERSCOPE_LIBCUDA="$fake_gpu" LOWERSCOPE_LIBCUPTI="$fake_gpu" \
            "$prefix/bin/lowerscope-cli" run "$saxpy" --arg n=4096 --min-samples 5 --min-time 0 --max-time 5 \
            --json "$tmp/run.json" >"$tmp/run.txt" 2>&1 || [ -s "$tmp/run.json" ]; then
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="lowerscope.run/1" and len(d["samples_ms"])>=5' \
                "$tmp/run.json" && ok "run on the fake GPU through the installed runner" ||
                fail "the installed run wrote no samples"
        else
            cat "$tmp/run.txt" >&2
            fail "the installed lowerscope-cli run failed"
        fi
    else
        skip "run through the installed runner (no fake GPU library given)"
    fi
else
    skip "build and run (nvcc, ptxas or nvdisasm not found)"
fi

if [ "$gui" = 1 ]; then
    step "offscreen screenshot from the installed lowerscope"
    shot=$tmp/shot.png
    rc=0
    QT_QPA_PLATFORM=offscreen timeout 120 "$prefix/bin/lowerscope" "$saxpy" --size 1200x800 --screenshot "$shot" \
        --quit-after-build >"$tmp/gui.txt" 2>&1 || rc=$?
    if [ -s "$shot" ] && python3 - "$shot" <<'EOF'; then
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert w >= 600 and h >= 400, (w, h)
# The decoded image must not be one flat colour: count distinct pixel byte values.
idat, i = b"", 8
while i < len(data):
    n, kind = struct.unpack(">I4s", data[i:i + 8])
    if kind == b"IDAT":
        idat += data[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
assert len(set(raw)) > 40, "a nearly blank image"
print(f"   {w}x{h}, {len(data)} bytes, {len(set(raw))} distinct byte values")
EOF
        ok "screenshot (lowerscope exit $rc)"
    else
        cat "$tmp/gui.txt" >&2
        fail "no usable screenshot from the installed lowerscope (exit $rc)"
    fi

else
    skip "screenshot (built without the GUI)"
fi

step "cpack -G DEB"
if ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
    skip "the .deb (no dpkg-deb or dpkg-shlibdeps: Debian package dpkg-dev)"
elif cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; then
    deb=$(ls "$tmp"/pkg/*.deb | head -1)
    dpkg-deb -I "$deb" >"$tmp/deb-info.txt"
    dpkg-deb -c "$deb" >"$tmp/deb-files.txt"
    depends=$(sed -n 's/^ Depends: //p' "$tmp/deb-info.txt")
    echo "   Depends: $depends"
    wants=('libstdc\+\+6' 'libc6')
    files=(./usr/bin/lowerscope-cli ./usr/bin/lowerscope-runner ./usr/share/lowerscope/kernels/saxpy.cu)
    grep -q '^HELP2MAN_EXECUTABLE:FILEPATH=/' "$build/CMakeCache.txt" && files+=(./usr/share/man/man1/lowerscope-cli.1)
    if [ "$gui" = 1 ]; then
        # Qt 6, QScintilla and Graphviz by Debian package name (dpkg-shlibdeps), and the plugins
        # loaded at run time (cmake/install.cmake).
        wants+=('libqt6widgets6' 'libqt6core6' 'libqscintilla2-qt6-[0-9]+' '(libgvc6|libcgraph6)' 'qt6-qpa-plugins')
        files+=(./usr/bin/lowerscope ./usr/share/applications/$app.desktop ./usr/share/metainfo/$app.metainfo.xml
            ./usr/share/icons/hicolor/scalable/apps/lowerscope.svg)
    fi
    for want in "${wants[@]}"; do
        echo "$depends" | grep -Eq "(^|[ ,])$want( |,|\$)" && ok "Depends names $want" || fail "Depends lacks $want"
    done
    echo "$depends" | grep -Eqi 'cuda|nvidia' && fail "Depends names CUDA (it is found at run time)"
    for f in "${files[@]}"; do
        grep -q " $f\$" "$tmp/deb-files.txt" && ok "package holds $f" || fail "package lacks $f"
    done
else
    cat "$tmp/cpack.log" >&2
    fail "cpack -G DEB failed"
fi

if [ "$fails" != 0 ]; then
    echo "install test: $fails check(s) FAILED" >&2
    exit 1
fi
echo "install test: passed"
