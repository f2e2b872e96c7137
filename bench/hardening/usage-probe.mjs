// Measurement only, preloaded into a server by bench/hardening/mix.ts --usage (NODE_OPTIONS=--import):
// on SIGUSR2 the process writes one line to stderr with process.memoryUsage() split into V8's
// heap, external memory and ArrayBuffers, and V8's spaces (committed and used), in MB. It changes
// no setting and collects nothing.
import { getHeapSpaceStatistics } from "node:v8";

const mb = (bytes) => Math.round(bytes / 104_857.6) / 10;
process.on("SIGUSR2", () => {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [
      s.space_name.replace(/_space$/, ""),
      `${mb(s.space_used_size)}/${mb(s.physical_space_size)}`,
    ]),
  );
  process.stderr.write(
    `usage: rss ${mb(usage.rss)} heapTotal ${mb(usage.heapTotal)} heapUsed ${mb(usage.heapUsed)} ` +
      `external ${mb(usage.external)} arrayBuffers ${mb(usage.arrayBuffers)} spaces(used/resident) ${JSON.stringify(spaces)}\n`,
  );
});
