/** A route as Hono lists it (`app.routes`). */
export interface RouteEntry {
  method: string
  path: string
}

/**
 * The methods the app answers on `path` (its non-middleware routes whose pattern matches), for a
 * 405 with `Allow` instead of a 404 when only the method is wrong. GET implies HEAD.
 *
 * @example
 * ```ts
 * allowedMethods(app.routes, '/iam/clients/me') // ['GET', 'HEAD']
 * ```
 */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>()
  for (const route of routes) {
    if (route.method === 'ALL' || route.path.includes('*')) continue
    const pattern = route.path
      .replace(/[.+?^$|()[\]\\]/g, '\\$&')
      .replace(/:[A-Za-z_]\w*/g, '[^/]+')
    if (new RegExp(`^${pattern}$`).test(path)) methods.add(route.method)
  }
  if (methods.has('GET')) methods.add('HEAD')
  return [...methods]
}
