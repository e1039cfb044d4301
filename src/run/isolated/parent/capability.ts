// What a forged tool in the runner host asks pi's process for, named as a capability: the broker forms one from each
// request (paths resolved, the program looked up) and the policy gate decides on it (see policy/capability.ts for
// its grant keys and descriptions).

export type Capability =
	/** An absolute path, already resolved through symlinks (realpath) by the caller. */
	| { kind: "fs-read"; path: string }
	/** An absolute, resolved path; for a new file: the realpath of its parent dir + its basename. */
	| { kind: "fs-write"; path: string }
	/**
	 * `program` is the executable as spawn would run it (its path, looked up on PATH in pi's process); with `shell`,
	 * `commandLine` is the whole line the shell runs. `env`: the variables the command gets beyond pi's own; `cwd`: the
	 * folder it runs in (shown, not part of the key). `content`: the sha256 of the program when a tool can write it
	 * (inside the project or the temp dir), or of the files a shell line names there: part of the key.
	 */
	| {
			kind: "exec";
			program: string;
			commandLine: string;
			shell?: boolean;
			env?: readonly EnvChange[];
			cwd?: string;
			content?: string;
			/** A shell line whose files cannot be told from its text (`cd x && sh y.sh`, `$PWD/y.sh`): why; never granted for good. */
			unbound?: string;
	  }
	| { kind: "env"; name: string }
	/** HTTP(S) to one host: its name, with the port when it is not the scheme's default ("api.example.com", "127.0.0.1:8080"). */
	| { kind: "net"; host: string }
	/** Run in pi's own process with the real ExtensionAPI. */
	| { kind: "inline" };

export type CapabilityKind = Capability["kind"];

/** A variable a command gets that differs from pi's environment for commands; `previous` is undefined when added. */
export interface EnvChange {
	name: string;
	value: string;
	previous?: string;
}

/** `text` as one word for a POSIX shell: as it is when that is safe, else in single quotes. */
export function shellQuote(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
