import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import type { UiAssetLoader } from '../http/ui-assets'

const PATHS = { 'swagger-ui.css': css, 'swagger-ui-bundle.js': bundle } as Record<string, string>

/** `with { type: 'file' }` makes `bun build --compile` embed the files in the binary. */
export const bunUiAssets: UiAssetLoader = async (name) => {
  const path = PATHS[name]
  return path ? new Uint8Array(await Bun.file(path).arrayBuffer()) : undefined
}
