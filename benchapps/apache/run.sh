#!/bin/sh
# Apache httpd (Debian's package apache2) serving htdocs/ on HOST:PORT in the foreground, as study 002's static
# app. httpd.conf reads HOST, PORT and the APACHE_* variables set here (httpd expands ${NAME} from its environment).
# Its pid file and mutexes go to a directory of its own, removed when it stops.
set -eu
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8080}"
bin="$(command -v apache2 || echo /usr/sbin/apache2)"
[ -x "$bin" ] || { echo "apache2 is not installed (Debian: apt-get install apache2)" >&2; exit 1; }
APACHE_RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/opsbench-apache.XXXXXX")"
chmod 755 "$APACHE_RUN_DIR"
APACHE_DOCROOT="$PWD/htdocs"
# Started as root, httpd's children run as www-data (nobody where there is none); otherwise as the caller.
APACHE_RUN_USER="$(id -un)"
APACHE_RUN_GROUP="$(id -gn)"
if [ "$(id -u)" = 0 ]; then
  if id www-data >/dev/null 2>&1; then APACHE_RUN_USER=www-data APACHE_RUN_GROUP=www-data; else APACHE_RUN_USER=nobody APACHE_RUN_GROUP=nogroup; fi
fi
export APACHE_RUN_DIR APACHE_DOCROOT APACHE_RUN_USER APACHE_RUN_GROUP
"$bin" -d "$PWD" -f "$PWD/httpd.conf" -DFOREGROUND &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$APACHE_RUN_DIR"; exit 0' TERM INT
status=0
wait "$pid" || status=$?
rm -rf "$APACHE_RUN_DIR"
exit "$status"
