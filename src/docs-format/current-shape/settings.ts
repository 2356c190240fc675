import { t } from 'elysia'
import { oneOf } from './reusable'

/** The larger settings objects of the current docs.json shape: seo, styling and integrations. */

const metatags = (description: string) => t.Record(t.String(), t.String({ minLength: 1 }), { description })

export const Seo = t.Object(
  {
    metatags: t.Optional(metatags('meta tags added to every page')),
    paths: t.Optional(
      t.Array(t.Object({ path: t.String({ minLength: 1 }), metatags: metatags('meta tags of the matching pages') })),
    ),
    organization: t.Optional(
      t.Object(
        {
          id: t.Optional(t.String()),
          name: t.Optional(t.String({ minLength: 1 })),
          legalName: t.Optional(t.String({ minLength: 1 })),
          url: t.Optional(t.String()),
          logo: t.Optional(t.String()),
          sameAs: t.Optional(t.Array(t.String())),
        },
        { description: 'the organisation for structured data' },
      ),
    ),
    indexing: t.Optional(oneOf(['navigable', 'all'] as const, 'which pages search engines may index')),
    trailingSlash: t.Optional(t.Boolean({ description: 'canonical URLs end with a slash' })),
  },
  { description: 'search-engine settings' },
)

/** Shiki's themes, as Mintlify lists them for code blocks. */
const CODE_THEMES = [
  'andromeeda',
  'aurora-x',
  'ayu-dark',
  'catppuccin-frappe',
  'catppuccin-latte',
  'catppuccin-macchiato',
  'catppuccin-mocha',
  'dark-plus',
  'dracula',
  'dracula-soft',
  'everforest-dark',
  'everforest-light',
  'github-dark',
  'github-dark-default',
  'github-dark-dimmed',
  'github-dark-high-contrast',
  'github-light',
  'github-light-default',
  'github-light-high-contrast',
  'gruvbox-dark-hard',
  'gruvbox-dark-medium',
  'gruvbox-dark-soft',
  'gruvbox-light-hard',
  'gruvbox-light-medium',
  'gruvbox-light-soft',
  'houston',
  'kanagawa-dragon',
  'kanagawa-lotus',
  'kanagawa-wave',
  'laserwave',
  'light-plus',
  'material-theme',
  'material-theme-darker',
  'material-theme-lighter',
  'material-theme-ocean',
  'material-theme-palenight',
  'min-dark',
  'min-light',
  'monokai',
  'night-owl',
  'nord',
  'one-dark-pro',
  'one-light',
  'plastic',
  'poimandres',
  'red',
  'rose-pine',
  'rose-pine-dawn',
  'rose-pine-moon',
  'slack-dark',
  'slack-ochin',
  'snazzy-light',
  'solarized-dark',
  'solarized-light',
  'synthwave-84',
  'tokyo-night',
  'vesper',
  'vitesse-black',
  'vitesse-dark',
  'vitesse-light',
  'css-variables',
] as const

const codeTheme = oneOf(CODE_THEMES, 'a Shiki theme')

export const Styling = t.Object(
  {
    eyebrows: t.Optional(oneOf(['section', 'breadcrumbs'] as const, 'what shows above the page title')),
    codeblocks: t.Optional(
      t.Union(
        [
          // Flat literals, not a nested enum: a union's branches must differ by JSON type for the key walk.
          t.Literal('system', { description: 'code blocks follow the light or dark mode' }),
          t.Literal('dark', { description: 'code blocks are always dark' }),
          t.Object(
            {
              theme: t.Optional(
                t.Union([codeTheme, t.Object({ light: codeTheme, dark: codeTheme }, { title: '{light, dark}' })]),
              ),
              languages: t.Optional(t.Object({ custom: t.Optional(t.Array(t.String())) })),
            },
            { title: 'a code block theme object' },
          ),
        ],
        { description: 'code block theme' },
      ),
    ),
    latex: t.Optional(t.Boolean({ description: 'renders LaTeX' })),
  },
  { description: 'look of the site' },
)

const key = (name: string, extra: Record<string, ReturnType<typeof t.String>> = {}) =>
  t.Object({ [name]: t.String(), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, t.Optional(v)])) })

export const Integrations = t.Object(
  {
    adobe: t.Optional(key('launchUrl')),
    amplitude: t.Optional(key('apiKey')),
    clarity: t.Optional(key('projectId')),
    clearbit: t.Optional(key('publicApiKey')),
    fathom: t.Optional(key('siteId')),
    frontchat: t.Optional(t.Object({ snippetId: t.String({ minLength: 6 }) })),
    ga4: t.Optional(t.Object({ measurementId: t.String({ pattern: '^G' }) })),
    gtm: t.Optional(t.Object({ tagId: t.String({ pattern: '^G' }) })),
    heap: t.Optional(key('appId')),
    hightouch: t.Optional(key('writeKey', { apiHost: t.String() })),
    hotjar: t.Optional(t.Object({ hjid: t.String(), hjsv: t.String() })),
    intercom: t.Optional(t.Object({ appId: t.String({ minLength: 6 }) })),
    koala: t.Optional(t.Object({ publicApiKey: t.String({ minLength: 2 }) })),
    logrocket: t.Optional(key('appId')),
    mixpanel: t.Optional(
      t.Object({ projectToken: t.String(), region: t.Optional(oneOf(['us', 'eu', 'in'] as const, 'region')) }),
    ),
    onetrust: t.Optional(
      t.Object({
        domainScript: t.String({ minLength: 1 }),
        categoryId: t.Optional(t.String({ minLength: 1 })),
        scriptSource: t.Optional(t.String()),
      }),
    ),
    pirsch: t.Optional(key('id')),
    posthog: t.Optional(
      t.Object({
        apiKey: t.String({ pattern: '^phc_' }),
        apiHost: t.Optional(t.String()),
        sessionRecording: t.Optional(t.Boolean()),
      }),
    ),
    plausible: t.Optional(key('domain', { server: t.String() })),
    segment: t.Optional(key('key', { cdnUrl: t.String() })),
    telemetry: t.Optional(t.Object({ enabled: t.Optional(t.Boolean()) })),
    cookies: t.Optional(t.Object({ key: t.Optional(t.String()), value: t.Optional(t.String()) })),
    transcend: t.Optional(
      t.Object({
        bundleId: t.String({ pattern: '^[a-zA-Z0-9_-]+$' }),
        analyticsPurpose: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
      }),
    ),
  },
  { description: 'analytics and chat integrations (kept, not loaded by a self-hosted site)' },
)
