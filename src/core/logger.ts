/**
 * The one logger. It writes to stderr only: on the stdio transport stdout belongs to the
 * protocol, and every other surface keeps stdout for its one JSON document.
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
    const suffix = fields && Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : "";
    write(scrub(`evident ${level}: ${message}${suffix}\n`));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) =>
      v instanceof Error ? { name: v.name, message: v.message } : v,
    );
  } catch {
    return "[unserializable]";
  }
}
