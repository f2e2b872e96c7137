/**
 * Run by facts-bytes.test.ts as a process of its own, with --expose-gc: the syntax layer parses
 * source files of many symbols and import specifiers, keeping their facts, then lets them go;
 * prints what its cache counted for them and what letting them go freed of V8's heap.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSourceDocument } from "../../../src/code/source/document.js";
import { SyntaxLayer } from "../../../src/code/syntax/layer.js";
import { heldBytes } from "../../fixtures/held-bytes.js";

const FILES = 60;

/** A module with imports, classes of methods and functions, names of several lengths. */
function source(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 20; i++) lines.push(`import { thing${i} } from "./module-${n}-${i}-${"x".repeat(i)}";`);
  for (let c = 0; c < 10; c++) {
    lines.push(`export class Component${n}With${"Long".repeat(c)}Name${c} {`);
    for (let m = 0; m < 8; m++)
      lines.push(`  method${m}${"Part".repeat(m)}(a: number): number { return a + ${m}; }`);
    lines.push("}");
  }
  for (let f = 0; f < 20; f++) lines.push(`export function helper${n}_${f}${"y".repeat(f)}(): void {}`);
  return `${lines.join("\n")}\n`;
}

const root = await mkdtemp(join(tmpdir(), "evident-facts-bytes-"));
const layer = new SyntaxLayer({ env: { PATH: process.env.PATH } });
async function parse(name: string, text: string): Promise<void> {
  await writeFile(join(root, name), text);
  const read = await readSourceDocument(join(root, name));
  if (!read.ok) throw new Error(`could not read ${name}`);
  await layer.symbols(read.document);
  await layer.specifiers(read.document);
}

try {
  // The modules and the parser load before anything is measured.
  await parse("warm-up.ts", source(-1));
  const countedBefore = layer.cached.bytes;
  const before = heldBytes();
  for (let n = 0; n < FILES; n++) await parse(`file-${n}.ts`, source(n));
  const full = heldBytes();
  const counted = layer.cached.bytes - countedBefore;
  const entries = layer.cached.entries;
  layer.close();
  const empty = heldBytes();
  process.stdout.write(`${JSON.stringify({ counted, held: full - empty, grew: full - before, entries })}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
