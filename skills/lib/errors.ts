/**
 * The message of a library error, capped, for use inside a SkillError. Only call it for
 * libraries whose messages describe the input (mathjs, csv-parse, Ajv, JMESPath), never
 * for I/O errors that may carry paths or internal state.
 */
export function errorMessage(err: unknown, maxLength = 300): string {
  const message = err instanceof Error ? err.message : "unknown error";
  return message.length > maxLength ? `${message.slice(0, maxLength - 3)}...` : message;
}
