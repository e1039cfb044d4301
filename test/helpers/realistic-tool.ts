// A forged tool as a model writes one for a real task: a described, nested, constrained schema (about 700 characters
// per turn), for tests of what pi offers the model.

/** A tool as a model writes one for a real task: a described, nested, constrained schema (≈ 700 characters). */
export function realisticTool(name: string, topic: string) {
	return {
		name,
		description: `Summarises ${topic} records from a CSV or JSON file of the project: groups rows by a column, keeps a date range and some statuses, and returns totals per group.`,
		parametersSchema: {
			type: "object",
			properties: {
				path: { type: "string", description: "File to read, relative to the project." },
				groupBy: {
					type: "string",
					enum: ["region", "product", "month", "owner"],
					description: "Column to group rows by.",
				},
				filter: {
					type: "object",
					description: "Which rows to keep.",
					properties: {
						from: { type: "string", description: "First day kept, YYYY-MM-DD." },
						statuses: {
							type: "array",
							items: { type: "string", enum: ["open", "closed", "pending"] },
							description: "Statuses kept.",
						},
					},
				},
				limit: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "Most groups returned." },
			},
			required: ["path", "groupBy"],
		},
		logic: `return { tool: ${JSON.stringify(name)}, groupBy: params.groupBy, limit: params.limit ?? 10 };`,
	};
}
