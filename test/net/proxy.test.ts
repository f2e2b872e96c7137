/**
 * Outbound requests through an HTTP proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY), against a real
 * proxy on loopback: http targets are sent to it in absolute form, https targets tunnel through
 * it with CONNECT, NO_PROXY bypasses it, and agent URLs still pass the public-URL guard (S22)
 * before the proxy is asked to reach them.
 */
import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/load.js";
import { resolveSettings } from "../../src/config/settings.js";
import { EvidentError } from "../../src/core/errors.js";
import { silentLogger } from "../../src/core/logger.js";
import { createHttpClient, type HttpClientOptions } from "../../src/net/client.js";
import type { LookupFunction } from "../../src/net/guard.js";
import { HttpClientError, type HttpRequest } from "../../src/net/http-client.js";
import { bypassesProxy, proxyFor } from "../../src/net/proxy.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { createWebSearchTool } from "../../src/tools/web-search.js";
import { configFileSchema } from "../../src/web/config-schema.js";
import { type ConnectProxy, startConnectProxy } from "./connect-proxy.js";
import { type Loopback, startLoopback } from "./loopback.js";

/** Names the client resolves for its own checks; the proxy resolves them through its own table. */
const NAMES: Record<string, string> = {
  "public.example": "127.0.0.1",
  "intranet.example": "10.0.0.7",
};
const lookup: LookupFunction = (hostname, options, callback) => {
  const address = NAMES[hostname];
  if (address === undefined) {
    callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
    return;
  }
  const answer: LookupAddress = { address, family: 4 };
  if (options.all) callback(null, [answer]);
  else callback(null, address, 4);
};

const refusal = (pattern?: RegExp) => (error: unknown) =>
  error instanceof EvidentError &&
  error.code === "url_not_allowed" &&
  (pattern === undefined || pattern.test(error.message));

describe("proxies", () => {
  let site: Loopback;
  let proxy: ConnectProxy;
  const clients: Array<{ close(): Promise<void> }> = [];
  const client = (options: HttpClientOptions) => {
    const created = createHttpClient({ lookup, ...options });
    clients.push(created);
    return created;
  };
  const get = (url: string, trust: HttpRequest["trust"]): HttpRequest => ({
    method: "GET",
    url,
    trust,
    signal: new AbortController().signal,
  });

  before(async () => {
    site = await startLoopback((req, res) => {
      if (req.url === "/to-intranet") {
        res.writeHead(302, { location: `http://intranet.example:${site.port}/` }).end();
      } else res.writeHead(200, { "content-type": "text/plain" }).end(`page ${req.url}`);
    });
    proxy = await startConnectProxy(NAMES);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await proxy.close();
    await site.close();
  });

  it("chooses the proxy by scheme and honours NO_PROXY as curl does", () => {
    const settings = {
      httpProxy: "http://p:1",
      httpsProxy: "http://s:2",
      noProxy: "internal.corp, .lan,10.0.0.0/8,api.local:8443",
    };
    assert.equal(proxyFor(new URL("https://vendor.example/"), settings), "http://s:2");
    assert.equal(proxyFor(new URL("http://vendor.example/"), settings), "http://p:1");
    assert.equal(proxyFor(new URL("https://vendor.example/"), { httpProxy: "http://p:1" }), "http://p:1");
    assert.equal(proxyFor(new URL("http://vendor.example/"), { httpsProxy: "http://s:2" }), undefined);
    for (const [url, bypass] of [
      ["https://internal.corp/", true],
      ["https://a.b.internal.corp/", true],
      ["https://notinternal.corp/", false],
      ["http://printer.lan/", true],
      ["http://10.1.2.3/", true],
      ["http://11.1.2.3/", false],
      ["https://api.local:8443/", true],
      ["https://api.local/", false],
    ] as const) {
      assert.equal(bypassesProxy(new URL(url), settings.noProxy), bypass, url);
    }
    assert.equal(bypassesProxy(new URL("https://anything.example/"), "*"), true);
  });

  it("http targets go to the proxy in absolute form, as curl sends them, never as a tunnel; NO_PROXY hosts connect directly", async () => {
    const proxied = client({ proxy: { httpProxy: proxy.url } });
    const tunnels = proxy.tunnels.length;
    const before = proxy.forwarded.length;
    const answer = await proxied.request(get(`${site.url}/vendor?q=1#part`, "operator"));
    assert.equal(answer.text(), "page /vendor?q=1");
    // The fragment stays with the client, as it would without a proxy.
    assert.deepEqual(proxy.forwarded.slice(before), [`GET http://127.0.0.1:${site.port}/vendor?q=1`]);
    assert.equal(proxy.forwardedHeaders.at(-1)?.host, `127.0.0.1:${site.port}`);
    assert.equal(proxy.tunnels.length, tunnels, "no CONNECT for an http target");

    const bypassed = client({ proxy: { httpProxy: proxy.url, noProxy: "127.0.0.1" } });
    const count = proxy.forwarded.length;
    assert.equal((await bypassed.request(get(`${site.url}/direct`, "operator"))).text(), "page /direct");
    assert.equal(proxy.forwarded.length, count, "NO_PROXY: the proxy saw nothing");
    assert.equal(proxy.tunnels.length, tunnels);
  });

  it("https targets tunnel through the proxy with CONNECT", async () => {
    const proxied = client({ proxy: { httpsProxy: proxy.url } });
    const forwarded = proxy.forwarded.length;
    const before = proxy.tunnels.length;
    // The site speaks plain HTTP, so TLS inside the tunnel fails: the tunnel was asked for.
    const error = await proxied
      .request(get(`https://127.0.0.1:${site.port}/secure`, "operator"))
      .catch((e: unknown) => e);
    assert.ok(error instanceof HttpClientError);
    assert.equal(error.kind, "tls");
    assert.deepEqual(proxy.tunnels.slice(before), [`127.0.0.1:${site.port}`]);
    assert.equal(proxy.forwarded.length, forwarded, "an https request is never sent in the clear");
  });

  it("credentials in the proxy URL go to the proxy alone", async () => {
    const withCredentials = proxy.url.replace("http://", "http://us%40er:pa55word@");
    const proxied = client({ proxy: { httpProxy: withCredentials } });
    const answer = await proxied.request(get(`${site.url}/private`, "operator"));
    assert.equal(answer.status, 200);
    assert.equal(
      proxy.forwardedHeaders.at(-1)?.["proxy-authorization"],
      `Basic ${Buffer.from("us@er:pa55word").toString("base64")}`,
    );
    const reached = site.requests.at(-1);
    assert.equal(reached?.url, "/private");
    assert.equal(reached?.headers["proxy-authorization"], undefined);
  });

  it("S22: an agent URL through the proxy is checked first: a public host is read, the proxy resolves it", async () => {
    const proxied = client({ proxy: { httpProxy: proxy.url }, treatAsPublic: ["127.0.0.1"] });
    const before = proxy.forwarded.length;
    const answer = await proxied.request(get(`http://public.example:${site.port}/page`, "agent"));
    assert.equal(answer.text(), "page /page");
    assert.deepEqual(proxy.forwarded.slice(before), [`GET http://public.example:${site.port}/page`]);
  });

  it("S22: the guard still refuses private targets, names and redirects, before the proxy sees them", async () => {
    const proxied = client({ proxy: { httpProxy: proxy.url }, treatAsPublic: ["127.0.0.1"] });
    const guarded = client({ proxy: { httpProxy: proxy.url, httpsProxy: proxy.url } });
    const before = proxy.forwarded.length;
    const tunnels = proxy.tunnels.length;
    await assert.rejects(
      proxied.request(get(`http://intranet.example:${site.port}/`, "agent")),
      refusal(/private/),
    );
    await assert.rejects(
      guarded.request(get(`http://127.0.0.1:${site.port}/`, "agent")),
      refusal(/loopback/),
    );
    await assert.rejects(
      guarded.request(get(`http://public.example:${site.port}/`, "agent")),
      refusal(/loopback/),
    );
    await assert.rejects(
      guarded.request(get("http://169.254.169.254/latest/meta-data/", "agent")),
      refusal(),
    );
    await assert.rejects(
      guarded.request(get(`https://public.example:${site.port}/`, "agent")),
      refusal(/loopback/),
    );
    assert.equal(proxy.forwarded.length, before, "no refused target reached the proxy");
    assert.equal(proxy.tunnels.length, tunnels, "nor was a tunnel asked for");
    // A public page redirecting to an intranet name: the first hop is sent, the second refused.
    await assert.rejects(
      proxied.request(get(`http://public.example:${site.port}/to-intranet`, "agent")),
      refusal(/private/),
    );
    assert.deepEqual(proxy.forwarded.slice(before), [`GET http://public.example:${site.port}/to-intranet`]);
  });

  it("an unresolvable agent host through the proxy is host_unresolved, not sent", async () => {
    const proxied = client({ proxy: { httpProxy: proxy.url } });
    const before = proxy.forwarded.length;
    await assert.rejects(
      proxied.request(get("http://nowhere.example/", "agent")),
      (error: unknown) => error instanceof EvidentError && error.code === "host_unresolved",
    );
    assert.equal(proxy.forwarded.length, before);
  });

  it("the operator can refuse agent URLs through the proxy altogether", async () => {
    const refusing = client({
      proxy: { httpProxy: proxy.url },
      treatAsPublic: ["127.0.0.1"],
      agentUrlsViaProxy: false,
    });
    const before = proxy.forwarded.length;
    await assert.rejects(
      refusing.request(get(`http://public.example:${site.port}/`, "agent")),
      refusal(/EVIDENT_AGENT_URLS_VIA_PROXY=false/),
    );
    assert.equal(proxy.forwarded.length, before);
    // Operator URLs still use the proxy.
    assert.equal((await refusing.request(get(`${site.url}/vendor`, "operator"))).status, 200);
    assert.equal(proxy.forwarded.length, before + 1);
  });

  it("a proxy that refuses the request or the tunnel, or cannot be reached, is a proxy failure", async () => {
    const proxied = client({ proxy: { httpProxy: proxy.url } });
    proxy.refuseWith = 407;
    try {
      const error = await proxied.request(get(`${site.url}/x`, "operator")).catch((e: unknown) => e);
      assert.ok(error instanceof HttpClientError);
      assert.equal(error.kind, "proxy");
      assert.equal(error.message, "proxy refused the request (HTTP 407)");
      const tunnel = await proxied
        .request(get(`https://127.0.0.1:${site.port}/x`, "operator"))
        .catch((e: unknown) => e);
      assert.ok(tunnel instanceof HttpClientError);
      assert.equal(tunnel.kind, "proxy");
      assert.equal(tunnel.message, "proxy refused the tunnel (HTTP 407)");
    } finally {
      proxy.refuseWith = undefined;
    }
    const gone = await startConnectProxy();
    const goneUrl = gone.url;
    await gone.close();
    const unreachable = client({ proxy: { httpProxy: goneUrl } });
    const error = await unreachable.request(get(`${site.url}/x`, "operator")).catch((e: unknown) => e);
    assert.ok(error instanceof HttpClientError);
    assert.equal(error.kind, "proxy");
    assert.equal(error.message, "proxy could not be reached (connection refused)");
  });

  it("the configuration reads the proxy variables (lower case first) and names a bad one", async () => {
    const load = (env: Record<string, string>) =>
      loadConfig({ XDG_CONFIG_HOME: "/nonexistent-evident", ...env }, { schema: configFileSchema });
    const loaded = await load({
      https_proxy: "http://lower:1",
      HTTPS_PROXY: "http://upper:2",
      HTTP_PROXY: "http://user:pa55word@plain:3",
      NO_PROXY: "localhost",
      EVIDENT_AGENT_URLS_VIA_PROXY: "false",
    });
    assert.ok(loaded.ok);
    if (loaded.ok) {
      const { proxy: settings } = loaded.config;
      assert.equal(settings.httpsProxy, "http://lower:1");
      assert.equal(settings.httpProxy, "http://user:pa55word@plain:3");
      assert.equal(settings.noProxy, "localhost");
      assert.deepEqual(settings.variables, ["HTTP_PROXY", "https_proxy", "NO_PROXY"]);
      assert.equal(loaded.config.agentUrlsViaProxy, false);
      assert.ok(loaded.config.secrets.includes("pa55word"), "the proxy password is redacted from logs");
    }
    const bad = await load({ HTTPS_PROXY: "proxy.corp:3128" });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.error.details.key, "HTTPS_PROXY");
  });

  it("web_search and web_read go through the proxy the environment names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evident-proxy-"));
    try {
      writeFileSync(join(dir, "page.txt"), "");
      const env = {
        XDG_CONFIG_HOME: dir,
        HTTP_PROXY: proxy.url,
        EVIDENT_DUCKDUCKGO_BASE_URL: `${site.url}/ddg`,
      };
      const tools = new ToolRegistry()
        .register(
          createWebSearchTool(
            { cwd: dir, settings: resolveSettings(env), logger: silentLogger },
            { lookup, treatAsPublic: ["127.0.0.1"] },
          ),
        )
        .register(
          createWebReadTool(
            { cwd: dir, settings: resolveSettings(env), logger: silentLogger },
            { lookup, treatAsPublic: ["127.0.0.1"] },
          ),
        );
      try {
        const before = proxy.forwarded.length;
        const read = await tools.call("web_read", { url: `http://public.example:${site.port}/article` });
        assert.equal(read.isError, false, JSON.stringify(read.data));
        const refused = await tools.call("web_read", { url: `http://intranet.example:${site.port}/` });
        assert.equal((refused.data as { error: { code: string } }).error.code, "url_not_allowed");
        // The keyless search reached its (operator) base URL through the proxy too; its page is
        // not a results page, which is beside the point here.
        await tools.call("web_search", { query: "q" });
        assert.deepEqual(proxy.forwarded.slice(before), [
          `GET http://public.example:${site.port}/article`,
          `GET http://127.0.0.1:${site.port}/ddg/html/?q=q`,
        ]);
      } finally {
        await tools.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
