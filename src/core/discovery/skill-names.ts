/** A lowercase letter or digit before an uppercase one, or an acronym before a word: `getUser`, `HTTPRequest`. */
const CASE_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/u;

/**
 * The words of a name, lowercase: `util.wait`, `util_wait`, `Util Wait` and `utilWait` all
 * give `util`, `wait`. Every spelling an agent may give a skill's id reduces to the same
 * words: the id itself, its MCP tool name (`_` for `.`, tool-names.ts) or the id read aloud.
 */
function nameWords(text: string): string[] {
  return text
    .split(NOT_LETTER_OR_DIGIT)
    .flatMap((segment) => segment.split(CASE_BOUNDARY))
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

/** Ids are short: a longer query is a sentence, never a name, and is not split. */
const MAX_NAME_CHARS = 200;

/**
 * The skills of a catalog by the words of their id, so that a query naming a skill (an
 * agent that knows the id from an earlier answer, a log or a prompt) finds it whatever the
 * ranking signals say about a bare identifier, and so that an id or tool name given in
 * another spelling is answered with the one meant (`SkillRegistry.require`, the MCP tool
 * catalog).
 */
export class SkillNames {
  private readonly byName = new Map<string, Set<string>>();

  add(id: string): void {
    const name = nameWords(id).join(" ");
    if (name.length === 0) return;
    const ids = this.byName.get(name) ?? new Set<string>();
    ids.add(id);
    this.byName.set(name, ids);
  }

  remove(id: string): void {
    const name = nameWords(id).join(" ");
    const ids = this.byName.get(name);
    ids?.delete(id);
    if (ids?.size === 0) this.byName.delete(name);
  }

  /** The ids the query names exactly (case, `.`, `_`, `-` and spaces aside); usually none. */
  named(query: string): string[] {
    if (query.length > MAX_NAME_CHARS) return [];
    return this.namedBy(nameWords(query));
  }

  /**
   * The ids a name that is no skill's id was meant to be, for a refusal's "did you mean":
   * those it names (`math_evaluate`), else those its last words name, the first words being
   * a prefix a client put before a tool's name (`mcp__skillport__math_evaluate`, as Claude
   * Code calls skillport's tools).
   */
  meant(name: string): string[] {
    if (name.length > MAX_NAME_CHARS) return [];
    const words = nameWords(name);
    for (let first = 0; first < words.length; first++) {
      const ids = this.namedBy(words.slice(first));
      if (ids.length > 0) return ids;
    }
    return [];
  }

  private namedBy(words: readonly string[]): string[] {
    const ids = this.byName.get(words.join(" "));
    return ids ? [...ids].sort() : [];
  }
}
