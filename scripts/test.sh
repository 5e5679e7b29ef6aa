#!/usr/bin/env bash
# `npm test`: the whole suite, as CI runs it. Formatting, lint and types first (cheap), then the production
# build (the CLI and browser tests run it), then unit + integration tests on embedded Postgres and real Redis,
# then the database-facing ones again on the machine's PostgreSQL (the production engine), then the CLI and
# Chromium tests against the built app. Ends with one line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-test-deps.sh
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}"
mkdir -p .cache/test-results
rm -f .cache/test-results/*.json

echo "== format, lint, import rules, types"
npx prettier --check . --log-level warn
npx eslint . --max-warnings 0
npx depcruise app db domain pipeline sync --config .dependency-cruiser.cjs
npx tsc --noEmit

echo "== build"
npx remix vite:build --logLevel warn

status=0
echo "== unit and integration tests"
npx vitest run --reporter=default --reporter=json --outputFile=.cache/test-results/vitest.json || status=1
echo "== database-facing tests on PostgreSQL"
npx vitest run --config vitest.postgres.config.ts --reporter=default --reporter=json \
  --outputFile=.cache/test-results/postgres.json || status=1
echo "== CLI and browser tests (built app, Chromium)"
npx vitest run --config vitest.e2e.config.ts --reporter=default --reporter=json \
  --outputFile=.cache/test-results/e2e.json || status=1

node scripts/summarize-tests.js .cache/test-results/vitest.json .cache/test-results/postgres.json \
  .cache/test-results/e2e.json || status=1
exit $status
