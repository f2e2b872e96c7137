/**
 * A progress spinner for people at a terminal. It draws only when stderr is a TTY, so piped
 * and CI output stays clean, and it never touches stdout (the result document).
 */
import type { ProgressUpdate } from "../../tools/tool.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Spinner {
  update(progress: ProgressUpdate): void;
  stop(): void;
}

export function createSpinner(
  stream: NodeJS.WriteStream | { isTTY?: boolean; write(s: string): boolean },
): Spinner {
  if (!stream.isTTY) return { update() {}, stop() {} };
  let frame = 0;
  let message = "working";
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    stream.write(`\r\x1b[2K${FRAMES[frame % FRAMES.length]} ${message}`);
    frame += 1;
  };
  return {
    update(progress) {
      message =
        progress.message ?? `${progress.progress}${progress.total === undefined ? "" : `/${progress.total}`}`;
      if (timer === undefined) {
        timer = setInterval(draw, 80);
        timer.unref();
      }
      draw();
    },
    stop() {
      if (timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
        stream.write("\r\x1b[2K");
      }
    },
  };
}
