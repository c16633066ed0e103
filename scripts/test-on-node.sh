#!/usr/bin/env bash
# Runs the test suite on another major version of Node.js, for the versions skillport
# supports beside the machine's own (package.json "engines"; the README says 20, 22 and 24).
#
#   scripts/test-on-node.sh 22      # the newest 22.x
#
# Node comes from the npm registry (the `node-linux-<arch>` package holds the official
# build, with the headers native modules compile against), never from a download site.
# The checkout's files (tracked, and new ones git does not ignore), as they are in the
# working tree, are copied to a temporary directory and installed there with that Node:
# better-sqlite3 compiles for its ABI there, and the checkout's node_modules stay as they
# are. Services the tests use (SKILLPORT_TEST_DATABASE_URL, SKILLPORT_TEST_REDIS_URL) pass
# through from the environment.
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:?usage: scripts/test-on-node.sh MAJOR_VERSION}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac

work="$(mktemp -d /tmp/skillport-node"$major".XXXXXX)"
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "node-linux-$arch@$major" >/dev/null && tar -xzf node-linux-*.tgz)
node_home="$work/package"

mkdir "$work/checkout"
git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work/checkout"

cd "$work/checkout"
export PATH="$node_home/bin:$PATH"
# node-gyp builds native modules against these headers rather than the machine's Node's.
export npm_config_nodedir="$node_home"
echo "node $(node --version), npm $(npm --version), in $work/checkout"
npm ci --no-audit --no-fund
npm test
