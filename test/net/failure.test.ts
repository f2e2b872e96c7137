/**
 * Failure classes of the HTTP client against real sockets: a certificate nobody trusts, a
 * server that is not TLS, a refused port, a name that does not resolve. Each failure names its
 * class in fixed words and keeps the underlying code for the debug log.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { after, before, describe, it } from "node:test";
import { createStderrLogger } from "../../src/core/logger.js";
import { createHttpClient } from "../../src/net/client.js";
import { classifyNetworkError } from "../../src/net/failure.js";
import { HttpClientError } from "../../src/net/http-client.js";
import { listenOnLoopback } from "./loopback.js";

const FIXTURES = new URL("../fixtures/tls/", import.meta.url);

async function failureOf(promise: Promise<unknown>): Promise<HttpClientError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HttpClientError, `expected an HttpClientError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the request to fail");
}

describe("network failure classes", () => {
  const server = createServer(
    {
      key: readFileSync(new URL("self-signed.key", FIXTURES)),
      cert: readFileSync(new URL("self-signed.crt", FIXTURES)),
    },
    (_req, res) => res.end("ok"),
  );
  let port = 0;
  before(async () => {
    port = await listenOnLoopback(server);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("a certificate nobody trusts is a TLS certificate error; the debug log has the code, not the path", async () => {
    const lines: string[] = [];
    const client = createHttpClient({
      logger: createStderrLogger({ level: "debug", write: (line) => void lines.push(line) }),
    });
    try {
      const error = await failureOf(
        client.request({
          method: "GET",
          url: `https://127.0.0.1:${port}/secret-path?key=abc`,
          trust: "operator",
          signal: new AbortController().signal,
        }),
      );
      assert.equal(error.kind, "tls");
      assert.equal(error.message, "TLS certificate error");
      assert.match(error.code ?? "", /SELF_SIGNED|CERT/);
      const logged = lines.join("");
      assert.match(logged, /"class":"tls"/);
      assert.ok(logged.includes(error.code ?? "?"));
      assert.ok(!logged.includes("secret-path") && !logged.includes("key=abc"));
    } finally {
      await client.close();
    }
  });

  it("classifies the codes Node and undici attach, anywhere in the cause chain", () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    const cases: Array<[unknown, string, boolean?]> = [
      [coded("ENOTFOUND"), "dns"],
      [coded("EAI_AGAIN"), "dns"],
      [new TypeError("fetch failed", { cause: coded("ECONNREFUSED") }), "connection_refused"],
      [new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), "connection_refused"],
      [coded("ECONNRESET"), "connection_reset"],
      [coded("UND_ERR_SOCKET"), "connection_reset"],
      [coded("UND_ERR_CONNECT_TIMEOUT"), "timeout"],
      [coded("CERT_HAS_EXPIRED"), "tls"],
      [coded("ERR_TLS_CERT_ALTNAME_INVALID"), "tls"],
      [coded("ERR_SSL_WRONG_VERSION_NUMBER"), "tls"],
      [coded("ECONNREFUSED"), "proxy", true],
      [coded("ENOTFOUND"), "proxy", true],
      [new Error("Proxy response (407) !== 200 when HTTP Tunneling"), "proxy"],
      [coded("EWHATEVER"), "network"],
      [new Error("no code"), "network"],
    ];
    for (const [thrown, kind, proxied] of cases) {
      assert.equal(classifyNetworkError(thrown, proxied).kind, kind, String(thrown));
    }
    assert.equal(
      classifyNetworkError(new Error("Proxy response (502) !== 200 when HTTP Tunneling")).detail,
      "proxy refused the tunnel (HTTP 502)",
    );
  });
});
