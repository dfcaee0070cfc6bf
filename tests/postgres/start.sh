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

# The cluster's own CA and the server's certificate (EC keys: fast to make).
tls="$dir/tls"
mkdir "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -keyout "$tls/ca.key" -out "$tls/ca.pem" -subj "/CN=Colmena test CA $(basename "$dir")" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
  -days 2 -extfile "$tls/ext" -out "$tls/server.crt" 2>/dev/null
rm "$tls/ca.key"
chmod 600 "$tls/server.key"
chmod 644 "$tls/ca.pem"
[[ ${#as_owner[@]} -gt 0 ]] && chown -R postgres "$tls"

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U colmena --auth=trust -E UTF8 --no-locale >"$dir/initdb.log"
options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400"
options="$options -c ssl=on -c ssl_cert_file=$tls/server.crt -c ssl_key_file=$tls/server.key"
if [[ $durable == 0 ]]; then
  options="$options -c fsync=off -c full_page_writes=off"
fi
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$options" -w -t 60 start >/dev/null
echo "postgres://colmena@127.0.0.1:$port/postgres"
echo "$dir"
echo "$tls/ca.pem"
