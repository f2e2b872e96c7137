/**
 * The SDK's close() while calls are in flight, against a real loopback server that takes the
 * requests and never answers: each call ends `cancelled`, never as a provider failure.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../../src/core/logger.js";
import { createEvident } from "../../src/index.js";
import { listenOnLoopback } from "../net/loopback.js";

describe("SDK close() during calls", () => {
  const received: IncomingMessage[] = [];
  let arrived: () => void = () => {};
  const server = createServer((request) => {
    received.push(request);
    arrived();
  });
  let base = "";
  before(async () => {
    base = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  /** Resolves once the server holds `count` requests (the calls are waiting on it). */
  const requests = (count: number) =>
    new Promise<void>((done) => {
      arrived = () => {
        if (received.length >= count) done();
      };
      arrived();
    });

  /** The SDK with Tavily at the loopback server, which holds every request it receives. */
  const sdk = () =>
    createEvident({
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        EVIDENT_ALLOW_PRIVATE_NETWORK: "true",
        TAVILY_API_KEY: "tvly-test-key-0123456789",
        EVIDENT_TAVILY_BASE_URL: base,
        XDG_CONFIG_HOME: "/nonexistent-evident-config",
      },
      logger: silentLogger,
    });

  it("S04: web calls in flight end cancelled, not as the provider's network error", async () => {
    const evident = sdk();
    const outcome = (call: Promise<unknown>) =>
      call.then(
        () => "answered",
        (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
      );
    const read = outcome(evident.webRead({ url: `${base}/page` }));
    const search = outcome(evident.webSearch({ query: "hello" }));
    await requests(2);
    await Promise.all([evident.close(), evident.close()]);
    assert.match(await read, /^cancelled: /);
    assert.match(await search, /^cancelled: /);
    assert.match(await outcome(evident.webSearch({ query: "again" })), /^cancelled: /);
  });

  it("many web calls at once add no listener to a signal they share (no MaxListenersExceededWarning)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const evident = sdk();
      const count = 30;
      const before = received.length;
      const calls = Array.from({ length: count }, (_, i) =>
        evident.webSearch({ query: `q${i}` }).catch((error: { code?: string }) => error.code),
      );
      // All of them in flight at once, held by the server.
      await requests(before + count);
      await evident.close();
      assert.deepEqual(new Set(await Promise.all(calls)), new Set(["cancelled"]));
      // A warning is emitted on a later tick than the listener that caused it.
      await new Promise((done) => setImmediate(done));
      assert.deepEqual(
        warnings.filter((w) => w.includes("MaxListeners")),
        [],
      );
    } finally {
      process.off("warning", onWarning);
    }
  });
});
