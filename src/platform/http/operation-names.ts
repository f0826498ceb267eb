import type { FastifyRequest } from 'fastify';

/** `METHOD /path/{param}`: the operation as the OpenAPI document and fault rules name it. */
export function operationName(method: string, routeUrl: string): string {
  return `${method} ${routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/**
 * The operation of a request to the route registered at `routeUrl`, named once per method when
 * the route is registered rather than on every request (`request.routeOptions` builds an object
 * each time it is read).
 */
export function operationsOf(routeUrl: string): (request: FastifyRequest) => string {
  const names = new Map<string, string>();
  return (request) => {
    let name = names.get(request.method);
    if (name === undefined) names.set(request.method, (name = operationName(request.method, routeUrl)));
    return name;
  };
}
