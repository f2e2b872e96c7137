import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Counter,
  countChild,
  escapeLabelValue,
  formatValue,
  Histogram,
  Metrics,
} from "../../src/core/metrics.js";
import { parseExposition } from "../observe/exposition.js";

describe("metrics in the Prometheus text format", () => {
  it("escapes backslash, double quote and line feed in label values, and the result parses back", () => {
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
    const metrics = new Metrics();
    const odd = 'id "quoted" \\ back\nslash';
    metrics.providerAttempts.inc({ provider: odd, operation: "search" });
    const parsed = parseExposition(metrics.render());
    assert.equal(parsed.value("evident_provider_attempts_total", { provider: odd }), 1);
  });

  it("writes +Inf, -Inf and NaN as the format spells them", () => {
    assert.deepEqual([Infinity, -Infinity, Number.NaN, 0.25, 3].map(formatValue), [
      "+Inf",
      "-Inf",
      "NaN",
      "0.25",
      "3",
    ]);
  });

  it("keeps histogram buckets cumulative, +Inf equal to the count, and the sum", () => {
    const histogram = new Histogram("h_seconds", "help", ["tool"], [0.1, 1]);
    for (const value of [0.05, 0.5, 0.5, 7]) histogram.observe({ tool: "t" }, value);
    const text = `# HELP h_seconds help\n# TYPE h_seconds histogram\n${histogram
      .samples()
      .map(
        (s) =>
          `h_seconds${s.suffix}{${Object.entries(s.labels)
            .map(([k, v]) => `${k}="${v}"`)
            .join(",")}} ${formatValue(s.value)}`,
      )
      .join("\n")}\n`;
    const parsed = parseExposition(text);
    assert.deepEqual(
      ["0.1", "1", "+Inf"].map((le) => parsed.value("h_seconds_bucket", { le })),
      [1, 3, 4],
    );
    assert.equal(parsed.value("h_seconds_count"), 4);
    assert.equal(parsed.value("h_seconds_sum"), 8.05);
  });

  it("declares every family once, HELP and TYPE before its samples, and ends with a line feed", () => {
    const metrics = new Metrics();
    metrics.toolCalls.inc({ tool: "web_search", surface: "cli", outcome: "ok" });
    metrics.toolDuration.observe({ tool: "web_search" }, 0.2);
    metrics.sampled("x_bytes", "bytes\nheld", "gauge", () => [{ value: 5 }]);
    metrics.sampled("x_bytes", "bytes held", "gauge", () => [{ value: 6 }]);
    const counter = metrics.counter("x_total", "refused", []);
    assert.equal(metrics.counter("x_total", "refused", []), counter, "one counter per name");
    counter.inc({});
    const parsed = parseExposition(metrics.render());
    assert.equal(parsed.value("x_bytes"), 6, "a sampled family of the same name is replaced");
    assert.equal(parsed.value("x_total"), 1);
    assert.equal(parsed.types.get("evident_tool_call_duration_seconds"), "histogram");
  });

  it("counts owned children by program while they run", () => {
    countChild("fake-rg", 1);
    countChild("fake-rg", 1);
    assert.equal(
      parseExposition(new Metrics().render()).value("evident_child_processes_running", {
        program: "fake-rg",
      }),
      2,
    );
    countChild("fake-rg", -1);
    countChild("fake-rg", -1);
    assert.equal(
      parseExposition(new Metrics().render()).value("evident_child_processes_running", {
        program: "fake-rg",
      }),
      0,
    );
  });

  it("a counter's value is per label set", () => {
    const counter = new Counter("c_total", "c", ["a"]);
    counter.inc({ a: "x" });
    counter.inc({ a: "x" }, 2);
    counter.inc({ a: "y" });
    assert.deepEqual(
      [counter.value({ a: "x" }), counter.value({ a: "y" }), counter.value({ a: "z" })],
      [3, 1, 0],
    );
  });
});
