// What a person may type as a capability to grant (`agent-forge grant <tool> <capability>`, `/forge grant …`): the
// keys the policy remembers, checked for their form so a typo is refused rather than kept as a grant that never applies.
import { isAbsolute } from "node:path";
import { readShellLine } from "../run/isolated/shell-line.ts";

export type ParsedGrantKey =
	| { ok: true; key: string }
	/** `exec:<name>` without a path: the program is looked up on PATH before it is granted. */
	| { ok: true; lookup: string; env: string }
	| { ok: false; error: string };

export const GRANT_FORMS =
	"read:<absolute path> (a path ending in / covers a folder), write:<absolute path>, exec:<program path>, shell:<command line>, env:<VARIABLE>, net:<host>[:port], inline, sha256:<digest> (as a refusal prints it for a capability that holds a secret)";

/** An environment suffix as capabilityKey writes it: " env:A,B#<12 hex digits>". */
const ENV_SUFFIX = / env:[^\s#,]+(?:,[^\s#,]+)*#[0-9a-f]{12}$/;
/** A content suffix as capabilityKey writes it, before the environment's: " content#<sha256 hex>". */
const CONTENT_SUFFIX = / content#[0-9a-f]{64}$/;

export function parseGrantKey(text: string): ParsedGrantKey {
	const key = text.trim();
	if (key === "inline") return { ok: true, key };
	const colon = key.indexOf(":");
	const kind = colon > 0 ? key.slice(0, colon) : "";
	const rest = key.slice(colon + 1);
	switch (kind) {
		case "read":
		case "write":
			return isAbsolute(rest)
				? { ok: true, key }
				: { ok: false, error: `'${key}': ${kind}: needs an absolute path (${kind}:/data/ covers a folder).` };
		case "env":
			return /^[^\s=]+$/.test(rest)
				? { ok: true, key }
				: { ok: false, error: `'${key}': env: needs the name of one variable (env:GITHUB_TOKEN).` };
		case "net":
			return /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(rest)
				? { ok: true, key: `net:${rest.toLowerCase()}` }
				: {
						ok: false,
						error: `'${key}': net: needs a host name, with its port when it is not 80 or 443 (net:api.github.com, net:127.0.0.1:8080).`,
					};
		case "sha256":
			return /^[0-9a-f]{64}$/.test(rest)
				? { ok: true, key }
				: { ok: false, error: `'${key}': sha256: needs the 64 hex digits a refusal printed.` };
		case "shell": {
			if (!rest.trim()) return { ok: false, error: `'${key}': shell: needs the command line, exactly as it runs.` };
			const env = ENV_SUFFIX.exec(rest)?.[0] ?? "";
			const withContent = rest.slice(0, rest.length - env.length);
			const line = withContent.slice(0, withContent.length - (CONTENT_SUFFIX.exec(withContent)?.[0].length ?? 0));
			// Such a line is never allowed for good (decide.ts): a grant of it would be kept and never hold.
			const { unbound } = readShellLine(line);
			return unbound
				? {
						ok: false,
						error: `'${key}': this shell line is not bound to the content of the files it runs (${unbound}); it can only be allowed once, when a person is asked in pi's TUI.`,
					}
				: { ok: true, key };
		}
		case "exec": {
			const env = ENV_SUFFIX.exec(rest)?.[0] ?? "";
			const withContent = rest.slice(0, rest.length - env.length);
			const content = CONTENT_SUFFIX.exec(withContent)?.[0] ?? "";
			const program = withContent.slice(0, withContent.length - content.length);
			if (!program.trim()) return { ok: false, error: `'${key}': exec: needs a program (exec:/usr/bin/git).` };
			if (isAbsolute(program)) return { ok: true, key };
			if (program.includes("/") || /\s/.test(program))
				return {
					ok: false,
					error: `'${key}': exec: needs the program's absolute path or a name found on PATH (exec:/usr/bin/git, exec:git); a whole command line is shell:<line>.`,
				};
			return { ok: true, lookup: program, env };
		}
		default:
			return { ok: false, error: `'${key}' is not a capability. Capabilities: ${GRANT_FORMS}.` };
	}
}
