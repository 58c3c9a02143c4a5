import * as assert from "node:assert/strict";
import { MarkStore, OffsetMark, applyChange, applyChanges, paintedSpans } from "../../src/marks";

const marks: OffsetMark[] = [
  { start: 10, end: 15, level: "low" },
  { start: 20, end: 24, level: "high" },
];

suite("highlight bookkeeping through edits", () => {
  test("an edit before a mark shifts it by the length change", () => {
    assert.deepEqual(applyChange(marks, { rangeOffset: 0, rangeLength: 2, text: "abcde" }), [
      { start: 13, end: 18, level: "low" },
      { start: 23, end: 27, level: "high" },
    ]);
  });

  test("an edit inside a mark drops that mark only", () => {
    assert.deepEqual(applyChange(marks, { rangeOffset: 12, rangeLength: 1, text: "" }), [{ start: 19, end: 23, level: "high" }]);
  });

  test("typing right after a token keeps it; right before it shifts it", () => {
    assert.deepEqual(applyChange(marks, { rangeOffset: 15, rangeLength: 0, text: "x" }), [
      { start: 10, end: 15, level: "low" },
      { start: 21, end: 25, level: "high" },
    ]);
    assert.deepEqual(applyChange(marks, { rangeOffset: 10, rangeLength: 0, text: "yy" })[0], { start: 12, end: 17, level: "low" });
  });

  test("a deletion spanning two marks drops both; one after them leaves them", () => {
    assert.deepEqual(applyChange(marks, { rangeOffset: 5, rangeLength: 30, text: "" }), []);
    assert.deepEqual(applyChange(marks, { rangeOffset: 24, rangeLength: 3, text: "" }), marks);
  });

  test("several changes of one event (multi-cursor) are each in the old coordinates", () => {
    // insert 3 chars at 0 and delete 1 char at 17 (between the marks), given in either order
    const changes = [
      { rangeOffset: 0, rangeLength: 0, text: "abc" },
      { rangeOffset: 17, rangeLength: 1, text: "" },
    ];
    const expected = [
      { start: 13, end: 18, level: "low" },
      { start: 22, end: 26, level: "high" },
    ];
    assert.deepEqual(applyChanges(marks, changes), expected);
    assert.deepEqual(applyChanges(marks, [...changes].reverse()), expected);
  });

  test("the store ignores marks for an older version than it holds and follows edits", () => {
    const store = new MarkStore();
    assert.equal(store.set("file:///a.py", 5, marks), true);
    assert.equal(store.set("file:///a.py", 4, []), false);
    assert.equal(store.get("file:///a.py").length, 2);
    assert.equal(store.edit("file:///a.py", 6, [{ rangeOffset: 21, rangeLength: 1, text: "Q" }]), true);
    assert.deepEqual(store.get("file:///a.py"), [{ start: 10, end: 15, level: "low" }]);
    assert.equal(store.edit("file:///a.py", 7, [{ rangeOffset: 40, rangeLength: 0, text: "z" }]), false);
    assert.equal(store.edit("file:///b.py", 1, [{ rangeOffset: 0, rangeLength: 0, text: "z" }]), false);
    store.delete("file:///a.py");
    assert.deepEqual(store.get("file:///a.py"), []);
  });

  test("a span of neighbours is painted as one range at its most uncertain level; lower levels are left out", () => {
    const spanned: OffsetMark[] = [
      { start: 0, end: 3, level: "medium", span: 0 },
      { start: 3, end: 7, level: "high", span: 0 },
      { start: 8, end: 9, level: "low", span: 0 },
      { start: 20, end: 24, level: "medium", span: 1 },
    ];
    assert.deepEqual(paintedSpans(spanned, "medium"), [
      { start: 0, end: 7, level: "high", span: 0 },
      { start: 20, end: 24, level: "medium", span: 1 },
    ]);
    assert.deepEqual(paintedSpans(spanned, "low")[0], { start: 0, end: 9, level: "high", span: 0 });
    // marks without a span (an older server) are painted one by one
    assert.equal(paintedSpans(marks, "low").length, 2);
    assert.deepEqual(spanned[0], { start: 0, end: 3, level: "medium", span: 0 }, "the store's marks are not changed");
  });
});
