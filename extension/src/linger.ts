// How long a finished completion's doubt stays in the status bar: long enough to read, gone before it
// misleads (the next completion or an acceptance replaces it sooner).

export const LINGER_MS = 8000;

/** The linger, stretched by QUALM_TEST_TIME_FACTOR where the tests set it: on a busy machine every
 * wait of the end-to-end tests is scaled by it, and the doubt they look for on the page must last as
 * long in proportion. A value that is not a number above 0 counts as 1 (the tests refuse it themselves). */
export function lingerMs(env: NodeJS.ProcessEnv, normal: number = LINGER_MS): number {
  const factor = Number((env.QUALM_TEST_TIME_FACTOR ?? "").trim() || "1");
  return Number.isFinite(factor) && factor > 0 ? Math.round(normal * factor) : normal;
}
