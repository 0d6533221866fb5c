#!/bin/sh
# Cairn's portable bundle: runs bin/cairn with the libraries in lib/, the
# poppler tools in bin/ and Tesseract's data in share/tessdata, whatever
# this machine has installed. glibc and the graphics driver are the
# system's. Beyond cairn's own commands:
#   ./cairn --ldd [FILE...]        the libraries bin/cairn (or FILE) loads here
#   ./cairn --install-menu-entry   put Cairn in the desktop's application menu
#   ./cairn --remove-menu-entry    take it out again
set -eu
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
lib=$here/lib

# The desktop's own programs (viewers, pickers) get back the library path
# found here (ui/desktop: outsideEnv).
export CAIRN_BUNDLE="$here"
if [ "${LD_LIBRARY_PATH+set}" = set ]; then
	export CAIRN_OUTER_LD_LIBRARY_PATH="$LD_LIBRARY_PATH"
fi
path=$lib

# ldcache: the dynamic linker's cache (ldconfig is in /sbin on Debian).
ldcache() { { /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null || true; } | grep x86-64; }

# libstdc++ and libgcc_s are the bundle's unless the system's libstdc++ is
# newer: a newer GL or Vulkan driver may need the newer one.
if [ -f "$lib/compat/libstdc++.version" ]; then
	ours=$(cat "$lib/compat/libstdc++.version")
	theirs=$(readlink -f "$(ldcache | awk '$1 == "libstdc++.so.6" { print $NF; exit }')" 2>/dev/null | sed -n 's/.*libstdc++\.so\.//p')
	if [ -z "$theirs" ] || [ "$(printf '%s\n%s\n' "$theirs" "$ours" | sort -V | tail -n1)" = "$ours" ]; then
		path=$path:$lib/compat
	fi
fi
# The GL dispatch library (libglvnd) is the driver's side: the bundle's
# only where the system has none (a machine without a display, where the
# commands run headless).
if ! ldcache | grep -q '^[[:space:]]*libGL\.so\.1 '; then
	path=$path:$lib/glvnd
fi
export LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$here/bin:$PATH"
# Tesseract's English data, unless the person points elsewhere.
export TESSDATA_PREFIX="${TESSDATA_PREFIX:-$here/share/tessdata}"

menu=${XDG_DATA_HOME:-$HOME/.local/share}/applications/io.cairn.app.desktop
case ${1-} in
--ldd)
	shift
	[ $# -gt 0 ] || set -- "$here/bin/cairn"
	exec ldd "$@"
	;;
--install-menu-entry)
	mkdir -p "$(dirname "$menu")"
	sed -e "s|^Exec=.*|Exec=\"$here/cairn\"|" -e "s|^Icon=.*|Icon=$here/share/icons/io.cairn.app.png|" \
		"$here/share/applications/io.cairn.app.desktop" >"$menu"
	echo "Cairn is in the application menu: $menu"
	exit 0
	;;
--remove-menu-entry)
	rm -f "$menu"
	echo "Removed $menu"
	exit 0
	;;
esac
exec "$here/bin/cairn" "$@"
