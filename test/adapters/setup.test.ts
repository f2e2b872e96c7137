/**
 * `evident setup` as a person and a script use it: the real Clack prompts driven in a
 * pseudo-terminal (tmux, on a private server socket), and the flag form. The file written is
 * checked as the loader reads it: mode 0600, everything not chosen kept (S07). The flag form runs
 * in this process (test/adapters/run-evident.ts) where what it writes or refuses is the
 * subject; the built executable runs where the process is: an exit status, a standard input
 * that is a pipe, a writer in another process waiting for the lock.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { CONFIG_VERSION } from "../../src/config/schema.js";
import { SAVED_KEY_MAX_CHARS } from "../../src/core/limits.js";
import { missing } from "../fixtures/optional-tools.js";
import { evidentInProcess, withStatus } from "./run-evident.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/adapters/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "evident-setup-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let homes = 0;
/** A config home holding `content` (or nothing), and the path of its config file. */
function home(content?: unknown): { xdg: string; file: string } {
  const xdg = join(dir, `home-${homes++}`);
  const file = join(xdg, "evident", "config.json");
  mkdirSync(join(xdg, "evident"), { recursive: true });
  if (content !== undefined) writeFileSync(file, JSON.stringify(content, null, 2), { mode: 0o600 });
  return { xdg, file };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
/** The error payload a command wrote on stderr (one JSON document). */
const errorOf = (run: { stderr: string }) => JSON.parse(run.stderr).error;
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

/** `evident setup ARGS` in this process. */
function setup(args: string[], xdg: string, input?: string, vars: Record<string, string> = {}) {
  return withStatus(
    evidentInProcess(["setup", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: xdg, ...vars },
      cwd: dir,
      ...(input === undefined ? {} : { input }),
    }),
  );
}

/** `evident setup ARGS` as a process of the built executable. */
function setupProcess(args: string[], xdg: string, input?: string, vars: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, "setup", ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: xdg, ...vars },
    input: input ?? "",
    timeout: 60_000,
  });
}

const CUSTOM_BINDING = {
  type: "mcp",
  connection: { url: "https://mcp.example.internal/mcp" },
  search: { tool: "search", arguments: { q: "$query" }, format: "json" },
};
const SAVED = {
  providers: {
    tavily: { type: "tavily", apiKey: "tvly-saved-key-1234" },
    brave: { type: "brave", apiKey: { env: "BRAVE_SEARCH_API_KEY" } },
    "my-search": CUSTOM_BINDING,
  },
  search: { route: ["tavily", "brave"], intents: { news: ["brave"] } },
  read: { route: ["tavily", "direct"] },
  locale: "en",
};

describe("evident setup by flags", () => {
  it("writes a provider with a credential reference and a complete route, mode 0600 (the executable: exit 0)", () => {
    const { xdg, file } = home();
    const run = setupProcess(
      ["--provider", "tavily", "--key-env", "TAVILY_API_KEY", "--route", "tavily,duckduckgo"],
      xdg,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /evident doctor/);
    assert.deepEqual(readJson(file), {
      version: CONFIG_VERSION,
      providers: { tavily: { type: "tavily", apiKey: { env: "TAVILY_API_KEY" } } },
      search: { route: ["tavily", "duckduckgo"] },
    });
    assert.equal(mode(file), "600");
  });

  it("a route keeps the keyless provider at its end, and setup says what will not work yet and who answers", async () => {
    const { xdg, file } = home();
    const args = ["--provider", "tavily", "--key-env", "TAVILY_API_KEY", "--route", "tavily"];
    const unset = await setup(args, xdg);
    assert.equal(unset.status, 0, unset.stderr);
    assert.deepEqual(readJson(file).search, { route: ["tavily", "duckduckgo"] });
    assert.match(unset.stdout, /^web_search: tavily -> duckduckgo$/m);
    assert.match(unset.stdout, /^ {2}tavily: the environment variable TAVILY_API_KEY is not set/m);
    assert.match(unset.stdout, /^Until then web_search answers from duckduckgo\.$/m);
    assert.match(unset.stdout, /evident doctor/);
    // With the key in the environment nothing is reported; the read route gets `direct` at its end.
    const set = await setup([...args, "--read-route", "tavily"], xdg, "", {
      TAVILY_API_KEY: "tvly-dev-0123456789abcdef",
    });
    assert.equal(set.status, 0, set.stderr);
    assert.doesNotMatch(set.stdout, /Not usable yet/);
    assert.match(set.stdout, /^web_read: tavily -> direct$/m);
    assert.deepEqual(readJson(file).read, { route: ["tavily", "direct"] });
  });

  it("--no-keyless saves the routes exactly as given, and setup says every search fails until the key is set", async () => {
    const { xdg, file } = home();
    const run = await setup(
      ["--provider", "tavily", "--key-env", "TAVILY_API_KEY", "--route", "tavily", "--no-keyless"],
      xdg,
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readJson(file).search, { route: ["tavily"] });
    assert.match(run.stdout, /^Until then every web_search call fails with configuration_error\.$/m);
    const alone = await setup(["--no-keyless"], xdg);
    assert.equal(alone.status, 2);
    assert.equal(errorOf(alone).field, "--no-keyless");
  });

  it("a placeholder key in the environment is named as one, never echoed", async () => {
    const { xdg } = home();
    const run = await setup(
      ["--provider", "tavily", "--key-env", "TAVILY_API_KEY", "--route", "tavily"],
      xdg,
      "",
      {
        TAVILY_API_KEY: "<tavily-key-goes-here-0123>",
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /TAVILY_API_KEY \(providers\.tavily\.apiKey\) holds a placeholder, not a key/);
    assert.ok(!run.stdout.includes("tavily-key-goes-here-0123"), run.stdout);
  });

  it("S07: adding a provider keeps saved keys, custom bindings, routes and intents, and adds no fallback", async () => {
    const { xdg, file } = home(SAVED);
    const run = await setup(
      ["--provider", "exa", "--key-stdin", "--read-route", "exa,direct"],
      xdg,
      "exa-key-from-stdin\n",
    );
    assert.equal(run.status, 0, run.stderr);
    const saved = readJson(file);
    assert.deepEqual(saved.providers.tavily, SAVED.providers.tavily);
    assert.deepEqual(saved.providers.brave, SAVED.providers.brave);
    assert.deepEqual(saved.providers["my-search"], CUSTOM_BINDING);
    assert.deepEqual(saved.providers.exa, { type: "exa", apiKey: "exa-key-from-stdin" });
    assert.deepEqual(saved.search, SAVED.search);
    assert.deepEqual(saved.read, { route: ["exa", "direct"] });
    assert.equal(saved.locale, "en");
    assert.ok(!run.stdout.includes("exa-key-from-stdin"));
  });

  it("binds an MCP preset and sets the locale and an intent route", async () => {
    const { xdg, file } = home(SAVED);
    const run = await setup(
      ["--provider", "mcp-exa-hosted", "--intent", "code=mcp-exa-hosted", "--locale", "zh-CN"],
      xdg,
    );
    assert.equal(run.status, 0, run.stderr);
    const saved = readJson(file);
    assert.deepEqual(saved.providers["mcp-exa-hosted"], { type: "mcp", preset: "exa-hosted" });
    assert.deepEqual(saved.search.intents, { news: ["brave"], code: ["mcp-exa-hosted"] });
    assert.equal(saved.locale, "zh-CN");
  });

  it("refuses what the loader would refuse, writing nothing; bad flags are exit 2", async () => {
    const { xdg, file } = home(SAVED);
    const before = readFileSync(file, "utf8");
    // The executable's exit status for a refusal; the rest in this process.
    const invalid = setupProcess(["--provider", "searxng", "--base-url", "ftp://searx.example"], xdg);
    assert.equal(invalid.status, 1);
    assert.match(invalid.stderr, /providers\.searxng\.baseUrl/);
    const retyped = await setup(["--provider", "brave", "--type", "tavily"], xdg);
    assert.equal(retyped.status, 1);
    assert.match(retyped.stderr, /of type brave/);
    // What only loading finds: a route naming a provider that exists nowhere.
    const unknownRoute = await setup(
      ["--provider", "exa", "--key-env", "EXA_API_KEY", "--route", "exa,nope"],
      xdg,
    );
    assert.equal(unknownRoute.status, 1, unknownRoute.stderr);
    assert.match(errorOf(unknownRoute).message, /search\.route\[1\]: unknown provider "nope"/);
    assert.match(errorOf(unknownRoute).message, /nothing was written/);
    assert.equal(readFileSync(file, "utf8"), before);
    assert.deepEqual(readdirSync(join(xdg, "evident")), ["config.json"], "no trial file left behind");
    assert.equal((await setup(["--bogus"], xdg)).status, 2);
    assert.equal((await setup(["--key-env", "X"], xdg)).status, 2, "a key without --provider");
    assert.equal((await setup(["--provider", "tavily", "--locale", "fr"], xdg)).status, 2);
    // Not a name an object can keep: it said Saved and saved nothing.
    const proto = await setup(["--intent", "__proto__=duckduckgo"], xdg);
    assert.equal(proto.status, 2, proto.stdout);
    assert.equal(readFileSync(file, "utf8"), before);
  });

  it("answers every error as the shared payload with a stable code, as the other commands do", async () => {
    const { xdg, file } = home(SAVED);
    const before = readFileSync(file, "utf8");
    const cases: [string[], string, string, number][] = [
      [["--bogus"], "invalid_arguments", "--bogus", 2],
      [["--route", "tavily", "--route", "brave"], "invalid_arguments", "--route", 2],
      [["--key-env", "X"], "invalid_arguments", "--provider", 2],
      [["--provider", "tavily", "--locale", "fr"], "invalid_arguments", "--locale", 2],
      [[], "invalid_arguments", "(arguments)", 2],
    ];
    for (const [args, code, field, status] of cases) {
      const run = await setup(args, xdg);
      assert.equal(run.status, status, `${args.join(" ")}: ${run.stderr}`);
      const error = errorOf(run);
      assert.deepEqual([error.code, error.field], [code, field], args.join(" "));
      assert.equal(run.stdout, "");
    }
    // What only loading finds is the loader's own code and key.
    const unknownRoute = await setup(["--route", "tavily,nope"], xdg);
    assert.equal(unknownRoute.status, 1);
    assert.deepEqual(
      [errorOf(unknownRoute).code, errorOf(unknownRoute).key],
      ["configuration_error", "search.route[1]"],
    );
    assert.equal(readFileSync(file, "utf8"), before);
  });

  it("refuses an intent name holding a control character, naming it escaped; nothing is written", async () => {
    const { xdg, file } = home(SAVED);
    const before = readFileSync(file, "utf8");
    for (const name of ["ne\u0007ws", "a\u001b[2Jb", "tab\tbed", "del\u007f"]) {
      const run = await setup(["--intent", `${name}=duckduckgo`], xdg);
      assert.equal(run.status, 2, run.stderr);
      const error = errorOf(run);
      assert.equal(error.code, "invalid_arguments");
      assert.equal(
        error.message,
        `--intent ${JSON.stringify(name)}: an intent name has no control characters.`,
      );
      assert.equal(readFileSync(file, "utf8"), before);
    }
    assert.equal(
      (await setup(["--intent", "news-2=duckduckgo"], xdg)).status,
      0,
      "an ordinary name is saved",
    );
    assert.deepEqual(readJson(file).search.intents["news-2"], ["duckduckgo"]);
  });

  it("without flags and without a terminal it refuses with exit 2 instead of waiting", () => {
    const { xdg, file } = home();
    // The executable, its standard input a pipe.
    const run = setupProcess([], xdg);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /not one\. Give flags instead/);
    assert.throws(() => statSync(file), /ENOENT/);
  });

  it("S07: eight setups at once each keep their provider and key (none silently lost)", async () => {
    const { xdg, file } = home(SAVED);
    const ids = Array.from({ length: 8 }, (_, i) => `extra-${i}`);
    // In this process their reads and writes interleave at every await, so without the lock
    // most updates are lost; the lock protocol on disk is the one separate processes meet.
    const runs = await Promise.all(
      ids.map((id) => setup(["--provider", id, "--type", "tavily", "--key-stdin"], xdg, `key-of-${id}\n`)),
    );
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    const saved = readJson(file);
    for (const id of ids) assert.equal(saved.providers[id]?.apiKey, `key-of-${id}`, `${id} was lost`);
    assert.deepEqual(saved.providers.tavily, SAVED.providers.tavily);
    assert.deepEqual(readdirSync(join(xdg, "evident")), ["config.json"], "no lock left behind");
  });

  it("S07: a setup in another process waits while a live process holds the lock, then reads what that one wrote", async () => {
    const { xdg, file } = home(SAVED);
    const folder = join(xdg, "evident");
    // This process holds the lock, as a writer does: its pid, alive.
    writeFileSync(`${file}.lock`, String(process.pid));
    // A writer waiting for the lock has put its own pid file beside it (config.json.lock.PID-...).
    const watcher = watch(folder);
    const waiting = () => readdirSync(folder).some((name) => name.startsWith("config.json.lock."));
    const run = setupAsync(["--provider", "extra", "--type", "tavily", "--key-stdin"], xdg, "key-of-extra\n");
    try {
      await Promise.race([
        new Promise<void>((done) => {
          const check = () => {
            if (waiting()) done();
          };
          watcher.on("change", check);
          check();
        }),
        run.then((outcome) => assert.fail(`setup ended while the lock was held: ${JSON.stringify(outcome)}`)),
      ]);
    } finally {
      watcher.close();
    }
    // What the holder writes before it lets go must not be lost to the waiting writer.
    const held = {
      ...SAVED,
      providers: { ...SAVED.providers, held: { type: "exa", apiKey: "exa-held-key" } },
    };
    writeFileSync(file, JSON.stringify(held), { mode: 0o600 });
    rmSync(`${file}.lock`);
    const outcome = await run;
    assert.equal(outcome.status, 0, outcome.stderr);
    const saved = readJson(file);
    assert.deepEqual(saved.providers.extra, { type: "tavily", apiKey: "key-of-extra" });
    assert.deepEqual(saved.providers.held, held.providers.held);
    assert.deepEqual(saved.providers.tavily, SAVED.providers.tavily);
    assert.deepEqual(readdirSync(folder), ["config.json"], "no lock left behind");
  });

  it("refuses a saved key holding a control character or a space, naming the key; nothing is written", async () => {
    const { xdg, file } = home(SAVED);
    const before = readFileSync(file, "utf8");
    for (const key of ["tvly-\u0001\u0002secret", "two words"]) {
      const run = await setup(["--provider", "exa", "--key-stdin"], xdg, `${key}\n`);
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /providers\.exa\.apiKey: a saved key is one word/);
      assert.equal(readFileSync(file, "utf8"), before);
    }
  });

  it("--key-stdin reads at most SAVED_KEY_MAX_CHARS bytes: an endless pipe is refused, not held", async () => {
    const { xdg, file } = home(SAVED);
    const before = readFileSync(file, "utf8");
    const long = await setup(["--provider", "exa", "--key-stdin"], xdg, "k".repeat(SAVED_KEY_MAX_CHARS + 1));
    assert.equal(long.status, 2, long.stderr);
    assert.match(long.stderr, /--key-stdin read more than 4096 bytes/);
    assert.equal(readFileSync(file, "utf8"), before);
    const longest = await setup(["--provider", "exa", "--key-stdin"], xdg, "k".repeat(SAVED_KEY_MAX_CHARS));
    assert.equal(longest.status, 0, longest.stderr);
    assert.equal(readJson(file).providers.exa.apiKey.length, SAVED_KEY_MAX_CHARS);
  });

  it("a config path whose directory cannot be created says why", async () => {
    const blocker = join(dir, `not-a-dir-${homes++}`);
    writeFileSync(blocker, "");
    const run = await withStatus(
      evidentInProcess(["setup", "--locale", "en"], {
        env: { PATH: process.env.PATH ?? "", HOME: dir, EVIDENT_CONFIG: join(blocker, "config.json") },
        cwd: dir,
      }),
    );
    assert.equal(run.status, 1);
    assert.match(run.stderr, /directory .*not-a-dir-\d+\/?\S* is not a directory; nothing was written/);
  });

  it("a lock left by a process that is gone is taken over", async () => {
    const { xdg, file } = home(SAVED);
    const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid;
    writeFileSync(`${file}.lock`, String(gone));
    const run = await setup(["--locale", "zh-CN"], xdg);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readJson(file).locale, "zh-CN");
    assert.deepEqual(readdirSync(join(xdg, "evident")), ["config.json"]);
  });

  it("an empty lock (a writer killed before writing its pid) is taken over at once, not after a minute", async () => {
    const { xdg, file } = home(SAVED);
    // A live writer's lock always holds its pid, so an empty or unreadable one was never a live writer's.
    for (const content of ["", "not a pid"]) {
      writeFileSync(`${file}.lock`, content);
      const run = await setup(["--locale", content === "" ? "zh-CN" : "en"], xdg);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readJson(file).locale, content === "" ? "zh-CN" : "en");
      assert.deepEqual(readdirSync(join(xdg, "evident")), ["config.json"], "no lock or lock file left");
    }
  });

  it("a config file that is a symbolic link is not replaced: nothing is written, the link stays", async () => {
    const { xdg, file } = home();
    const target = join(dir, `dotfiles-${homes}.json`);
    writeFileSync(target, JSON.stringify(SAVED), { mode: 0o600 });
    symlinkSync(target, file);
    const run = await setup(["--locale", "zh-CN"], xdg);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /is a symbolic link to .*nothing was written.*EVIDENT_CONFIG/);
    assert.ok(lstatSync(file).isSymbolicLink());
    assert.deepEqual(readJson(target), SAVED);
    // The file it points to, named directly, is written as any other.
    const direct = await withStatus(
      evidentInProcess(["setup", "--locale", "zh-CN"], {
        env: { PATH: process.env.PATH ?? "", HOME: dir, EVIDENT_CONFIG: target },
        cwd: dir,
      }),
    );
    assert.equal(direct.status, 0, direct.stderr);
    assert.equal(readJson(target).locale, "zh-CN");
  });
});

function setupAsync(args: string[], xdg: string, input: string) {
  return new Promise<{ status: number | null; stderr: string }>((done, failed) => {
    const child = spawn(process.execPath, [CLI, "setup", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: xdg },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", failed);
    child.on("close", (status) => done({ status, stderr }));
    child.stdin.end(input);
  });
}

/** A pseudo-terminal: tmux on a server socket of this test's own, polled for what is shown. */
class Terminal {
  readonly #socket = `evident-setup-${process.pid}-${Math.random().toString(36).slice(2)}`;
  #started = false;

  #tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.#socket, ...args], { encoding: "utf8" });
  }

  start(command: string): void {
    this.#tmux("new-session", "-d", "-x", "160", "-y", "60", command);
    this.#started = true;
  }

  screen(): string {
    return this.#tmux("capture-pane", "-p", "-S", "-200");
  }

  /**
   * Resolves once `text` is on screen (the prompt has been drawn). The limit only turns a prompt
   * that never comes into a named failure: far above a start on a loaded machine.
   */
  async waitFor(text: string): Promise<void> {
    const until = Date.now() + 120_000;
    while (!this.screen().includes(text)) {
      if (Date.now() > until) assert.fail(`"${text}" never appeared:\n${this.screen()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  keys(...keys: string[]): void {
    this.#tmux("send-keys", ...keys);
  }

  type(text: string): void {
    this.#tmux("send-keys", "-l", text);
  }

  close(): void {
    if (this.#started) this.#tmux("kill-server");
  }
}

describe("evident setup at a terminal", { skip: missing("tmux") }, () => {
  it("S07: the prompts keep what was saved, take a masked key and a locale, and write 0600", async () => {
    const { xdg, file } = home(SAVED);
    const terminal = new Terminal();
    try {
      terminal.start(
        `env -i PATH='${process.env.PATH}' HOME='${dir}' XDG_CONFIG_HOME='${xdg}' TERM=xterm-256color ${process.execPath} ${CLI} setup; echo "SETUP-EXIT:$?"; sleep 600`,
      );
      await terminal.waitFor("Which providers should evident use?");
      // tavily and brave are selected already (they are in the file); add exa (third).
      terminal.keys("Down", "Down", "Space", "Enter");
      await terminal.waitFor("tavily: how should evident get its key?");
      assert.match(terminal.screen(), /keep the saved key \(\*\*\*\*1234\)/);
      terminal.keys("Enter");
      await terminal.waitFor("brave: how should evident get its key?");
      terminal.keys("Enter"); // keep reading it from $BRAVE_SEARCH_API_KEY
      await terminal.waitFor("exa: how should evident get its key?");
      terminal.keys("Down", "Enter"); // save it in the config file
      await terminal.waitFor("exa: API key (not shown)");
      terminal.type("exa-typed-key-5678");
      terminal.keys("Enter");
      await terminal.waitFor("Keep the search route tavily -> brave?");
      terminal.keys("Enter");
      await terminal.waitFor("Set a search route for an intent");
      terminal.keys("Enter"); // no
      await terminal.waitFor("Keep the read route tavily -> direct?");
      terminal.keys("Enter");
      await terminal.waitFor("Interface locale");
      terminal.keys("Down", "Enter");
      await terminal.waitFor("SETUP-EXIT:0");
      assert.ok(!terminal.screen().includes("exa-typed-key-5678"), "the key was echoed");
    } finally {
      terminal.close();
    }
    const saved = readJson(file);
    assert.deepEqual(saved.providers.tavily, SAVED.providers.tavily);
    assert.deepEqual(saved.providers.brave, SAVED.providers.brave);
    assert.deepEqual(saved.providers["my-search"], CUSTOM_BINDING);
    assert.deepEqual(saved.providers.exa, { type: "exa", apiKey: "exa-typed-key-5678" });
    assert.deepEqual(saved.search, SAVED.search);
    assert.deepEqual(saved.read, SAVED.read);
    assert.equal(saved.locale, "zh-CN");
    assert.equal(mode(file), "600");
  });

  it("builds a route one provider at a time: the keyless provider is the offered fallback, no vendor is added unless chosen; Ctrl-C writes nothing", async () => {
    const { xdg, file } = home();
    const terminal = new Terminal();
    try {
      terminal.start(
        `env -i PATH='${process.env.PATH}' HOME='${dir}' XDG_CONFIG_HOME='${xdg}' TERM=xterm-256color ${process.execPath} ${CLI} setup; echo "SETUP-EXIT:$?"; sleep 600`,
      );
      await terminal.waitFor("Which providers should evident use?");
      terminal.keys("Space", "Enter"); // tavily
      await terminal.waitFor("tavily: how should evident get its key?");
      terminal.keys("Enter"); // from an environment variable
      await terminal.waitFor("environment variable holding the key");
      terminal.keys("Enter"); // TAVILY_API_KEY, offered
      await terminal.waitFor("search route: first provider");
      terminal.keys("Down", "Enter"); // duckduckgo, tavily: the second
      await terminal.waitFor("duckduckgo (keyless: answers when tavily cannot)");
      terminal.keys("Enter"); // the offered fallback; nothing is left to add
      await terminal.waitFor("Set a search route for an intent");
      terminal.keys("Enter");
      await terminal.waitFor("read route: first provider");
      terminal.keys("Down", "Enter"); // direct, tavily: the second
      // Not "Fallback if it fails?" alone: the search route's question is still on screen, so a
      // wait for it would return at once and the next key could reach the previous prompt.
      await terminal.waitFor("read route so far: tavily. Fallback if it fails?");
      terminal.keys("Down", "Enter"); // "no fallback", chosen over the offered direct
      await terminal.waitFor("Interface locale");
      terminal.keys("Enter");
      await terminal.waitFor("SETUP-EXIT:0");
      // What will not work yet is said before the prompts end.
      assert.match(terminal.screen(), /TAVILY_API_KEY is not set/);
      assert.match(terminal.screen(), /Until then web_search answers from duckduckgo/);
    } finally {
      terminal.close();
    }
    const saved = readJson(file);
    assert.deepEqual(saved.providers, { tavily: { type: "tavily", apiKey: { env: "TAVILY_API_KEY" } } });
    assert.deepEqual(saved.search.route, ["tavily", "duckduckgo"]);
    assert.deepEqual(saved.read.route, ["tavily"]);

    const again = new Terminal();
    const before = readFileSync(file, "utf8");
    try {
      again.start(
        `env -i PATH='${process.env.PATH}' HOME='${dir}' XDG_CONFIG_HOME='${xdg}' TERM=xterm-256color ${process.execPath} ${CLI} setup; echo "SETUP-EXIT:$?"; sleep 600`,
      );
      await again.waitFor("Which providers should evident use?");
      again.keys("C-c");
      await again.waitFor("SETUP-EXIT:1");
      assert.match(again.screen(), /nothing was written/);
    } finally {
      again.close();
    }
    assert.equal(readFileSync(file, "utf8"), before);
  });
});
