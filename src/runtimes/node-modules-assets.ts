import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { UiAssetLoader } from '../http/ui-assets'

const require = createRequire(import.meta.url)

/**
 * The reference UI's files read from swagger-ui-dist in node_modules, for the Deno and
 * Node entries (the Bun binary embeds them instead; see bun-assets.ts). Resolved the way
 * Node resolves packages, so it works from the sources and from a bundle in dist/.
 */
export const nodeModulesUiAssets: UiAssetLoader = async (name) =>
  new Uint8Array(await readFile(require.resolve(`swagger-ui-dist/${name}`)))
