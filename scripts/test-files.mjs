// The test files under each path given (a file or a folder), in a stable order; what a folder
// named fixtures or starting with a dot holds is never a test. Shared by the runner and the
// per-file bench so both run the same set.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function testFiles(roots) {
  return (roots.length > 0 ? roots : ["test"]).flatMap((root) => collect(root, []));
}

function collect(path, out) {
  if (statSync(path).isFile()) {
    if (path.endsWith(".test.ts")) out.push(path);
    return out;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === "fixtures" || entry.startsWith(".")) continue;
    collect(join(path, entry), out);
  }
  return out;
}
