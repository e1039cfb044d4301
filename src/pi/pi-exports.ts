// The values Agent Forge takes from pi at run time, in one place. Both pi lines map the `@mariozechner/*` names to the
// pi that loads the extension (the current line keeps them as aliases of `@earendil-works/*`, see its
// docs/extensions.md); the legacy line knows no other names. Types come from `@earendil-works/*` everywhere else, and
// tsconfig's `paths` maps these names to the current line too, so the type check sees the current line's API.
export {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	defineTool,
	formatSize,
	truncateHead,
} from "@mariozechner/pi-coding-agent";
export { Box, Text } from "@mariozechner/pi-tui";
