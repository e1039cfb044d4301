// Finds credentials pasted into a forged tool's source, so the forge can refuse to write them to disk: each rule of
// secret-rules.ts run over the text, findings located by line and column, and the refusal the model reads.
import { RULES_BY_KIND, SECRET_RULES } from "./secret-rules.ts";

export interface SecretFinding {
	kind: string;
	/** 1-based. */
	line: number;
	/** 1-based, in UTF-16 code units like the code frames. */
	column: number;
	/** The first few characters and an ellipsis ("sk-pr…"): never the whole secret. */
	preview: string;
}

/** A finding with the offsets of the credential in the text, for redaction. */
export interface LocatedSecret extends SecretFinding {
	start: number;
	end: number;
}

/** Every credential in `text`, in order of position. */
export function findSecrets(text: string): SecretFinding[] {
	return locateSecrets(text).map(({ kind, line, column, preview }) => ({ kind, line, column, preview }));
}

/** `findSecrets` with the offsets of each credential. */
export function locateSecrets(text: string): LocatedSecret[] {
	/** Sorted by start and disjoint: an overlap is found by binary search, so many findings cost n log n, not n². */
	let spans: Span[] = [];
	for (const rule of SECRET_RULES) {
		const added: Span[] = [];
		for (const match of text.matchAll(rule.pattern)) {
			const [start, end] = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length];
			const secret = text.slice(start, end);
			if (rule.check && !rule.check(secret, match.groups ?? {})) continue;
			if (overlaps(spans, start, end)) continue;
			added.push({ kind: rule.kind, start, end });
		}
		if (added.length > 0) spans = mergeSpans(spans, added);
	}
	const lineStarts = lineStartsOf(text);
	return spans.map(({ kind, start, end }) => {
		const line = lineOf(lineStarts, start);
		return {
			kind,
			line,
			column: start - lineStarts[line - 1] + 1,
			preview: previewOf(text.slice(start, end)),
			start,
			end,
		};
	});
}

interface Span {
	kind: string;
	start: number;
	end: number;
}

/** Whether [start, end) overlaps a span of `spans` (sorted by start, disjoint). */
function overlaps(spans: Span[], start: number, end: number): boolean {
	let low = 0;
	let high = spans.length;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (spans[mid].end <= start) low = mid + 1;
		else high = mid;
	}
	return low < spans.length && spans[low].start < end;
}

/** Two sorted lists of disjoint spans (disjoint from each other too) as one sorted list. */
function mergeSpans(a: Span[], b: Span[]): Span[] {
	const merged: Span[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length)
		merged.push(j >= b.length || (i < a.length && a[i].start < b[j].start) ? a[i++] : b[j++]);
	return merged;
}

/** The refusal the forge sends back: what, where, and how to pass the credential instead. */
export function secretRefusal(
	findings: SecretFinding[],
	file: string,
): { message: string; notes: string[]; line: number; column: number } {
	const first = findings[0];
	if (!first) return { message: `No credentials found in ${file}.`, notes: [], line: 1, column: 1 };
	const describe = (finding: SecretFinding) =>
		`${RULES_BY_KIND.get(finding.kind)?.label ?? `a credential (${finding.kind})`} at ${file}:${finding.line}:${finding.column} ("${finding.preview}")`;
	const envVars = [
		...new Set(findings.map((finding) => `process.env.${RULES_BY_KIND.get(finding.kind)?.envVar ?? "NAME"}`)),
	];
	const fix = `Read ${findings.length === 1 ? "it" : "each"} from an environment variable at run time instead: ${envVars.join(", ")} — the forge never writes credentials to disk.`;
	const what =
		findings.length === 1 ? describe(first) : `${findings.length} credentials (the first: ${describe(first)})`;
	return {
		message: `Refusing to write ${file}: the logic contains ${what}. ${fix}`,
		notes: findings.map(
			(finding) => `${describe(finding)}: use process.env.${RULES_BY_KIND.get(finding.kind)?.envVar ?? "NAME"}`,
		),
		line: first.line,
		column: first.column,
	};
}

/** A few leading characters: enough to recognise the credential, never all of it. */
function previewOf(secret: string): string {
	return `${secret.slice(0, Math.min(5, Math.floor(secret.length / 4)))}…`;
}

function lineStartsOf(text: string): number[] {
	const starts = [0];
	for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
	return starts;
}

/** 1-based line holding `offset` (binary search over line starts). */
function lineOf(lineStarts: number[], offset: number): number {
	let low = 0;
	let high = lineStarts.length - 1;
	while (low < high) {
		const mid = (low + high + 1) >> 1;
		if (lineStarts[mid] <= offset) low = mid;
		else high = mid - 1;
	}
	return low + 1;
}
