// The one digest Agent Forge computes of a text: sha256, as lowercase hex. A tool's hash is that digest of its source
// with a `sha256-` prefix; the history names its files by the bare digest; grant keys carry it after `sha256:`.
import { createHash } from "node:crypto";

export function sha256Hex(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

/** A tool's hash, as the metadata, the registry and the grants carry it: `sha256-<hex of the source>`. */
export function hashSource(source: string): string {
	return `sha256-${sha256Hex(source)}`;
}
