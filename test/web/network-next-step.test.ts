/**
 * Every network failure tells the agent what to do next, the same way for web_search and
 * web_read: DNS, a refused connection, TLS, a timeout and a proxy's refusal, each produced for
 * real (a name table that resolves nothing, a closed loopback port, a plain-HTTP server spoken
 * to over TLS, a server that never answers, a proxy answering 407).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { LookupFunction } from "../../src/net/guard.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { type ConnectProxy, startConnectProxy } from "../net/connect-proxy.js";
import { freePort, type Loopback, listenOnLoopback, startLoopback } from "../net/loopback.js";
import { webTools } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "evident-next-step-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Public names stand for loopback; anything else does not resolve (no DNS is asked). */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== "public.example" && hostname !== "127.0.0.1") {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
    return;
  }
  if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

const tools = (vars: Record<string, string>) => webTools(dir, vars, { lookup, treatAsPublic: ["127.0.0.1"] });

interface Failure {
  code: string;
  message: string;
  reason?: string;
}

async function failure(
  registry: ToolRegistry,
  tool: string,
  args: Record<string, unknown>,
): Promise<Failure> {
  const result = await registry.call(tool, args);
  assert.equal(result.isError, true, `${tool} should fail: ${result.text}`);
  return (result.data as { error: Failure }).error;
}

/** The next step every network failure names: the proxy variables and `evident doctor`. */
function assertNextStep(error: Failure, context: string): void {
  assert.match(error.message, /Next step: /, context);
  assert.match(error.message, /HTTPS_PROXY/, context);
  assert.match(error.message, /HTTP_PROXY/, context);
  assert.match(error.message, /NO_PROXY/, context);
  assert.match(error.message, /evident doctor/, context);
}

describe("network failures name the next step, for web_search and web_read alike", () => {
  let plain: Loopback;
  let silent: Server;
  const held = new Set<Socket>();
  let silentPort = 0;
  let closedPort = 0;
  let proxy: ConnectProxy;

  before(async () => {
    plain = await startLoopback((_req, res) => res.end("plain http"));
    // Accepts connections and never answers: a request there can only time out.
    silent = createServer((socket) => {
      held.add(socket);
      socket.once("close", () => held.delete(socket));
    });
    silentPort = await listenOnLoopback(silent);
    closedPort = await freePort();
    proxy = await startConnectProxy();
    proxy.refuseWith = 407;
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await plain.close();
    await proxy.close();
  });

  const cases: Array<{
    name: string;
    reason: string;
    base: () => string;
    vars?: () => Record<string, string>;
  }> = [
    { name: "DNS", reason: "dns", base: () => "http://no-such-host.invalid" },
    {
      name: "a refused connection",
      reason: "connection_refused",
      base: () => `http://127.0.0.1:${closedPort}`,
    },
    { name: "TLS", reason: "tls", base: () => `https://127.0.0.1:${plain.port}` },
    {
      name: "a timeout",
      reason: "timeout",
      base: () => `http://127.0.0.1:${silentPort}`,
      vars: () => ({ EVIDENT_DUCKDUCKGO_DEADLINE_MS: "300" }),
    },
    {
      name: "a proxy's refusal",
      reason: "proxy",
      base: () => `http://public.example:${plain.port}`,
      vars: () => ({ HTTP_PROXY: proxy.url }),
    },
  ];

  for (const { name, reason, base, vars } of cases) {
    it(`web_search: ${name} says the next step`, async () => {
      const registry = tools({ EVIDENT_DUCKDUCKGO_BASE_URL: base(), ...(vars?.() ?? {}) });
      try {
        const error = await failure(registry, "web_search", { query: "q" });
        assert.equal(error.code, "all_providers_failed");
        assert.equal(error.reason, reason, error.message);
        assertNextStep(error, name);
      } finally {
        await registry.close();
      }
    });
  }

  it("web_read: a host that does not resolve, a refused connection and a proxy's refusal say the same next step", async () => {
    const registry = tools({ HTTP_PROXY: proxy.url, NO_PROXY: "public.example" });
    try {
      const unresolved = await failure(registry, "web_read", { url: "https://no-such-host.invalid/page" });
      assert.equal(unresolved.code, "host_unresolved");
      assertNextStep(unresolved, "DNS");
      const refused = await failure(registry, "web_read", {
        url: `http://public.example:${closedPort}/page`,
      });
      assert.equal(refused.code, "all_providers_failed");
      assert.equal(refused.reason, "connection_refused");
      assertNextStep(refused, "refused");
    } finally {
      await registry.close();
    }
    const proxied = tools({ HTTP_PROXY: proxy.url });
    try {
      const refusedByProxy = await failure(proxied, "web_read", {
        url: `http://public.example:${plain.port}/`,
      });
      assert.equal(refusedByProxy.reason, "proxy");
      assertNextStep(refusedByProxy, "proxy");
      assert.match(refusedByProxy.message, /check the proxy/);
    } finally {
      await proxied.close();
    }
  });

  it("a provider's own failure (HTTP 500) names no network step", async () => {
    const failing = await startLoopback((_req, res) => {
      res.statusCode = 500;
      res.end("{}");
    });
    const registry = tools({ EVIDENT_DUCKDUCKGO_BASE_URL: failing.url });
    try {
      const error = await failure(registry, "web_search", { query: "q" });
      assert.equal(error.reason, "server_error");
      assert.doesNotMatch(error.message, /Next step|PROXY|doctor/);
    } finally {
      await registry.close();
      await failing.close();
    }
  });
});
