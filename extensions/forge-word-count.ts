// Forged by Agent Forge. Edit freely: the forge re-checks this file when it changes.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";

export const metadata = {
	name: "word-count",
	description: "Count the words, lines and characters of a text.",
	parameters: {
		"type": "object",
		"properties": {
			"text": {
				"type": "string",
				"description": "The text to count"
			}
		},
		"required": [
			"text"
		]
	},
};

export async function execute(params: any, pi: ExtensionAPI, ctx: any): Promise<unknown> {
const text: string = params.text;
const words = text.split(/\s+/).filter(Boolean).length;
const lines = text === "" ? 0 : text.split("\n").length;
return { words, lines, characters: text.length };
}
