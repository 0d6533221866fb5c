# build/dist/common.sh: what the .deb (deb.sh) and the portable bundle
# (bundle.sh) both derive from the files they ship, sourced by both. Every
# answer comes from the files and dpkg's database, not from a list kept by
# hand: the libraries from ldd, their packages from dpkg -S, the programs
# and language data from Cairn's code (bin/distinfo).

# GLFW (Fyne's window) opens these X11 libraries with dlopen, so ldd does
# not list them: go-gl/glfw v3.3's src/x11_init.c (_glfw_dlopen). The
# window works without some, but scales and places itself wrongly.
GLFW_DLOPEN="libXrandr.so.2 libXcursor.so.1 libXinerama.so.1 libXi.so.6 libXxf86vm.so.1 libX11-xcb.so.1 libXrender.so.1"

die() { echo "${0##*/}: $*" >&2; exit 1; }

# needed_libs FILE...: every shared library the ELF files load, directly or
# through another (ldd), as absolute paths, one a line; a library ldd cannot
# find is an error.
needed_libs() {
	out=$(for f in "$@"; do ldd "$f" || die "ldd $f failed"; done)
	if echo "$out" | grep -q 'not found'; then
		echo "$out" | grep 'not found' >&2
		die "libraries not found (install them, or build where they are)"
	fi
	echo "$out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u
}

# system_lib NAME: the path of the shared library NAME (a soname) on this
# system, from the dynamic linker's cache.
system_lib() {
	p=$(/sbin/ldconfig -p | awk -v n="$1" '$1 == n && $0 ~ /x86-64/ { print $NF; exit }')
	[ -n "$p" ] || die "$1 is not installed (GLFW loads it: apt-get install the package that has it)"
	echo "$p"
}

# owner FILE: the Debian package FILE came from. With /usr merged, ldd's
# /lib/... may be registered as /usr/lib/... or the other way round. A call
# of dpkg-query reads its whole database, so find_owners asks once for many
# files and owner looks there first.
owner() {
	for f in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
		if [ -n "${owners_cache:-}" ] && p=$(awk -v f="$f" '$2 == f { print $1; exit }' "$owners_cache") && [ -n "$p" ]; then
			echo "$p"
			return
		fi
	done
	for f in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
		if p=$(dpkg-query -S "$f" 2>/dev/null); then
			echo "${p%%:*}" | sed 's/,.*//'
			return
		fi
	done
	die "no Debian package owns $1"
}

# find_owners FILE...: asks dpkg once for the packages of all the files
# (each under its merged-/usr names too), for owner.
find_owners() {
	: "${owners_cache:?set owners_cache to a scratch file}"
	for f in "$@"; do
		echo "$f"
		echo "/usr$f"
		echo "${f#/usr}"
		readlink -f "$f"
	done | sort -u | xargs dpkg-query -S 2>/dev/null |
		sed -n 's/^\([^:,]*\)[^ ]*: \(.*\)$/\1 \2/p' >>"$owners_cache" || true
}

# glibc and the graphics stack's dispatch libraries are left to the system
# (the bundle keeps the latter as a fallback only): lib_class FILE prints
# glibc, gl, compat (libstdc++ and libgcc, used only where the system's are
# older) or plain.
lib_class() {
	case $(owner "$1") in
	libc6) echo glibc ;;
	libgl1 | libglx0 | libglvnd0 | libegl1 | libopengl0 | libgles2) echo gl ;;
	libstdc++6 | libgcc-s1) echo compat ;;
	*) echo plain ;;
	esac
}

# bundle_libs ROOT FILE...: copies into ROOT every library the files load
# (ldd; a FILE outside ROOT is a library to bundle itself), by lib_class:
# lib/, lib/compat/ (with libstdc++.version, the launcher's test) or
# lib/glvnd/; glibc's are left out. Writes ROOT/licenses/LIBRARIES.tsv
# and prints the packages the libraries came from.
bundle_libs() {
	root=$1
	shift
	mkdir -p "$root/lib/compat" "$root/lib/glvnd" "$root/licenses"
	printf 'file\tfolder\tpackage\tversion\tlicences\n' >"$root/licenses/LIBRARIES.tsv"
	libs=$(needed_libs "$@") || exit 1
	owners_cache=$(dirname "$root")/.owners
	find_owners "$@" $libs
	for f in $(for f in "$@"; do case $f in "$root"/*) ;; *) echo "$f" ;; esac; done) $libs; do
		case $f in "$root"/*) continue ;; esac # the bundle's own (the GPU backend's libggml-base)
		base=${f##*/}
		case $(lib_class "$f") in
		glibc) continue ;;
		gl) dir=lib/glvnd ;;
		compat) dir=lib/compat ;;
		*) dir=lib ;;
		esac
		[ -e "$root/$dir/$base" ] && continue
		cp -L "$f" "$root/$dir/$base"
		pkg=$(owner "$f")
		echo "$pkg"
		printf '%s\t%s\t%s\t%s\t%s\n' "$base" "$dir" "$pkg" "$(pkg_version "$pkg")" "$(pkg_licenses "$pkg")" >>"$root/licenses/LIBRARIES.tsv"
	done
	if [ -e "$root/lib/compat/libstdc++.so.6" ]; then
		so=$(readlink -f "$(system_lib libstdc++.so.6)")
		echo "${so##*libstdc++.so.}" >"$root/lib/compat/libstdc++.version"
	fi
}

# pkg_version PACKAGE: the installed version.
pkg_version() { dpkg-query -W -f '${Version}' "$1"; }

# pkg_licenses PACKAGE: the licences its copyright file names: the
# machine-readable format's License: fields, else what its text says.
pkg_licenses() {
	f=/usr/share/doc/$1/copyright
	l=$(sed -n 's/^License:[[:space:]]*\([^[:space:]]\{1,\}\).*/\1/p' "$f" 2>/dev/null | sort -u | paste -sd, - | sed 's/,/, /g')
	if [ -z "$l" ]; then
		if grep -qi 'runtime library exception' "$f"; then
			l="GPL-3+ with the GCC Runtime Library Exception"
		elif grep -qi 'Permission is hereby granted\|Permission to use, copy, modify' "$f"; then
			l="MIT/X11-style"
		elif grep -qi 'Redistribution and use in source and binary forms' "$f"; then
			l="BSD-style"
		elif grep -q 'GNU Lesser General Public\|GNU Library General Public' "$f"; then
			l="LGPL"
		else
			l="see copyright"
		fi
	fi
	echo "$l"
}

# copy_copyright PACKAGE DIR: the package's copyright file, as DIR/PACKAGE.
copy_copyright() {
	[ -f "/usr/share/doc/$1/copyright" ] || die "no /usr/share/doc/$1/copyright"
	cp -L "/usr/share/doc/$1/copyright" "$2/$1"
}

# program PATHNAME NAME: the program NAME on PATH, or an error.
program() {
	command -v "$1" || die "$1 is not installed (Cairn runs it: apt-get install $2)"
}

# tessdata LANG: Tesseract's data file for LANG.
tessdata() {
	for f in /usr/share/tesseract-ocr/*/tessdata/"$1".traineddata; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	die "no Tesseract data for $1 (apt-get install tesseract-ocr-$1)"
}

# go_notices BIN DIR: the licence files of every Go module linked into BIN
# (go version -m), with those of the C sources cgo compiled inside them
# (llama.cpp and ggml in ollama's module), into DIR/MODULE/...; prints
# "MODULE VERSION FILES" per module.
go_notices() {
	modcache=$(go env GOMODCACHE)
	go version -m "$1" | awk '$1 == "dep" { print $2, $3 } $1 == "=>" { print $2, $3 }' | sort -u |
		while read -r mod ver; do
			dir=$modcache/$(echo "$mod" | sed 's/[A-Z]/!\L&/g')@$ver
			[ -d "$dir" ] || continue
			files=$(cd "$dir" && find . -maxdepth 1 -type f \( -iname 'LICEN[CS]E*' -o -iname 'COPYING*' -o -iname 'NOTICE*' \) | sort)
			# cgo compiles vendored C and C++ trees, with their own licences.
			if [ "$mod" = github.com/ollama/ollama ]; then
				files="$files $(cd "$dir" && find ./llama ./ml/backend/ggml -type f -iname 'LICEN[CS]E*' | sort)"
			fi
			for f in $files; do
				mkdir -p "$2/$mod/$(dirname "$f")"
				cp "$dir/$f" "$2/$mod/$f"
			done
			echo "$mod $ver" $files
		done
}
