/**
 * Defect 1 over HTTP: a call whose client has already gone when the call is dispatched (it
 * dropped the connection while its body was read, or before the SDK saw the request) must not
 * run, so it starts no process. The real code_search tool runs behind the handler, with a
 * ripgrep held at a gate (see gatedRipgrep) so that a started one would be seen and kept.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createHttpHandler } from "../../src/adapters/mcp/http-handler.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { resolveSettings } from "../../src/config/settings.js";
import { HTTP_MIN_TOKEN_CHARS } from "../../src/core/limits.js";
import { silentLogger } from "../../src/core/logger.js";
import { createProductRegistry } from "../../src/tools/product.js";
import { gatedRipgrep, processesIn, treesRemovedAfter } from "../code/helpers.js";
import { legacyHeaders, toolCall } from "./http-raw.js";

const tree = treesRemovedAfter(after);
const TOKEN = "t".repeat(HTTP_MIN_TOKEN_CHARS);

describe("HTTP client gone before its call runs", () => {
  it("G11: a tools/call whose request was aborted before dispatch starts no process and answers nothing", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const rg = await gatedRipgrep(await tree({}));
    const registry = createProductRegistry({
      cwd: root,
      // Should the call run anyway, its ripgrep waits at the gate until this deadline ends it.
      settings: resolveSettings({
        PATH: process.env.PATH,
        EVIDENT_RG_PATH: rg.path,
        EVIDENT_CODE_SEARCH_DEADLINE_MS: "2000",
      }),
      logger: silentLogger,
      confined: true,
    });
    const handler = createHttpHandler({
      registry,
      logger: silentLogger,
      settings: resolveHttpSettings({ EVIDENT_AUTH_TOKEN: TOKEN, EVIDENT_HTTP_PORT: "0" }),
    });
    try {
      const headers = new Headers({ ...legacyHeaders(TOKEN), host: "127.0.0.1" });
      const gone = new AbortController();
      gone.abort();
      const response = await handler.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers,
          body: toolCall(1, "code_search", { pattern: "needle", path: "a.txt" }),
          signal: gone.signal,
        }),
      );
      await response.text().catch(() => "");
      await handler.idle();
      assert.equal(rg.starts(), 0, "no ripgrep was started for a client that had gone");
      assert.deepEqual(await processesIn(root), []);
    } finally {
      await handler.close();
      await registry.close();
    }
  });
});
