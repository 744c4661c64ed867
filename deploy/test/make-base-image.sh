#!/usr/bin/env bash
# Makes a local stand-in for node:20-bookworm-slim, for machines that cannot pull from Docker's
# registry (CI here): Debian bookworm (debootstrap minbase, from the Debian archive apt already
# uses), this machine's Node 20 and npm where the official image has them (/usr/local), a `node`
# user of uid 1000, and the CA bundle NODE_EXTRA_CA_CERTS names, so that npm inside `podman build`
# reaches the registry through this network. Only a test fixture: the Dockerfile is built against
# it unchanged, and a user builds the same Dockerfile against the real image.
#
# Usage: deploy/test/make-base-image.sh [image name]   (default node:20-bookworm-slim)
# Skips the work when the image exists and was made from the same Node version (a cache between
# CI runs on one machine); FORCE=1 makes it again.
set -euo pipefail
image="${1:-node:20-bookworm-slim}"
node_bin="$(readlink -f "$(command -v node)")"
node_version="$("$node_bin" --version)"
case "$node_version" in v20.*) ;; *) echo "make-base-image: needs Node 20, found $node_version" >&2; exit 1 ;; esac

if [ "${FORCE:-0}" != 1 ] && made="$(podman image inspect --format '{{ index .Labels "querygate.stand-in.node" }}' "$image" 2>/dev/null)"; then
  case "$made" in
    "$node_version") echo "make-base-image: $image (stand-in, Node $node_version) already exists" && exit 0 ;;
    "" | "<no value>") echo "make-base-image: $image exists and is not a stand-in (pulled?): kept" && exit 0 ;;
  esac
fi

# The Debian mirror apt uses here (deb822 sources first, then the one-line format).
mirror="$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -m1 '/debian/\?$' || true)"
if [ -z "$mirror" ]; then
  mirror="$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
ca_bundle="${NODE_EXTRA_CA_CERTS:-}"

root="$(mktemp -d /var/tmp/querygate-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "make-base-image: debootstrap bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"

install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
env_args=()
if [ -n "$ca_bundle" ] && [ -f "$ca_bundle" ]; then
  install -D -m 0644 "$ca_bundle" "$root/usr/local/share/querygate-stand-in/ca.crt"
  env_args+=(--change "ENV NODE_EXTRA_CA_CERTS=/usr/local/share/querygate-stand-in/ca.crt")
fi
# What the minbase system does not need at run time.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
  "$root"/usr/share/man/* "$root"/usr/share/locale/*

tar -C "$root" -c . | podman import \
  --change 'CMD ["node"]' \
  --change 'ENV NODE_VERSION='"${node_version#v}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL querygate.stand-in.node=$node_version" \
  "${env_args[@]}" --quiet - "$image" >/dev/null
echo "make-base-image: made $image (Debian bookworm minbase + Node $node_version, $(podman image inspect --format '{{ .Size }}' "$image") bytes)"
