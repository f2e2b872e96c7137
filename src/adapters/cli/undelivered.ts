/**
 * Whether a command's answer reached its standard output, decided once as the process ends.
 *
 * A write the output refused (a full disk: ENOSPC, EIO...) is a failure. A reader that stopped
 * reading (EPIPE, as `| head -c1` does) chose to: the command ends quietly, as Unix tools do.
 * A closed standard output (`>&-`) never errs: Node opens /dev/null read-write in place of a
 * closed descriptor 0-2 before any script runs, so every write "succeeds". On Linux that
 * stand-in shows in /proc/self/fdinfo (a shell's `>/dev/null` opens it write-only), and a
 * command that claims success with it is told it delivered nothing.
 */
import { fstatSync, readFileSync, statSync } from "node:fs";

/**
 * The message saying why the answer was not delivered, in fixed words, or undefined when it was
 * (or may have been). `succeeded`: the command exits 0, claiming its answer was written.
 */
export function undeliveredOutput(
  writeError: NodeJS.ErrnoException | undefined,
  succeeded: boolean,
): string | undefined {
  if (writeError !== undefined) {
    return writeError.code === "EPIPE"
      ? undefined
      : `Could not write the output (${writeError.code ?? "unknown error"}).`;
  }
  if (succeeded && stdoutIsClosedStandIn()) {
    return (
      "Could not write the output: standard output is closed (or is /dev/null opened read-write, " +
      "which is what Node makes of a closed one). To discard the output, redirect it with >/dev/null."
    );
  }
  return undefined;
}

/**
 * Descriptor 1 is /dev/null opened read-write (what Node makes of a closed standard output) and
 * descriptor 2 is not /dev/null: a caller that discards both (Node's `stdio: "ignore"`, both
 * streams to `subprocess.DEVNULL`) runs the command for its exit status, and would not see a
 * message anyway.
 */
function stdoutIsClosedStandIn(): boolean {
  try {
    const devNull = statSync("/dev/null").rdev;
    const isDevNull = (fd: number) => {
      const stat = fstatSync(fd);
      return stat.isCharacterDevice() && stat.rdev === devNull;
    };
    if (!isDevNull(1) || isDevNull(2)) return false;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync("/proc/self/fdinfo/1", "utf8"))?.[1];
    // O_ACCMODE is the low two bits: 1 write-only, 2 read-write.
    return flags !== undefined && (Number.parseInt(flags, 8) & 0o3) === 0o2;
  } catch {
    // No /proc (macOS, Windows) or no /dev/null: nothing tells the stand-in from a real file.
    return false;
  }
}
