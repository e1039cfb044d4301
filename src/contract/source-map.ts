// Maps positions in transpiled code back to `forge-<name>.ts` (Node's own source map reader, no dependency).
import { SourceMap, type SourceMapPayload } from "node:module";

export interface Position {
	line: number;
	column: number;
}

export type PositionMapper = (line: number, column: number) => Position | undefined;

/** 1-based line and column in, 1-based out; undefined where the map has nothing. */
export function createPositionMapper(mapJson: string): PositionMapper {
	const map = new SourceMap(JSON.parse(mapJson) as SourceMapPayload);
	return (line, column) => {
		const entry = map.findEntry(line - 1, Math.max(0, column - 1)) as Partial<{
			originalLine: number;
			originalColumn: number;
		}>;
		if (typeof entry.originalLine !== "number" || typeof entry.originalColumn !== "number") return undefined;
		return { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
	};
}
