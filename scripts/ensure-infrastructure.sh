#!/usr/bin/env bash
# Makes sure PostgreSQL (5432), Redis (6379) and NATS with JetStream (4222) answer on 127.0.0.1.
# With --with-chromium (tests, CI) it also installs Debian's Chromium for the report rendering tests
# and the openssl command the TLS tests make their throw-away certificates with.
# A service that is down is started; a service that is not installed is installed from Debian's
# packages first (this needs root and apt). Every action is printed, so an operator sees what changed.
set -euo pipefail

PG_PORT=${PG_PORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}
NATS_PORT=${NATS_PORT:-4222}

say() { printf '[infra] %s\n' "$*"; }
is_up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_up() { # port name
  for _ in $(seq 1 60); do is_up "$1" && return 0; sleep 0.5; done
  say "$2 did not come up on 127.0.0.1:$1"; return 1
}
apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null; then say "cannot install $*: no apt-get on this machine"; return 1; fi
  if [ "$apt_updated" = 0 ]; then say "apt-get update"; apt-get update -qq; apt_updated=1; fi
  say "installing from Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_postgres() {
  if is_up "$PG_PORT"; then say "PostgreSQL is up on $PG_PORT"; return; fi
  if ! command -v pg_ctlcluster >/dev/null; then
    apt_install postgresql
    # Trust authentication on loopback, as the services and tests connect without a password.
    for hba in /etc/postgresql/*/main/pg_hba.conf; do
      sed -i -E 's/^(local|host)(\s+\S+\s+\S+\s+.*)\s(peer|scram-sha-256|md5)\s*$/\1\2 trust/' "$hba"
    done
  fi
  say "starting PostgreSQL"
  for v in $(ls /etc/postgresql); do pg_ctlcluster --skip-systemctl-redirect "$v" main start || true; done
  wait_up "$PG_PORT" PostgreSQL
}

ensure_redis() {
  if is_up "$REDIS_PORT"; then say "Redis is up on $REDIS_PORT"; return; fi
  command -v redis-server >/dev/null || apt_install redis-server
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_up "$REDIS_PORT" Redis
}

ensure_nats() {
  if is_up "$NATS_PORT"; then say "NATS is up on $NATS_PORT"; return; fi
  command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || apt_install nats-server
  say "starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p "$NATS_PORT" -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_up "$NATS_PORT" NATS
}

# Headless Chromium renders the pre-qualification report in the end-to-end tests (driven by playwright-core).
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then say "Chromium is installed"; return; fi
  apt_install chromium || say "could not install Chromium: the report rendering tests will fail"
}

# The TLS tests of db.url / data.cache-server.url make a throw-away CA and server certificates with it.
ensure_openssl() {
  if command -v openssl >/dev/null; then say "openssl is installed"; return; fi
  apt_install openssl || say "could not install openssl: the TLS connection tests will fail"
}

ensure_postgres
ensure_redis
ensure_nats
if [ "${1:-}" = --with-chromium ]; then ensure_chromium; ensure_openssl; fi
