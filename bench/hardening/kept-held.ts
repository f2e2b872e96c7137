/**
 * What the kept store counts against what it holds (issue 32; not a test): code_search's service
 * in this process, over the `typescript` package's sources (as mix.ts searches them), runs new
 * searches until its memory store has evicted, then compares the store's count (`bytes`) with
 * what V8's heap and the ArrayBuffers hold more than after the store let go of everything
 * (full collections between readings: this script is run with --expose-gc; the server never is).
 *
 * Usage: node --expose-gc --import tsx bench/hardening/kept-held.ts [--searches 80] [--corpus DIR]
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeSearchService } from "../../src/code/service.js";
import { memoryKept, snapshotStore } from "../../src/code/snapshots/store.js";
import { silentLogger } from "../../src/core/logger.js";
import { seeded } from "../../test/fixtures/seeded.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const SEARCHES = Number(option("--searches") ?? 80);
const root = option("--corpus") ?? join(repo, "bench/.corpora/typescript-5.9.3/package");
const WORDS = [
  "createSourceFile",
  "SyntaxKind",
  "getTypeOfSymbol",
  "Diagnostics",
  "checkExpression",
  "emitFile",
  "isIdentifier",
  "forEachChild",
  "TypeFlags",
  "NodeFlags",
  "visitNode",
  "factory",
  "signature",
  "declaration",
  "transform",
  "interface",
  "function ",
];
const GLOBS = ["lib/*.d.ts", "lib/*.js", "lib/lib.*.d.ts", "!lib/_tsc.js", "lib/typescript.*"];
const random = seeded(1);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const held = (): number => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

const kept = memoryKept();
const service = new CodeSearchService({
  cwd: root,
  env: { PATH: process.env.PATH },
  logger: silentLogger,
  store: snapshotStore(kept),
});
const call = { caller: "c", signal: new AbortController().signal };
await service.run({ pattern: "warm-up" }, call);
for (let n = 0; n < SEARCHES; n++) {
  const word = pick(WORDS);
  const pattern = random() < 0.5 ? `${word}|${pick(WORDS)}${n}` : word;
  await service.run({ pattern, ...(random() < 0.4 ? { glob: [pick(GLOBS)] } : {}) }, call);
}
const full = held();
const counted = kept.bytes;
const values = kept.size;
await kept.close();
const empty = held();
console.log(
  `${SEARCHES} searches: the store counts ${mb(counted)} MB for ${values} results; letting them go frees ${mb(full - empty)} MB (V8 heap used + ArrayBuffers, after full collections); held / counted ${((full - empty) / counted).toFixed(2)}`,
);
await service.close();
