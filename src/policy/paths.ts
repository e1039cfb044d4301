// Path comparisons the policy is made of: inside a folder (the runner's own helper: one rule on both sides), the
// same location.
import { trimSeparators } from "../run/isolated/parent/paths.ts";

export { isInside } from "../run/isolated/parent/paths.ts";

export function sameLocation(a: string, b: string): boolean {
	return trimSeparators(a) === trimSeparators(b);
}
