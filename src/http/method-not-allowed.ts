/**
 * Elysia answers an unknown method on a known path with 404; HTTP says 405 with `Allow`.
 * Builds a matcher from the registered routes once, on first use.
 */
export function allowedMethods(routes: readonly { method: string; path: string }[]) {
  let table: { pattern: RegExp; method: string }[] | undefined
  return (pathname: string): string[] => {
    table ??= routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => ({
        method: route.method,
        pattern: new RegExp(
          '^' +
            route.path
              .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
              .replace(/:[^/]+/g, '[^/]+')
              .replace(/\*/g, '.*') +
            '$',
        ),
      }))
    const methods = new Set(table.filter((route) => route.pattern.test(pathname)).map((route) => route.method))
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}
