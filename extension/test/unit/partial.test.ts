import * as assert from "node:assert/strict";
import { withPartial } from "../../src/partial";
import { TokenJson } from "../../src/protocol";

const tok = (text: string, start: number): TokenJson => ({ text, start, end: start + text.length, level: "confident" });

suite("a stream of partial completions", () => {
  test("appends each piece's text and tokens", () => {
    let s = { text: "", tokens: [] as TokenJson[] };
    s = withPartial(s, { text: "return", tokens: [tok("return", 0)] });
    s = withPartial(s, { text: " x", tokens: [tok(" x", 6)] });
    assert.equal(s.text, "return x");
    assert.deepEqual(s.tokens.map((t) => t.text), ["return", " x"]);
  });

  test("drops what came before a restart, then appends what follows it", () => {
    let s = withPartial({ text: "", tokens: [] }, { text: "def other", tokens: [tok("def other", 0)] });
    s = withPartial(s, { text: "", tokens: [], restart: true });
    assert.deepEqual(s, { text: "", tokens: [] });
    s = withPartial(s, { text: "return 0", tokens: [tok("return 0", 0)] });
    assert.equal(s.text, "return 0");
    assert.equal(s.tokens.length, 1);
  });
});
