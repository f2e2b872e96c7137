/**
 * A reader of the Prometheus text exposition format 0.0.4, written from the format's line rules
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), so a test can check that what
 * `/metrics` writes parses, not only that it contains some words.
 */
import assert from "node:assert/strict";

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly help: ReadonlyMap<string, string>;
  readonly samples: readonly ParsedSample[];
  /** The value of the one sample of `name` whose labels include `labels`, or undefined. */
  value(name: string, labels?: Readonly<Record<string, string>>): number | undefined;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES = ["_bucket", "_sum", "_count"];

/** Parses `text`, failing the test at the first line the format does not allow. */
export function parseExposition(text: string): Exposition {
  assert.ok(text.endsWith("\n"), "the last line ends with a line feed");
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: ParsedSample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      if (meta === null) continue; // a plain comment
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (kind === "TYPE") {
        assert.ok(TYPES.has(rest), `a known type: ${line}`);
        assert.ok(!types.has(name), `one TYPE line per metric: ${name}`);
        assert.ok(!samples.some((s) => familyOf(s.name, types) === name), `TYPE before samples: ${name}`);
        types.set(name, rest);
      } else {
        assert.ok(!help.has(name), `one HELP line per metric: ${name}`);
        help.set(name, rest);
      }
      continue;
    }
    samples.push(parseSample(line));
  }
  for (const sample of samples) {
    assert.ok(familyOf(sample.name, types) !== undefined, `a typed family for ${sample.name}`);
  }
  return {
    types,
    help,
    samples,
    value(name, labels = {}) {
      const found = samples.filter(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );
      assert.ok(found.length <= 1, `at most one sample of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}

function familyOf(sampleName: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(sampleName)) return sampleName;
  for (const suffix of SUFFIXES) {
    const base = sampleName.slice(0, -suffix.length);
    if (sampleName.endsWith(suffix) && types.get(base) === "histogram") return base;
  }
  return undefined;
}

function parseSample(line: string): ParsedSample {
  const name = NAME.exec(line)?.[0];
  assert.ok(name !== undefined, `a metric name starts the line: ${line}`);
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const labelName = LABEL_NAME.exec(rest)?.[0];
      assert.ok(labelName !== undefined && rest.startsWith(`${labelName}="`), `a label: ${line}`);
      rest = rest.slice(labelName.length + 2);
      let value = "";
      for (;;) {
        const c = rest[0];
        assert.ok(c !== undefined && c !== "\n", `a closed label value: ${line}`);
        if (c === '"') break;
        if (c === "\\") {
          const next = rest[1];
          assert.ok(next === "\\" || next === '"' || next === "n", `a known escape: ${line}`);
          value += next === "n" ? "\n" : next;
          rest = rest.slice(2);
        } else {
          value += c;
          rest = rest.slice(1);
        }
      }
      assert.ok(!(labelName in labels), `a label once: ${line}`);
      labels[labelName] = value;
      rest = rest.slice(1);
      if (rest.startsWith(",")) rest = rest.slice(1);
    }
    rest = rest.slice(1);
  }
  const fields = rest.trim().split(/[ \t]+/);
  assert.ok(/^[ \t]/.test(rest) && fields.length >= 1 && fields.length <= 2, `a value: ${line}`);
  const [raw] = fields as [string];
  const value =
    raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : raw === "NaN" ? Number.NaN : Number(raw);
  assert.ok(raw === "NaN" || !Number.isNaN(value), `a float value: ${line}`);
  return { name, labels, value };
}
