#!/usr/bin/env bash
# The whole test suite (what `npm test` and CI run): prepares what the tests need on this
# machine, type-checks, lints, runs vitest on SQLite and PostgreSQL, and ends with a plain
# "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_host=127.0.0.1
if ! pg_isready -h "$pg_host" -p 5432 -q 2>/dev/null; then
  echo "PostgreSQL is not answering on $pg_host:5432; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  for _ in $(seq 1 30); do pg_isready -h "$pg_host" -p 5432 -q && break; sleep 1; done
fi

chromium_bin="${PBS_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
  echo "Installing Debian's chromium for the browser tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

# The container image test builds the Dockerfile without a daemon (docs/container.md); where these
# cannot be installed it is skipped and says why.
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v mmdebstrap >/dev/null; then
  echo "Installing podman, runc and mmdebstrap for the container image test"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get update -qq && apt-get install -y -qq podman runc mmdebstrap >/dev/null) || echo "could not install them: the container image test will be skipped"
fi

# Type checks and the build beside the lint (two cores: each is mostly one thread). The build is
# the server as `npx pbs` runs it (tests that start processes start dist/main.js:
# test/support/entry.ts), the SDK and the console and portal pages the browser tests open: each
# rebuilt when its sources changed since it was built (scripts/build-if-stale.mjs).
pids=()
(npx tsc -p tsconfig.check.json && npx tsc -p console/tsconfig.json && node scripts/build-if-stale.mjs) & pids+=($!)
# Lint with type information and the folder rules (eslint.config.js), and the formatting
# (Prettier, .prettierrc.json: `npm run format` fixes it).
(npx eslint . && npm run -s format:check) & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done

report="$(mktemp -t pbs-vitest-XXXXXX.json)"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$report" || true
rm -f "$report"
exit "$status"
