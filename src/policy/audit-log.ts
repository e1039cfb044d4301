// The audit log: one JSON line per capability decision and per forged-tool call, appended in order, never fatal. Its
// texts are stored with secrets redacted (a failed call's detail may carry a key), in a file only its owner reads.
// The file is in the toolbox folder, which a cloned repository fills: a link at its place is never written through.
import { lstat, mkdir, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { redactSecrets } from "../security/redact.ts";
import { appendNoFollow, NotFollowed, readRegular } from "../store/safe-fs.ts";

export interface AuditRecord {
	at: string;
	tool: string;
	/** The tool's hash. */
	version: string;
	/** A capability key. */
	capability?: string;
	decision?: "allow" | "deny" | "ask-allow-once" | "ask-allow-always" | "ask-deny";
	reason?: string;
	durationMs?: number;
	outcome?: "ok" | "error" | "timeout" | "aborted" | "memory" | "crash";
	detail?: string;
}

/** A line stays readable: a long detail (an error with its stack, a command line) is cut. */
const MAX_FIELD_CHARS = 4000;
const FILE_MODE = 0o600;
/**
 * The most the log holds before its older part is moved aside (to `<file>.1`, replacing the one before): a tool that
 * makes refusals by the thousand fills at most twice this on disk.
 */
export const MAX_AUDIT_BYTES = 4 * 1024 * 1024;

export class AuditLog {
	readonly file: string;
	private pending: string[] = [];
	private draining: Promise<void> | undefined;

	private readonly secretValues: string[];
	/** The file's size as last known (looked up at the first write). */
	private size: number | undefined;

	/**
	 * `discard`: records are dropped (a read-only look at a toolbox writes nothing into it). `secretValues`: the values
	 * of sensitive environment variables (the config's `secretValues`), hidden wherever they appear; credential
	 * formats are hidden either way.
	 */
	constructor(
		file: string,
		private readonly options: { discard?: boolean; secretValues?: string[] } = {},
	) {
		this.file = file;
		this.secretValues = options.secretValues ?? [];
	}

	/** Queues one record; lines reach the file in the order they were appended. Never throws. */
	append(record: AuditRecord): void {
		if (this.options.discard) return;
		let line: string;
		try {
			line = `${JSON.stringify(bounded(record, this.secretValues))}\n`;
		} catch {
			return;
		}
		this.pending.push(line);
		this.draining ??= this.drain();
	}

	/** Resolves when everything appended so far is written (or given up on). */
	flush(): Promise<void> {
		return this.draining ?? Promise.resolve();
	}

	private async drain(): Promise<void> {
		try {
			while (this.pending.length > 0) {
				// Whatever queued while the last write ran goes out in one append, still in order.
				await this.write(this.pending.splice(0).join(""));
			}
		} finally {
			this.draining = undefined;
		}
	}

	private async write(text: string): Promise<void> {
		const bytes = Buffer.byteLength(text);
		this.size ??= await lstat(this.file).then(
			(stats) => (stats.isFile() ? stats.size : 0),
			() => 0,
		);
		if (this.size > 0 && this.size + bytes > MAX_AUDIT_BYTES) {
			await rename(this.file, `${this.file}.1`).catch(() => undefined);
			this.size = 0;
		}
		this.size += bytes;
		try {
			// Opened without following a link, its mode made 0600 on the handle (a file made before may be readable by others).
			await appendNoFollow(this.file, text, FILE_MODE);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			try {
				// A link at the log's place (a cloned repository's) is removed itself, never followed; the log starts afresh.
				if (error instanceof NotFollowed) await unlink(this.file);
				else if (code === "ENOENT") await mkdir(dirname(this.file), { recursive: true });
				else return;
				await appendNoFollow(this.file, text, FILE_MODE);
			} catch {
				// An audit line that cannot be written must not fail the tool call it describes.
			}
		}
	}
}

/** Secrets redacted (before the cut, so that no part of one survives), then long texts cut. */
function bounded(record: AuditRecord, secretValues: string[]): AuditRecord {
	const copy: Record<string, unknown> = { ...record };
	for (const [field, raw] of Object.entries(copy)) {
		if (typeof raw !== "string") continue;
		const value = redactSecrets(raw, secretValues);
		copy[field] = value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS - 1)}…` : value;
	}
	return copy as unknown as AuditRecord;
}

/**
 * Every well-formed record of an audit file (its older part first), oldest first; a missing file is empty and a
 * corrupt line is skipped.
 */
export async function readAudit(file: string): Promise<AuditRecord[]> {
	const read = (path: string) =>
		readRegular(path).then(
			(text) => text ?? "",
			() => "",
		);
	const text = (await read(`${file}.1`)) + (await read(file));
	if (!text) return [];
	const records: AuditRecord[] = [];
	for (const line of text.split("\n")) {
		if (!line.trim()) continue;
		try {
			const value = JSON.parse(line) as Partial<AuditRecord> | null;
			if (
				typeof value === "object" &&
				value !== null &&
				typeof value.at === "string" &&
				typeof value.tool === "string"
			) {
				records.push(value as AuditRecord);
			}
		} catch {
			// A line cut short by a crash or edited by hand: the rest of the log still counts.
		}
	}
	return records;
}
