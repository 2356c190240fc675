import consoleScript from './assets/console.js' with { type: 'text' }
import consoleStylesheet from './assets/console.css' with { type: 'text' }
import faviconSvg from './assets/favicon.svg' with { type: 'text' }
import { type Asset, asset } from '../http/static-asset'
import { LimitsSchema } from '../config/limits'

/** Where the console's stylesheet and script are served: versioned names, cached for a year. */
const CONSOLE_ASSET_BASE = '/console/_assets/'

const css = asset(consoleStylesheet, 'text/css; charset=utf-8')
const js = asset(consoleScript, 'text/javascript; charset=utf-8')
const icon = asset(faviconSvg, 'image/svg+xml')
const versioned = new Map<string, Asset>([
  [`console.${css.etag.slice(1, 11)}.css`, css],
  [`console.${js.etag.slice(1, 11)}.js`, js],
  [`favicon.${icon.etag.slice(1, 11)}.svg`, icon],
])
const [cssName, jsName, iconName] = [...versioned.keys()]

export function consoleAsset(name: string): Asset | undefined {
  return versioned.get(name)
}

/**
 * Nothing but this origin: no inline script or style (the charts are SVG elements styled by class), no other host
 * to fetch from, frame or post to. The page holds an admin token in sessionStorage: script injection is the risk
 * that matters, and this policy leaves it nowhere to load from.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * Whether the admin API takes `limits.budget_usd` (a monthly budget in US dollars, issue #30 §1): its field appears
 * in the editors as soon as the limits' schema has it.
 */
const BUDGET_USD = 'budget_usd' in LimitsSchema.properties

const SCOPE_CHOICES = ['chat', 'plants:read', 'plants:write', 'docs:write', 'metrics', 'console', 'admin']

/**
 * The console's one page. It holds no data: the script signs in with a token kept in sessionStorage and fetches
 * each view with it (an Authorization header, never a URL or a cookie, so no other site can make the browser use it).
 */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Trellis console</title>
<link rel="icon" href="${CONSOLE_ASSET_BASE}${iconName}" type="image/svg+xml">
<link rel="stylesheet" href="${CONSOLE_ASSET_BASE}${cssName}">
<script src="${CONSOLE_ASSET_BASE}${jsName}" defer></script>
</head><body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar"><h1>Trellis console</h1>
<nav aria-label="Sections" id="sections" hidden><a href="#tokens">Tokens</a><a href="#usage">Usage</a><a href="#live">Live</a></nav>
<p id="who" class="who" hidden></p><button type="button" id="sign-out" hidden>Sign out</button></header>
<main id="main">
<section id="sign-in" aria-labelledby="sign-in-title"><h2 id="sign-in-title">Sign in</h2>
<p>An admin token, or a token with the <code>console</code> scope (read-only). It stays in this tab only (sessionStorage).</p>
<form id="sign-in-form"><label for="sign-in-token">Token</label>
<input id="sign-in-token" name="token" type="password" autocomplete="off" required spellcheck="false">
<button type="submit">Sign in</button></form>
<p id="sign-in-error" class="error" role="alert"></p></section>

<section id="tokens" aria-labelledby="tokens-title" hidden><h2 id="tokens-title">Tokens</h2>
<details id="create" class="admin-only"><summary>Create a token</summary>
<form id="create-form" class="grid">
<label for="create-owner">Owner</label><input id="create-owner" name="owner" required maxlength="200">
<fieldset><legend>Scopes</legend>${SCOPE_CHOICES.map(
  (scope) =>
    `<label class="check"><input type="checkbox" name="scopes" value="${scope}"${scope === 'chat' ? ' checked' : ''}> ${scope}</label>`,
).join('')}</fieldset>
${limitFields('create')}
<button type="submit">Create</button></form>
<div id="created" hidden><p role="status"><strong>The new token's secret, shown this once:</strong></p>
<p class="secret"><code id="created-secret"></code> <button type="button" id="copy-secret">Copy</button></p>
<p id="copy-status" role="status"></p></div>
<p id="create-error" class="error" role="alert"></p></details>
<p><label for="token-search">Search tokens</label>
<input id="token-search" type="search" placeholder="owner, id, scope or model"></p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Tokens"><table id="token-table"><caption>Tokens, with their use against their limits</caption>
<thead><tr><th scope="col">Token</th><th scope="col">Scopes and models</th><th scope="col">Use this minute and month</th>
<th scope="col">Expires</th><th scope="col"><span class="admin-only">Actions</span></th></tr></thead><tbody></tbody></table></div>
<p id="tokens-error" class="error" role="alert"></p></section>

<section id="usage" aria-labelledby="usage-title" hidden><h2 id="usage-title">Usage and cost</h2>
<form id="chart-form" class="controls">
${choice('chart-by', 'by', 'By', ['model', 'owner', 'token'])}
${choice('chart-measure', 'measure', 'Measure', ['cost', 'tokens', 'requests'])}
${choice('chart-bucket', 'bucket', 'Per', ['day', 'hour'])}
<label for="chart-days">Days</label><select id="chart-days" name="days"><option>1</option><option>7</option>
<option selected>30</option><option>90</option></select>
<button type="button" id="chart-csv">Download CSV</button></form>
<div id="chart" aria-live="polite"></div><p id="chart-error" class="error" role="alert"></p></section>

<section id="live" aria-labelledby="live-title" hidden><h2 id="live-title">Live</h2>
<p>This server's own figures, refreshed every 3 seconds.</p>
<dl class="live"><div><dt>Streams in flight</dt><dd id="live-streams">–</dd></div>
<div><dt>Requests per second</dt><dd id="live-rps">–</dd></div>
<div><dt>Error rate (5xx)</dt><dd id="live-errors">–</dd></div>
<div><dt>Upstream latency (mean time to first token)</dt><dd id="live-latency">–</dd></div>
<div><dt>Failed upstream attempts</dt><dd id="live-failures">–</dd></div></dl></section>
</main>

<dialog id="edit" aria-labelledby="edit-title"><form id="edit-form" class="grid" method="dialog">
<h2 id="edit-title">Edit token</h2><p id="edit-id" class="mono"></p>
${limitFields('edit')}
<p class="hint">Empty fields remove the token's own limit (the default then applies).</p>
<p id="edit-error" class="error" role="alert"></p>
<div class="actions"><button type="submit" value="save">Save</button><button type="button" id="edit-cancel">Cancel</button></div>
</form></dialog>
</body></html>
`

function choice(id: string, name: string, label: string, values: string[]): string {
  return `<label for="${id}">${label}</label><select id="${id}" name="${name}">${values
    .map((value) => `<option>${value}</option>`)
    .join('')}</select>`
}

/** The fields a token's limits, models and expiry are edited in. */
function limitFields(prefix: string): string {
  const field = (name: string, label: string, type = 'number') =>
    `<label for="${prefix}-${name}">${label}</label><input id="${prefix}-${name}" name="${name}" type="${type}"` +
    `${type === 'number' ? ' min="1" step="1"' : ''}>`
  return [
    field('rpm', 'Requests per minute'),
    field('tpm', 'Tokens per minute'),
    field('streams', 'Streams at once'),
    field('budget_tokens', 'Tokens per month'),
    BUDGET_USD
      ? `<label for="${prefix}-budget_usd">US dollars per month</label><input id="${prefix}-budget_usd" ` +
        'name="budget_usd" type="number" min="0.01" step="0.01">'
      : '',
    field('models', 'Models (comma-separated; empty: every model)', 'text'),
    field('expires_at', 'Expires (UTC)', 'datetime-local'),
  ].join('\n')
}
