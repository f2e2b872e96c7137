#!/usr/bin/env node
/**
 * The `evident` executable: wires process I/O and signals to the CLI. Nothing else lives here,
 * so tests can run the same `runCli` with a registry of their own.
 */
import { EvidentError } from "../../core/errors.js";
import { runCli } from "./cli.js";
import { EXIT_FAILED, EXIT_OK } from "./errors.js";
import { productRegistryFor } from "./product-registry.js";
import { undeliveredOutput } from "./undelivered.js";

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals) => {
  interrupts += 1;
  // A second Ctrl-C means "now": skip graceful shutdown.
  if (interrupts > 1) process.exit(130);
  controller.abort(new Error(`received ${signal}`));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

// An answer that could not be written (a full disk, a closed standard output) is a failure, not
// an empty success. A reader that stopped reading (EPIPE, as `| head` does) chose to: not a
// failure (cli/undelivered.ts).
let outputError: NodeJS.ErrnoException | undefined;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  outputError ??= error;
});

const argv = process.argv.slice(2);
const code = await runCli(
  argv,
  { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
  {
    signal: controller.signal,
    createRegistry: productRegistryFor(process.cwd()),
  },
);
process.exitCode = code;
// Do not wait for idle keep-alive sockets or unref'd timers of libraries.
process.stdout.write("", (error) => {
  const failure = outputError ?? (error as NodeJS.ErrnoException | null | undefined) ?? undefined;
  // A serving `evident mcp` speaks on stdout only to a client, which sees for itself what arrived.
  const serving = argv[0] === "mcp" && !argv.some((arg) => arg === "--help" || arg === "-h");
  const message = undeliveredOutput(failure, code === EXIT_OK && !serving);
  if (message === undefined) process.exit(code);
  const payload = new EvidentError("internal_error", message).toPayload();
  process.stderr.write(`${JSON.stringify(payload)}\n`, () => process.exit(EXIT_FAILED));
});
