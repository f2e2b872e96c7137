/**
 * Hostile JSON pages through the built CLI, as users run it, from a loopback site: the MCP
 * server keeps answering while one is indented (the formatter gives the event loop turns), and
 * `evident read` keeps no more in its cache than the page itself (indented, deep JSON grew to
 * hundreds of MB there).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { JSON_INDENT_SLICE_CHARS, MAX_RESPONSE_BODY_BYTES } from "../../../src/core/limits.js";
import { EVIDENT_CLI as CLI, homeEnv } from "../../helpers/built-cli.js";
import { connectStdio, textOf } from "../../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
/** Arrays 50 deep side by side, near the body cap: many slices of the formatter's work. */
const WIDE = (() => {
  const unit = nested(50);
  return `[${Array.from({ length: Math.floor((MAX_RESPONSE_BODY_BYTES - 1024) / (unit.length + 1)) }, () => unit).join(",")}]`;
})();
/** Two arrays 4,000 deep side by side (16 KB): 64 million characters indented. */
const DEEP = `[${nested(4_000)},${nested(4_000)}]`;

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath ?? entry.path, entry.name))).size;
  }
  return total;
}

describe("web_read of hostile JSON pages, through the built CLI", () => {
  let site: Loopback;
  let base: string;
  /** Resolves when the site has handed the wide page to the socket. */
  let sent: Promise<void> | undefined;
  const env = (extra: Record<string, string> = {}) =>
    homeEnv(base, { EVIDENT_ALLOW_PRIVATE_NETWORK: "true", ...extra });

  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-json-"));
    site = await startLoopback((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/wide.json") {
        sent = new Promise((done) => res.once("finish", () => done()));
        res.end(WIDE);
      } else res.end(req.url === "/deep.json" ? DEEP : "{}");
    });
  });
  after(async () => {
    await site.close();
    await rm(base, { recursive: true, force: true });
  });

  it("the MCP server answers other calls while a long JSON page is indented", async () => {
    assert.ok(WIDE.length > 8 * JSON_INDENT_SLICE_CHARS);
    const { client } = await connectStdio({ name: "json", cwd: base, env: env() });
    try {
      const order: string[] = [];
      const read = client
        .callTool(
          { name: "web_read", arguments: { url: `${site.url}/wide.json` } },
          {
            timeout: 120_000,
          },
        )
        .then((result) => {
          order.push("read");
          return JSON.parse(textOf(result)) as Envelope;
        });
      while (sent === undefined) await new Promise((done) => setImmediate(done));
      await sent;
      // Indented on the calling thread in one piece, the page held every listing up until it was done.
      for (let i = 0; i < 3; i++) {
        await client.listTools();
        order.push("list");
      }
      const envelope = await read;
      assert.deepEqual(order, ["list", "list", "list", "read"]);
      assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
      assert.match(envelope.warnings.join("\n"), /not indented: .* nests 51 levels deep/);
    } finally {
      await client.close();
    }
  });

  it("S13: `evident read` of deeply nested JSON keeps the page as sent, not its indented square, in its cache", async () => {
    const cache = join(base, "cache");
    const envelope = await new Promise<Envelope>((done, fail) => {
      execFile(
        process.execPath,
        [CLI, "read", `${site.url}/deep.json`],
        {
          cwd: base,
          env: env({ EVIDENT_ENVELOPE_BUDGET_CHARS: "3000" }),
          timeout: 120_000,
          maxBuffer: 1 << 20,
        },
        (error, stdout, stderr) =>
          error ? fail(new Error(`${error.message}\n${stderr}`)) : done(JSON.parse(stdout)),
      );
    });
    assert.equal(envelope.contentChars.total, DEEP.length);
    assert.ok(envelope.cursor, "the page is longer than the budget: kept for its cursor");
    assert.match(envelope.warnings.join("\n"), /not indented: .* nests 4001 levels deep/);
    const kept = await bytesUnder(cache);
    assert.ok(
      kept > 0 && kept < 4 * DEEP.length + 64 * 1024,
      `${kept} bytes in the cache for a ${DEEP.length}-byte page`,
    );
  });
});
