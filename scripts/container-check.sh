#!/usr/bin/env bash
# Builds the image and runs deploy/compose.yaml (two replicas, Redis, nginx), then asks nginx
# for a code_search summary and every replica for its first page. Run by .ci/run only where a
# container engine answers; test/deploy checks the same files against real processes otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

docker build --tag evident:local .
docker run --rm evident:local --version

if ! docker compose version >/dev/null 2>&1; then
  echo "container-check: no docker compose; the image was built and runs"
  exit 0
fi

export EVIDENT_AUTH_TOKEN="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("hex"))')"
export EVIDENT_CURSOR_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("hex"))')"
export EVIDENT_WORKSPACE="$PWD/src"
export EVIDENT_PUBLIC_PORT="${EVIDENT_PUBLIC_PORT:-18080}"
compose=(docker compose --project-name evident-ci --file deploy/compose.yaml)
trap '"${compose[@]}" down --volumes --remove-orphans >/dev/null 2>&1 || true' EXIT
"${compose[@]}" up --detach --wait --wait-timeout 180

node --input-type=module - <<'JS'
const url = `http://127.0.0.1:${process.env.EVIDENT_PUBLIC_PORT}/mcp`;
const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${process.env.EVIDENT_AUTH_TOKEN}`,
  "mcp-protocol-version": "2025-11-25",
};
let id = 0;
async function codeSearch(args) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "code_search", arguments: args } });
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`);
  const json = text.trim().startsWith("{") ? JSON.parse(text) : JSON.parse(text.split("\n").find((l) => l.startsWith("data: ")).slice(6));
  if (json.result?.isError) throw new Error(json.result.content[0].text);
  return json.result.content[0].text;
}
const summary = await codeSearch({ pattern: "export", mode: "summary" });
let cursor = /"cursor":"([A-Za-z0-9_-]+)"/.exec(summary)?.[1];
if (!cursor) throw new Error(`no cursor in:\n${summary}`);
// Round robin: two calls in a row reach both replicas; both continue the same snapshot.
for (let i = 0; i < 2; i++) {
  const page = await codeSearch({ cursor, limit: 5 });
  if (!/^\[1\] /m.test(page)) throw new Error(`page ${i + 1} does not start at [1]:\n${page}`);
}
console.log("container-check: one search, its first page from both replicas through nginx");
JS
