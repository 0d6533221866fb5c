#!/bin/sh
# build/dist/test-dist.sh DEB TARBALL: Cairn's .deb and portable bundle on
# clean systems (`make test-dist`, as root). It makes a minimal Debian 12 (debootstrap
# --variant=minbase, from the mirror apt uses here) and copies it, then:
#
#  1. in the first: apt-get installs the .deb, and headless runs
#     cairn version (the package's version), doctor (no check fails, OCR and
#     the PDF reader pass), an index of a PDF, a DOCX and a scanned PNG
#     (3 indexed, 0 failed), a search that must find each, and an answer
#     quoted from the scan; the window opens on an X server (Xvfb, when
#     this machine has it) with Mesa's GL, which the .deb's Depends bring;
#     apt-get remove then leaves none of the package's files, and the
#     knowledge base (the person's data) stays;
#  2. in the second, installing nothing: unpacks the bundle, checks that
#     every library its programs load is the bundle's but glibc's (ldd
#     under the launcher), and runs the same commands, and the GPU kit
#     (`cairn bench gpu`) on the CPU; then installs the drivers alone,
#     Mesa's GL and Vulkan (lavapipe), and opens the window and runs the
#     kit on lavapipe, whose vectors must match the CPU's.
#
# TEST_DIST_DIR (default /var/tmp/cairn-test-dist) holds the roots; they
# are removed at the end unless TEST_DIST_KEEP=1.
set -eu
[ $# = 2 ] || { echo "usage: test-dist.sh DEB TARBALL" >&2; exit 2; }
deb=$(readlink -f "$1") tarball=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${TEST_DIST_DIR:-/var/tmp/cairn-test-dist}
die() { echo "test-dist: FAIL: $*" >&2; exit 1; }
step() { echo "test-dist: $(date +%H:%M:%S) $*"; }
ok() { echo "test-dist:   ok: $*"; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || die "needs debootstrap (apt-get install debootstrap)"
[ -f "$deb" ] && [ -f "$tarball" ] || die "no $1 or $2 (make deb bundle)"
version=$(dpkg-deb -f "$deb" Version)
bundle=$(basename "$tarball" .tar.xz)
[ "$bundle" = "cairn-$version-linux-amd64" ] || die "the bundle $bundle and the .deb $version name different versions"

# The mirror and suites apt uses here (one-line and deb822 sources alike):
# "URL SUITE COMPONENTS" for each bookworm suite.
sources() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 == "deb" && $3 ~ /^bookworm/ { $1 = ""; sub(/\[[^]]*\] */, ""); print }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk '
			function flush() { if (types ~ /(^| )deb( |$)/) { n = split(suites, s, " "); m = split(uris, u, " ");
				for (i = 1; i <= m; i++) for (j = 1; j <= n; j++) if (s[j] ~ /^bookworm/) print u[i], s[j], comps }
				types = uris = suites = comps = "" }
			/^[[:space:]]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[[:space:]]*/, ""); types = $0 }
			/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
			/^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
			/^Components:/ { sub(/^Components:[[:space:]]*/, ""); comps = $0 }
			END { flush() }' "$f"
	done
}
mirror=$(sources | awk '$2 == "bookworm" { print $1; exit }')
[ -n "$mirror" ] || die "no Debian 12 (bookworm) mirror in /etc/apt/sources.list*"

if awk -v w="$work/" 'index($2, w) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
	die "$work has mounts left from an earlier run: umount them first"
fi
rm -rf "$work" && mkdir -p "$work"
# cleanup unmounts what the roots have mounted (their /proc, the X
# server's socket folder) before it removes them: never a removal through
# a mount.
cleanup() {
	for m in $(awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	[ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null || true
	if awk -v w="$work/" 'index($2, w) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		echo "test-dist: $work still has mounts; left in place" >&2
	elif [ "${TEST_DIST_KEEP:-}" != 1 ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT INT TERM

step "debootstrap --variant=minbase bookworm from $mirror"
t0=$(date +%s)
debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
sources | sed 's/^/deb /' >"$work/base/etc/apt/sources.list"
cp /etc/resolv.conf "$work/base/etc/resolv.conf" 2>/dev/null || true
ok "minimal Debian 12 in $(($(date +%s) - t0)) s, $(du -sm "$work/base" | cut -f1) MB, $(chroot "$work/base" dpkg-query -W | wc -l) packages"
cp -a "$work/base" "$work/bundle"
mv "$work/base" "$work/deb"

for r in "$work/deb" "$work/bundle"; do
	mount -t proc proc "$r/proc"
done

# inroot ROOT CMD...: a command in the root, headless, as a person's shell
# would run it (HOME /root, no DISPLAY).
inroot() {
	r=$1
	shift
	chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive ${DISPLAY_IN:+DISPLAY=$DISPLAY_IN} "$@"
}

# The documents: a PDF, a DOCX and a scanned image (testdata/formats).
docs() {
	mkdir -p "$1/root/docs"
	cp "$repo/testdata/formats/ligatures.pdf" "$repo/testdata/formats/report.docx" "$repo/testdata/formats/scan.png" "$1/root/docs/"
}

# use ROOT CAIRN: version, doctor, index, search and ask, headless.
use() {
	r=$1 cairn=$2
	v=$(inroot "$r" $cairn version) || die "cairn version failed: $v"
	[ "$(echo "$v" | head -n1)" = "cairn $version" ] || die "cairn version says $(echo "$v" | head -n1), the package $version"
	echo "$v" | grep -q '^GPU backend: Vulkan, ' || die "cairn version: no GPU backend: $v"
	ok "cairn version: $(echo "$v" | head -n1); $(echo "$v" | tail -n1)"
	d=$(inroot "$r" $cairn doctor 2>&1) || { echo "$d" >&2; die "cairn doctor failed"; }
	echo "$d" | grep -q "^PASS version: $version " || die "cairn doctor names another version: $d"
	echo "$d" | grep -q '^PASS OCR: Tesseract .* with eng$' || die "OCR: $d"
	echo "$d" | grep -q '^PASS PDF reader: poppler ' || die "PDF reader: $d"
	ok "cairn doctor: $(echo "$d" | grep -c '^PASS') passed, $(echo "$d" | grep -c '^WARN') warnings, 0 failed; $(echo "$d" | grep -E '^PASS (OCR|PDF reader|device):' | paste -sd';' -)"
	docs "$r"
	i=$(inroot "$r" $cairn index /root/docs 2>&1) || { echo "$i" >&2; die "cairn index failed"; }
	echo "$i" | grep -q '3 files seen, 3 indexed, 0 unchanged, 0 skipped, 0 failed' || die "cairn index: $i"
	ok "cairn index: $(echo "$i" | tail -n1)"
	for q in "fjord:ligatures.pdf" "drove road:report.docx" "north cairn leans west:scan.png"; do
		s=$(inroot "$r" $cairn search "${q%%:*}" --json --top-k 1) || die "cairn search ${q%%:*} failed"
		echo "$s" | grep -q "\"path\": \"/root/docs/${q#*:}\"" || die "cairn search '${q%%:*}' did not find ${q#*:} first: $s"
	done
	ok "cairn search: fjord -> ligatures.pdf, drove road -> report.docx, north cairn leans west -> scan.png (OCR)"
	a=$(inroot "$r" $cairn ask "Which cairn leans west?") || die "cairn ask failed: $a"
	echo "$a" | grep -q '^\[1\] /root/docs/scan.png' || die "cairn ask did not cite the scan: $a"
	ok "cairn ask: $(echo "$a" | head -n1)"
}

# window ROOT CAIRN: the window opens on an X server in the root (Xvfb
# here, its socket bound into the root) and shows a window named Cairn.
xvfb=
window() {
	r=$1 cairn=$2
	if ! command -v Xvfb >/dev/null || ! command -v xwininfo >/dev/null; then
		echo "test-dist:   skipped: the window (no Xvfb or xwininfo here: apt-get install xvfb x11-utils)"
		return
	fi
	if [ -z "$xvfb" ]; then
		n=73
		while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
		display=:$n
		Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
		xvfb=$!
		sleep 2
	fi
	mkdir -p "$r/tmp/.X11-unix"
	mountpoint -q "$r/tmp/.X11-unix" || mount --bind /tmp/.X11-unix "$r/tmp/.X11-unix"
	DISPLAY_IN=$display inroot "$r" $cairn >"$work/window.log" 2>&1 &
	pid=$!
	shown=
	for _ in $(seq 60); do
		sleep 1
		if xwininfo -display "$display" -root -tree 2>/dev/null | grep -q '"Cairn'; then
			shown=1
			break
		fi
		kill -0 "$pid" 2>/dev/null || break
	done
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ -n "$shown" ] || { cat "$work/window.log" >&2; die "no window named Cairn on the X server within a minute"; }
	ok "the window opened on Xvfb, drawn by Mesa's GL"
}

step "1. the .deb: apt-get install ./$(basename "$deb") --no-install-recommends"
t0=$(date +%s)
cp "$deb" "$work/deb/tmp/"
inroot "$work/deb" apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; die "apt-get update failed"; }
before=$(inroot "$work/deb" dpkg-query -W | wc -l)
inroot "$work/deb" apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >>"$work/apt.log" 2>&1 ||
	{ tail -n 30 "$work/apt.log" >&2; die "apt-get install failed"; }
ok "installed with $(($(inroot "$work/deb" dpkg-query -W | wc -l) - before - 1)) dependencies in $(($(date +%s) - t0)) s"
for f in /usr/bin/cairn /usr/lib/cairn/libggml-vulkan.so /usr/share/applications/io.cairn.app.desktop /usr/share/man/man1/cairn.1.gz /usr/share/doc/cairn/copyright; do
	[ -f "$work/deb$f" ] || die "the package did not install $f"
done
use "$work/deb" cairn
window "$work/deb" cairn
step "apt-get remove cairn"
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print substr($NF, 2) }')
inroot "$work/deb" apt-get remove -y -qq cairn >>"$work/apt.log" 2>&1 || die "apt-get remove failed"
for f in $files; do
	[ ! -e "$work/deb$f" ] || die "apt-get remove left $f"
done
[ ! -e "$work/deb/usr/lib/cairn" ] || die "apt-get remove left /usr/lib/cairn"
status=$(inroot "$work/deb" dpkg-query -W -f '${db:Status-Abbrev}' cairn 2>/dev/null || true)
case $status in rc* | un* | "") ;; *) die "after remove, dpkg says $status" ;; esac
[ -f "$work/deb/root/.local/share/cairn/kb/default.db" ] || die "the knowledge base went with the package"
ok "removed: none of its $(echo "$files" | wc -w) files left, dpkg knows it no more (${status:-no record}), the knowledge base kept"

step "2. the bundle, installing nothing: $(basename "$tarball")"
tar -xJf "$tarball" -C "$work/bundle/opt"
b=/opt/$bundle
[ "$(cat "$work/bundle$b/VERSION")" = "$version" ] || die "the bundle's VERSION says $(cat "$work/bundle$b/VERSION")"
glibc=$(inroot "$work/bundle" dpkg-query -L libc6 | grep '\.so' | sed 's|.*/||' | sort -u)
outside=
for f in "$b/bin/cairn" "$b/lib/cairn/libggml-vulkan.so" $(cd "$work/bundle$b/bin" && ls | grep -v '^cairn$' | sed "s|^|$b/bin/|"); do
	l=$(inroot "$work/bundle" "$b/cairn" --ldd "$f") || die "ldd $f under the launcher failed"
	if echo "$l" | grep -q 'not found'; then
		echo "$l" | grep 'not found' >&2
		die "$f: libraries not found in the bundle"
	fi
	for p in $(echo "$l" | awk '$2 == "=>" { print $3 }'); do
		case $p in "$b"/*) continue ;; esac
		echo "$glibc" | grep -qx "${p##*/}" || outside="$outside $p"
	done
done
[ -z "$outside" ] || die "libraries from outside the bundle:$outside"
ok "ldd under the launcher: every library of bin/cairn, the GPU backend and poppler's tools is the bundle's, but glibc's"
use "$work/bundle" "$b/cairn"
step "the GPU kit from the bundle, CPU only (no GPU driver here)"
g=$(inroot "$work/bundle" sh -c "cd /root && $b/cairn bench gpu --models embed --chunks 8 --runs 1 --batches 1,8 2>&1") ||
	{ echo "$g" >&2; die "cairn bench gpu failed"; }
echo "$g" | grep -q '^| CPU | ' || die "bench gpu: no CPU row: $g"
[ -s "$work/bundle/root/cairn-bench-gpu.json" ] || die "bench gpu wrote no JSON"
ok "cairn bench gpu: $(echo "$g" | grep '^No GPU found' | cut -c1-100)...; $(echo "$g" | grep '^| CPU | ')"

step "the drivers alone: Mesa's GL and Vulkan (lavapipe)"
t0=$(date +%s)
cp "$work"/deb/var/cache/apt/archives/*.deb "$work/bundle/var/cache/apt/archives/" 2>/dev/null || true
inroot "$work/bundle" apt-get update -qq >>"$work/apt.log" 2>&1
inroot "$work/bundle" apt-get install -y -qq --no-install-recommends libgl1-mesa-dri libglx-mesa0 mesa-vulkan-drivers >>"$work/apt.log" 2>&1 ||
	{ tail -n 30 "$work/apt.log" >&2; die "installing the drivers failed"; }
ok "installed in $(($(date +%s) - t0)) s"
window "$work/bundle" "$b/cairn"
g=$(inroot "$work/bundle" sh -c "cd /root && GGML_VK_VISIBLE_DEVICES=0 $b/cairn bench gpu --models embed --chunks 8 --chunk-tokens 64 --runs 1 --batches 1,8 2>&1") ||
	{ echo "$g" >&2; die "cairn bench gpu on lavapipe failed"; }
echo "$g" | grep -q '^| software GPU: llvmpipe.* | ok: cosine' || die "bench gpu: no lavapipe row with its vectors checked: $g"
ok "cairn bench gpu on lavapipe: $(echo "$g" | grep '^| software GPU')"
step "passed"
