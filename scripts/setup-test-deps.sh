#!/usr/bin/env bash
# Installs and starts what the test suite needs beyond npm packages, from Debian's packages only:
# Chromium (and a CJK font) for the browser tests, a running Redis for the BullMQ tests, and the pgvector extension in the machine's
# PostgreSQL (built from ../shared/vendor, since Debian 12 has no package of it for PostgreSQL 15) for the tests
# that run on both database engines. Idempotent; prints what it does.
set -euo pipefail

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# Korean text in the Chromium screenshots renders only with a CJK font.
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need_apt+=(fonts-noto-cjk)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from Debian packages"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "setup: starting redis-server on 127.0.0.1:6379"
  mkdir -p /tmp/glossary-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp/glossary-redis \
    --logfile /tmp/glossary-redis/redis.log
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null

# PostgreSQL on 127.0.0.1:5432 (trust auth, user postgres) is started by the machine; pgvector may be missing.
PG_URL="${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
pgvector_available() {
  [ "$(psql "$PG_URL" -Atc "select count(*) from pg_available_extensions where name = 'vector'" 2>/dev/null)" = "1" ]
}
if ! pgvector_available; then
  vendor="$(cd "$(dirname "$0")/../.." && pwd)/shared/vendor/pgvector-0.8.6.tar.gz"
  [ -f "$vendor" ] || { echo "setup: $vendor is missing (pgvector's source)" >&2; exit 1; }
  pg_major="$(psql "$PG_URL" -Atc 'show server_version_num' | cut -c1-2)"
  echo "setup: building pgvector 0.8.6 for PostgreSQL $pg_major from ../shared/vendor"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  if ! dpkg -s "postgresql-server-dev-$pg_major" >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      "postgresql-server-dev-$pg_major" make gcc >/dev/null
  fi
  build="$(mktemp -d)"
  tar xzf "$vendor" -C "$build"
  make -s -C "$build/pgvector-0.8.6" PG_CONFIG="/usr/lib/postgresql/$pg_major/bin/pg_config" >/dev/null
  $SUDO make -s -C "$build/pgvector-0.8.6" PG_CONFIG="/usr/lib/postgresql/$pg_major/bin/pg_config" install >/dev/null
  rm -rf "$build"
  pgvector_available || { echo "setup: pgvector did not install" >&2; exit 1; }
fi
echo "setup: chromium $(chromium --version 2>/dev/null | awk '{print $2}'), redis ready, PostgreSQL with pgvector ready"
