#!/bin/sh
# Installs a team cluster's pieces on Debian from this repository, as root
# (docs/team.md, "Three commands on Debian"):
#
#   install.sh node                          a Weaviate node (cairn-weaviate.service), after `make bin/weaviate-server`
#   install.sh indexer FOLDER NAME URL       cairn index on a timer (cairn-index.timer), after `make build`;
#                                            the cluster's key from CAIRN_WEAVIATE_KEY
#
# A settings file already in /etc/cairn is kept (its key too), so running
# it again updates the binaries and units only. ROOT, BIN, SYSTEMCTL and
# USERADD are for its test: ROOT=/tmp/x installs under /tmp/x.
set -eu
cd "$(dirname "$0")/../.."
ROOT=${ROOT:-}
BIN=${BIN:-bin}
SYSTEMCTL=${SYSTEMCTL:-systemctl}
USERADD=${USERADD:-useradd}

# user NAME HOME: a system user that owns the service's state.
user() {
	id "$1" >/dev/null 2>&1 || $USERADD --system --home-dir "$2" --shell /usr/sbin/nologin "$1"
}

# settings TEMPLATE FILE SED-SCRIPT: the service's settings, private, made
# once from the template.
settings() {
	if [ -e "$ROOT$2" ]; then
		echo "kept $2"
		return
	fi
	install -d -m 0755 "$ROOT/etc/cairn"
	(umask 077 && sed -e "$3" "$1" >"$ROOT$2")
	echo "wrote $2"
}

units() {
	for u in "$@"; do
		install -D -m 0644 "build/systemd/$u" "$ROOT/etc/systemd/system/$u"
	done
	install -D -m 0644 docs/team.md "$ROOT/usr/local/share/doc/cairn/team.md"
	$SYSTEMCTL daemon-reload
}

case "${1:-}" in
node)
	[ -x "$BIN/weaviate-server" ] || { echo "install.sh: build the server first: make bin/weaviate-server" >&2; exit 1; }
	user weaviate /var/lib/weaviate
	install -D -m 0755 "$BIN/weaviate-server" "$ROOT/usr/local/bin/weaviate-server"
	key=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' || echo 127.0.0.1)
	if [ ! -e "$ROOT/etc/cairn/weaviate.env" ]; then
		echo "The cluster's API key (CAIRN_WEAVIATE_KEY on the desktops): $key"
	fi
	settings build/systemd/weaviate.env /etc/cairn/weaviate.env \
		"s/^AUTHENTICATION_APIKEY_ALLOWED_KEYS=.*/AUTHENTICATION_APIKEY_ALLOWED_KEYS=$key/; s/^CLUSTER_HOSTNAME=.*/CLUSTER_HOSTNAME=$(hostname -s)/; s/^CLUSTER_ADVERTISE_ADDR=.*/CLUSTER_ADVERTISE_ADDR=$addr/"
	units cairn-weaviate.service
	$SYSTEMCTL enable --now cairn-weaviate.service
	;;
indexer)
	[ $# -eq 4 ] || { echo "usage: install.sh indexer FOLDER NAME URL (the key in CAIRN_WEAVIATE_KEY)" >&2; exit 2; }
	[ -x "$BIN/cairn" ] || { echo "install.sh: build Cairn first: make build" >&2; exit 1; }
	[ -n "${CAIRN_WEAVIATE_KEY:-}" ] || [ -e "$ROOT/etc/cairn/index.env" ] || { echo "install.sh: give the cluster's key in CAIRN_WEAVIATE_KEY" >&2; exit 2; }
	user cairn /var/lib/cairn
	install -D -m 0755 "$BIN/cairn" "$ROOT/usr/local/bin/cairn"
	# | cannot occur in a path sed sees here: it separates sed's fields.
	settings build/systemd/index.env /etc/cairn/index.env \
		"s|^CAIRN_INDEX_FOLDER=.*|CAIRN_INDEX_FOLDER=$2|; s|^CAIRN_INDEX_AS=.*|CAIRN_INDEX_AS=$3|; s|^CAIRN_STORE_URL=.*|CAIRN_STORE_URL=$4|; s|^CAIRN_WEAVIATE_KEY=.*|CAIRN_WEAVIATE_KEY=${CAIRN_WEAVIATE_KEY:-}|"
	units cairn-index.service cairn-index.timer
	$SYSTEMCTL enable --now cairn-index.timer
	;;
*)
	echo "usage: install.sh node | install.sh indexer FOLDER NAME URL" >&2
	exit 2
	;;
esac
