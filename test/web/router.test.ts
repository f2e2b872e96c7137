import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { EvidentError } from "../../src/core/errors.js";
import { createStderrLogger } from "../../src/core/logger.js";
import { createHttpClient } from "../../src/net/client.js";
import { type Provider, ProviderError } from "../../src/web/provider.js";
import { type RouterOptions, WebRouter } from "../../src/web/router.js";
import { startLoopback } from "../net/loopback.js";
import { failing, fake, latch, publicLookup, rows, source, untilAborted } from "./helpers.js";

const http = createHttpClient();
after(() => http.close());

function router(providers: Provider[], options: Partial<RouterOptions> = {}): WebRouter {
  return new WebRouter({
    providers: source(providers),
    http,
    searchRoute: providers.map((p) => p.id),
    readRoute: providers.map((p) => p.id),
    callDeadlineMs: 60_000,
    envelopeBudgetChars: 40_000,
    allowPrivateNetwork: false,
    lookup: publicLookup,
    ...options,
  });
}

const live = () => new AbortController().signal;
const code = (expected: string) => (error: unknown) =>
  error instanceof EvidentError && error.code === expected;

describe("web router: route mode", () => {
  it("S04: falls back in order, each provider once, and stops at the first success", async () => {
    const a = fake("a", { search: failing("a") });
    const b = fake("b", { search: async () => rows("b") });
    const c = fake("c", { search: async () => rows("c") });
    const result = await router([a, b, c]).search({ query: "q" }, live());
    assert.deepEqual(result.data.provenance.attempted, ["a", "b"]);
    assert.deepEqual(result.data.provenance.used, ["b"]);
    assert.equal(result.data.provenance.mode, "route");
    assert.deepEqual(Object.keys(result.data.results), ["b"]);
    assert.deepEqual(result.data.providerErrors, { a: "a HTTP 429" });
    assert.equal(a.calls.length, 1);
    assert.equal(c.calls.length, 0);
    assert.equal(result.text, JSON.stringify(result.data));
  });

  it("S03: a route naming a provider twice still tries it at most once", async () => {
    const a = fake("a", { search: failing("a") });
    const b = fake("b", { search: failing("b", 500) });
    await assert.rejects(
      router([a, b], { searchRoute: ["a", "b", "a"] }).search({ query: "q" }, live()),
      (error: unknown) =>
        code("all_providers_failed")(error) &&
        JSON.stringify((error as EvidentError).details.provider_errors) ===
          JSON.stringify({ a: "a HTTP 429", b: "b HTTP 500" }),
    );
    assert.equal(a.calls.length, 1);
    assert.equal(b.calls.length, 1);
  });

  it("S04: never runs two attempts at once and never retries", async () => {
    let running = 0;
    let most = 0;
    const slowFail = (id: string) =>
      fake(id, {
        search: async () => {
          running++;
          most = Math.max(most, running);
          await Promise.resolve();
          running--;
          throw new Error(`${id} exploded with secret body`);
        },
      });
    const providers = [slowFail("a"), slowFail("b"), slowFail("c")];
    await assert.rejects(router(providers).search({ query: "q" }, live()), (error: unknown) => {
      const details = (error as EvidentError).details as { provider_errors: Record<string, string> };
      // An adapter bug's message (which may hold a body) never reaches the agent.
      return code("all_providers_failed")(error) && details.provider_errors.a === "a failed unexpectedly";
    });
    assert.equal(most, 1);
    for (const p of providers) assert.equal((p as ReturnType<typeof fake>).calls.length, 1);
  });

  it("S04 S12: the overall deadline stops the chain: no further attempt", async () => {
    const a = fake("a", { search: (_r, context) => untilAborted(context) });
    const b = fake("b", { search: async () => rows("b") });
    await assert.rejects(
      router([a, b], { callDeadlineMs: 40 }).search({ query: "q" }, live()),
      code("deadline_exceeded"),
    );
    assert.equal(b.calls.length, 0);
  });

  it("S12: deadline_exceeded keeps the reasons of the providers that had already failed or timed out", async () => {
    const a = fake("a", { search: failing("a", 401) });
    const b = fake("b", { search: (_r, context) => untilAborted(context) });
    await assert.rejects(
      router([a, b], { callDeadlineMs: 40 }).search({ query: "q" }, live()),
      (error: unknown) => {
        const payload = (error as EvidentError).toPayload().error as unknown as {
          code: string;
          message: string;
          provider_errors: Record<string, string>;
          providers_attempted: string[];
        };
        assert.equal(payload.code, "deadline_exceeded");
        assert.match(payload.provider_errors.a ?? "", /a HTTP 401/);
        assert.match(payload.provider_errors.b ?? "", /overall deadline/);
        assert.deepEqual(payload.providers_attempted, ["a", "b"]);
        assert.match(payload.message, /a HTTP 401/);
        return true;
      },
    );
  });

  it("S12: an attempt deadline fails that attempt only; the next provider answers", async () => {
    const a = fake("a", { search: (_r, context) => untilAborted(context), attemptDeadlineMs: 30 });
    const b = fake("b", { search: async () => rows("b") });
    const result = await router([a, b]).search({ query: "q" }, live());
    assert.deepEqual(result.data.provenance.used, ["b"]);
    assert.equal(result.data.providerErrors?.a, "a: timed out after 30 ms");
  });

  it("S12: a timeout says what the attempt was waiting for, if it still was", async () => {
    const waiting = fake("a", {
      search: (_r, context) => {
        context.waiting?.("the page reader, busy with another large page");
        return untilAborted(context);
      },
      attemptDeadlineMs: 30,
    });
    const waited = fake("b", {
      search: (_r, context) => {
        context.waiting?.("a slot");
        context.waiting?.(undefined);
        return untilAborted(context);
      },
      attemptDeadlineMs: 30,
    });
    const c = fake("c", { search: async () => rows("c") });
    const result = await router([waiting, waited, c]).search({ query: "q" }, live());
    assert.equal(
      result.data.providerErrors?.a,
      "a: timed out after 30 ms while waiting for the page reader, busy with another large page",
    );
    assert.equal(
      result.data.providerErrors?.b,
      "b: timed out after 30 ms",
      "no longer waiting: the vendor was slow",
    );
  });

  it("S12: the router's default attempt deadline applies to providers without an override", async () => {
    const a = fake("a", { search: (_r, context) => untilAborted(context) });
    const b = fake("b", { search: async () => rows("b") });
    const result = await router([a, b], { attemptDeadlineMs: 25 }).search({ query: "q" }, live());
    assert.equal(result.data.providerErrors?.a, "a: timed out after 25 ms");
  });

  it("S12: a provider that ignores its signal cannot hold the call past its attempt deadline", async () => {
    const never = latch<never>();
    const a = fake("a", { search: () => never.promise, attemptDeadlineMs: 20 });
    const b = fake("b", { search: async () => rows("b") });
    const result = await router([a, b]).search({ query: "q" }, live());
    assert.deepEqual(result.data.provenance.used, ["b"]);
  });

  it("S04: cancellation stops the chain and reports cancelled", async () => {
    const started = latch();
    const a = fake("a", {
      search: (_r, context) => {
        started.resolve();
        return untilAborted(context);
      },
    });
    const b = fake("b", { search: async () => rows("b") });
    const controller = new AbortController();
    const pending = router([a, b]).search({ query: "q" }, controller.signal);
    await started.promise;
    controller.abort(new EvidentError("cancelled", "client went away"));
    await assert.rejects(pending, code("cancelled"));
    assert.equal(b.calls.length, 0);
  });

  it("S13: cancellation mid-call reaches the provider's socket", async () => {
    const arrived = latch<{ closed: Promise<void> }>();
    const server = await startLoopback((req) => {
      // Never answers; tells the test the request arrived and when its socket closes.
      arrived.resolve({ closed: new Promise((resolve) => req.socket.once("close", () => resolve())) });
    });
    try {
      const viaHttp = fake("h", {
        search: async (_r, context) => {
          await context.http.request({
            method: "GET",
            url: `${server.url}/search`,
            trust: "operator",
            signal: context.signal,
          });
          return rows("h");
        },
      });
      const controller = new AbortController();
      const pending = router([viaHttp]).search({ query: "q" }, controller.signal);
      const { closed: socketClosed } = await arrived.promise;
      controller.abort(new EvidentError("cancelled", "stop"));
      await assert.rejects(pending, code("cancelled"));
      await socketClosed;
    } finally {
      await server.close();
    }
  });

  it("routes by intent when the operator configured a route for it", async () => {
    const a = fake("a", { search: async () => rows("a") });
    const news = fake("news", { search: async () => rows("news") });
    const r = router([a, news], { searchRoute: ["a"], intentRoutes: { news: ["news"] } });
    assert.deepEqual((await r.search({ query: "q", intent: "news" }, live())).data.provenance.used, ["news"]);
    assert.deepEqual((await r.search({ query: "q", intent: "other" }, live())).data.provenance.used, ["a"]);
  });

  it("an intent named like an object property (found by fuzzing) takes the default route", async () => {
    const a = fake("a", { search: async () => rows("a") });
    const r = router([a], { searchRoute: ["a"], intentRoutes: { news: ["a"] } });
    for (const intent of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      assert.deepEqual((await r.search({ query: "q", intent }, live())).data.provenance.used, ["a"], intent);
    }
  });

  it("passes maxResults (default 5) and timeRange to the provider", async () => {
    const a = fake("a", { search: async () => rows("a") });
    const r = router([a]);
    await r.search({ query: "q" }, live());
    await r.search({ query: "q", maxResults: 12, timeRange: "week" }, live());
    assert.deepEqual(
      a.calls.map((c) => c.request),
      [
        { query: "q", maxResults: 5 },
        { query: "q", maxResults: 12, timeRange: "week" },
      ],
    );
  });

  it("A11: rows never repeat the provider name, and an empty answer is omitted", async () => {
    const a = fake("a", { search: async () => ({ answer: "  ", results: rows("a").results }) });
    const result = await router([a]).search({ query: "q" }, live());
    const section = result.data.results.a;
    assert.ok(section !== undefined);
    assert.equal("answer" in section, false);
    for (const row of section.results) assert.deepEqual(Object.keys(row).sort(), ["snippet", "title", "url"]);
  });

  it("S08: provenance names the providers used anonymously", async () => {
    const keyless = fake("keyless", { search: async () => rows("k"), anonymous: true });
    const result = await router([keyless]).search({ query: "q" }, live());
    assert.deepEqual(result.data.provenance.anonymous, ["keyless"]);
  });

  it("A06: a single-provider route that fails is all_providers_failed with its sanitized reason", async () => {
    const a = fake("a", { search: failing("a", 401) });
    await assert.rejects(router([a]).search({ query: "q" }, live()), (error: unknown) => {
      return code("all_providers_failed")(error) && (error as EvidentError).message.includes("a HTTP 401");
    });
  });
});

describe("web router: failure reasons", () => {
  it("an error payload carries each failure's class, and `reason` when they share one", async () => {
    const refused = () =>
      fake("r", {
        search: async () => {
          throw new ProviderError("r", "connection_refused", "r: connection refused");
        },
      });
    await assert.rejects(router([refused()]).search({ query: "q" }, live()), (error: unknown) => {
      const payload = (error as EvidentError).toPayload().error;
      assert.equal(payload.code, "all_providers_failed");
      assert.match(payload.message, /r: connection refused/);
      assert.equal(payload.reason, "connection_refused");
      assert.deepEqual(payload.provider_reasons, { r: "connection_refused" });
      return true;
    });
    const limited = fake("l", { search: failing("l", 429) });
    await assert.rejects(
      router([refused(), limited]).search({ query: "q", providers: ["r", "l"] }, live()),
      (error: unknown) => {
        const payload = (error as EvidentError).toPayload().error;
        assert.equal("reason" in payload, false, "two classes: no single reason");
        assert.deepEqual(payload.provider_reasons, { r: "connection_refused", l: "rate_limited" });
        return true;
      },
    );
  });

  it("a partial failure is listed with its class in providerReasons", async () => {
    const a = fake("a", { search: async () => rows("a") });
    const b = fake("b", { search: failing("b", 401) });
    const result = await router([a, b]).search({ query: "q", providers: ["a", "b"] }, live());
    assert.deepEqual(result.data.providerErrors, { b: "b HTTP 401" });
    assert.deepEqual(result.data.providerReasons, { b: "auth" });
  });

  it("a network failure before another provider answered says the next step in the warnings", async () => {
    const down = fake("down", {
      search: async () => {
        throw new ProviderError("down", "dns", "down: DNS lookup failed");
      },
    });
    const result = await router([down, fake("ok", { search: async () => rows("ok") })]).search(
      { query: "q" },
      live(),
    );
    const warning = result.data.warnings.find((w) => w.startsWith("failed before ok answered"));
    assert.match(warning ?? "", /Next step: .*HTTPS_PROXY.*evident doctor/);
    const refused = fake("refused", { search: failing("refused", 401) });
    const keyed = await router([refused, fake("ok", { search: async () => rows("ok") })]).search(
      { query: "q" },
      live(),
    );
    assert.doesNotMatch(keyed.data.warnings.join(" "), /Next step/, "a rejected key is no network failure");
  });

  it("an attempt deadline reads as a timeout in seconds; the debug log keeps the underlying code", async () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ level: "debug", write: (line) => void lines.push(line) });
    const slow = fake("slow", { search: (_r, context) => untilAborted(context), attemptDeadlineMs: 1000 });
    const dns = fake("dns", {
      search: async () => {
        const cause = Object.assign(new Error("getaddrinfo ENOTFOUND api.example"), { code: "ENOTFOUND" });
        throw new ProviderError("dns", "dns", "dns: DNS lookup failed", { cause });
      },
    });
    const result = await router([slow, dns, fake("ok", { search: async () => rows("ok") })], {
      logger,
    }).search({ query: "q" }, live());
    assert.equal(result.data.providerErrors?.slow, "slow: timed out after 1 s");
    assert.deepEqual(result.data.providerReasons, { slow: "timeout", dns: "dns" });
    const logged = lines.find((line) => line.includes("provider dns failed"));
    assert.match(logged ?? "", /"code":"ENOTFOUND"/);
    assert.match(logged ?? "", /"class":"dns"/);
  });

  it("a page whose host does not resolve is host_unresolved, not url_not_allowed, and nothing is called", async () => {
    const a = fake("a", { read: async () => ({ content: [{ type: "text" as const, text: "x" }] }) });
    const lines: string[] = [];
    const offline = router([a], {
      lookup: (_h, _options, cb) => cb(Object.assign(new Error("offline"), { code: "ENOTFOUND" }), "", 4),
      logger: createStderrLogger({ level: "debug", write: (line) => void lines.push(line) }),
    });
    await assert.rejects(
      offline.read({ url: "https://no-such-host.example/page" }, live()),
      (error: unknown) => {
        const payload = (error as EvidentError).toPayload().error;
        assert.equal(payload.code, "host_unresolved");
        assert.equal(payload.reason, "dns");
        assert.match(payload.message, /no-such-host\.example could not be resolved \(DNS lookup failed\)/);
        return true;
      },
    );
    assert.equal(a.calls.length, 0);
    assert.ok(lines.some((line) => line.includes('"code":"ENOTFOUND"')));
  });
});

describe("web router: fan-out", () => {
  it("calls exactly the named providers in parallel and reports partial failure", async () => {
    const bStarted = latch();
    // `a` answers only once `b` has started: this only completes if both run at once.
    const a = fake("a", {
      search: async () => {
        await bStarted.promise;
        return rows("a");
      },
    });
    const b = fake("b", {
      search: async () => {
        bStarted.resolve();
        throw new Error("boom");
      },
    });
    const c = fake("c", { search: async () => rows("c") });
    const result = await router([a, b, c]).search({ query: "q", providers: ["a", "b"] }, live());
    assert.equal(result.data.provenance.mode, "fanout");
    assert.deepEqual(result.data.provenance.attempted, ["a", "b"]);
    assert.deepEqual(result.data.provenance.used, ["a"]);
    assert.deepEqual(Object.keys(result.data.results), ["a"]);
    assert.equal(result.data.providerErrors?.b, "b failed unexpectedly");
    assert.equal(c.calls.length, 0);
  });

  it("A06: all failed is all_providers_failed with provider_errors", async () => {
    const a = fake("a", { search: failing("a", 429) });
    const b = fake("b", { search: failing("b", 503) });
    await assert.rejects(
      router([a, b]).search({ query: "q", providers: ["a", "b"] }, live()),
      (error: unknown) => {
        const payload = (error as EvidentError).toPayload();
        return (
          payload.error.code === "all_providers_failed" &&
          JSON.stringify(payload.error.provider_errors) ===
            JSON.stringify({ a: "a HTTP 429", b: "b HTTP 503" })
        );
      },
    );
  });

  it("A06: a single named provider that fails is still all_providers_failed", async () => {
    const a = fake("a", { search: failing("a", 500) });
    await assert.rejects(
      router([a]).search({ query: "q", providers: ["a"] }, live()),
      code("all_providers_failed"),
    );
  });

  it("unknown provider ids are invalid_arguments naming the field, before any call", async () => {
    const a = fake("a", { search: async () => rows("a") });
    await assert.rejects(
      router([a]).search({ query: "q", providers: ["a", "nope"] }, live()),
      (error: unknown) => {
        return code("invalid_arguments")(error) && (error as EvidentError).details.field === "providers[1]";
      },
    );
    assert.equal(a.calls.length, 0);
  });

  it("a provider that cannot search fails with a reason, without a call", async () => {
    const reader = fake("reader", { read: async () => ({ content: [] }) });
    const a = fake("a", { search: async () => rows("a") });
    const result = await router([reader, a]).search({ query: "q", providers: ["reader", "a"] }, live());
    assert.equal(result.data.providerErrors?.reader, "reader cannot search");
    assert.equal(reader.calls.length, 0);
  });
});

describe("web router: read", () => {
  const page = (text: string) => async () => ({ content: [{ type: "text" as const, text }] });

  it("S02: without reader the read route falls back", async () => {
    const a = fake("a", { read: failing("a", 403) });
    const b = fake("b", { read: page("from b") });
    const result = await router([a, b]).read({ url: "https://example.com/" }, live());
    assert.deepEqual(result.data.provenance.used, ["b"]);
    assert.deepEqual(result.data.content, [{ type: "text", text: "from b" }]);
  });

  it("S02: an explicit reader is tried alone, never with a fallback", async () => {
    const a = fake("a", { read: page("from a") });
    const b = fake("b", { read: failing("b", 500) });
    await assert.rejects(
      router([a, b]).read({ url: "https://example.com/", reader: "b" }, live()),
      code("all_providers_failed"),
    );
    assert.equal(a.calls.length, 0);
    const ok = await router([a, b]).read({ url: "https://example.com/", reader: "a" }, live());
    assert.equal(ok.data.provenance.mode, "reader");
  });

  it("S05: focus to a reader without a focus mapping is focus_unsupported and no call", async () => {
    const a = fake("a", { read: page("a") });
    await assert.rejects(
      router([a]).read({ url: "https://example.com/", reader: "a", focus: "pricing" }, live()),
      code("focus_unsupported"),
    );
    await assert.rejects(
      router([a]).read({ url: "https://example.com/", focus: "pricing" }, live()),
      code("focus_unsupported"),
    );
    assert.equal(a.calls.length, 0);
  });

  it("S05: a focus no reader on the route takes names the route, not one reader", async () => {
    const a = fake("a", { read: page("a") });
    const b = fake("b", { read: page("b") });
    await assert.rejects(
      router([a, b]).read({ url: "https://example.com/", focus: "pricing" }, live()),
      (error: unknown) =>
        code("focus_unsupported")(error) &&
        (error as EvidentError).message.startsWith("No provider on the read route (a, b) can take a focus"),
    );
    await assert.rejects(
      router([a, b]).read({ url: "https://example.com/", reader: "b", focus: "pricing" }, live()),
      (error: unknown) =>
        code("focus_unsupported")(error) &&
        (error as EvidentError).message.startsWith("The reader b cannot take a focus"),
    );
  });

  it("S05: an unsupported focus is reported before any network work, even the URL's DNS check", async () => {
    const a = fake("a", { read: page("a") });
    let lookups = 0;
    const counting = router([a], {
      lookup: (_h, _options, cb) => {
        lookups += 1;
        cb(Object.assign(new Error("offline"), { code: "ENOTFOUND" }), "", 4);
      },
    });
    await assert.rejects(
      counting.read({ url: "https://unresolvable.example/", focus: "pricing" }, live()),
      code("focus_unsupported"),
    );
    assert.equal(lookups, 0);
    assert.equal(a.calls.length, 0);
  });

  it("S05 S06: focus reaches only focus-capable readers and adds the may-omit warning", async () => {
    const plain = fake("plain", { read: page("plain") });
    const focused = fake("focused", { read: page("focused"), focus: true });
    const result = await router([plain, focused]).read(
      { url: "https://example.com/", focus: "pricing" },
      live(),
    );
    assert.equal(plain.calls.length, 0);
    assert.deepEqual(focused.calls[0]?.request, { url: "https://example.com/", focus: "pricing" });
    assert.ok(result.data.warnings.some((w) => w.includes("may omit content")));
    assert.ok(result.data.warnings.some((w) => w.includes("plain")));
  });

  it("S20: the exact requested URL reaches the provider and the provenance", async () => {
    const url = "https://Example.com/a/../b?x=1&y=%20z#frag";
    const a = fake("a", { read: page("x") });
    const result = await router([a]).read({ url }, live());
    assert.deepEqual(a.calls[0]?.request, { url });
    assert.equal(result.data.provenance.url, url);
    assert.ok(!Number.isNaN(Date.parse(result.data.provenance.retrievedAt)));
  });

  it("S22: a private URL is refused before any provider sees it", async () => {
    const a = fake("a", { read: page("x") });
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "file:///etc/passwd",
      "http://localhost/",
    ]) {
      await assert.rejects(router([a]).read({ url }, live()), code("url_not_allowed"), url);
    }
    const resolvesPrivate = router([a], {
      lookup: (_h, options, cb) =>
        options.all ? cb(null, [{ address: "10.0.0.7", family: 4 }]) : cb(null, "10.0.0.7", 4),
    });
    await assert.rejects(
      resolvesPrivate.read({ url: "https://intranet.example.com/" }, live()),
      code("url_not_allowed"),
    );
    assert.equal(a.calls.length, 0);
  });

  it("S22: with the operator's switch, private URLs are read and every response names the switch", async () => {
    const a = fake("a", { read: page("intranet page") });
    const result = await router([a], { allowPrivateNetwork: true }).read(
      { url: "http://10.0.0.7/wiki" },
      live(),
    );
    assert.equal(result.data.provenance.privateNetworkAllowed, true);
    assert.ok(result.data.warnings.some((w) => w.includes("EVIDENT_ALLOW_PRIVATE_NETWORK")));
  });

  it("a refused redirect inside a reader ends the call instead of falling back", async () => {
    const a = fake("a", {
      read: async () => {
        throw new EvidentError("url_not_allowed", "redirected to a private address");
      },
    });
    const b = fake("b", { read: page("b") });
    await assert.rejects(
      router([a, b]).read({ url: "https://example.com/" }, live()),
      code("url_not_allowed"),
    );
    assert.equal(b.calls.length, 0);
  });

  it("an unknown reader is invalid_arguments naming reader", async () => {
    const a = fake("a", { read: page("x") });
    await assert.rejects(
      router([a]).read({ url: "https://example.com/", reader: "zzz" }, live()),
      (error: unknown) => {
        return code("invalid_arguments")(error) && (error as EvidentError).details.field === "reader";
      },
    );
  });
});

describe("web router: fan-out and the overall deadline", () => {
  it("S12: providers that answered before the overall deadline are returned; late ones are reported", async () => {
    const quick = fake("quick", { search: async () => rows("quick") });
    const slow = fake("slow", { search: (_r, context) => untilAborted(context) });
    const result = await router([quick, slow], { callDeadlineMs: 40 }).search(
      { query: "q", providers: ["quick", "slow"] },
      live(),
    );
    assert.deepEqual(result.data.provenance.used, ["quick"]);
    assert.equal(result.data.providerErrors?.slow, "slow: timed out at the call's overall deadline");
  });

  it("S04: cancellation during a fan-out reports cancelled, whatever already arrived", async () => {
    const quick = fake("quick", { search: async () => rows("quick") });
    const started = latch();
    const slow = fake("slow", {
      search: (_r, context) => {
        started.resolve();
        return untilAborted(context);
      },
    });
    const controller = new AbortController();
    const pending = router([quick, slow]).search(
      { query: "q", providers: ["quick", "slow"] },
      controller.signal,
    );
    await started.promise;
    controller.abort(new EvidentError("cancelled", "stop"));
    await assert.rejects(pending, code("cancelled"));
  });
});
