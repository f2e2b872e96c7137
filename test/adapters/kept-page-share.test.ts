/**
 * One caller's huge page cannot evict another caller's kept page (issue #31, section 2): over
 * MCP HTTP, two tokens (two callers) read from one loopback site. A JSON page whose formatted text
 * is far larger than the kept-page store (nested arrays: indentation grows with depth squared)
 * is read by one caller while the other is midway through a long page; the other's next part
 * must still come, and the huge read must say how much of it its cursors reach; so must a page
 * within every read bound whose text is still over one page's share. With the
 * server's own store, and with the shared (Redis) store replicas use.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings } from "../../src/config/settings.js";
import { keptEntryMaxBytes } from "../../src/core/kept.js";
import { KEPT_MAX_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { missing } from "../fixtures/optional-tools.js";
import { homeEnv } from "../helpers/built-cli.js";
import { connectHttp } from "../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { type RedisServer, startRedis } from "../servers/services.js";

const TOKENS = ["a".repeat(40), "b".repeat(40)];
const BUDGET = 3000;
/** About 12,000 characters: several parts at this budget. */
const PAGE = Array.from(
  { length: 300 },
  (_, i) => `line ${String(i).padStart(4, "0")} of the long page`,
).join("\n");
/**
 * JSON arrays nested 3,000 deep side by side (6 KB each). Pretty-printed, each is about 18 million
 * characters: three (54 million, 108 MB as memory counts them) are more than the memory store's
 * 64 MiB, four (72 MB in UTF-8) more than the Redis store's, unless the reader declines to format.
 */
const deep = (arrays: number) =>
  `[${Array.from({ length: arrays }, () => `${"[".repeat(3000)}${"]".repeat(3000)}`).join(",")}]`;

/**
 * 2 MB of a control character: within every read bound, yet each is kept as a six-character JSON
 * escape, so as text the page is over one kept page's share (a quarter of 64 MiB) by any count.
 */
const CONTROL = "\u0001".repeat(2_000_000);

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

function twoCallers(store: "memory" | "redis", arrays: number, skip: string | false): void {
  describe(`kept pages over MCP HTTP, two callers, ${store} store`, { skip }, () => {
    let site: Loopback;
    let base: string;
    let redis: RedisServer | undefined;
    let server: RunningHttpServer;
    const clients: Client[] = [];

    before(async () => {
      base = await mkdtemp(join(tmpdir(), "evident-kept-share-"));
      site = await startLoopback((req, res) => {
        if (req.url === "/control") {
          res.setHeader("content-type", "text/plain; charset=utf-8");
          res.end(CONTROL);
        } else if (req.url === "/deep.json") {
          res.setHeader("content-type", "application/json");
          res.end(deep(arrays));
        } else {
          res.setHeader("content-type", "text/plain; charset=utf-8");
          res.end(PAGE);
        }
      });
      if (store === "redis") redis = await startRedis();
      const env = homeEnv(base, {
        EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
        EVIDENT_ENVELOPE_BUDGET_CHARS: String(BUDGET),
        ...(redis === undefined
          ? {}
          : { EVIDENT_SNAPSHOT_STORE: redis.url, EVIDENT_CURSOR_KEY: "0123456789abcdef".repeat(4) }),
      });
      server = await startHttpServer({
        registry: createProductRegistry({ cwd: base, settings: resolveSettings(env), logger: silentLogger }),
        logger: silentLogger,
        settings: resolveHttpSettings({ EVIDENT_AUTH_TOKENS: TOKENS.join(","), EVIDENT_HTTP_PORT: "0" }),
      });
      for (const token of TOKENS) {
        const client = await connectHttp(server.url, { name: "kept-share", token });
        clients.push(client);
      }
    });
    after(async () => {
      for (const client of clients) await client.close();
      await server?.close();
      await redis?.stop();
      await site?.close();
      await rm(base, { recursive: true, force: true });
    });

    const call = async (client: Client | undefined, args: Record<string, unknown>): Promise<Envelope> => {
      assert.ok(client !== undefined);
      const result = await client.callTool({ name: "web_read", arguments: args });
      return JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "") as Envelope;
    };

    it("one caller's read of a page larger than the store leaves another caller's kept page continuable", async () => {
      const [alice, bob] = clients;
      const first = await call(alice, { url: `${site.url}/long` });
      assert.equal(typeof first.cursor, "string", "the long page ends with a cursor");

      const huge = await call(bob, { url: `${site.url}/deep.json` });
      assert.equal(huge.error, undefined, JSON.stringify(huge.error));
      const total = huge.contentChars.total as number;
      if (total * 2 > keptEntryMaxBytes(KEPT_MAX_BYTES)) {
        // Over one kept page's share: the answer says how far its cursors reach.
        assert.ok(
          huge.warnings.some(
            (w: string) =>
              w.startsWith("only the first ") && w.includes(` of the page's ${total} characters`),
          ),
          JSON.stringify(huge.warnings),
        );
      }

      // A page within the read bounds but over the share is kept cut, said, and continued.
      const control = await call(bob, { url: `${site.url}/control` });
      const cut = control.warnings.find((w: string) => w.startsWith("only the first "));
      assert.match(cut ?? "", /^only the first (\d+) of the page's 2000000 characters are kept for cursors/);
      assert.ok(Number(/\d+/.exec(cut)?.[0]) < CONTROL.length);
      const more = await call(bob, { cursor: control.cursor });
      assert.equal(more.error, undefined, JSON.stringify(more.error));
      assert.equal(more.contentChars.from, control.contentChars.kept);

      // Alice's page was not evicted for Bob's: every part comes, in order, to the end.
      let text = first.content.map((piece: { text: string }) => piece.text).join("");
      let cursor: string | undefined = first.cursor;
      for (let parts = 1; cursor !== undefined; parts++) {
        assert.ok(parts < 20, "the cursors never end");
        const next = await call(alice, { cursor });
        assert.equal(next.error, undefined, `part ${parts + 1}: ${JSON.stringify(next.error)}`);
        text += next.content.map((piece: { text: string }) => piece.text).join("");
        cursor = next.cursor;
      }
      assert.equal(text, PAGE);
    });
  });
}

twoCallers("memory", 3, false);
twoCallers("redis", 4, missing("redis-server"));
