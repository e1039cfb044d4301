// Saving a person's "always": the grant for the call's version of its tool, tried again when the write fails.
import type { GateCall } from "../run/isolated/parent/policy-gate.ts";
import type { GrantsStore } from "./grants-store.ts";

/** How long to wait before each new try at saving a grant (a write may fail for a moment: a busy file, too many open). */
export const REMEMBER_RETRY_MS = [50, 250];

/**
 * Saves an "always" for the call's version of its tool, trying again when the write fails; undefined once saved, else
 * what to tell the person (the grant holds in memory, for this session).
 */
export async function rememberGrant(
	grants: GrantsStore,
	project: string,
	call: GateCall,
	key: string,
): Promise<string | undefined> {
	for (let attempt = 0; ; attempt++) {
		try {
			await grants.remember(project, call.tool, key, "allow", call.hash);
			return undefined;
		} catch (error) {
			if (attempt >= REMEMBER_RETRY_MS.length)
				return `the grant '${key}' holds in this session only: it could not be saved to ${grants.file} (${(error as Error).message})`;
			await new Promise((resolve) => setTimeout(resolve, REMEMBER_RETRY_MS[attempt]));
		}
	}
}
