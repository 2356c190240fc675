import clientScript from './assets/client.js' with { type: 'text' }
import faviconSvg from './assets/favicon.svg' with { type: 'text' }
import logoDarkSvg from './assets/logo-dark.svg' with { type: 'text' }
import logoLightSvg from './assets/logo-light.svg' with { type: 'text' }
import searchScript from './assets/search.js' with { type: 'text' }
import searchStylesheet from './assets/search.css' with { type: 'text' }
import stylesheet from './assets/site.css' with { type: 'text' }
import { ASSET_BASE } from './links'
import { type Asset, asset } from '../http/static-asset'

export type { Asset }

// The search dialog's script and styles are files of their own, served as part of the site's one script and stylesheet.
const css = asset(`${stylesheet}\n${searchStylesheet}`, 'text/css; charset=utf-8')
const js = asset(`${clientScript}\n${searchScript}`, 'text/javascript; charset=utf-8')

/** Versioned names: a new build changes the name, so the files can be cached for a year. */
const versioned = new Map<string, Asset>([
  [`site.${css.etag.slice(1, 11)}.css`, css],
  [`client.${js.etag.slice(1, 11)}.js`, js],
])
const [cssName, jsName] = [...versioned.keys()]

export const SITE_ASSETS = { css: ASSET_BASE + cssName, js: ASSET_BASE + jsName }

/** A versioned stylesheet or script by file name. */
export function siteAsset(name: string): Asset | undefined {
  return versioned.get(name)
}

/**
 * The built-in files that the default docs.json names (`/logo/light.svg`, `/logo/dark.svg`, `/favicon.svg`), served at
 * /docs/{path} (and /docs/_files/{path}) unless the repository stores its own file at that path (see files.ts).
 */
const FILES = new Map<string, Asset>([
  ['logo/light.svg', asset(logoLightSvg, 'image/svg+xml')],
  ['logo/dark.svg', asset(logoDarkSvg, 'image/svg+xml')],
  ['favicon.svg', asset(faviconSvg, 'image/svg+xml')],
])

export function builtInFile(path: string): Asset | undefined {
  return FILES.get(path)
}
