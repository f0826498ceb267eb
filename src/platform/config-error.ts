/** A configuration pbs cannot run with: said in one line, exit code 2. */
export class ConfigError extends Error {}
