/**
 * The `evident` command. It parses argv, calls the same registry every other surface uses, and
 * maps the outcome onto the process contract: one JSON document on stdout and exit 0 on
 * success; the shared error payload on stderr and exit 1 on a tool error; exit 2 for bad
 * arguments. `evident mcp` starts a server instead and returns when it stops.
 */
import { userInfo } from "node:os";
import type { Readable, Writable } from "node:stream";
import { envValue } from "../../config/env.js";
import type { HttpSettings } from "../../config/http.js";
import { logLevelFromEnv, secretsFromEnv } from "../../config/logging.js";
import { resolveSettings, type Settings, settingValue } from "../../config/settings.js";
import { EvidentError } from "../../core/errors.js";
import { CLI_HELD_LOG_LINES } from "../../core/limits.js";
import { createStderrLogger, type Logger, type LogLevel, logLine } from "../../core/logger.js";
import { type RootSetting, resolveProjectRoot } from "../../tools/project-root.js";
import { publishedInputSchema } from "../../tools/published-schema.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { PACKAGE_VERSION } from "../version.js";
import { cliArgumentError, usageProblem } from "./argument-errors.js";
import { TOOL_COMMANDS } from "./commands.js";
import { EXIT_OK, EXIT_USAGE, fail, usageError } from "./errors.js";
import {
  type CommandSpec,
  kebabCase,
  parseCommand,
  placeholder,
  propertyKind,
  splitCliOptions,
} from "./flags.js";
import { textOf } from "./plain-text.js";
import { createSpinner } from "./spinner.js";

export interface CliIo {
  readonly stdout: { write(chunk: string): boolean };
  readonly stderr: { write(chunk: string): boolean; isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Standard input, for `evident setup` (its prompts, or a key given on stdin). */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * The streams `evident mcp` speaks the protocol on over stdio; default process.stdin and
   * process.stdout. Tests connect an MCP client here to run the server in their own process.
   */
  readonly protocol?: { readonly input: Readable; readonly output: Writable };
}

export interface CliOptions {
  /**
   * Builds the registry; the product passes the real tools, tests their own. `surface` says
   * whether it serves one tool command and exits ("command": state between calls must outlive
   * the process), a long-running MCP server for a local client ("server", stdio) or one for
   * remote callers ("remote", HTTP: code_search stays inside the project root).
   */
  readonly createRegistry: (
    logger: Logger,
    surface: "command" | "server" | "remote",
    /** A server's project root (`--root`, EVIDENT_ROOT, its cwd); tool commands use the shell's cwd. */
    root: RootSetting | undefined,
    /** The settings resolved from `CliIo.env` once for this run (config/settings.ts). */
    settings: Settings,
  ) => ToolRegistry | Promise<ToolRegistry>;
  /** Cancellation from outside (SIGINT); also stops `evident mcp`. */
  readonly signal?: AbortSignal;
  /** Tool commands; defaults to search, read and grep. */
  readonly commands?: typeof TOOL_COMMANDS;
}

export async function runCli(argv: readonly string[], io: CliIo, options: CliOptions): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout.write(usage());
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    io.stdout.write(`${PACKAGE_VERSION}\n`);
    return EXIT_OK;
  }
  let level: LogLevel;
  try {
    level = logLevelFromEnv(io.env, "warn");
  } catch (error) {
    return fail(io, error);
  }
  // The environment is read here, once; everything below receives the settings.
  const run: CommandRun = {
    io,
    options,
    level,
    secrets: secretsFromEnv(io.env),
    settings: resolveSettings(io.env),
  };
  if (command === "mcp") return runMcp(rest, run);
  if (command === "setup") {
    const stdin = io.stdin ?? process.stdin;
    return (await import("./setup.js")).runSetupCommand(rest, { ...io, stdin }, run.settings);
  }
  if (command === "config") return (await import("./operator.js")).runConfigCommand(rest, io, run.settings);
  if (command === "doctor") return (await import("./operator.js")).runDoctorCommand(rest, io, run.settings);
  const commands = options.commands ?? TOOL_COMMANDS;
  const spec = commands[command];
  if (spec === undefined) {
    const known = [...Object.keys(commands), "mcp", "setup", "doctor", "config"].join(", ");
    return fail(io, usageError(`Unknown command "${command}". Commands: ${known}.`, "command"));
  }
  return runToolCommand(command, spec, rest, run);
}

/** What every command of one run shares: its streams, options, log settings and settings. */
interface CommandRun {
  readonly io: CliIo;
  readonly options: CliOptions;
  readonly level: LogLevel;
  readonly secrets: readonly string[];
  readonly settings: Settings;
}

type ToolCommand = (typeof TOOL_COMMANDS)[string];

/** One tool command: its flags parsed against the tool's schema, one call, one document out. */
async function runToolCommand(
  command: string,
  spec: ToolCommand,
  rest: readonly string[],
  { io, options, level, secrets, settings }: CommandRun,
): Promise<number> {
  // A failed command's standard error is its one error document: log lines are held until the
  // outcome is known, written after a success, dropped after a failure (the document says what
  // failed). EVIDENT_LOG_LEVEL set by the user writes them as they come.
  const held = holdLogLines(io, envValue(io.env, "EVIDENT_LOG_LEVEL") !== undefined);
  const logger = createStderrLogger({ level, write: held.write, secrets });
  const own = splitCliOptions(rest, { root: spec.tool === "code_search" });
  if (own.root === "") {
    return fail(io, usageError(`--root needs a directory. Usage: ${spec.usage.split("\n")[0]}`, "root"));
  }
  const root = resolveProjectRoot({
    surface: "cli",
    explicit: { value: own.root, origin: "--root" },
    settings,
    cwd: io.cwd,
  });
  const registry = await options.createRegistry(logger, "command", root, settings);
  try {
    // The one tool this command calls: the others' published schemas would serve nothing here.
    const tool = registry.get(spec.tool);
    if (tool === undefined) {
      return fail(
        io,
        new EvidentError("configuration_error", `The ${spec.tool} tool is not available in this build.`),
      );
    }
    const properties = (publishedInputSchema(tool.inputSchema).properties ?? {}) as Record<string, unknown>;
    if (own.help) {
      io.stdout.write(commandHelp(command, spec, tool.description, properties));
      held.flush();
      return EXIT_OK;
    }
    const parsed = parseCommand(own.tokens, spec, properties);
    const context = { command, spec, properties, parsed };
    const problem = parseProblem(context);
    if (problem !== undefined) return fail(io, problem);
    return await callTool(registry, context, { io, options, logger, held, text: own.text });
  } finally {
    await registry.close();
  }
}

type CommandContext = Parameters<typeof usageProblem>[0] & {
  readonly parsed: ReturnType<typeof parseCommand>;
};

/** What is wrong with the command's arguments, before any call. */
function parseProblem(context: CommandContext): EvidentError | undefined {
  const { parsed } = context;
  if (parsed.repeated !== undefined) {
    const { key, first, second } = parsed.repeated;
    const given = first === second ? `${first} twice` : `${first} and ${second}`;
    const flag = `--${kebabCase(key)}`;
    return usageProblem(context, `${flag} takes one value, and was given ${given}.`, key, flag);
  }
  if (parsed.problem !== undefined) return usageProblem(context, parsed.problem, "(arguments)");
  if (parsed.extra.length > 0) {
    return usageProblem(context, `Unexpected argument "${parsed.extra[0]}".`, "(arguments)");
  }
  return undefined;
}

/** Calls the tool with a spinner for progress; the outcome becomes the process's output. */
async function callTool(
  registry: ToolRegistry,
  context: CommandContext,
  run: {
    readonly io: CliIo;
    readonly options: CliOptions;
    readonly logger: Logger;
    readonly held: ReturnType<typeof holdLogLines>;
    readonly text: boolean;
  },
): Promise<number> {
  const { io, options, held } = run;
  const { spec, parsed } = context;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const spinner = createSpinner(io.stderr);
  try {
    const result = await registry.call(spec.tool, parsed.args, {
      signal: controller.signal,
      logger: run.logger,
      caller: cliCaller(),
      progress: (update) => spinner.update(update),
    });
    spinner.stop();
    if (result.isError) {
      const error =
        result.error.code === "invalid_arguments" ? cliArgumentError(result.error, context) : result.error;
      return fail(io, error);
    }
    held.flush();
    io.stdout.write(
      run.text ? ensureNewline(textOf(spec.tool, result)) : `${JSON.stringify(result.data, null, 2)}\n`,
    );
    return EXIT_OK;
  } finally {
    spinner.stop();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Log lines of one tool command, held (at most CLI_HELD_LOG_LINES) until it is known whether
 * they may share standard error with an error document; `passThrough` writes them at once.
 */
function holdLogLines(io: CliIo, passThrough: boolean) {
  const lines: string[] = [];
  let dropped = 0;
  return {
    write(line: string) {
      if (passThrough) {
        io.stderr.write(line);
        return;
      }
      if (lines.length >= CLI_HELD_LOG_LINES) {
        lines.shift();
        dropped += 1;
      }
      lines.push(line);
    },
    flush() {
      if (dropped > 0)
        io.stderr.write(`${logLine("warn", `${dropped} earlier log line(s) left out`, undefined)}\n`);
      for (const line of lines.splice(0)) io.stderr.write(line);
      dropped = 0;
    },
  };
}

interface McpFlags {
  readonly transport: "stdio" | "http";
  readonly rootFlag: string | undefined;
  readonly structured: boolean;
}

/** `evident mcp`'s flags over EVIDENT_TRANSPORT and EVIDENT_MCP_STRUCTURED; an exit code when done. */
function parseMcpFlags(rest: readonly string[], { io, settings }: CommandRun): McpFlags | number {
  let transport: string;
  let rootFlag: string | undefined;
  let structured: boolean;
  try {
    transport = envValue(io.env, "EVIDENT_TRANSPORT") ?? "stdio";
    structured = settingValue(settings.mcpStructured);
  } catch (error) {
    return fail(io, error);
  }
  for (let i = 0; i < rest.length; i += 1) {
    const token = rest[i] as string;
    if (token === "--help" || token === "-h") {
      io.stdout.write(mcpHelp());
      return EXIT_OK;
    }
    if (token === "--structured") {
      structured = true;
    } else if (token === "--transport") {
      transport = rest[i + 1] ?? "";
      i += 1;
    } else if (token.startsWith("--transport=")) {
      transport = token.slice("--transport=".length);
    } else if (token === "--root") {
      rootFlag = rest[i + 1];
      i += 1;
      if (rootFlag === undefined || rootFlag === "") {
        return fail(io, usageError(`--root needs a directory. Usage: ${MCP_USAGE}`, "root"));
      }
    } else if (token.startsWith("--root=")) {
      rootFlag = token.slice("--root=".length);
    } else {
      return fail(io, usageError(`Unknown option "${token}" for evident mcp. Usage: ${MCP_USAGE}`, token));
    }
  }
  if (transport !== "stdio" && transport !== "http") {
    return fail(
      io,
      usageError(`--transport must be stdio or http, got "${transport}". Usage: ${MCP_USAGE}`, "transport"),
    );
  }
  return { transport, rootFlag, structured };
}

async function runMcp(rest: readonly string[], run: CommandRun): Promise<number> {
  const { io, settings } = run;
  const flags = parseMcpFlags(rest, run);
  if (typeof flags === "number") return flags;
  const logger = createStderrLogger({
    level: run.level,
    write: (line) => io.stderr.write(line),
    secrets: run.secrets,
  });
  // A variable evident does not read is said at start, never silently ignored, never fatal.
  for (const report of settings.unknownVariables) logger.warn(report.message);
  try {
    // A server whose shared snapshot store is wrong or unreachable refuses to start.
    const { checkSnapshotStore } = await import("../../tools/code-search.js");
    await checkSnapshotStore({ cwd: io.cwd, settings, logger });
  } catch (error) {
    return fail(io, error);
  }
  // A bad or refused root does not stop the server: code_search calls explain it (tools stay listed).
  const root = resolveProjectRoot({
    surface: flags.transport === "http" ? "http" : "mcp",
    explicit: { value: flags.rootFlag, origin: "--root" },
    settings,
    cwd: io.cwd,
  });
  if ("error" in root) logger.warn(root.error.message);
  if (flags.transport === "http") return serveHttp(run, logger, root, flags.structured);
  const registry = await run.options.createRegistry(logger, "server", root, settings);
  const { startStdioServer } = await import("../mcp/stdio.js");
  const handle = startStdioServer({
    registry,
    logger,
    structured: flags.structured,
    ...(io.protocol === undefined ? {} : { stdin: io.protocol.input, stdout: io.protocol.output }),
  });
  await Promise.race([handle.closed, waitForAbort(run.options.signal)]);
  await handle.close();
  await registry.close();
  return EXIT_OK;
}

/** `evident mcp --transport http`: serves until the signal, then shuts down. */
async function serveHttp(
  run: CommandRun,
  logger: Logger,
  root: RootSetting,
  structured: boolean,
): Promise<number> {
  const { io, options } = run;
  let settings: HttpSettings;
  let metricsPublic: boolean;
  try {
    settings = settingValue(run.settings.http);
    metricsPublic = settingValue(run.settings.metricsPublic);
  } catch (error) {
    return fail(io, error);
  }
  const registry = await options.createRegistry(logger, "remote", root, run.settings);
  const { startHttpServer } = await import("../mcp/http-server.js");
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    server = await startHttpServer({ registry, logger, settings, structured, metricsPublic });
  } catch (error) {
    await registry.close();
    return fail(io, listenFailure(error, settings));
  }
  const info = createStderrLogger({ level: "info", write: (line) => io.stderr.write(line) });
  const auth =
    settings.tokens.length === 0
      ? "anonymous (EVIDENT_ALLOW_ANONYMOUS=true)"
      : `bearer (${settings.tokens.length} token${settings.tokens.length === 1 ? "" : "s"})`;
  // The URL ends a word of the message, so `listening on (\S+)` finds it in the JSON line.
  info.info(`MCP Streamable HTTP listening on ${server.url} with ${auth.split(" ")[0]} auth`, {
    url: server.url,
    auth,
    metrics: metricsPublic ? "public" : "bearer",
  });
  await waitForAbort(options.signal);
  await server.close();
  return EXIT_OK;
}

/**
 * The CLI's caller key. Cursors outlive the process (they are kept in a per-user cache), so the
 * key names the OS user: another account using the same cache directory cannot continue them.
 */
export function cliCaller(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) return `cli:${uid}`;
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}

function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

function usage(): string {
  const lines = Object.entries(TOOL_COMMANDS).map(([name, spec]) => `  ${name.padEnd(7)} ${spec.summary}`);
  return [
    `evident ${PACKAGE_VERSION}: bounded, attributed evidence for AI agents`,
    "",
    "Usage: evident <command> [options]",
    "",
    "Commands:",
    ...lines,
    "  mcp     Serve the tools over MCP (stdio by default; --transport http for Streamable HTTP).",
    "  setup   Choose providers, keys and routes interactively (or with flags); writes the config file.",
    "  doctor  Show what is configured and probe each provider in use (--json for machines).",
    "  config  `config path` prints the config file's path; `config show` the effective configuration.",
    "",
    "Every command takes --help. Tool commands print one JSON document on stdout (exit 0),",
    'or {"error":{...}} on stderr (exit 1; exit 2 for bad arguments). --text prints the',
    "model-facing text instead of JSON.",
    "",
  ].join("\n");
}

const MCP_USAGE = "evident mcp [--transport stdio|http] [--root DIR] [--structured]";

function mcpHelp(): string {
  return [
    `Usage: ${MCP_USAGE}`,
    "",
    "stdio (default): MCP over standard input/output; logs go to stderr.",
    "--root DIR (or EVIDENT_ROOT=DIR): the project directory code_search searches. Without it, the",
    "  client's MCP roots (its first root) when it offers them, else the directory the server was",
    "  started in; never / or the home directory itself (code_search then says how to set it).",
    "--structured (or EVIDENT_MCP_STRUCTURED=true): also send each result's structured data",
    "  (structuredContent, with outputSchema in the tool list), for programmatic clients. Off by",
    "  default: some clients show the model that JSON instead of the text, and the text is what",
    "  is budgeted and says what was cut.",
    "http: MCP Streamable HTTP at POST /mcp, public GET /healthz. Environment:",
    "  EVIDENT_TRANSPORT=http            same as --transport http",
    "  EVIDENT_HTTP_HOST (127.0.0.1)     EVIDENT_HTTP_PORT, else PORT, else 8787",
    "  EVIDENT_AUTH_TOKEN                bearer token, at least 32 characters (required)",
    "  EVIDENT_AUTH_TOKENS               or one token per client, comma-separated (each its own caller)",
    "  EVIDENT_ALLOW_ANONYMOUS=true      serve without a token (trusted networks only)",
    "  EVIDENT_ALLOWED_HOSTS             Host names accepted (default: loopback names when bound to loopback)",
    "  EVIDENT_ALLOWED_ORIGINS           browser Origins accepted (default: loopback origins when bound to loopback)",
    "",
  ].join("\n");
}

function commandHelp(
  command: string,
  spec: CommandSpec & { readonly summary: string; readonly usage: string; readonly note?: string },
  description: string,
  properties: Record<string, unknown>,
): string {
  const aliasesOf = (name: string) =>
    Object.entries(spec.aliases ?? {})
      .filter(([, target]) => target === name)
      .map(([alias]) => `${alias}, `)
      .join("");
  const offered = spec.options ?? Object.keys(properties);
  const options = offered.flatMap((name) => {
    const schema = properties[name];
    if (schema === undefined) return [];
    const s = schema as { description?: string; default?: unknown };
    const kind = propertyKind(schema);
    const flag = `--${kebabCase(name)}`;
    const value = placeholder(spec, name, schema);
    // An array flag takes one value each time and repeats: what follows it is a positional.
    const form =
      kind === "boolean"
        ? `${flag}, --no-${kebabCase(name)}`
        : kind === "array" || kind === "string-or-array"
          ? `${flag} ${value} (repeatable: ${flag} A ${flag} B)`
          : `${flag} ${value}`;
    const extra = s.default === undefined ? "" : ` (default ${JSON.stringify(s.default)})`;
    return [`  ${aliasesOf(name)}${form}${s.description ? `  ${s.description}` : ""}${extra}`];
  });
  const rootLine =
    spec.tool === "code_search"
      ? [
          "  --root DIR  the project directory (else EVIDENT_ROOT, else the current directory; never / or ~ itself)",
        ]
      : [];
  return [
    `evident ${command}: ${spec.summary}`,
    "",
    `Usage: ${spec.usage}`,
    "",
    ...(spec.note === undefined ? [] : [spec.note, ""]),
    "Options:",
    ...options,
    "A switch (no value) is on when given; --no-NAME or --NAME=false turns it off.",
    "",
    ...rootLine,
    "  --text  print the model-facing text instead of JSON",
    "",
    // The whole tool's description is about every form; a command offering a part of them keeps to its own.
    ...(spec.options === undefined
      ? [`The ${spec.tool} tool as agents see it (its arguments are the options above):`, "", description, ""]
      : []),
  ].join("\n");
}

/** A socket the server cannot listen on is the operator's setting to change, said in its words. */
function listenFailure(error: unknown, settings: { readonly host: string; readonly port: number }): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${settings.host}:${settings.port}`;
  const why =
    code === "EADDRINUSE"
      ? "another process is listening there"
      : code === "EACCES"
        ? "this user may not listen on that port"
        : code === "EADDRNOTAVAIL"
          ? "that address is not one of this machine's"
          : undefined;
  if (why === undefined) return error;
  return new EvidentError(
    "configuration_error",
    `Cannot listen on ${where}: ${why} (${code}). Set EVIDENT_HTTP_PORT (and EVIDENT_HTTP_HOST) to a free address.`,
  );
}
