/**
 * Refusals that name their real cause (issue #31, section 7): a response head over its cap, a
 * redirect with an empty (or missing, or doubled) Location, a redirect loop and bytes that are not
 * HTTP each say so, never "network error" or "more than 5 redirects"; more than CODE_GLOBS_MAX
 * globs names the bound on every surface, never "Invalid input". A raw `net` server on loopback
 * sends what no well-behaved HTTP server would.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { resolveSettings } from "../../src/config/settings.js";
import { CODE_GLOBS_MAX, MAX_REDIRECTS, MAX_RESPONSE_HEADER_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createHttpClient } from "../../src/net/client.js";
import { HttpClientError } from "../../src/net/http-client.js";
import { createCodeSearchTool } from "../../src/tools/code-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { connectInProcess } from "../adapters/run-evident.js";
import { listenOnLoopback } from "../net/loopback.js";

/** Raw answers by path; each ends the connection, so every request is a connection of its own. */
const ANSWERS: Record<string, string> = {
  "/ok": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
  // Just under the cap: the cap is not lower than it says.
  "/near-cap": `HTTP/1.1 200 OK\r\nX-Pad: ${"p".repeat(MAX_RESPONSE_HEADER_BYTES - 1024)}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok`,
  "/one-huge-header": `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(MAX_RESPONSE_HEADER_BYTES * 4)}\r\nContent-Length: 2\r\n\r\nhi`,
  "/many-headers": `HTTP/1.1 200 OK\r\n${Array.from({ length: MAX_RESPONSE_HEADER_BYTES / 4 }, (_, i) => `X-${i}: v`).join("\r\n")}\r\nContent-Length: 2\r\n\r\nhi`,
  "/empty-location": "HTTP/1.1 302 Found\r\nLocation: \r\nContent-Length: 0\r\n\r\n",
  "/blank-location": "HTTP/1.1 301 Moved\r\nLocation:    \r\nContent-Length: 0\r\n\r\n",
  "/no-location": "HTTP/1.1 307 Temporary Redirect\r\nContent-Length: 0\r\n\r\n",
  "/two-locations": "HTTP/1.1 302 Found\r\nLocation: /ok\r\nLocation: /other\r\nContent-Length: 0\r\n\r\n",
  "/self": "HTTP/1.1 302 Found\r\nLocation: /self#again\r\nContent-Length: 0\r\n\r\n",
  "/ping": "HTTP/1.1 302 Found\r\nLocation: /pong\r\nContent-Length: 0\r\n\r\n",
  "/pong": "HTTP/1.1 302 Found\r\nLocation: /ping\r\nContent-Length: 0\r\n\r\n",
  "/not-http": "hello, this is not HTTP\r\n\r\n",
  "/bad-status": "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nhi",
  "/bad-chunk": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n",
};
// A chain one hop longer than the client follows, each hop a new URL.
for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
  ANSWERS[`/chain/${hop}`] = `HTTP/1.1 302 Found\r\nLocation: /chain/${hop + 1}\r\nContent-Length: 0\r\n\r\n`;
}

interface RawServer {
  readonly url: string;
  /** Requests received, by path. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

async function startRawServer(): Promise<RawServer> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    // The client may close first (it stops reading a head over the cap).
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const path = head.split(" ")[1] ?? "";
      hits.set(path, (hits.get(path) ?? 0) + 1);
      socket.end(ANSWERS[path] ?? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", "latin1");
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: payloads are read loosely; their shapes are asserted.
type Json = Record<string, any>;

describe("refusals name their real cause", () => {
  let raw: RawServer;
  let dir: string;
  // The loopback server stands in for a public site: the guard stays on.
  const http = createHttpClient({ treatAsPublic: ["127.0.0.1"] });
  let web: ToolRegistry;

  before(async () => {
    raw = await startRawServer();
    dir = await mkdtemp(join(tmpdir(), "evident-wrong-cause-"));
    web = new ToolRegistry().register(
      createWebReadTool(
        {
          cwd: dir,
          settings: resolveSettings({ XDG_CONFIG_HOME: join(dir, "no-config") }),
          logger: silentLogger,
        },
        { treatAsPublic: ["127.0.0.1"] },
      ),
    );
  });
  after(async () => {
    await web.close();
    await http.close();
    await raw.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** What the HTTP client throws for an agent-supplied URL on the raw server. */
  async function refusal(path: string): Promise<HttpClientError> {
    const signal = new AbortController().signal;
    const thrown = await http
      .request({ method: "GET", url: `${raw.url}${path}`, trust: "agent", signal })
      .then(
        () => assert.fail(`${path} was answered`),
        (error: unknown) => error,
      );
    assert.ok(thrown instanceof HttpClientError, `${path}: ${String(thrown)}`);
    return thrown;
  }

  it("a head just under MAX_RESPONSE_HEADER_BYTES is read", async () => {
    const signal = new AbortController().signal;
    const response = await http.request({
      method: "GET",
      url: `${raw.url}/near-cap`,
      trust: "agent",
      signal,
    });
    assert.equal(response.text(), "ok");
  });

  it("a response head over MAX_RESPONSE_HEADER_BYTES is headers_too_large, saying the cap", async () => {
    for (const path of ["/one-huge-header", "/many-headers"]) {
      const error = await refusal(path);
      assert.equal(error.kind, "headers_too_large", path);
      assert.equal(error.message, `the response headers exceed ${MAX_RESPONSE_HEADER_BYTES / 1024} KiB`);
    }
  });

  it("bytes that are not HTTP are malformed_response, not a network error", async () => {
    for (const path of ["/not-http", "/bad-status", "/bad-chunk"]) {
      const error = await refusal(path);
      assert.equal(error.kind, "malformed_response", path);
      assert.equal(error.message, "the server's response is not valid HTTP", path);
    }
  });

  it("a redirect with an empty, missing or doubled Location says so, after one request", async () => {
    const cases = [
      ["/empty-location", "a redirect (HTTP 302) has an empty Location header"],
      ["/blank-location", "a redirect (HTTP 301) has an empty Location header"],
      ["/no-location", "a redirect (HTTP 307) has no Location header"],
      ["/two-locations", "a redirect (HTTP 302) has more than one Location header"],
    ] as const;
    for (const [path, message] of cases) {
      const error = await refusal(path);
      assert.equal(error.kind, "redirect", path);
      assert.equal(error.message, message);
      // Not followed: the URL was asked once, and nothing else was.
      assert.equal(raw.hits.get(path), 1, path);
    }
    assert.equal(raw.hits.get("/ok") ?? 0, 0);
  });

  it("a redirect back to a URL already requested is a loop, told before the hop limit", async () => {
    const self = await refusal("/self");
    assert.equal(self.message, "a redirect (HTTP 302) loops back to a URL already requested");
    assert.equal(raw.hits.get("/self"), 1);
    const pingPong = await refusal("/ping");
    assert.equal(pingPong.message, "a redirect (HTTP 302) loops back to a URL already requested");
    assert.deepEqual([raw.hits.get("/ping"), raw.hits.get("/pong")], [1, 1]);
    // A chain of new URLs longer than the limit still names the limit.
    const chain = await refusal("/chain/0");
    assert.equal(chain.message, `more than ${MAX_REDIRECTS} redirects`);
  });

  it("web_read tells the agent the cause, with no network advice for a network that worked", async () => {
    const cases = [
      [
        "/one-huge-header",
        "too_large",
        new RegExp(`the response headers exceed ${MAX_RESPONSE_HEADER_BYTES / 1024} KiB`),
      ],
      ["/empty-location", "upstream", /a redirect \(HTTP 302\) has an empty Location header/],
      ["/not-http", "malformed", /the server's response is not valid HTTP/],
    ] as const;
    for (const [path, reason, message] of cases) {
      const result = await web.call("web_read", { url: `${raw.url}${path}` });
      assert.equal(result.isError, true, path);
      const error = (result.data as Json).error;
      assert.equal(error.code, "all_providers_failed", result.text);
      assert.equal(error.provider_reasons.direct, reason, result.text);
      assert.match(error.message, message);
      assert.doesNotMatch(result.text, /network error|redirects|check this machine's network/, path);
    }
  });
});

describe("more than CODE_GLOBS_MAX globs names the bound", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "evident-globs-"));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const tooMany = Array.from({ length: CODE_GLOBS_MAX + 1 }, (_, i) => `src/${i}/**`);
  const expected = new RegExp(`^Invalid arguments: (glob|exclude): .*<=${CODE_GLOBS_MAX} items`);

  it("A07: through the registry and over MCP, for glob and exclude", async () => {
    const registry = new ToolRegistry().register(
      createCodeSearchTool({ cwd: root, settings: resolveSettings(process.env), logger: silentLogger }),
    );
    const client = new Client({ name: "wrong-cause", version: "1.0.0" });
    const server = await connectInProcess(client, [], { cwd: root, env: { HOME: join(root, "home") } });
    try {
      for (const field of ["glob", "exclude"] as const) {
        const args = { pattern: "needle", [field]: tooMany };
        const direct = await registry.call("code_search", args, { caller: "t" });
        assert.equal(direct.isError, true);
        const error = (direct.data as Json).error;
        assert.equal(error.code, "invalid_arguments");
        assert.equal(error.field, field);
        assert.equal(error.issues[0].maximum, CODE_GLOBS_MAX);
        assert.match(error.message, expected);
        const remote = await client.callTool({ name: "code_search", arguments: args });
        assert.equal(remote.isError, true);
        const text = (remote.content as Array<{ text: string }>)[0]?.text ?? "";
        const payload = JSON.parse(text) as Json;
        assert.equal(payload.error.code, "invalid_arguments");
        assert.match(payload.error.message, expected);
        assert.doesNotMatch(text, /Invalid input/);
      }
    } finally {
      await registry.close();
      await server.close();
    }
  });
});
