// The usage text of `agent-forge`, built from the command table so the two never disagree.
import { COMMANDS, type CommandName } from "./parse-args.ts";

const names = Object.keys(COMMANDS) as CommandName[];
const readOnly = names.filter((name) => COMMANDS[name].readOnly && !COMMANDS[name].grants);
const grants = names.filter((name) => COMMANDS[name].grants);
const lines = names.map((name) => `  ${`${name} ${COMMANDS[name].args}`.padEnd(28)} ${COMMANDS[name].does}`);

export const USAGE = `Usage: agent-forge <command> [arguments] [options]

Commands:
${lines.join("\n")}

Options:
  --cwd <project>              the project (default: the current directory)
  --json                       machine-readable output (list, check, test)
  --force                      import, promote, demote: replace a tool of the same name that is there
  -h, --help                   this text
  -v, --version                the version of agent-forge

The toolbox is $PI_FORGE_DIR, else <project>/.pi/forge/extensions; beside it, the user toolbox
(<agent dir>/forge/extensions) is seen from every project, and a project tool wins a name clash. A version is N or vN
(diff my-tool v2 v3).
Read-only: ${readOnly.join(", ")} never write into the project.
${grants.join(", ")} work on your grants file (<agent dir>/forge/grants.json), never on the project. A capability:
  read:<absolute path> (ending in / for a folder), write:<absolute path>, exec:<program path or name on PATH>,
  shell:<command line>, env:<VARIABLE>, inline; a grant holds for the tool's current version, from its next call.

Exit codes:
  0  ok
  1  failed: a check or a test failed, a tool has no tests (a draft), a tool or version was not found,
     or the toolbox could not be read or changed
  2  usage error: unknown command or option, missing or extra arguments, a bad version, a --cwd that is not a folder`;
