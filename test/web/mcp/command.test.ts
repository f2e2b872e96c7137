/**
 * A stdio binding's command given by bare name (`npx` in the presets) is found in PATH's
 * absolute entries only, and the child gets only those: a relative entry such as
 * `./node_modules/.bin` names the working directory, often a repository with programs of its own.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { silentLogger } from "../../../src/core/logger.js";
import { ProviderError } from "../../../src/web/provider.js";
import { createMcpProvider } from "../../../src/web/providers/mcp/provider.js";
import { unusedHttp } from "./context.js";
import { stdioUpstream, UPSTREAM_SCRIPT } from "./fixtures/stdio-upstream.js";

/** What the repository's programs wrote: empty when none ran. */
function ran(marker: string): string {
  try {
    return readFileSync(marker, "utf8");
  } catch {
    return "";
  }
}

describe("mcp upstream command lookup", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A repository with its own `npx` and `node` in node_modules/.bin, and a trusted bin dir. */
  function world() {
    const dir = mkdtempSync(join(tmpdir(), "evident-mcp-command-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const repo = join(dir, "repo");
    const trusted = join(dir, "bin");
    const marker = join(dir, "repository-program-ran");
    mkdirSync(join(repo, "node_modules/.bin"), { recursive: true });
    mkdirSync(trusted);
    for (const name of ["npx", "node"]) {
      const fake = join(repo, "node_modules/.bin", name);
      // Each writes a marker, then does the real work, so the call itself would still succeed.
      writeFileSync(fake, `#!/bin/sh\necho "$0" >> '${marker}'\nexec '${process.execPath}' "$@"\n`);
      chmodSync(fake, 0o755);
    }
    // The trusted `npx` runs `node` by name, as the real npx does through its `#!/usr/bin/env node`.
    writeFileSync(join(trusted, "npx"), `#!/bin/sh\nexec node "$@"\n`);
    chmodSync(join(trusted, "npx"), 0o755);
    symlinkSync(process.execPath, join(trusted, "node"));
    return { repo, trusted, marker };
  }

  function provider(connection: Record<string, unknown>) {
    const created = createMcpProvider("fixture", {
      type: "mcp",
      preset: "exa",
      connection: connection as never,
    });
    cleanups.push(() => created.close());
    return created;
  }

  const search = (p: ReturnType<typeof provider>) => {
    assert.ok(p.search);
    return p.search(
      { query: "q", maxResults: 1 },
      { signal: new AbortController().signal, http: unusedHttp, logger: silentLogger },
    );
  };

  it("runs neither a command nor what it runs by name from a relative PATH entry", async () => {
    const { repo, trusted, marker } = world();
    const upstream = stdioUpstream();
    cleanups.push(() => upstream.dispose());
    const p = provider({
      command: "npx",
      args: [UPSTREAM_SCRIPT],
      cwd: repo,
      env: { ...upstream.connection.env, PATH: `./node_modules/.bin:${trusted}` },
    });
    const outcome = await search(p);
    assert.equal(outcome.results.length, 1);
    assert.equal(ran(marker), "", "a program of the repository ran");
  });

  it("a command found in no absolute PATH entry is a configuration failure naming it", async () => {
    const { repo, marker } = world();
    const p = provider({ command: "npx", args: [], cwd: repo, env: { PATH: "./node_modules/.bin" } });
    const error = await search(p).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "configuration");
    assert.match(error.reason, /upstream command "npx" is not on PATH \(its absolute entries\)/);
    assert.equal(p.connectCount, 1);
    assert.equal(ran(marker), "", "the repository's npx ran");
  });
});
