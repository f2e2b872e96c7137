/**
 * Flags read their kind from the tool's JSON schema, whichever way the schema spells a property
 * that takes one value or several: an `anyOf` of a string and an array, a `type` list, or a plain
 * array. Each shape gets the argument it validates, and help shows what the flag takes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CommandSpec, parseCommand, placeholder, propertyKind } from "../../src/adapters/cli/flags.js";

const SPEC: CommandSpec = { tool: "t", positionals: ["pattern"], aliases: { "-g": "glob" } };

describe("flag kinds from the schema", () => {
  const union = { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] };
  const typeList = { type: ["string", "array"], items: { type: "string" } };
  const flat = { type: "array", items: { type: "string" } };

  it("a union, a type list and a plain array all repeat, each giving what its schema takes", () => {
    assert.equal(propertyKind(union), "string-or-array");
    assert.equal(propertyKind(typeList), "string-or-array");
    assert.equal(propertyKind(flat), "array");
    for (const [schema, one, two] of [
      [union, "*.ts", ["*.ts", "*.js"]],
      [typeList, "*.ts", ["*.ts", "*.js"]],
      [flat, ["*.ts"], ["*.ts", "*.js"]],
    ] as const) {
      const properties = { pattern: { type: "string" }, glob: schema };
      assert.deepEqual(parseCommand(["x", "-g", "*.ts"], SPEC, properties).args.glob, one);
      assert.deepEqual(parseCommand(["x", "-g", "*.ts", "--glob", "*.js"], SPEC, properties).args.glob, two);
    }
  });

  it("numbers, switches and choices read the same from a plain or a listed type", () => {
    const properties = {
      pattern: { type: "string" },
      context: { type: ["integer"] },
      hidden: { anyOf: [{ type: "boolean" }] },
      mode: { type: "string", enum: ["auto", "summary"] },
      indices: { type: "array", items: { type: "integer" } },
    };
    const parsed = parseCommand(
      ["x", "--context", "3", "--hidden", "false", "--mode", "summary", "--indices", "2"],
      SPEC,
      properties,
    );
    assert.deepEqual(parsed.args, { pattern: "x", context: 3, hidden: false, mode: "summary", indices: [2] });
    assert.equal(placeholder(SPEC, "mode", properties.mode), "auto|summary");
    assert.equal(placeholder(SPEC, "context", properties.context), "N");
    assert.equal(placeholder(SPEC, "indices", properties.indices), "N");
  });
});
