/**
 * How advice reads on each surface: the one place that turns a next step (a tool call, one of its
 * arguments, setting the project root, where a failure's cause is logged) into the words of the
 * surface that shows it. Tools decide what to suggest; this decides how it is written, so an
 * agent over MCP reads `call code_search with {"cursor":"C"}` where a shell reads
 * `evident grep --cursor C`. The CLI takes its commands and short flags from here too, so its
 * parser, its help and its advice cannot drift apart.
 */

/**
 * Who shows the text: an MCP client over stdio, a remote MCP client over HTTP, the `evident`
 * command, a program using the SDK, or Pi.
 */
export type Surface = "mcp" | "http" | "cli" | "sdk" | "pi";

export type ToolName = "web_search" | "web_read" | "code_search";

/** Each tool's `evident` command, and its flag spellings other than `--kebab-case` of the field. */
export const CLI_TOOL_COMMANDS: Readonly<
  Record<ToolName, { readonly command: string; readonly aliases: Readonly<Record<string, string>> }>
> = {
  web_search: { command: "search", aliases: { "--provider": "providers", "-n": "maxResults" } },
  web_read: { command: "read", aliases: {} },
  code_search: {
    command: "grep",
    aliases: {
      "-i": "ignoreCase",
      "-w": "wholeWord",
      "-F": "literal",
      "-C": "context",
      "-g": "glob",
      "-n": "limit",
    },
  },
};

/** The command for code_search's inspections (`evident inspect --source-cursor C`). */
export const CLI_INSPECT_COMMAND = "inspect";

/** A value the reader fills in: `n` in a JSON call, `N` on a command line. */
export interface Hole {
  readonly hole: string;
}

export function hole(name: string): Hole {
  return { hole: name };
}

function isHole(value: unknown): value is Hole {
  return typeof value === "object" && value !== null && typeof (value as Hole).hole === "string";
}

export interface Phrasing {
  readonly surface: Surface;
  /**
   * A whole call: `call code_search with {"cursor":"C"}`, or the command in backquotes
   * (`` `evident grep --cursor C` ``); a `hole` stands for what the reader fills in.
   */
  call(tool: ToolName, args: Readonly<Record<string, unknown>>): string;
  /**
   * The call that went before, again, with these arguments added (or replaced): `call
   * code_search again with the same arguments and "exclude": ["dist"]`, or `run the same command
   * again with --exclude dist`.
   */
  again(tool: ToolName, args: Readonly<Record<string, unknown>>): string;
  /**
   * One argument as the caller writes it: `maxParseFiles` or `--max-parse-files`; with a value,
   * `literal=true` or `-F`, `mode="summary"` or `--mode summary`.
   */
  arg(tool: ToolName, name: string, value?: unknown): string;
  /** code_search refusing `what` (`dir`) as the project root, and how to name one instead. */
  rootRefused(what: string, dir: string): string;
  /** How to name the project root on this surface. */
  setRoot(): string;
  /** The advice closing an internal error's message: where its cause can be seen. */
  internalError(): string;
}

export function phrasingFor(surface: Surface): Phrasing {
  return surface === "cli" ? CLI_PHRASING : toolPhrasing(surface);
}

/** Where each surface was started, as a refusal of its root says it. */
const STARTED: Record<Surface, string> = {
  mcp: "the server was started there",
  http: "the server was started there",
  cli: "evident ran there",
  sdk: "the program runs there",
  pi: "Pi was started there",
};

const SET_ROOT: Record<Surface, string> = {
  mcp: "Set the project directory with `evident mcp --root DIR` or EVIDENT_ROOT=DIR, or use an MCP client that offers its roots.",
  // A remote client's roots name its own machine's directories: HTTP never uses them.
  http: "Set the project directory where the server runs: `evident mcp --transport http --root DIR`, EVIDENT_ROOT=DIR, or createHttpHandler's cwd option.",
  cli: "Run evident in the project directory, or name it with --root DIR or EVIDENT_ROOT=DIR.",
  sdk: "Pass the project directory as createEvident({ cwd: DIR }), or set EVIDENT_ROOT=DIR.",
  pi: "Start Pi in the project directory, or set EVIDENT_ROOT=DIR before starting it.",
};

const INTERNAL: Record<Surface, string> = {
  mcp: "see the server log",
  http: "see the server log",
  cli: "run it again with EVIDENT_LOG_LEVEL=error to see its cause on standard error",
  sdk: "see the log (createEvident's logger, standard error by default)",
  // Inside Pi evident logs nothing: the same call from the CLI shows the cause.
  pi: "the same call with `evident` and EVIDENT_LOG_LEVEL=error shows its cause",
};

function rootRefusal(surface: Surface) {
  return (what: string, dir: string) =>
    `code_search will not search ${what} (${dir}) as the project: ${STARTED[surface]} without a project directory. ${SET_ROOT[surface]}`;
}

/** MCP, HTTP, the SDK and Pi: the agent calls tools by name with JSON arguments. */
function toolPhrasing(surface: Surface): Phrasing {
  return {
    surface,
    call: (tool, args) => `call ${tool} with {${members(args).join(",")}}`,
    again: (tool, args) => `call ${tool} again with the same arguments and ${members(args, ": ").join(", ")}`,
    arg: (_tool, name, value) => (value === undefined ? name : `${name}=${json(value)}`),
    rootRefused: rootRefusal(surface),
    setRoot: () => SET_ROOT[surface],
    internalError: () => INTERNAL[surface],
  };
}

/** A JSON value, a hole as the bare name the reader replaces. */
function json(value: unknown): string {
  return isHole(value) ? value.hole : JSON.stringify(value);
}

/** The members of a JSON object as written (`"cursor":"C"`), holes bare. */
function members(args: Readonly<Record<string, unknown>>, colon = ":"): string[] {
  return Object.entries(args)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${JSON.stringify(name)}${colon}${json(value)}`);
}

/** `evident inspect PATH:LINE` for a path and a line, the shortest form of that inspection. */
function inspectPlace(args: Readonly<Record<string, unknown>>): string | undefined {
  const keys = Object.keys(args).filter((key) => args[key] !== undefined);
  if (keys.length !== 2 || args.path === undefined || args.line === undefined) return undefined;
  return `${cliValue(args.path)}:${cliValue(args.line)}`;
}

const CLI_PHRASING: Phrasing = {
  surface: "cli",
  call(tool, args) {
    const place = tool === "code_search" ? inspectPlace(args) : undefined;
    const command =
      place !== undefined || (tool === "code_search" && args.sourceCursor !== undefined)
        ? CLI_INSPECT_COMMAND
        : CLI_TOOL_COMMANDS[tool].command;
    const flags =
      place !== undefined
        ? [place]
        : Object.entries(args)
            .filter(([, value]) => value !== undefined)
            .map(([name, value]) => cliArg(tool, name, value));
    // In backquotes, so that the sentence around it (a closing period) is never taken for part of it.
    return `\`${["evident", command, ...flags].join(" ")}\``;
  },
  again: (tool, args) =>
    `run the same command again with ${Object.entries(args)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => cliArg(tool, name, value))
      .join(" ")}`,
  arg: (tool, name, value) => cliArg(tool, name, value),
  rootRefused: rootRefusal("cli"),
  setRoot: () => SET_ROOT.cli,
  internalError: () => INTERNAL.cli,
};

/** The flag a field is written with: its alias when it has one (`-F`), else `--kebab-case`. */
export function cliFlag(tool: ToolName, name: string): string {
  const alias = Object.entries(CLI_TOOL_COMMANDS[tool].aliases).find(([, field]) => field === name);
  return alias?.[0] ?? `--${kebabCase(name)}`;
}

export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function cliArg(tool: ToolName, name: string, value: unknown): string {
  const flag = cliFlag(tool, name);
  if (value === undefined || value === true) return flag;
  if (value === false) return `--no-${kebabCase(name)}`;
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => `${flag} ${cliValue(item)}`).join(" ");
}

/** A value on the command line: a shell word, a hole in capitals. */
function cliValue(value: unknown): string {
  return isHole(value) ? value.hole.toUpperCase() : shellWord(String(value));
}

/** A word a POSIX shell reads back unchanged: as it is when safe, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
