/**
 * How a skill that can outlast the default timeout is given longer, said on every surface an
 * agent may call it from: REST callers set the execution's timeout_ms in POST /v1/execute,
 * where "run it through execute_skill" (MCP's generic tool) named nothing they know; a
 * skill's own MCP tool takes no timeout_ms.
 */
export const LONGER_RUN =
  "An execution times out after 30 s unless given a larger timeout_ms: in POST /v1/execute's body, or through " +
  "MCP's execute_skill (a skill's own MCP tool runs with the default)";
