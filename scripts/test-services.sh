#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis for the scale-out tests and benchmark: both on 127.0.0.1,
# on free ports, with their data in a temporary directory.
#
#   eval "$(scripts/test-services.sh start)"   # prints export lines, including SKILLPORT_TEST_SERVICES_DIR
#   scripts/test-services.sh stop "$SKILLPORT_TEST_SERVICES_DIR"
#
# Needs Debian's `postgresql` and `redis-server` packages. PostgreSQL refuses to run as
# root, so as root the cluster is run by the `postgres` user the package created.
set -euo pipefail

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  local dir
  dir="$(mktemp -d /tmp/skillport-services.XXXXXX)"
  chmod 755 "$dir"
  mkdir "$dir/pg"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir/pg"
  local pg_port redis_port
  pg_port="$(free_port)"
  redis_port="$(free_port)"
  as_pg "$bin/initdb" -D "$dir/pg/data" -U skillport --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1
  as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$dir/pg -c max_connections=300 -c fsync=on" \
    start >"$dir/pg_ctl.log" 2>&1
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
    --daemonize yes --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  # Wait for Redis to answer.
  for _ in $(seq 1 50); do
    redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "export SKILLPORT_TEST_SERVICES_DIR=$dir"
  echo "export SKILLPORT_TEST_DATABASE_URL=postgres://skillport@127.0.0.1:$pg_port/postgres"
  echo "export SKILLPORT_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
}

stop() {
  local dir="$1"
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  [ -d "$dir/pg/data" ] && as_pg "$bin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  [ -f "$dir/redis.pid" ] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:?usage: $0 stop DIR}" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
