/**
 * The API-reference UI is served from our own origin (deployments may be offline), so each
 * runtime entry injects a loader for the swagger-ui-dist files: the Bun entry embeds them
 * in the binary, the Node and Deno entries read them from node_modules.
 */
export type UiAssetLoader = (name: UiAssetName) => Promise<Uint8Array | undefined>

export const UI_ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const
export type UiAssetName = keyof typeof UI_ASSETS
