#!/usr/bin/env bash
# Makes sure the Go toolchain that go.mod asks for is available. When `go` is
# missing or older, the toolchain is fetched from the Go module proxy (the
# same zip `GOTOOLCHAIN=auto` would fetch) into $CAIRN_GO_HOME, which the
# Makefile puts first on PATH. Needs curl and unzip.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(awk '/^go /{print $2}' go.mod)
dest=${CAIRN_GO_HOME:-$HOME/.cache/cairn/go}
have=$( (PATH="$dest/bin:$PATH" go env GOVERSION 2>/dev/null || true) | sed 's/^go//')
if [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" = "$want" ]; then
	exit 0
fi
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
proxy=${GOPROXY:-}; proxy=${proxy%%,*}
[ -n "$proxy" ] && [ "$proxy" != direct ] && [ "$proxy" != off ] || proxy=https://proxy.golang.org
url="$proxy/golang.org/toolchain/@v/v0.0.1-go$want.linux-$arch.zip"
echo "Installing Go $want from $url into $dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL "$url" -o "$tmp/go.zip"
unzip -q "$tmp/go.zip" -d "$tmp"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/golang.org/toolchain@v0.0.1-go$want.linux-$arch" "$dest"
chmod +x "$dest"/bin/* "$dest"/pkg/tool/*/* 2>/dev/null || true
"$dest/bin/go" version
