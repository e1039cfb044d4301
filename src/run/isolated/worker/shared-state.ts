// What a module's top-level code could change for the modules loaded after it in the same worker: the global object,
// the built-in constructors and their prototypes, `process`, and the modules the worker hands out (its facades,
// TypeBox). A snapshot of their own properties (values and accessors, by identity) and prototypes, compared after
// each load: a batch preflight worker that finds a difference is replaced before it loads another module.

const BUILT_INS = [
	"Object",
	"Function",
	"Array",
	"String",
	"Number",
	"Boolean",
	"Symbol",
	"BigInt",
	"Math",
	"JSON",
	"Reflect",
	"Promise",
	"RegExp",
	"Date",
	"Error",
	"TypeError",
	"RangeError",
	"SyntaxError",
	"Map",
	"Set",
	"WeakMap",
	"WeakSet",
	"ArrayBuffer",
	"SharedArrayBuffer",
	"DataView",
	"Uint8Array",
	"Int32Array",
	"Float64Array",
	"Atomics",
	"Proxy",
	"Intl",
	"Buffer",
	"URL",
	"URLSearchParams",
	"TextEncoder",
	"TextDecoder",
	"console",
];

type Picture = Array<{ target: object; proto: object | null; parts: unknown[] }>;

/** The objects a module can reach without importing anything, plus `extra`. */
function watchedObjects(extra: readonly unknown[]): object[] {
	const objects = new Set<object>([globalThis, process]);
	const add = (value: unknown) => {
		if ((typeof value === "object" && value !== null) || typeof value === "function") objects.add(value as object);
	};
	for (const name of BUILT_INS) {
		const value = (globalThis as Record<string, unknown>)[name];
		add(value);
		add((value as { prototype?: unknown } | undefined)?.prototype);
	}
	add(Object.getPrototypeOf(function* () {}));
	add(Object.getPrototypeOf(async () => undefined));
	for (const value of extra) add(value);
	return [...objects];
}

function take(objects: readonly object[]): Picture {
	return objects.map((target) => {
		const parts: unknown[] = [];
		for (const key of Reflect.ownKeys(target)) {
			const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
			parts.push(key, descriptor?.value, descriptor?.get, descriptor?.set);
		}
		return { target, proto: Reflect.getPrototypeOf(target), parts };
	});
}

function same(a: Picture, b: Picture): boolean {
	for (let i = 0; i < a.length; i++) {
		if (a[i].proto !== b[i].proto || a[i].parts.length !== b[i].parts.length) return false;
		for (let j = 0; j < a[i].parts.length; j++) if (!Object.is(a[i].parts[j], b[i].parts[j])) return false;
	}
	return true;
}

/**
 * Makes the engine create the lazily defined globals now. Reading some of them loads Node's own modules (undici on
 * Node 22), which read `process.env`: this must run before the environment facade is installed, or that read is
 * refused and the worker's start fails.
 */
export function settleLazyGlobals(): void {
	take(watchedObjects([]));
}

/** A check that answers whether everything watched is as it was when the check was made. */
export function watchSharedState(extra: readonly unknown[] = []): () => boolean {
	const objects = watchedObjects(extra);
	// The first pass makes the engine create lazily defined properties (some of Node's globals); the second is the picture.
	take(objects);
	const before = take(objects);
	return () => same(before, take(objects));
}
