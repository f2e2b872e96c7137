/**
 * evident's MCP HTTP server for tests, in the test's process on an ephemeral loopback port: the
 * adapter tests' registry (or one given), one bearer token, the settings otherwise defaults.
 */

import { type RunningHttpServer, startHttpServer } from "../../src/adapters/mcp/http-server.js";
import { resolveHttpSettings } from "../../src/config/http.js";
import { silentLogger } from "../../src/core/logger.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { createTestRegistry } from "../fixtures/test-tools.js";

export function startTestServer(
  token: string,
  registry: ToolRegistry = createTestRegistry(),
): Promise<RunningHttpServer> {
  return startHttpServer({
    registry,
    logger: silentLogger,
    settings: resolveHttpSettings({ EVIDENT_AUTH_TOKEN: token, EVIDENT_HTTP_PORT: "0" }),
  });
}
