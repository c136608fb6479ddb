#!/bin/sh
# Builds a container image of each benchapp from its own Dockerfile (benchapps/<app>/Dockerfile), tagged
# <registry>/<app with / as ->:<tag>, e.g. opsbench/cpu-loop-node-http:latest, the names infra/targets use.
#   infra/images/build.sh [registry] [tag]      (docker or podman; push them yourself)
set -eu
registry="${1:-opsbench}"
tag="${2:-latest}"
engine="$(command -v docker || command -v podman || true)"
[ -n "$engine" ] || { echo "needs docker or podman" >&2; exit 1; }
cd "$(dirname "$0")/../../benchapps"
for dockerfile in */Dockerfile */*/Dockerfile; do
  app="$(dirname "$dockerfile")"
  image="$registry/$(echo "$app" | tr / -):$tag"
  echo "building $image from benchapps/$app"
  "$engine" build -t "$image" "$app"
done
