// The runner host: a child process of pi under Node's permission model (reads: project, temp, toolbox, its own code;
// writes: none; no child processes). It runs each tool in a worker thread with a heap cap (tool-workers.ts), loads
// staged modules for the forge (preflight-workers.ts), relays what the tools ask of pi's process, stops a worker on
// request (a synchronous loop included), and watches its own memory.
// A worker runs a tool's code, so whatever it posts is checked here before anything goes on to pi (see wire.ts).
import type { ForgeErrorData } from "../../../contract/forge-error.ts";
import { type FromHost, PREFLIGHT_BATCH, PREFLIGHT_WORKER, type ToHost } from "../protocol.ts";
import { createActivityWatch } from "./activity-watch.ts";
import { type HostOptions, send } from "./channel.ts";
import { createPreflightWorkers } from "./preflight-workers.ts";
import { createToolWorkers } from "./tool-workers.ts";

const options = JSON.parse(process.argv[2] ?? "{}") as HostOptions;
const tools = createToolWorkers(options);
const preflights = createPreflightWorkers(options);
const activity = createActivityWatch(tools.workerOf, send);

process.on("message", (message: ToHost) => {
	switch (message.type) {
		case "call":
			tools.call(message.tool, message.limits, {
				callId: message.callId,
				params: message.params,
				context: message.context,
			});
			break;
		case "cancel":
			tools.cancel(message);
			break;
		case "hold":
			activity.hold(message.callId, message.on);
			break;
		case "stop":
			void stop(message.tool);
			break;
		case "preflight":
			preflights.load(message, message.limits, message.batch?.timeoutMs);
			break;
		case "broker-reply":
			tools.reply(message.requestId, message.reply);
			break;
	}
});

async function stop(name: string): Promise<void> {
	if (name === PREFLIGHT_BATCH) {
		preflights.stopBatch();
		send({ type: "stopped", tool: name });
		return;
	}
	if (name === PREFLIGHT_WORKER) {
		await preflights.stopSingle();
		send({ type: "stopped", tool: name });
		return;
	}
	await tools.stop(name, {
		phase: "runtime",
		message: "Stopped: another call of this tool ran past its deadline or was cancelled.",
	});
}

// Heap caps do not cover Buffers and other memory outside the heap. Past the limit, every running call fails (which
// tool grew cannot be told apart) and pi is asked to end this process: a terminated worker may take seconds to give its
// memory back, and only a new process is sure to start clean. pi restarts the host on the next call.
let recycling = false;
setInterval(() => {
	if (recycling || process.memoryUsage.rss() / 1024 / 1024 <= options.rssLimitMb) return;
	recycling = true;
	const hint = "Process the input in smaller pieces (Buffers count too), or raise PI_FORGE_MAX_MEMORY_MB.";
	const results: FromHost[] = [];
	tools.terminateAll(
		(name): ForgeErrorData => ({
			phase: "memory",
			message: `'${name}' used more memory than allowed (the runner passed ${options.rssLimitMb} MB) and was stopped.`,
			hint,
		}),
		results,
	);
	preflights.terminateAll(
		{
			phase: "memory",
			message: `Loading the module used more memory than allowed (the runner passed ${options.rssLimitMb} MB).`,
			hint,
		},
		results,
	);
	// One message: pi retires this host before anyone learns of the failures, so a call made in answer goes to a new host.
	send({ type: "recycle", results: results as Extract<FromHost, { type: "recycle" }>["results"] });
}, 100).unref();

process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
