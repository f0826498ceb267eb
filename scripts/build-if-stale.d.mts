/** A part of the build: its sources, the output that says when it was last built, and how to build it. */
export interface BuildPart {
  name: string;
  sources: string[];
  output: string;
  command: string[];
}
export function isStale(part: BuildPart, base?: string): boolean;
