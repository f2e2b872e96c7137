/**
 * The product's tools behave the same on every surface: the same bad input gets the same
 * `invalid_arguments` naming the same field over MCP stdio, MCP HTTP, the CLI and the SDK.
 * stdio is the built package's server (npm test builds first), as users run it; the CLI is the
 * executable's `runCli` in this process (test/adapters/run-evident.ts); the process contract
 * of a refusal (exit 2, the payload on stderr) is cli-language.test.ts's.
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings } from "../../src/config/settings.js";
import { CODE_PATTERN_MAX_CHARS, WEB_QUERY_MAX_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createEvident, EvidentError } from "../../src/index.js";
import { createProductRegistry, PRODUCT_TOOL_NAMES } from "../../src/tools/product.js";
import { connectHttp, connectStdio } from "../helpers/mcp-client.js";
import { evidentInProcess } from "./run-evident.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TOKEN = "s".repeat(40);
const EMPTY_ENV = { PATH: process.env.PATH ?? "" };

/** [tool, arguments, offending field]. */
const BAD_INPUT: Array<[string, Record<string, unknown>, string]> = [
  ["code_search", { pattern: "" }, "pattern"],
  ["code_search", { pattern: 7 }, "pattern"],
  ["code_search", { pattern: "a", bogus: true }, "bogus"],
  ["code_search", { pattern: "a", context: 21 }, "context"],
  ["code_search", { pattern: "x".repeat(CODE_PATTERN_MAX_CHARS + 1) }, "pattern"],
  ["web_search", { query: "" }, "query"],
  ["web_search", { query: "q", maxResults: 0 }, "maxResults"],
  ["web_search", { query: "q", maxResults: "five" }, "maxResults"],
  ["web_search", { query: "x".repeat(WEB_QUERY_MAX_CHARS + 1) }, "query"],
  ["web_search", { query: "q", extra: 1 }, "extra"],
  ["web_read", { url: 5 }, "url"],
  ["web_read", { url: "https://example.com/", focus: "" }, "focus"],
];

/** The same cases as CLI flags. */
const BAD_FLAGS: Array<[string[], string]> = [
  [["grep", ""], "pattern"],
  [["grep", "a", "--bogus", "1"], "bogus"],
  [["grep", "a", "-C", "21"], "context"],
  [["grep", "x".repeat(CODE_PATTERN_MAX_CHARS + 1)], "pattern"],
  [["search", ""], "query"],
  [["search", "q", "--max-results", "0"], "maxResults"],
  [["search", "q", "--max-results", "five"], "maxResults"],
  [["search", "q", "--extra", "1"], "extra"],
  [["read", "https://example.com/", "--focus", ""], "focus"],
];

function payloadOf(result: { content?: unknown; isError?: boolean }) {
  assert.equal(result.isError, true);
  const [first] = (result.content ?? []) as Array<{ text?: string }>;
  return JSON.parse(first?.text ?? "{}").error as { code: string; field: string };
}

describe("A07: bad input reads the same on every surface", () => {
  let stdio: Client;
  let http: Client;
  let server: RunningHttpServer;

  before(async () => {
    stdio = (await connectStdio({ name: "surfaces", cwd: ROOT })).client;
    server = await startHttpServer({
      registry: createProductRegistry({
        cwd: ROOT,
        settings: resolveSettings(EMPTY_ENV),
        logger: silentLogger,
      }),
      logger: silentLogger,
      settings: resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    });
    http = await connectHttp(server.url, { name: "surfaces", token: TOKEN });
  });

  after(async () => {
    await stdio.close();
    await http.close();
    await server.close();
  });

  it("A04: stdio and HTTP list the same product tools with the same schemas", async () => {
    const [a, b] = await Promise.all([stdio.listTools(), http.listTools()]);
    assert.deepEqual(
      a.tools.map((t) => t.name),
      [...PRODUCT_TOOL_NAMES],
    );
    assert.deepEqual(a.tools, b.tools);
  });

  for (const [tool, args, field] of BAD_INPUT) {
    const label = `${tool} ${JSON.stringify(args).slice(0, 60)} -> ${field}`;
    it(`stdio: ${label}`, async () => {
      const error = payloadOf(await stdio.callTool({ name: tool, arguments: args }));
      assert.deepEqual([error.code, error.field], ["invalid_arguments", field]);
    });
    it(`HTTP: ${label}`, async () => {
      const error = payloadOf(await http.callTool({ name: tool, arguments: args }));
      assert.deepEqual([error.code, error.field], ["invalid_arguments", field]);
    });
    it(`SDK: ${label}`, async () => {
      const evident = createEvident({ cwd: ROOT, env: EMPTY_ENV, logger: silentLogger });
      try {
        const method = {
          code_search: evident.codeSearch,
          web_search: evident.webSearch,
          web_read: evident.webRead,
        }[tool] as (input: unknown) => Promise<unknown>;
        await assert.rejects(method(args), (error: unknown) => {
          assert.ok(error instanceof EvidentError);
          assert.deepEqual([error.code, error.details.field], ["invalid_arguments", field]);
          return true;
        });
      } finally {
        await evident.close();
      }
    });
  }

  for (const [argv, field] of BAD_FLAGS) {
    it(`CLI: ${argv.join(" ").slice(0, 60)} -> ${field}`, async () => {
      const run = await evidentInProcess(argv, { cwd: ROOT, env: EMPTY_ENV });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      const { error } = JSON.parse(run.stderr);
      assert.deepEqual([error.code, error.field], ["invalid_arguments", field]);
    });
  }
});
