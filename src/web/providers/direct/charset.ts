/**
 * Bytes to text the way browsers decide a page's encoding: a byte order mark wins, then the
 * charset of the HTTP `Content-Type`, then (for HTML and XML) a `<meta charset>`, a
 * `<meta http-equiv="Content-Type">` or an XML declaration near the top of the document. With
 * nothing declared, UTF-8 is tried and windows-1252 (what browsers assume for undeclared
 * Western pages) is used when the bytes are not valid UTF-8. Labels are the WHATWG Encoding
 * labels that `TextDecoder` knows (Shift_JIS, GBK, windows-1251, ISO-8859-x, ...).
 */

export interface Decoded {
  readonly text: string;
  /** The encoding used (a WHATWG name such as "utf-8", "shift_jis"). */
  readonly encoding: string;
  /** Where it came from. */
  readonly source: "bom" | "header" | "document" | "utf-8 default" | "windows-1252 fallback";
}

/** How far into a document a declaration is looked for (browsers prescan 1024 bytes; pages put it later). */
const PRESCAN_BYTES = 4096;

export function decodeBody(body: Uint8Array, contentType: string | undefined, markup: boolean): Decoded {
  const bom = bomEncoding(body);
  if (bom !== undefined) return decode(body, bom.encoding, "bom", bom.length);
  const header = decoderFor(headerCharset(contentType));
  if (header !== undefined) return decode(body, header, "header");
  if (markup) {
    const declared = decoderFor(declaredCharset(body));
    if (declared !== undefined) return decode(body, declared, "document");
  }
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true }).decode(body),
      encoding: "utf-8",
      source: "utf-8 default",
    };
  } catch {
    return decode(body, "windows-1252", "windows-1252 fallback");
  }
}

function decode(body: Uint8Array, encoding: string, source: Decoded["source"], skip = 0): Decoded {
  // ignoreBOM: the mark was already skipped (or, with a header, is not there to skip).
  const text = new TextDecoder(encoding, { ignoreBOM: true }).decode(skip > 0 ? body.subarray(skip) : body);
  return { text, encoding, source };
}

function bomEncoding(body: Uint8Array): { encoding: string; length: number } | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (body[0] === 0xfe && body[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  if (body[0] === 0xff && body[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  return undefined;
}

export function headerCharset(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? "")?.[1];
}

/** The charset a document declares near its top: `<meta charset>`, http-equiv, or `<?xml encoding>`. */
export function declaredCharset(body: Uint8Array): string | undefined {
  // latin1 maps bytes one to one, so ASCII markup reads correctly whatever the real encoding.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, PRESCAN_BYTES)).toString(
    "latin1",
  );
  const xml = /^<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1] !== undefined) return xml[1];
  for (const match of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = match[0];
    const content = /\bcontent\s*=\s*(["'])([^"']*)\1/i.exec(tag);
    const attributes = content === null ? tag : tag.replace(content[0], "");
    const charset = /\scharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(attributes)?.[1];
    if (charset !== undefined) return charset;
    if (content !== null && /http-equiv\s*=\s*["']?content-type/i.test(attributes)) {
      const inContent = /charset\s*=\s*([^"'\s;]+)/i.exec(content[2] ?? "")?.[1];
      if (inContent !== undefined) return inContent;
    }
  }
  return undefined;
}

/** A usable decoder name for a label, or undefined (unknown label, or UTF-16 declared in ASCII markup). */
function decoderFor(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  try {
    const encoding = new TextDecoder(label.trim()).encoding;
    // A document that declares UTF-16 in readable ASCII is not UTF-16 (the HTML standard says so).
    return encoding.startsWith("utf-16") ? "utf-8" : encoding;
  } catch {
    return undefined;
  }
}
