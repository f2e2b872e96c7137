/**
 * The line framing of MCP over stdio, in front of the SDK's stdio transport, so that no input a
 * client sends can end the server or go unanswered. The SDK's transport closes itself (and the
 * server exits, with status 0) on a message over its buffer limit, and drops lines that are not
 * JSON without a word. Here each line is bounded while it is read: a longer one is skipped to
 * its end and answered with a JSON-RPC error, a line that is not JSON is answered -32700, JSON
 * that is no JSON-RPC message (a batch included: stdio serves one message per line) -32600, and
 * only well-formed messages reach the SDK, one line per chunk.
 */
import { PassThrough, type Readable, type Writable } from "node:stream";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { STDIO_MAX_MESSAGE_BYTES } from "../../core/limits.js";
import type { Logger } from "../../core/logger.js";

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export interface FramedInput {
  /** What the SDK transport reads: one well-formed message, newline-terminated, per chunk. */
  readonly messages: Readable;
  /** The largest chunk the SDK transport is handed, newline included (its buffer limit). */
  readonly maxLineBytes: number;
  /** Stops reading stdin (the connection is over). */
  stop(): void;
}

/** A JSON-RPC error answer to a line that is no message. */
interface Answer {
  readonly id: string | number | null;
  readonly code: number;
  readonly message: string;
}

/** What one line of input is: a message for the SDK, an error to answer, or nothing (blank). */
type Verdict =
  | { readonly kind: "message"; readonly line: Buffer }
  | {
      readonly kind: "error";
      readonly answer: Answer;
      readonly note: string;
      readonly fields: Record<string, unknown>;
    }
  | { readonly kind: "blank" };

export function frameStdin(
  stdin: Readable,
  stdout: Writable,
  logger: Logger,
  maxBytes = STDIO_MAX_MESSAGE_BYTES,
): FramedInput {
  // Object mode: each written line stays one chunk, never merged with the next.
  const messages = new PassThrough({ objectMode: true });
  const reply = ({ id, code, message }: Answer) => {
    stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  };
  const onLine = (read: Buffer) => {
    const verdict = judgeLine(read);
    if (verdict.kind === "message") messages.write(verdict.line);
    if (verdict.kind !== "error") return;
    logger.warn(verdict.note, verdict.fields);
    reply(verdict.answer);
  };
  const onOverlong = () => {
    logger.warn("stdio: a message over the size limit was skipped and answered with an error", {
      max_bytes: maxBytes,
    });
    reply({
      id: null,
      code: INVALID_REQUEST,
      message: `Invalid Request: the message exceeds ${maxBytes} bytes and was not read; send smaller arguments.`,
    });
  };
  const lines = boundedLines(maxBytes, onLine, onOverlong);
  const flow = readWhileAnswersFlow(stdin, stdout, logger);
  const onData = (chunk: Buffer) => {
    flow.holdIfBacklogged();
    lines.push(chunk);
  };
  const end = () => {
    if (!messages.writableEnded) messages.end();
  };
  const onError = (error: Error) => messages.destroy(error);
  stdin.on("data", onData);
  stdin.once("end", end);
  stdin.once("close", end);
  stdin.once("error", onError);
  return {
    messages,
    maxLineBytes: maxBytes + 1,
    stop() {
      flow.stop();
      stdin.off("data", onData);
      stdin.off("end", end);
      stdin.off("close", end);
      stdin.off("error", onError);
      if (stdin.listenerCount("data") === 0) stdin.pause();
      end();
    },
  };
}

/**
 * Cuts chunks into lines of at most maxBytes (newline excluded), bounded while read: a longer
 * line is dropped as it arrives and reported once at its end.
 */
function boundedLines(maxBytes: number, onLine: (line: Buffer) => void, onOverlong: () => void) {
  let parts: Buffer[] = [];
  let length = 0;
  let skipping = false;
  return {
    push(chunk: Buffer): void {
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf(NEWLINE, start);
        const stop = end === -1 ? chunk.length : end;
        if (!skipping) {
          length += stop - start;
          if (length > maxBytes) {
            skipping = true;
            parts = [];
          } else {
            parts.push(chunk.subarray(start, stop));
          }
        }
        if (end === -1) break;
        if (skipping) onOverlong();
        else onLine(Buffer.concat(parts, length));
        parts = [];
        length = 0;
        skipping = false;
        start = end + 1;
      }
    },
  };
}

/** What one complete line is, and what to answer when it is no message. */
function judgeLine(read: Buffer): Verdict {
  // A UTF-8 byte-order mark, which some Windows pipes put first, is no part of the message.
  const bytes = read.subarray(0, 3).equals(BOM) ? read.subarray(3) : read;
  const text = bytes.toString("utf8").replace(/\r$/, "");
  if (text.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      kind: "error",
      answer: { id: null, code: PARSE_ERROR, message: "Parse error: the line is not valid JSON." },
      note: "stdio: a line that is not JSON was answered with a parse error",
      fields: { bytes: bytes.length },
    };
  }
  try {
    parseJSONRPCMessage(value);
  } catch {
    const message = Array.isArray(value)
      ? "JSON-RPC batches are not supported over stdio; send one message per line."
      : "Invalid Request: the line is not a JSON-RPC 2.0 message.";
    const id = idOf(value);
    return {
      kind: "error",
      answer: { id, code: INVALID_REQUEST, message },
      note: "stdio: an invalid message was answered with an error",
      fields: { id },
    };
  }
  // The bytes as read (a re-encoding could grow past the SDK's limit), one line per chunk.
  return { kind: "message", line: Buffer.concat([bytes, Buffer.from("\n")]) };
}

/**
 * A client that stops reading our answers while it keeps writing requests would have every
 * answer held in memory. Input is read only while the answers flow: reading resumes once
 * stdout has drained.
 */
function readWhileAnswersFlow(stdin: Readable, stdout: Writable, logger: Logger) {
  let stopped = false;
  const resume = () => {
    if (!stopped) stdin.resume();
  };
  return {
    holdIfBacklogged(): void {
      if (!stdout.writableNeedDrain || stdin.isPaused()) return;
      logger.debug("stdio: the client is not reading the answers; input paused until it does", {
        buffered_bytes: stdout.writableLength,
      });
      stdin.pause();
      stdout.once("drain", resume);
    },
    stop(): void {
      stopped = true;
      stdout.off("drain", resume);
    },
  };
}

/** The id of a message that failed validation, when it has a usable one. */
function idOf(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
