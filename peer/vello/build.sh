#!/usr/bin/env bash
# Build the Vello peer (release): extract vello_encoding 0.11.0 from cargo's registry into
# target/patched, apply vello_encoding-sizes.patch (buffer sizes set by the peer, bin data that
# cannot wrap), build. Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")"
dst=target/patched/vello_encoding-0.11.0
if [ ! -f "$dst/.patched" ]; then
    crate=$(ls ~/.cargo/registry/cache/*/vello_encoding-0.11.0.crate 2>/dev/null | head -1 || true)
    if [ -z "$crate" ]; then
        tmp=$(mktemp -d)
        (cd "$tmp" && cargo init -q --name fetch-vello-encoding && cargo add -q vello_encoding@=0.11.0 && cargo fetch -q)
        rm -rf "$tmp"
        crate=$(ls ~/.cargo/registry/cache/*/vello_encoding-0.11.0.crate | head -1)
    fi
    rm -rf "$dst"
    mkdir -p target/patched
    tar xzf "$crate" -C target/patched
    patch -s -d "$dst" -p1 < vello_encoding-sizes.patch
    touch "$dst/.patched"
fi
cargo build --release --quiet
echo "$PWD/target/release/vello-peer"
