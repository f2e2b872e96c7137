/**
 * SSRF suite (S22): everything an agent or a provider can make evident contact, through the real
 * tools, against loopback canaries that count connections. The agent's hostile URLs (more than
 * 60 forms) are refused by web_read, with the keyless reader and with a vendor reader that would
 * fetch them for us; and operator-configured providers (a vendor API, an upstream MCP server
 * over HTTP, the HTTP client's own fetch) that redirect to a private address never take us
 * there. A canary that is never reached proves nothing unless something can reach it: the
 * controls below do, with the guard explicitly off.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createHttpClient } from "../../src/net/client.js";
import { fetchVia } from "../../src/net/fetch.js";
import type { WebToolOptions } from "../../src/tools/web-shared.js";
import { hostileLookup, hostileUrls } from "../net/hostile-urls.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { webTools } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "evident-ssrf-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const registry = (vars: Record<string, string>, options: WebToolOptions = {}) => webTools(dir, vars, options);

function errorOf(result: { isError: boolean; data: unknown }): { code?: string } {
  return result.isError ? (result.data as { error: { code: string } }).error : {};
}

describe("SSRF: hostile URLs from the agent", () => {
  let canary: Loopback;
  let vendor: Loopback;
  before(async () => {
    canary = await startLoopback((_req, res) => res.end("canary reached"));
    vendor = await startLoopback((_req, res) => res.end("{}"));
  });
  after(async () => {
    await canary.close();
    await vendor.close();
  });

  for (const reader of ["direct", "jina"] as const) {
    it(`S22: more than 60 hostile forms are refused by web_read (${reader} reader) and no canary is reached`, async () => {
      const tools = registry(
        { JINA_API_KEY: "jina-test", EVIDENT_JINA_BASE_URL: vendor.url },
        { lookup: hostileLookup },
      );
      try {
        const forms = hostileUrls(canary.port);
        let refused = 0;
        for (const url of forms) {
          const result = await tools.call("web_read", { url: url.slice(0, 8_000), reader });
          assert.equal(errorOf(result).code, "url_not_allowed", `${url}: ${result.text}`);
          refused += 1;
        }
        assert.ok(refused > 60, `${refused} forms refused`);
        assert.equal(canary.connections, 0, "the canary saw a connection");
        // A vendor reader fetches on our behalf: the URL was refused before it was handed over.
        assert.equal(vendor.connections, 0, "a hostile URL was handed to the vendor");
      } finally {
        await tools.close();
      }
    });
  }

  it("control: with the guard explicitly off, the same reader reaches the canary", async () => {
    const control = await startLoopback((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end("<html><body><p>canary page</p></body></html>");
    });
    const tools = registry({ EVIDENT_ALLOW_PRIVATE_NETWORK: "true" });
    try {
      const result = await tools.call("web_read", { url: `${control.url}/` });
      assert.equal(result.isError, false, result.text);
      assert.ok(control.connections > 0);
    } finally {
      await tools.close();
      await control.close();
    }
  });
});

describe("SSRF: operator-configured providers redirecting to private addresses", () => {
  let canary: Loopback;
  let site: Loopback;
  let canaryUrl: string;
  before(async () => {
    // The canary listens on 127.0.0.2; the redirecting provider on 127.0.0.1, another origin.
    canary = await startLoopback((_req, res) => res.end("canary reached"), "127.0.0.2");
    canaryUrl = `http://127.0.0.2:${canary.port}`;
    site = await startLoopback((req, res) => {
      const path = req.url ?? "/";
      if (path.startsWith("/page")) {
        res.setHeader("content-type", "text/html");
        res.end("<html><body><p>a public page</p></body></html>");
        return;
      }
      // Every provider endpoint answers with a redirect to the canary, keeping the path.
      res.statusCode = path.startsWith("/mcp") ? 307 : 302;
      res.setHeader("location", `${canaryUrl}${path}`);
      res.end();
    });
  });
  after(async () => {
    assert.equal(canary.connections, 0, "the canary saw a connection");
    await site.close();
    await canary.close();
  });

  it("S22: a vendor search API redirecting to the canary fails the provider, never follows", async () => {
    const tools = registry({ SEARXNG_URL: site.url });
    try {
      const result = await tools.call("web_search", { query: "q", providers: ["searxng"] });
      assert.equal(errorOf(result).code, "all_providers_failed", result.text);
      assert.equal(canary.connections, 0);
    } finally {
      await tools.close();
    }
  });

  it("S22: a vendor reader redirecting to the canary fails the read, never follows", async () => {
    const tools = registry(
      { JINA_API_KEY: "jina-test", EVIDENT_JINA_BASE_URL: site.url },
      { lookup: hostileLookup },
    );
    try {
      const result = await tools.call("web_read", { url: "http://public.test/", reader: "jina" });
      assert.equal(result.isError, true, result.text);
      assert.equal(canary.connections, 0);
    } finally {
      await tools.close();
    }
  });

  it("S22: an upstream MCP server over HTTP redirecting to the canary fails the provider, never follows", async () => {
    const config = join(dir, "mcp-redirect.json");
    writeFileSync(
      config,
      JSON.stringify({
        providers: {
          upstream: {
            type: "mcp",
            connection: { url: `${site.url}/mcp` },
            search: { tool: "search", arguments: { q: "$query" }, format: "json" },
          },
        },
      }),
    );
    const tools = registry({ EVIDENT_CONFIG: config });
    try {
      const result = await tools.call("web_search", { query: "q", providers: ["upstream"] });
      assert.equal(errorOf(result).code, "all_providers_failed", result.text);
      assert.ok(
        site.requests.some((request) => request.url === "/mcp"),
        "the upstream was asked",
      );
      assert.equal(canary.connections, 0);
    } finally {
      await tools.close();
    }
  });

  it("S22: the keyless reader follows a public page's redirect only to public addresses", async () => {
    // The site stands in for a public host (treated as public); its redirect to the canary is not.
    const tools = registry({}, { treatAsPublic: ["127.0.0.1"] });
    try {
      const page = await tools.call("web_read", { url: `${site.url}/page` });
      assert.equal(page.isError, false, page.text);
      const result = await tools.call("web_read", { url: `${site.url}/elsewhere` });
      assert.equal(errorOf(result).code, "url_not_allowed", result.text);
      assert.equal(canary.connections, 0);
    } finally {
      await tools.close();
    }
  });

  it("S22: the client's fetch (what upstream MCP uses) follows an operator URL only within its origin unguarded", async () => {
    const http = createHttpClient();
    try {
      const fetch = fetchVia(http, "operator");
      const same = await fetch(`${site.url}/page`);
      assert.equal(same.status, 200);
      await same.body?.cancel();
      await assert.rejects(
        fetch(`${site.url}/anything`, { method: "POST", body: "{}" }),
        (error: unknown) => {
          return (error as { code?: string }).code === "url_not_allowed";
        },
      );
      const manual = await fetch(`${site.url}/anything`, { redirect: "manual" });
      assert.equal(manual.status, 302);
      assert.equal(canary.connections, 0);
    } finally {
      await http.close();
    }
  });
});
