// The reporter of `npm test`: Node's own (spec at a terminal, TAP otherwise, as Node chooses),
// then the failed tests by name, and two closing lines: the counts, and what was skipped and why (a test skips only for an
// optional tool it lacks, test/fixtures/optional-tools.ts, and its reason says how to get it).
// With EVIDENT_TEST_DURATIONS=FILE it also writes each test file's wall time there as JSON.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { Readable } from "node:stream";
import { spec, tap } from "node:test/reporters";

export default async function* reporter(source) {
  /** reason -> how many tests or suites it skipped */
  const skipped = new Map();
  /** file -> wall time in ms, from the event Node reports for the file itself */
  const files = new Map();
  const totals = { pass: 0, fail: 0, cancelled: 0 };
  /** the failed tests, named by file and test, so a failure in a long run is found at the end */
  const failed = [];

  async function* observe() {
    for await (const event of source) {
      const { data } = event;
      if ((event.type === "test:pass" || event.type === "test:fail") && data.skip !== undefined) {
        const reason = typeof data.skip === "string" ? data.skip : "(no reason given)";
        skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
      }
      if (
        event.type === "test:fail" &&
        data.skip === undefined &&
        !data.details?.error?.failureType?.startsWith("subtestsFailed")
      ) {
        failed.push(
          `${data.file === undefined ? "" : `${relative(process.cwd(), data.file)}: `}${data.name}`,
        );
      }
      if (event.type === "test:complete" && data.file !== undefined && data.name === data.file) {
        files.set(relative(process.cwd(), data.file), Math.round(data.details?.duration_ms ?? 0));
      }
      if (event.type === "test:diagnostic" && data.nesting === 0) {
        const [name, value] = String(data.message).split(" ");
        if (name in totals) totals[name] = Number(value);
      }
      yield event;
    }
  }

  if (process.stdout.isTTY) {
    for await (const chunk of Readable.from(observe()).pipe(new spec())) yield chunk;
  } else {
    yield* tap(observe());
  }

  const skipCount = [...skipped.values()].reduce((sum, n) => sum + n, 0);
  if (failed.length > 0) yield `\nfailed:\n${failed.map((name) => `  ${name}\n`).join("")}`;
  yield `\ntests: ${totals.pass} passed, ${totals.fail + totals.cancelled} failed, ${skipCount} skipped\n`;
  const reasons = [...skipped].map(([reason, count]) => `${count} × ${reason}`);
  yield reasons.length === 0 ? "skipped: none\n" : `skipped: ${reasons.join("; ")}\n`;

  const out = process.env.EVIDENT_TEST_DURATIONS;
  if (out) {
    const rows = [...files].sort((a, b) => b[1] - a[1]).map(([file, ms]) => ({ file, ms }));
    writeFileSync(out, `${JSON.stringify(rows, null, 2)}\n`);
  }
}
