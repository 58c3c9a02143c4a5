// Uncertainty levels as the server names them, and how each one looks. The server decides a
// token's level (from its entropy and the thresholds in the settings); the client only paints it.

export type Level = "low" | "medium" | "high";
export const LEVELS: readonly Level[] = ["low", "medium", "high"];

export function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

/** The levels in words, as the server's hovers say them (server/qualm/levels.py). */
export const LEVEL_WORDS: Readonly<Record<Level | "confident", string>> = {
  confident: "confident",
  low: "slightly uncertain",
  medium: "uncertain",
  high: "very uncertain",
};

/** True when `level` is `minimum` or more uncertain. */
export function atLeast(level: Level, minimum: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(minimum);
}

export interface LevelStyle {
  /** Colour ids contributed in package.json, so every theme (and the user) can change them. */
  background: string;
  underline: string;
  /** A calm underline: thin for slight doubt, thicker as doubt grows. */
  underlineWidth: string;
  /** Only real doubt deserves a mark in the scroll bar. */
  inOverviewRuler: boolean;
}

export function styleFor(level: Level): LevelStyle {
  switch (level) {
    case "low":
      return { background: "qualm.lowUncertaintyBackground", underline: "qualm.lowUncertaintyBorder", underlineWidth: "0 0 1px 0", inOverviewRuler: false };
    case "medium":
      return { background: "qualm.mediumUncertaintyBackground", underline: "qualm.mediumUncertaintyBorder", underlineWidth: "0 0 1px 0", inOverviewRuler: true };
    case "high":
      return { background: "qualm.highUncertaintyBackground", underline: "qualm.highUncertaintyBorder", underlineWidth: "0 0 2px 0", inOverviewRuler: true };
  }
}
