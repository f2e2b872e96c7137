/**
 * Cursor tokens on the wire: unpadded base64url, accepted only in the exact form they were
 * issued in. Node's decoder drops a trailing partial character and the unused low bits of the
 * last one, so "cursor + x" or a flipped last bit would otherwise decode to the very same bytes
 * and pass the MAC: a token that was altered must never read as the one it was made from.
 */

/** The bytes of `token` when it is exactly their base64url encoding, or undefined. */
export function decodeCanonicalToken(token: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, "base64url");
  return bytes.toString("base64url") === token ? bytes : undefined;
}
