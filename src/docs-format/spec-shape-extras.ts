import { t } from 'elysia'
import { FOOTER_SOCIAL_KEYS, hexColour, ICON_STYLES, oneOf } from './current-shape/reusable'

/**
 * Keys of the spec shape (the mint.json of old) that Mintlify's schema documents and the spec's tables left
 * out: the first version of the schema only warned on them ("unknown property") although Mintlify publishes
 * them. Typed as `@mintlify/validation`'s mint.json schema types them; the site reads few of them.
 */

const analyticsKey = (name: string, extra: string[] = []) =>
  t.Object({ [name]: t.String(), ...Object.fromEntries(extra.map((key) => [key, t.Optional(t.String())])) })

const fontDetails = t.Object({
  family: t.String({ description: 'font family' }),
  weight: t.Optional(t.Number()),
  url: t.Optional(t.String({ description: 'URL of the font file' })),
  format: t.Optional(oneOf(['woff', 'woff2'] as const, 'font format')),
})

export const SPEC_SHAPE_EXTRAS = {
  mintlify: t.Optional(t.String({ description: 'the Mintlify version the file was written for' })),
  theme: t.Optional(oneOf(['venus', 'quill', 'prism'] as const, 'layout theme of mint.json: venus, quill or prism')),
  layout: t.Optional(oneOf(['topnav', 'sidenav', 'solidSidenav'] as const, 'where the navigation sits')),
  topbar: t.Optional(t.Object({ style: t.Optional(oneOf(['gradient', 'default'] as const, 'topbar style')) })),
  sidebar: t.Optional(
    t.Object({ items: t.Optional(oneOf(['container', 'card', 'border', 'undecorated'] as const, 'sidebar items')) }),
  ),
  rounded: t.Optional(oneOf(['default', 'sharp'] as const, 'corner style')),
  metadata: t.Optional(t.Record(t.String(), t.String(), { description: 'meta tags added to every page' })),
  codeBlock: t.Optional(t.Object({ mode: t.Optional(oneOf(['auto', 'dark'] as const, 'code block mode')) })),
  eyebrow: t.Optional(
    t.Object({ display: t.Optional(oneOf(['section', 'breadcrumbs'] as const, 'what shows above titles')) }),
  ),
  primaryTab: t.Optional(
    t.Object(
      { name: t.String({ description: 'name of the first tab' }), isDefaultHidden: t.Optional(t.Boolean()) },
      { description: 'the first tab' },
    ),
  ),
  footer: t.Optional(
    t.Object(
      {
        socials: t.Optional(
          t.Union([
            t.Record(t.String(), t.String(), { title: 'a map from platform to URL' }),
            t.Array(t.Object({ type: oneOf(FOOTER_SOCIAL_KEYS, 'platform'), url: t.String() }), {
              title: 'a list of {type, url}',
            }),
          ]),
        ),
        links: t.Optional(
          t.Array(
            t.Object({
              title: t.Optional(t.String()),
              links: t.Array(t.Object({ label: t.String(), url: t.String() })),
            }),
          ),
        ),
      },
      { description: 'footer socials and link columns' },
    ),
  ),
  background: t.Optional(
    t.Object({ style: t.Optional(oneOf(['gradient', 'grid', 'windows'] as const, 'background decoration')) }),
  ),
  font: t.Optional(
    t.Object(
      {
        family: t.Optional(t.String()),
        weight: t.Optional(t.Number()),
        url: t.Optional(t.String()),
        format: t.Optional(oneOf(['woff', 'woff2'] as const, 'font format')),
        headings: t.Optional(fontDetails),
        body: t.Optional(fontDetails),
      },
      { description: 'a font for everything, or {headings, body}' },
    ),
  ),
  analytics: t.Optional(
    t.Object(
      {
        adobe: t.Optional(analyticsKey('launchUrl')),
        amplitude: t.Optional(analyticsKey('apiKey')),
        clarity: t.Optional(analyticsKey('projectId')),
        clearbit: t.Optional(analyticsKey('publicApiKey')),
        fathom: t.Optional(analyticsKey('siteId')),
        ga4: t.Optional(analyticsKey('measurementId')),
        gtm: t.Optional(analyticsKey('tagId')),
        heap: t.Optional(analyticsKey('appId')),
        hightouch: t.Optional(analyticsKey('writeKey', ['apiHost'])),
        hotjar: t.Optional(t.Object({ hjid: t.String(), hjsv: t.String() })),
        koala: t.Optional(analyticsKey('publicApiKey')),
        logrocket: t.Optional(analyticsKey('appId')),
        mixpanel: t.Optional(
          t.Object({ projectToken: t.String(), region: t.Optional(oneOf(['us', 'eu', 'in'] as const, 'region')) }),
        ),
        pirsch: t.Optional(analyticsKey('id')),
        posthog: t.Optional(
          t.Object({ apiKey: t.String(), apiHost: t.Optional(t.String()), sessionRecording: t.Optional(t.Boolean()) }),
        ),
        plausible: t.Optional(analyticsKey('domain', ['server'])),
        segment: t.Optional(analyticsKey('key', ['cdnUrl'])),
      },
      { description: 'analytics (kept, not loaded by a self-hosted site)' },
    ),
  ),
  integrations: t.Optional(
    t.Object({ intercom: t.Optional(t.String()), frontchat: t.Optional(t.String()) }, { description: 'chat widgets' }),
  ),
  isWhiteLabeled: t.Optional(t.Boolean({ description: 'hides the "powered by" line' })),
  search: t.Optional(
    t.Object({
      prompt: t.Optional(t.String({ description: 'placeholder of the search box' })),
      location: t.Optional(oneOf(['side', 'top'] as const, 'where the search box sits')),
    }),
  ),
  redirects: t.Optional(
    t.Array(
      t.Object({
        source: t.String({ description: 'path to redirect from; :name and * match segments' }),
        destination: t.String({ description: 'where to send the visitor' }),
        permanent: t.Optional(t.Boolean({ description: 'true (the default) answers 308, false 307' })),
      }),
      { description: 'redirects' },
    ),
  ),
  seo: t.Optional(t.Object({ indexHiddenPages: t.Optional(t.Boolean()) }, { description: 'search-engine settings' })),
}

/** Keys Mintlify's mint.json schema gives the navigation group, beside group and pages. */
export const SPEC_GROUP_EXTRAS = {
  public: t.Optional(t.Boolean({ description: 'public even when the site needs a login' })),
  icon: t.Optional(t.String({ description: 'icon of the group' })),
  iconType: t.Optional(oneOf(ICON_STYLES, 'icon style')),
  version: t.Optional(t.String({ description: 'the version the group belongs to' })),
}

/** Keys Mintlify's mint.json schema gives `colors`, beside primary, light, dark and background. */
export const SPEC_COLOR_EXTRAS = {
  anchors: t.Optional(
    t.Union(
      [
        hexColour('colour of the anchors'),
        t.Object(
          {
            from: hexColour('gradient start'),
            via: t.Optional(hexColour('gradient middle')),
            to: hexColour('gradient end'),
          },
          { title: 'a gradient {from, via, to}' },
        ),
      ],
      { description: 'colour of the anchors, or a gradient' },
    ),
  ),
  ultraLight: t.Optional(t.Unknown({ description: 'deprecated' })),
  ultraDark: t.Optional(t.Unknown({ description: 'deprecated' })),
}
