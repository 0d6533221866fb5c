#!/bin/sh
# build/dist/bundle.sh BIN GPULIBDIR DISTINFO OUTDIR: Cairn's portable
# bundle, OUTDIR/cairn-VERSION-linux-amd64.tar.xz (`make bundle`): a folder
# that runs on a glibc machine with none of Cairn's packages installed.
#
#   cairn                 the launcher (launcher.sh): library path, PATH, TESSDATA_PREFIX
#   bin/cairn             the program (BIN)
#   bin/pdftotext ...     poppler's tools that Cairn runs (distinfo programs)
#   lib/                  every library those load (ldd), the GLFW's X11 libraries
#                         it opens itself, the Vulkan loader the GPU backend links
#   lib/cairn/            the GPU backend (GPULIBDIR), when `make vulkan` built it
#   lib/compat/           libstdc++ and libgcc_s, used unless the system's are newer
#   lib/glvnd/            the GL dispatch library, used only where the system has none
#   share/tessdata/       Tesseract's data for the languages of the default settings
#   share/applications/, share/icons/   the desktop entry and icon
#   licenses/             each Debian package's copyright file, the Go modules' licences,
#                         LIBRARIES.tsv: file, package, version, licences
#   VERSION, README.txt
#
# glibc (libc6) is the system's. BIN is stamped by build/version.sh.
set -eu
bin=$1 gpulib=$2 distinfo=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
version=$("$bin" version | sed -n '1s/^cairn //p')
[ -n "$version" ] || die "$bin version printed no version"
name=cairn-$version-linux-amd64
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/bin" "$root/share/tessdata" "$root/share/applications" \
	"$root/share/icons" "$root/licenses/debian" "$root/licenses/go"

cp "$bin" "$root/bin/cairn"
cp "$here/launcher.sh" "$root/cairn"
chmod 755 "$root/cairn"
echo "$version" >"$root/VERSION"

# The programs Cairn needs (poppler's); the optional ones are the desktop's.
elves=$root/bin/cairn
packages=
for prog in $("$distinfo" programs | awk '$2 == "required" { print $1 }'); do
	p=$(program "$prog" poppler-utils)
	cp "$p" "$root/bin/"
	elves="$elves $root/bin/$prog"
	packages="$packages $(owner "$p")"
done
if ls "$gpulib"/libggml-vulkan.so >/dev/null 2>&1; then
	mkdir -p "$root/lib/cairn"
	cp -L "$gpulib"/libggml-vulkan.so "$gpulib"/libggml-base.so.0 "$root/lib/cairn/"
	elves="$elves $root/lib/cairn/libggml-vulkan.so"
	gpu="Vulkan (lib/cairn)"
else
	echo "bundle: no GPU backend in $gpulib (make vulkan builds it): this bundle runs models on the CPU"
	gpu="none: models run on the CPU"
fi

# The libraries, with GLFW's dlopen'd X11 libraries and theirs.
for so in $GLFW_DLOPEN; do
	elves="$elves $(system_lib "$so")"
done
packages="$packages $(LD_LIBRARY_PATH=$root/lib/cairn bundle_libs "$root" $elves)"

# Tesseract's data for the default languages.
for l in $("$distinfo" tessdata); do
	f=$(tessdata "$l")
	cp "$f" "$root/share/tessdata/"
	packages="$packages $(owner "$f")"
done

# The desktop entry and icon; `./cairn --install-menu-entry` points them here.
"$here/desktop-entry.sh" cairn io.cairn.app >"$root/share/applications/io.cairn.app.desktop"
cp resources/icon.png "$root/share/icons/io.cairn.app.png"

# Licences: each Debian package a file came from, and the Go modules linked.
for p in $(echo $packages | tr ' ' '\n' | sort -u); do
	copy_copyright "$p" "$root/licenses/debian"
done
go_notices "$bin" "$root/licenses/go" >"$root/licenses/GO-MODULES.txt"
cat >"$root/licenses/README.txt" <<EOF
Cairn $version bundles the programs, libraries and data below; each keeps its own licence.

debian/PACKAGE      the copyright file of each Debian 12 package a bundled file came from
LIBRARIES.tsv       each bundled library: file, folder, package, version, licences
go/MODULE/...       the licence files of the Go modules compiled into bin/cairn (GO-MODULES.txt
                    lists them with their versions), with those of llama.cpp and ggml inside ollama's
EOF

cat >"$root/README.txt" <<EOF
Cairn $version for Linux on x86-64 (glibc 2.36 or newer; built on Debian 12).

Run it from this folder, installing nothing:

    ./cairn                  the window (on a desktop; without a display it shows the knowledge base)
    ./cairn help             the commands
    ./cairn doctor           what works here
    ./cairn bench gpu        every GPU against the CPU, on models it generates (needs the GPU's driver only)
    ./cairn --install-menu-entry   put Cairn in the application menu (--remove-menu-entry takes it out)
    ./cairn --ldd            the libraries it loads on this machine

GPU backend: $gpu. The bundle brings the Vulkan loader; a GPU needs its vendor's driver
(NVIDIA's, or Mesa's for AMD and Intel). glibc and the GL driver are this machine's.
Your knowledge bases and settings live in your home folder, not here: deleting this folder
removes the program only. Licences: licenses/README.txt.
EOF

mkdir -p "$out"
tarball=$out/$name.tar.xz
XZ_OPT=${XZ_OPT:--6 -T0} tar -cJf "$tarball" --owner=0 --group=0 -C "$stage" "$name"
echo "bundle: $tarball ($(du -m "$tarball" | cut -f1) MB; $(du -sm "$root" | cut -f1) MB unpacked, $(ls "$root/lib" "$root/lib/compat" "$root/lib/glvnd" | grep -c '\.so') libraries)"
