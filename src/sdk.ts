/**
 * The TypeScript SDK: the three tools as typed async functions over the same registry every
 * other surface uses. Inputs are the tools' own schemas (validated identically), results are the
 * model-facing text plus the structured data, and failures reject with an EvidentError.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { codeSearchInputSchema, codeSearchOutputSchema } from "./code/schema.js";
import { secretsFromEnv } from "./config/logging.js";
import { resolveSettings } from "./config/settings.js";
import { createStderrLogger, type Logger } from "./core/logger.js";
import { createProductRegistry } from "./tools/product.js";
import { resolveProjectRoot } from "./tools/project-root.js";
import type { ContextUsage, ProgressUpdate } from "./tools/tool.js";
import type { webReadInputSchema, webReadOutputSchema } from "./tools/web-read.js";
import type { webSearchInputSchema, webSearchOutputSchema } from "./tools/web-search.js";

export type WebSearchInput = z.input<typeof webSearchInputSchema>;
export type WebSearchOutput = z.output<typeof webSearchOutputSchema>;
export type WebReadInput = z.input<typeof webReadInputSchema>;
export type WebReadOutput = z.output<typeof webReadOutputSchema>;
export type CodeSearchInput = z.input<typeof codeSearchInputSchema>;
export type CodeSearchOutput = z.output<typeof codeSearchOutputSchema>;

export interface EvidentOptions {
  /**
   * code_search's project root. Default: EVIDENT_ROOT, else process.cwd(), unless that is `/` or
   * the home directory itself (code_search then fails with configuration_error saying so).
   */
  readonly cwd?: string;
  /**
   * Credentials and settings (provider keys, routes, EVIDENT_*), read once, when the instance is
   * created. Default: process.env.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where diagnostics go. Default: stderr at `warn`. */
  readonly logger?: Logger;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (update: ProgressUpdate) => void;
  /** The host's context usage, so code_search can fit its first answer to what is left. */
  readonly contextUsage?: ContextUsage;
}

export interface Evidence<T> {
  /** What a model would read. */
  readonly text: string;
  /** The structured result, as in the tool's output schema. */
  readonly data: T;
}

export interface Evident {
  webSearch(input: WebSearchInput, options?: CallOptions): Promise<Evidence<WebSearchOutput>>;
  webRead(input: WebReadInput, options?: CallOptions): Promise<Evidence<WebReadOutput>>;
  codeSearch(input: CodeSearchInput, options?: CallOptions): Promise<Evidence<CodeSearchOutput>>;
  /** Releases processes, connections and snapshots; later calls reject with `cancelled`. Call it in `finally`. */
  close(): Promise<void>;
}

export function createEvident(options: EvidentOptions = {}): Evident {
  const env = options.env ?? process.env;
  // Read once, here: what the instance does cannot change with the environment afterwards.
  const settings = resolveSettings(env);
  const logger = options.logger ?? createStderrLogger({ level: "warn", secrets: secretsFromEnv(env) });
  const cwd = process.cwd();
  const root = resolveProjectRoot({
    surface: "sdk",
    explicit: { value: options.cwd, origin: "host" },
    settings,
    cwd,
  });
  const registry = createProductRegistry({ cwd: options.cwd ?? cwd, settings, logger, root, surface: "sdk" });
  // Cursors are bound to this SDK instance: another instance cannot continue its results.
  const caller = `sdk:${randomUUID()}`;
  const call = async <T>(
    tool: string,
    input: unknown,
    callOptions: CallOptions = {},
  ): Promise<Evidence<T>> => {
    const result = await registry.call(tool, input, {
      caller,
      logger,
      ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
      ...(callOptions.onProgress === undefined ? {} : { progress: callOptions.onProgress }),
      ...(callOptions.contextUsage === undefined ? {} : { contextUsage: callOptions.contextUsage }),
    });
    if (result.isError) throw result.error;
    return { text: result.text, data: result.data as T };
  };
  return {
    webSearch: (input, callOptions) => call("web_search", input, callOptions),
    webRead: (input, callOptions) => call("web_read", input, callOptions),
    codeSearch: (input, callOptions) => call("code_search", input, callOptions),
    close: () => registry.close(),
  };
}
