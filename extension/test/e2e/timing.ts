// The end-to-end waits are bounds on a hang, written for a machine of normal speed. On a machine that is
// busy with other work, QUALM_TEST_TIME_FACTOR (as for pytest, tests/timing.py) multiplies every one of
// them: the runner's, the page's and the suites' in the extension host (which inherits the environment).

/** The factor QUALM_TEST_TIME_FACTOR asks for (1 when unset); anything but a number above 0 is an error. */
export function timeFactor(env: NodeJS.ProcessEnv): number {
  const raw = (env.QUALM_TEST_TIME_FACTOR ?? "").trim() || "1";
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`QUALM_TEST_TIME_FACTOR must be a number above 0, got ${JSON.stringify(raw)}`);
  return value;
}

export const TIME_FACTOR = timeFactor(process.env);

/** `ms` milliseconds at normal speed, scaled by QUALM_TEST_TIME_FACTOR. */
export const scaled = (ms: number, factor: number = TIME_FACTOR): number => Math.round(ms * factor);
