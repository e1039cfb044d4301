// A version as a person types it, in the command line and /forge: `2`, `v2` or `V2`.

/** The version `text` names, or undefined when it names none (`0`, `two`, `1.5`). */
export function parseVersion(text: string): number | undefined {
	const match = /^v?(\d{1,9})$/i.exec(text.trim());
	const version = match ? Number(match[1]) : 0;
	return version >= 1 ? version : undefined;
}
