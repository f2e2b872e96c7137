/**
 * Fitting a JSON document into a character budget by clipping one piece of text.
 *
 * The fixed part of a document (provenance, warnings, metadata) is always kept; the clippable
 * text gets whatever room is left, as its longest prefix. The document is serialized once per
 * trial and the result is the exact string returned, so a count never drifts from what is sent.
 */

export interface FitResult {
  /** The serialized document; its length is at most the budget unless `overBudget`. */
  readonly json: string;
  /** Characters of the clippable text that were kept. */
  readonly keptChars: number;
  /** Whether the clippable text was cut. */
  readonly truncated: boolean;
  /** The fixed part alone exceeds the budget (the text is then empty). */
  readonly overBudget: boolean;
}

/**
 * Serializes `build(prefix, truncated)` with the longest prefix of `text` that keeps the JSON
 * within `budgetChars`. `build` must be monotonic in the prefix length (a longer prefix never
 * serializes shorter), which holds for any document that embeds the prefix once.
 */
export function fitJson(
  text: string,
  budgetChars: number,
  build: (prefix: string, truncated: boolean) => unknown,
): FitResult {
  const whole = JSON.stringify(build(text, false));
  if (whole.length <= budgetChars) {
    return { json: whole, keptChars: text.length, truncated: false, overBudget: false };
  }
  let low = 0;
  let high = text.length - 1;
  let best: string | undefined;
  let bestLength = 0;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const prefix = safePrefix(text, mid);
    const json = JSON.stringify(build(prefix, true));
    if (json.length <= budgetChars) {
      best = json;
      bestLength = prefix.length;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  if (best === undefined) {
    return { json: JSON.stringify(build("", true)), keptChars: 0, truncated: true, overBudget: true };
  }
  return { json: best, keptChars: bestLength, truncated: true, overBudget: false };
}

/** A prefix of at most `length` UTF-16 units that does not end inside a surrogate pair. */
export function safePrefix(text: string, length: number): string {
  if (length >= text.length) return text;
  if (length <= 0) return "";
  const last = text.charCodeAt(length - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? length - 1 : length;
  return text.slice(0, cut);
}
