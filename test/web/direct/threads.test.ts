/**
 * Large HTML pages are read on a thread of their own (web/providers/direct/html-thread.ts): the
 * server keeps answering while one is read, a cancelled read ends its thread, a page that needs
 * more than the reader's heap is `too_large` and the server goes on, and no more threads run at
 * once than the bound. Through the built CLI over MCP stdio, as users run it (npm test builds
 * first; from source there is no thread module and pages are read on the calling thread). The
 * server's threads are counted in /proc.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { WEB_READ_THREAD_MIN_CHARS, WEB_READ_THREADS } from "../../../src/core/limits.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const CLI = resolve(ROOT, "dist/adapters/cli/main.js");

/** Sections of long paragraphs: a page just over the size read on a thread. */
function largePage(): string {
  const words = "the reader keeps this sentence of the long article as part of its main content".split(" ");
  const paragraph = (i: number) =>
    `<p>Paragraph ${i}: ${Array.from({ length: 60 }, (_, k) => words[(i + k) % words.length]).join(" ")}.</p>`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < WEB_READ_THREAD_MIN_CHARS + 64 * 1024; i++) {
    const part = `${i % 10 === 0 ? `<h2>Part ${i / 10}</h2>` : ""}${paragraph(i)}`;
    parts.push(part);
    size += part.length;
  }
  return `<!doctype html><html><head><title>Large</title></head><body><article>${parts.join("\n")}</article></body></html>`;
}

const LARGE = largePage();
const SMALL =
  "<!doctype html><html><head><title>Small</title></head><body><article><p>A small page, read where it arrives.</p></article></body></html>";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

function threadsOf(pid: number): number {
  return Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/** Resolves once `condition` holds, checked every few milliseconds (the test's timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("web_read: large pages on a thread of their own", () => {
  let site: Loopback;
  let base: string;
  /** Resolves when the site has handed the whole large page to the socket, per request. */
  let sent: Array<Promise<void>> = [];

  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-threads-"));
    site = await startLoopback((req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      if (req.url?.startsWith("/large")) {
        sent.push(new Promise((resolve) => res.once("finish", () => resolve())));
        res.end(LARGE);
      } else res.end(SMALL);
    });
  });
  after(async () => {
    await site.close();
    await rm(base, { recursive: true, force: true });
  });

  async function server(env: Record<string, string> = {}) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      cwd: base,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: base,
        XDG_CONFIG_HOME: join(base, "config"),
        EVIDENT_CACHE_DIR: join(base, "cache"),
        EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
        ...env,
      },
    });
    const client = new Client({ name: "threads", version: "1.0.0" });
    await client.connect(transport);
    const read = async (path: string, options: { signal?: AbortSignal } = {}) => {
      const result = await client.callTool(
        { name: "web_read", arguments: { url: `${site.url}${path}` } },
        { ...options, timeout: 120_000 },
      );
      return JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "") as Envelope;
    };
    // A small page first: whatever the server starts lazily (its thread pool, the reader's
    // modules) is running before its threads are counted.
    assert.equal((await read("/small")).error, undefined);
    const pid = transport.pid as number;
    return { client, read, pid, baseline: threadsOf(pid) };
  }

  it("reads a large page on a thread that ends with it, to the same text as on the calling thread", async () => {
    const { client, read, pid, baseline } = await server();
    try {
      let most = baseline;
      let reading = true;
      const answer = read("/large").finally(() => {
        reading = false;
      });
      await until(() => {
        most = Math.max(most, threadsOf(pid));
        return !reading;
      });
      const envelope = await answer;
      assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
      assert.equal(most, baseline + 1, "one thread more while the page was read");
      await until(() => threadsOf(pid) === baseline);
      const here = await readHtml(LARGE, `${site.url}/large`);
      const text = envelope.content.map((piece: { text: string }) => piece.text).join("");
      assert.ok(text.length > 1000);
      assert.equal(text, (here.content[0] as { text: string }).text.slice(0, text.length));
      assert.equal(envelope.title, "Large");
    } finally {
      await client.close();
    }
  });

  it("answers other calls while a large page is read", async () => {
    const { client, read } = await server();
    try {
      sent = [];
      const order: string[] = [];
      const large = read("/large").then((envelope) => {
        order.push("read");
        return envelope;
      });
      await until(() => sent.length === 1);
      await sent[0];
      // On the calling thread the page's reading holds everything else up: five listings one
      // after the other would wait for it.
      for (let i = 0; i < 5; i++) {
        await client.listTools();
        order.push("list");
      }
      assert.equal((await large).error, undefined);
      assert.deepEqual(order, ["list", "list", "list", "list", "list", "read"]);
    } finally {
      await client.close();
    }
  });

  it("a cancelled read ends its thread at once, and the server goes on", async () => {
    const { client, read, pid, baseline } = await server();
    try {
      const controller = new AbortController();
      let settled = false;
      const answer = read("/large", { signal: controller.signal }).then(
        () => "answered",
        () => "cancelled",
      );
      void answer.finally(() => {
        settled = true;
      });
      await until(() => settled || threadsOf(pid) > baseline);
      assert.equal(settled, false, "the read ended before its thread was seen");
      controller.abort();
      assert.equal(await answer, "cancelled");
      await until(() => threadsOf(pid) === baseline);
      assert.equal((await read("/small")).title, "Small");
    } finally {
      await client.close();
    }
  });

  it(`reads at most ${WEB_READ_THREADS} large page(s) at once; the others wait their turn`, async () => {
    const { client, read, pid, baseline } = await server();
    try {
      let most = baseline;
      let pending = 3;
      const answers = Array.from({ length: 3 }, (_, i) =>
        read(`/large?${i}`).finally(() => {
          pending--;
        }),
      );
      await until(() => {
        most = Math.max(most, threadsOf(pid));
        return pending === 0;
      });
      for (const envelope of await Promise.all(answers)) assert.equal(envelope.error, undefined);
      assert.ok(most > baseline, "no thread was seen");
      assert.ok(most <= baseline + WEB_READ_THREADS, `${most - baseline} threads at once`);
    } finally {
      await client.close();
    }
  });

  it("a page that needs more than the reader's heap is too_large, and the server goes on", async () => {
    const { client, read, pid, baseline } = await server({ EVIDENT_WEB_READ_THREAD_HEAP_MB: "16" });
    try {
      const envelope = await read("/large");
      assert.equal(envelope.error?.code, "provider_failed", JSON.stringify(envelope));
      assert.deepEqual(envelope.error.provider_reasons, { direct: "too_large" });
      assert.match(envelope.error.provider_errors.direct, /more than the 16 MB its reader may use/);
      await until(() => threadsOf(pid) === baseline);
      assert.equal((await read("/small")).title, "Small");
    } finally {
      await client.close();
    }
  });

  it("an unusable EVIDENT_WEB_READ_THREAD_HEAP_MB is a configuration_error naming it", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      cwd: base,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: base,
        XDG_CONFIG_HOME: join(base, "config"),
        EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
        EVIDENT_WEB_READ_THREAD_HEAP_MB: "8",
      },
    });
    const client = new Client({ name: "threads", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "web_read", arguments: { url: `${site.url}/small` } });
      const envelope = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "") as Envelope;
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(envelope.error), /EVIDENT_WEB_READ_THREAD_HEAP_MB/);
    } finally {
      await client.close();
    }
  });
});
