#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (Debian's `postgresql` package: initdb and
# pg_ctl) in a temporary directory, listening on 127.0.0.1 only, and prints
# two lines: the URL to reach it and the directory (give it to stop.sh).
#
#   tests/postgres/start.sh [--durable]
#
# Without --durable the cluster skips fsync (tests kill replicas, never the
# database); the benchmarks pass --durable so commits cost what they cost.
# initdb refuses to run as root: as root the cluster belongs to `postgres`.
set -euo pipefail

durable=0
[[ "${1:-}" == "--durable" ]] && durable=1
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$bin/initdb" ]] || { echo "PostgreSQL is not installed (apt install postgresql)" >&2; exit 1; }

dir=$(mktemp -d /tmp/colmena-pg.XXXXXX)
chmod 755 "$dir"
as_owner=()
if [[ $(id -u) == 0 ]]; then
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U colmena --auth=trust -E UTF8 --no-locale >"$dir/initdb.log"
options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400"
if [[ $durable == 0 ]]; then
  options="$options -c fsync=off -c full_page_writes=off"
fi
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$options" -w -t 60 start >/dev/null
echo "postgres://colmena@127.0.0.1:$port/postgres"
echo "$dir"
