import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The text an agent reads of a tool result: its text parts, a line each. */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}
