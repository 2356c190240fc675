import { t } from 'elysia'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Banner, Footer, Navbar, NavigationNode } from './navigation'
import { AsyncApiSource, hexColour, Icon, LightDark, ModeColours, OpenApiSource, oneOf } from './reusable'
import { Integrations, Seo, Styling } from './settings'

/**
 * The docs.json shape Mintlify has used since early 2025: `theme` is required, `navigation` is an object, the
 * topbar is `navbar`, the footer `footer`. Every key `@mintlify/validation` knows is here with its types, enums
 * and required keys; unknown keys are warnings, as in the spec shape (Mintlify drops them silently).
 */

const THEMES = ['mint', 'maple', 'palm', 'willow', 'linden', 'almond', 'aspen', 'luma', 'sequoia'] as const

const fontDetails = {
  family: t.Optional(t.String({ description: 'font family, such as "Open Sans"' })),
  weight: t.Optional(t.Number({ description: 'font weight, such as 400' })),
  source: t.Optional(t.String({ minLength: 1, description: 'URL or path of the font file' })),
  format: t.Optional(oneOf(['woff', 'woff2'] as const, 'font file format; required with source')),
}

const Fonts = t.Object(
  {
    ...fontDetails,
    heading: t.Optional(t.Object(fontDetails, { description: 'font of headings' })),
    body: t.Optional(t.Object(fontDetails, { description: 'font of body text' })),
  },
  { description: 'a font for everything, or {heading, body}' },
)

const ContextualOption = t.Union(
  [
    t.String({ title: 'a built-in option such as "copy" or "chatgpt"' }),
    t.Object(
      {
        title: t.String(),
        description: t.String(),
        icon: t.Optional(Icon),
        href: t.Union([
          t.String({ title: 'a URL' }),
          t.Object({
            base: t.String(),
            query: t.Optional(t.Array(t.Object({ key: t.String(), value: t.String() }))),
          }),
        ]),
      },
      { title: 'a custom option {title, description, href}' },
    ),
  ],
  { description: 'a contextual menu option' },
)

export const CurrentDocsConfigSchema = t.Object(
  {
    $schema: t.Optional(t.String({ description: 'URL of a JSON Schema for this file' })),
    theme: oneOf(THEMES, `layout theme: one of ${THEMES.join(', ')}`),
    name: t.String({ minLength: 1, description: 'project name' }),
    description: t.Optional(t.String({ description: 'site description for SEO and AI indexing' })),
    public: t.Optional(t.Boolean({ description: 'whether the site is public when authentication is set up' })),
    colors: t.Object(
      {
        primary: hexColour('primary colour'),
        light: t.Optional(hexColour('primary colour in dark mode')),
        dark: t.Optional(hexColour('colour of buttons and hover states')),
      },
      { description: 'theme colours' },
    ),
    logo: t.Optional(
      t.Union(
        [
          t.String({ minLength: 3, title: 'a logo path string' }),
          t.Object({
            light: t.String({ description: 'logo in light mode' }),
            dark: t.String({ description: 'logo in dark mode' }),
            href: t.Optional(t.String({ description: 'target of a click on the logo' })),
          }),
        ],
        { description: 'logo path, or {light, dark, href}' },
      ),
    ),
    favicon: t.Optional(
      t.Union([t.String({ title: 'a favicon path' }), LightDark('favicon')], {
        description: 'favicon path, or {light, dark}',
      }),
    ),
    navigation: NavigationNode,
    navbar: t.Optional(Navbar),
    footer: t.Optional(Footer),
    banner: t.Optional(Banner),
    api: t.Optional(
      t.Object(
        {
          openapi: t.Optional(OpenApiSource),
          asyncapi: t.Optional(AsyncApiSource),
          params: t.Optional(
            t.Object({
              expanded: t.Optional(oneOf(['all', 'closed'] as const, 'parameters expanded or closed')),
              post: t.Optional(t.Array(t.String())),
            }),
          ),
          playground: t.Optional(
            t.Object({
              display: t.Optional(oneOf(['interactive', 'simple', 'none', 'auth'] as const, 'playground display')),
              proxy: t.Optional(t.Boolean()),
              credentials: t.Optional(t.Boolean()),
            }),
          ),
          examples: t.Optional(
            t.Object({
              defaults: t.Optional(oneOf(['required', 'all'] as const, 'which parameters examples show')),
              languages: t.Optional(t.Array(t.String())),
              prefill: t.Optional(t.Boolean()),
              autogenerate: t.Optional(t.Boolean()),
            }),
          ),
          url: t.Optional(oneOf(['full'] as const, 'show the full URL of endpoints')),
          mdx: t.Optional(
            t.Object({
              auth: t.Optional(
                t.Object({
                  method: t.Optional(oneOf(['bearer', 'basic', 'key', 'cobo'] as const, 'authentication method')),
                  name: t.Optional(t.String()),
                }),
              ),
              server: t.Optional(t.Union([t.String({ title: 'a URL' }), t.Array(t.String())])),
            }),
          ),
        },
        { description: 'API reference and playground settings' },
      ),
    ),
    appearance: t.Optional(
      t.Object(
        {
          default: t.Optional(oneOf(['system', 'light', 'dark'] as const, 'mode shown first')),
          strict: t.Optional(t.Boolean({ description: 'hides the mode toggle' })),
        },
        { description: 'light and dark mode' },
      ),
    ),
    background: t.Optional(
      t.Object(
        {
          image: t.Optional(t.Union([t.String({ title: 'an image path' }), LightDark('background image')])),
          decoration: t.Optional(oneOf(['gradient', 'grid', 'windows'] as const, 'background decoration')),
          color: t.Optional(ModeColours),
        },
        { description: 'page background' },
      ),
    ),
    search: t.Optional(t.Object({ prompt: t.Optional(t.String()) }, { description: 'search box settings' })),
    seo: t.Optional(Seo),
    fonts: t.Optional(Fonts),
    icons: t.Optional(
      t.Object(
        { library: oneOf(['fontawesome', 'lucide', 'tabler'] as const, 'icon library') },
        { description: 'icons' },
      ),
    ),
    styling: t.Optional(Styling),
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
    integrations: t.Optional(Integrations),
    errors: t.Optional(
      t.Object(
        {
          '404': t.Object({
            redirect: t.Optional(t.Boolean()),
            title: t.Optional(t.String()),
            description: t.Optional(t.String()),
          }),
        },
        { description: 'error pages' },
      ),
    ),
    contextual: t.Optional(
      t.Object(
        {
          options: t.Array(ContextualOption, { description: 'options of the contextual menu' }),
          display: t.Optional(oneOf(['header', 'toc'] as const, 'where the menu shows')),
        },
        { description: 'the contextual menu (copy page, open in ChatGPT …)' },
      ),
    ),
    thumbnails: t.Optional(
      t.Object(
        {
          appearance: t.Optional(oneOf(['light', 'dark'] as const, 'thumbnail mode')),
          background: t.Optional(t.String()),
          fonts: t.Optional(t.Object({ family: t.String() })),
        },
        { description: 'social preview images' },
      ),
    ),
    interaction: t.Optional(t.Object({ drilldown: t.Optional(t.Boolean()) }, { description: 'navigation behaviour' })),
    metadata: t.Optional(t.Object({ timestamp: t.Optional(t.Boolean()) }, { description: 'page metadata' })),
    variables: t.Optional(t.Record(t.String(), t.String(), { description: 'values substituted as {{name}} in pages' })),
    markdown: t.Optional(
      t.Object(
        {
          schema: t.Optional(t.Boolean()),
          instructions: t.Optional(t.Union([t.String(), t.Array(t.String())])),
        },
        { description: 'the Markdown versions of pages' },
      ),
    ),
    variations: t.Optional(t.Unknown({ description: 'theme variations (willow)' })),
  },
  {
    title: 'docs.json (current shape)',
    description: 'Mintlify docs.json since 2025: theme, name, colors and an object navigation are required.',
  },
)

/** Compiled once at module load. */
export const CURRENT_DOCS_CONFIG_CHECK = TypeCompiler.Compile(CurrentDocsConfigSchema)

/**
 * Whether a parsed docs.json is in the current shape: an object `navigation` is; an array `navigation` is the
 * spec's (the mint.json of old, whose own `theme` took values such as "venus"); without a navigation, a `theme`
 * key decides.
 */
export function isCurrentShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const config = value as Record<string, unknown>
  const navigation = config.navigation
  if (Array.isArray(navigation)) return false
  return (typeof navigation === 'object' && navigation !== null) || 'theme' in config
}
