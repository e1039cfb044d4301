// The macOS profile's rule for unix sockets, read back as SBPL and asked which socket paths a command may connect to
// (the last matching rule wins, as in Seatbelt). No sandbox-exec runs here: this is not run on a Mac.
import { describe, expect, it } from "vitest";
import { type SeatbeltSpec, seatbeltProfile } from "../../src/run/isolated/parent/seatbelt.ts";
import { MDNS_SOCKET } from "../../src/run/isolated/parent/seatbelt-base.ts";
import { readSbpl, type Sexp } from "../helpers/sbpl.ts";

const same = { canonical: (path: string) => path };
const P = "/Users/me/proj";
const T = "/private/var/folders/ab/T/forge-1";

const spec = (network: boolean): SeatbeltSpec => ({
	writable: [P, T],
	readOnly: [`${P}/.git`],
	network,
	hidden: ["/Users/me", "/private/tmp"],
});

const text = (value: Sexp | undefined): string =>
	typeof value === "object" && value !== null && !Array.isArray(value) ? value.string : String(value);

/** Whether a connect to the unix socket at `path` is allowed: the last network-outbound rule that matches decides. */
function connects(profile: string, path: string): boolean {
	let allowed = false;
	for (const form of readSbpl(profile)) {
		if (!Array.isArray(form) || (form[0] !== "allow" && form[0] !== "deny")) continue;
		const operations = form.slice(1).filter((part): part is string => typeof part === "string");
		if (!operations.some((op) => op === "default" || op === "network*" || op === "network-outbound")) continue;
		const filters = form.slice(1).filter((part): part is Sexp[] => Array.isArray(part));
		const hit =
			filters.length === 0 ||
			filters.some((filter) => {
				if (filter[0] !== "remote" || filter[1] !== "unix-socket") return false;
				const inner = filter[2] as Sexp[] | undefined;
				if (!inner) return true;
				if (inner[0] === "subpath") return path === text(inner[1]) || path.startsWith(`${text(inner[1])}/`);
				if (inner[0] === "path-literal") return path === text(inner[1]);
				throw new Error(`a unix-socket filter this test does not know: ${JSON.stringify(inner)}`);
			});
		if (hit) allowed = form[0] === "allow";
	}
	return allowed;
}

describe("unix sockets under Seatbelt", () => {
	it("with the network: only those in the writable folders and the resolver's", () => {
		const profile = seatbeltProfile(spec(true), same);
		expect(connects(profile, "/var/run/docker.sock")).toBe(false);
		expect(connects(profile, "/private/var/run/docker.sock")).toBe(false);
		expect(connects(profile, "/Users/me/.docker/run/docker.sock")).toBe(false);
		expect(connects(profile, "/private/tmp/com.apple.launchd.x/Listeners")).toBe(false);
		expect(connects(profile, `${P}/dev.sock`)).toBe(true);
		expect(connects(profile, `${T}/s.sock`)).toBe(true);
		expect(connects(profile, `${P}2/x.sock`)).toBe(false);
		expect(connects(profile, MDNS_SOCKET)).toBe(true);
	});

	it("the deny follows the network's allow, so it narrows it", () => {
		const profile = seatbeltProfile(spec(true), same);
		const allowAll = profile.indexOf("(allow network*)");
		const deny = profile.indexOf("(deny network-outbound (remote unix-socket))");
		expect(allowAll).toBeGreaterThan(-1);
		expect(deny).toBeGreaterThan(allowAll);
	});

	it("without the network: none (the default denies them)", () => {
		const profile = seatbeltProfile(spec(false), same);
		expect(connects(profile, `${P}/dev.sock`)).toBe(false);
		expect(connects(profile, "/var/run/docker.sock")).toBe(false);
		expect(profile).not.toContain("unix-socket");
	});
});
