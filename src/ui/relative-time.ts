// "2m ago", "3h ago", "just now": the times the widget, /forge and list_forge show.

export function relativeTime(then: Date, now: Date): string {
	const seconds = Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));
	if (seconds < 10) return "just now";
	if (seconds < 60) return `${seconds}s ago`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes}m ago`;
	const hours = Math.floor(minutes / 60);
	if (hours < 48) return `${hours}h ago`;
	return `${Math.floor(hours / 24)}d ago`;
}
