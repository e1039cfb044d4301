import { defineConfig } from "vitest/config";

// The pi line under test (FORGE_PI_LINE=legacy for the @mariozechner 0.73.x line). On the current line, the legacy
// names src/pi/pi-exports.ts imports resolve to the current packages, as pi's own loader maps them.
const legacy = process.env.FORGE_PI_LINE === "legacy";

export default defineConfig({
	resolve: {
		alias: legacy
			? []
			: [{ find: /^@mariozechner\/(pi-coding-agent|pi-tui|pi-ai)$/, replacement: "@earendil-works/$1" }],
	},
	test: {
		include: ["test/**/*.test.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
		pool: "forks",
	},
});
