import { t, type TSchema } from 'elysia'
import {
  AsyncApiSource,
  DIRECTORY_STYLES,
  FOOTER_SOCIAL_KEYS,
  footerSocials,
  Href,
  Icon,
  LOCALES,
  ModeColours,
  OpenApiSource,
  oneOf,
} from './reusable'

/**
 * The current shape's `navigation`: an object whose divisions (products, languages, versions, tabs, dropdowns,
 * anchors, menu) nest in any order down to groups and pages.
 *
 * Mintlify writes each division as a union of objects, one per kind of child. Here every level is one
 * recursive object with all keys optional, so a value has one schema to be walked against and an unknown key
 * can be named at any depth; what the union said about which keys go together (a tab needs `tab`, a group
 * needs `group`) is checked by the current shape's rules (see `navigationRules`).
 */

/** Each division and the key that names one of its items. */
export const DIVISIONS = {
  products: 'product',
  languages: 'language',
  versions: 'version',
  tabs: 'tab',
  dropdowns: 'dropdown',
  anchors: 'anchor',
  menu: 'item',
} as const

export type DivisionKey = keyof typeof DIVISIONS

const Sdk = t.Object(
  {
    format: t.String({ description: 'SDK format' }),
    source: t.String({ minLength: 1, description: 'URL or relative path of the SDK description' }),
    directory: t.Optional(t.String()),
  },
  { description: 'an SDK reference generated from a description file' },
)

const GraphQl = t.Union(
  [
    t.String({ minLength: 1, title: 'a URL or path string' }),
    t.Object(
      { source: t.String({ minLength: 1 }), directory: t.Optional(t.String()) },
      { title: 'a GraphQL source {source, directory}' },
    ),
  ],
  { description: 'GraphQL schema file' },
)

const Banner = t.Object(
  {
    content: t.String({ minLength: 1, description: 'banner text (MDX)' }),
    dismissible: t.Optional(t.Boolean({ description: 'shows a button that closes the banner' })),
    type: t.Optional(oneOf(['info', 'warning', 'critical'] as const, 'banner style')),
    color: t.Optional(ModeColours),
  },
  { description: 'a banner at the top of every page' },
)

const NavbarLink = t.Object(
  {
    label: t.Optional(t.String({ description: 'link text; required unless type is github or discord' })),
    type: t.Optional(t.String({ description: 'github or discord show that service; anything else a plain link' })),
    href: Href('link target'),
    icon: t.Optional(Icon),
  },
  { description: 'a link in the navbar' },
)

const Navbar = t.Object(
  {
    links: t.Optional(t.Array(NavbarLink, { description: 'links in the navbar' })),
    primary: t.Optional(
      t.Object(
        {
          type: oneOf(['button', 'github', 'discord'] as const, 'button, or the GitHub or Discord button'),
          label: t.Optional(t.String({ description: 'button text; required for type button' })),
          href: Href('button target'),
        },
        { description: 'the primary call to action of the navbar' },
      ),
    ),
  },
  { description: 'navbar links and call to action' },
)

const Footer = t.Object(
  {
    socials: t.Optional(footerSocials(FOOTER_SOCIAL_KEYS, 'map from platform to account URL')),
    links: t.Optional(
      t.Array(
        t.Object(
          {
            header: t.Optional(t.String({ minLength: 1, description: 'column header' })),
            items: t.Array(
              t.Object({ label: t.String({ minLength: 1 }), href: Href('link target') }, { description: 'a link' }),
              { minItems: 1, description: 'the links of the column' },
            ),
          },
          { description: 'a column of links' },
        ),
        { minItems: 1, maxItems: 4, description: 'one to four columns of links' },
      ),
    ),
  },
  { description: 'footer socials and link columns' },
)

export { Banner, Footer, Navbar }

/** Keys shared by every level of navigation. */
const nodeFields = (Node: TSchema) => ({
  // What names the item, by the division it sits in (or `group` in groups and pages).
  product: t.Optional(t.String({ minLength: 1, description: 'product name' })),
  language: t.Optional(oneOf(LOCALES, 'language code (ISO 639-1 style)')),
  version: t.Optional(t.String({ minLength: 1, description: 'version name' })),
  tab: t.Optional(t.String({ minLength: 1, description: 'tab name' })),
  dropdown: t.Optional(t.String({ minLength: 1, description: 'dropdown name' })),
  anchor: t.Optional(t.String({ minLength: 1, description: 'anchor name' })),
  item: t.Optional(t.String({ minLength: 1, description: 'menu item name' })),
  group: t.Optional(t.String({ minLength: 1, description: 'group name' })),
  // Children.
  ...Object.fromEntries(
    Object.keys(DIVISIONS).map((key) => [key, t.Optional(t.Array(Node, { description: `${key} of this level` }))]),
  ),
  groups: t.Optional(t.Array(Node, { minItems: 1, description: 'groups of pages' })),
  pages: t.Optional(
    t.Array(
      t.Union(
        [t.String({ minLength: 1, title: 'a page path', description: 'path of a page, without extension' }), Node],
        {
          description: 'a page path, or a nested group',
        },
      ),
      { description: 'page paths or nested groups' },
    ),
  ),
  global: t.Optional(Node),
  // Attributes.
  href: t.Optional(Href('link target: the item is an external (or internal) link instead of holding pages')),
  icon: t.Optional(Icon),
  color: t.Optional(ModeColours),
  description: t.Optional(t.String({ description: 'shown under the name (dropdowns, products)' })),
  name: t.Optional(t.String({ description: 'display name (products)' })),
  hidden: t.Optional(t.Boolean({ description: 'hidden from navigation, still served' })),
  default: t.Optional(t.Boolean({ description: 'the version or language shown first' })),
  tag: t.Optional(t.String({ description: 'a label such as NEW beside the name' })),
  align: t.Optional(oneOf(['start', 'end'] as const, 'tab alignment')),
  searchable: t.Optional(t.Boolean({ description: 'whether search lists its pages' })),
  directory: t.Optional(oneOf(DIRECTORY_STYLES, 'how group roots show their directory')),
  root: t.Optional(t.String({ minLength: 1, description: 'page the group name links to' })),
  expanded: t.Optional(t.Boolean({ description: 'group open by default' })),
  public: t.Optional(t.Boolean({ description: 'public even when the site needs a login' })),
  boost: t.Optional(t.Number({ description: 'search ranking boost' })),
  openapi: t.Optional(OpenApiSource),
  asyncapi: t.Optional(AsyncApiSource),
  graphql: t.Optional(GraphQl),
  sdk: t.Optional(Sdk),
  banner: t.Optional(Banner),
  footer: t.Optional(Footer),
  navbar: t.Optional(Navbar),
})

/** One level of navigation: the root object, a division's item, or a group. */
export const NavigationNode = t.Recursive(
  (Node) => t.Object(nodeFields(Node), { description: 'a level of navigation' }),
  {
    $id: 'NavigationNode',
    title: 'a navigation object',
  },
)
