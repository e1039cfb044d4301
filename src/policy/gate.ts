// The policy as the isolated runner's one gate (run/isolated/parent/policy-gate.ts): each capability a tool asks for
// is decided (decide.ts: the policy, the protected locations, the grants), asked of a person where the policy says
// ask and there is one, remembered when they say "always", and audited; the refusal carries the hint and the
// commands that would grant it.

import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ForgeConfig } from "../contract/config.ts";
import type { ForgeErrorData } from "../contract/forge-error.ts";
import type { Capability } from "../run/isolated/parent/capability.ts";
import { real } from "../run/isolated/parent/paths.ts";
import type { CallRecord, GateCall, PolicyGate } from "../run/isolated/parent/policy-gate.ts";

import { redactSecrets } from "../security/redact.ts";
import type { AuditLog } from "./audit-log.ts";
import { capabilityKey, describeCapability, digestKey } from "./capability.ts";
import { type Decision, decide, grantCommands, REASONS, refusalHint } from "./decide.ts";
import { commandTooLong, permissionTitle } from "./display.ts";
import type { GrantsStore } from "./grants-store.ts";
import { currentInstallations } from "./installations.ts";
import { CANONICAL_INSTRUCTION_FILES, INSTRUCTION_FILES, nestedPathsAt, protectedLocations } from "./protected.ts";
import { rememberGrant } from "./remember-grant.ts";

export interface PolicyGateOptions {
	config: ForgeConfig;
	grants: GrantsStore;
	audit: AuditLog;
	/** Where the runner's bundle is built: as protected as the toolbox. */
	runtimeDir: string;
	/** Extra folders no tool may write (the forge's settings and grants). */
	protectedDirs?: readonly string[];
}

export const ASK_OPTIONS = { once: "Allow once", always: "Always allow for this tool", deny: "Deny" } as const;

/** This package's command line, for a grant command that runs whether or not `agent-forge` is on the PATH. */
const AGENT_FORGE_BIN = fileURLToPath(new URL("../../bin/agent-forge.mjs", import.meta.url));

/** How many dialogs one call may open; past it, what it asks for is refused unasked, naming the grant commands. */
export const MAX_DIALOGS_PER_CALL = 5;

/** "over": the call ended before or while it was asked (nothing is remembered); "unasked": past the call's dialogs. */
// "denied": a person said no to the same earlier in the call (not asked again).
// "too-long": a command line too long to show whole is not put to a person.
type Answer = "once" | "always" | "deny" | "denied" | "over" | "unasked" | "too-long" | undefined;

/** What one call asked: how many dialogs it opened, and what a person denied in it (not asked again). */
interface CallAsks {
	dialogs: number;
	denied: Set<string>;
}

export function createPolicyGate(options: PolicyGateOptions): PolicyGate {
	const { grants, audit, config } = options;
	const projectDir = config.realCwd;
	const tempDir = config.realTempDir;
	// Protected whoever builds the runner: the forge's own files, and what pi, git and other agents run or trust.
	const locations = protectedLocations({
		projectDir,
		tempDir,
		agentDir: real(config.agentDir),
		toolboxDir: real(config.toolboxDir),
		forgeHome: real(config.forgeHome),
		homeDir: real(config.homeDir),
		configHome: config.env.XDG_CONFIG_HOME ? real(config.env.XDG_CONFIG_HOME) : undefined,
		installations: currentInstallations(projectDir, config.nodePath),
		extra: [
			...new Set(
				[dirname(config.projectConfigFile), options.runtimeDir, ...(options.protectedDirs ?? [])].map(real),
			),
		],
	});
	// Secret values are hidden in what a dialog shows (a screen may be shared) and in grant keys.
	const secrets = config.secretValues;
	const redact = (text: string) => redactSecrets(text, secrets);
	/** The key a grant of `capability` is kept and printed under: its digest when the key holds a secret. */
	const grantKey = (capability: Capability) => {
		const key = capabilityKey(capability);
		return redact(key) === key ? key : digestKey(key);
	};
	let prompts: Promise<unknown> = Promise.resolve();
	// Per top-level call (its calls through pi.useTool included), else per call (keyed by the signal that ends it): a
	// call cannot keep a person answering, nor ask again what they denied, by asking through other tools' calls.
	const asks = new WeakMap<object, CallAsks>();
	const asksOf = (call: GateCall): CallAsks => {
		const key = call.host?.callTree ?? call.ended;
		if (!key) return { dialogs: 0, denied: new Set() };
		const entry = asks.get(key) ?? { dialogs: 0, denied: new Set<string>() };
		asks.set(key, entry);
		return entry;
	};
	/** What a Deny is remembered under: the tool and what it asked for. */
	const deniedKey = (capability: Capability, call: GateCall) => `${call.tool}\0${capabilityKey(capability)}`;

	/**
	 * Asks a person (one dialog at a time); undefined when there is nobody to ask. A call that is over is not asked
	 * for (its dialogs still queued are dropped, one open is dismissed), and one call opens at most
	 * MAX_DIALOGS_PER_CALL dialogs.
	 */
	const ask = (capability: Capability, call: GateCall): Promise<Answer> => {
		const select = call.host?.hasUI ? call.host.select : undefined;
		if (!select) return Promise.resolve(undefined);
		const options =
			capability.kind === "inline"
				? [ASK_OPTIONS.always, ASK_OPTIONS.deny]
				: capability.kind === "exec" && capability.unbound
					? [ASK_OPTIONS.once, ASK_OPTIONS.deny]
					: [ASK_OPTIONS.once, ASK_OPTIONS.always, ASK_OPTIONS.deny];
		if (commandTooLong(capability, redact) !== undefined) return Promise.resolve("too-long");
		const callAsks = asksOf(call);
		// From now on the tool waits on a person (for this dialog, or one before it in the queue).
		const resume = call.pause();
		const asked = prompts.then(async (): Promise<Answer> => {
			if (!call.alive() || call.ended?.aborted) return "over";
			// Asked while this one waited its turn: the answer given then holds.
			if (callAsks.denied.has(deniedKey(capability, call))) return "denied";
			if (callAsks.dialogs >= MAX_DIALOGS_PER_CALL) return "unasked";
			callAsks.dialogs++;
			const title = permissionTitle(capability, { tool: call.tool, version: call.version, redact });
			// The queue moves on when the call ends, whether or not the UI takes the dialog down.
			const answer = await Promise.race([select(title, options, call.ended), whenAborted(call.ended)]);
			if (!call.alive()) return "over";
			return answer === ASK_OPTIONS.once ? "once" : answer === ASK_OPTIONS.always ? "always" : "deny";
		});
		prompts = asked.catch(() => undefined);
		return asked.finally(resume);
	};

	const authorise = async (capability: Capability, call: GateCall): Promise<ForgeErrorData | undefined> => {
		// A grant given since (agent-forge grant, /forge grant, a hand edit) holds from this decision on.
		await grants.refresh();
		let decision: Decision = decide(capability, {
			policy: config.policy,
			projectDir,
			tempDir: call.tempDir ?? tempDir,
			protected: locations,
			grants: grants.get(projectDir, call.tool, call.hash),
		});
		let audited: "ask-allow-once" | "ask-allow-always" | "ask-deny" | undefined;
		/** Why a grant given now could not be saved (it holds in this session only). */
		let unsaved: string | undefined;
		if (decision.verdict === "ask") {
			const callAsks = asksOf(call);
			const key = deniedKey(capability, call);
			const answer = callAsks.denied.has(key) ? "denied" : await ask(capability, call);
			if (answer === "deny") callAsks.denied.add(key);
			if (answer === "always") unsaved = await rememberGrant(grants, projectDir, call, grantKey(capability));
			// With nobody to ask, nobody answered: the audit says "deny" (reason: no UI to ask), not "ask-deny".
			audited =
				answer === "once"
					? "ask-allow-once"
					: answer === "always"
						? "ask-allow-always"
						: answer === "deny"
							? "ask-deny"
							: undefined;
			decision =
				answer === "deny" || answer === "denied"
					? { verdict: "deny", reason: REASONS.deniedByUser }
					: answer === undefined
						? { verdict: "deny", reason: "no UI to ask" }
						: answer === "over"
							? { verdict: "deny", reason: REASONS.callOver }
							: answer === "unasked"
								? { verdict: "deny", reason: REASONS.tooManyDialogs(MAX_DIALOGS_PER_CALL) }
								: answer === "too-long"
									? { verdict: "deny", reason: REASONS.tooLongToShow(commandTooLong(capability, redact) ?? 0) }
									: { verdict: "allow", reason: "allowed by the user" };
		}
		if (capability.kind === "inline" && decision.verdict === "allow" && audited !== "ask-allow-always")
			unsaved = await rememberGrant(grants, projectDir, call, "inline");
		const verdict = decision.verdict === "allow" ? "allow" : "deny";
		const reason = "reason" in decision ? decision.reason : undefined;
		audit.append({
			at: new Date().toISOString(),
			tool: call.tool,
			version: call.hash,
			capability: capabilityKey(capability),
			decision: audited ?? verdict,
			reason: unsaved ? [reason, unsaved].filter(Boolean).join("; ") : reason,
		});
		if (unsaved) call.host?.notify(`'${call.tool}': ${unsaved}.`, "warning");
		if (decision.verdict === "allow" && capability.kind !== "inline") return undefined;
		if (decision.verdict === "allow") {
			return {
				phase: "permission",
				message: `'${call.tool}' needs pi's in-process API; it may now run inside pi's process.`,
				hint: "Call the tool again: from now on it runs inline, with the full ExtensionAPI.",
			};
		}
		const hint = refusalHint(call.tool, config.policy, grants.file, decision, capability);
		// What a person just refused is not offered back as a command to run, nor a grant that would not hold.
		const grantable = !(capability.kind === "exec" && capability.unbound);
		if (
			grantable &&
			!isFinalDenial(decision) &&
			decision.reason !== REASONS.deniedByUser &&
			decision.reason !== REASONS.callOver
		) {
			const commands = grantCommands(call.tool, grantKey(capability), {
				node: process.execPath,
				bin: AGENT_FORGE_BIN,
			});
			call.refused?.([
				commands.cli,
				`without agent-forge on the PATH: ${commands.direct}`,
				`in pi's TUI: ${commands.tui}`,
			]);
		}
		return {
			phase: "permission",
			message: `'${call.tool}' may not ${describeCapability(capability)}: ${decision.reason}.`,
			hint,
			code: "ERR_FORGE_PERMISSION",
		};
	};

	return {
		network: config.policy === "permissive",
		authorise,
		protectedPaths: () => [
			...locations.map((location) => location.path),
			...new Set([
				...instructionFilesIn(projectDir),
				...CANONICAL_INSTRUCTION_FILES.map((name) => join(projectDir, name)),
				...nestedPathsAt(projectDir),
			]),
		],
		runsInline: async (tool, hash) => {
			if (config.policy === "strict") return false;
			await grants.refresh();
			return grants.get(projectDir, tool, hash).allow.includes("inline");
		},
		recordCall: (record: CallRecord) =>
			audit.append({
				at: new Date().toISOString(),
				tool: record.tool,
				version: record.hash,
				durationMs: record.durationMs,
				outcome: record.outcome,
				// Cut by the audit log once secrets are redacted: a cut here could halve a key past recognition.
				...(record.detail === undefined ? {} : { detail: record.detail }),
			}),
		flush: () => audit.flush(),
	};
}

/** Resolves (to undefined) when `signal` aborts; never without one. */
function whenAborted(signal: AbortSignal | undefined): Promise<undefined> {
	return new Promise((resolve) => {
		if (signal?.aborted) resolve(undefined);
		else signal?.addEventListener("abort", () => resolve(undefined), { once: true });
	});
}

/** A refusal no grant can lift (a protected location, a relative path): no command to grant it is offered. */
function isFinalDenial(decision: Decision): boolean {
	return (
		decision.verdict === "deny" &&
		(decision.reason === REASONS.notAbsolute || decision.reason.endsWith(REASONS.protected))
	);
}

/** The agent instruction files at the top of the project, whatever their case (bound read-only for commands). */
function instructionFilesIn(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter((name) => INSTRUCTION_FILES.includes(name.toLowerCase()))
			.map((name) => join(dir, name));
	} catch {
		return [];
	}
}
