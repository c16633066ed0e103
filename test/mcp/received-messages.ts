import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Every message `client` receives from now on, in wire order, each still handed to the
 * client as before; `stop` gives the client its own handler back. The SDK's client hands a
 * notification to its handler a microtask later than a response, so when a call's last
 * notification and its answer arrive in one read, `onprogress` misses that notification
 * (typescript-sdk#2580): the wire is what the server controls.
 */
export function receivedMessages(client: Client): { received: JSONRPCMessage[]; stop(): void } {
  const transport = client.transport;
  const dispatch = transport?.onmessage;
  if (!transport || !dispatch) throw new Error("the client is not connected");
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message, extra) => {
    received.push(message);
    dispatch(message, extra);
  };
  return { received, stop: () => (transport.onmessage = dispatch) };
}
