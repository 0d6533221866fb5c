#!/usr/bin/env bash
# build/vulkan/build.sh OUT_LIB_DIR BUILD_DIR: builds libggml-vulkan.so and
# the libggml-base.so it links from the ollama module's ggml tree (see
# CMakeLists.txt here) and copies both into OUT_LIB_DIR. BUILD_DIR is kept:
# the second run only relinks what changed (the shaders take minutes).
# JOBS (default 2) is the parallel build's width.
set -euo pipefail
mkdir -p "$1" "$2"
out=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mod=$(${GO:-go} list -m -f '{{.Dir}}' github.com/ollama/ollama)
src=$build/ggml
# The build folder lies inside Cairn's module (bin/): a go.mod of its own
# keeps `go test ./...` and `go vet ./...` out of the copy's Go files.
[ -f "$build/go.mod" ] || printf 'module cairn-vulkan-build // ignored: see build/vulkan/build.sh\n' >"$build/go.mod"
# A fresh copy only when the module changes: cp -p keeps the files' times,
# so an unchanged tree rebuilds nothing.
if [ "$(cat "$build/ggml.from" 2>/dev/null)" != "$mod" ]; then
	rm -rf "$src" && mkdir -p "$src"
	cp -rp "$mod/ml/backend/ggml/ggml/." "$src/"
	chmod -R u+w "$src"
	find "$src" -name '*.go' -delete
	mkdir -p "$src/src/ggml-vulkan/vulkan-shaders/feature-tests"
	cp -p "$here"/feature-tests/*.comp "$src/src/ggml-vulkan/vulkan-shaders/feature-tests/"
	# Debian 12's Vulkan headers (1.3.239) lack VK_EXT_layer_settings.
	if ! grep -q VK_EXT_layer_settings "$(pkg-config --variable=includedir vulkan)/vulkan/vulkan_core.h"; then
		perl -0pi "$here/old-headers.pl" "$src/src/ggml-vulkan/ggml-vulkan.cpp"
	fi
	echo "$mod" > "$build/ggml.from"
fi
if [ ! -f "$build/cmake/CMakeCache.txt" ]; then
	cmake -S "$here" -B "$build/cmake" -DGGML_SRC="$src" >"$build/configure.log" 2>&1 ||
		{ cat "$build/configure.log" >&2; exit 1; }
	grep -E 'supported by glslc|Vulkan' "$build/configure.log" || true
fi
cmake --build "$build/cmake" --target ggml-vulkan -j "${JOBS:-2}"
mkdir -p "$out"
# libggml-vulkan.so needs libggml-base.so.0 (its soname) beside it ($ORIGIN).
cp -fL "$build/cmake/lib/libggml-vulkan.so" "$build/cmake/lib/libggml-base.so.0" "$out/"
echo "vulkan: $out/libggml-vulkan.so $out/libggml-base.so.0"
