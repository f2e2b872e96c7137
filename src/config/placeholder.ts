/**
 * Credential values that cannot be keys. Vendor keys are random strings; documentation puts
 * other shapes where a key goes ("tvly-...", "<your key>", "xxxx", "your-api-key", "changeme",
 * a "${TAVILY_API_KEY}" the client never expanded). Sent, such a value only earns an HTTP 401;
 * worse, its mere presence made the vendor the default route. The rules are few and match whole
 * shapes, so no random key can meet one (docs/CONFIG.md lists them).
 */

/** Words a key's whole value is never, once case and `-`, `_`, `.`, spaces are set aside. */
const PLACEHOLDER_WORDS = new Set([
  "changeme",
  "replaceme",
  "placeholder",
  "redacted",
  "secret",
  "apikey",
  "key",
  "token",
  "todo",
  "tbd",
  "none",
  "null",
  "undefined",
]);

/**
 * Why `value` (trimmed, not empty) is a placeholder rather than a key, in words that quote no
 * part of it beyond the rule (a key the rules wrongly caught must not be echoed); undefined for
 * anything that may be a key. `variable` is the environment variable it came from, if any.
 */
export function placeholderReason(value: string, variable?: string): string | undefined {
  if (/(?:\.\.\.|…)$/.test(value)) return 'it ends in "...", as an example key does';
  if (/^(?:\*{3,}|•{3,})/.test(value)) return "it is a masked key, as config show prints one";
  if (/^<.*>$/s.test(value)) return "it is a placeholder in angle brackets";
  if (/^(?:\$\{[A-Za-z_][\w:.-]*\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%)$/.test(value))
    return "it is a variable reference that was never expanded";
  // An optional vendor prefix (`tvly-`, `sk-proj-`), then only x's or stars.
  if (/^(?:[A-Za-z0-9]{1,12}[-_])*[xX*]{3,}$/.test(value)) return 'it is "xxx" where the key goes';
  const words = value.toLowerCase().replace(/[-_.\s]/g, "");
  if (PLACEHOLDER_WORDS.has(words)) return "it is a placeholder word, not a key";
  if (/^(?:insert|enter|put|paste|add)?(?:your|my)\w*(?:key|token)(?:here)?$/.test(words))
    return 'it says "your key" where the key goes';
  if (/^(?:api)?(?:key|token)here$/.test(words)) return 'it says "key here" where the key goes';
  if (variable !== undefined && value.toUpperCase() === variable.toUpperCase())
    return "it is the variable's own name";
  return undefined;
}

/**
 * What is wrong with a credential variable's raw value: set but empty, or a placeholder; undefined
 * when it is unset or may be a key (whitespace-only values are refused earlier, by `envValue`).
 */
export function credentialVariableProblem(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw === "") return `the environment variable ${name} is set but empty`;
  const reason = placeholderReason(raw.trim(), name);
  return reason === undefined
    ? undefined
    : `the environment variable ${name} holds a placeholder, not a key (${reason})`;
}
