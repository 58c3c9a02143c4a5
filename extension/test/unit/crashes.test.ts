// After the server's process dies: when the client restarts it, and what the user is told.

import * as assert from "node:assert/strict";
import { CRASH_WINDOW_MS, CrashHistory, LogTail, MAX_CRASHES, crashMessage, crashStatus, exitFromLog, isClientMessage } from "../../src/crashes";

suite("crashes", () => {
  test(`the first ${MAX_CRASHES - 1} crashes within ${CRASH_WINDOW_MS / 60000} minutes restart the server; the ${MAX_CRASHES}th does not`, () => {
    assert.equal(MAX_CRASHES, 3);
    assert.equal(CRASH_WINDOW_MS, 3 * 60 * 1000);
    const h = new CrashHistory();
    assert.deepEqual(h.record(0), { restart: true, count: 1 });
    assert.deepEqual(h.record(60_000), { restart: true, count: 2 });
    assert.deepEqual(h.record(170_000), { restart: false, count: 3 });
  });

  test("crashes older than the window are forgotten; a restart by the user starts afresh", () => {
    const h = new CrashHistory();
    h.record(0);
    h.record(1000);
    assert.deepEqual(h.record(CRASH_WINDOW_MS + 500), { restart: true, count: 2 }, "the first fell out of the window");
    assert.deepEqual(h.record(CRASH_WINDOW_MS + 600), { restart: false, count: 3 });
    h.reset();
    assert.deepEqual(h.record(CRASH_WINDOW_MS + 700), { restart: true, count: 1 });
  });

  test("the tail keeps the last whole lines of what the server wrote, pieces joined", () => {
    const t = new LogTail(3);
    t.append("Traceback (most recent");
    t.append(" call last):\n  File \"x.py\"\n\n");
    t.line("[info] qualm: model loaded");
    t.append("MemoryError\npartial");
    assert.deepEqual(t.last(10), ['  File "x.py"', "[info] qualm: model loaded", "MemoryError", "partial"], "three whole lines kept (no blank one), and the line still waiting for its end");
    assert.deepEqual(t.last(2), ["MemoryError", "partial"]);
    t.line("two\nlines");
    assert.deepEqual(t.last(3), ["partial", "two", "lines"], "a whole message ends the waiting line");
  });

  test("how the process ended, from the language client's line", () => {
    assert.equal(exitFromLog("Server process exited with signal SIGKILL."), "signal SIGKILL");
    assert.equal(exitFromLog("Server process exited with code 1."), "code 1");
    assert.equal(exitFromLog("Connection to server got closed."), undefined);
  });

  test("the language client's own lines are not the server's (the tail quotes the server)", () => {
    for (const m of ["Server process exited with signal SIGKILL.", "Server process exited with code 0.", "Connection to server got closed. Server will restart.", "Restarting server failed", "qualm client: couldn't create connection to server."]) {
      assert.ok(isClientMessage(m), m);
    }
    for (const m of ["qualm: model loaded", "completion: fim prompt of 103 tokens", "Traceback (most recent call last):"]) assert.ok(!isClientMessage(m), m);
  });

  test("the notification says what happened, what comes next and the last lines", () => {
    const restart = crashMessage({ restart: true, count: 1 }, "signal SIGKILL", ["a", "b", "c", "d"]);
    assert.equal(restart, "qualm: the language server stopped unexpectedly (exited with signal SIGKILL); restarting it (crash 1 of 3 within 3 minutes before qualm stops restarting it). Its last lines: b ⏎ c ⏎ d");
    const stop = crashMessage({ restart: false, count: 3 }, undefined, []);
    assert.equal(stop, "qualm: the language server stopped unexpectedly, 3 times within 3 minutes: it is not restarted automatically any more. It wrote nothing before it stopped.");
    assert.match(crashMessage({ restart: true, count: 1 }, "code 1", ["x".repeat(1000)]), /Its last lines: x{239}…$/);
    // a bus error names the model's file (memory-mapped: cut on disk, it kills the server) and what to do
    const bus = crashMessage({ restart: true, count: 1 }, "signal SIGBUS", ["Fatal Python error: Bus error"], "/models/qwen.gguf");
    assert.match(bus, /\(exited with signal SIGBUS\); restarting it .* A bus error most often means that the model file \/models\/qwen\.gguf was cut or rewritten on disk while qualm read it: if the restart says the file is damaged, download it again\. Its last lines: Fatal Python error: Bus error$/);
    assert.ok(!crashMessage({ restart: true, count: 1 }, "signal SIGKILL", [], "/models/qwen.gguf").includes("/models/qwen.gguf"));
    assert.equal(crashStatus({ restart: true, count: 2 }, "code 1"), "the server stopped unexpectedly (code 1): restarting it");
    assert.match(crashStatus({ restart: false, count: 3 }, "signal SIGKILL"), /3 times within 3 minutes: not restarted automatically \(qualm: Restart Language Server\)$/);
  });
});
