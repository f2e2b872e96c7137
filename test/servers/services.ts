/**
 * Real services for the shared-store tests: a `redis-server` from the system (Debian's package;
 * `.ci/run` installs it when missing), each on a free loopback port in its own temp directory,
 * started and stopped by the test. Readiness is the server's own "ready" log line, never a sleep.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** The absolute path of a system command, or a failing assertion that says how to get it. */
export function systemCommand(name: string, debianPackage: string): string {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  assert.notEqual(
    found,
    "",
    `${name} is not installed: apt-get install ${debianPackage} (.ci/run does this)`,
  );
  return found;
}

/** A port that was free a moment ago on 127.0.0.1 (the caller retries if it is taken since). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

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

/**
 * A fresh redis-server on a free loopback port (or `port`), nothing persisted, in its own temp
 * directory; `extra` adds configuration arguments (e.g. `--requirepass`).
 */
export async function startRedis(port?: number, extra: readonly string[] = []): Promise<RedisServer> {
  const binary = systemCommand("redis-server", "redis-server");
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
