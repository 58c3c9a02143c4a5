import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { candidates, chooseInterpreter, qualmCacheDir } from "../../src/python";
import { RENAMED_SETTINGS, SERVER_SECTIONS, answerConfiguration, hasUserValue, readClientSettings, serverSettings, warnOnce } from "../../src/settings";

type Schema = { default: unknown; deprecationMessage?: string; markdownDeprecationMessage?: string; order?: number } & Record<string, unknown>;
const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8"));
// contributes.configuration is a list of titled sections; every setting is in one of them.
const sections: { title: string; properties: Record<string, Schema> }[] = manifest.contributes.configuration;
const contributed: Record<string, Schema> = Object.assign({}, ...sections.map((s) => s.properties));

/** A getter and an IsSet over the settings a user set (keys without `qualm.`). */
function userSettings(values: Record<string, unknown>) {
  const read: string[] = [];
  return {
    read,
    get: <T>(key: string, fallback: T) => {
      read.push(key);
      return key in values ? (values[key] as T) : fallback;
    },
    isSet: (key: string) => key in values,
  };
}
const noWarning = (oldKey: string) => assert.fail(`no old name was read, yet ${oldKey} was reported`);

suite("settings", () => {
  test("only the server's sections reach the server, as plain JSON", () => {
    const all = {
      python: "/x/python",
      inline: { enabled: true, debounce_ms: 10 },
      highlights: { enabled: false },
      model: { path: null, n_gpu_layers: -1 },
      lexical: { top_k: 5, level_thresholds: [0.5, 1, 2] },
      trace: { server: "off" },
    };
    assert.deepEqual(serverSettings(all), { model: { path: null, n_gpu_layers: -1 }, lexical: { top_k: 5, level_thresholds: [0.5, 1, 2] } });
    assert.deepEqual(serverSettings(undefined), {});
  });

  test("client settings fall back to their defaults and reject a bad level", () => {
    const user = userSettings({ "highlights.minimum_level": "extreme", "inline.debounce_ms": -5 });
    const s = readClientSettings(user.get, user.isSet, noWarning);
    assert.equal(s.minimumLevel, "low");
    assert.equal(s.debounceMs, 0);
    assert.equal(s.inlineEnabled, true);
  });

  test("every client setting the extension reads is contributed, with the same default; the ghost-text budget is the server's", () => {
    const read: string[] = [];
    const s = readClientSettings(<T>(key: string, fallback: T) => {
      read.push(key);
      assert.ok(`qualm.${key}` in contributed, `qualm.${key} is read but not contributed`);
      assert.deepEqual(contributed[`qualm.${key}`].default, fallback, `qualm.${key}: the fallback differs from package.json's default`);
      return fallback;
    }, () => false, noWarning);
    assert.ok(read.length >= 5);
    assert.ok(!("maxTokens" in s));
    assert.ok(!("qualm.inline.maxTokens" in contributed), "qualm.inline.maxTokens is gone");
    assert.ok("qualm.editor.completion_max_tokens" in contributed);
    // client settings never sit under a server section (the server would reject them)
    for (const key of read) assert.ok(!(SERVER_SECTIONS as readonly string[]).includes(key.split(".")[0]), key);
  });
});

suite("renamed settings: the old camelCase names still count", () => {
  test("a value under the old name is read while the new name is not set, and the log is told once", () => {
    const told: string[] = [];
    const onOldName = warnOnce((m) => told.push(m));
    const user = userSettings({ "inline.debounceMs": 150, "highlights.minimumLevel": "high" });
    for (let i = 0; i < 3; i++) {
      const s = readClientSettings(user.get, user.isSet, onOldName);
      assert.equal(s.debounceMs, 150);
      assert.equal(s.minimumLevel, "high");
    }
    assert.equal(told.length, 2, told.join("\n"));
    assert.ok(told.some((m) => /qualm\.inline\.debounceMs is deprecated.*renamed to qualm\.inline\.debounce_ms/.test(m)), told.join("\n"));
    assert.ok(told.some((m) => /qualm\.highlights\.minimumLevel is deprecated.*renamed to qualm\.highlights\.minimum_level/.test(m)), told.join("\n"));
  });

  test("the new name wins where both are set, and nothing is logged", () => {
    const user = userSettings({ "inline.debounce_ms": 50, "inline.debounceMs": 900, "highlights.minimum_level": "medium", "highlights.minimumLevel": "high" });
    const s = readClientSettings(user.get, user.isSet, noWarning);
    assert.equal(s.debounceMs, 50);
    assert.equal(s.minimumLevel, "medium");
    assert.ok(!user.read.includes("inline.debounceMs") && !user.read.includes("highlights.minimumLevel"), user.read.join(", "));
  });

  test("neither set: the defaults, and nothing is logged", () => {
    const user = userSettings({});
    const s = readClientSettings(user.get, user.isSet, noWarning);
    assert.equal(s.debounceMs, 400);
    assert.equal(s.minimumLevel, "low");
  });

  test("an old name's bad value is refused as the new name's would be", () => {
    const user = userSettings({ "inline.debounceMs": -1, "highlights.minimumLevel": "extreme" });
    const s = readClientSettings(user.get, user.isSet, () => undefined);
    assert.equal(s.debounceMs, 0);
    assert.equal(s.minimumLevel, "low");
  });

  test("a user's value in any scope counts as set; a default alone does not", () => {
    assert.equal(hasUserValue(undefined), false);
    assert.equal(hasUserValue({ key: "qualm.inline.debounceMs", defaultValue: 400 }), false);
    for (const scope of ["globalValue", "workspaceValue", "workspaceFolderValue", "globalLanguageValue", "workspaceLanguageValue", "workspaceFolderLanguageValue"]) {
      assert.equal(hasUserValue({ key: "qualm.inline.debounceMs", defaultValue: 400, [scope]: 150 }), true, scope);
    }
  });

  test("package.json declares both names: the new one, and the old one deprecated with a message that names the new one", () => {
    const advanced = sections.find((s) => s.title === "Advanced");
    assert.ok(advanced, "an Advanced section");
    for (const [newKey, oldKey] of Object.entries(RENAMED_SETTINGS)) {
      const now: Schema | undefined = contributed[`qualm.${newKey}`];
      const was: Schema | undefined = advanced.properties[`qualm.${oldKey}`];
      assert.ok(now, `qualm.${newKey} is contributed`);
      assert.ok(was, `qualm.${oldKey} is still contributed, in Advanced`);
      assert.equal(now.deprecationMessage, undefined);
      assert.ok(was.deprecationMessage?.includes(`qualm.${newKey}`), `qualm.${oldKey}: deprecationMessage names qualm.${newKey}`);
      assert.ok(was.markdownDeprecationMessage?.includes(`#qualm.${newKey}#`), `qualm.${oldKey}: markdownDeprecationMessage links qualm.${newKey}`);
      // the same values are valid under both names
      const schema = (s: Schema) => ({ type: s.type, default: s.default, minimum: s.minimum, maximum: s.maximum, enum: s.enum });
      assert.deepEqual(schema(was), schema(now), oldKey);
    }
  });

  test("every other setting's name is snake_case", () => {
    const old = new Set(Object.values(RENAMED_SETTINGS).map((k) => `qualm.${k}`));
    for (const key of Object.keys(contributed)) {
      if (old.has(key)) continue;
      assert.match(key, /^qualm(\.[a-z][a-z0-9_]*)+$/, key);
    }
  });
});

suite("workspace/configuration: each item in its scope, filtered for the server", () => {
  // A window with user settings and two folders (file:///ws/a, file:///ws/b) that override some.
  const user: Record<string, unknown> = {
    qualm: { python: "", inline: { enabled: true }, model: { path: null, n_ctx: 4096 }, editor: { diagnostic_level: "medium" } },
    editor: { tabSize: 4 },
  };
  const folderA: Record<string, unknown> = {
    qualm: { python: "/a/python", inline: { enabled: false }, model: { path: "/a/model.gguf", n_ctx: 4096 }, editor: { diagnostic_level: "low" } },
    editor: { tabSize: 2 },
  };
  const folderB: Record<string, unknown> = {
    qualm: { python: "", inline: { enabled: true }, model: { path: null, n_ctx: 4096 }, editor: { diagnostic_level: "high" }, functional: { python: "${workspaceFolder}/.venv/bin/python" } },
    editor: { tabSize: 4 },
  };
  const calls: [string, string | undefined][] = [];
  const read = (section: string, scopeUri: string | undefined): unknown => {
    calls.push([section, scopeUri]);
    let v: unknown = scopeUri?.startsWith("file:///ws/a") ? folderA : scopeUri?.startsWith("file:///ws/b") ? folderB : user;
    for (const part of section.split(".")) v = (v as Record<string, unknown> | undefined)?.[part];
    return v;
  };
  const folderOf = (scopeUri: string) => (scopeUri.startsWith("file:///ws/a") ? "/ws/a" : scopeUri.startsWith("file:///ws/b") ? "/ws/b" : undefined);

  test("what the server asks (qualm per workspace folder, then the window's) is read in each scope, and only the server's sections are answered", () => {
    calls.length = 0;
    // qualm.lsp.features.lifecycle._pull_configuration: one item per folder with the folder's URI as
    // scopeUri, then one without (tests/lsp/test_folder_settings.py checks that the server sends this)
    const [a, b, window] = answerConfiguration(
      [
        { section: "qualm", scopeUri: "file:///ws/a" },
        { section: "qualm", scopeUri: "file:///ws/b" },
        { section: "qualm" },
      ],
      read,
      { workspaceFolder: "/ws/a", folderOf },
    );
    assert.deepEqual(calls, [
      ["qualm", "file:///ws/a"],
      ["qualm", "file:///ws/b"],
      ["qualm", undefined],
    ]);
    assert.deepEqual(a, { model: { path: "/a/model.gguf", n_ctx: 4096 }, editor: { diagnostic_level: "low" } });
    // ${workspaceFolder} in a folder's settings is that folder, not the first one
    assert.deepEqual(b, { model: { path: null, n_ctx: 4096 }, editor: { diagnostic_level: "high" }, functional: { python: "/ws/b/.venv/bin/python" } });
    assert.deepEqual(window, { model: { path: null, n_ctx: 4096 }, editor: { diagnostic_level: "medium" } });
  });

  test("a workspace folder may set every server setting but the model's, and the extension's per-document ones", () => {
    // VS Code ignores a folder's value of a `window` setting in a workspace of several folders
    const perFolder = ["inline", "highlights", "editor", "lexical", "generation", "algorithmic", "functional"];
    for (const [key, schema] of Object.entries(contributed)) {
      const top = key.split(".")[1];
      if (perFolder.includes(top) || key === "qualm.ensemble.weights") {
        assert.ok(schema.scope === "resource" || schema.scope === "machine-overridable", `${key}: scope ${schema.scope}`);
      }
      // one model per server: never per document (the server takes the window's and logs a folder's other value)
      if (top === "model" || key === "qualm.ensemble.calibration_file") assert.notEqual(schema.scope, "resource", key);
    }
  });

  test("${workspaceFolder} in the window's settings is the first folder", () => {
    const [window] = answerConfiguration([{ section: "qualm" }], () => folderB.qualm, { workspaceFolder: "/ws/a", folderOf });
    assert.deepEqual((window as Record<string, unknown>).functional, { python: "/ws/a/.venv/bin/python" });
    const [outside] = answerConfiguration([{ section: "qualm.functional", scopeUri: "file:///elsewhere" }], () => ({ python: "${workspaceFolder}/py" }), { workspaceFolder: "/ws/a", folderOf });
    assert.deepEqual(outside, { python: "/ws/a/py" }); // a scope in no folder: as the window's
  });

  test("a server section or setting is passed as is; the client's own qualm settings are not; other sections are", () => {
    const answers = answerConfiguration(
      [
        { section: "qualm.model", scopeUri: "file:///ws/a" },
        { section: "qualm.editor.diagnostic_level" },
        { section: "qualm.inline" },
        { section: "qualm.python", scopeUri: "file:///ws/a" },
        { section: "editor.tabSize", scopeUri: "file:///ws/a" },
        { section: "qualm.model.missing" },
        {},
      ],
      read,
    );
    assert.deepEqual(answers, [{ path: "/a/model.gguf", n_ctx: 4096 }, "medium", null, null, 2, null, null]);
  });

  test("the answer is plain JSON, not the live configuration object", () => {
    const live = { model: { path: "/m.gguf" }, get: () => 1 };
    const [answer] = answerConfiguration([{ section: "qualm" }], () => live);
    (live.model as { path: string }).path = "/changed.gguf";
    assert.deepEqual(answer, { model: { path: "/m.gguf" } });
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

suite("the editor's interpreter for the tests", () => {
  const section = { functional: { python: "", n_tests: 10 }, model: { path: null }, python: "/server/python" };

  test("fills qualm.functional.python where the user left it empty, in the first settings and in every pull", () => {
    const defaults = { testsPython: "/proj/.venv/bin/python" };
    assert.deepEqual(serverSettings(section, defaults).functional, { python: "/proj/.venv/bin/python", n_tests: 10 });
    const read = (s: string) => (s === "qualm" ? section : s === "qualm.functional" ? section.functional : undefined);
    const [whole, functional] = answerConfiguration([{ section: "qualm" }, { section: "qualm.functional" }], read, defaults) as Record<string, unknown>[];
    assert.deepEqual(whole.functional, { python: "/proj/.venv/bin/python", n_tests: 10 });
    assert.deepEqual(functional, { python: "/proj/.venv/bin/python", n_tests: 10 });
  });

  test("never replaces the user's own setting, and adds nothing without an interpreter", () => {
    const own = { ...section, functional: { python: "/mine/python" } };
    assert.deepEqual(serverSettings(own, { testsPython: "/proj/.venv/bin/python" }).functional, { python: "/mine/python" });
    assert.deepEqual(serverSettings(section).functional, { python: "", n_tests: 10 });
    assert.deepEqual(serverSettings(section, { testsPython: undefined }).functional, { python: "", n_tests: 10 });
  });

  test("${workspaceFolder} in the user's own setting is the workspace folder", () => {
    const own = { functional: { python: "${workspaceFolder}/.venv/bin/python" } };
    assert.deepEqual(serverSettings(own, { workspaceFolder: "/home/u/proj", testsPython: "/other" }).functional, { python: "/home/u/proj/.venv/bin/python" });
    assert.deepEqual(serverSettings(own).functional, { python: "${workspaceFolder}/.venv/bin/python" }); // no folder open: as written
  });
});
