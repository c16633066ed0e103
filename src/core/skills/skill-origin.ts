import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where each skill was declared: the call of `defineSkill`, kept as a stack trace that V8
 * formats only when read, so start-up pays for a capture per skill and reads none unless
 * a message needs one (two skills with one id: their author must find both modules).
 */
const declarations = new WeakMap<object, { stack?: string }>();

/** Records the caller of `declare` (a function in the stack) as where `skill` was declared. */
export function recordDeclaration(skill: object, declare: (...args: never[]) => unknown): void {
  const trace: { stack?: string } = {};
  Error.captureStackTrace(trace, declare);
  declarations.set(skill, trace);
}

interface Position {
  file: string;
  line: number;
}

/**
 * The module and line `skill` was declared at ("skills/text-stats.ts:18"), relative to the
 * working directory when below it; undefined for a skill not made by `defineSkill` (a
 * copy spread from one) or when the stack was not kept (`Error.stackTraceLimit = 0`).
 */
export function declaredAt(skill: object): string | undefined {
  const frame = declarations
    .get(skill)
    ?.stack?.split("\n")
    .find((line) => /^\s+at /.test(line));
  if (frame === undefined) return undefined;
  const location = /\((.+)\)$/.exec(frame)?.[1] ?? frame.replace(/^\s+at\s+/, "");
  const parts = /^(.+?):(\d+):(\d+)$/.exec(location);
  if (!parts) return location;
  const [, written = "", line = "0", column = "0"] = parts;
  const file = written.startsWith("file:") ? pathOf(written) : written;
  const generated = { file, line: Number(line) };
  const { file: source, line: sourceLine } = inSource(generated, Number(column)) ?? generated;
  const below = isAbsolute(source) && source.startsWith(process.cwd());
  return `${below ? relative(process.cwd(), source) : source}:${sourceLine}`;
}

function pathOf(url: string): string {
  try {
    return fileURLToPath(url);
  } catch {
    return url; // not a path on this system: shown as it is
  }
}

/**
 * The source position of a position in built code, through the file's source map: the
 * CLI is one bundle (scripts/bundle-cli.mjs), where every built-in skill is declared in
 * the same chunk, and tsc's output is .js beside the .ts an author wrote. Read only for a
 * message, so the file and its map are read then, not at start-up.
 */
function inSource({ file, line }: Position, column: number): Position | undefined {
  try {
    const code = readFileSync(file, "utf8");
    const mapUrl = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    if (mapUrl === undefined || mapUrl.startsWith("data:")) return undefined;
    const mapFile = resolve(dirname(file), mapUrl);
    const payload = JSON.parse(readFileSync(mapFile, "utf8")) as { sourceRoot?: string };
    const entry = new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]).findEntry(
      line - 1,
      column - 1,
    );
    if (!("originalSource" in entry)) return undefined;
    const source = entry.originalSource.startsWith("file:")
      ? pathOf(entry.originalSource)
      : resolve(dirname(mapFile), payload.sourceRoot ?? "", entry.originalSource);
    return { file: source, line: entry.originalLine + 1 };
  } catch {
    return undefined; // no map, or not one we can read: the built file is named
  }
}
