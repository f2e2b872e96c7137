/**
 * Real services for the shared-store tests: `redis-server` and `nginx` from the system (optional
 * tools: a test that starts one checks `missing(...)` of ../fixtures/optional-tools.ts first), each
 * on a free loopback port in its own temp directory, started and stopped by the test. Readiness is
 * each server's own log line, never a sleep.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createClient } from "@redis/client";
import { toolPath } from "../fixtures/optional-tools.js";
import { freePort } from "../net/loopback.js";

// A port that was free a moment ago (the caller retries if it is taken since): loopback.ts's.
export { freePort };

export interface OwnedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has exited (and been reaped). */
  readonly exited: Promise<void>;
  /** SIGTERM (or the given signal), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function own(child: ChildProcess): OwnedProcess {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    child,
    pid: child.pid as number,
    exited,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Resolves with the first line of `child`'s output (stdout and stderr) that `ready` accepts, or
 * rejects with everything it printed if it exits first.
 */
export function waitForLine(child: ChildProcess, ready: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const onLine = (line: string) => {
      seen.push(line);
      if (ready(line)) {
        cleanup();
        resolve(line);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`exited (${code ?? signal}) before it was ready:\n${seen.join("\n")}`));
    };
    const readers = [child.stdout, child.stderr].flatMap((stream) =>
      stream === null ? [] : [createInterface({ input: stream })],
    );
    const cleanup = () => {
      for (const reader of readers) reader.off("line", onLine);
      child.off("exit", onExit);
    };
    for (const reader of readers) reader.on("line", onLine);
    child.once("exit", onExit);
  });
}

export interface RedisServer extends OwnedProcess {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
}

/** A connected client of the Redis at `url` (the caller closes it). */
export async function redisClient(url: string) {
  const client = createClient({ url });
  await client.connect();
  return client;
}

/**
 * A fresh redis-server on a free loopback port (or `port`), nothing persisted, in its own temp
 * directory; `extra` adds configuration arguments (e.g. `--requirepass`).
 */
export async function startRedis(port?: number, extra: readonly string[] = []): Promise<RedisServer> {
  const binary = toolPath("redis-server");
  for (let attempt = 0; ; attempt++) {
    const chosen = port ?? (await freePort());
    const dir = mkdtempSync(join(tmpdir(), "evident-redis-"));
    const child = spawn(
      binary,
      [
        "--port",
        String(chosen),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        ...extra,
      ],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    const owned = own(child);
    try {
      await waitForLine(child, (line) => line.includes("Ready to accept connections"));
    } catch (error) {
      await owned.exited;
      rmSync(dir, { recursive: true, force: true });
      // Another process took the port in between: try another one.
      if (port === undefined && attempt < 5 && String(error).includes("Address already in use")) continue;
      throw error;
    }
    return {
      ...owned,
      port: chosen,
      url: `redis://127.0.0.1:${chosen}`,
      dir,
      async stop(signal: NodeJS.Signals = "SIGTERM") {
        await owned.stop(signal);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

/** What deploy/nginx.conf says about where it listens, logs and sends requests. */
export interface NginxSite {
  readonly upstreams: readonly string[];
  readonly listen: string;
  readonly accessLog: string;
}

const UPSTREAM_BLOCK = /upstream\s+evident\s*\{([^}]*)\}/;
const UPSTREAM_SERVER = /^(\s*server\s+)(\S+)(\s[^;]*)?;/gm;
const LISTEN = /^(\s*listen\s+)(\S+);/gm;
const ACCESS_LOG = /^(\s*access_log\s+)(\S+)(\s+evident;)/gm;

export function readNginxSite(text: string): NginxSite {
  const block = UPSTREAM_BLOCK.exec(text)?.[1] ?? "";
  return {
    upstreams: [...block.matchAll(UPSTREAM_SERVER)].map((m) => m[2] as string),
    listen: [...text.matchAll(LISTEN)].map((m) => m[2] as string).join(" "),
    accessLog: [...text.matchAll(ACCESS_LOG)].map((m) => m[2] as string).join(" "),
  };
}

/**
 * The site with its upstream servers, listen address and access log replaced (and nothing else),
 * so the test runs the deployed configuration against loopback replicas.
 */
export function adaptNginxSite(
  text: string,
  replace: { upstreams: readonly string[]; listen: string; accessLog: string },
): string {
  const site = readNginxSite(text);
  assert.equal(site.upstreams.length, replace.upstreams.length, "one upstream server per replica");
  assert.equal(site.listen.split(" ").length, 1, "one listen directive");
  assert.equal(site.accessLog.split(" ").length, 1, "one access log");
  let next = 0;
  const block = (UPSTREAM_BLOCK.exec(text)?.[0] ?? "").replace(
    UPSTREAM_SERVER,
    (_all, head: string, _server: string, rest: string | undefined) =>
      `${head}${replace.upstreams[next++]}${rest ?? ""};`,
  );
  return text
    .replace(UPSTREAM_BLOCK, block)
    .replace(LISTEN, (_all, head: string) => `${head}${replace.listen};`)
    .replace(
      ACCESS_LOG,
      (_all, head: string, _path: string, tail: string) => `${head}${replace.accessLog}${tail}`,
    );
}

export interface Nginx extends OwnedProcess {
  readonly url: string;
  readonly accessLog: string;
  /** What nginx wrote to its error log (stderr) so far. */
  readonly errors: string[];
}

/**
 * nginx from the system serving `site` (an http-context configuration such as deploy/nginx.conf,
 * already adapted) on `port`: one process (no master), everything in its own temp directory.
 */
export async function startNginx(site: (dir: string) => string): Promise<Nginx> {
  const binary = toolPath("nginx");
  const dir = mkdtempSync(join(tmpdir(), "evident-nginx-"));
  const main = [
    "daemon off;",
    "master_process off;",
    `pid ${dir}/nginx.pid;`,
    "error_log stderr notice;",
    "events { worker_connections 256; }",
    "http {",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
      (name) => `  ${name}_temp_path ${dir}/${name};`,
    ),
    site(dir),
    "}",
  ].join("\n");
  writeFileSync(join(dir, "nginx.conf"), main);
  const child = spawn(binary, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", "stderr"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const owned = own(child);
  const errors: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => errors.push(chunk));
  try {
    // Logged once the configuration is loaded and the listening socket is open.
    await waitForLine(child, (line) => line.includes("getrlimit(RLIMIT_NOFILE)"));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const listen = readNginxSite(main).listen;
  return {
    ...owned,
    url: `http://${listen}`,
    accessLog: readNginxSite(main).accessLog,
    errors,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      await owned.stop(signal);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
