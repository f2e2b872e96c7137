/**
 * What an operator can count: evident's metrics, kept in one object per surface (`Metrics`) and
 * written in the Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). The format is a few line
 * rules; writing it here costs less than a client library (docs/DEPENDENCIES.md).
 *
 * Calls are counted where every surface's calls pass, the tool registry; provider attempts where
 * every provider call passes, the web router; concurrency where the HTTP handler takes its slots.
 * Every label value comes from a closed set (tool names, surfaces, error codes, provider failure
 * classes) or from the operator's configuration (provider ids, executable names), never from a
 * caller, so a caller cannot grow the series without bound.
 */
import { METRICS_DURATION_BUCKETS_SECONDS } from "./limits.js";

export type Labels = Readonly<Record<string, string>>;

/** The content type of what `Metrics.render` writes. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

interface Sample {
  /** Appended to the family's name (`_bucket`, `_sum`, `_count`). */
  readonly suffix?: string;
  readonly labels: Labels;
  readonly value: number;
}

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  samples(): readonly Sample[];
}

/** A value per label set, kept in the order the sets first appeared. */
class Series<T> {
  readonly #series = new Map<string, { labels: Labels; value: T }>();

  constructor(readonly labelNames: readonly string[]) {}

  entry(labels: Labels, initial: () => T): { labels: Labels; value: T } {
    const key = JSON.stringify(this.labelNames.map((name) => labels[name] ?? ""));
    let found = this.#series.get(key);
    if (found === undefined) {
      const own = Object.fromEntries(this.labelNames.map((name) => [name, labels[name] ?? ""]));
      found = { labels: own, value: initial() };
      this.#series.set(key, found);
    }
    return found;
  }

  all(): Iterable<{ labels: Labels; value: T }> {
    return this.#series.values();
  }
}

export class Counter implements Family {
  readonly type = "counter";
  readonly #series: Series<{ n: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
  ) {
    this.#series = new Series(labelNames);
  }

  inc(labels: Labels, by = 1): void {
    this.#series.entry(labels, () => ({ n: 0 })).value.n += by;
  }

  /** The count for `labels` (0 if never counted). */
  value(labels: Labels): number {
    for (const series of this.#series.all()) {
      if (Object.entries(labels).every(([k, v]) => series.labels[k] === v)) return series.value.n;
    }
    return 0;
  }

  samples(): Sample[] {
    return [...this.#series.all()].map(({ labels, value }) => ({ labels, value: value.n }));
  }
}

export class Histogram implements Family {
  readonly type = "histogram";
  readonly #series: Series<{ buckets: number[]; sum: number; count: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    this.#series = new Series(labelNames);
  }

  observe(labels: Labels, value: number): void {
    const entry = this.#series.entry(labels, () => ({
      buckets: this.bounds.map(() => 0),
      sum: 0,
      count: 0,
    })).value;
    const at = this.bounds.findIndex((bound) => value <= bound);
    if (at >= 0) entry.buckets[at] = (entry.buckets[at] ?? 0) + 1;
    entry.sum += value;
    entry.count += 1;
  }

  /** Buckets are cumulative, the last `+Inf`, equal to `_count`. */
  samples(): Sample[] {
    const out: Sample[] = [];
    for (const { labels, value } of this.#series.all()) {
      let running = 0;
      this.bounds.forEach((bound, i) => {
        running += value.buckets[i] ?? 0;
        out.push({ suffix: "_bucket", labels: { ...labels, le: formatValue(bound) }, value: running });
      });
      out.push({ suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: value.count });
      out.push({ suffix: "_sum", labels, value: value.sum });
      out.push({ suffix: "_count", labels, value: value.count });
    }
    return out;
  }
}

/** A family whose samples are read when scraped (bytes held, children running). */
class Sampled implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge",
    readonly read: () => readonly Sample[],
  ) {}

  samples(): readonly Sample[] {
    return this.read();
  }
}

/** evident's metrics for one surface (one tool registry and what it serves). */
export class Metrics {
  readonly toolCalls = new Counter(
    "evident_tool_calls_total",
    "Tool calls by tool, surface and outcome (ok, or the error code).",
    ["tool", "surface", "outcome"],
  );
  readonly toolDuration = new Histogram(
    "evident_tool_call_duration_seconds",
    "Time from a tool call's arrival at the registry to its result, by tool.",
    ["tool"],
    METRICS_DURATION_BUCKETS_SECONDS,
  );
  readonly providerAttempts = new Counter(
    "evident_provider_attempts_total",
    "Web provider attempts by provider and operation (search, read).",
    ["provider", "operation"],
  );
  readonly providerFailures = new Counter(
    "evident_provider_failures_total",
    "Failed web provider attempts by provider, operation and reason class.",
    ["provider", "operation", "reason"],
  );
  readonly #families: Family[] = [
    this.toolCalls,
    this.toolDuration,
    this.providerAttempts,
    this.providerFailures,
  ];

  /** Adds a family read at each scrape; one of the same name is replaced. */
  sampled(
    name: string,
    help: string,
    type: "counter" | "gauge",
    read: () => ReadonlyArray<{ readonly labels?: Labels; readonly value: number }>,
  ): void {
    const family = new Sampled(name, help, type, () =>
      read().map((sample) => ({ labels: sample.labels ?? {}, value: sample.value })),
    );
    const at = this.#families.findIndex((f) => f.name === name);
    if (at >= 0) this.#families[at] = family;
    else this.#families.push(family);
  }

  /** Adds a counter the caller increments (HTTP refusals); the one already added by that name if any. */
  counter(name: string, help: string, labelNames: readonly string[]): Counter {
    const existing = this.#families.find((f) => f.name === name);
    if (existing instanceof Counter) return existing;
    const counter = new Counter(name, help, labelNames);
    this.#families.push(counter);
    return counter;
  }

  /** Every family in the text exposition format, ending with a line feed. */
  render(): string {
    const families: Family[] = [...this.#families, childProcesses];
    return families.map(renderFamily).join("");
  }
}

function renderFamily(family: Family): string {
  let text = `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
  for (const sample of family.samples()) {
    const labels = Object.entries(sample.labels);
    const set =
      labels.length === 0
        ? ""
        : `{${labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
    text += `${family.name}${sample.suffix ?? ""}${set} ${formatValue(sample.value)}\n`;
  }
  return text;
}

/** A label value as the format requires: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and line feed escaped (a double quote stays). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A sample value: Go's float syntax, with `+Inf`, `-Inf` and `NaN` spelled as the format does. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/**
 * Owned child processes running in this process (ripgrep, git, ctags), by executable name. Kept
 * per process, not per surface: children are the process's resource, and the spawn sites are
 * deep in the code search, below any surface's objects.
 */
const running = new Map<string, number>();

/** Counts a child started (`+1`) or reaped (`-1`). */
export function countChild(program: string, delta: 1 | -1): void {
  const now = (running.get(program) ?? 0) + delta;
  running.set(program, Math.max(0, now));
}

const childProcesses = new Sampled(
  "evident_child_processes_running",
  "Owned child processes running now (ripgrep, git, ctags), by executable name.",
  "gauge",
  () => [...running].map(([program, value]) => ({ labels: { program }, value })),
);
