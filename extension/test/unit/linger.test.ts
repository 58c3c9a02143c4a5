// The status bar's linger follows the tests' clock (extension/src/linger.ts).

import * as assert from "node:assert/strict";
import { LINGER_MS, lingerMs } from "../../src/linger";

suite("how long a finished completion's doubt stays in the status bar", () => {
  test("8 s unless the tests' time factor is set", () => {
    assert.equal(lingerMs({}), LINGER_MS);
    assert.equal(LINGER_MS, 8000);
  });

  test("stretched by QUALM_TEST_TIME_FACTOR, as every wait of the end-to-end tests is", () => {
    assert.equal(lingerMs({ QUALM_TEST_TIME_FACTOR: "3" }), 24000);
    assert.equal(lingerMs({ QUALM_TEST_TIME_FACTOR: "0.5" }), 4000);
  });

  test("a factor that is not a number above 0 leaves it as it is", () => {
    for (const bad of ["0", "-1", "fast", " "]) assert.equal(lingerMs({ QUALM_TEST_TIME_FACTOR: bad }), LINGER_MS, bad);
  });
});
