// Restricted mode: which settings an untrusted workspace may not set (package.json, checked both
// ways against a marker on each setting and against a guess from the names and descriptions), and
// how the client reads them there (trust.ts).

import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ignoredMessage, parseJsonc, restrictedSetIn, restrictedSettings, withUserValues } from "../../src/trust";
import { untrustedSettings } from "../e2e/untrusted";

const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8"));
const PROPS: Record<string, Record<string, unknown>> = Object.assign({}, ...manifest.contributes.configuration.map((s: { properties: object }) => s.properties));
const RESTRICTED: string[] = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;

/** What a restricted setting names, in its `x-restricted` field (a field of qualm's own: VS Code
 * ignores it). The field is the reason next to the setting; restrictedConfigurations is what VS
 * Code and the client read; the test keeps the two equal. */
const REASONS = ["program", "file", "server", "secret", "sandbox"];

/** Words in a setting's name, or phrases in its description, that suggest it names a program, a
 * file or a server: such a setting must be marked, or be listed here with the reason it is not. */
const NAME_HINT = /python|interpreter|path|file|program|executable|command|endpoint|url|uri|template|script|env|backend|sandbox|dir|folder|binary/i;
const DESCRIPTION_HINT = /\binterpreter\b|\bpath to\b|\bURL\b|\bexecutable\b|\btemplate file\b|\bJSON script\b|environment variable|\bcommand line to\b|\bbinary\b/i;
const NOT_RESTRICTED: Record<string, string> = {
  "qualm.algorithmic.plan_programs": "a count: how many of the sampled plans the model writes as code",
};

suite("restricted mode: the manifest", () => {
  test("restrictedConfigurations is exactly the settings marked x-restricted, each with a reason", () => {
    const marked = Object.entries(PROPS)
      .filter(([, schema]) => schema["x-restricted"] !== undefined)
      .map(([key]) => key);
    assert.deepEqual([...RESTRICTED].sort(), [...marked].sort());
    for (const key of marked) assert.ok(REASONS.includes(PROPS[key]["x-restricted"] as string), `${key}: x-restricted is one of ${REASONS.join(", ")}`);
    for (const key of RESTRICTED) assert.ok(PROPS[key], `${key} is a declared setting`);
    assert.equal(new Set(RESTRICTED).size, RESTRICTED.length, "each once");
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, "limited");
  });

  test("every setting whose name or description suggests a program, file or server is restricted (or says why not)", () => {
    for (const [key, schema] of Object.entries(PROPS)) {
      const name = key.replace(/^qualm\./, "");
      const description = String(schema.markdownDescription ?? schema.description ?? "");
      const hint = NAME_HINT.exec(name)?.[0] ?? DESCRIPTION_HINT.exec(description)?.[0];
      if (!hint) continue;
      assert.ok(RESTRICTED.includes(key) || NOT_RESTRICTED[key], `${key} (${JSON.stringify(hint)}) names a program, file or server? restrict it (x-restricted and restrictedConfigurations) or say why not in NOT_RESTRICTED`);
    }
    for (const key of Object.keys(NOT_RESTRICTED)) assert.ok(PROPS[key] && !RESTRICTED.includes(key), `${key} is declared and not restricted`);
  });

  test("the known program and file settings are among them", () => {
    for (const key of ["qualm.python", "qualm.functional.python", "qualm.model.path", "qualm.model.backend", "qualm.ensemble.calibration_file", "qualm.model.chat_template", "qualm.model.endpoint", "qualm.model.api_key_env"]) {
      assert.ok(RESTRICTED.includes(key), key);
    }
  });

  test("the client reads the list from package.json (the list VS Code reads)", () => {
    assert.deepEqual(restrictedSettings(manifest), RESTRICTED);
    assert.deepEqual(restrictedSettings({}), []);
    assert.deepEqual(restrictedSettings({ capabilities: { untrustedWorkspaces: { restrictedConfigurations: ["a", 3] } } }), ["a"]);
  });
});

suite("restricted mode: reading settings", () => {
  const restricted = ["qualm.python", "qualm.model.path", "qualm.model.chat_template", "qualm.ensemble.calibration_file"];
  const user: Record<string, unknown> = { "qualm.python": "", "qualm.model.path": "/home/me/model.gguf", "qualm.ensemble.calibration_file": null };
  const userValue = (key: string) => user[key];

  test("the whole `qualm` section: every restricted key is the user's, whatever the workspace wrote", () => {
    const read = {
      python: "/repo/evil-python",
      model: { path: "/repo/evil.gguf", chat_template: "/repo/evil.jinja", n_ctx: 2048 },
      ensemble: { calibration_file: "/repo/evil.json", weights: { lexical: 1 } },
      lexical: { top_k: 3 },
    };
    const before = JSON.stringify(read);
    assert.deepEqual(withUserValues("qualm", read, restricted, userValue), {
      python: "",
      model: { path: "/home/me/model.gguf", n_ctx: 2048 }, // the template: no user value, no default here: absent
      ensemble: { calibration_file: null, weights: { lexical: 1 } },
      lexical: { top_k: 3 },
    });
    assert.equal(JSON.stringify(read), before, "what was read is not changed");
  });

  test("a sub-section, and one setting", () => {
    assert.deepEqual(withUserValues("qualm.model", { path: "/repo/evil.gguf", n_ctx: 2048 }, restricted, userValue), { path: "/home/me/model.gguf", n_ctx: 2048 });
    assert.equal(withUserValues("qualm.model.path", "/repo/evil.gguf", restricted, userValue), "/home/me/model.gguf");
    assert.equal(withUserValues("qualm.python", "/repo/evil-python", restricted, userValue), "");
    assert.equal(withUserValues("qualm.model.chat_template", "/repo/evil.jinja", restricted, userValue), undefined);
    // a restricted key missing from what was read gets the user's value in
    assert.deepEqual(withUserValues("qualm", { lexical: {} }, restricted, userValue), { python: "", model: { path: "/home/me/model.gguf" }, ensemble: { calibration_file: null }, lexical: {} });
  });

  test("sections without a restricted setting come back as they were", () => {
    const lexical = { top_k: 3 };
    assert.equal(withUserValues("qualm.lexical", lexical, restricted, userValue), lexical);
    assert.equal(withUserValues("qualm.model.n_ctx", 2048, restricted, userValue), 2048);
    assert.deepEqual(withUserValues("editor", { tabSize: 2 }, restricted, userValue), { tabSize: 2 });
    assert.equal(withUserValues("qualm", undefined, restricted, userValue), undefined);
  });

  test("the whole configuration (no section)", () => {
    const out = withUserValues("", { qualm: { python: "/repo/evil" }, editor: {} }, ["qualm.python"], () => "/usr/bin/python3");
    assert.deepEqual(out, { qualm: { python: "/usr/bin/python3" }, editor: {} });
  });
});

suite("restricted mode: what a workspace's settings file sets", () => {
  const restricted = ["qualm.python", "qualm.model.path", "qualm.functional.python"];

  test("flat names, objects under a part of the name, language blocks", () => {
    assert.deepEqual(restrictedSetIn({ "qualm.python": "/x", "qualm.inline.enabled": false }, restricted), ["qualm.python"]);
    assert.deepEqual(restrictedSetIn({ "qualm.model": { path: "/x.gguf", n_ctx: 1 } }, restricted), ["qualm.model.path"]);
    assert.deepEqual(restrictedSetIn({ qualm: { functional: { python: "/p" } } }, restricted), ["qualm.functional.python"]);
    assert.deepEqual(restrictedSetIn({ "[python]": { "qualm.python": "/x" } }, restricted), ["qualm.python"]);
    assert.deepEqual(restrictedSetIn({ "editor.tabSize": 2, "qualm.model": { n_ctx: 1 } }, restricted), []);
    assert.deepEqual(restrictedSetIn(undefined, restricted), []);
    assert.deepEqual(restrictedSetIn([1, 2], restricted), []);
  });

  test("settings files are JSON with comments and trailing commas", () => {
    const text = `{
      // the interpreter
      "qualm.python": "/repo/py // not a comment", /* a block
      comment */ "url": "http://x/*y*/",
      "list": [1, 2,],
      "quote": "a \\" b",
    }`;
    assert.deepEqual(parseJsonc(text), { "qualm.python": "/repo/py // not a comment", url: "http://x/*y*/", list: [1, 2], quote: 'a " b' });
    assert.deepEqual(parseJsonc(""), {});
    assert.deepEqual(parseJsonc("  // nothing\n"), {});
    assert.equal(parseJsonc("{ not json"), undefined);
  });

  test("the user is told which settings were ignored, where, and why", () => {
    const one = ignoredMessage([{ key: "qualm.python", where: ".vscode/settings.json" }]);
    assert.match(one, /^qualm: this workspace is not trusted \(Restricted Mode\), so its setting qualm\.python \(\.vscode\/settings\.json\) is ignored: /);
    assert.match(one, /a repository you open cannot choose them/);
    assert.match(one, /Trust the workspace to use them\.$/);
    const two = ignoredMessage([
      { key: "qualm.python", where: ".vscode/settings.json" },
      { key: "qualm.model.path", where: ".vscode/settings.json" },
      { key: "qualm.python", where: "app.code-workspace" },
      { key: "qualm.python", where: "app.code-workspace" },
    ]);
    assert.match(two, /its settings qualm\.python \(\.vscode\/settings\.json, app\.code-workspace\), qualm\.model\.path \(\.vscode\/settings\.json\) are ignored/);
  });
});

suite("restricted mode: the e2e suite's workspace settings need qualm's own filter", () => {
  // What an extension reads in an untrusted workspace, as VS Code gives it: VS Code drops a
  // workspace value of a restricted setting under its flat name, and nothing else.
  const vscodeView = (settings: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(settings)) {
      if (RESTRICTED.includes(key)) continue; // what VS Code hides itself
      const path = key.split(".");
      let at = out;
      for (const part of path.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
      const last = path[path.length - 1];
      at[last] = value && typeof value === "object" ? { ...(at[last] as object), ...(value as object) } : value;
    }
    return out;
  };
  const evil = (value: unknown) => JSON.stringify(value ?? null).includes("evil");
  const seen = vscodeView(untrustedSettings((name) => `/workspace/${name}`)).qualm;

  test("without qualm's filter, workspace values of restricted settings reach the client (the e2e test means something)", () => {
    assert.ok(evil(seen), `VS Code alone leaves some through: ${JSON.stringify(seen)}`);
    assert.ok(evil((seen as { functional?: unknown }).functional), "the tests' Python among them: an assessment would run it");
  });

  test("with it, none does", () => {
    assert.ok(!evil(withUserValues("qualm", seen, RESTRICTED, () => undefined)));
    // and the user's own value is what counts
    const mine = withUserValues("qualm", seen, RESTRICTED, (key) => (key === "qualm.functional.python" ? "/usr/bin/python3" : undefined)) as { functional: { python: string } };
    assert.equal(mine.functional.python, "/usr/bin/python3");
  });
});
