/**
 * The Pi extension inside a real Pi agent session (the `@mariozechner/pi-coding-agent` package,
 * its resource loader and tool interface), with no model: pi-ai's faux provider scripts the
 * assistant turns. Web providers are a loopback server speaking Tavily's API.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Theme } from "@mariozechner/pi-coding-agent";
import { visibleWidth } from "@mariozechner/pi-tui";
import { resolveSettings } from "../../../src/config/settings.js";
import { silentLogger } from "../../../src/core/logger.js";
import { createProductRegistry } from "../../../src/tools/product.js";
import { gatedRipgrep, manyFiles, processesIn, treesRemovedAfter } from "../../code/helpers.js";
import { type FakeVendor, sendJson, startFakeVendor } from "../../web/providers/fake-vendor.js";
import { PACKAGE_ROOT, type PiSession, startPi, testTheme } from "./harness.js";

const tree = treesRemovedAfter(after);
const KEY = "tvly-test-0123456789";
const PAGE = "https://93.184.215.14/pricing";

let vendor: FakeVendor;
let configHome: string;

before(async () => {
  vendor = await startFakeVendor();
  vendor.handle((request, response) => {
    if (request.path === "/search" && (request.json() as { query?: string }).query === "vendor down") {
      sendJson(response, 503, { detail: "unavailable" });
    } else if (request.path === "/search") {
      sendJson(response, 200, {
        query: "q",
        answer: "An answer.",
        results: [{ title: "Result", url: "https://example.org/r", content: "snippet", score: 0.5 }],
      });
    } else {
      sendJson(response, 200, {
        results: [{ url: PAGE, raw_content: "# Pricing\n\nfree: 0" }],
        failed_results: [],
      });
    }
  });
  configHome = mkdtempSync(join(tmpdir(), "evident-pi-config-"));
  // The extension reads the process environment, as it does inside Pi.
  Object.assign(process.env, {
    XDG_CONFIG_HOME: configHome,
    TAVILY_API_KEY: KEY,
    EVIDENT_TAVILY_BASE_URL: vendor.baseUrl,
    EVIDENT_READ_ROUTE: "tavily",
  });
});

after(async () => {
  await vendor.close();
  rmSync(configHome, { recursive: true, force: true });
});

const configFile = () => join(configHome, "evident", "config.json");

async function withPi<T>(
  cwd: string,
  body: (pi: PiSession) => Promise<T>,
  contextWindow?: number,
): Promise<T> {
  const pi = await startPi(cwd, contextWindow === undefined ? {} : { contextWindow });
  try {
    return await body(pi);
  } finally {
    await pi.close();
  }
}

/** Runs a tool through Pi's own tool interface (the AgentTool Pi's loop calls), outside a turn. */
async function execute(pi: PiSession, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const tool = pi.session.agent.state.tools.find((t) => t.name === name);
  assert.ok(tool, `${name} is one of the session's tools`);
  return tool.execute(`direct-${name}`, args as never, signal);
}

/** Fills the session's context to `fraction` of its window, as earlier turns would. */
function fillContext(pi: PiSession, contextWindow: number, fraction: number) {
  pi.session.agent.state.messages = [
    { role: "user", content: "x".repeat(Math.round(contextWindow * fraction * 4)), timestamp: Date.now() },
  ];
}

describe("Pi extension", () => {
  it("G19: Pi loads it from package.json and gets exactly the three tools, no command, no replaced tool", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));
    assert.deepEqual(manifest.pi, { extensions: ["./dist/adapters/pi/extension.js"] });
    await withPi(root, async (pi) => {
      const runner = pi.session.extensionRunner;
      const ours = runner.getAllRegisteredTools().map((tool) => tool.definition.name);
      assert.deepEqual(ours, ["web_search", "web_read", "code_search"]);
      assert.deepEqual(runner.getRegisteredCommands(), []);
      assert.equal(runner.getFlags().size, 0);
      // Pi's own tools are still there and still Pi's: none of ours takes a built-in name.
      const names = pi.session.agent.state.tools.map((t) => t.name);
      assert.deepEqual(names, ["read", "bash", "edit", "write", "web_search", "web_read", "code_search"]);
      // The one non-tool surface: the settings shortcut (not a command).
      assert.deepEqual([...runner.getShortcuts({}).keys()], ["ctrl+alt+e"]);
      // Schemas and descriptions are the registry's own, not restated (built from the same
      // environment: web_search's description names the configured search providers).
      const registry = createProductRegistry({
        cwd: root,
        settings: resolveSettings(process.env),
        logger: silentLogger,
        surface: "pi",
      });
      for (const listing of registry.list()) {
        const definition = pi.session.getToolDefinition(listing.name);
        assert.deepEqual(definition?.parameters, listing.inputSchema);
        assert.equal(definition?.description, listing.description);
        assert.equal(definition?.label, listing.title);
      }
      await registry.close();
    });
  });

  it("one root rule on every surface: Pi started in / refuses it as the project and says how to name one", async () => {
    await withPi("/", async (pi) => {
      const code = await pi.call("code_search", { pattern: "needle" });
      assert.equal(code.isError, true);
      const error = JSON.parse(code.text).error;
      assert.equal(error.code, "configuration_error");
      assert.match(error.message, /will not search the filesystem root \(\/\)/);
      assert.match(error.message, /Start Pi in the project directory, or set EVIDENT_ROOT=DIR/);
    });
  });

  it("runs each tool through Pi's agent loop and tool interface", async () => {
    const root = await tree({ "src/a.ts": "const needle = 1;\n" });
    await withPi(root, async (pi) => {
      const code = await pi.call("code_search", { pattern: "needle" });
      assert.equal(code.isError, false);
      assert.match(code.text, /1 matching line .* in 1 file\./);
      assert.equal((code.details as { totalMatches: number }).totalMatches, 1);

      const search = await pi.call("web_search", { query: "pi extensions" });
      assert.equal(search.isError, false);
      assert.deepEqual((search.details as { provenance: { used: string[] } }).provenance.used, ["tavily"]);

      const read = await pi.call("web_read", { url: PAGE });
      assert.equal(read.isError, false);
      assert.match(read.text, /# Pricing/);
      assert.equal(vendor.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);

      // Arguments the registry rejects are an error result carrying our error payload.
      const bad = await execute(pi, "code_search", { pattern: "needle", mode: "everything" }).catch(
        (error: Error) => error,
      );
      assert.ok(bad instanceof Error);
      assert.equal(JSON.parse(bad.message).error.code, "invalid_arguments");
    });
  });

  it("G25: Pi's context usage shrinks only an implicit auto answer", async () => {
    const root = await tree(manyFiles(12));
    const window = 10_000;
    await withPi(
      root,
      async (pi) => {
        const roomy = await execute(pi, "code_search", { pattern: "needle" });
        assert.equal((roomy.details as { view: string }).view, "details");
        fillContext(pi, window, 0.95);
        const shrunk = await execute(pi, "code_search", { pattern: "needle" });
        const data = shrunk.details as { view: string; cursor: string; budget: { tier: string } };
        assert.equal(data.budget.tier, "critical");
        assert.equal(data.view, "summary");
        for (const explicit of [{ limit: 50 }, { mode: "matches" }, { mode: "auto" }]) {
          const r = await execute(pi, "code_search", { pattern: "needle", ...explicit });
          const d = r.details as { view: string; budget: { adjusted: boolean } };
          assert.equal(d.view, "details", JSON.stringify(explicit));
          assert.equal(d.budget.adjusted, false);
        }
        const page = await execute(pi, "code_search", { cursor: data.cursor });
        assert.equal((page.details as { budget: { tier: string } }).budget.tier, "default");
      },
      window,
    );
  });

  it("G27: a tight or critical context is said in the text and recorded in the details", async () => {
    const root = await tree(manyFiles(3));
    const window = 10_000;
    await withPi(
      root,
      async (pi) => {
        for (const [fraction, tier, tokens] of [
          [0.7, "tight", 1000],
          [0.95, "critical", 500],
        ] as const) {
          fillContext(pi, window, fraction);
          const result = await execute(pi, "code_search", { pattern: "needle" });
          assert.deepEqual((result.details as { budget: unknown }).budget, {
            tier,
            targetTokens: tokens,
            adjusted: true,
          });
          const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
          assert.match(
            text,
            new RegExp(`Context is ${tier}: this answer was sized for about ${tokens} tokens`),
          );
        }
        fillContext(pi, window, 0.1);
        const full = await execute(pi, "code_search", { pattern: "needle" });
        assert.deepEqual((full.details as { budget: unknown }).budget, {
          tier: "full",
          targetTokens: 2000,
          adjusted: false,
        });
      },
      window,
    );
  });

  it("G20: new queries are facts, a failed one counted as failed; cursor pages never count", async () => {
    const root = await tree(manyFiles(40));
    await withPi(root, async (pi) => {
      assert.equal(pi.ui.status("evident"), undefined, "no status before the first new query");
      const first = await pi.call("code_search", { pattern: "needle" });
      assert.equal((first.details as { view: string }).view, "summary");
      const afterFirst = pi.ui.status("evident");
      assert.equal(
        afterFirst,
        "evident this session: 1 code search (1 complete, 1 summarized by file), 0 web searches, 0 pages read",
      );
      const cursor = (first.details as { cursor: string }).cursor;
      await pi.call("code_search", { cursor });
      await pi.call("code_search", { cursor, mode: "summary" });
      const missing = await pi.call("code_search", { cursor: "not-a-cursor" });
      assert.equal(missing.isError, true);
      assert.equal(pi.ui.status("evident"), afterFirst, "cursor pages, answered or not, changed nothing");
      const failed = await pi.call("code_search", { pattern: "(unclosed" });
      assert.equal(failed.isError, true);
      assert.equal(
        pi.ui.status("evident"),
        "evident this session: 2 code searches (1 complete, 1 summarized by file, 1 failed), 0 web searches, 0 pages read",
      );
      await pi.call("code_search", { pattern: "needle0 =", mode: "matches" });
      await pi.call("web_search", { query: "q" });
      await pi.call("web_read", { url: PAGE });
      assert.equal(
        pi.ui.status("evident"),
        "evident this session: 3 code searches (2 complete, 1 summarized by file, 1 failed), 1 web search, 1 page read",
      );
    });
  });

  it("a web search or page read that failed is counted as tried and failed, never as none", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    await withPi(root, async (pi) => {
      const down = await pi.call("web_search", { query: "vendor down" });
      assert.equal(down.isError, true);
      assert.equal(
        pi.ui.status("evident"),
        "evident this session: 0 code searches (0 complete, 0 summarized by file), 1 web search (1 failed), 0 pages read",
      );
      const refused = await pi.call("web_read", { url: "http://127.0.0.1/" });
      assert.equal(refused.isError, true);
      await pi.call("web_search", { query: "q" });
      assert.equal(
        pi.ui.status("evident"),
        "evident this session: 0 code searches (0 complete, 0 summarized by file), 2 web searches (1 failed), 1 page read (1 failed)",
      );
    });
  });

  it("G20: code_search's guide is no query: it returns the guide and the status line does not count it", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    await withPi(root, async (pi) => {
      const guide = await pi.call("code_search", { guide: true });
      assert.equal(guide.isError, false);
      assert.equal((guide.details as { view: string }).view, "guide");
      assert.match(guide.text, /code_search guide/);
      assert.equal(pi.ui.status("evident"), undefined);
    });
  });

  it("G21: the status line is plain counts in English or Simplified Chinese, claiming nothing", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    const claims =
      /fast|slow|speed|sav|token|cost|cheap|efficien|success|succeed|solv|better|improv|help|accura|quality|更快|加速|节省|节约|成本|费用|成功|解决|提升|提高|准确|质量|效率/i;
    const lines: string[] = [];
    for (const locale of [undefined, "en", "zh-CN"]) {
      if (locale === undefined) rmSync(configFile(), { force: true });
      else writeConfig({ locale });
      await withPi(root, async (pi) => {
        await pi.call("code_search", { pattern: "needle" });
        await pi.call("web_search", { query: "q" });
        const line = pi.ui.status("evident") as string;
        assert.equal(line.includes("\n"), false);
        if (locale === "zh-CN") assert.match(line, /^evident 本次会话：代码搜索 1 次/);
        else assert.match(line, /^evident this session: 1 code search/);
        lines.push(line);
      });
    }
    for (const line of lines) assert.doesNotMatch(line, claims, line);
    // Any other locale is a configuration error that says how to fix it, in place of the line.
    writeConfig({ locale: "fr" });
    await withPi(root, async (pi) => {
      await pi.call("code_search", { pattern: "needle" });
      assert.match(pi.ui.status("evident") as string, /configuration error.*locale.*"en" or "zh-CN"/i);
    });
    rmSync(configFile(), { force: true });
  });

  it("G28: rendering shows a compact or the complete original text and never changes the result", async () => {
    const root = await tree({
      ...manyFiles(40),
      "wide.txt": "needle 中文字符很宽 \u001b[31mred\u001b[0m needle\n",
    });
    await withPi(root, async (pi) => {
      const theme = testTheme();
      const results = [
        ["code_search", { pattern: "needle" }, await pi.call("code_search", { pattern: "needle" })],
        ["code_search", { pattern: "宽" }, await pi.call("code_search", { pattern: "宽" })],
        ["web_search", { query: "搜索 pi" }, await pi.call("web_search", { query: "搜索 pi" })],
        ["web_read", { url: PAGE }, await pi.call("web_read", { url: PAGE })],
        ["code_search", { pattern: "(bad" }, await pi.call("code_search", { pattern: "(bad" })],
        ["code_search", { guide: true }, await pi.call("code_search", { guide: true })],
      ] as const;
      const modelFacing = JSON.stringify(pi.session.messages);
      const status = pi.ui.status("evident");
      for (const [name, args, outcome] of results) {
        const definition = pi.session.getToolDefinition(name);
        assert.ok(definition?.renderCall && definition.renderResult);
        const result = deepFreeze({
          content: [{ type: "text" as const, text: outcome.text }],
          details: outcome.details,
        });
        const before = JSON.stringify(result);
        for (const width of [12, 40, 120]) {
          const call = definition.renderCall(
            args as never,
            theme,
            renderContext(args, false, outcome.isError),
          );
          for (const line of call.render(width)) assert.ok(visibleWidth(line) <= width, line);
          for (const expanded of [false, true]) {
            const component = definition.renderResult(
              result as never,
              { expanded, isPartial: false },
              theme,
              renderContext(args, expanded, outcome.isError),
            );
            const lines = component.render(width);
            for (const line of lines) assert.ok(visibleWidth(line) <= width, `${width}: ${line}`);
            const shown = strip(lines.join("\n"));
            if (expanded) {
              // Every character of the original text is there, only wrapped.
              assert.equal(shown.replace(/\s+/g, ""), strip(outcome.text).replace(/\s+/g, ""));
            } else if (width === 120) {
              assert.ok(lines.length <= 2, `${name} collapsed: ${lines.length} lines`);
              if (outcome.isError) assert.match(shown, /invalid_arguments/);
            }
          }
        }
        assert.equal(JSON.stringify(result), before);
      }
      assert.equal(JSON.stringify(pi.session.messages), modelFacing, "model-facing messages unchanged");
      assert.equal(pi.ui.status("evident"), status, "accounting unchanged");

      // An unknown shape, or a renderer that fails (a theme without its colors), shows the original text.
      const code = pi.session.getToolDefinition("code_search");
      assert.ok(code?.renderResult);
      const original = "some text\nthat evident did not write";
      for (const [details, usedTheme] of [
        [{ unexpected: true }, theme],
        [results[0][2].details, new Theme({} as never, {} as never, "truecolor")],
      ] as const) {
        const lines: string[] = code
          .renderResult(
            { content: [{ type: "text", text: original }], details } as never,
            { expanded: false, isPartial: false },
            usedTheme,
            renderContext({ pattern: "needle" }, false, false),
          )
          .render(80);
        assert.equal(strip(lines.join("\n")).replace(/\s+$/gm, ""), original);
      }
    });
  });

  it("Pi's abort reaches ripgrep: a long search is cancelled and leaves no process", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    // ripgrep waits at a gate nobody passes; the extension reads the process environment.
    const rg = await gatedRipgrep(await tree({}));
    process.env.EVIDENT_RG_PATH = rg.path;
    await withPi(root, async (pi) => {
      pi.respond([]);
      const { fauxAssistantMessage, fauxToolCall } = await import("@mariozechner/pi-ai");
      pi.respond([
        fauxAssistantMessage(
          fauxToolCall("code_search", { pattern: "needle", path: "a.txt" }, { id: "long" }),
        ),
      ]);
      let ended: { isError: boolean; text: string } | undefined;
      pi.session.subscribe((event) => {
        if (event.type === "tool_execution_end" && event.toolCallId === "long") {
          const result = event.result as { content: Array<{ text?: string }> };
          ended = { isError: event.isError, text: result.content.map((p) => p.text ?? "").join("") };
        }
      });
      const prompt = pi.session.prompt("search the file");
      const gate = await rg.waiting();
      assert.ok((await processesIn(root)).length > 0, "ripgrep is running");
      await pi.session.abort();
      await prompt;
      await gate.close();
      assert.ok(ended, "the tool call ended");
      assert.equal(ended.isError, true);
      assert.equal(JSON.parse(ended.text).error.code, "cancelled");
      assert.deepEqual(await processesIn(root), []);
    }).finally(() => {
      delete process.env.EVIDENT_RG_PATH;
    });
  });

  it("a shortcut shows the configured providers and saves a masked key to the private config file", async () => {
    const root = await tree({ "a.txt": "needle\n" });
    rmSync(join(configHome, "evident"), { recursive: true, force: true });
    await withPi(root, async (pi) => {
      const shortcut = pi.session.extensionRunner.getShortcuts({}).get("ctrl+alt+e");
      assert.ok(shortcut);
      let shown: string[] = [];
      let title = "";
      pi.ui.pick = (t, options) => {
        title = t;
        shown = options;
        return options.find((option) => option.startsWith("brave"));
      };
      const secret = "BSA-secret-key-42";
      pi.ui.keys = [...secret, "\r"];
      await shortcut.handler(pi.session.extensionRunner.createContext());
      assert.match(title, /search: tavily; read: tavily/);
      assert.ok(
        shown.some((o) => /^tavily: key set, from the environment$/.test(o)),
        shown.join("\n"),
      );
      assert.ok(
        shown.some((o) => /^duckduckgo: built in$/.test(o)),
        shown.join("\n"),
      );
      assert.ok(shown.includes("brave: not configured (choose to enter a key)"));
      // The field never shows the key, only as many dots.
      for (const lines of pi.ui.rendered) assert.equal(lines.join("\n").includes("BSA"), false);
      assert.match(pi.ui.rendered.at(-2)?.[1] ?? "", new RegExp(`^> •{${secret.length}}$`));
      const saved = JSON.parse(readFileSync(configFile(), "utf8"));
      assert.deepEqual(saved, { providers: { brave: { type: "brave", apiKey: secret } } });
      assert.equal(statSync(configFile()).mode & 0o777, 0o600);
      assert.equal(statSync(join(configHome, "evident")).mode & 0o777, 0o700);
      assert.ok(
        pi.ui.notices.some(
          (n) => n.message.includes("saved the brave API key") && !n.message.includes(secret),
        ),
      );

      // A second key keeps what the file had; a file that is not JSON is never overwritten.
      writeConfig({
        locale: "zh-CN",
        providers: { brave: { type: "brave", apiKey: secret, attemptDeadlineMs: 5000 } },
      });
      pi.ui.keys = [..."BSA-new", "\r"];
      await shortcut.handler(pi.session.extensionRunner.createContext());
      assert.deepEqual(JSON.parse(readFileSync(configFile(), "utf8")), {
        locale: "zh-CN",
        providers: { brave: { type: "brave", apiKey: "BSA-new", attemptDeadlineMs: 5000 } },
      });
      writeFileSync(configFile(), "{ not json");
      pi.ui.keys = [..."BSA-other", "\r"];
      await shortcut.handler(pi.session.extensionRunner.createContext());
      assert.equal(readFileSync(configFile(), "utf8"), "{ not json");
      assert.ok(pi.ui.notices.some((n) => n.type === "error" && /not valid JSON/.test(n.message)));
      // Escape saves nothing.
      rmSync(configFile(), { force: true });
      pi.ui.keys = [..."typed", "\u001b"];
      await shortcut.handler(pi.session.extensionRunner.createContext());
      assert.throws(() => statSync(configFile()));
    });
  });
});

function writeConfig(content: unknown): void {
  rmSync(configFile(), { force: true });
  execFileSync("mkdir", ["-p", join(configHome, "evident")]);
  writeFileSync(configFile(), JSON.stringify(content), { mode: 0o600 });
}

function renderContext(args: unknown, expanded: boolean, isError: boolean) {
  return {
    args,
    toolCallId: "render",
    invalidate: () => {},
    lastComponent: undefined,
    state: {},
    cwd: "/",
    executionStarted: true,
    argsComplete: true,
    isPartial: false,
    expanded,
    showImages: false,
    isError,
  } as never;
}

function strip(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing ANSI escapes is the point
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
