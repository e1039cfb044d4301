// Turns an error thrown inside a forged tool into frames and a location in `forge-<name>.ts`.
import type { SourceLocation } from "./forge-error.ts";
import type { PositionMapper } from "./source-map.ts";

export interface MappedStack {
	location?: SourceLocation;
	/** Frames inside the forged file, e.g. `at execute (forge-x.ts:14:7)`. */
	frames: string[];
}

const FRAME = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?$/;

/** Keeps only the frames in `evaluatedAs` (the filename the code ran under), mapped through the source map. */
export function mapStack(
	stack: string | undefined,
	evaluatedAs: string,
	mapper: PositionMapper,
	file: string,
): MappedStack {
	const frames: string[] = [];
	let location: SourceLocation | undefined;
	for (const line of (stack ?? "").split("\n")) {
		const match = FRAME.exec(line);
		if (!match || match[2] !== evaluatedAs) continue;
		const [, fn, , generatedLine, generatedColumn] = match;
		const position = mapper(Number(generatedLine), Number(generatedColumn));
		if (!position) continue;
		location ??= { file, line: position.line, column: position.column };
		frames.push(`at ${fn ? `${fn} ` : ""}(${file}:${position.line}:${position.column})`);
	}
	return { location, frames };
}
