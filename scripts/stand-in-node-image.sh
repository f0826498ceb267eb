#!/usr/bin/env bash
# Builds a local stand-in for the official `node:20-bookworm-slim` image, for machines that
# cannot pull from Docker Hub but reach Debian's archive (docs/container.md "Building without
# Docker Hub"): a Debian bookworm root file system made by mmdebstrap, this machine's Node.js 20
# (node, npm and the headers node-gyp compiles against) in /usr/local as in the official image,
# the `node` user (uid 1000) the Dockerfile runs as, and the certificate authorities this machine
# adds to Debian's (/usr/local/share/ca-certificates: a proxy that inspects TLS, say), so apt and
# npm inside reach what they reach here. The result is tagged with the official
# name, so the Dockerfile builds unchanged with `--pull=never`.
#
#   scripts/stand-in-node-image.sh [podman|buildah]
set -euo pipefail

builder="${1:-podman}"
tag="docker.io/library/node:20-bookworm-slim"
mirror="${PBS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

node_bin="$(command -v node)"
node_prefix="$(cd "$(dirname "$(readlink -f "$node_bin")")/.." && pwd)"
case "$(node -v)" in
  v20.*) ;;
  *) echo "stand-in-node-image: needs Node.js 20 on this machine, found $(node -v)" >&2; exit 1 ;;
esac
[ -d "$node_prefix/lib/node_modules/npm" ] || { echo "stand-in-node-image: npm not found under $node_prefix/lib/node_modules" >&2; exit 1; }
[ -d "$node_prefix/include/node" ] || { echo "stand-in-node-image: Node's headers not found under $node_prefix/include/node" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "stand-in-node-image: mmdebstrap is not installed (apt-get install -y mmdebstrap)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

mmdebstrap --quiet --variant=apt --include=ca-certificates bookworm "$root" "$mirror"

install -D -m 0755 "$(readlink -f "$node_bin")" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/include" "$root/usr/local/etc"
cp -a "$node_prefix/lib/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
cp -a "$node_prefix/include/node" "$root/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
printf 'update-notifier=false\nfund=false\naudit=false\ncafile=/etc/ssl/certs/ca-certificates.crt\n' > "$root/usr/local/etc/npmrc"
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
fi
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

tar -C "$root" -cf "$work/rootfs.tar" .
# npm_config_nodedir: node-gyp compiles against the headers above instead of downloading them
# (nodejs.org may be out of reach; better-sqlite3's prebuilt binary on GitHub too).
case "$builder" in
  podman) podman import --change 'ENV npm_config_nodedir=/usr/local' --change 'CMD ["node"]' "$work/rootfs.tar" "$tag" >/dev/null ;;
  buildah)
    ctr="$(buildah from scratch)"
    buildah add "$ctr" "$work/rootfs.tar" / >/dev/null
    buildah config --env npm_config_nodedir=/usr/local --cmd '["node"]' "$ctr"
    buildah commit --quiet "$ctr" "$tag" >/dev/null
    buildah rm "$ctr" >/dev/null
    ;;
  *) echo "stand-in-node-image: unknown builder $builder" >&2; exit 1 ;;
esac
echo "$tag"
