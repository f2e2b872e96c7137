/**
 * code_search's cursor wire format, whatever backend keeps the results. A cursor carries only a
 * snapshot id (128 random bits), an offset, its kind and an optional path-selection signature,
 * plus a truncated HMAC under the store's key, so a cursor that was edited, truncated or made
 * under another key reads as `cursor_malformed` rather than as some other page. Backends differ
 * only in where the key lives (a process's memory, a private key file, a shared secret).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { decodeCanonicalToken } from "../../core/canonical-token.js";
import { EvidentError } from "../../core/errors.js";
import { CURSOR_RANDOM_BITS } from "../../core/limits.js";

/** `analysis`: a forward page of an analysis result's items (snapshots/analysis.ts). */
export type CursorKind = "summary" | "matches" | "analysis";

const KIND_BYTES: readonly CursorKind[] = ["summary", "matches", "analysis"];

export interface CursorState {
  readonly snapshotId: string;
  readonly offset: number;
  readonly kind: CursorKind;
  /** Hex signature of the canonical file selection a match cursor is bound to. */
  readonly selection?: string | undefined;
}

/** Length of a snapshot id in bytes (its hex form is twice as long). */
export const SNAPSHOT_ID_BYTES = CURSOR_RANDOM_BITS / 8;
/** Length of a file-selection signature in bytes. */
export const SELECTION_SIGNATURE_BYTES = 16;

const VERSION = 1;
const MAC_BYTES = 16;
const HEADER_BYTES = 3 + SNAPSHOT_ID_BYTES + 4;

export class CursorCodec {
  readonly #key: Buffer;
  readonly #origin: string;

  /**
   * `origin` completes the malformed-cursor message with where a foreign cursor may come from
   * (e.g. "an earlier server process").
   */
  constructor(key: Buffer, origin: string) {
    this.#key = key;
    this.#origin = origin;
  }

  encode(state: CursorState): string {
    const hasSelection = state.selection !== undefined;
    const body = Buffer.alloc(HEADER_BYTES + (hasSelection ? SELECTION_SIGNATURE_BYTES : 0));
    body.writeUInt8(VERSION, 0);
    body.writeUInt8(KIND_BYTES.indexOf(state.kind), 1);
    body.writeUInt8(hasSelection ? 1 : 0, 2);
    Buffer.from(state.snapshotId, "hex").copy(body, 3);
    body.writeUInt32BE(state.offset, 3 + SNAPSHOT_ID_BYTES);
    if (hasSelection) Buffer.from(state.selection as string, "hex").copy(body, HEADER_BYTES);
    return Buffer.concat([body, this.#mac(body)]).toString("base64url");
  }

  /** Throws `cursor_malformed` for anything not issued under this key. */
  decode(token: string): CursorState {
    const malformed = () =>
      new EvidentError(
        "cursor_malformed",
        `This cursor was not issued by this code_search server (it may be altered, truncated, or from ${this.#origin}); ` +
          "copy cursors exactly, or run the search again.",
        { details: { field: "cursor" } },
      );
    const raw = decodeCanonicalToken(token);
    if (
      raw === undefined ||
      (raw.length !== HEADER_BYTES + MAC_BYTES &&
        raw.length !== HEADER_BYTES + SELECTION_SIGNATURE_BYTES + MAC_BYTES)
    ) {
      throw malformed();
    }
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = raw.subarray(raw.length - MAC_BYTES);
    if (!timingSafeEqual(mac, this.#mac(body))) throw malformed();
    const kind = body.readUInt8(1);
    const flags = body.readUInt8(2);
    if (
      body.readUInt8(0) !== VERSION ||
      kind >= KIND_BYTES.length ||
      flags !== (body.length > HEADER_BYTES ? 1 : 0)
    ) {
      throw malformed();
    }
    return {
      snapshotId: body.subarray(3, 3 + SNAPSHOT_ID_BYTES).toString("hex"),
      offset: body.readUInt32BE(3 + SNAPSHOT_ID_BYTES),
      kind: KIND_BYTES[kind] as CursorKind,
      selection: flags === 1 ? body.subarray(HEADER_BYTES).toString("hex") : undefined,
    };
  }

  /**
   * Seals another kind of token under the same key (a source continuation, say): the payload
   * travels in the clear but cannot be altered, and is bound to `purpose` and `caller`, so a
   * token of another kind or another caller reads as forged.
   */
  seal(purpose: string, caller: string, payload: Buffer): string {
    return Buffer.concat([payload, this.#sealMac(purpose, caller, payload)]).toString("base64url");
  }

  /** The payload of a token `seal` made for this purpose and caller, or undefined. */
  open(purpose: string, caller: string, token: string): Buffer | undefined {
    const raw = decodeCanonicalToken(token);
    if (raw === undefined || raw.length <= MAC_BYTES) return undefined;
    const payload = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = raw.subarray(raw.length - MAC_BYTES);
    return timingSafeEqual(mac, this.#sealMac(purpose, caller, payload)) ? payload : undefined;
  }

  #mac(body: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(body).digest().subarray(0, MAC_BYTES);
  }

  #sealMac(purpose: string, caller: string, payload: Buffer): Buffer {
    // Length-prefixed, so no purpose/caller/payload split can be read as another.
    const header = Buffer.from(JSON.stringify(["sealed", purpose, caller]));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(header.length);
    return createHmac("sha256", this.#key)
      .update(length)
      .update(header)
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}
