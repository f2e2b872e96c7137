/**
 * web_search and web_read end to end through the tool registry: configuration from an explicit
 * environment object, real adapters against loopback servers, the real direct reader.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { ProviderSpec } from "../../src/config/load.js";
import { resolveSettings } from "../../src/config/settings.js";
import { silentLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import type { ToolEnvironment } from "../../src/tools/tool.js";
import { createWebReadTool } from "../../src/tools/web-read.js";
import { createWebSearchTool } from "../../src/tools/web-search.js";
import type { WebToolOptions } from "../../src/tools/web-shared.js";
import { type Loopback, startLoopback } from "../net/loopback.js";
import { fake, latch, rows, webTools } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "evident-tools-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const registry = (vars: Record<string, string>, options: WebToolOptions = {}) => webTools(dir, vars, options);

// biome-ignore lint/suspicious/noExplicitAny: result payloads are read loosely; their shapes are asserted.
type Json = Record<string, any>;
const payload = (result: { isError: boolean; data: unknown }) => result.data as Json;

describe("web tools", () => {
  let vendor: Loopback;
  let site: Loopback;

  before(async () => {
    vendor = await startLoopback((req, res, body) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/search" && req.headers.authorization === "Bearer tvly-test") {
        const { query } = JSON.parse(body) as { query: string };
        res.end(
          JSON.stringify({
            answer: `about ${query}`,
            results: [{ title: "Result", url: "https://example.com/r", content: "snippet", score: 1 }],
          }),
        );
      } else {
        res.statusCode = 401;
        res.end(JSON.stringify({ detail: "bad key tvly-test" }));
      }
    });
    site = await startLoopback((req, res) => {
      if (req.url === "/article") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(`<!doctype html><html><head><title>An article</title></head><body>
          <nav><a href="/home">Home</a></nav>
          <article><h1>Heading</h1><p>${"The main text of the article. ".repeat(30)}</p>
          <p>See <a href="/other">other page</a> and <a href="https://example.org/x">elsewhere</a>.</p></article>
          <footer>footer</footer></body></html>`);
      } else if (req.url === "/thread") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(readFileSync(new URL("direct/fixtures/forum-noscript.html", import.meta.url)));
      } else if (req.url === "/plain") {
        res.setHeader("content-type", "text/plain");
        res.end("  plain *text* stays as is\n");
      } else if (req.url === "/image") {
        res.setHeader("content-type", "image/png");
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
      } else if (req.url === "/redirect-private") {
        res.statusCode = 302;
        res.setHeader("location", "http://169.254.169.254/latest/meta-data/");
        res.end();
      } else if (req.url === "/huge") {
        res.setHeader("content-type", "text/plain");
        res.end("word ".repeat(200_000));
      } else {
        res.statusCode = 404;
        res.end("not found");
      }
    });
  });
  after(async () => {
    await vendor.close();
    await site.close();
  });

  it("S08 A06: web_search through a configured vendor: provenance, results under its id, sanitized failure, no keyless recovery", async () => {
    const tools = registry({ TAVILY_API_KEY: "tvly-test", EVIDENT_TAVILY_BASE_URL: vendor.url });
    try {
      const result = await tools.call("web_search", { query: "evident" });
      assert.equal(result.isError, false, result.text);
      const data = payload(result);
      assert.deepEqual(data.provenance.used, ["tavily"]);
      assert.deepEqual(data.provenance.anonymous, []);
      assert.equal(data.results.tavily.answer, "about evident");
      assert.equal(data.results.tavily.results[0].url, "https://example.com/r");
      assert.equal(result.text, JSON.stringify(data));
      const bad = registry({ TAVILY_API_KEY: "wrong", EVIDENT_TAVILY_BASE_URL: vendor.url });
      const failed = await bad.call("web_search", { query: "evident" });
      assert.equal(failed.isError, true);
      assert.equal(payload(failed).error.code, "all_providers_failed");
      assert.deepEqual(payload(failed).error.provider_errors, { tavily: "tavily HTTP 401" });
      // A rejected key never falls back to the keyless default (anonymous access is explicit).
      assert.deepEqual(payload(failed).error.providers_attempted, ["tavily"]);
      assert.ok(!failed.text.includes("wrong") && !failed.text.includes("bad key"));
      await bad.close();
    } finally {
      await tools.close();
    }
  });

  it("S08: a placeholder or empty key fails the search that would use it with configuration_error naming the variable; nothing is sent", async () => {
    const counting = await startLoopback((_req, res) => {
      res.statusCode = 401;
      res.end("{}");
    });
    try {
      for (const value of ["tvly-...", "", "<your-tavily-key-0123>"]) {
        const tools = registry(
          { TAVILY_API_KEY: value, EVIDENT_TAVILY_BASE_URL: counting.url },
          { treatAsPublic: ["127.0.0.1"] },
        );
        try {
          const failed = await tools.call("web_search", { query: "evident" });
          assert.equal(failed.isError, true, value);
          const error = payload(failed).error;
          assert.equal(error.code, "configuration_error", value);
          assert.match(
            error.message,
            /the environment variable TAVILY_API_KEY (is set but empty|holds a placeholder)/,
          );
          // Not recovered through the keyless default, and the placeholder itself is not echoed.
          assert.deepEqual(error.providers_attempted, ["tavily"]);
          if (value !== "" && value !== "tvly-...") assert.ok(!failed.text.includes("your-tavily-key-0123"));
          // web_read does not use the key: it still works from direct.
          const read = await tools.call("web_read", { url: `${site.url}/plain` });
          assert.equal(read.isError, false, read.text);
        } finally {
          await tools.close();
        }
      }
      assert.equal(counting.connections, 0, "the vendor was never asked");
    } finally {
      await counting.close();
    }
  });

  it("A07 A12: invalid arguments and key-like fields are invalid_arguments naming the field", async () => {
    const tools = registry({});
    try {
      const cases: Array<[string, unknown, string]> = [
        ["web_search", { query: "" }, "query"],
        ["web_search", { query: "   " }, "query"],
        ["web_search", { query: "\t\n" }, "query"],
        ["web_search", { query: "x".repeat(4_001) }, "query"],
        ["web_search", { query: "q", maxResults: 21 }, "maxResults"],
        ["web_search", { query: "q", timeRange: "decade" }, "timeRange"],
        ["web_search", { query: "q", providers: [] }, "providers"],
        ["web_search", { query: "q", providers: ["duckduckgo", "nope"] }, "providers[1]"],
        ["web_search", { query: "q", apiKey: "sk-123" }, "apiKey"],
        ["web_read", { url: "https://example.com/", reader: "nope" }, "reader"],
        ["web_read", { url: "https://example.com/", headers: {} }, "headers"],
      ];
      for (const [tool, args, field] of cases) {
        const result = await tools.call(tool, args);
        assert.equal(result.isError, true, JSON.stringify(args));
        assert.equal(payload(result).error.code, "invalid_arguments", JSON.stringify(args));
        assert.equal(payload(result).error.field, field, JSON.stringify(args));
      }
    } finally {
      await tools.close();
    }
  });

  it("web_search names only search-capable providers: in its description and when an id is unknown", async () => {
    const path = join(dir, "ids.json");
    writeFileSync(
      path,
      JSON.stringify({
        providers: {
          tav: { type: "tavily", apiKey: "k" },
          reader: { type: "jina" },
          mine: {
            type: "mcp",
            connection: { url: "http://127.0.0.1:9/mcp" },
            read: { tool: "r", arguments: { url: "$url" } },
          },
        },
      }),
    );
    const tools = registry({ EVIDENT_CONFIG: path, BRAVE_API_KEY: "b" });
    try {
      const description = tools.list().find((tool) => tool.name === "web_search")?.description ?? "";
      const line = description.split("\n").at(-1) ?? "";
      assert.match(line, /ids for `providers`\): duckduckgo, brave, tav\.$/);
      for (const unable of ["direct", "reader", "mine"]) assert.ok(!line.includes(unable), unable);
      const unknown = payload(await tools.call("web_search", { query: "q", providers: ["nope"] }));
      assert.match(unknown.error.message, /Search providers: duckduckgo, brave, tav\./);
      const reader = payload(await tools.call("web_read", { url: "https://example.com/", reader: "nope" }));
      assert.match(reader.error.message, /Readers: direct, tav, reader, mine\./);
    } finally {
      await tools.close();
    }
  });

  it("S01: the product's public tools are exactly web_search, web_read and code_search", async () => {
    const product = createProductRegistry({
      cwd: dir,
      settings: resolveSettings({ XDG_CONFIG_HOME: join(dir, "no-config") }),
      logger: silentLogger,
    });
    try {
      assert.deepEqual(
        product.list().map((tool) => tool.name),
        ["web_search", "web_read", "code_search"],
      );
    } finally {
      await product.close();
    }
  });

  it("tools are read-only, open-world, and describe their inputs", () => {
    const tools = registry({});
    for (const listing of tools.list()) {
      assert.equal(listing.annotations.readOnlyHint, true);
      assert.equal(listing.annotations.openWorldHint, true);
    }
    const search = tools.list().find((l) => l.name === "web_search");
    assert.deepEqual(Object.keys(((search?.inputSchema ?? {}) as Json).properties).sort(), [
      "intent",
      "maxResults",
      "providers",
      "query",
      "timeRange",
    ]);
    const read = tools.list().find((l) => l.name === "web_read");
    assert.deepEqual(Object.keys(((read?.inputSchema ?? {}) as Json).properties).sort(), [
      "cursor",
      "focus",
      "reader",
      "url",
    ]);
  });

  it("web_read's provenance says what kind of page it read and how (pageType, strategy)", async () => {
    const tools = registry({}, { treatAsPublic: ["127.0.0.1"] });
    try {
      const thread = payload(await tools.call("web_read", { url: `${site.url}/thread` }));
      assert.equal(thread.provenance.pageType, "forum");
      assert.equal(thread.provenance.strategy, "thread");
      const article = payload(await tools.call("web_read", { url: `${site.url}/article` }));
      assert.equal(article.provenance.pageType, "article");
      assert.notEqual(article.provenance.strategy, "thread");
    } finally {
      await tools.close();
    }
  });

  it("direct (keyless default) reads the main content as Markdown, anonymous, with absolute links", async () => {
    const tools = registry({}, { treatAsPublic: ["127.0.0.1"] });
    try {
      const url = `${site.url}/article`;
      const result = await tools.call("web_read", { url });
      assert.equal(result.isError, false, result.text);
      const data = payload(result);
      assert.equal(data.provenance.url, url);
      assert.deepEqual(data.provenance.used, ["direct"]);
      assert.deepEqual(data.provenance.anonymous, ["direct"]);
      assert.equal(data.title, "An article");
      const text = data.content[0].text as string;
      assert.match(text, /# Heading/);
      assert.match(text, /The main text of the article\./);
      assert.doesNotMatch(text, /footer/);
      assert.match(text, new RegExp(`\\(${site.url}/other\\)`));
      assert.equal(data.truncated, false);
      // Loopback links are not public sources; the public one is indexed.
      assert.deepEqual(data.sources, ["https://example.org/x"]);
    } finally {
      await tools.close();
    }
  });

  it("direct passes plain text through, refuses other types clearly, and clips huge pages to the budget", async () => {
    const tools = registry({ EVIDENT_ENVELOPE_BUDGET_CHARS: "5000" }, { treatAsPublic: ["127.0.0.1"] });
    try {
      const plain = payload(await tools.call("web_read", { url: `${site.url}/plain` }));
      assert.deepEqual(plain.content, [{ type: "text", text: "  plain *text* stays as is\n" }]);
      const image = await tools.call("web_read", { url: `${site.url}/image` });
      assert.equal(image.isError, true);
      assert.equal(payload(image).error.code, "unsupported_content");
      assert.equal(payload(image).error.content_type, "image/png");
      assert.match(payload(image).error.message, /direct cannot read image\/png content/);
      const huge = await tools.call("web_read", { url: `${site.url}/huge` }, { caller: "alice" });
      assert.ok(huge.text.length <= 5000);
      assert.equal(payload(huge).truncated, true);
      assert.equal(payload(huge).contentChars.total, "word ".repeat(200_000).length);
      // The rest is kept for its caller alone.
      const cursor = payload(huge).cursor as string;
      const next = await tools.call("web_read", { cursor }, { caller: "alice" });
      assert.equal(payload(next).contentChars.from, payload(huge).contentChars.kept);
      assert.ok(next.text.length <= 5000);
      const other = await tools.call("web_read", { cursor }, { caller: "bob" });
      assert.equal(payload(other).error.code, "cursor_not_found");
    } finally {
      await tools.close();
    }
  });

  it("S22: web_read refuses private URLs and redirects to private addresses with url_not_allowed", async () => {
    const guarded = registry({});
    const standIn = registry({}, { treatAsPublic: ["127.0.0.1"] });
    try {
      const direct = await guarded.call("web_read", { url: `${site.url}/plain` });
      assert.equal(payload(direct).error.code, "url_not_allowed");
      const redirected = await standIn.call("web_read", { url: `${site.url}/redirect-private` });
      assert.equal(payload(redirected).error.code, "url_not_allowed");
    } finally {
      await guarded.close();
      await standIn.close();
    }
  });

  it("S11: an invalid configuration hides no tool; each call explains it", async () => {
    const path = join(dir, "broken.json");
    writeFileSync(path, JSON.stringify({ providers: { x: { type: "brave", key: "oops" } } }));
    const tools = registry({ EVIDENT_CONFIG: path });
    try {
      assert.deepEqual(tools.names(), ["web_search", "web_read"]);
      for (const [name, args] of [
        ["web_search", { query: "q" }],
        ["web_read", { url: "https://example.com/" }],
      ] as const) {
        const result = await tools.call(name, args);
        assert.equal(payload(result).error.code, "configuration_error");
        assert.match(payload(result).error.message, /providers\.x\.key/);
      }
    } finally {
      await tools.close();
    }
  });

  it("S10: a changed config file builds a new router; the old one retires after its in-flight call", async () => {
    const path = join(dir, "live.json");
    writeFileSync(path, JSON.stringify({ providers: { one: { type: "tavily", apiKey: "k" } } }));
    const TICK = 1_700_000_000;
    utimesSync(path, TICK, TICK);
    const closed: string[] = [];
    const release = latch();
    const started = latch();
    let generation = 0;
    const factories = {
      tavily: async (spec: ProviderSpec) => {
        const mine = ++generation;
        const provider = fake(spec.id, {
          search: async () => {
            if (mine === 1) {
              started.resolve();
              await release.promise;
            }
            return rows(`${spec.id}-gen${mine}`);
          },
        });
        return { ...provider, close: async () => void closed.push(`${spec.id}#${mine}`) };
      },
    };
    const tools = registry({ EVIDENT_CONFIG: path }, { factories });
    try {
      const first = tools.call("web_search", { query: "q" });
      await started.promise;
      // An edit of the same size within one timestamp tick: inode, size and mtime all unchanged.
      const before = statSync(path);
      writeFileSync(path, JSON.stringify({ providers: { two: { type: "tavily", apiKey: "k" } } }));
      utimesSync(path, TICK, TICK);
      const after = statSync(path);
      assert.deepEqual([after.ino, after.size, after.mtimeMs], [before.ino, before.size, before.mtimeMs]);
      const second = payload(await tools.call("web_search", { query: "q" }));
      assert.deepEqual(second.provenance.used, ["two"]);
      assert.deepEqual(closed, [], "the old generation must wait for its in-flight call");
      release.resolve();
      const firstData = payload(await first);
      assert.deepEqual(firstData.provenance.used, ["one"]);
      await tools.close();
      assert.deepEqual(closed.sort(), ["one#1", "two#2"]);
    } finally {
      await tools.close();
    }
  });
});

describe("web service configuration", () => {
  it("EVIDENT_MCP_PRESETS adds upstream MCP providers by preset id; an unknown id names the variable", async () => {
    const { WebService } = await import("../../src/web/service.js");
    const base = { XDG_CONFIG_HOME: join(dir, "no-config") };
    const service = new WebService({
      settings: resolveSettings({
        ...base,
        EVIDENT_MCP_PRESETS: "exa-hosted",
        EVIDENT_SEARCH_ROUTE: "duckduckgo,mcp-exa-hosted",
      }),
      logger: silentLogger,
    });
    const loaded = await service.config();
    assert.ok(loaded.ok);
    if (loaded.ok) {
      assert.equal(loaded.config.providers.get("mcp-exa-hosted")?.adapter, "mcp");
      assert.deepEqual(loaded.config.searchRoute, ["duckduckgo", "mcp-exa-hosted"]);
    }
    await service.close();
    const bad = new WebService({
      settings: resolveSettings({ ...base, EVIDENT_MCP_PRESETS: "exa-hosted,nope" }),
      logger: silentLogger,
    });
    const failed = await bad.config();
    assert.equal(failed.ok, false);
    if (!failed.ok) assert.equal(failed.error.details.key, "EVIDENT_MCP_PRESETS");
    await bad.close();
  });

  it("S22: the private-network switch is logged when the tools are created", () => {
    const lines: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void lines.push(message) };
    const env: ToolEnvironment = {
      cwd: dir,
      settings: resolveSettings({ EVIDENT_ALLOW_PRIVATE_NETWORK: "true" }),
      logger,
    };
    createWebSearchTool(env);
    createWebReadTool(env);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? "", /EVIDENT_ALLOW_PRIVATE_NETWORK/);
  });
});
