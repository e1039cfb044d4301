// Reads the tool template shipped in `templates/` (once; a forge renders every tool from it).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const TEMPLATE_PATH = fileURLToPath(new URL("../../templates/forge-tool.ts.tmpl", import.meta.url));

let cached: string | undefined;

export function loadTemplate(): string {
	cached ??= readFileSync(TEMPLATE_PATH, "utf8");
	return cached;
}
