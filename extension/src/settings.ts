// The client's own settings, and the part of the `qualm` section that belongs to the server.
// package.json's contributes.configuration is the schema of both; tests check it against the
// server's Settings dataclasses so the two cannot drift apart. Settings are read per resource: a
// workspace folder's .vscode/settings.json applies to the documents in that folder. The server asks
// for `qualm` once per workspace folder (scopeUri: the folder's URI) and once without a scope (the
// window: its model, and documents outside every folder).

import { Level, isLevel } from "./levels";

/** Sections of `qualm.*` that the server reads (qualm.settings.Settings). */
export const SERVER_SECTIONS = ["model", "generation", "lexical", "algorithmic", "functional", "ensemble", "editor"] as const;

/** Settings that need the server process restarted rather than re-read. */
export const RESTART_SETTINGS = ["qualm.python", "qualm.languages"];

/** The extension's own settings (the ghost text's token budget is the server's
 * qualm.editor.completion_max_tokens, read there). */
export interface ClientSettings {
  python: string;
  inlineEnabled: boolean;
  debounceMs: number;
  highlightsEnabled: boolean;
  minimumLevel: Level;
}

export type Getter = <T>(key: string, fallback: T) => T;

/** Whether the user set a key (in any scope: user, workspace, folder, language), as opposed to its
 * default. */
export type IsSet = (key: string) => boolean;

/** Settings renamed to snake_case, every other key's style: new name (under `qualm.`) → old name. The
 * old names stay declared in package.json, deprecated, and a value under one is still read where the
 * new name is not set. */
export const RENAMED_SETTINGS: Readonly<Record<string, string>> = {
  "inline.debounce_ms": "inline.debounceMs",
  "highlights.minimum_level": "highlights.minimumLevel",
};

/** Called when a value is read under a setting's old name. */
export type OnOldName = (oldKey: string, newKey: string) => void;

/** An OnOldName that logs each old name once per session (the settings are read on every keystroke). */
export function warnOnce(log: (message: string) => void): OnOldName {
  const told = new Set<string>();
  return (oldKey, newKey) => {
    if (told.has(oldKey)) return;
    told.add(oldKey);
    log(`the setting qualm.${oldKey} is deprecated: it was renamed to qualm.${newKey}. Its value is read while qualm.${newKey} is not set; move it to the new name.`);
  };
}

/** The client's settings. A renamed setting (RENAMED_SETTINGS) is read under its old name where the
 * user set that and not the new one, and `onOldName` is told. */
export function readClientSettings(get: Getter, isSet: IsSet, onOldName: OnOldName): ClientSettings {
  const read = <T>(key: string, fallback: T): T => {
    const old = Object.hasOwn(RENAMED_SETTINGS, key) ? RENAMED_SETTINGS[key] : undefined;
    if (old && !isSet(key) && isSet(old)) {
      onOldName(old, key);
      return get(old, fallback);
    }
    return get(key, fallback);
  };
  const level = read<string>("highlights.minimum_level", "low"); // the server marks medium and up by default (editor.highlight_level)
  return {
    python: read<string>("python", ""),
    inlineEnabled: read<boolean>("inline.enabled", true),
    debounceMs: Math.max(0, read<number>("inline.debounce_ms", 400)),
    highlightsEnabled: read<boolean>("highlights.enabled", true),
    minimumLevel: isLevel(level) ? level : "low",
  };
}

/** Whether an inspected setting has a value of the user's anywhere (vscode's
 * WorkspaceConfiguration.inspect), rather than only its default. */
export function hasUserValue(inspected: Record<string, unknown> | undefined): boolean {
  if (!inspected) return false;
  return ["globalValue", "workspaceValue", "workspaceFolderValue", "globalLanguageValue", "workspaceLanguageValue", "workspaceFolderLanguageValue"].some(
    (scope) => inspected[scope] !== undefined,
  );
}

/** What the editor knows that the server's settings leave unset: the interpreter selected in the
 * Python extension, which runs the model's tests of the user's code when qualm.functional.python is
 * empty (the code's imports then find the project's packages). */
export interface EditorDefaults {
  testsPython?: string;
  /** The folder `${workspaceFolder}` in qualm.functional.python stands for (as in VS Code's own
   * settings) in the window's settings: the first folder. */
  workspaceFolder?: string;
  /** The folder `${workspaceFolder}` stands for in the settings of a scope (a workspace/configuration
   * item's scopeUri: the server asks per workspace folder): that scope's folder. */
  folderOf?: (scopeUri: string) => string | undefined;
}

/** The `functional` section with the editor's interpreter where the user named none, and
 * `${workspaceFolder}` in the one the user named replaced by the folder. */
function withTestsPython(functional: unknown, defaults: EditorDefaults): unknown {
  if (!functional || typeof functional !== "object") return functional;
  const own = (functional as Record<string, unknown>).python;
  if (typeof own === "string" && own.trim()) {
    const folder = defaults.workspaceFolder;
    return folder && own.includes("${workspaceFolder}") ? { ...(functional as object), python: own.split("${workspaceFolder}").join(folder) } : functional;
  }
  return defaults.testsPython ? { ...(functional as object), python: defaults.testsPython } : functional;
}

/** The server's sections of the `qualm` configuration, as plain JSON (the server rejects unknown keys,
 * so the client's own settings must not reach it). */
export function serverSettings(section: unknown, defaults: EditorDefaults = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!section || typeof section !== "object") return out;
  for (const key of SERVER_SECTIONS) {
    const value = (section as Record<string, unknown>)[key];
    if (value && typeof value === "object") out[key] = JSON.parse(JSON.stringify(value));
  }
  if (out.functional) out.functional = withTestsPython(out.functional, defaults);
  return out;
}

/** One item of a workspace/configuration request. */
export interface ConfigurationItem {
  section?: string;
  scopeUri?: string;
}

/** Reads a (dotted) configuration section for a scope: the folder or document named by scopeUri, or
 * the window's configuration when there is none. */
export type SectionReader = (section: string, scopeUri: string | undefined) => unknown;

/** The answer to workspace/configuration: each item read in its own scope, and whatever is under
 * `qualm` filtered to the server's settings. `qualm` gives the server's sections; `qualm.<server
 * section>` (and deeper) is passed as it is, but for the editor's defaults where the user set none
 * (EditorDefaults, in `qualm` and `qualm.functional`, `${workspaceFolder}` the item's scope's folder);
 * the client's own `qualm.*` settings come back as null. */
export function answerConfiguration(items: readonly ConfigurationItem[], read: SectionReader, defaults: EditorDefaults = {}): unknown[] {
  return items.map((item) => {
    const section = item.section;
    if (!section) return null; // the whole configuration: not the server's business
    const scopeUri = item.scopeUri || undefined;
    const folder = scopeUri && defaults.folderOf ? defaults.folderOf(scopeUri) : undefined;
    return answerItem(section, read(section, scopeUri), folder ? { ...defaults, workspaceFolder: folder } : defaults);
  });
}

function answerItem(section: string, value: unknown, defaults: EditorDefaults): unknown {
  if (section === "qualm") return serverSettings(value, defaults);
  if (section === "qualm.functional") return JSON.parse(JSON.stringify(withTestsPython(value, defaults) ?? null));
  if (section.startsWith("qualm.")) {
    const top = section.split(".")[1];
    if (!(SERVER_SECTIONS as readonly string[]).includes(top)) return null;
  }
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
