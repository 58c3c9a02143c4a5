import * as assert from "node:assert/strict";
import { candidates, chooseInterpreter, qualmCacheDir } from "../../src/python";
import { readClientSettings, serverSettings } from "../../src/settings";

suite("settings", () => {
  test("only the server's sections reach the server, as plain JSON", () => {
    const all = {
      python: "/x/python",
      inline: { enabled: true, debounceMs: 10 },
      highlights: { enabled: false },
      model: { path: null, n_gpu_layers: -1 },
      lexical: { top_k: 5, level_thresholds: [0.5, 1, 2] },
      trace: { server: "off" },
    };
    assert.deepEqual(serverSettings(all), { model: { path: null, n_gpu_layers: -1 }, lexical: { top_k: 5, level_thresholds: [0.5, 1, 2] } });
    assert.deepEqual(serverSettings(undefined), {});
  });

  test("client settings fall back to their defaults and reject a bad level", () => {
    const values: Record<string, unknown> = { "highlights.minimumLevel": "extreme", "inline.debounceMs": -5 };
    const s = readClientSettings(<T>(key: string, fallback: T) => (key in values ? (values[key] as T) : fallback));
    assert.equal(s.minimumLevel, "low");
    assert.equal(s.debounceMs, 0);
    assert.equal(s.inlineEnabled, true);
  });
});

suite("choosing the server's Python", () => {
  const sources = (setting: string, fromExtension?: string, setup: string[] = []) => ({
    setting,
    pythonExtension: async () => fromExtension,
    setupInterpreters: () => setup,
  });

  test("order: Python extension, then qualm's setup, then python3; duplicates once", async () => {
    const c = await candidates(sources("", "/env/bin/python", ["/qualm/.venv/bin/python", "/env/bin/python"]));
    assert.deepEqual(
      c.map((x) => [x.path, x.source]),
      [
        ["/env/bin/python", "Python extension"],
        ["/qualm/.venv/bin/python", "qualm setup"],
        ["python3", "PATH"],
      ],
    );
  });

  test("an explicit setting is the only candidate (never silently replaced)", async () => {
    const c = await candidates(sources("/mine/python", "/env/bin/python"));
    assert.deepEqual(c, [{ path: "/mine/python", source: "qualm.python setting" }]);
  });

  test("the Python extension failing is the same as not having it (mocked: that extension is not installed here)", async () => {
    const c = await candidates({ setting: "", pythonExtension: () => Promise.reject(new Error("boom")), setupInterpreters: () => [] });
    assert.deepEqual(c.map((x) => x.source), ["PATH"]);
  });

  test("the first interpreter that can import qualm wins, and the others' errors are kept for the message", async () => {
    const probe = async (p: string) => (p === "/b" ? { ok: true, detail: "0.1.0" } : { ok: false, detail: "No module named 'qualm'" });
    const choice = await chooseInterpreter(
      [
        { path: "/a", source: "Python extension" },
        { path: "/b", source: "qualm setup" },
        { path: "python3", source: "PATH" },
      ],
      probe,
    );
    assert.equal(choice.chosen?.path, "/b");
    assert.equal(choice.chosen?.version, "0.1.0");
    assert.deepEqual(choice.tried.map((t) => t.candidate.path), ["/a"]);
    const none = await chooseInterpreter([{ path: "/a", source: "PATH" }], probe);
    assert.equal(none.chosen, undefined);
    assert.match(none.tried[0].detail, /No module named/);
  });

  test("qualm's cache folder matches platformdirs on each platform", () => {
    assert.equal(qualmCacheDir({}, "linux", "/home/u"), "/home/u/.cache/qualm");
    assert.equal(qualmCacheDir({ XDG_CACHE_HOME: "/c" }, "linux", "/home/u"), "/c/qualm");
    assert.equal(qualmCacheDir({}, "darwin", "/Users/u"), "/Users/u/Library/Caches/qualm");
    assert.equal(qualmCacheDir({ QUALM_CACHE_DIR: "/q" }, "linux", "/home/u"), "/q");
  });
});
