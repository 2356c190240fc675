/**
 * The API-reference page: Swagger UI from our own origin (deployments may be offline; no CDN),
 * pointed at `/openapi.json` by absolute path, so `/openapi/` works as well as `/openapi`.
 * Our own page rather than @elysiajs/openapi's: that one declares `charset=utf8`, carries an
 * invalid CSS colour, and resolves the document relative to the page's path.
 */
export function referencePage(title: string): string {
  const escaped = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped}: API reference</title>
<link rel="stylesheet" href="/openapi/assets/swagger-ui.css">
<style>
@media (prefers-color-scheme: dark) {
  body { background-color: #222; color: #faf9fa; }
  .swagger-ui { filter: invert(92%) hue-rotate(180deg); }
  .swagger-ui .microlight { filter: invert(100%) hue-rotate(180deg); }
}
</style>
</head>
<body>
<main id="swagger-ui"></main>
<script src="/openapi/assets/swagger-ui-bundle.js"></script>
<script>
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' })
})
</script>
</body>
</html>
`
}
