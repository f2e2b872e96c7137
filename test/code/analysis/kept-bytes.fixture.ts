/**
 * Run by kept-bytes.test.ts as a process of its own, with --expose-gc (the test runner cannot
 * collect in full): an anyOf analysis over the tree at `argv[2]` is kept in a memory store, then
 * let go of; prints what the store counted for it and what letting it go freed of V8's heap and
 * buffers.
 */
import { memoryKept, snapshotStore } from "../../../src/code/snapshots/store.js";
import { heldBytes } from "../../fixtures/held-bytes.js";
import { ctx, makeService } from "../service-helpers.js";

const kept = memoryKept();
const service = makeService(process.argv[2] as string, { store: snapshotStore(kept) });
// The modules load and the code settles before anything is measured.
await service.run({ anyOf: ["warm", "up"] }, ctx());
const countedBefore = kept.bytes;
const answer = await service.run({ anyOf: ["alpha", "beta", "gamma"] }, ctx());
const full = heldBytes();
const counted = kept.bytes - countedBefore;
await kept.close();
const empty = heldBytes();
process.stdout.write(`${JSON.stringify({ counted, held: full - empty, items: answer.data.totalItems })}\n`);
await service.close();
