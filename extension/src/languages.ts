// Which documents qualm works on: the `qualm.languages` setting (VS Code language ids), read in one
// place for the client's document selector, the inline completion provider and the `when` clauses
// (through the `qualm.languages` context key). No `vscode` import: the unit tests run without it.

/** Every language id the server handles (its `qualm/handshake` answer lists the same). */
export const KNOWN_LANGUAGES = ["python", "javascript", "javascriptreact", "typescript", "typescriptreact"] as const;

export const DEFAULT_LANGUAGES: readonly string[] = ["python"];

/** The setting's language ids that qualm handles, once each; the default when none is left (an empty
 * list would leave an installed extension silently doing nothing). */
export function readLanguages(value: unknown): string[] {
  const known = new Set<string>(KNOWN_LANGUAGES);
  const ids = Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && known.has(v)) : [];
  const unique = [...new Set(ids)];
  return unique.length > 0 ? unique : [...DEFAULT_LANGUAGES];
}

/** The document selector for those languages: files on disk and untitled editors. */
export function documentSelector(languages: readonly string[]): { scheme: string; language: string }[] {
  return languages.flatMap((language) => [
    { scheme: "file", language },
    { scheme: "untitled", language },
  ]);
}
