// The TypeBox a forged tool gets when it imports `typebox` or `@sinclair/typebox`: the one pi uses. pi's loader hands
// extensions its own copy by aliasing both names; from outside that loader (the runner host, a preflight), the same
// copy is the `typebox` package that pi's own files resolve. pi's entry script is the first place looked in; Agent
// Forge's own folder (a development checkout, or an SDK host that installs typebox beside pi) the second.
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface TypeboxLocation {
	/** The file `require("typebox")` loads. */
	entry: string;
	/** The package's folder (what the runner host must be allowed to read). */
	root: string;
}

let cached: TypeboxLocation | undefined;

/** pi's TypeBox, looked up once per process. */
export function locateTypebox(): TypeboxLocation {
	cached ??= findTypebox([process.argv[1], fileURLToPath(import.meta.url)]);
	return cached;
}

/** The `typebox` package the first of `from` (files) resolves. */
export function findTypebox(from: Array<string | undefined>): TypeboxLocation {
	for (const file of from) {
		if (!file) continue;
		try {
			const entry = createRequire(realpathSync(file)).resolve("typebox");
			return { entry, root: packageRoot(entry) };
		} catch {
			// not resolvable from there: try the next place
		}
	}
	throw new Error(
		`TypeBox (the 'typebox' package pi provides) was not found from ${from.filter(Boolean).join(" or ")}.`,
	);
}

/** `/x/node_modules/typebox/build/index.mjs` → `/x/node_modules/typebox`. */
function packageRoot(entry: string): string {
	const marker = `${sep}node_modules${sep}typebox${sep}`;
	const index = entry.lastIndexOf(marker);
	return index >= 0 ? entry.slice(0, index + marker.length - 1) : dirname(entry);
}
