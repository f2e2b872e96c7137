/**
 * Display-only masking of credential-like values. It runs on text about to be shown and on
 * nothing else: matching, counts, coverage, snapshots and cursors never see it, so turning it on
 * cannot change what a search finds or how it pages.
 */

const MASK = "[redacted]";

/**
 * Whole-token secrets recognizable by their shape (the formats gitleaks' default rules know best:
 * prefixes vendors put on their tokens so that scanners find them).
 */
const TOKEN_PATTERNS: readonly RegExp[] = [
  // AWS access key ids (long-lived, temporary, and the other principal kinds).
  /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g,
  // GitHub: classic and fine-grained personal, OAuth, app and refresh tokens.
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  // GitLab: personal, deploy, runner, pipeline trigger, feed and OAuth tokens; runner registration.
  /\bgl(?:pat|dt|rt|ptt|ft|oas|cbt|imt|agent|soat)-[A-Za-z0-9_-]{20,}/g,
  /\bGR1348941[A-Za-z0-9_-]{20,}\b/g,
  // Slack tokens and incoming webhooks.
  /\bxox[abposre]-[A-Za-z0-9-]{10,}\b/g,
  /\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+\b/gi,
  /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{20,}/g,
  // Stripe secret and restricted keys, webhook secrets.
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bwhsec_[A-Za-z0-9]{24,}\b/g,
  // OpenAI, Anthropic and other `sk-` keys.
  /\bsk-[A-Za-z0-9_-]{20,}\b/g,
  // Google API keys, OAuth client secrets and access tokens.
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bGOCSPX-[A-Za-z0-9_-]{20,}/g,
  /\bya29\.[A-Za-z0-9_-]{20,}/g,
  // npm, PyPI, Docker Hub, Hugging Face, HashiCorp Vault, DigitalOcean, Shopify, SendGrid,
  // Twilio, Mailgun, Postman, Doppler, Databricks, Atlassian, Linear tokens.
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g,
  /\bdckr_pat_[A-Za-z0-9_-]{20,}/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g,
  /\bdo[por]_v1_[a-f0-9]{64}\b/g,
  /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g,
  /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g,
  /\bSK[0-9a-fA-F]{32}\b/g,
  /\bkey-[0-9a-zA-Z]{32}\b/g,
  /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g,
  /\bdp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_-]{40,}/g,
  /\bdapi[a-f0-9]{32}(?:-\d)?\b/g,
  /\bATATT3[A-Za-z0-9_=-]{100,}/g,
  /\blin_api_[A-Za-z0-9]{40}\b/g,
  // JSON Web Tokens.
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
];

/**
 * `name = value` assignments whose name says secret; the value is masked, the name kept. A call
 * (`token = getToken()`) and a PEM block (masked on its own) are not values.
 */
const ASSIGNMENT =
  /((?:api[_-]?key|secret|token|passw(?:or)?d|pwd|auth|credential|private[_-]?key|access[_-]?key)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?)((?![A-Za-z_$][\w$.]*\()(?!-----)[^\s"',;]{6,})/gi;

/**
 * Connection-string fields that hold a key (Azure storage and Service Bus, SAS signatures), up to
 * the next `;`: their base64 values may contain `=`, `+` and `/`.
 */
const CONNECTION_KEY = /(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=)([^;\s"'&]{6,})/gi;

/** A password given to a database client on its command line: `mysql -psecret`, `-p'secret'`. */
const CLIENT_PASSWORD =
  /(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p)(["']?[^\s"']+["']?)/g;

/** A PEM block written inline (a JSON or env value with `\n` escapes): its body is masked. */
const INLINE_PEM = /(-----BEGIN [A-Z0-9 ]+-----)(?:(?!-----END)[\s\S])+(-----END [A-Z0-9 ]+-----)?/g;

/** A line of a PEM body (between BEGIN and END lines, which are kept so the shape is visible). */
const PEM_BODY = /^[A-Za-z0-9+/=]{40,}$/;
/** A PEM body's last line, shorter than the rest: base64 after a body line or the BEGIN line. */
const PEM_TAIL = /^[A-Za-z0-9+/]+={0,2}$/;
/** ...and one padded with `=`, recognizable even without the line before it. */
const PADDED_TAIL = /^[A-Za-z0-9+/]{4,}={1,2}$/;
/**
 * ...and, when the line before it is unknown, one that looks random: letters of both cases and
 * digits, nothing else (a word or identifier alone on its line rarely has all three).
 */
const LONE_TAIL = /^(?=[^0-9]*[0-9])(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])[A-Za-z0-9+/]{8,}$/;
const PEM_BEGIN = /^-----BEGIN [A-Z0-9 ]+-----$/;
/** A URL with an embedded password. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]+)(@)/gi;

export interface Redaction {
  readonly text: string;
  readonly masked: number;
}

/**
 * Whether `text` could be the short last line of a PEM body, which only the line before it tells
 * (a caller that can read that line passes it to redactText).
 */
export function mayEndPemBody(text: string): boolean {
  return PEM_TAIL.test(text.trim());
}

/**
 * Masks `text`, one line of a file. `previous`, the file's line before it when the caller has
 * it, lets the short last line of a PEM body be recognized; without it, a line that could be one
 * and looks random is masked.
 */
export function redactText(text: string, previous?: string): Redaction {
  let masked = 0;
  const line = text.trim();
  if (PEM_BODY.test(line) || PADDED_TAIL.test(line)) return { text: MASK, masked: 1 };
  if (line !== "" && PEM_TAIL.test(line)) {
    const before = previous?.trim();
    if (before === undefined ? LONE_TAIL.test(line) : PEM_BODY.test(before) || PEM_BEGIN.test(before))
      return { text: MASK, masked: 1 };
  }
  const count = () => {
    masked++;
  };
  let out = text.replace(INLINE_PEM, (_all, begin: string, end: string | undefined) => {
    count();
    return `${begin}${MASK}${end ?? ""}`;
  });
  for (const pattern of [ASSIGNMENT, CONNECTION_KEY, CLIENT_PASSWORD]) {
    out = out.replace(pattern, (_all, name: string) => {
      count();
      return `${name}${MASK}`;
    });
  }
  out = out.replace(URL_PASSWORD, (_all, head: string, _secret: string, at: string) => {
    count();
    return `${head}${MASK}${at}`;
  });
  for (const pattern of TOKEN_PATTERNS) {
    out = out.replace(pattern, () => {
      count();
      return MASK;
    });
  }
  return { text: out, masked };
}
