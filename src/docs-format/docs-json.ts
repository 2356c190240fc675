import { t, type Static, type TSchema } from 'elysia'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { NavigationNode } from './current-shape/navigation'
import { FOOTER_SOCIAL_KEYS, footerSocials, ICON_STYLES, LOCALES, oneOf } from './current-shape/reusable'
import { Api } from './spec-shape-api'
import { SPEC_COLOR_EXTRAS, SPEC_GROUP_EXTRAS, SPEC_SHAPE_EXTRAS } from './spec-shape-extras'

/**
 * The docs.json schema of the spec shape (the mint.json of old: `navigation` is an array of groups); the
 * current Mintlify shape is in `current-shape/`, and the validator picks one per file (see isCurrentShape).
 *
 * This is the single source of truth for its shape: the `DocsConfig` type, runtime validation, the defaults
 * applied on normalisation and the JSON Schema served at `/docs.json/schema` all come from it. Descriptions follow the
 * spec's tables so editors show them on hover. Unknown properties are allowed here (they are warnings, reported
 * by the validator), except in `footerSocials`, whose keys are a closed set.
 */

/** Matches `#RGB` and `#RRGGBB`. */
const HEX_COLOUR_PATTERN = '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'

const hexColour = (description: string) =>
  t.String({
    description,
    title: 'a hex colour such as "#16A34A"',
    pattern: HEX_COLOUR_PATTERN,
    // VS Code's JSON language service shows this instead of a bare pattern mismatch.
    patternErrorMessage: 'not a hex colour; use #RGB or #RRGGBB such as "#16A34A"',
  })

/** Allowed values of `iconType` (anchors and topAnchor). */
const ICON_TYPES = ICON_STYLES

const iconType = (description: string) =>
  t.Union(
    ICON_TYPES.map((value) => t.Literal(value)),
    { description, default: 'duotone' },
  )

/** A navigation group; `pages` holds page paths or further groups, to any depth. */
const NavigationGroup = t.Recursive(
  (Group) =>
    t.Object(
      {
        group: t.String({ description: 'group name' }),
        ...SPEC_GROUP_EXTRAS,
        pages: t.Array(
          t.Union(
            [
              t.String({ title: 'a page path', description: 'relative path to a markdown file that serves as a page' }),
              Group,
            ],
            {
              description: 'a page path, or a nested {group, pages} object',
            },
          ),
          { minItems: 1, description: 'relative paths to the markdown files that serve as pages, or nested groups' },
        ),
      },
      { title: 'a group object {group, pages}', description: 'a group of pages' },
    ),
  { $id: 'NavigationGroup' },
)

const Logo = t.Object(
  {
    light: t.String({ description: 'logo path in light mode' }),
    dark: t.String({ description: 'logo path in dark mode' }),
    href: t.Optional(t.String({ description: 'target of a click on the logo', default: '/' })),
  },
  { title: 'a logo object {light, dark, href}', description: 'light and dark logo paths' },
)

const Colors = t.Object(
  {
    primary: hexColour('primary color in light mode (highlights, section headers, accents)'),
    light: t.Optional(hexColour('primary color for dark mode')),
    dark: t.Optional(hexColour('color for important buttons')),
    background: t.Optional(
      t.Object(
        {
          // Either may be left out, as Mintlify's mint.json schema allows.
          light: t.Optional(hexColour('background color in light mode')),
          dark: t.Optional(hexColour('background color in dark mode')),
        },
        { description: 'hex background color per mode' },
      ),
    ),
    ...SPEC_COLOR_EXTRAS,
  },
  { description: 'hex color codes for the global theme' },
)

const TopbarLink = t.Object(
  {
    name: t.Optional(t.String({ description: 'link text' })),
    url: t.Optional(t.String({ description: 'link target' })),
  },
  { description: 'a link in the topbar' },
)

/** Allowed values of `topbarCtaButton.type`. */
const CTA_TYPES = ['link', 'github'] as const

const TopbarCtaButton = t.Object(
  {
    type: t.Optional(
      t.Union(
        CTA_TYPES.map((value) => t.Literal(value)),
        {
          default: 'link',
          description:
            'link shows a button; github shows repository information at the given url, including the star count',
        },
      ),
    ),
    url: t.Optional(t.String({ description: 'with link: target of the button; with github: the repository link' })),
    name: t.Optional(t.String({ description: 'button text; required only when type is link' })),
    style: t.Optional(
      t.Union([t.Literal('pill'), t.Literal('roundedRectangle')], {
        description: 'button shape: pill or roundedRectangle',
      }),
    ),
    arrow: t.Optional(t.Boolean({ description: 'shows an arrow on the button' })),
  },
  { description: 'topbar call-to-action button' },
)

const Gradient = t.Object(
  {
    from: hexColour('gradient start colour'),
    to: hexColour('gradient end colour'),
  },
  { title: 'a gradient object {from, to}', description: 'a gradient between two hex colours' },
)

const Anchor = t.Object(
  {
    icon: t.Optional(t.String({ description: 'icon name from an icon library' })),
    // Required, as in the vendor's schema: the site cannot place an anchor without a label and a target.
    name: t.String({ description: 'label' }),
    url: t.String({
      description:
        'start of the URL that marks which pages belong to the anchor (usually the folder name), or an absolute URL',
    }),
    color: t.Optional(
      t.Union([hexColour('icon background color'), Gradient], {
        description: 'icon background color; the object form gives a gradient',
      }),
    ),
    version: t.Optional(t.String({ description: 'hides the anchor until that docs version is selected' })),
    isDefaultHidden: t.Optional(
      t.Boolean({ default: false, description: 'when true, hides the anchor until someone is linked into its docs' }),
    ),
    iconType: t.Optional(iconType('icon style: one of brands, duotone, light, sharp-solid, solid, thin')),
    openapi: t.Optional(t.String({ description: 'OpenAPI file of the pages under this anchor' })),
  },
  { description: 'an anchor' },
)

const TopAnchor = t.Object(
  {
    name: t.Optional(t.String({ default: 'Documentation', description: 'label of the top-most anchor' })),
    icon: t.Optional(t.String({ default: 'book-open', description: 'icon of the top-most anchor' })),
    iconType: t.Optional(iconType('icon style (same allowed values as for an anchor)')),
  },
  {
    default: { name: 'Documentation', icon: 'book-open', iconType: 'duotone' },
    description: 'overrides for the top-most anchor',
  },
)

const Tab = t.Object(
  {
    // Required, as in the vendor's schema: the site cannot place a tab without a label and a prefix.
    name: t.String({ description: 'tab label' }),
    url: t.String({
      description: 'start of the URL that marks which pages belong to the tab; usually the folder name',
    }),
    version: t.Optional(t.String({ description: 'hides the tab until that docs version is selected' })),
    isDefaultHidden: t.Optional(t.Boolean({ description: 'hides the tab until someone is linked into its docs' })),
    openapi: t.Optional(t.String({ description: 'OpenAPI file of the pages under this tab' })),
  },
  { description: 'a navigational tab' },
)

/**
 * `footerSocials`: the keys Mintlify lists (twitter among them, which the first version of this schema
 * refused), a closed set.
 */
const FooterSocials = footerSocials(FOOTER_SOCIAL_KEYS, 'map from platform key to account URL')

const Feedback = t.Object(
  {
    thumbsRating: t.Optional(t.Boolean({ description: 'shows thumbs up and down on each page' })),
    suggestEdit: t.Optional(
      t.Boolean({ default: false, description: 'shows a button to suggest edits via pull requests' }),
    ),
    raiseIssue: t.Optional(
      t.Boolean({ default: false, description: 'shows a button to raise an issue about the docs' }),
    ),
  },
  { default: { suggestEdit: false, raiseIssue: false }, description: 'feedback buttons' },
)

/** Allowed values of `modeToggle.default`. */
const MODES = ['light', 'dark'] as const

const ModeToggle = t.Object(
  {
    default: t.Optional(
      t.Union(
        MODES.map((value) => t.Literal(value)),
        { description: "mode shown to new users; when absent, the user's operating-system mode" },
      ),
    ),
    isHidden: t.Optional(
      t.Boolean({ default: false, description: 'hides the toggle; together with default it forces one mode' }),
    ),
  },
  { default: { isHidden: false }, description: 'dark mode toggle settings' },
)

/** The whole docs.json file. */
export const DocsConfigSchema = t.Object(
  {
    $schema: t.Optional(t.String({ description: 'URL of a JSON Schema for this file, for editor autocompletion' })),
    name: t.String({ description: 'project name; used for the global title' }),
    navigation: t.Array(NavigationGroup, { minItems: 1, description: 'groups of pages' }),
    logo: t.Optional(
      t.Union([t.String({ title: 'a logo path string', description: 'path to the logo' }), Logo], {
        description: 'path to the logo, or light and dark logo paths',
      }),
    ),
    favicon: t.Optional(t.String({ description: 'path to the favicon image' })),
    colors: t.Optional(Colors),
    topbarLinks: t.Optional(t.Array(TopbarLink, { description: 'links in the topbar' })),
    topbarCtaButton: t.Optional(TopbarCtaButton),
    versions: t.Optional(
      t.Array(
        t.Union([
          t.String({ title: 'a version name' }),
          t.Object(
            {
              name: t.String({ description: 'version name' }),
              url: t.Optional(t.String({ description: 'a link instead of a version of these docs' })),
              default: t.Optional(t.Literal(true, { description: 'the version shown first' })),
              locale: t.Optional(oneOf(LOCALES, 'language of the version')),
            },
            { title: 'a version object {name, url, default, locale}' },
          ),
        ]),
        { description: 'version names (or objects); shows a version dropdown in the navigation bar' },
      ),
    ),
    anchors: t.Optional(t.Array(Anchor, { description: 'anchors' })),
    topAnchor: t.Optional(TopAnchor),
    tabs: t.Optional(t.Array(Tab, { description: 'navigational tabs' })),
    api: t.Optional(Api),
    openapi: t.Optional(
      t.Union(
        [
          t.String({ title: 'a URL or path string', description: 'URL or relative path of an OpenAPI file' }),
          t.Array(t.String(), { title: 'an array of URL or path strings', description: 'URLs or relative paths' }),
        ],
        { description: 'URL(s) or relative path(s) of OpenAPI file(s)' },
      ),
    ),
    footerSocials: t.Optional(FooterSocials),
    feedback: t.Optional(Feedback),
    modeToggle: t.Optional(ModeToggle),
    backgroundImage: t.Optional(t.String({ description: 'background image shown behind every page' })),
    ...SPEC_SHAPE_EXTRAS,
  },
  {
    title: 'docs.json',
    description:
      'Configuration of a documentation site: name, navigation, theme, topbar, anchors, tabs, API playground, feedback and mode toggle.',
  },
)

/** A docs.json configuration (before or after normalisation). */
export type DocsConfig = Static<typeof DocsConfigSchema>

/** The schema compiled once at module load; every validation reuses it. */
export const DOCS_CONFIG_CHECK = TypeCompiler.Compile(DocsConfigSchema)

/** A copy of `schema` with every object in it closed (`additionalProperties: false`). */
export function closeObjects<T extends TSchema>(schema: T): T {
  const copy = copySchema(schema, closeObjects)
  if (schema.type === 'object') (copy as Record<string, unknown>).additionalProperties = false
  return copy
}

/**
 * A copy of one schema node (TypeBox's symbol-keyed markers included) whose children (properties, items,
 * union branches) are replaced by `child(…)` of them. Derived schemas are built with it.
 */
export function copySchema<T extends TSchema>(schema: T, child: (schema: TSchema) => TSchema): T {
  const copy: Record<string | symbol, unknown> = { ...(schema as Record<string | symbol, unknown>) }
  if (schema.properties) {
    copy.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, TSchema>).map(([key, value]) => [key, child(value)]),
    )
  }
  if (schema.items) copy.items = child(schema.items)
  if (schema.anyOf) copy.anyOf = (schema.anyOf as TSchema[]).map(child)
  return copy as T
}

/** `$id` of recursive schemas, so walkers can resolve `$ref`s without a registry. */
const SCHEMA_REFERENCES: ReadonlyMap<string, TSchema> = new Map<string, TSchema>([
  ['NavigationGroup', NavigationGroup],
  ['NavigationNode', NavigationNode],
])

/** The schema a `$ref` (the recursive navigation group) points at; any other schema as it is. */
export function resolveSchema(schema: TSchema): TSchema {
  if (typeof schema.$ref !== 'string') return schema
  const target = SCHEMA_REFERENCES.get(schema.$ref)
  if (target === undefined) throw new Error(`docs.json schema: unresolved $ref ${schema.$ref}`)
  return target
}
