// JSON pointers from Ajv ("/items/0/name") as the model reads fields: `params.items[0].name`.

export function fieldPath(root: string, pointer: string): string {
	if (!pointer) return root;
	return pointer
		.split("/")
		.slice(1)
		.map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
		.reduce(
			(path, key) =>
				/^\d+$/.test(key)
					? `${path}[${key}]`
					: /^[A-Za-z_$][\w$]*$/.test(key)
						? `${path}.${key}`
						: `${path}[${JSON.stringify(key)}]`,
			root,
		);
}
