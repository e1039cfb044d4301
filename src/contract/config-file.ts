// The settings files as data: which keys a file may hold, and a file's text read into those settings, with what is
// wrong in it reported. src/config.ts decides which of them are in effect.
import type { ConfigProblem } from "./config.ts";

/**
 * A settings file: `<agentDir>/forge/config.json` (every project) and `<cwd>/.pi/forge/config.json` (this one). The
 * project's file is the one at `<cwd>/.pi/forge/config.json`: its policy and its limits may only tighten the user's.
 */
export interface ConfigFile {
	path: string;
	/** The file's text; undefined when there is no such file. */
	text?: string;
}

export const FILE_KEYS = [
	"policy",
	"timeoutMs",
	"maxMemoryMb",
	"historyLimit",
	"quarantineAfter",
	"activeLimit",
	"activeChars",
	"pinned",
] as const;
export type FileKey = (typeof FILE_KEYS)[number];

/** The known settings of a file; an unreadable file or an unknown key is reported. */
export function readFileSettings(file: ConfigFile, problems: ConfigProblem[]): Partial<Record<FileKey, unknown>> {
	if (file.text === undefined) return {};
	let data: unknown;
	try {
		data = JSON.parse(file.text);
	} catch (error) {
		problems.push({
			origin: { file: file.path },
			message: `${file.path} is not valid JSON (${(error as Error).message}); ignored`,
		});
		return {};
	}
	if (typeof data !== "object" || data === null || Array.isArray(data)) {
		problems.push({ origin: { file: file.path }, message: `${file.path} is not a JSON object of settings; ignored` });
		return {};
	}
	const settings: Partial<Record<FileKey, unknown>> = {};
	for (const [key, value] of Object.entries(data)) {
		if ((FILE_KEYS as readonly string[]).includes(key)) settings[key as FileKey] = value;
		else
			problems.push({
				origin: { file: file.path, key },
				message: `${file.path}: unknown setting '${key}' (known: ${FILE_KEYS.join(", ")})`,
			});
	}
	return settings;
}
