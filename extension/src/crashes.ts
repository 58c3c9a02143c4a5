// What happens when the language server's process dies unexpectedly: whether the language client
// restarts it, and what the user is told. No VS Code here (the unit tests load it); client.ts wires
// it into vscode-languageclient's error handler.

/** Crashes within CRASH_WINDOW_MS that stop the automatic restarts: the first two crashes restart
 * the server; the third within three minutes leaves it stopped (the status says so and a
 * notification offers "Restart"). A server that dies again and again while loading (a broken model
 * file, a crashing llama.cpp build, too little memory) would otherwise load and die in a loop, each
 * time with a notification; three tries are enough to ride out a one-off kill (the OOM killer, a
 * stray signal). VS Code's default handler allows five in three minutes. */
export const MAX_CRASHES = 3;
export const CRASH_WINDOW_MS = 3 * 60 * 1000;

/** How many lines of the server's own output (stderr and its log messages) are kept for the
 * notification, and how many of them it shows. */
export const TAIL_LINES = 40;
export const SHOWN_LINES = 3;
const SHOWN_CHARS = 240;

export interface CrashVerdict {
  /** Restart the server automatically. */
  restart: boolean;
  /** Crashes within the window, this one included. */
  count: number;
}

/** The times of the recent crashes; a restart the user asks for starts afresh. */
export class CrashHistory {
  private times: number[] = [];

  constructor(
    readonly max = MAX_CRASHES,
    readonly windowMs = CRASH_WINDOW_MS,
  ) {}

  record(now: number): CrashVerdict {
    this.times = this.times.filter((t) => now - t < this.windowMs);
    this.times.push(now);
    return { restart: this.times.length < this.max, count: this.times.length };
  }

  reset(): void {
    this.times = [];
  }
}

/** The last lines written to the output channel by the server's side (its stderr, which arrives
 * in pieces, and its log messages): what the crash notification quotes. */
export class LogTail {
  private readonly lines: string[] = [];
  private partial = "";

  constructor(readonly size = TAIL_LINES) {}

  /** Text as it comes (stderr): complete lines are kept, the rest waits for its line end. */
  append(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    for (const line of parts) this.push(line);
  }

  /** One whole message (it may span lines). */
  line(message: string): void {
    if (this.partial) {
      this.push(this.partial);
      this.partial = "";
    }
    for (const line of message.split(/\r?\n/)) this.push(line);
  }

  /** The last `n` non-empty lines, oldest first (a line still waiting for its end included). */
  last(n: number): string[] {
    const all = this.partial.trim() ? [...this.lines, this.partial] : this.lines;
    return all.slice(-n);
  }

  private push(line: string): void {
    if (!line.trim()) return;
    this.lines.push(line.trimEnd());
    if (this.lines.length > this.size) this.lines.splice(0, this.lines.length - this.size);
  }
}

/** vscode-languageclient's own lines about the connection and the process (not the server's): left
 * out of the tail, which quotes what the server itself said. */
const CLIENT_MESSAGES = [
  /^Server process exited with /,
  /^Connection to server got closed\./,
  /^Restarting server failed/,
  /^Stopping server (failed|timed out)/,
  /^Handling connection (error|close) failed/,
  /client: couldn't create connection to server/,
  /: connection to server is erroring/,
];

export function isClientMessage(message: string): boolean {
  return CLIENT_MESSAGES.some((re) => re.test(message));
}

/** How the process ended, from vscode-languageclient's line "Server process exited with code 1."
 * or "... with signal SIGKILL." (undefined for any other line). */
export function exitFromLog(message: string): string | undefined {
  const m = /^Server process exited with (code|signal) (\S+?)\.?$/.exec(message.trim());
  return m ? `${m[1]} ${m[2]}` : undefined;
}

function minutes(ms: number): string {
  const m = ms / 60000;
  return `${Number.isInteger(m) ? m : m.toFixed(1)} minute${m === 1 ? "" : "s"}`;
}

/** What a bus error means for qualm: the model's file is memory-mapped, and reading a page of it
 * that is gone (the file cut or rewritten on disk while the server ran) kills the process. The
 * server checks the file before each piece of model work (server/qualm/model/file_stamp.py), so
 * this is a change in the middle of one. */
export function busErrorHint(modelFile: string | undefined): string {
  const file = modelFile ? `the model file ${modelFile}` : "the model file";
  return ` A bus error most often means that ${file} was cut or rewritten on disk while qualm read it: if the restart says the file is damaged, download it again.`;
}

/** The crash notification's text: what happened, what happens next, and the server's last lines.
 * ``modelFile``: the loaded model's file, named where the exit says a mapped file went away. */
export function crashMessage(verdict: CrashVerdict, exit: string | undefined, tail: readonly string[], modelFile?: string, max = MAX_CRASHES, windowMs = CRASH_WINDOW_MS): string {
  const how = exit ? ` (exited with ${exit})` : "";
  const hint = exit === "signal SIGBUS" ? busErrorHint(modelFile) : "";
  const next = (verdict.restart
    ? `qualm: the language server stopped unexpectedly${how}; restarting it (crash ${verdict.count} of ${max} within ${minutes(windowMs)} before qualm stops restarting it).`
    : `qualm: the language server stopped unexpectedly${how}, ${verdict.count} times within ${minutes(windowMs)}: it is not restarted automatically any more.`) + hint;
  const shown = tail.slice(-SHOWN_LINES).map((l) => (l.length > SHOWN_CHARS ? l.slice(0, SHOWN_CHARS - 1) + "…" : l));
  return shown.length ? `${next} Its last lines: ${shown.join(" ⏎ ")}` : `${next} It wrote nothing before it stopped.`;
}

/** The status line while the server is down after a crash. */
export function crashStatus(verdict: CrashVerdict, exit: string | undefined, windowMs = CRASH_WINDOW_MS): string {
  const how = exit ? ` (${exit})` : "";
  return verdict.restart
    ? `the server stopped unexpectedly${how}: restarting it`
    : `the server stopped unexpectedly${how} ${verdict.count} times within ${minutes(windowMs)}: not restarted automatically (qualm: Restart Language Server)`;
}
