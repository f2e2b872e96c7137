/**
 * Long pages in parts on every surface: a page longer than the budget ends with a cursor, and
 * web_read with that cursor returns the next part of the same document without fetching the
 * page again, until the parts add up to the whole. Over MCP stdio, MCP HTTP, the SDK and the
 * CLI (one process per call, sharing EVIDENT_CACHE_DIR), all against one loopback page. Runs the
 * built package (npm test builds first), as users do.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createEvident } from "../../src/index.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { EVIDENT_CLI as CLI, homeEnv } from "../helpers/built-cli.js";
import { connectHttp, connectStdio, textOf } from "../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../net/loopback.js";

const TOKEN = "r".repeat(40);
const BUDGET = 3000;
/** About 12,000 characters of numbered lines: four or five parts at this budget. */
const PAGE = Array.from(
  { length: 300 },
  (_, i) => `line ${String(i).padStart(4, "0")} of the long page`,
).join("\n");

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

/** Follows cursors from the first part to the last; returns the parts' envelopes. */
async function walk(
  call: (args: Record<string, unknown>) => Promise<Envelope>,
  url: string,
): Promise<Envelope[]> {
  const parts = [await call({ url })];
  while (parts.at(-1)?.cursor !== undefined) {
    assert.ok(parts.length < 20, "the cursors never end");
    parts.push(await call({ cursor: parts.at(-1)?.cursor }));
  }
  return parts;
}

function assertWhole(parts: Envelope[], url: string): void {
  assert.ok(parts.length >= 3, `expected several parts, got ${parts.length}`);
  const text = parts
    .map((part) => part.content.map((piece: { text: string }) => piece.text).join(""))
    .join("");
  assert.equal(text, PAGE);
  let from = 0;
  for (const [index, part] of parts.entries()) {
    assert.equal(part.provenance.url, url);
    assert.equal(part.contentChars.total, PAGE.length);
    if (index > 0) assert.equal(part.contentChars.from, from);
    from += part.contentChars.kept;
    const last = index === parts.length - 1;
    assert.equal(part.truncated, !last);
    if (!last) {
      assert.equal(part.remainingChars, PAGE.length - from);
      assert.ok(
        part.warnings.some((w: string) =>
          w.startsWith(`the page continues: ${PAGE.length - from} of ${PAGE.length} characters remain`),
        ),
      );
    } else assert.equal(part.cursor, undefined);
  }
}

describe("web_read cursors on every surface", () => {
  let site: Loopback;
  let url: string;
  let base: string;
  const env = () =>
    homeEnv(base, { EVIDENT_ALLOW_PRIVATE_NETWORK: "true", EVIDENT_ENVELOPE_BUDGET_CHARS: String(BUDGET) });
  const fetches = () => site.requests.filter((request) => request.url === "/long").length;

  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-read-cursors-"));
    site = await startLoopback((req, res) => {
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end(req.url === "/long" ? PAGE : "short");
    });
    url = `${site.url}/long`;
  });
  after(async () => {
    await site.close();
    await rm(base, { recursive: true, force: true });
  });

  it("G06: MCP stdio: the parts add up to the page, fetched once (a cursor never fetches again); another connection cannot continue", async () => {
    const connect = async () => (await connectStdio({ name: "read-cursors", cwd: base, env: env() })).client;
    const [one, two] = [await connect(), await connect()];
    try {
      const call = (client: Client) => async (args: Record<string, unknown>) => {
        const result = await client.callTool({ name: "web_read", arguments: args });
        return JSON.parse(textOf(result)) as Envelope;
      };
      const before = fetches();
      const parts = await walk(call(one), url);
      assertWhole(parts, url);
      assert.equal(fetches() - before, 1);
      // Another connection is another process, with its own key: the cursor is not its own.
      const stolen = await call(two)({ cursor: parts[0]?.cursor });
      assert.equal(stolen.error.code, "cursor_malformed");
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("MCP HTTP: the same, and a cursor is bound to the token that made it", async () => {
    const server: RunningHttpServer = await startHttpServer({
      registry: createProductRegistry({ cwd: base, settings: resolveSettings(env()), logger: silentLogger }),
      logger: silentLogger,
      settings: resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    });
    const clients: Client[] = [];
    try {
      for (const token of [TOKEN, TOKEN]) {
        const client = await connectHttp(server.url, { name: "read-cursors", token });
        clients.push(client);
      }
      const call = (client: Client) => async (args: Record<string, unknown>) => {
        const result = await client.callTool({ name: "web_read", arguments: args });
        return JSON.parse(textOf(result)) as Envelope;
      };
      const before = fetches();
      // Stateless HTTP: each request is a new server instance; the token's digest binds the cursor.
      const first = await call(clients[0] as Client)({ url });
      const rest = await walk(
        async (args) => (args.url === undefined ? call(clients[1] as Client)(args) : first),
        url,
      );
      assertWhole(rest, url);
      assert.equal(fetches() - before, 1);
    } finally {
      for (const client of clients) await client.close();
      await server.close();
    }
  });

  it("SDK: the same; another SDK instance cannot continue; forged and mixed arguments are refused", async () => {
    const evident = createEvident({ cwd: base, env: env(), logger: silentLogger });
    const other = createEvident({ cwd: base, env: env(), logger: silentLogger });
    try {
      const before = fetches();
      const parts = await walk(
        async (args) => (await evident.webRead(args as { url: string })).data as Envelope,
        url,
      );
      assertWhole(parts, url);
      assert.equal(fetches() - before, 1);
      const cursor = parts[0]?.cursor as string;
      await assert.rejects(other.webRead({ cursor }), { code: "cursor_malformed" });
      const forged = `${cursor.slice(0, -2)}${cursor.endsWith("A") ? "B" : "A"}A`;
      await assert.rejects(evident.webRead({ cursor: forged }), { code: "cursor_malformed" });
      await assert.rejects(evident.webRead({ cursor, url }), { code: "cursor_option_conflict" });
      await assert.rejects(evident.webRead({}), { code: "invalid_arguments" });
    } finally {
      await evident.close();
      await other.close();
    }
  });

  it("CLI: each part is its own process, continued from the private cache directory", async () => {
    // Asynchronously: the loopback page is served by this very process.
    const read = (args: string[]) =>
      new Promise<Envelope>((done, fail) => {
        execFile(
          process.execPath,
          [CLI, "read", ...args],
          { cwd: base, env: env(), timeout: 60_000 },
          (error, stdout, stderr) => {
            if (error) fail(new Error(`${error.message}\n${stderr}`));
            else done(JSON.parse(stdout) as Envelope);
          },
        );
      });
    const before = fetches();
    const parts = [await read([url])];
    while (parts.at(-1)?.cursor !== undefined && parts.length < 20)
      parts.push(await read(["--cursor", parts.at(-1)?.cursor]));
    assertWhole(parts, url);
    assert.equal(fetches() - before, 1);
  });
});
