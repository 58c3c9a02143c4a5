// The restricted suite's workspace settings (run.ts writes them to its folder's .vscode/settings.json):
// programs and files of the workspace's own, which qualm must not use while the workspace is not
// trusted. Some are in a form VS Code itself does not hide from extensions (an object under a part of
// the name), so that only qualm's own filter stands between them and the server; the unit twin
// (test/unit/restricted.test.ts) checks that without that filter they would get through.

export function untrustedSettings(own: (name: string) => string): Record<string, unknown> {
  return {
    "qualm.python": own("evil-python"),
    "qualm.model.path": own("evil.gguf"),
    "qualm.ensemble.calibration_file": own("evil-calibration.json"),
    // nested: VS Code hides only the flat names of restrictedConfigurations
    "qualm.model": { chat_template: own("evil.jinja") },
    "qualm.functional": { python: own("evil-python") },
  };
}
