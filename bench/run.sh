#!/usr/bin/env bash
# Builds natter and the load generator, then runs the benchmark; flags pass through to
# natterbench (see bench/README.md), e.g. bash bench/run.sh -duration 5s -conns 32.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build="$(mktemp -d "${TMPDIR:-/tmp}/natterbench-build.XXXXXX")"
trap 'rm -rf "$build"' EXIT

echo "run.sh: building natter and natterbench into $build" >&2
go build -o "$build/natter" ./cmd/natter
go build -o "$build/natterbench" ./bench/cmd/natterbench

"$build/natterbench" -natter "$build/natter" -out "$root/bench/out/results.md" \
	-command "bash bench/run.sh${*:+ $*}" "$@"
