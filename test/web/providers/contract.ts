/**
 * The one contract every web provider adapter passes, against a loopback fake of its vendor:
 * the documented request and answer, HTTP failures (401, 429, 5xx) reported as sanitized
 * reasons, malformed JSON and HTML-instead-of-JSON as `malformed`, empty results, a body that
 * stalls past the attempt deadline, a body over 4 MiB (S13), and cancellation that reaches the
 * socket (S13). Adapter test files call `runProviderContract` once per operation they offer and
 * add their vendor-specific cases beside it.
 *
 * Nothing here sleeps: the stall case waits on the attempt deadline, the cancellation case on
 * the fake seeing the request.
 */

import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, it } from "node:test";
import { cancelledError, withDeadline } from "../../../src/core/abort.js";
import { MAX_RESPONSE_BODY_BYTES } from "../../../src/core/limits.js";
import { silentLogger } from "../../../src/core/logger.js";
import { traceContext } from "../../../src/core/trace.js";
import { createHttpClient } from "../../../src/net/client.js";
import type { HttpClient } from "../../../src/net/http-client.js";
import {
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderReadOutcome,
  type ProviderReadRequest,
  type ProviderSearchOutcome,
  type ProviderSearchRequest,
} from "../../../src/web/provider.js";
import { freePort } from "../../net/loopback.js";
import { type FakeVendor, type RecordedRequest, sendJson, sendText, startFakeVendor } from "./fake-vendor.js";
import { rejection } from "./harness.js";

/** A short attempt deadline for the stall case; the fake never finishes its body. */
export const STALL_DEADLINE_MS = 300;
/** Written into failure bodies: a reason that repeats it leaked a raw vendor body. */
export const RAW_BODY_MARKER = "RAW-VENDOR-BODY-7f3a";
export const ROW_FIELDS = new Set(["title", "url", "snippet", "publishedAt", "author"]);

type Respond = (request: RecordedRequest, response: ServerResponse, raw: IncomingMessage) => void;

interface CommonSpec {
  /** The adapter's default id (also its name in sanitized reasons). */
  readonly id: string;
  /** Builds the provider against the fake's base URL. */
  create(baseUrl: string): Provider;
  /** A key the provider was created with; it must never appear in a reason. */
  readonly secret?: string;
  /** Answers the documented success shape. */
  readonly respondSuccess: Respond;
  /** Answers the documented "nothing found" shape. */
  readonly respondEmpty: Respond;
  /** Checks method, path, auth header and body fields of the request we sent. */
  assertRequest(request: RecordedRequest): void;
  /** Content type the vendor normally answers with (`application/json` unless said otherwise). */
  readonly contentType?: string;
  /** Statuses the adapter reads in its own way (tested beside the contract), e.g. SearXNG's 403. */
  readonly ownStatuses?: readonly number[];
  /**
   * Where a request carries the caller's trace context, or undefined for a request that carries
   * none by design (an MCP `initialize`); by default its `traceparent` and `tracestate` headers.
   */
  traceOf?(request: RecordedRequest): { traceparent?: unknown; tracestate?: unknown } | undefined;
}

/** The trace context an HTTP vendor's request carries: its headers. */
function traceHeadersOf(request: RecordedRequest): { traceparent?: unknown; tracestate?: unknown } {
  return { traceparent: request.headers.traceparent, tracestate: request.headers.tracestate };
}

export interface SearchContractSpec extends CommonSpec {
  readonly operation: "search";
  readonly request: ProviderSearchRequest;
  assertOutcome(outcome: ProviderSearchOutcome): void;
  /** Checks the outcome of the empty answer; by default: no rows and no answer. */
  assertEmpty?(outcome: ProviderSearchOutcome): void;
}

export interface ReadContractSpec extends CommonSpec {
  readonly operation: "read";
  readonly request: ProviderReadRequest;
  assertOutcome(outcome: ProviderReadOutcome): void;
}

export type ContractSpec = SearchContractSpec | ReadContractSpec;

export function runProviderContract(spec: ContractSpec): void {
  describe(`${spec.id} ${spec.operation}: provider contract`, () => {
    let fake: FakeVendor;
    let http: HttpClient;
    let provider: Provider;

    before(async () => {
      fake = await startFakeVendor();
      http = createHttpClient();
      provider = spec.create(fake.baseUrl);
    });
    after(async () => {
      await http.close();
      await fake.close();
    });

    const context = (signal: AbortSignal = new AbortController().signal): ProviderContext => ({
      signal,
      http,
      logger: silentLogger,
    });
    const call = (ctx: ProviderContext = context()): Promise<unknown> => {
      if (spec.operation === "search") {
        assert.ok(provider.search, "the provider declares search but has no search()");
        return provider.search(spec.request, ctx);
      }
      assert.ok(provider.read, "the provider declares read but has no read()");
      return provider.read(spec.request, ctx);
    };
    const failure = async (ctx?: ProviderContext): Promise<ProviderError> => {
      try {
        await call(ctx);
      } catch (error) {
        assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
        assertSanitized(error);
        return error;
      }
      assert.fail("expected the call to fail");
    };
    const assertSanitized = (error: ProviderError) => {
      assert.equal(error.providerId, spec.id);
      for (const text of [error.reason, error.message]) {
        assert.ok(!text.includes(RAW_BODY_MARKER), `reason repeats the vendor body: ${text}`);
        if (spec.secret !== undefined) assert.ok(!text.includes(spec.secret), "reason contains the key");
        assert.ok(!text.includes(fake.baseUrl), "reason contains the base URL");
      }
    };

    it("declares the capability it is tested for", () => {
      assert.equal(provider.id, spec.id);
      assert.equal(provider.capabilities[spec.operation], true);
    });

    it("sends the documented request and maps the documented answer (A11: rows never repeat the provider)", async () => {
      fake.handle(spec.respondSuccess);
      const outcome = await call();
      const sent = fake.requests.at(-1);
      assert.ok(sent, "the fake saw no request");
      spec.assertRequest(sent);
      if (spec.operation === "search") {
        const search = outcome as ProviderSearchOutcome;
        assert.ok(search.results.length > 0);
        assert.ok(search.results.length <= spec.request.maxResults, "more rows than maxResults");
        for (const row of search.results) {
          for (const key of Object.keys(row)) assert.ok(ROW_FIELDS.has(key), `row field ${key}`);
          assert.ok(/^https?:\/\//.test(row.url));
        }
        if ("answer" in search)
          assert.ok((search.answer ?? "").trim().length > 0, "empty answer not omitted");
        spec.assertOutcome(search);
      } else {
        const read = outcome as ProviderReadOutcome;
        assert.ok(read.content.length > 0);
        spec.assertOutcome(read);
      }
    });

    it("passes the caller's W3C trace context on with the call's requests, and none without one", async () => {
      fake.handle(spec.respondSuccess);
      const traceOf = spec.traceOf ?? traceHeadersOf;
      const trace = traceContext(`00-${"ab".repeat(16)}-${"cd".repeat(8)}-01`, "vendor=1");
      assert.ok(trace);
      const from = fake.requests.length;
      await call({ ...context(), trace });
      const traced = fake.requests.slice(from).flatMap((sent) => traceOf(sent) ?? []);
      assert.ok(traced.length > 0, "no request of the call could carry a trace context");
      for (const carried of traced) {
        assert.deepEqual(carried, { traceparent: trace.traceparent, tracestate: "vendor=1" });
      }
      const untracedFrom = fake.requests.length;
      await call();
      for (const sent of fake.requests.slice(untracedFrom)) {
        const carried = traceOf(sent);
        assert.equal(carried?.traceparent, undefined);
        assert.equal(carried?.tracestate, undefined);
      }
    });

    for (const [status, failureClass] of [
      [401, "auth"],
      [403, "auth"],
      [429, "rate_limited"],
      [500, "server_error"],
      [503, "server_error"],
    ] as const) {
      if (spec.ownStatuses?.includes(status)) continue;
      it(`reports HTTP ${status} as "${spec.id} HTTP ${status}" (${failureClass}) without the body or the key`, async () => {
        fake.handle((_request, response) =>
          sendJson(response, status, { detail: { error: `${RAW_BODY_MARKER} ${spec.secret ?? ""}` } }),
        );
        const error = await failure();
        assert.equal(error.kind, "http");
        assert.equal(error.status, status);
        assert.equal(error.failure, failureClass);
        assert.equal(error.reason, `${spec.id} HTTP ${status}`);
      });
    }

    it("reports malformed JSON as malformed", async () => {
      fake.handle((_request, response) =>
        sendText(response, 200, "application/json", `{"results": [{"title": "${RAW_BODY_MARKER}"`),
      );
      const error = await failure();
      assert.equal(error.kind, "malformed");
    });

    it("reports an HTML page instead of JSON as malformed", async () => {
      fake.handle((_request, response) =>
        sendText(
          response,
          200,
          "text/html; charset=utf-8",
          `<!doctype html><html><body><h1>Gateway login</h1><p>${RAW_BODY_MARKER}</p></body></html>`,
        ),
      );
      const error = await failure();
      assert.equal(error.kind, "malformed");
    });

    if (spec.operation === "search") {
      it("maps an empty answer to no rows, without inventing an answer", async () => {
        fake.handle(spec.respondEmpty);
        const outcome = (await call()) as ProviderSearchOutcome;
        if (spec.assertEmpty) spec.assertEmpty(outcome);
        else {
          assert.deepEqual(outcome.results, []);
          assert.equal("answer" in outcome, false);
        }
      });
    } else {
      it("fails a read that produced no content instead of returning an empty page", async () => {
        fake.handle(spec.respondEmpty);
        const error = await failure();
        assert.equal(error.kind, "upstream");
      });
    }

    it("gives up on a body that stalls past the attempt deadline", async () => {
      fake.handle((_request, response) => {
        response.writeHead(200, { "content-type": spec.contentType ?? "application/json" });
        response.write('{"results": [');
        // Never ends: only the attempt deadline can finish this call.
      });
      const deadline = withDeadline(undefined, STALL_DEADLINE_MS, `${spec.id} attempt`);
      try {
        const error = await failure(context(deadline.signal));
        assert.equal(error.kind, "timeout");
      } finally {
        deadline.dispose();
      }
    });

    it("S13: refuses a body over 4 MiB instead of reading it", async () => {
      fake.handle((_request, response) => {
        response.writeHead(200, { "content-type": spec.contentType ?? "application/json" });
        const chunk = Buffer.alloc(64 * 1024, "a");
        response.write('{"padding": "');
        let written = 0;
        const pump = () => {
          while (written <= MAX_RESPONSE_BODY_BYTES) {
            written += chunk.length;
            if (!response.write(chunk)) {
              response.once("drain", pump);
              return;
            }
          }
          response.end('"}');
        };
        pump();
      });
      const error = await failure();
      assert.equal(error.kind, "too_large");
      assert.match(error.reason, /exceeded 4 MiB/);
    });

    /** The failure of one call to a provider built against `baseUrl`, through `client`. */
    const failureAt = async (baseUrl: string, client: HttpClient = http): Promise<ProviderError> => {
      const target = spec.create(baseUrl);
      const ctx = { ...context(), http: client };
      const pending =
        spec.operation === "search" ? target.search?.(spec.request, ctx) : target.read?.(spec.request, ctx);
      const error = await rejection(pending);
      assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
      assert.ok(!error.reason.includes(baseUrl), "reason contains the base URL");
      return error;
    };

    it("reports a refused connection as connection_refused, without the base URL", async () => {
      const error = await failureAt(`http://127.0.0.1:${await freePort()}`);
      assert.equal(error.kind, "connection_refused");
      assert.equal(error.reason, `${spec.id}: connection refused`);
    });

    it("reports a host that does not resolve as dns", async () => {
      const lookups: string[] = [];
      const noSuchHost = createHttpClient({
        lookup: (hostname, _options, callback) => {
          lookups.push(hostname);
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
        },
      });
      try {
        const error = await failureAt("http://vendor.invalid:8080", noSuchHost);
        assert.equal(error.kind, "dns");
        assert.equal(error.reason, `${spec.id}: DNS lookup failed`);
        assert.ok(!error.reason.includes("vendor.invalid"));
        assert.deepEqual(lookups, ["vendor.invalid"]);
      } finally {
        await noSuchHost.close();
      }
    });

    it("reports a connection the vendor drops as connection_reset", async () => {
      fake.handle((_request, _response, raw) => raw.socket.destroy());
      const error = await failure();
      assert.equal(error.kind, "connection_reset");
      assert.equal(error.reason, `${spec.id}: connection reset`);
    });

    it("reports a TLS handshake with a server that does not speak TLS as tls", async () => {
      const error = await failureAt(fake.baseUrl.replace(/^http:/, "https:"));
      assert.equal(error.kind, "tls");
      assert.equal(error.reason, `${spec.id}: TLS handshake failed`);
    });

    it("S13: cancellation stops the call and closes the socket", async () => {
      let arrived!: () => void;
      const seen = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      let socketClosed!: Promise<void>;
      fake.handle((_request, response, raw) => {
        socketClosed = new Promise((resolve) => raw.socket.once("close", () => resolve()));
        response.writeHead(200, { "content-type": spec.contentType ?? "application/json" });
        response.write("{");
        arrived();
      });
      const controller = new AbortController();
      const pending = failure(context(controller.signal));
      await seen;
      controller.abort(cancelledError());
      const error = await pending;
      assert.equal(error.kind, "cancelled");
      await socketClosed;
    });
  });
}
