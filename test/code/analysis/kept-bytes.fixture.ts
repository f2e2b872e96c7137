/**
 * Run by kept-bytes.test.ts as a process of its own, with --expose-gc (the test runner cannot
 * collect in full): an anyOf analysis over the tree at `argv[2]` is kept in a memory store, then
 * let go of; prints what the store counted for it and what letting it go freed of V8's heap and
 * buffers.
 */
import { memoryKept, snapshotStore } from "../../../src/code/snapshots/store.js";
import { ctx, makeService } from "../service-helpers.js";

const gc = (globalThis as { gc?: () => void }).gc as () => void;
const held = (): number => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const kept = memoryKept();
const service = makeService(process.argv[2] as string, { store: snapshotStore(kept) });
// The modules load and the code settles before anything is measured.
await service.run({ anyOf: ["warm", "up"] }, ctx());
const countedBefore = kept.bytes;
const answer = await service.run({ anyOf: ["alpha", "beta", "gamma"] }, ctx());
const full = held();
const counted = kept.bytes - countedBefore;
await kept.close();
const empty = held();
process.stdout.write(`${JSON.stringify({ counted, held: full - empty, items: answer.data.totalItems })}\n`);
await service.close();
