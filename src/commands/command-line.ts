import { Option, type Command } from 'commander';

/**
 * One command of a group, as its help shows it: `use` is the words after the group's name and
 * then its arguments (`credential issue <partner-id>`), `options` commander's flag syntax
 * (`--kind <kind>`, or `--drop` for one without a value).
 */
export interface CommandSpec {
  use: string;
  summary: string;
  options?: ReadonlyArray<readonly [flags: string, description: string]>;
}

/**
 * A family's `pbs` command group as people see it, declared apart from the code that runs it so
 * that help never needs a database. Parsed by commander (ADR 0012); the group's runner then gets
 * the words and flags it always read.
 */
export interface CommandGroupSpec {
  name: string;
  summary: string;
  commands: readonly CommandSpec[];
  /** What the groups of commands within it are about (`credential` of `partner`), for their help. */
  subgroups?: Record<string, string>;
}

/** Runs a group's command: the words after the group's name (arguments included) and the flags given. */
export type RunGroup = (group: string, args: string[], flags: Record<string, string>) => Promise<void>;

/** Adds `spec`'s commands to `program`, each calling `run` with what the group's runner reads. */
export function addCommandGroup(program: Command, spec: CommandGroupSpec, run: RunGroup): void {
  const group = program.command(spec.name).description(spec.summary);
  for (const command of spec.commands) {
    const words = command.use.split(' ');
    const firstArgument = words.findIndex((w) => w.startsWith('<') || w.startsWith('['));
    const path = firstArgument < 0 ? words : words.slice(0, firstArgument);
    const argumentsOf = firstArgument < 0 ? [] : words.slice(firstArgument);
    let parent = group;
    for (const word of path.slice(0, -1))
      parent = parent.commands.find((c) => c.name() === word) ?? parent.command(word).description(spec.subgroups?.[word] ?? '');
    const leaf = parent.command(path[path.length - 1]).description(command.summary);
    for (const argument of argumentsOf) leaf.argument(argument);
    for (const [flags, description] of command.options ?? []) leaf.addOption(new Option(flags, description));
    // commander calls an action with the command as `this`.
    leaf.action(async function (this: Command) {
      const given = this.processedArgs.filter((a): a is string => typeof a === 'string');
      await run(spec.name, [...path, ...given], flagsOf(this));
    });
  }
}

/**
 * The options given to `command` and its parents, by their long names without the dashes, as the
 * groups read them: a flag without a value is 'true' (`--no-notify` too, by its own name).
 */
export function flagsOf(command: Command): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let c: Command | null = command; c; c = c.parent) {
    for (const option of c.options) {
      const value: unknown = c.getOptionValue(option.attributeName());
      const source = c.getOptionValueSource(option.attributeName());
      if (value === undefined || source === 'default' || option.long === undefined) continue;
      const name = option.long.slice(2);
      if (name in flags) continue; // the nearest command's wins
      // A flag without a value is true; one with a value holds its text (commander parses nothing further).
      flags[name] = option.negate || typeof value !== 'string' ? 'true' : value;
    }
  }
  return flags;
}
