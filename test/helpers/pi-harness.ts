/**
 * pi-harness: drive the REAL pi in-process through its SDK, with a scripted "faux" model (from pi-ai) instead of a
 * network LLM. The pi line is the one pi-line.ts chooses (FORGE_PI_LINE): current by default, legacy on request.
 *
 *   const pi = await startPi({ extensionPaths: [resolve("index.ts")] });
 *   const run = await pi.run("do it", [
 *     [{ name: "echo_tool", args: { text: "hi" } }],             // one assistant message, tool calls run concurrently
 *     ({ lastToolResults }) => ({ text: lastToolResults[0].text }), // react to the previous results
 *   ]);
 *   run.toolEvents; run.toolNamesSeen; run.systemPrompts;
 *   await pi.dispose();   // "restart pi" = dispose() + startPi() with the same cwd / agentDir
 *
 * - Extensions are loaded by pi's own DefaultResourceLoader (jiti, typebox aliasing, discovery of
 *   <agentDir>/extensions and <cwd>/.pi/extensions), and session_start is emitted via session.bindExtensions(),
 *   as print mode does. No UI context is bound, so ctx.hasUI === false (like print/json mode).
 * - Isolation: fresh temp cwd/agentDir unless given; in-memory auth/settings/session (a restart keeps the files,
 *   not the conversation); PI_CODING_AGENT_DIR=agentDir and PI_OFFLINE=1 (plus `env`) are set on process.env
 *   while the harness lives and restored by dispose(): do not run two harnesses at once in one process.
 * - A script that runs out of steps ends the run with a final text message; extra model calls (e.g. a turn
 *   triggered by an extension outside run()) get that same text. An exception thrown by a step function is
 *   rethrown from run() once the run has finished.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Context, FauxResponseFactory, Message, ToolCall, ToolResultMessage } from "@earendil-works/pi-ai/compat";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { systemPromptOf, toolsOf } from "./model-context.ts";
import { codingAgent, PI_LINE, piAi } from "./pi-line.ts";
import { trustProject } from "./trust-project.ts";

const { DefaultResourceLoader, SessionManager, SettingsManager, createAgentSession } = codingAgent;
const { fauxAssistantMessage, fauxToolCall, getApiProvider, registerFauxProvider } = piAi;

export interface ToolEvent {
	toolName: string;
	args: unknown;
	text: string;
	isError: boolean;
	details?: unknown;
}
export interface PiRun {
	toolEvents: ToolEvent[]; // in completion order (tool_execution_end)
	toolNamesSeen: string[][]; // tools offered to the model, one entry per model call
	systemPrompts: string[]; // system prompt sent to the model, one entry per model call
	/** The tool_execution_update events of the run: how many, and their details' JSON size in all. */
	toolUpdates?: { count: number; bytes: number };
}
export interface ToolCallSpec {
	name: string;
	args?: Record<string, unknown>;
}
export type FixedStep = ToolCallSpec[] | { text: string };
export interface StepContext {
	lastToolResults: ToolEvent[];
	toolNames: string[];
	callIndex: number;
}
export type ScriptStep = FixedStep | ((ctx: StepContext) => FixedStep | Promise<FixedStep>);

export interface PiHarness {
	cwd: string;
	agentDir: string;
	session: AgentSession; // escape hatch, e.g. session.getActiveToolNames()
	loadErrors: Array<{ path: string; error: string }>; // all loader errors (ours throw in startPi)
	extensionErrors: Array<{ extensionPath: string; event: string; error: string }>; // runtime handler errors
	run(prompt: string, steps: ScriptStep[]): Promise<PiRun>;
	dispose(): Promise<void>;
}
export interface StartPiOptions {
	extensionPaths: string[];
	cwd?: string;
	agentDir?: string;
	env?: Record<string, string>;
	/** Sees every request exactly as pi hands it to the model (read it with model-context.ts). */
	onContext?: (context: Context) => void;
	/** Whether pi trusts the project (default: trusted); `session.settingsManager.setProjectTrusted` changes it later. */
	projectTrusted?: boolean;
}

export const SCRIPT_DONE_TEXT = "(script finished)";

export async function makeTempDir(prefix: string): Promise<string> {
	return mkdtemp(join(tmpdir(), `${prefix.replace(/[^\w.-]/g, "_")}-`));
}

/** Text blocks of a tool result, joined with newlines. */
function resultText(content: unknown): string {
	if (!Array.isArray(content)) return "";
	return content
		.filter((b) => b?.type === "text")
		.map((b) => b.text as string)
		.join("\n");
}

/** The tool results at the end of the model context, with args taken from the matching tool calls. */
function trailingToolResults(messages: Message[]): ToolEvent[] {
	let start = messages.length;
	while (start > 0 && messages[start - 1].role === "toolResult") start--;
	const prev = messages[start - 1];
	const calls = prev?.role === "assistant" ? prev.content : [];
	return (messages.slice(start) as ToolResultMessage[]).map((m) => ({
		toolName: m.toolName,
		args: calls.find((c): c is ToolCall => c.type === "toolCall" && c.id === m.toolCallId)?.arguments,
		text: resultText(m.content),
		isError: m.isError,
		details: m.details,
	}));
}

export async function startPi(options: StartPiOptions): Promise<PiHarness> {
	const cwd = options.cwd ?? (await makeTempDir("pi-cwd"));
	const agentDir = options.agentDir ?? (await makeTempDir("pi-agent"));
	// A fresh agent dir of the harness trusts the project (trust-project.ts); tests of trust bring their own.
	if (!options.agentDir && options.projectTrusted !== false) await trustProject(agentDir, cwd);

	// process-wide env for the harness lifetime (pi's getAgentDir() and offline mode read it)
	const env: Record<string, string> = { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", ...options.env };
	const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
	Object.assign(process.env, env);
	const restoreEnv = () => {
		for (const [k, v] of Object.entries(savedEnv)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	};

	// Per-run script state; the dispatcher answers every model call and re-queues itself so pi never runs dry.
	let steps: ScriptStep[] = [];
	let current: PiRun = { toolEvents: [], toolNamesSeen: [], systemPrompts: [] };
	let scriptError: unknown;
	const faux = registerFauxProvider({ provider: "faux" }); // unique api id per harness
	const dispatcher: FauxResponseFactory = async (context: Context) => {
		faux.appendResponses([dispatcher]);
		options.onContext?.(context);
		const toolNames = toolsOf(context).map((t) => t.name);
		current.toolNamesSeen.push(toolNames);
		current.systemPrompts.push(systemPromptOf(context));
		try {
			const next = steps.shift() ?? { text: SCRIPT_DONE_TEXT };
			const step =
				typeof next === "function"
					? await next({
							lastToolResults: trailingToolResults(context.messages.filter((m) => m.role !== "system")),
							toolNames,
							callIndex: current.toolNamesSeen.length - 1,
						})
					: next;
			if ("text" in step) return fauxAssistantMessage(step.text);
			return fauxAssistantMessage(
				step.map((c) => fauxToolCall(c.name, (c.args ?? {}) as Parameters<typeof fauxToolCall>[1])),
				{ stopReason: "toolUse" },
			);
		} catch (err) {
			scriptError ??= err;
			steps = [];
			return fauxAssistantMessage(`script error: ${err instanceof Error ? err.message : String(err)}`);
		}
	};
	faux.setResponses([dispatcher]);

	try {
		const settingsManager = SettingsManager.inMemory(
			{ compaction: { enabled: false }, retry: { enabled: false } },
			options.projectTrusted === undefined ? {} : { projectTrusted: options.projectTrusted },
		);
		const extensionPaths = options.extensionPaths.map((p) => resolve(p));
		const loader = new DefaultResourceLoader({
			cwd,
			agentDir,
			settingsManager,
			additionalExtensionPaths: extensionPaths,
			noSkills: true,
		});
		await loader.reload();
		const loadErrors = loader.getExtensions().errors;
		const ours = loadErrors.filter((e) => extensionPaths.some((p) => resolve(e.path).startsWith(p)));
		if (ours.length)
			throw new Error(`pi failed to load extension(s):\n${ours.map((e) => `  ${e.path}: ${e.error}`).join("\n")}`);

		const { session } = await createSession(faux, { cwd, agentDir, settingsManager, resourceLoader: loader });

		const extensionErrors: PiHarness["extensionErrors"] = [];
		await session.bindExtensions({
			onError: (e) => extensionErrors.push({ extensionPath: e.extensionPath, event: e.event, error: e.error }),
		});
		const startErrors = extensionErrors.filter((e) => e.event === "session_start");
		if (startErrors.length)
			throw new Error(
				`session_start handler failed:\n${startErrors.map((e) => `  ${e.extensionPath}: ${e.error}`).join("\n")}`,
			);

		const argsById = new Map<string, unknown>();
		session.subscribe((e) => {
			if (e.type === "tool_execution_start") argsById.set(e.toolCallId, e.args);
			if (e.type === "tool_execution_update") {
				current.toolUpdates ??= { count: 0, bytes: 0 };
				current.toolUpdates.count++;
				current.toolUpdates.bytes += JSON.stringify(e.partialResult?.details ?? null).length;
			}
			if (e.type === "tool_execution_end") {
				current.toolEvents.push({
					toolName: e.toolName,
					args: argsById.get(e.toolCallId),
					text: resultText(e.result?.content),
					isError: e.isError,
					details: e.result?.details,
				});
			}
		});

		// pi hands events to subscribers through a private promise queue that prompt() does not await.
		const settle = async () => {
			for (let q: unknown; q !== (session as unknown as { _agentEventQueue?: unknown })._agentEventQueue; ) {
				q = (session as unknown as { _agentEventQueue?: unknown })._agentEventQueue;
				await q;
			}
		};

		return {
			cwd,
			agentDir,
			session,
			loadErrors,
			extensionErrors,
			async run(prompt, script) {
				const result: PiRun = { toolEvents: [], toolNamesSeen: [], systemPrompts: [] };
				current = result;
				steps = [...script];
				scriptError = undefined;
				try {
					await session.prompt(prompt);
					await settle();
				} finally {
					current = { toolEvents: [], toolNamesSeen: [], systemPrompts: [] }; // late calls go to a sink
					steps = [];
				}
				if (scriptError !== undefined) throw scriptError;
				return result;
			},
			async dispose() {
				try {
					await session.abort();
					if (session.extensionRunner.hasHandlers("session_shutdown")) {
						await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
					}
					session.dispose();
				} finally {
					faux.unregister();
					restoreEnv();
				}
			},
		};
	} catch (err) {
		faux.unregister();
		restoreEnv();
		if (!options.cwd) await rm(cwd, { recursive: true, force: true }); // only dirs we created
		if (!options.agentDir) await rm(agentDir, { recursive: true, force: true });
		throw err;
	}
}

type Faux = ReturnType<typeof registerFauxProvider>;
interface SessionParts {
	cwd: string;
	agentDir: string;
	settingsManager: ReturnType<typeof SettingsManager.inMemory>;
	resourceLoader: InstanceType<typeof DefaultResourceLoader>;
}

/** A session on the faux model: the legacy line takes an in-memory AuthStorage and ModelRegistry, the current one a ModelRuntime. */
async function createSession(faux: Faux, parts: SessionParts): Promise<{ session: AgentSession }> {
	const model = faux.getModel();
	const common = { ...parts, thinkingLevel: "off" as const, sessionManager: SessionManager.inMemory(parts.cwd) };
	if (PI_LINE === "legacy") {
		const legacy = codingAgent as unknown as {
			AuthStorage: { inMemory(): { setRuntimeApiKey(provider: string, key: string): void } };
			ModelRegistry: { inMemory(auth: unknown): unknown };
		};
		const authStorage = legacy.AuthStorage.inMemory();
		authStorage.setRuntimeApiKey(model.provider, "dummy");
		const options = { ...common, model, authStorage, modelRegistry: legacy.ModelRegistry.inMemory(authStorage) };
		return createAgentSession(options as Parameters<typeof createAgentSession>[0]);
	}
	const modelRuntime = await codingAgent.ModelRuntime.create({
		authPath: join(parts.agentDir, "auth.json"),
		modelsPath: null,
		refreshOnCreate: false,
	});
	modelRuntime.registerProvider(model.provider, {
		baseUrl: "http://localhost:0",
		apiKey: "dummy",
		api: model.api,
		streamSimple: getApiProvider(model.api)!.streamSimple,
		models: [
			{
				id: model.id,
				name: model.name,
				reasoning: false,
				input: ["text"],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 128_000,
				maxTokens: 4096,
			},
		],
	});
	return createAgentSession({
		...common,
		model: modelRuntime.getModel(model.provider, model.id) ?? model,
		modelRuntime,
	});
}
