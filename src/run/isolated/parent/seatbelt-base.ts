// The part of a macOS sandbox profile (SBPL, read by /usr/bin/sandbox-exec) that does not depend on what is sandboxed:
// what any process, Node among them, needs to start and run once everything is denied by default. Taken from the
// profile of @anthropic-ai/sandbox-runtime (Apache-2.0; `generateSandboxProfile` in
// dist/sandbox/macos-sandbox-utils.js, itself based on Chrome's sandbox policy), which runs shells, Node and the
// programs they start under sandbox-exec every day.

/** Processes, signals and IPC only within the sandbox; the Mach services, sysctls and devices a runtime asks for. */
export const SEATBELT_BASE: readonly string[] = [
	"(version 1)",
	"(deny default)",
	"(allow process-exec)",
	"(allow process-fork)",
	"(allow process-info* (target same-sandbox))",
	"(allow signal (target same-sandbox))",
	"(allow mach-priv-task-port (target same-sandbox))",
	"(allow user-preference-read)",
	"(allow mach-lookup",
	...[
		"com.apple.audio.systemsoundserver",
		"com.apple.distributed_notifications@Uv3",
		"com.apple.FontObjectsServer",
		"com.apple.fonts",
		"com.apple.logd",
		"com.apple.lsd.mapdb",
		"com.apple.PowerManagement.control",
		"com.apple.system.logger",
		"com.apple.system.notification_center",
		"com.apple.system.opendirectoryd.libinfo",
		"com.apple.system.opendirectoryd.membership",
		"com.apple.bsd.dirhelper",
		"com.apple.securityd.xpc",
		"com.apple.coreservices.launchservicesd",
		"com.apple.SecurityServer",
	].map((name) => `  (global-name "${name}")`),
	")",
	"(allow ipc-posix-shm)",
	"(allow ipc-posix-sem)",
	"(allow iokit-open",
	'  (iokit-registry-entry-class "IOSurfaceRootUserClient")',
	'  (iokit-registry-entry-class "RootDomainUserClient")',
	'  (iokit-user-client-class "IOSurfaceSendRight")',
	")",
	"(allow iokit-get-properties)",
	// A socket of the kernel's own (no network).
	"(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))",
	"(allow sysctl-read",
	...[
		"hw.activecpu",
		"hw.busfrequency_compat",
		"hw.byteorder",
		"hw.cacheconfig",
		"hw.cachelinesize_compat",
		"hw.cpufamily",
		"hw.cpufrequency",
		"hw.cpufrequency_compat",
		"hw.cputype",
		"hw.l1dcachesize_compat",
		"hw.l1icachesize_compat",
		"hw.l2cachesize_compat",
		"hw.l3cachesize_compat",
		"hw.logicalcpu",
		"hw.logicalcpu_max",
		"hw.machine",
		"hw.memsize",
		"hw.ncpu",
		"hw.nperflevels",
		"hw.packages",
		"hw.pagesize_compat",
		"hw.pagesize",
		"hw.physicalcpu",
		"hw.physicalcpu_max",
		"hw.tbfrequency_compat",
		"hw.vectorunit",
		"kern.argmax",
		"kern.bootargs",
		"kern.hostname",
		"kern.maxfiles",
		"kern.maxfilesperproc",
		"kern.maxproc",
		"kern.ngroups",
		"kern.osproductversion",
		"kern.osrelease",
		"kern.ostype",
		"kern.osvariant_status",
		"kern.osversion",
		"kern.secure_kernel",
		"kern.tcsm_available",
		"kern.tcsm_enable",
		"kern.usrstack64",
		"kern.version",
		"kern.willshutdown",
		"machdep.cpu.brand_string",
		"machdep.ptrauth_enabled",
		"security.mac.lockdown_mode_state",
		"sysctl.proc_cputype",
		"vm.loadavg",
	].map((name) => `  (sysctl-name "${name}")`),
	...[
		"hw.optional.arm",
		"hw.optional.arm.",
		"hw.optional.armv8_",
		"hw.perflevel",
		"kern.proc.all",
		"kern.proc.pgrp.",
		"kern.proc.pid.",
		"machdep.cpu.",
		"net.routetable.",
	].map((prefix) => `  (sysctl-name-prefix "${prefix}")`),
	")",
	// V8 sets this when it works out its threads.
	'(allow sysctl-write (sysctl-name "kern.tcsm_enable"))',
	"(allow distributed-notification-post)",
	...["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper", "/dev/tty"].map(
		(device) => `(allow file-ioctl (literal "${device}"))`,
	),
	'(allow file-ioctl file-read-data file-write-data (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE)))',
	// A process's own open descriptors, by name (`echo x > /dev/stderr`): opening one is dup(2), no new access.
	'(allow file-write-data (literal "/dev/stdout") (literal "/dev/stderr") (regex "^/dev/fd/[0-9]+$"))',
];

/**
 * The network: nothing (the default denies it) or all of it, with the services that resolve names and check
 * certificates (mDNSResponder, trustd) and read the proxy settings (configd).
 */
export function networkRules(network: boolean): string[] {
	if (!network) return [];
	return [
		"(allow network*)",
		"(allow mach-lookup",
		'  (global-name "com.apple.dnssd.service")',
		'  (global-name "com.apple.trustd")',
		'  (global-name "com.apple.trustd.agent")',
		'  (global-name "com.apple.SystemConfiguration.configd")',
		")",
	];
}

/** The socket macOS's resolver library asks for names through. */
export const MDNS_SOCKET = "/private/var/run/mDNSResponder";

/**
 * With the network, the unix sockets a command may connect to: those in its writable folders (given as SBPL strings)
 * and the resolver's, not the daemons' elsewhere (a root daemon's, the user's agents'). Without the network the
 * default denies them all.
 */
export function unixSocketRules(network: boolean, writable: readonly string[]): string[] {
	if (!network) return [];
	const allowed = [...writable.map((dir) => `(subpath ${dir})`), `(path-literal "${MDNS_SOCKET}")`];
	return [
		"(deny network-outbound (remote unix-socket))",
		`(allow network-outbound\n${allowed.map((path) => `  (remote unix-socket ${path})`).join("\n")})`,
	];
}
