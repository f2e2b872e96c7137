/**
 * What an operator sees of a running HTTP server, over real loopback HTTP: `GET /metrics` after
 * calls of each outcome (ok, invalid_arguments, a provider failure from a loopback Tavily, a call
 * refused at the concurrency bound), JSON log lines with request ids, and a W3C traceparent
 * carried from the request to the vendor's request and the log line.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { secretsFromEnv } from "../../src/config/logging.js";
import { resolveSettings } from "../../src/config/settings.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { createStderrLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { legacyHeaders, messagesOf, openCall, raw, toolCall } from "../adapters/http-raw.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { parseExposition } from "./exposition.js";

const TOKEN = `${"k".repeat(HTTP_MIN_TOKEN_CHARS)}-bearer`;
const PROVIDER_KEY = "tvly-provider-key-that-must-stay-secret";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const META_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

interface Held {
  readonly arrived: Promise<void>;
  release(): void;
}

function held(): Held & { arrive(): void } {
  let arrive = () => {};
  let release = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { arrived, arrive, release, released } as Held & { arrive(): void; released: Promise<void> };
}

let base: string;
let vendor: Loopback;
let server: RunningHttpServer;
let registry: ToolRegistry;
const lines: string[] = [];
const hold = held() as ReturnType<typeof held> & { released: Promise<void> };

/** A loopback Tavily: the query says how it answers. */
function tavily(): Promise<Loopback> {
  return startLoopback((_req, res, body) => {
    const { query } = JSON.parse(body) as { query: string };
    const answer = () => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ results: [{ title: "One", url: "https://example.org/one", content: "a snippet" }] }),
      );
    };
    if (query === "fail") {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: `internal; your key ${PROVIDER_KEY} is fine` }));
    } else if (query === "hold") {
      hold.arrive();
      void hold.released.then(answer);
    } else answer();
  });
}

function post(body: string, extra: Record<string, string> = {}) {
  return raw(`${server.url}`, { method: "POST", headers: { ...legacyHeaders(TOKEN), ...extra }, body });
}

function scrape(headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  return raw(server.url.replace(/\/mcp$/, "/metrics"), { headers });
}

function resultOf(body: string): { isError?: boolean; content: Array<{ text: string }> } {
  const [message] = messagesOf(body);
  return message?.result as { isError?: boolean; content: Array<{ text: string }> };
}

describe("what an operator sees over HTTP", () => {
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "evident-observe-"));
    vendor = await tavily();
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: base,
      XDG_CONFIG_HOME: join(base, "config"),
      EVIDENT_CACHE_DIR: join(base, "cache"),
      TAVILY_API_KEY: PROVIDER_KEY,
      EVIDENT_TAVILY_BASE_URL: vendor.url,
      EVIDENT_SEARCH_ROUTE: "tavily",
      EVIDENT_AUTH_TOKEN: TOKEN,
    };
    const logger = createStderrLogger({
      level: "debug",
      write: (line) => lines.push(line),
      secrets: secretsFromEnv(env),
    });
    registry = createProductRegistry({
      cwd: base,
      settings: resolveSettings(env),
      logger,
      surface: "http",
      confined: true,
    });
    server = await startHttpServer({
      registry,
      logger,
      settings: resolveHttpSettings({ ...env, EVIDENT_HTTP_PORT: "0", EVIDENT_HTTP_MAX_CONCURRENT: "1" }),
    });
  });

  after(async () => {
    hold.release();
    await server?.close();
    await registry?.close();
    await vendor?.close();
    await rm(base, { recursive: true, force: true });
  });

  it("A05: GET /metrics refuses without the bearer token or with a wrong one, and answers with it", async () => {
    assert.equal((await scrape({})).status, 401);
    assert.equal((await scrape({ authorization: `Bearer ${"x".repeat(HTTP_MIN_TOKEN_CHARS)}` })).status, 401);
    const answer = await scrape();
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    parseExposition(answer.body);
  });

  it("counts calls of each outcome, provider attempts and failures, and a call refused at the concurrency bound", async () => {
    const before = parseExposition((await scrape()).body);
    const ok = await post(toolCall(1, "web_search", { query: "ok" }), { traceparent: TRACEPARENT });
    assert.equal(resultOf(ok.body).isError, undefined, ok.body);
    const invalid = await post(toolCall(2, "web_search", { query: "" }));
    assert.match(resultOf(invalid.body).content[0]?.text ?? "", /invalid_arguments/);
    const failed = await post(toolCall(3, "web_search", { query: "fail" }));
    assert.match(resultOf(failed.body).content[0]?.text ?? "", /all_providers_failed|provider_failed/);

    // A call held at the vendor takes the one concurrency slot: the next is refused, and the
    // scrape (which takes no slot) sees it in flight.
    const running = openCall(server.url, legacyHeaders(TOKEN), toolCall(4, "web_search", { query: "hold" }));
    await hold.arrived;
    const refused = await post(toolCall(5, "web_search", { query: "ok" }));
    assert.equal(refused.status, 503);
    const during = parseExposition((await scrape()).body);
    assert.equal(during.value("evident_http_calls_in_flight"), 1);
    hold.release();
    assert.equal(await running.started, 200);
    await running.ended;

    const after = parseExposition((await scrape()).body);
    const moved = (name: string, labels: Record<string, string>) =>
      (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    const calls = (outcome: string) =>
      moved("evident_tool_calls_total", { tool: "web_search", surface: "http", outcome });
    assert.equal(calls("ok"), 2);
    assert.equal(calls("invalid_arguments"), 1);
    assert.equal(
      calls("all_providers_failed") + calls("provider_failed"),
      1,
      "the provider failure is counted under its error code",
    );
    assert.equal(moved("evident_provider_attempts_total", { provider: "tavily", operation: "search" }), 3);
    assert.equal(
      moved("evident_provider_failures_total", {
        provider: "tavily",
        operation: "search",
        reason: "server_error",
      }),
      1,
    );
    assert.equal(moved("evident_http_calls_refused_total", {}), 1);
    assert.equal(after.value("evident_http_calls_in_flight"), 0);
    assert.equal(moved("evident_tool_call_duration_seconds_count", { tool: "web_search" }), 4);
    assert.equal(
      after.value("evident_tool_call_duration_seconds_bucket", { tool: "web_search", le: "+Inf" }),
      after.value("evident_tool_call_duration_seconds_count", { tool: "web_search" }),
    );
    assert.equal(after.types.get("evident_tool_call_duration_seconds"), "histogram");
    assert.equal(after.types.get("evident_kept_bytes"), "gauge");
    assert.equal(after.types.get("evident_kept_evictions_total"), "counter");
    assert.equal(after.types.get("evident_child_processes_running"), "gauge");
  });

  it("a valid traceparent header reaches the vendor's request and the call's log line; a malformed one is dropped", async () => {
    vendor.requests.length = 0;
    const answer = await post(toolCall(10, "web_search", { query: "ok" }), {
      traceparent: TRACEPARENT,
      tracestate: "vendor=opaque",
    });
    assert.equal(resultOf(answer.body).isError, undefined, answer.body);
    const requestId = String(answer.headers["x-request-id"]);
    assert.match(requestId, /^[0-9a-f-]{36}$/);
    assert.equal(vendor.requests[0]?.headers.traceparent, TRACEPARENT);
    assert.equal(vendor.requests[0]?.headers.tracestate, "vendor=opaque");
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const callLine = logged.find((line) => line.msg === "tool call" && line.requestId === requestId);
    assert.ok(callLine, "the call's log line carries the request id of its HTTP answer");
    assert.equal(callLine.traceId, TRACE_ID);
    assert.equal(callLine.tool, "web_search");
    assert.equal(callLine.outcome, "ok");

    vendor.requests.length = 0;
    for (const malformed of [
      TRACEPARENT.toUpperCase(),
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `${TRACEPARENT}-extra`,
      `ff${TRACEPARENT.slice(2)}`,
    ]) {
      await post(toolCall(11, "web_search", { query: "ok" }), { traceparent: malformed, tracestate: "a=b" });
    }
    assert.equal(vendor.requests.length, 4);
    for (const request of vendor.requests) {
      assert.equal(request.headers.traceparent, undefined);
      assert.equal(
        request.headers.tracestate,
        undefined,
        "tracestate travels only beside a valid traceparent",
      );
    }
  });

  it("a call's _meta.traceparent (2026-07-28) reaches the vendor, over the request's header", async () => {
    vendor.requests.length = 0;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 20,
      method: "tools/call",
      params: { name: "web_search", arguments: { query: "ok" }, _meta: { traceparent: META_TRACEPARENT } },
    });
    const answer = await post(body, { traceparent: TRACEPARENT });
    assert.equal(resultOf(answer.body).isError, undefined, answer.body);
    assert.equal(vendor.requests[0]?.headers.traceparent, META_TRACEPARENT);
  });

  it("logs are one JSON object per line, and neither the bearer token nor the provider key appears in any", () => {
    assert.ok(lines.length > 0);
    for (const line of lines) {
      assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"), "one line each");
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.equal(typeof parsed.time, "string");
      assert.equal(typeof parsed.level, "string");
      assert.equal(typeof parsed.msg, "string");
      assert.ok(!line.includes(TOKEN), "no bearer token");
      assert.ok(!line.includes(PROVIDER_KEY), "no provider key");
    }
    const callLines = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === "tool call");
    assert.ok(callLines.length >= 4);
    for (const line of callLines) assert.equal(typeof line.requestId, "string");
  });
});
