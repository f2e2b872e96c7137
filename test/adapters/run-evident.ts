/**
 * `evident` for tests, two ways. In the test's own process (`evidentInProcess`,
 * `connectInProcess`): the `runCli` the executable runs, with the registry it builds
 * (src/adapters/cli/product-registry.ts), for cases whose subject is what a command answers or
 * refuses. As a process of the built executable (`evidentProcess`): for what lives at the
 * process boundary (exit codes, what reaches the real stdout and stderr, state that must
 * outlive the process). A process costs far more CPU than a run in-process (see
 * bench/test-suite/RESULTS.md), so a file keeps processes for the cases that need them.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { PassThrough, type Readable, type Writable } from "node:stream";
import {
  type Client,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { type CliOptions, runCli } from "../../src/adapters/cli/cli.js";
import { productRegistryFor } from "../../src/adapters/cli/product-registry.js";
import { EVIDENT_CLI } from "../helpers/built-cli.js";

export { EVIDENT_CLI };

export type Env = Record<string, string>;

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd: string;
  /** The whole environment the command sees (nothing of the test process's is added). */
  readonly env: Env;
}

/** A writable the CLI writes to, keeping what it wrote (and telling `onChunk` of each piece). */
function sink(onChunk?: (chunk: string) => void): { text: string; write(chunk: string): boolean } {
  return {
    text: "",
    write(chunk: string) {
      this.text += chunk;
      onChunk?.(chunk);
      return true;
    },
  };
}

/** `evident ARGS` in this process, as the executable runs it (the same argv, I/O and registry). */
export async function evidentInProcess(
  args: readonly string[],
  options: RunOptions & {
    /** Stops `evident mcp`, as SIGTERM does the executable's. */
    readonly signal?: AbortSignal;
    /** Each chunk written to standard error, as it comes. */
    readonly onStderr?: (chunk: string) => void;
    /** Tools and commands of the test's own in place of the product's (test/fixtures/test-tools.ts). */
    readonly tools?: Pick<CliOptions, "createRegistry" | "commands">;
    /** Standard input, a pipe ended after this text (`setup --key-stdin`); empty by default. */
    readonly input?: string;
  },
): Promise<Run> {
  const stdout = sink();
  const stderr = sink(options.onStderr);
  // Standard input is a pipe ended after `options.input` (closed, as with `< /dev/null`, by
  // default): `evident mcp` over stdio finds its input ended; neither reaches this process's
  // own stdin and stdout (the test runner's channel).
  const input = new PassThrough();
  input.end(options.input ?? "");
  const output = new PassThrough().setEncoding("utf8");
  output.on("data", (chunk: string) => stdout.write(chunk));
  const code = await runCli(
    args,
    { stdout, stderr, env: options.env, cwd: options.cwd, stdin: input, protocol: { input, output } },
    {
      createRegistry: productRegistryFor(options.cwd),
      ...options.tools,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * `evident ARGS` as a process of the built executable. Asynchronous: loopback servers it
 * reaches may live in this process, whose event loop must keep running meanwhile.
 */
export function evidentProcess(args: readonly string[], options: RunOptions): Promise<Run> {
  return processRun(process.execPath, [EVIDENT_CLI, ...args], options);
}

/** `command ARGS` as a process, its output collected; asynchronous, so this loop keeps serving. */
export function processRun(command: string, args: readonly string[], options: RunOptions): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", fail);
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

export interface InProcessServer {
  /** What the server wrote to standard error so far. */
  stderr(): string;
  /** Closes the client (its end of stdin, as a client process exiting does); the server's outcome. */
  close(): Promise<Run>;
}

/**
 * `evident mcp ARGS` in this process, `client` connected to its stdio streams: the server's
 * argument handling, project root, framing and transport are the executable's.
 */
export async function connectInProcess(
  client: Client,
  args: readonly string[],
  options: RunOptions,
): Promise<InProcessServer> {
  const input = new PassThrough();
  const output = new PassThrough();
  const stdout = sink();
  const stderr = sink();
  const outcome = runCli(
    ["mcp", ...args],
    { stdout, stderr, env: options.env, cwd: options.cwd, protocol: { input, output } },
    { createRegistry: productRegistryFor(options.cwd) },
  );
  // A server that stops before it serves (a refused argument) must not leave connect waiting.
  const stopped = outcome.then((code) => {
    throw new Error(`evident mcp ${args.join(" ")} exited ${code}: ${stdout.text}${stderr.text}`);
  });
  await Promise.race([client.connect(new StreamTransport(input, output)), stopped]);
  stopped.catch(() => {});
  return {
    stderr: () => stderr.text,
    async close() {
      await client.close();
      return { code: await outcome, stdout: stdout.text, stderr: stderr.text };
    },
  };
}

/** An MCP client transport over a pair of streams, framed as stdio frames messages. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #toServer: Writable;
  readonly #fromServer: Readable;
  readonly #buffer = new ReadBuffer();

  constructor(toServer: Writable, fromServer: Readable) {
    this.#toServer = toServer;
    this.#fromServer = fromServer;
  }

  async start(): Promise<void> {
    this.#fromServer.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#toServer.write(serializeMessage(message))) await once(this.#toServer, "drain");
  }

  async close(): Promise<void> {
    this.#toServer.end();
    this.#buffer.clear();
    this.onclose?.();
  }
}

/** A run's outcome with its exit status named as `spawnSync` names it, for files that compare both. */
export async function withStatus(
  run: Promise<Run>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await run;
  return { status: code, stdout, stderr };
}
