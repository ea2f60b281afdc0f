#!/usr/bin/env bash
# Makes sure the system parts the demo and the tests run against are present:
#   litecoind (the UTXO dev chain), chromium (UI tests), PostgreSQL running (storage tests),
#   systemd's tools (the deploy test runs systemd-analyze verify on deploy/countersign.service; the
#   package installs without systemd as PID 1, and the test needs no running systemd).
# Installs from Debian's packages when run as root; otherwise says exactly what to run.
set -euo pipefail

missing=()
command -v litecoind >/dev/null 2>&1 || missing+=(litecoind)
if [ "${1:-}" = "--with-browser" ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-system: installing ${missing[*]} from Debian's packages" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "ensure-system: missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# PostgreSQL: start the local cluster when it is installed but down (the storage tests need it).
if [ "${1:-}" = "--with-browser" ] || [ "${1:-}" = "--with-postgres" ]; then
  if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
    if [ "$(id -u)" = "0" ] && [ -d /etc/postgresql ]; then
      echo "ensure-system: starting PostgreSQL" >&2
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    fi
  fi
fi
exit 0
