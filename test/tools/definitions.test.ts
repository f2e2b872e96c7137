/**
 * The tool definitions an agent carries on every turn, as a client receives them: the
 * `tools/list` answer of `evident mcp`, asked by the official MCP SDK client over stdio, without
 * and with structured output. Their size, the function-calling rules their input schemas keep,
 * their annotations and order, and the guide that holds what the definitions leave out
 * (reachable from them on every surface). The server runs in this process (the executable's
 * `runCli` on a pair of streams); one case checks that the built executable's answer is the same.
 */
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { connectInProcess, EVIDENT_CLI, evidentInProcess } from "../adapters/run-evident.js";
import { treesRemovedAfter } from "../code/helpers.js";

const tree = treesRemovedAfter(after);

/** Issue #30: what every agent turn may spend on evident's definitions, in bytes of the answer. */
const LIST_MAX_BYTES = 6_500;
const LIST_STRUCTURED_MAX_BYTES = 13_000;
/** Some gateways cut or refuse longer tool descriptions. */
const DESCRIPTION_MAX_CHARS = 1_024;

type Json = Record<string, unknown>;
type Listed = Awaited<ReturnType<Client["listTools"]>>;

/** A server's environment: no config file and no keys; its home directory apart from `cwd`. */
function serverEnv(cwd: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: join(cwd, ".home"),
    XDG_CONFIG_HOME: join(cwd, ".no-config"),
    EVIDENT_CACHE_DIR: join(cwd, ".cache"),
  };
}

/** `evident mcp ARGS` started in `cwd`, and a client connected to it. */
async function withServer<T>(
  options: { cwd: string; args?: string[] },
  body: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: "definitions-test", version: "1.0.0" });
  const server = await connectInProcess(client, options.args ?? [], {
    cwd: options.cwd,
    env: serverEnv(options.cwd),
  });
  try {
    return await body(client);
  } finally {
    await server.close();
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * Where a JSON schema leaves the subset common function-calling APIs accept (OpenAI's strict
 * mode, Gemini's function declarations, Anthropic's tools): one plain `type` string per schema;
 * objects with `properties`, closed only by `additionalProperties: false` (which OpenAI's strict
 * mode requires, and which a client sending to Gemini's OpenAPI-style `parameters` drops); arrays
 * with `items`; string enums. No alternatives, references, conditions, constants, formats or
 * bounds.
 */
function functionCallingViolations(schema: unknown, at = "$"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [`${at}: not a schema`];
  const s = schema as Json;
  const out: string[] = [];
  const allowed = new Set([
    "type",
    "description",
    "properties",
    "required",
    "items",
    "enum",
    "additionalProperties",
  ]);
  for (const key of Object.keys(s)) if (!allowed.has(key)) out.push(`${at}: ${key}`);
  const types = ["object", "array", "string", "integer", "number", "boolean"];
  if (typeof s.type !== "string" || !types.includes(s.type))
    out.push(`${at}: type ${JSON.stringify(s.type)}`);
  if (s.description !== undefined && typeof s.description !== "string") out.push(`${at}: description`);
  if (s.type === "object") {
    if (typeof s.properties !== "object" || s.properties === null)
      out.push(`${at}: object without properties`);
    for (const [name, property] of Object.entries((s.properties ?? {}) as Json)) {
      out.push(...functionCallingViolations(property, `${at}.${name}`));
    }
    const required = s.required ?? [];
    if (
      !Array.isArray(required) ||
      required.some((name) => !Object.hasOwn((s.properties ?? {}) as Json, name))
    ) {
      out.push(`${at}: required names no property`);
    }
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
      out.push(`${at}: additionalProperties ${JSON.stringify(s.additionalProperties)}`);
    }
  } else {
    for (const key of ["properties", "required", "additionalProperties"]) {
      if (s[key] !== undefined) out.push(`${at}: ${key} on a ${String(s.type)}`);
    }
  }
  if (s.type === "array") {
    if (s.items === undefined) out.push(`${at}: array without items`);
    else out.push(...functionCallingViolations(s.items, `${at}[]`));
  } else if (s.items !== undefined) out.push(`${at}: items on a ${String(s.type)}`);
  if (s.enum !== undefined) {
    const strings = Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v) => typeof v === "string");
    if (s.type !== "string" || !strings) out.push(`${at}: enum ${JSON.stringify(s.enum)}`);
  }
  return out;
}

describe("tool definitions", () => {
  let project: string;
  // The answers every check reads: one server's, without and with structured output.
  const listed = new Map<boolean, Listed>();
  before(async () => {
    project = realpathSync(await tree({ "a.ts": "needle\n", "b.md": "needle\n" }));
    for (const structured of [false, true]) {
      listed.set(
        structured,
        await withServer({ cwd: project, args: structured ? ["--structured"] : [] }, (c) => c.listTools()),
      );
    }
  });
  const answer = (structured: boolean) => listed.get(structured) as Listed;

  it("the function-calling rules refuse what some API refuses", () => {
    assert.deepEqual(
      functionCallingViolations({
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: false,
      }),
      [],
    );
    for (const [bad, where] of [
      [
        { type: "object", properties: { g: { anyOf: [{ type: "string" }, { type: "array" }] } } },
        "$.g: anyOf",
      ],
      [{ type: "object", properties: { g: { type: ["string", "null"] } } }, '$.g: type ["string","null"]'],
      [
        {
          type: "object",
          properties: { r: { type: "object", properties: {}, additionalProperties: { type: "string" } } },
        },
        '$.r: additionalProperties {"type":"string"}',
      ],
      [{ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: {} }, "$: $defs"],
      [{ type: "object", properties: { s: { type: "string", maxLength: 4 } } }, "$.s: maxLength"],
      [{ type: "object", properties: { u: { type: "string", format: "uri" } } }, "$.u: format"],
      [{ type: "object", properties: { n: { type: "integer", maximum: 9007199254740991 } } }, "$.n: maximum"],
      [{ type: "object", properties: { l: { type: "array" } } }, "$.l: array without items"],
      [{ type: "object", properties: {}, required: ["x"] }, "$: required names no property"],
    ] as const) {
      assert.ok(
        functionCallingViolations(bad).includes(where),
        `${where} in ${functionCallingViolations(bad).join("; ")}`,
      );
    }
  });

  for (const structured of [false, true]) {
    const budget = structured ? LIST_STRUCTURED_MAX_BYTES : LIST_MAX_BYTES;
    it(`tools/list ${structured ? "with" : "without"} structured output is at most ${budget} bytes, each description at most ${DESCRIPTION_MAX_CHARS} characters`, () => {
      const list = answer(structured);
      const sizes = list.tools.map((tool) => `${tool.name} ${bytes(tool)}`).join(", ");
      assert.ok(bytes(list) <= budget, `${bytes(list)} bytes (${sizes})`);
      for (const tool of list.tools) {
        assert.ok(
          (tool.description ?? "").length <= DESCRIPTION_MAX_CHARS,
          `${tool.name}: ${tool.description?.length}`,
        );
        assert.equal(tool.outputSchema !== undefined, structured, tool.name);
      }
    });
  }

  it("the built executable's tools/list is the same, byte for byte", async () => {
    const client = new Client({ name: "definitions-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [EVIDENT_CLI, "mcp"],
        cwd: project,
        env: serverEnv(project),
        stderr: "ignore",
      }),
    );
    try {
      assert.equal(JSON.stringify(await client.listTools()), JSON.stringify(answer(false)));
    } finally {
      await client.close();
    }
  });

  it("with structured output, answers still match the shorter output schemas (the SDK client checks each)", async () => {
    await withServer({ cwd: project, args: ["--structured"] }, async (client) => {
      await client.listTools();
      for (const args of [{ guide: true }, { pattern: "needle" }, { pattern: "needle", mode: "summary" }]) {
        const result = await client.callTool({ name: "code_search", arguments: args });
        assert.equal(result.isError ?? false, false, JSON.stringify(args));
        assert.equal(typeof (result.structuredContent as Json | undefined)?.view, "string");
      }
    });
  });

  it("every input schema keeps to the strictest common function-calling rules", () => {
    for (const tool of answer(false).tools) {
      assert.deepEqual(functionCallingViolations(tool.inputSchema), [], tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      // A property with no type is one some APIs cannot declare: every one has its own.
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.equal(typeof (property as Json).type, "string", `${tool.name}.${name}`);
      }
    }
  });

  it("carries the standard annotations and comes in one fixed order, the same for every project", async () => {
    const other = await tree({ "c.txt": "needle\n" });
    const first = answer(false);
    const lists: Listed[] = [];
    for (const setting of [{ cwd: other }, { cwd: other, args: ["--root", project] }]) {
      lists.push(await withServer(setting, (c) => c.listTools()));
    }
    assert.deepEqual(
      first.tools.map((tool) => [tool.name, tool.annotations]),
      [
        ["web_search", { readOnlyHint: true, openWorldHint: true }],
        ["web_read", { readOnlyHint: true, openWorldHint: true }],
        ["code_search", { readOnlyHint: true, openWorldHint: false }],
      ],
    );
    // Byte for byte, so a client may cache it: no definition names the directory it searches.
    for (const list of lists) assert.equal(JSON.stringify(list), JSON.stringify(first));
  });

  it("code_search's definition names the guide, and the guide names every option and the root", async () => {
    await withServer({ cwd: project }, async (client) => {
      const code = answer(false).tools.find((tool) => tool.name === "code_search");
      assert.match(code?.description ?? "", /\{"guide": true\}/);
      assert.equal((code?.inputSchema.properties?.guide as Json | undefined)?.type, "boolean");
      const result = await client.callTool({ name: "code_search", arguments: { guide: true } });
      assert.equal(result.isError ?? false, false);
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
      assert.ok(text.startsWith(`Project root: ${project}\n`), text.slice(0, 200));
      for (const name of Object.keys(code?.inputSchema.properties ?? {})) {
        if (name !== "guide") assert.match(text, new RegExp(`\\b${name}\\b`), name);
      }
      // The guide is no search: given with one, it is refused, naming the other field.
      const mixed = await client.callTool({
        name: "code_search",
        arguments: { guide: true, pattern: "needle" },
      });
      assert.equal(mixed.isError, true);
      const { error } = JSON.parse((mixed.content as Array<{ text: string }>)[0]?.text ?? "{}");
      assert.deepEqual([error.code, error.field], ["invalid_arguments", "pattern"]);
      // false is the same as leaving it out.
      const search = await client.callTool({
        name: "code_search",
        arguments: { guide: false, pattern: "needle" },
      });
      assert.match((search.content as Array<{ text: string }>)[0]?.text ?? "", /a\.ts/);
    });
  });

  it("the guide is read without a project root, and says how to set one", async () => {
    // Started in /: code_search refuses to search it without a setting.
    await withServer({ cwd: "/" }, async (client) => {
      const result = await client.callTool({ name: "code_search", arguments: { guide: true } });
      assert.equal(result.isError ?? false, false);
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
      assert.match(text, /^Project root: not set\. .*--root DIR/);
      assert.match(text, /code_search guide/);
    });
  });

  it("the guide is one flag away on the command line, and glob takes one value or a list there and over MCP", async () => {
    const run = (args: string[]) => evidentInProcess(args, { cwd: project, env: serverEnv(project) });
    const help = (await run(["grep", "--help"])).stdout;
    assert.match(help, /^ +--guide\b/m);
    // Values the schema enumerates are shown, as its short descriptions do not repeat them.
    assert.match(help, /--mode auto\|summary\|matches\n/);
    const guide = await run(["grep", "--guide", "--text"]);
    assert.equal(guide.code, 0);
    assert.match(guide.stdout, /code_search guide/);
    const json = JSON.parse((await run(["grep", "--guide"])).stdout);
    assert.equal(json.view, "guide");
    assert.match(json.guide, /INSPECT/);
    const one = JSON.parse((await run(["grep", "needle", "-g", "*.ts"])).stdout);
    assert.deepEqual([one.totalMatches, one.totalFiles], [1, 1]);
    await withServer({ cwd: project }, async (client) => {
      for (const glob of ["*.ts", ["*.ts"]]) {
        const result = await client.callTool({ name: "code_search", arguments: { pattern: "needle", glob } });
        const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
        assert.match(text, /a\.ts/, JSON.stringify(glob));
        assert.doesNotMatch(text, /b\.md/, JSON.stringify(glob));
      }
    });
  });
});
