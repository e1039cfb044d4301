// Where the program of a command is, found in pi's process as spawn would find it (execvp: a name with a slash is a
// path from the command's folder; a bare name is looked up along PATH, an empty entry meaning that folder). The
// command then runs that file, so what was shown and granted is what runs.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, resolve } from "node:path";

export function resolveProgram(file: string, options: { cwd: string; path: string | undefined }): string | undefined {
	if (!file) return undefined;
	if (file.includes("/")) {
		const candidate = resolve(options.cwd, file);
		return isExecutableFile(candidate) ? candidate : undefined;
	}
	for (const dir of (options.path ?? "").split(delimiter)) {
		const candidate = resolve(options.cwd, dir, file);
		if (isExecutableFile(candidate)) return candidate;
	}
	return undefined;
}

function isExecutableFile(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}
