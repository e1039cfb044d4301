// A call's output bounded before it leaves the tool's worker: text cut, images and details left out past the cap
// (text, images and details count together; pi truncates further for the model).
import type { ContentBlock, ToolOutput } from "../../result.ts";
import { toJsonValue, toWireJson } from "../wire.ts";

export function capOutput(output: ToolOutput, maxBytes: number): ToolOutput {
	const returned = output.returned === undefined ? {} : { returned: output.returned };
	let budget = maxBytes;
	const kb = (bytes: number) => Math.round(bytes / 1024);
	// Index loops, not Array.prototype.map: the tool's code may have replaced it in this worker.
	const content: ContentBlock[] = [];
	for (let i = 0; i < output.content.length; i++) {
		const block = output.content[i];
		if (block.type === "image") {
			const bytes = block.data.length;
			if (bytes <= budget) {
				budget -= bytes;
				content[i] = block;
			} else
				content[i] = {
					type: "text",
					text: `[an image of ${kb(bytes)} KB was left out: the output is capped at ${kb(maxBytes)} KB]`,
				};
			continue;
		}
		const bytes = Buffer.byteLength(block.text);
		if (bytes <= budget) {
			budget -= bytes;
			content[i] = block;
			continue;
		}
		const kept = Buffer.from(block.text).subarray(0, Math.max(0, budget)).toString();
		budget = 0;
		content[i] = { type: "text", text: `${kept}\n[output cut at ${kb(maxBytes)} KB of ${kb(bytes)} KB]` };
	}
	if (output.details === undefined) return { content, ...returned };
	// Details as JSON sees them (functions, symbols, ports and modules are nothing to JSON), bounded in depth.
	const details = toJsonValue(output.details);
	const detailBytes = Buffer.byteLength(toWireJson(details));
	if (detailBytes > budget) {
		content[content.length] = {
			type: "text",
			text: `[details of ${kb(detailBytes)} KB were left out: the output is capped at ${kb(maxBytes)} KB]`,
		};
		return { content, ...returned };
	}
	return details === undefined ? { content, ...returned } : { content, details, ...returned };
}
