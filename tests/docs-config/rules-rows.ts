/**
 * Every rule of the docs.json contract (issue 4 §1), one row each: a document that breaks it, with `¦` where
 * the error must be reported, and a document that respects it. `property` rows are placed on line 4 of a
 * small valid document; `document` rows are whole texts.
 */
export type Row = {
  rule: string
  path: string
  message: string
  suggestion?: string
} & ({ property: string; respected: string } | { document: string; respectedDocument: string })

const NAV = '"navigation": [{ "group": "Start", "pages": ["intro"] }]'

export const ROWS: Row[] = [
  // Required and typed
  {
    rule: 'name is required',
    document: `¦{ ${NAV} }`,
    respectedDocument: `{ "name": "Acme", ${NAV} }`,
    path: '/name',
    message: 'name is required',
  },
  {
    rule: 'name is a string',
    document: `{ "name": ¦42, ${NAV} }`,
    respectedDocument: `{ "name": "42", ${NAV} }`,
    path: '/name',
    message: 'name: expected a string, received the number 42',
  },
  {
    rule: 'navigation is required',
    document: '¦{ "name": "Acme" }',
    respectedDocument: `{ "name": "Acme", ${NAV} }`,
    path: '/navigation',
    message: 'navigation is required',
  },
  {
    rule: 'navigation has at least one group',
    document: '{ "name": "Acme", "navigation": ¦[] }',
    respectedDocument: `{ "name": "Acme", ${NAV} }`,
    path: '/navigation',
    message: 'navigation is empty; it needs at least 1 item',
  },
  {
    rule: 'each group has at least one page',
    document: '{ "name": "Acme", "navigation": [{ "group": "Start", "pages": ¦[] }] }',
    respectedDocument: '{ "name": "Acme", "navigation": [{ "group": "Start", "pages": ["intro"] }] }',
    path: '/navigation/0/pages',
    message: 'navigation[0].pages is empty',
  },
  {
    rule: 'a group has pages',
    document: '{ "name": "Acme", "navigation": [¦{ "group": "Start" }] }',
    respectedDocument: '{ "name": "Acme", "navigation": [{ "group": "Start", "pages": ["a"] }] }',
    path: '/navigation/0/pages',
    message: 'navigation[0].pages is required',
  },
  {
    rule: 'a page is a path or a nested group (one line for both branches)',
    document: '{ "name": "Acme", "navigation": [{ "group": "Start", "pages": ["intro", ¦3] }] }',
    respectedDocument:
      '{ "name": "Acme", "navigation": [{ "group": "Start", "pages": ["intro", { "group": "More", "pages": ["more"] }] }] }',
    path: '/navigation/0/pages/1',
    message: 'navigation[0].pages[1]: expected a page path or a group object {group, pages}, received the number 3',
  },
  {
    rule: 'favicon is a string',
    property: '"favicon": ¦true',
    respected: '"favicon": "/favicon.svg"',
    path: '/favicon',
    message: 'favicon: expected a string, received the boolean true',
  },
  {
    rule: 'backgroundImage is a string',
    property: '"backgroundImage": ¦["/bg.png"]',
    respected: '"backgroundImage": "/bg.png"',
    path: '/backgroundImage',
    message: 'backgroundImage: expected a string, received an array',
  },
  {
    rule: '$schema is accepted as a string',
    property: '"$schema": ¦3',
    respected: '"$schema": "http://localhost/docs.json/schema"',
    path: '/$schema',
    message: '$schema: expected a string',
  },
  {
    rule: 'versions is an array of strings',
    property: '"versions": [¦1]',
    respected: '"versions": ["v1", "v2"]',
    path: '/versions/0',
    message:
      'versions[0]: expected a version name or a version object {name, url, default, locale}, received the number 1',
  },
  {
    rule: 'topbarLinks is an array',
    property: '"topbarLinks": ¦{ "name": "Blog" }',
    respected: '"topbarLinks": [{ "name": "Blog", "url": "https://blog.example.com" }]',
    path: '/topbarLinks',
    message: 'topbarLinks: expected an array',
  },
  {
    rule: 'a tab name is a string',
    property: '"tabs": [{ "name": ¦7, "url": "api" }]',
    respected: '"tabs": [{ "name": "API", "url": "api" }]',
    path: '/tabs/0/name',
    message: 'tabs[0].name: expected a string, received the number 7',
  },
  {
    rule: 'a tab has a name (the site cannot label it otherwise; the vendor requires it)',
    property: '"tabs": [¦{ "url": "api" }]',
    respected: '"tabs": [{ "name": "API", "url": "api" }]',
    path: '/tabs/0/name',
    message: 'tabs[0].name is required',
  },
  {
    rule: 'a tab has a url (the site cannot place it otherwise)',
    property: '"tabs": [¦{ "name": "API" }]',
    respected: '"tabs": [{ "name": "API", "url": "api" }]',
    path: '/tabs/0/url',
    message: 'tabs[0].url is required',
  },
  {
    rule: 'an anchor has a name',
    property: '"anchors": [¦{ "url": "api", "icon": "code" }]',
    respected: '"anchors": [{ "name": "API", "url": "api", "icon": "code" }]',
    path: '/anchors/0/name',
    message: 'anchors[0].name is required',
  },
  {
    rule: 'an anchor has a url',
    property: '"anchors": [¦{ "name": "API" }]',
    respected: '"anchors": [{ "name": "API", "url": "api" }]',
    path: '/anchors/0/url',
    message: 'anchors[0].url is required',
  },
  // Logo
  {
    rule: 'a logo is a path or a {light, dark} object',
    property: '"logo": ¦5',
    respected: '"logo": "/logo.svg"',
    path: '/logo',
    message: 'logo: expected a logo path string or a logo object {light, dark, href}, received the number 5',
  },
  {
    rule: 'a logo object needs both light and dark',
    property: '"logo": ¦{ "light": "/light.svg" }',
    respected: '"logo": { "light": "/light.svg", "dark": "/dark.svg" }',
    path: '/logo/dark',
    message: 'logo.dark is required; logo needs light and dark',
  },
  // Colours
  {
    rule: 'colors.primary is a hex colour',
    property: '"colors": { "primary": ¦"red" }',
    respected: '"colors": { "primary": "#16A34A" }',
    path: '/colors/primary',
    message: 'colors.primary: "red" is not a hex colour; use #RGB or #RRGGBB such as "#16A34A"',
  },
  {
    rule: 'colors.primary is required',
    property: '"colors": ¦{ "light": "#fff" }',
    respected: '"colors": { "primary": "#000", "light": "#fff" }',
    path: '/colors/primary',
    message: 'colors.primary is required',
  },
  {
    rule: 'colors.light is #RGB or #RRGGBB (not five digits)',
    property: '"colors": { "primary": "#000", "light": ¦"#12345" }',
    respected: '"colors": { "primary": "#000", "light": "#123456" }',
    path: '/colors/light',
    message: 'colors.light: "#12345" is not a hex colour',
  },
  {
    rule: 'colors.dark is a hex colour',
    property: '"colors": { "primary": "#000", "dark": ¦"0D9373" }',
    respected: '"colors": { "primary": "#000", "dark": "#0D9373" }',
    path: '/colors/dark',
    message: 'colors.dark: "0D9373" is not a hex colour',
  },

  {
    rule: 'colors.background values are hex colours',
    property: '"colors": { "primary": "#000", "background": { "light": "#fff", "dark": ¦"black" } }',
    respected: '"colors": { "primary": "#000", "background": { "light": "#fff", "dark": "#000" } }',
    path: '/colors/background/dark',
    message: 'colors.background.dark: "black" is not a hex colour',
  },
  {
    rule: 'anchors[].color as a string is a hex colour (the union names the other form)',
    property: '"anchors": [{ "name": "API", "url": "api", "color": ¦"blue" }]',
    respected: '"anchors": [{ "name": "API", "url": "api", "color": "#2563EB" }]',
    path: '/anchors/0/color',
    message:
      'anchors[0].color: "blue" is not a hex colour; use #RGB or #RRGGBB such as "#16A34A" (or use a gradient object {from, to})',
  },
  {
    rule: 'anchors[].color as a gradient has hex from and to',
    property: '"anchors": [{ "name": "API", "url": "api", "color": { "from": "#fff", "to": ¦"#ggg" } }]',
    respected: '"anchors": [{ "name": "API", "url": "api", "color": { "from": "#fff", "to": "#000" } }]',
    path: '/anchors/0/color/to',
    message: 'anchors[0].color.to: "#ggg" is not a hex colour',
  },
  {
    rule: 'anchors[].color of neither form is one line naming both branches',
    property: '"anchors": [{ "name": "API", "url": "api", "color": ¦12 }]',
    respected: '"anchors": [{ "name": "API", "url": "api", "color": "#abc" }]',
    path: '/anchors/0/color',
    message:
      'anchors[0].color: expected a hex colour such as "#16A34A" or a gradient object {from, to}, received the number 12',
  },
  // Enums
  {
    rule: 'anchors[].iconType is one of the icon types',
    property: '"anchors": [{ "name": "API", "url": "api", "iconType": ¦"bold" }]',
    respected: '"anchors": [{ "name": "API", "url": "api", "iconType": "sharp-solid" }]',
    path: '/anchors/0/iconType',
    message:
      'anchors[0].iconType: "bold" is not allowed; use one of brands, duotone, light, regular, sharp-duotone-solid, sharp-light, sharp-regular, sharp-solid, sharp-thin, solid, thin',
  },
  {
    rule: 'topAnchor.iconType is one of the icon types',
    property: '"topAnchor": { "name": "Guides", "iconType": ¦"Solid" }',
    respected: '"topAnchor": { "name": "Guides", "iconType": "solid" }',
    path: '/topAnchor/iconType',
    message:
      'topAnchor.iconType: "Solid" is not allowed; use one of brands, duotone, light, regular, sharp-duotone-solid, sharp-light, sharp-regular, sharp-solid, sharp-thin, solid, thin',
    suggestion: 'solid',
  },
  {
    rule: 'api.auth.method is bearer, basic or key',
    property: '"api": { "auth": { "method": ¦"token" } }',
    respected: '"api": { "auth": { "method": "key", "name": "x-api-key" } }',
    path: '/api/auth/method',
    message: 'api.auth.method: "token" is not allowed; use one of bearer, basic, key',
  },
  {
    rule: 'api.playground.mode is show, simple or hide',
    property: '"api": { "playground": { "mode": ¦"hidden" } }',
    respected: '"api": { "playground": { "mode": "hide" } }',
    path: '/api/playground/mode',
    message: 'api.playground.mode: "hidden" is not allowed; use one of show, simple, hide',
    suggestion: 'hide',
  },
  {
    rule: 'modeToggle.default is light or dark',
    property: '"modeToggle": { "default": ¦"system" }',
    respected: '"modeToggle": { "default": "dark", "isHidden": true }',
    path: '/modeToggle/default',
    message: 'modeToggle.default: "system" is not allowed; use one of light, dark',
  },
  {
    rule: 'topbarCtaButton.type is link or github',
    property: '"topbarCtaButton": { "type": ¦"gitlab", "url": "https://gitlab.com/acme" }',
    respected: '"topbarCtaButton": { "type": "github", "url": "https://github.com/acme/docs" }',
    path: '/topbarCtaButton/type',
    message: 'topbarCtaButton.type: "gitlab" is not allowed; use one of link, github',
  },
  // Booleans
  {
    rule: 'anchors[].isDefaultHidden is a boolean',
    property: '"anchors": [{ "name": "Beta", "url": "beta", "isDefaultHidden": ¦"yes" }]',
    respected: '"anchors": [{ "name": "Beta", "url": "beta", "isDefaultHidden": true }]',
    path: '/anchors/0/isDefaultHidden',
    message: 'anchors[0].isDefaultHidden: expected true or false, received the string "yes"',
  },
  {
    rule: 'feedback.suggestEdit is a boolean',
    property: '"feedback": { "suggestEdit": ¦1 }',
    respected: '"feedback": { "suggestEdit": true, "raiseIssue": true }',
    path: '/feedback/suggestEdit',
    message: 'feedback.suggestEdit: expected true or false',
  },
  {
    rule: 'modeToggle.isHidden is a boolean',
    property: '"modeToggle": { "isHidden": ¦null }',
    respected: '"modeToggle": { "isHidden": false }',
    path: '/modeToggle/isHidden',
    message: 'modeToggle.isHidden: expected true or false, received null',
  },
  {
    rule: 'api.maintainOrder is a boolean',
    property: '"api": { "maintainOrder": ¦"true" }',
    respected: '"api": { "maintainOrder": true }',
    path: '/api/maintainOrder',
    message: 'api.maintainOrder: expected true or false',
  },
  // footerSocials
  {
    rule: 'footerSocials keys are a closed set (twitter is one of them, as Mintlify lists it)',
    property: '"footerSocials": { ¦"myspace": "https://myspace.com/acme" }',
    respected: '"footerSocials": { "twitter": "https://twitter.com/acme" }',
    path: '/footerSocials/myspace',
    message: 'footerSocials.myspace: "myspace" is not an allowed key of footerSocials; use one of',
  },
  {
    rule: 'footerSocials keys: a near miss is suggested',
    property: '"footerSocials": { ¦"hackernews": "https://news.ycombinator.com/user?id=acme" }',
    respected: '"footerSocials": { "hacker-news": "https://news.ycombinator.com/user?id=acme" }',
    path: '/footerSocials/hackernews',
    message: 'footerSocials.hackernews: "hackernews" is not an allowed key of footerSocials',
    suggestion: 'hacker-news',
  },
  {
    rule: 'footerSocials values are absolute http(s) URLs',
    property: '"footerSocials": { "github": ¦"github.com/acme" }',
    respected: '"footerSocials": { "github": "https://github.com/acme", "website": "http://acme.example" }',
    path: '/footerSocials/github',
    message: 'footerSocials.github: "github.com/acme" is not an absolute http(s) URL',
  },
  {
    rule: 'footerSocials values are strings',
    property: '"footerSocials": { "slack": ¦true }',
    respected: '"footerSocials": { "slack": "https://acme.slack.com" }',
    path: '/footerSocials/slack',
    message: 'footerSocials.slack: expected a string, received the boolean true',
  },
  // Cross-field rules
  {
    rule: 'topbarCtaButton.name is required when the type is link (explicit)',
    property: '"topbarCtaButton": ¦{ "type": "link", "url": "https://app.example.com" }',
    respected: '"topbarCtaButton": { "type": "link", "url": "https://app.example.com", "name": "Sign in" }',
    path: '/topbarCtaButton/name',
    message: 'topbarCtaButton.name is required when topbarCtaButton.type is "link"',
  },
  {
    rule: 'topbarCtaButton.name is required when the type is link (by default)',
    property: '"topbarCtaButton": ¦{ "url": "https://app.example.com" }',
    respected: '"topbarCtaButton": { "type": "github", "url": "https://github.com/acme/docs" }',
    path: '/topbarCtaButton/name',
    message: 'topbarCtaButton.name is required when topbarCtaButton.type is "link"',
  },

  {
    rule: 'api.baseUrl (a string) is an absolute URL',
    property: '"api": { "baseUrl": ¦"/api" }',
    respected: '"api": { "baseUrl": "https://api.example.com" }',
    path: '/api/baseUrl',
    message: 'api.baseUrl: "/api" is not an absolute URL',
  },
  {
    rule: 'api.baseUrl (an array) holds absolute URLs',
    property: '"api": { "baseUrl": ["https://api.example.com", ¦"localhost:3000"] }',
    respected: '"api": { "baseUrl": ["https://api.example.com", "http://localhost:3000"] }',
    path: '/api/baseUrl/1',
    message: 'api.baseUrl[1]: "localhost:3000" is not an absolute URL',
  },
  {
    rule: 'api.baseUrl is a string or an array (one line for both branches)',
    property: '"api": { "baseUrl": ¦{ "url": "https://api.example.com" } }',
    respected: '"api": { "baseUrl": "https://api.example.com" }',
    path: '/api/baseUrl',
    message: 'api.baseUrl: expected a URL string or an array of URL strings, received an object',
  },
  {
    rule: 'openapi entries are not empty (string)',
    property: '"openapi": ¦""',
    respected: '"openapi": "openapi.json"',
    path: '/openapi',
    message: 'openapi is empty',
  },
  {
    rule: 'openapi entries are not empty (array)',
    property: '"openapi": ["openapi.json", ¦""]',
    respected: '"openapi": ["openapi.json", "https://api.example.com/openapi.yaml"]',
    path: '/openapi/1',
    message: 'openapi[1] is empty',
  },
  {
    rule: 'a protocol-relative openapi URL is refused like other absolute URLs of no allowed scheme',
    property: '"openapi": ¦"//specs.example.com/openapi.json"',
    respected: '"openapi": "https://specs.example.com/openapi.json"',
    path: '/openapi',
    message: 'openapi: "//specs.example.com/openapi.json" is neither an absolute http(s) URL nor a relative path',
  },
  {
    rule: 'openapi entries are absolute URLs or relative paths',
    property: '"openapi": ¦"ftp://files.example.com/openapi.json"',
    respected: '"openapi": "/openapi.json"',
    path: '/openapi',
    message: 'openapi: "ftp://files.example.com/openapi.json" is neither an absolute http(s) URL nor a relative path',
  },
]
