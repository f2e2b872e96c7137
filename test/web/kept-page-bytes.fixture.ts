/**
 * Run by kept-page-bytes.test.ts as a process of its own, with --expose-gc (the test runner cannot
 * collect in full): pages whose title and metadata are cut from a large source, as a reader cuts
 * them from a page's HTML, are kept in a memory store and then let go of; prints what the store
 * counted for them and what letting them go freed of V8's heap and buffers.
 */
import { redoErrors } from "../../src/core/kept.js";
import { KeptPool, MemoryKeptStore } from "../../src/core/kept-memory.js";
import { type KeptPage, ReadPages } from "../../src/web/read-pages.js";
import { heldBytes } from "../fixtures/held-bytes.js";

const PAGES = 40;
const pool = new KeptPool();
const store = new MemoryKeptStore<KeptPage>({
  ttlMs: 60_000,
  maxBytes: 64 * 1024 * 1024,
  errors: redoErrors("read the URL again"),
  pool,
});
const pages = new ReadPages(store);

/** A page as a reader makes it: its text built apart, its title and byline cut from the source. */
function page(n: number): KeptPage {
  // Flat, one byte a character, and a string of its own per page (no two pages share it).
  const source = Buffer.alloc(200_000, `<p>source ${n} </p>`).toString("latin1");
  const title = source.slice(3, 60);
  const byline = source.slice(60, 100);
  return {
    provenance: {
      tool: "web_read",
      url: `https://example.com/${n}`,
      mode: "route",
      attempted: ["direct"],
      used: ["direct"],
      anonymous: ["direct"],
      retrievedAt: new Date(0).toISOString(),
    },
    title,
    metadata: { byline },
    warnings: [],
    text: Buffer.alloc(8_000, `line ${n} of the page\n`).toString("latin1"),
  };
}

// The modules load and the code settles before anything is measured.
await pages.keep("warm-up", page(-1));
const countedBefore = pool.bytes;
for (let n = 0; n < PAGES; n++) await pages.keep("alice", page(n));
const full = heldBytes();
const counted = pool.bytes - countedBefore;
await pages.close();
const empty = heldBytes();
process.stdout.write(`${JSON.stringify({ counted, held: full - empty, pages: PAGES })}\n`);
