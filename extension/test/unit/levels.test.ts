import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LEVELS, atLeast, isLevel, styleFor } from "../../src/levels";

suite("level to decoration", () => {
  test("levels are ordered and filtered by the minimum", () => {
    assert.deepEqual(LEVELS.filter((l) => atLeast(l, "medium")), ["medium", "high"]);
    assert.deepEqual(LEVELS.filter((l) => atLeast(l, "low")), ["low", "medium", "high"]);
    assert.equal(isLevel("confident"), false);
    assert.equal(isLevel("high"), true);
  });

  test("more doubt, a stronger mark: thicker underline and a mark in the scroll bar", () => {
    assert.equal(styleFor("low").inOverviewRuler, false);
    assert.equal(styleFor("high").inOverviewRuler, true);
    assert.equal(styleFor("high").underlineWidth, "0 0 2px 0");
    assert.notEqual(styleFor("low").background, styleFor("medium").background);
  });

  test("every colour a style names is contributed in package.json with defaults for every theme kind", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, "../../../../package.json"), "utf8"));
    const colors = new Map<string, Record<string, unknown>>(manifest.contributes.colors.map((c: { id: string; defaults: Record<string, unknown> }) => [c.id, c.defaults]));
    for (const level of LEVELS) {
      const style = styleFor(level);
      for (const id of [style.background, style.underline]) {
        const defaults = colors.get(id);
        assert.ok(defaults, `${id} is not contributed`);
        for (const kind of ["dark", "light", "highContrast", "highContrastLight"]) assert.ok(kind in defaults, `${id} has no ${kind} default`);
      }
    }
  });
});
