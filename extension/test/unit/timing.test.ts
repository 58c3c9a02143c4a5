// The end-to-end suites' waits scale with QUALM_TEST_TIME_FACTOR (extension/test/e2e/timing.ts).

import * as assert from "node:assert/strict";
import { scaled, timeFactor } from "../e2e/timing";

suite("end-to-end waits and QUALM_TEST_TIME_FACTOR", () => {
  test("unset or empty, a wait is as written", () => {
    assert.equal(scaled(20000, timeFactor({})), 20000);
    assert.equal(scaled(20000, timeFactor({ QUALM_TEST_TIME_FACTOR: " " })), 20000);
  });

  test("a factor multiplies every wait", () => {
    assert.equal(scaled(20000, timeFactor({ QUALM_TEST_TIME_FACTOR: "3" })), 60000);
    assert.equal(scaled(20000, timeFactor({ QUALM_TEST_TIME_FACTOR: "1.5" })), 30000);
  });

  test("a factor that is not a positive number is refused, not taken as 1", () => {
    for (const bad of ["0", "-2", "fast", "NaN", "Infinity"]) {
      assert.throws(() => timeFactor({ QUALM_TEST_TIME_FACTOR: bad }), /QUALM_TEST_TIME_FACTOR must be a number above 0/, bad);
    }
  });
});
