#!/usr/bin/env bash
# Prepares a Debian machine (as root) to build and run the image with podman: installs podman,
# runc, debootstrap and podman-compose from Debian when missing, and writes the containers.conf
# these machines need (no ulimits to set, cgroupfs instead of systemd, runc instead of crun).
# An existing /etc/containers/containers.conf is left alone.
set -euo pipefail
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v podman-compose >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq podman runc debootstrap podman-compose >/dev/null
fi
if [ ! -f /etc/containers/containers.conf ]; then
  mkdir -p /etc/containers
  cat >/etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF
fi
podman --version
