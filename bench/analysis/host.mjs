// A measuring process for bench.ts, driven by one JSON request per stdin line and answering one
// JSON line per request, each timed here (so the pipe to the bench is not part of it).
//
//   node host.mjs base        the baselines: commands run to their end, output read and discarded
//   node host.mjs sdk         code_search in process, as an SDK user runs it (built dist/)
//
// Each subject gets a process of its own because starting a child costs time in proportion to
// the memory of the process that starts it (fork copies its page tables): commands launched
// from the benchmark's own process would pay for everything the benchmark holds.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./cpu.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const [mode] = process.argv.slice(2);

/** Runs one command to its end; resolves with its whole output. */
function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  const cpuStart = cpuMs();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: cpuMs() - cpuStart, value };
}

let handle;
if (mode === "base") {
  handle = async ({ steps, concurrency }) => {
    // Each step a command, one after the other; `filesFromPrevious` passes the previous output
    // (the files `git diff --name-only` names that still exist) as the command's last arguments.
    // With `concurrency`, the steps are independent commands run at most that many at once.
    const measured = await timed(async () => {
      if (concurrency !== undefined) {
        let next = 0;
        let bytes = 0;
        const worker = async () => {
          while (next < steps.length) {
            const step = steps[next++];
            bytes += (await run(step.command, step.args, step.cwd)).length;
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, steps.length) }, worker));
        return { bytes };
      }
      let previous;
      let bytes = 0;
      for (const step of steps) {
        const args = step.filesFromPrevious
          ? [...step.args, ...previous.toString("utf8").split("\n").filter(Boolean)]
          : step.args;
        previous = await run(step.command, args, step.cwd);
        bytes = previous.length;
      }
      return { bytes, output: steps.at(-1)?.keep ? previous.toString("utf8") : undefined };
    });
    return { ms: measured.ms, cpuMs: measured.cpuMs, ...measured.value };
  };
} else if (mode === "sdk") {
  const { CodeSearchService } = await import(`${root}dist/code/service.js`);
  const { silentLogger } = await import(`${root}dist/core/logger.js`);
  const services = new Map();
  const serviceFor = (cwd) => {
    let service = services.get(cwd);
    if (service === undefined) {
      // As the SDK and the servers build it.
      service = new CodeSearchService({ cwd, env: process.env, logger: silentLogger });
      services.set(cwd, service);
    }
    return service;
  };
  const call = () => ({ caller: "bench", signal: new AbortController().signal });
  handle = async ({ cwd, input, walk }) => {
    const service = serviceFor(cwd);
    const first = await timed(() => service.run(input, call()));
    const data = first.value.data;
    const result = {
      ms: first.ms,
      cpuMs: first.cpuMs,
      bytes: Buffer.byteLength(first.value.text),
      totalItems: data.totalItems,
      totalMatches: data.totalMatches,
      totalFiles: data.totalFiles,
      filesChanged: data.changes?.filesChanged,
      status: data.status,
    };
    if (!walk) return result;
    // Every page by cursor: how many occurrences and related tests are reachable.
    const counted = { pages: 1, occurrences: 0, tests: 0 };
    const count = (d) => {
      for (const item of d.items ?? []) {
        if (item.kind === "occurrence") counted.occurrences++;
        if (item.kind === "test") counted.tests++;
      }
    };
    count(data);
    const pages = await timed(async () => {
      let page = first.value;
      while (page.data.cursor !== undefined) {
        page = await service.run({ cursor: page.data.cursor }, call());
        counted.pages++;
        count(page.data);
      }
    });
    return { ...result, walkMs: pages.ms, ...counted };
  };
} else {
  console.error("usage: node host.mjs base | sdk");
  process.exit(2);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  try {
    process.stdout.write(`${JSON.stringify(await handle(JSON.parse(line)))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error?.message ?? error) })}\n`);
  }
}
