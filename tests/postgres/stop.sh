#!/usr/bin/env bash
# Stops a cluster started by start.sh and removes its directory.
#   tests/postgres/stop.sh DIR
set -uo pipefail
dir=${1:?the directory start.sh printed}
[[ "$dir" == /tmp/colmena-pg.* ]] || { echo "not a cluster of start.sh: $dir" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
as_owner=()
[[ $(id -u) == 0 ]] && as_owner=(runuser -u postgres --)
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
rm -rf "$dir"
