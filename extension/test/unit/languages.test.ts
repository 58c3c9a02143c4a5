import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LANGUAGES, KNOWN_LANGUAGES, documentSelector, readLanguages } from "../../src/languages";

const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8"));

suite("languages", () => {
  test("the setting keeps the ids qualm handles, once each, and falls back to the default", () => {
    assert.deepEqual(readLanguages(["typescript", "python", "typescript"]), ["typescript", "python"]);
    assert.deepEqual(readLanguages(["rust", 3, "javascriptreact"]), ["javascriptreact"]);
    assert.deepEqual(readLanguages([]), ["python"]);
    assert.deepEqual(readLanguages(undefined), ["python"]);
    assert.deepEqual(readLanguages("python"), ["python"]);
  });

  test("the selector names files and untitled editors of each language", () => {
    assert.deepEqual(documentSelector(["python", "typescript"]), [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { scheme: "file", language: "typescript" },
      { scheme: "untitled", language: "typescript" },
    ]);
  });

  test("package.json offers exactly these languages with this default", () => {
    // contributes.configuration is a list of titled sections
    const sections: { properties: Record<string, { items: { enum: string[] }; default: string[] }> }[] = manifest.contributes.configuration;
    const setting = sections.map((s) => s.properties["qualm.languages"]).find((s) => s !== undefined);
    assert.ok(setting, "qualm.languages is contributed");
    assert.deepEqual(setting.items.enum, [...KNOWN_LANGUAGES]);
    assert.deepEqual(setting.default, [...DEFAULT_LANGUAGES]);
  });
});
