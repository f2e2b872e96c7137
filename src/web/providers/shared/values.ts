/**
 * Small readers for untrusted vendor JSON. Vendors add, drop and retype fields; adapters read
 * what they need through these and ignore the rest, so an unexpected shape degrades to a missing
 * field (or an explicit `malformed` failure decided by the adapter), never to a crash.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value as an array, or an empty array when it is not one. */
export function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string with visible content, trimmed; undefined for anything else. */
export function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/**
 * An absolute http(s) URL, trimmed; undefined for anything else. A value with whitespace inside
 * is a line of text that starts with a URL, not a URL, even where the parser would encode it.
 */
export function httpUrl(value: unknown): string | undefined {
  const candidate = text(value);
  if (candidate === undefined || /\s/.test(candidate)) return undefined;
  try {
    const parsed = new URL(candidate);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/** A date string that parses to a real instant, kept as the vendor wrote it. */
export function dateText(value: unknown): string | undefined {
  const candidate = text(value);
  if (candidate === undefined) return undefined;
  return Number.isNaN(Date.parse(candidate)) ? undefined : candidate;
}

/** JSON equality where object key order is irrelevant and arrays and strings must match exactly. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => deepEqual(item, b[index]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

/** The JSON document a text holds (an object or an array, whitespace around it), else undefined. */
export function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}
