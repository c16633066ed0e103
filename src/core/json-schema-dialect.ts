/**
 * `schema` without its root `$schema` (zod writes it at the root only), for a place that
 * states the dialect once for every schema it embeds: an MCP tool's schemas (2020-12 when
 * none is given) and an OpenAPI 3.1 document's components (its default dialect, 2020-12
 * with OpenAPI's vocabulary).
 */
export function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
