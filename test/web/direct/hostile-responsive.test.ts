/**
 * The server stays responsive while a hostile page is read (issue 31): 200,000 `x</p>` (a
 * megabyte with no start tag) was read on the calling thread, for half a minute, while
 * `tools/list` over stdio and `/healthz` over HTTP waited. Through the built CLI, as users run
 * it, reading from a loopback site (EVIDENT_ALLOW_PRIVATE_NETWORK, the operator's way to let the
 * reader reach private addresses). What is asserted is the order of events: the listing or the
 * probe answers after the page has reached the server and before its read ends; the read itself
 * ends within the attempt deadline (S12), with its text.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/client";
import { HTTP_MIN_TOKEN_CHARS, PROVIDER_ATTEMPT_DEADLINE_MS } from "../../../src/core/limits.js";
import { EVIDENT_CLI as CLI, homeEnv } from "../../helpers/built-cli.js";
import { connectHttp, connectStdio, textOf } from "../../helpers/mcp-client.js";
import { type Loopback, startLoopback } from "../../net/loopback.js";
import { own, waitForLine } from "../../servers/services.js";

const TOKEN = `${"t".repeat(HTTP_MIN_TOKEN_CHARS)}-responsive`;
const HOSTILE = "x</p>".repeat(200_000);
const SMALL = "<!doctype html><html><head><title>Small</title></head><body><p>Small.</p></body></html>";

// biome-ignore lint/suspicious/noExplicitAny: envelopes are read loosely; their shapes are asserted.
type Envelope = Record<string, any>;

describe("the server answers while a hostile page is read", () => {
  let site: Loopback;
  let base: string;
  /** Resolves when the site has handed the hostile page to the socket, per request. */
  /** Told when the hostile page has been sent whole. */
  let onSent: (() => void) | undefined;

  before(async () => {
    assert.ok(existsSync(CLI), "run `npm run build` first (npm test does)");
    base = await mkdtemp(join(tmpdir(), "evident-responsive-"));
    site = await startLoopback((req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      if (req.url === "/hostile") {
        res.once("finish", () => onSent?.());
        res.end(HOSTILE);
      } else res.end(SMALL);
    });
  });
  after(async () => {
    await site.close();
    await rm(base, { recursive: true, force: true });
  });

  const env = () => homeEnv(base, { EVIDENT_ALLOW_PRIVATE_NETWORK: "true" });

  /** Reads the hostile page through `client`, running `meanwhile` once the page has reached the server. */
  async function race(client: Client, meanwhile: () => Promise<void>) {
    const read = async (path: string) => {
      const result = await client.callTool(
        { name: "web_read", arguments: { url: `${site.url}${path}` } },
        { timeout: 120_000 },
      );
      return JSON.parse(textOf(result)) as Envelope;
    };
    // A small page first: the reader's modules and thread pool are loaded before the race.
    assert.equal((await read("/small")).title, "Small");
    const sent = new Promise<void>((done) => {
      onSent = done;
    });
    const order: string[] = [];
    const started = Date.now();
    const hostile = read("/hostile").then((envelope) => {
      order.push("read");
      return { envelope, ms: Date.now() - started };
    });
    await sent;
    for (let i = 0; i < 3; i++) {
      await meanwhile();
      order.push("answer");
    }
    const { envelope, ms } = await hostile;
    assert.deepEqual(order, ["answer", "answer", "answer", "read"]);
    assert.equal(envelope.error, undefined, JSON.stringify(envelope.error));
    const text = envelope.content.map((piece: { text: string }) => piece.text).join("");
    assert.ok(text.startsWith("x\n\nx\n\n"), text.slice(0, 40));
    // A guard far above the read's cost: the attempt deadline could act on it.
    assert.ok(ms < 3 * PROVIDER_ATTEMPT_DEADLINE_MS, `${ms} ms`);
  }

  it("S12: over stdio, tools/list answers while 200,000 x</p> are read", async () => {
    const { client } = await connectStdio({ name: "responsive", cwd: base, env: env() });
    try {
      await race(client, async () => {
        assert.ok((await client.listTools()).tools.length > 0);
      });
    } finally {
      await client.close();
    }
  });

  it("S12: over HTTP, /healthz answers while 200,000 x</p> are read", async () => {
    const child: ChildProcess = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
      cwd: base,
      env: { ...env(), EVIDENT_HTTP_HOST: "127.0.0.1", EVIDENT_HTTP_PORT: "0", EVIDENT_AUTH_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const owned = own(child);
    try {
      const line = await waitForLine(child, (text) => /listening on http:\/\/\S+\/mcp/.test(text));
      child.stdout?.resume();
      child.stderr?.resume();
      const url = /(http:\/\/\S+\/mcp)/.exec(line)?.[1] as string;
      const client = await connectHttp(url, { name: "responsive", token: TOKEN });
      try {
        await race(client, async () => {
          const response = await fetch(url.replace(/\/mcp$/, "/healthz"));
          assert.equal(response.status, 200);
          await response.arrayBuffer();
        });
      } finally {
        await client.close();
      }
    } finally {
      await owned.stop();
    }
  });
});
