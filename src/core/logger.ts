/**
 * The one logger. It writes to stderr only: on the stdio transport stdout belongs to the
 * protocol, and every other surface keeps stdout for its one JSON document. Each line is one JSON
 * object (`time`, `level`, `msg`, then the fields), so a log collector reads it without a parser
 * of ours; a call's lines carry its `requestId` (and `traceId`) through `withFields`.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Every level, quietest last. */
export const LOG_LEVELS = Object.keys(ORDER) as readonly LogLevel[];

export interface StderrLoggerOptions {
  readonly level?: LogLevel;
  readonly write?: (line: string) => void;
  /** Values that must never appear in a log line (tokens, API keys); replaced by `[redacted]`. */
  readonly secrets?: readonly string[];
}

export function createStderrLogger(options: StderrLoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  const scrub = (text: string): string =>
    secrets.reduce((acc, secret) => acc.split(secret).join("[redacted]"), text);
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    write(`${logLine(level, message, fields, scrub)}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** Names a line's own keys take; a field of the same name is kept as `field.<name>`. */
const LINE_KEYS = new Set(["time", "level", "msg"]);

/**
 * One JSON object: the time, the level, the message, then the fields. Every string in it is
 * scrubbed before it is serialized, so a secret is replaced whatever JSON escaping would make of it.
 */
export function logLine(
  level: LogLevel,
  message: string,
  fields: Record<string, unknown> | undefined,
  scrub: (text: string) => string = (text) => text,
): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg: message };
  for (const [key, value] of Object.entries(fields ?? {}))
    line[LINE_KEYS.has(key) ? `field.${key}` : key] = value;
  try {
    return JSON.stringify(line, (_key, v: unknown) => {
      if (typeof v === "string") return scrub(v);
      return v instanceof Error ? { name: v.name, message: v.message } : v;
    });
  } catch {
    return JSON.stringify({ time: line.time, level, msg: scrub(message), fields: "[unserializable]" });
  }
}

/**
 * `logger` with `bound` added to every line (a call's request id and trace id); the bound fields
 * win over a line's own of the same name, so a line cannot disown its request.
 */
export function withFields(logger: Logger, bound: Record<string, unknown>): Logger {
  if (Object.keys(bound).length === 0) return logger;
  const add = (fields?: Record<string, unknown>) => ({ ...fields, ...bound });
  return {
    debug: (m, f) => logger.debug(m, add(f)),
    info: (m, f) => logger.info(m, add(f)),
    warn: (m, f) => logger.warn(m, add(f)),
    error: (m, f) => logger.error(m, add(f)),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
