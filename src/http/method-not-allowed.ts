import { METHODS } from "node:http";
import type { FastifyInstance } from "fastify";
import { ServiceError } from "../core/errors.js";

/** The methods registered on each path, as routes are added, and whether it needs no key. */
export type RouteMethods = ReadonlyMap<string, { methods: ReadonlySet<string>; public: boolean }>;

/**
 * Lets the router route every method Node reads (TRACE, SEARCH, QUERY…): the router routes
 * only the methods it knows, and another one on a known path must be refused with 405
 * (`registerMethodNotAllowed`), not 404.
 */
export function routeEveryMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
}

/** The methods of each path, filled in as routes are registered: call before registering them. */
export function collectRoutes(app: FastifyInstance): RouteMethods {
  const routes = new Map<string, { methods: Set<string>; public: boolean }>();
  app.addHook("onRoute", (route) => {
    const path = routes.get(route.url) ?? { methods: new Set<string>(), public: false };
    for (const method of [route.method].flat()) path.methods.add(method);
    path.public ||= route.config?.public === true;
    routes.set(route.url, path);
  });
  return routes;
}

/**
 * A known path with another method is 405 with `Allow` (contract.md), not 404: registers
 * the other methods of every path in `routes` as a refusal. Call after the last route.
 */
export function registerMethodNotAllowed(app: FastifyInstance, routes: RouteMethods): void {
  // A copy: the refusals registered below are routes too, and join `routes` as they are.
  for (const [url, { methods, public: isPublic }] of [...routes]) {
    const others = app.supportedMethods.filter((m) => !methods.has(m));
    const allow = [...methods].join(", ");
    const refuse = async () => {
      throw new ServiceError("method_not_allowed", {
        message: `Use ${allow} on this path.`,
        headers: { allow },
      });
    };
    // Refused on arrival, before the body is read: a wrong method is 405 whatever its body.
    // On a path that needs no key (/v1/openapi.json), none is asked for first (it was 401).
    app.route({ method: others, url, config: { public: isPublic }, onRequest: refuse, handler: refuse });
  }
}
