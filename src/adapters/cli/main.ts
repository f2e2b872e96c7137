#!/usr/bin/env node
/**
 * The `evident` executable: wires process I/O and signals to the CLI. Nothing else lives here,
 * so tests can run the same `runCli` with a registry of their own.
 */
import { EvidentError } from "../../core/errors.js";
import { EXIT_TOOL_ERROR, runCli } from "./cli.js";
import { productRegistryFor } from "./product-registry.js";

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

// An answer that could not be written (a full disk, a closed file) is a failure, not an empty
// success. A reader that stopped reading (EPIPE, as `| head` does) chose to: not a failure.
let outputError: NodeJS.ErrnoException | undefined;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  outputError ??= error;
});

const code = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
  {
    ownsProcess: true,
    signal: controller.signal,
    createRegistry: productRegistryFor(process.cwd(), process.env),
  },
);
process.exitCode = code;
// Do not wait for idle keep-alive sockets or unref'd timers of libraries.
process.stdout.write("", (error) => {
  const failure = outputError ?? (error as NodeJS.ErrnoException | null | undefined) ?? undefined;
  if (failure === undefined || failure.code === "EPIPE") process.exit(code);
  const reason = failure.code ?? "unknown error";
  const payload = new EvidentError("internal_error", `Could not write the output (${reason}).`).toPayload();
  process.stderr.write(`${JSON.stringify(payload)}\n`, () => process.exit(EXIT_TOOL_ERROR));
});
