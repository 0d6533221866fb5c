#!/bin/sh
# build/dist/deb.sh BIN GPULIBDIR DISTINFO OUTDIR: Cairn's Debian package,
# OUTDIR/cairn_VERSION_amd64.deb (`make deb`), built with dpkg-deb from the
# repository's root:
#
#   /usr/bin/cairn                                 BIN, stamped by build/version.sh
#   /usr/lib/cairn/                                the GPU backend, when `make vulkan` built it
#   /usr/share/applications/io.cairn.app.desktop   the desktop entry (desktop-entry.sh)
#   /usr/share/icons/hicolor/512x512/apps/io.cairn.app.png
#   /usr/share/man/man1/cairn.1.gz                 from the commands' help (distinfo man)
#   /usr/share/doc/cairn/copyright                 Cairn's, and the licences of the Go
#                                                  modules compiled in (llama.cpp and ggml too)
#
# Depends is derived, not written: dpkg-shlibdeps on the binary and the
# backend (what they link), the packages of the X11 libraries GLFW opens
# with dlopen, of the programs Cairn runs (distinfo programs: poppler's)
# and of Tesseract's data for the default languages (distinfo tessdata).
# Recommends and Suggests are the desktop's programs (ui/desktop.Programs).
# No maintainer scripts: dpkg's triggers refresh the menu and icon caches,
# and removing the package leaves only the person's own files.
set -eu
bin=$1 gpulib=$2 distinfo=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
version=$("$bin" version | sed -n '1s/^cairn //p')
[ -n "$version" ] || die "$bin version printed no version"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/cairn
install -D -m 755 "$bin" "$root/usr/bin/cairn"
elves=$root/usr/bin/cairn
if ls "$gpulib"/libggml-vulkan.so >/dev/null 2>&1; then
	install -d "$root/usr/lib/cairn"
	install -m 644 "$gpulib"/libggml-vulkan.so "$gpulib"/libggml-base.so.0 "$root/usr/lib/cairn/"
	elves="$elves $root/usr/lib/cairn/libggml-vulkan.so $root/usr/lib/cairn/libggml-base.so.0"
else
	echo "deb: no GPU backend in $gpulib (make vulkan builds it): the package runs models on the CPU"
fi
install -d "$root/usr/share/applications" "$root/usr/share/icons/hicolor/512x512/apps" "$root/usr/share/man/man1" "$root/usr/share/doc/cairn"
"$here/desktop-entry.sh" cairn io.cairn.app >"$root/usr/share/applications/io.cairn.app.desktop"
install -m 644 resources/icon.png "$root/usr/share/icons/hicolor/512x512/apps/io.cairn.app.png"
date=$("$bin" version | sed -n 's/.*built \([0-9-]*\)T.*/\1/p')
"$distinfo" man "${date:-$(date -u +%Y-%m-%d)}" | gzip -9n >"$root/usr/share/man/man1/cairn.1.gz"

# The copyright file: Cairn's, then every licence compiled into the binary.
notices=$stage/notices
{
	cat <<EOF
Cairn $version
Source: $(sed -n 's/^Website *= *"\(.*\)"/\1/p' FyneApp.toml)

Cairn itself: its repository states no licence yet.

/usr/bin/cairn links the Go modules below, with llama.cpp and ggml compiled from
the github.com/ollama/ollama module (/usr/lib/cairn's GPU backend is built from
the same ggml tree). Each module's licence files follow, in full.

EOF
	go_notices "$bin" "$notices" | sed 's/^/  /'
	for f in $(cd "$notices" && find . -type f | sort); do
		printf '\n--- %s\n\n' "${f#./}"
		cat "$notices/$f"
	done
} >"$root/usr/share/doc/cairn/copyright"

# Depends: what the files link (dpkg-shlibdeps reads debian/control, so it
# runs in a scratch source tree; the DEBIAN folder marks the package's
# tree, whose own libraries need no package), what GLFW opens, the
# programs and data.
mkdir -p "$stage/src/debian" "$root/DEBIAN"
printf 'Source: cairn\n\nPackage: cairn\nArchitecture: amd64\n' >"$stage/src/debian/control"
shlibs=$(cd "$stage/src" && dpkg-shlibdeps -O -l"$root/usr/lib/cairn" $elves 2>"$stage/shlibdeps.log") ||
	{ cat "$stage/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
depends=$(echo "$shlibs" | sed -n 's/^shlibs:Depends=//p')
extra=
for so in $GLFW_DLOPEN; do
	extra="$extra $(owner "$(system_lib "$so")")"
done
for prog in $("$distinfo" programs | awk '$2 == "required" { print $1 }'); do
	extra="$extra $(owner "$(program "$prog" poppler-utils)")"
done
for l in $("$distinfo" tessdata); do
	extra="$extra $(owner "$(tessdata "$l")")"
done
for p in $(echo $extra | tr ' ' '\n' | sort -u); do
	depends="$depends, $p"
done

# Recommends: a program to open files with and a folder picker; Suggests:
# a viewer that opens a PDF at the cited page, D-Bus to show a file in
# the file manager. One of each group, in the order Cairn looks for them.
alternatives() {
	"$distinfo" programs | awk -v g="$1" '$2 == "optional" && $3 == g && !seen[$4]++ { print $4 }' | paste -sd'|' - | sed 's/|/ | /g'
}
recommends="$(alternatives open), $(alternatives picker)"
suggests="$(alternatives page), $(alternatives reveal)"

cat >"$root/../control" <<EOF
Package: cairn
Version: $version
Architecture: amd64
Maintainer: $(git log -1 --format='%an <%ae>')
Installed-Size: $(du -sk "$root/usr" | cut -f1)
Depends: $depends
Recommends: $recommends
Suggests: $suggests
Section: utils
Priority: optional
Homepage: $(sed -n 's/^Website *= *"\(.*\)"/\1/p' FyneApp.toml)
Description: $(sed -n 's/^Comment *= *"\(.*\)"/\1/p' FyneApp.toml)
 Cairn indexes the documents in your folders (PDF, Office and OpenDocument
 files, e-books, mail, web pages, text, and scanned pages and images through
 OCR) and answers questions from them with citations to the file and page,
 in a window or on the command line, without sending anything off the
 machine. Local models (GGUF, through llama.cpp) run on the CPU, or on a GPU
 through Vulkan where the GPU backend is installed.
EOF
mv "$root/../control" "$root/DEBIAN/control"
mkdir -p "$out"
deb=$out/cairn_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "deb: $deb ($(du -k "$deb" | cut -f1) KB; Installed-Size $(du -sk "$root/usr" | cut -f1) KB)"
echo "deb: Depends: $depends"
echo "deb: Recommends: $recommends; Suggests: $suggests"
