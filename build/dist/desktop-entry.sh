#!/bin/sh
# build/dist/desktop-entry.sh EXEC ICON: the freedesktop.org desktop entry
# for Cairn, from FyneApp.toml (name, comment, categories, keywords), so
# that the .deb, the bundle and the window's own metadata agree.
set -eu
cd "$(dirname "$0")/../.."
field() { sed -n "s/^$1 *= *\"\(.*\)\"/\1/p" FyneApp.toml; }
list() { sed -n "s/^$1 *= *\[\(.*\)\]/\1/p" FyneApp.toml | sed 's/" *, *"/;/g; s/"//g; s/$/;/'; }
cat <<ENTRY
[Desktop Entry]
Type=Application
Name=$(field Name)
GenericName=$(field GenericName)
Comment=$(field Comment)
Exec=$1
Icon=$2
Terminal=false
Categories=$(list Categories)
Keywords=$(list Keywords)
ENTRY
