/**
 * The upstream connection's lifecycle against a real SDK server, as a stdio child and on loopback
 * HTTP: lazy start, one shared initialization with counted waiters, reuse, loss and reconnect
 * without replay, cancellation reaching the upstream request, the attempt deadline including the
 * connect, and shutdown. Child processes are checked in the process table by pid.
 *
 * Synchronization is by events (the fixture's log, the HTTP fixture's record), never by sleeping.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it, mock } from "node:test";
import { cancelledError } from "../../../src/core/abort.js";
import { UPSTREAM_SESSION_DELETE_MS } from "../../../src/core/limits.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createHttpClient } from "../../../src/net/client.js";
import { ProviderError } from "../../../src/web/provider.js";
import { createMcpProvider, type McpProvider } from "../../../src/web/providers/mcp/provider.js";
import { context } from "./context.js";
import { type HttpUpstream, startHttpUpstream } from "./fixtures/http-upstream.js";
import {
  childProcessesRunning,
  processAlive,
  type StdioUpstream,
  stdioUpstream,
  UPSTREAM_SCRIPT,
} from "./fixtures/stdio-upstream.js";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

const isCall = (query: string) => (event: Record<string, unknown>) =>
  event.event === "call" && (event.args as { query?: unknown } | undefined)?.query === query;

describe("mcp upstream lifecycle over stdio", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  after(() => {
    // Every path above ended in close(): the process table must hold no fixture child of ours.
    const children = childProcessesRunning(UPSTREAM_SCRIPT);
    if (children !== undefined) assert.deepEqual(children, [], "fixture children left running");
  });

  function setup(options: { gated?: boolean; attemptDeadlineMs?: number } = {}): {
    upstream: StdioUpstream;
    provider: McpProvider;
  } {
    const upstream = stdioUpstream({ gated: options.gated === true });
    const provider = createMcpProvider("fixture", {
      type: "mcp",
      preset: "exa",
      connection: upstream.connection,
      ...(options.attemptDeadlineMs === undefined ? {} : { attemptDeadlineMs: options.attemptDeadlineMs }),
    });
    cleanups.push(
      () => upstream.dispose(),
      () => provider.close(),
    );
    return { upstream, provider };
  }

  const search = (provider: McpProvider, query: string, signal?: AbortSignal) => {
    assert.ok(provider.search);
    return provider.search({ query, maxResults: 1 }, context(signal));
  };

  it("S09: nothing starts before the first call", () => {
    const { upstream, provider } = setup();
    assert.equal(provider.connectCount, 0);
    assert.equal(provider.upstreamPid, null);
    assert.deepEqual(upstream.events(), []);
  });

  it("S09: concurrent first calls share one initialization, and later calls reuse it", async () => {
    const { upstream, provider } = setup({ gated: true });
    const calls = [search(provider, "a"), search(provider, "b"), search(provider, "c")];
    await upstream.waitFor((event) => event.event === "started");
    upstream.openGate();
    const outcomes = await Promise.all(calls);
    assert.equal(outcomes.length, 3);
    await search(provider, "d");
    assert.equal(provider.connectCount, 1);
    const started = upstream.events().filter((event) => event.event === "started");
    assert.equal(started.length, 1, "one child for every call");
    assert.equal(started[0]?.pid, provider.upstreamPid);
  });

  it("S09: cancelling one waiter leaves the shared initialization running for the others", async () => {
    const { upstream, provider } = setup({ gated: true });
    const first = new AbortController();
    const cancelled = rejection(search(provider, "first", first.signal));
    const second = search(provider, "second");
    await upstream.waitFor((event) => event.event === "started");
    first.abort(cancelledError());
    const error = await cancelled;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    upstream.openGate();
    const outcome = await second;
    assert.equal(outcome.results.length, 1);
    assert.equal(provider.connectCount, 1);
    assert.equal(upstream.events().filter((event) => event.event === "started").length, 1);
    assert.equal(
      upstream.events().filter(isCall("first")).length,
      0,
      "the cancelled call never reached upstream",
    );
  });

  it("S09: cancelling the last waiter aborts the pending initialization and reaps its child", async () => {
    const { upstream, provider } = setup({ gated: true });
    const controller = new AbortController();
    const pending = rejection(search(provider, "lonely", controller.signal));
    const started = await upstream.waitFor((event) => event.event === "started");
    controller.abort(cancelledError());
    const error = await pending;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    // A new call does not join the aborted initialization: it starts its own.
    upstream.openGate();
    const outcome = await search(provider, "fresh");
    assert.equal(outcome.results.length, 1);
    assert.equal(provider.connectCount, 2);
    await provider.close();
    assert.equal(processAlive(started.pid as number), false, "the aborted child is gone");
    assert.equal(upstream.events().filter(isCall("lonely")).length, 0);
  });

  it("S12: the attempt deadline includes connecting", async () => {
    // The gate never opens, so the call can only end if the deadline covers the connect. On a
    // loaded machine the deadline may pass before the child has even logged its start, so the
    // start is read from the log afterwards instead of awaited.
    const { upstream, provider } = setup({ gated: true, attemptDeadlineMs: 300 });
    const error = await rejection(search(provider, "slow"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "timeout");
    assert.equal(error.reason, "fixture did not answer within the deadline");
    await provider.close();
    const started = upstream.events().find((event) => event.event === "started");
    if (started !== undefined) assert.equal(processAlive(started.pid as number), false);
    const children = childProcessesRunning(UPSTREAM_SCRIPT);
    if (children !== undefined) assert.deepEqual(children, [], "the connecting child was not reaped");
  });

  it("S14: a child that dies mid-call is dropped; the call is not replayed and the next call reconnects", async () => {
    const { upstream, provider } = setup();
    await search(provider, "warm");
    const firstPid = provider.upstreamPid;
    assert.ok(firstPid !== null);
    const error = await rejection(search(provider, "fault:crash"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "network");
    assert.equal(error.reason, "fixture upstream connection was lost");
    const outcome = await search(provider, "after");
    assert.equal(outcome.results.length, 1);
    assert.equal(provider.connectCount, 2);
    assert.notEqual(provider.upstreamPid, firstPid);
    assert.equal(processAlive(firstPid), false);
    assert.equal(upstream.events().filter(isCall("fault:crash")).length, 1, "never replayed");
  });

  it("S13: a stdio message over 4 MiB fails the call as too large; the next call reconnects", async () => {
    const { provider } = setup();
    const error = await rejection(search(provider, "fault:huge"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "too_large");
    assert.equal(error.reason, "fixture response exceeded 4 MiB");
    assert.equal((await search(provider, "small")).results.length, 1);
    assert.equal(provider.connectCount, 2);
  });

  it("S13: cancelling our call cancels the upstream request", async () => {
    const { upstream, provider } = setup();
    const controller = new AbortController();
    const pending = rejection(search(provider, "fault:hang", controller.signal));
    await upstream.waitFor(isCall("fault:hang"));
    controller.abort(cancelledError());
    const error = await pending;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    await upstream.waitFor((event) => event.event === "cancelled" && event.tool === "web_search_exa");
    // The connection survives a cancelled call.
    assert.equal((await search(provider, "still")).results.length, 1);
    assert.equal(provider.connectCount, 1);
  });

  it("S15: close() aborts in-flight calls and reaps the child; concurrent close() calls share one teardown", async () => {
    const { upstream, provider } = setup();
    const pending = rejection(search(provider, "fault:hang"));
    await upstream.waitFor(isCall("fault:hang"));
    const pid = provider.upstreamPid;
    assert.ok(pid !== null);
    const first = provider.close();
    const second = provider.close();
    assert.equal(first, second, "concurrent close() awaits the same teardown");
    await Promise.all([first, second]);
    const error = await pending;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    assert.equal(processAlive(pid), false, "no child remains after close()");
    const afterClose = await rejection(search(provider, "late"));
    assert.ok(afterClose instanceof ProviderError);
    assert.equal(afterClose.reason, "fixture was shut down");
  });

  it("S15: close() during a pending initialization aborts it and reaps the child", async () => {
    const { upstream, provider } = setup({ gated: true });
    const pending = rejection(search(provider, "never"));
    const started = await upstream.waitFor((event) => event.event === "started");
    await provider.close();
    const error = await pending;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    assert.equal(processAlive(started.pid as number), false);
  });
});

describe("mcp upstream lifecycle over Streamable HTTP", () => {
  let upstream: HttpUpstream;
  // An HTTP upstream is reached through the provider context's client, as every provider's is.
  const http = createHttpClient();
  const providers: McpProvider[] = [];
  before(async () => {
    upstream = await startHttpUpstream();
  });
  after(async () => {
    await Promise.all(providers.map((provider) => provider.close()));
    await http.close();
    await upstream.close();
  });

  function provider(options: { attemptDeadlineMs?: number } = {}): McpProvider {
    const created = createMcpProvider("remote", {
      type: "mcp",
      preset: "exa",
      connection: { url: upstream.url },
      ...options,
    });
    providers.push(created);
    return created;
  }
  const search = (target: McpProvider, query: string, signal = new AbortController().signal) => {
    assert.ok(target.search);
    return target.search({ query, maxResults: 1 }, { signal, http, logger: silentLogger });
  };
  const initializations = () => upstream.events.filter((event) => event.event === "initialize").length;

  it("S09: concurrent first calls share one initialization; cancelling one waiter does not disturb it", async () => {
    const target = provider();
    const before = initializations();
    const release = upstream.holdInitialize();
    const cancelled = new AbortController();
    const calls = [
      rejection(search(target, "h-cancel", cancelled.signal)),
      search(target, "h1"),
      search(target, "h2"),
    ];
    await upstream.waitFor((event) => event.event === "initialize" && initializations() > before);
    cancelled.abort(cancelledError());
    assert.ok((await calls[0]) instanceof ProviderError);
    release();
    await Promise.all(calls.slice(1));
    assert.equal(initializations() - before, 1);
    assert.equal(target.connectCount, 1);
  });

  it("S09: cancelling the last waiter aborts the pending initialization", async () => {
    const target = provider();
    const before = initializations();
    const release = upstream.holdInitialize();
    const controller = new AbortController();
    const pending = rejection(search(target, "h-last", controller.signal));
    await upstream.waitFor(() => initializations() > before);
    controller.abort(cancelledError());
    const error = await pending;
    assert.ok(error instanceof ProviderError && error.kind === "cancelled");
    release();
    assert.equal((await search(target, "h-after")).results.length, 1);
    assert.equal(target.connectCount, 2);
  });

  it("S12: the attempt deadline includes connecting", async () => {
    const target = provider({ attemptDeadlineMs: 300 });
    const release = upstream.holdInitialize();
    try {
      const error = await rejection(search(target, "h-slow"));
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "timeout");
    } finally {
      release();
    }
  });

  it("S14: an HTTP 404 for a lost session clears the connection; the next call reconnects without replay", async () => {
    const target = provider();
    await search(target, "h-warm");
    upstream.forgetSessions();
    const error = await rejection(search(target, "h-lost"));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "http");
    assert.equal(error.status, 404);
    assert.equal(error.reason, "remote HTTP 404");
    assert.equal((await search(target, "h-next")).results.length, 1);
    assert.equal(target.connectCount, 2);
    assert.equal(upstream.events.filter(isCall("h-lost")).length, 0, "the failed call was not replayed");
    assert.equal(upstream.events.filter(isCall("h-next")).length, 1);
  });

  it("S14: a server that drops the connection mid-call is reconnected on the next call", async () => {
    const target = provider();
    await search(target, "h-before-crash");
    const error = await rejection(search(target, "fault:crash"));
    assert.ok(error instanceof ProviderError);
    assert.equal((await search(target, "h-after-crash")).results.length, 1);
    assert.equal(target.connectCount, 2);
    assert.equal(upstream.events.filter(isCall("fault:crash")).length, 1, "never replayed");
  });

  it("S13: cancelling our call cancels the upstream request", async () => {
    const target = provider();
    const controller = new AbortController();
    const pending = rejection(search(target, "fault:hang", controller.signal));
    const before = upstream.events.filter((event) => event.event === "cancelled").length;
    await upstream.waitFor(isCall("fault:hang"));
    controller.abort(cancelledError());
    assert.ok((await pending) instanceof ProviderError);
    await upstream.waitFor(
      () => upstream.events.filter((event) => event.event === "cancelled").length > before,
    );
  });

  it(`S15: close() sends a best-effort session DELETE, waits ${UPSTREAM_SESSION_DELETE_MS} ms for it and no longer`, async () => {
    // The bound's timer is Node's mock: the test moves time, so it proves the bound to the
    // millisecond without waiting for it. The DELETE is never answered.
    const target = provider();
    await search(target, "h-delete");
    upstream.hangDeletes();
    const deletes = () => upstream.events.filter((event) => event.event === "delete").length;
    const abandoned = () => upstream.events.filter((event) => event.event === "delete abandoned").length;
    const before = { deletes: deletes(), abandoned: abandoned() };
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      let closed = false;
      const closing = target.close().then(() => {
        closed = true;
      });
      await upstream.waitFor(() => deletes() > before.deletes);
      mock.timers.tick(UPSTREAM_SESSION_DELETE_MS - 1);
      // Whatever was ready to run has run: close() still waits, and the DELETE is still open.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(closed, false, "close() returned before the DELETE's time was up");
      assert.equal(abandoned(), before.abandoned, "the DELETE was given up before its time was up");
      mock.timers.tick(1);
      await closing;
      await upstream.waitFor(() => abandoned() > before.abandoned);
      assert.equal(deletes(), before.deletes + 1, "one DELETE for the session");
    } finally {
      mock.timers.reset();
    }
  });
});
