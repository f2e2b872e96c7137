/**
 * Display-only masking of credential-like values. It runs on text about to be shown and on
 * nothing else: matching, counts, coverage, snapshots and cursors never see it, so turning it on
 * cannot change what a search finds or how it pages.
 */

const MASK = "[redacted]";

/** Whole-token secrets recognizable by their shape. */
const TOKEN_PATTERNS: readonly RegExp[] = [
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-[A-Za-z0-9_-]{20,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
];

/** `name = value` assignments whose name says secret; the value is masked, the name kept. */
const ASSIGNMENT =
  /((?:api[_-]?key|secret|token|passw(?:or)?d|pwd|auth|credential|private[_-]?key|access[_-]?key)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)([^\s"',;]{6,})/gi;

/** A line of a PEM body (between BEGIN and END lines, which are kept so the shape is visible). */
const PEM_BODY = /^[A-Za-z0-9+/=]{40,}$/;
/** A URL with an embedded password. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi;

export interface Redaction {
  readonly text: string;
  readonly masked: number;
}

export function redactText(text: string): Redaction {
  let masked = 0;
  if (PEM_BODY.test(text.trim())) return { text: MASK, masked: 1 };
  let out = text.replace(ASSIGNMENT, (_all, name: string) => {
    masked++;
    return `${name}${MASK}`;
  });
  out = out.replace(URL_PASSWORD, (_all, head: string, _secret: string, at: string) => {
    masked++;
    return `${head}${MASK}${at}`;
  });
  for (const pattern of TOKEN_PATTERNS) {
    out = out.replace(pattern, () => {
      masked++;
      return MASK;
    });
  }
  return { text: out, masked };
}
