import * as assert from "node:assert/strict";
import { CancellationLike, Debouncer, Timers } from "../../src/debounce";

/** A manual clock, so the tests say exactly when time passes (no sleeping, no flakiness). */
class FakeTimers implements Timers {
  now = 0;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.queue.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((t) => t.id !== handle);
  }
  advance(ms: number): void {
    this.now += ms;
    const due = this.queue.filter((t) => t.at <= this.now);
    this.queue = this.queue.filter((t) => t.at > this.now);
    due.forEach((t) => t.fn());
  }
}

class Token implements CancellationLike {
  isCancellationRequested = false;
  private listeners: (() => void)[] = [];
  onCancellationRequested(l: () => void) {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  }
  cancel() {
    this.isCancellationRequested = true;
    this.listeners.forEach((l) => l());
  }
}

suite("debounce", () => {
  test("resolves true once the delay has passed without a newer request", async () => {
    const timers = new FakeTimers();
    const d = new Debouncer(() => 300, timers);
    const waited = d.wait();
    timers.advance(299);
    let settled = false;
    void waited.then(() => (settled = true));
    await Promise.resolve();
    assert.equal(settled, false);
    timers.advance(1);
    assert.equal(await waited, true);
  });

  test("a keystroke within the delay supersedes the previous wait", async () => {
    const timers = new FakeTimers();
    const d = new Debouncer(() => 300, timers);
    const first = d.wait();
    timers.advance(200);
    const second = d.wait();
    assert.equal(await first, false);
    timers.advance(200);
    let settled = false;
    void second.then(() => (settled = true));
    await Promise.resolve();
    assert.equal(settled, false, "the delay restarts from the last keystroke");
    timers.advance(100);
    assert.equal(await second, true);
  });

  test("cancellation (VS Code cancels the provider call) resolves false at once", async () => {
    const timers = new FakeTimers();
    const d = new Debouncer(() => 300, timers);
    const token = new Token();
    const waited = d.wait(token);
    token.cancel();
    assert.equal(await waited, false);
    const already = new Token();
    already.cancel();
    assert.equal(await d.wait(already), false);
  });

  test("the delay is read at each wait, so a changed setting applies to the next keystroke", async () => {
    const timers = new FakeTimers();
    let delay = 300;
    const d = new Debouncer(() => delay, timers);
    delay = 50;
    const waited = d.wait();
    timers.advance(50);
    assert.equal(await waited, true);
  });

  test("a wait can bring its own delay (the document's folder setting)", async () => {
    const timers = new FakeTimers();
    const d = new Debouncer(() => 300, timers);
    const waited = d.wait(undefined, 20);
    timers.advance(20);
    assert.equal(await waited, true);
  });
});
