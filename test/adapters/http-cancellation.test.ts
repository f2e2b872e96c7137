/**
 * Cancellation on stateless HTTP: a cancel notice (2025-era clients) is answered by silence, a
 * dropped connection cancels its own call and no other, a notice that could name two calls is
 * ignored, and per-client tokens make each client a caller of its own.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createTestRegistry, Gate } from "../fixtures/test-tools.js";
import { cancelNotice, legacyHeaders, messagesOf, openCall, raw, toolCall } from "./http-raw.js";

const TOKEN_A = `${"a".repeat(HTTP_MIN_TOKEN_CHARS)}-client-a`;
const TOKEN_B = `${"b".repeat(HTTP_MIN_TOKEN_CHARS)}-client-b`;

async function withServer(
  env: Record<string, string>,
  run: (server: RunningHttpServer, gate: Gate) => Promise<void>,
): Promise<void> {
  const gate = new Gate();
  const server = await startHttpServer({
    registry: createTestRegistry(gate),
    logger: silentLogger,
    settings: resolveHttpSettings({ EVIDENT_HTTP_PORT: "0", ...env }),
    structured: true,
  });
  try {
    await run(server, gate);
  } finally {
    gate.open();
    await server.close();
  }
}

describe("HTTP cancellation", () => {
  it("a cancelled call gets no response on HTTP (2025-era cancel notice)", async () => {
    await withServer({ EVIDENT_AUTH_TOKEN: TOKEN_A }, async (server, gate) => {
      const call = openCall(server.url, legacyHeaders(TOKEN_A), toolCall(7, "hold"));
      await gate.untilWaiting(1);
      const notice = await raw(server.url, {
        method: "POST",
        headers: legacyHeaders(TOKEN_A),
        body: cancelNotice(7),
      });
      assert.equal(notice.status, 202);
      await gate.untilCancelled(1);
      const messages = messagesOf(await call.ended);
      // Asked without a progress token, the call is answered as JSON (http-json.ts): cancelled, it
      // has no answer, so the exchange ends as 204 No Content.
      assert.equal(await call.started, 204);
      assert.deepEqual(
        messages.filter((m) => m.id === 7),
        [],
        "no answer to the cancelled request",
      );
    });
  });

  it("one client's dropped connection cancels its own call, not another's with the same token and id", async () => {
    await withServer({ EVIDENT_AUTH_TOKEN: TOKEN_A }, async (server, gate) => {
      const first = openCall(server.url, legacyHeaders(TOKEN_A), toolCall(7, "hold"));
      const second = openCall(server.url, legacyHeaders(TOKEN_A), toolCall(7, "hold"));
      await gate.untilWaiting(2);
      first.abort();
      await gate.untilCancelled(1);
      assert.equal(gate.waiting, 1, "the other call still runs");
      gate.open();
      const [answer] = messagesOf(await second.ended).filter((m) => m.id === 7);
      assert.match(JSON.stringify(answer?.result), /released/);
      assert.equal(gate.cancelled, 1);
    });
  });

  it("a cancel notice that could name two running calls is ignored", async () => {
    await withServer({ EVIDENT_AUTH_TOKEN: TOKEN_A }, async (server, gate) => {
      const calls = [0, 1].map(() => openCall(server.url, legacyHeaders(TOKEN_A), toolCall(7, "hold")));
      await gate.untilWaiting(2);
      const notice = await raw(server.url, {
        method: "POST",
        headers: legacyHeaders(TOKEN_A),
        body: cancelNotice(7),
      });
      assert.equal(notice.status, 202);
      assert.equal(gate.cancelled, 0);
      gate.open();
      for (const call of calls) {
        const [answer] = messagesOf(await call.ended).filter((m) => m.id === 7);
        assert.match(JSON.stringify(answer?.result), /released/);
      }
    });
  });

  it("EVIDENT_AUTH_TOKENS: each client is its own caller, for cursors and for cancel notices", async () => {
    await withServer({ EVIDENT_AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}` }, async (server, gate) => {
      const callers: Array<string | undefined> = [];
      for (const token of [TOKEN_A, TOKEN_B]) {
        const echo = await raw(server.url, {
          method: "POST",
          headers: legacyHeaders(token),
          body: toolCall(1, "echo", { text: "x" }),
        });
        assert.equal(echo.status, 200, echo.body);
        const [answer] = messagesOf(echo.body);
        const result = answer?.result as { structuredContent?: { caller?: string } } | undefined;
        callers.push(result?.structuredContent?.caller);
      }
      assert.match(callers[0] ?? "", /^http:[0-9a-f]{32}$/);
      assert.notEqual(callers[0], callers[1]);

      const ofA = openCall(server.url, legacyHeaders(TOKEN_A), toolCall(7, "hold"));
      const ofB = openCall(server.url, legacyHeaders(TOKEN_B), toolCall(7, "hold"));
      await gate.untilWaiting(2);
      await raw(server.url, { method: "POST", headers: legacyHeaders(TOKEN_A), body: cancelNotice(7) });
      await gate.untilCancelled(1);
      assert.deepEqual(
        messagesOf(await ofA.ended).filter((m) => m.id === 7),
        [],
      );
      gate.open();
      const [answer] = messagesOf(await ofB.ended).filter((m) => m.id === 7);
      assert.match(JSON.stringify(answer?.result), /released/);
    });
  });
});
