#!/bin/sh
# package-libs.sh PACKAGE LIBDIR adds the GPU backend libraries that `make
# vulkan` builds (LIBDIR, bin/lib) to the tarball `fyne package` made: at
# usr/local/lib/cairn, where an installed cairn looks for them
# (core/llm.LibraryDirs: ../lib/cairn beside the executable), and to the
# tarball's Makefile, whose install targets fyne writes for the binary,
# icon and desktop file only. Without libraries it says so and leaves the
# package as it is: that package runs models on the CPU.
set -eu
pkg=$1 libs=$2
if ! ls "$libs"/*.so* >/dev/null 2>&1; then
	echo "package: no GPU backend in $libs (make vulkan builds it); the package runs models on the CPU only"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$pkg" -C "$tmp"
prefix=usr/local
[ -d "$tmp/$prefix/bin" ] || prefix=usr
mkdir -p "$tmp/$prefix/lib/cairn"
cp "$libs"/*.so* "$tmp/$prefix/lib/cairn/"
# Each install target copies the libraries beside its bin/ as lib/cairn;
# each uninstall target removes that folder.
sed -i \
	-e "s|^\(\tinstall -Dm00755 $prefix/bin/\$(Exec) \$(DESTDIR)\$(PREFIX)/bin/\$(Exec)\)\$|\1\n\tinstall -Dm00755 -t \$(DESTDIR)\$(PREFIX)/lib/cairn $prefix/lib/cairn/*|" \
	-e "s|^\(\tinstall -Dm00755 $prefix/bin/\$(Exec) \$(DESTDIR)\$(HOME)/.local/bin/\$(Exec)\)\$|\1\n\tinstall -Dm00755 -t \$(DESTDIR)\$(HOME)/.local/lib/cairn $prefix/lib/cairn/*|" \
	-e "s|^\(\t-rm \$(DESTDIR)\$(PREFIX)/bin/\$(Exec)\)\$|\1\n\t-rm -r \$(DESTDIR)\$(PREFIX)/lib/cairn|" \
	-e "s|^\(\t-rm \$(DESTDIR)\$(HOME)/.local/bin/\$(Exec)\)\$|\1\n\t-rm -r \$(DESTDIR)\$(HOME)/.local/lib/cairn|" \
	"$tmp/Makefile"
if [ "$(grep -c 'lib/cairn' "$tmp/Makefile")" -ne 4 ]; then
	echo "package: fyne's Makefile changed; the GPU libraries' install lines were not added" >&2
	exit 1
fi
tar -cJf "$pkg" -C "$tmp" usr Makefile
echo "package: added $(ls "$libs" | tr '\n' ' ')at $prefix/lib/cairn"
