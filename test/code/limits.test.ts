import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";

/** Constants that describe a wire format, not a limit or a default. */
const FORMAT_CONSTANTS = new Set([
  // cursor and Redis codecs: format version, MAC, header and signature layout.
  "VERSION",
  "MAC_BYTES",
  "HEADER_BYTES",
  "SELECTION_SIGNATURE_BYTES",
]);

describe("code_search limits", () => {
  it("G14: every numeric limit of src/code comes from src/core/limits.ts", async () => {
    const dir = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../src/code");
    const offenders: string[] = [];
    const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith(".ts"));
    assert.ok(files.length > 20, "the walk reaches the subsystem folders");
    for (const file of files) {
      const source = await readFile(join(dir, file), "utf8");
      for (const match of source.matchAll(/^(?:export )?const ([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=\s*[\d(]/gm)) {
        const name = match[1] as string;
        if (!FORMAT_CONSTANTS.has(name)) offenders.push(`${file}: ${name}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
