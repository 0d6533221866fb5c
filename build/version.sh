#!/bin/sh
# build/version.sh [ldflags]: the version Cairn is built as, from git, in a
# form Debian accepts, so that `cairn version`, the .deb's Version field and
# the bundle's name are the same string:
#   tag v0.2.0 on HEAD          0.2.0
#   5 commits after it          0.2.0+5.g50d6237
#   no tag yet                  0.1.0+dev.612.g50d6237 (FyneApp.toml's Version,
#                               the commits in HEAD's history, the commit)
#   uncommitted changes         .dirty appended
# With "ldflags" it prints the -X flags that stamp the version, the commit
# and the build date (UTC; $SOURCE_DATE_EPOCH when set) into
# cairn/core/buildinfo.
set -eu
cd "$(dirname "$0")/.."
base=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	v="$base+dev" commit=
else
	commit=$(git rev-parse HEAD)
	short=$(git rev-parse --short=7 HEAD)
	if tag=$(git describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null); then
		v=${tag#v}
		n=$(git rev-list --count "$tag..HEAD")
		[ "$n" = 0 ] || v="$v+$n.g$short"
	else
		v="$base+dev.$(git rev-list --count HEAD).g$short"
	fi
	if ! git diff --quiet HEAD -- 2>/dev/null; then
		case $v in *+*) v="$v.dirty" ;; *) v="$v+dirty" ;; esac
		commit="$commit-dirty"
	fi
fi
if [ "${1:-}" = ldflags ]; then
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
	else
		date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	fi
	p=cairn/core/buildinfo
	echo "-X $p.version=$v -X $p.commit=$commit -X $p.date=$date"
else
	echo "$v"
fi
