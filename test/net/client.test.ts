import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EvidentError } from "../../src/core/errors.js";
import { MAX_RESPONSE_BODY_BYTES } from "../../src/core/limits.js";
import { createHttpClient } from "../../src/net/client.js";
import { HttpClientError } from "../../src/net/http-client.js";
import { type Loopback, startLoopback } from "./loopback.js";

describe("createHttpClient", () => {
  let server: Loopback;
  const client = createHttpClient();
  // Resolves, once the stalled response has started, with a promise of its socket's close.
  let stalled: (socket: { closed: Promise<void> }) => void = () => {};
  const firstBodyChunkSent = new Promise<{ closed: Promise<void> }>((resolve) => {
    stalled = resolve;
  });

  before(async () => {
    server = await startLoopback((req, res, body) => {
      if (req.url === "/json") {
        res.setHeader("X-Custom-Header", "yes");
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ method: req.method, body, ct: req.headers["content-type"] }));
      } else if (req.url === "/huge-declared") {
        res.setHeader("content-length", String(MAX_RESPONSE_BODY_BYTES + 1));
        res.write("x");
      } else if (req.url === "/huge-streamed") {
        const chunk = Buffer.alloc(64 * 1024, 120);
        let sent = 0;
        const pump = () => {
          while (sent <= MAX_RESPONSE_BODY_BYTES + chunk.length) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        pump();
      } else if (req.url === "/stall") {
        res.write("partial");
        stalled({ closed: new Promise((resolve) => req.socket.once("close", () => resolve())) });
      } else if (req.url === "/redirect") {
        res.statusCode = 302;
        res.setHeader("location", "/json");
        res.end();
      } else {
        res.statusCode = 404;
        res.end("nope");
      }
    });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it("sends a JSON body and returns status, lower-cased headers and the body", async () => {
    const response = await client.request({
      method: "POST",
      url: `${server.url}/json`,
      body: { a: 1 },
      trust: "operator",
      signal: new AbortController().signal,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-custom-header"], "yes");
    assert.deepEqual(response.json(), { method: "POST", body: '{"a":1}', ct: "application/json" });
  });

  it("does not follow redirects for operator URLs unless asked", async () => {
    const signal = new AbortController().signal;
    const plain = await client.request({
      method: "GET",
      url: `${server.url}/redirect`,
      trust: "operator",
      signal,
    });
    assert.equal(plain.status, 302);
    const followed = await client.request({
      method: "GET",
      url: `${server.url}/redirect`,
      trust: "operator",
      followRedirects: true,
      signal,
    });
    assert.equal(followed.status, 200);
    assert.equal(followed.url, `${server.url}/json`);
  });

  it("S13: a declared body over 4 MiB is an error, not a cut", async () => {
    await assert.rejects(
      client.request({
        method: "GET",
        url: `${server.url}/huge-declared`,
        trust: "operator",
        signal: new AbortController().signal,
      }),
      (error: unknown) => error instanceof HttpClientError && error.kind === "body_too_large",
    );
  });

  it("S13: a streamed body over 4 MiB is an error, not a cut", async () => {
    await assert.rejects(
      client.request({
        method: "GET",
        url: `${server.url}/huge-streamed`,
        trust: "operator",
        signal: new AbortController().signal,
      }),
      (error: unknown) => error instanceof HttpClientError && error.kind === "body_too_large",
    );
  });

  it("S13: cancellation during the body rejects with the signal's reason and closes the socket", async () => {
    const controller = new AbortController();
    const pending = client.request({
      method: "GET",
      url: `${server.url}/stall`,
      trust: "operator",
      signal: controller.signal,
    });
    const { closed: socketClosed } = await firstBodyChunkSent;
    const reason = new EvidentError("cancelled", "stop");
    controller.abort(reason);
    await assert.rejects(pending, (error: unknown) => error === reason);
    // The server-side socket of the stalled request closes: the cancellation reached it.
    await socketClosed;
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort(new EvidentError("cancelled", "early"));
    const count = server.requests.length;
    await assert.rejects(
      client.request({
        method: "GET",
        url: `${server.url}/json`,
        trust: "operator",
        signal: controller.signal,
      }),
      (error: unknown) => error instanceof EvidentError && error.code === "cancelled",
    );
    assert.equal(server.requests.length, count);
  });

  it("S22: agent URLs on loopback are refused without a connection", async () => {
    const canary = await startLoopback((_req, res) => res.end("canary"));
    try {
      await assert.rejects(
        client.request({
          method: "GET",
          url: `${canary.url}/`,
          trust: "agent",
          signal: new AbortController().signal,
        }),
        (error: unknown) => error instanceof EvidentError && error.code === "url_not_allowed",
      );
      assert.equal(canary.connections, 0);
    } finally {
      await canary.close();
    }
  });

  it("S22: only the explicit allowPrivateNetwork option lets agent URLs reach loopback", async () => {
    const open = createHttpClient({ allowPrivateNetwork: true });
    try {
      const response = await open.request({
        method: "GET",
        url: `${server.url}/json`,
        trust: "agent",
        signal: new AbortController().signal,
      });
      assert.equal(response.status, 200);
    } finally {
      await open.close();
    }
  });
});

describe("createHttpClient close()", () => {
  it("aborts a request still in flight instead of waiting for it", async () => {
    const arrived = { resolve: () => {} } as { resolve: () => void };
    const reached = new Promise<void>((resolve) => {
      arrived.resolve = resolve;
    });
    const server = await startLoopback(() => arrived.resolve());
    const client = createHttpClient();
    try {
      const pending = client.request({
        method: "GET",
        url: `${server.url}/`,
        trust: "operator",
        signal: new AbortController().signal,
      });
      await reached;
      await client.close();
      await assert.rejects(
        pending,
        (error: unknown) => error instanceof HttpClientError && error.kind === "network",
      );
      await assert.rejects(
        client.request({
          method: "GET",
          url: `${server.url}/`,
          trust: "operator",
          signal: new AbortController().signal,
        }),
        HttpClientError,
      );
    } finally {
      await server.close();
    }
  });
});
