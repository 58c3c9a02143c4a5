// Reading qualm's settings with VS Code's workspace trust honoured (trust.ts says why): every read of
// a setting or a section in client.ts goes through here. In a trusted workspace (or with trust
// turned off) this is a plain read.

import * as vscode from "vscode";
import { Ignored, ignoredMessage, parseJsonc, restrictedSetIn, restrictedSettings, withUserValues } from "./trust";

export class SettingsReader {
  /** Full names (`qualm.python`), from package.json. */
  readonly restricted: readonly string[];
  /** Keys already named to the user this session (each is told once). */
  private readonly told = new Set<string>();

  constructor(packageJSON: unknown, private readonly log: vscode.LogOutputChannel) {
    this.restricted = restrictedSettings(packageJSON);
  }

  /** Whether a workspace setting was ignored this session (trusting the workspace then restarts the
   * server with it). */
  get anyIgnored(): boolean {
    return this.told.size > 0;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** A dotted section (`qualm`, `qualm.model`, `qualm.model.path`) for a scope, as
   * workspace/configuration asks for it; in an untrusted workspace the restricted settings in it are
   * the user's (or the defaults). */
  section(section: string, scope?: vscode.Uri): unknown {
    const dot = section.lastIndexOf(".");
    const value = dot < 0 ? vscode.workspace.getConfiguration(undefined, scope).get(section) : vscode.workspace.getConfiguration(section.slice(0, dot), scope).get(section.slice(dot + 1));
    return this.trusted ? value : withUserValues(section, value, this.restricted, (key) => this.userValue(key, scope));
  }

  /** One of qualm's settings (`python`, `functional.python`). */
  get<T>(key: string, fallback: T, scope?: vscode.Uri): T {
    const value = this.section(`qualm.${key}`, scope);
    return value === undefined ? fallback : (value as T);
  }

  /** The user's own value of a setting (user settings, local or remote), else its default. */
  private userValue(key: string, scope?: vscode.Uri): unknown {
    const dot = key.lastIndexOf(".");
    const inspected = vscode.workspace.getConfiguration(key.slice(0, dot), scope).inspect(key.slice(dot + 1));
    return inspected?.globalValue ?? inspected?.defaultValue;
  }

  /** The restricted settings that this untrusted workspace sets and qualm ignores: found in the
   * folders' .vscode/settings.json and the workspace file (VS Code hides them from the API), and
   * in what VS Code still passes on (a form it does not hide, such as `"qualm.model": {"path": ...}`). */
  async ignored(): Promise<Ignored[]> {
    if (this.trusted) return [];
    const found: Ignored[] = [];
    const folders = vscode.workspace.workspaceFolders ?? [];
    for (const folder of folders) {
      const file = vscode.Uri.joinPath(folder.uri, ".vscode", "settings.json");
      const where = folders.length > 1 ? `${folder.name}/.vscode/settings.json` : ".vscode/settings.json";
      for (const key of restrictedSetIn(await readJsonc(file), this.restricted)) found.push({ key, where });
    }
    const workspaceFile = vscode.workspace.workspaceFile;
    if (workspaceFile && workspaceFile.scheme !== "untitled") {
      const settings = ((await readJsonc(workspaceFile)) as { settings?: unknown } | undefined)?.settings;
      const where = workspaceFile.path.split("/").pop() ?? "the workspace file";
      for (const key of restrictedSetIn(settings, this.restricted)) found.push({ key, where });
    }
    for (const key of this.restricted) {
      if (found.some((f) => f.key === key)) continue;
      const dot = key.lastIndexOf(".");
      for (const folder of folders.length ? folders.map((f) => f.uri) : [undefined]) {
        const inspected = vscode.workspace.getConfiguration(key.slice(0, dot), folder).inspect(key.slice(dot + 1));
        if (inspected?.workspaceValue !== undefined) found.push({ key, where: "workspace settings" });
        else if (inspected?.workspaceFolderValue !== undefined) found.push({ key, where: "folder settings" });
        else continue;
        break;
      }
    }
    return found;
  }

  /** Tells the user (the log and a notification), once per setting, which workspace settings are
   * ignored and why. Returns what is ignored now. */
  async explainIgnored(): Promise<Ignored[]> {
    const ignored = await this.ignored();
    const fresh = ignored.filter((i) => !this.told.has(i.key));
    if (!fresh.length) return ignored;
    for (const i of fresh) this.told.add(i.key);
    const message = ignoredMessage(fresh);
    this.log.warn(message);
    void vscode.window.showWarningMessage(message, "Manage Workspace Trust", "Show Log").then((choice) => {
      if (choice === "Manage Workspace Trust") void vscode.commands.executeCommand("workbench.trust.manage");
      if (choice === "Show Log") this.log.show(true);
    });
    return ignored;
  }
}

async function readJsonc(uri: vscode.Uri): Promise<unknown> {
  try {
    return parseJsonc(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
  } catch {
    return undefined; // no such file
  }
}
