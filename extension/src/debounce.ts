// Waiting for the user to pause before asking the model. Each new wait supersedes the previous one
// (which then resolves false), so only the last keystroke's request reaches the server.

export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class Debouncer {
  private pending?: { handle: unknown; resolve: (ok: boolean) => void };

  constructor(private readonly delayMs: () => number, private readonly timers: Timers = realTimers) {}

  /** Resolves true after the delay (`delayMs`, else the constructor's), false if superseded by a newer
   * wait or cancelled first. */
  wait(token?: CancellationLike, delayMs?: number): Promise<boolean> {
    this.supersede();
    if (token?.isCancellationRequested) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let sub: { dispose(): void } | undefined;
      const finish = (ok: boolean) => {
        sub?.dispose();
        if (this.pending?.resolve === finish) this.pending = undefined;
        resolve(ok);
      };
      const handle = this.timers.setTimeout(() => finish(true), Math.max(0, delayMs ?? this.delayMs()));
      this.pending = { handle, resolve: finish };
      sub = token?.onCancellationRequested(() => {
        this.timers.clearTimeout(handle);
        finish(false);
      });
    });
  }

  /** Drop the pending wait, if any (it resolves false). */
  supersede(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.timers.clearTimeout(p.handle);
    p.resolve(false);
  }
}
