import type { Server } from "node:net";

/** Starts `server` on a free port of 127.0.0.1 and resolves with that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return address.port;
}
