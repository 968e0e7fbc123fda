// Progress of a long copy on stderr: a bar redrawn in place at a terminal, otherwise a line every
// few seconds, so a log file gets a readable trail instead of control characters.

const BAR_WIDTH = 30;
/** How often a line is written when stderr is not a terminal. */
const LINE_EVERY_MS = 5_000;
/** How often the bar is redrawn at a terminal. */
const REDRAW_EVERY_MS = 100;

const seconds = (/** @type {number} */ s) =>
  s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`
      : `${Math.round(s)}s`;

/**
 * A progress report of `total` items named `what`; `tick()` counts one done, `end()` draws the
 * last state and leaves the line. `stream` and `now` are for tests.
 * @param {number} total
 * @param {string} what
 * @param {{ stream?: NodeJS.WriteStream, now?: () => number, interactive?: boolean }} [options]
 */
export function progress(total, what, options = {}) {
  const { stream = process.stderr, now = () => performance.now() } = options;
  const interactive = options.interactive ?? stream.isTTY === true;
  const started = now();
  let done = 0;
  let lastDrawn = -Infinity;

  const line = () => {
    const elapsed = (now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    const eta = rate > 0 && done < total ? `, ETA ${seconds((total - done) / rate)}` : "";
    return `${done}/${total} ${what}, ${rate.toFixed(rate < 10 ? 1 : 0)}/s${eta}`;
  };
  const draw = (force = false) => {
    const at = now();
    if (!force && at - lastDrawn < (interactive ? REDRAW_EVERY_MS : LINE_EVERY_MS)) return;
    lastDrawn = at;
    if (interactive) {
      const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
      const bar = "█".repeat(filled) + "░".repeat(BAR_WIDTH - filled);
      stream.write(`\r\x1b[K[${bar}] ${line()}`);
    } else {
      stream.write(`${line()}\n`);
    }
  };
  // A line a while after the start too, not only after each item: a slow first item shows life.
  const timer = setInterval(() => draw(), interactive ? REDRAW_EVERY_MS : LINE_EVERY_MS);
  timer.unref();
  return {
    tick() {
      done++;
      draw();
    },
    end() {
      clearInterval(timer);
      draw(true);
      if (interactive) stream.write("\n");
    },
  };
}
