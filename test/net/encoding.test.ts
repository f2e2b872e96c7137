/**
 * Response bodies sent compressed whether or not they were asked for (servers and CDNs do):
 * decoded before anyone reads them, stacked codings included, the body cap applying to the
 * decoded bytes, and codings that cannot be decoded failing as such. Real loopback HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { MAX_RESPONSE_BODY_BYTES } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createHttpClient } from "../../src/net/client.js";
import { HttpClientError } from "../../src/net/http-client.js";
import type { ProviderReadOutcome } from "../../src/web/provider.js";
import { ProviderError } from "../../src/web/provider.js";
import { createDirectProvider } from "../../src/web/providers/direct/provider.js";
import { type Loopback, startLoopback } from "./loopback.js";

const PAGE = `<html><head><title>Compressed</title></head><body><article><p>${"A sentence of the article, sent compressed by a server that was not asked to. ".repeat(10)}</p></article></body></html>`;
/** 256 MiB of one byte, gzipped to a few hundred kilobytes. */
const BOMB = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x61), { level: 9 });

/** Path -> [content-encoding, body]. */
const ROUTES: Record<string, [string, Buffer]> = {
  "/gzip": ["gzip", gzipSync(PAGE)],
  "/x-gzip": ["x-gzip", gzipSync(PAGE)],
  "/deflate": ["deflate", deflateSync(PAGE)],
  "/br": ["br", brotliCompressSync(PAGE)],
  "/stacked": ["deflate, gzip", gzipSync(deflateSync(PAGE))],
  "/identity": ["identity", Buffer.from(PAGE)],
  "/bomb": ["gzip", BOMB],
  "/bomb-stacked": ["gzip, gzip", gzipSync(BOMB)],
  "/unknown": ["x-evident-unknown", Buffer.from(PAGE)],
  "/corrupt": [
    "gzip",
    Buffer.concat([gzipSync(PAGE).subarray(0, 10), Buffer.from("not deflate data at all")]),
  ],
  "/cut": ["gzip", gzipSync(PAGE).subarray(0, 60)],
};

describe("compressed response bodies", () => {
  let site: Loopback;
  const http = createHttpClient({ allowPrivateNetwork: true });
  const direct = createDirectProvider();

  before(async () => {
    site = await startLoopback((req, res) => {
      const route = ROUTES[req.url ?? ""];
      if (route === undefined) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.setHeader("content-encoding", route[0]);
      res.end(route[1]);
    });
  });
  after(async () => {
    await http.close();
    await site.close();
  });

  const get = (path: string) =>
    http.request({
      method: "GET",
      url: `${site.url}${path}`,
      trust: "operator",
      signal: new AbortController().signal,
    });
  const read = (path: string) =>
    direct.read?.(
      { url: `${site.url}${path}` },
      { signal: new AbortController().signal, http, logger: silentLogger },
    ) as Promise<ProviderReadOutcome>;

  it("reads gzip, x-gzip, deflate, br and stacked codings as the page they encode", async () => {
    for (const path of ["/gzip", "/x-gzip", "/deflate", "/br", "/stacked", "/identity"]) {
      const response = await get(path);
      assert.equal(response.text(), PAGE, path);
      // The headers describe the body handed over: decoded, so no encoding and no stale length.
      assert.equal(response.headers["content-encoding"], path === "/identity" ? "identity" : undefined, path);
      const outcome = await read(path);
      assert.equal(outcome.title, "Compressed", path);
      assert.match(
        (outcome.content[0] as { text: string }).text,
        /^A sentence of the article, sent compressed/,
      );
    }
  });

  it("streams decoded bodies too (what the upstream MCP client reads)", async () => {
    const response = await http.stream({
      method: "GET",
      url: `${site.url}/stacked`,
      trust: "operator",
      signal: new AbortController().signal,
    });
    assert.equal(response.headers.get("content-encoding"), null);
    assert.equal(await response.text(), PAGE);
  });

  it("S13: a small body inflating past 4 MiB is body_too_large, once or stacked, and a page read says too_large", async () => {
    for (const path of ["/bomb", "/bomb-stacked"]) {
      await assert.rejects(
        get(path),
        (error: unknown) => error instanceof HttpClientError && error.kind === "body_too_large",
        path,
      );
    }
    assert.ok(BOMB.length < MAX_RESPONSE_BODY_BYTES);
    await assert.rejects(
      read("/bomb"),
      (error: unknown) => error instanceof ProviderError && error.kind === "too_large",
    );
    const streamed = await http.stream({
      method: "GET",
      url: `${site.url}/bomb`,
      trust: "operator",
      signal: new AbortController().signal,
    });
    await assert.rejects(
      streamed.arrayBuffer(),
      (error: unknown) => error instanceof HttpClientError && error.kind === "body_too_large",
    );
  });

  it("an unknown coding, a corrupt body and a cut one fail as undecodable, never as text", async () => {
    for (const path of ["/unknown", "/corrupt", "/cut"]) {
      await assert.rejects(
        get(path),
        (error: unknown) => error instanceof HttpClientError && error.kind === "encoding",
        path,
      );
      await assert.rejects(
        read(path),
        (error: unknown) =>
          error instanceof ProviderError && error.kind === "upstream" && /decode/.test(error.reason),
        path,
      );
    }
  });
});
