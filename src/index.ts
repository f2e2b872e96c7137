/**
 * The package entry: the SDK, the error contract, and the HTTP handler for serverless hosts.
 */

import { createHttpHandler as createAdapterHandler, type HttpHandler } from "./adapters/mcp/http-handler.js";
import { secretsFromEnv } from "./config/logging.js";
import { resolveSettings, settingValue } from "./config/settings.js";
import { createStderrLogger, type Logger } from "./core/logger.js";
import { createProductRegistry } from "./tools/product.js";
import { resolveProjectRoot } from "./tools/project-root.js";

export type { HttpHandler } from "./adapters/mcp/http-handler.js";
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorPayload,
  EvidentError,
  isEvidentError,
} from "./core/errors.js";
export type { Logger } from "./core/logger.js";
export {
  type CallOptions,
  type CodeSearchInput,
  type CodeSearchOutput,
  createEvident,
  type Evidence,
  type Evident,
  type EvidentOptions,
  type WebReadInput,
  type WebReadOutput,
  type WebSearchInput,
  type WebSearchOutput,
} from "./sdk.js";
export type { ContextUsage, ProgressUpdate } from "./tools/tool.js";

export interface HttpHandlerOptions {
  readonly cwd?: string;
  /** Settings and credentials; the same EVIDENT_* variables as `evident mcp --transport http`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
}

/**
 * The MCP Streamable HTTP endpoint as a web-standard `fetch(Request): Promise<Response>`, for
 * serverless hosts. It enforces the same token, Host/Origin, size and concurrency rules as the
 * `evident mcp --transport http` server, and throws `configuration_error` without a token
 * unless EVIDENT_ALLOW_ANONYMOUS=true. Results are text alone unless EVIDENT_MCP_STRUCTURED=true.
 */
export function createHttpHandler(options: HttpHandlerOptions = {}): HttpHandler {
  const env = options.env ?? process.env;
  const toolSettings = resolveSettings(env);
  const settings = settingValue(toolSettings.http);
  const structured = settingValue(toolSettings.mcpStructured);
  const logger = options.logger ?? createStderrLogger({ level: "warn", secrets: secretsFromEnv(env) });
  for (const report of toolSettings.unknownVariables) logger.warn(report.message);
  const cwd = process.cwd();
  // An explicit `cwd` is the operator's project directory; otherwise the same rule as `evident mcp`.
  const root = resolveProjectRoot({
    surface: "http",
    explicit: { value: options.cwd, origin: "host" },
    settings: toolSettings,
    cwd,
  });
  // Remote callers: code_search stays inside the project root.
  const registry = createProductRegistry({
    cwd: options.cwd ?? cwd,
    settings: toolSettings,
    logger,
    root,
    confined: true,
    surface: "http",
  });
  const metricsPublic = settingValue(toolSettings.metricsPublic);
  const handler = createAdapterHandler({ registry, logger, settings, structured, metricsPublic });
  return {
    ...handler,
    close: async () => {
      await handler.close();
      await registry.close();
    },
  };
}
