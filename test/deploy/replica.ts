/**
 * One evident replica as the two-replica test runs it: the built CLI, `evident mcp --transport
 * http`, with the environment deploy/compose.yaml gives each replica (compose.test.ts checks
 * that the variables are the same) and the image's memory settings, on loopback instead of a
 * container network.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { toolPath } from "../fixtures/optional-tools.js";
import { type OwnedProcess, own, waitForLine } from "../servers/services.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const CLI = resolve(ROOT, "dist/adapters/cli/main.js");

/**
 * Each replica's environment. compose.yaml sets the same variables; their values differ only
 * where a container differs from a loopback test: the host (0.0.0.0 there), the port (8787
 * there, a free one here) and Redis's address (the `redis` service there).
 */
export function replicaEnv(
  redisUrl: string,
  cursorKey: string,
  token: string,
  clientTokens: readonly string[] = [],
): Record<string, string> {
  return {
    EVIDENT_HTTP_HOST: "127.0.0.1",
    EVIDENT_HTTP_PORT: "0",
    EVIDENT_AUTH_TOKEN: token,
    EVIDENT_AUTH_TOKENS: clientTokens.join(","),
    EVIDENT_SNAPSHOT_STORE: redisUrl,
    EVIDENT_CURSOR_KEY: cursorKey,
    // Behind nginx every client has its address (docs/CONFIG.md, HTTP server limits).
    EVIDENT_HTTP_MAX_CONNECTIONS_PER_CLIENT: "512",
  };
}

export interface Replica extends OwnedProcess {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp. */
  readonly url: string;
  /** host:port, as nginx names it. */
  readonly address: string;
}

/** The image's memory settings (Dockerfile): jemalloc preloaded, a 1 MB young generation. */
export const IMAGE_JEMALLOC = "/usr/local/lib/libjemalloc.so.2";
export const IMAGE_NODE_OPTIONS = "--max-semi-space-size=1";

/**
 * The same settings for a replica on this machine: jemalloc from Debian's libjemalloc2 (an
 * optional tool: `.ci/run` installs it), wherever this architecture keeps it.
 */
export function imageMemoryEnv(): Record<string, string> {
  return { LD_PRELOAD: toolPath("jemalloc"), NODE_OPTIONS: IMAGE_NODE_OPTIONS };
}

/** Starts a replica serving `cwd`; resolves once it listens (its own log line says where). */
export async function startReplica(cwd: string, env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, "mcp", "--transport", "http"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const owned = own(child);
  const line = await waitForLine(child, (text) => /listening on http:\/\/\S+\/mcp/.test(text));
  const url = /(http:\/\/\S+\/mcp)/.exec(line)?.[1] as string;
  // Keep draining its output so a chatty replica never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return { ...owned, url, address: new URL(url).host };
}
