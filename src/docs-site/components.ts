import { escapeHtml } from './html'
import { iconSvg } from './icons'
import type { Props } from './mdx-tags'

/**
 * Mintlify's components as plain HTML: what each tag opens and closes with. The markup only decides layout
 * (the sanitiser still passes every byte of it), and it reads well without script: the page script turns
 * `.tab-group` and `.code-group` into switchable tab rows, and the tab titles and code labels are in the HTML
 * either way. Props come from the tag as written (strings, `{true}`, numbers); a prop whose value is an
 * expression (`icon={<svg …/>}`, `tags={[…]}` but for plain string lists) is not evaluated and counts as absent.
 */

/** An icon the lowered HTML asks for; its placeholder is the prefix followed by its index in the list. */
export interface IconRequest {
  name: string
  iconType?: string
}

/** What rendering one page's components collects: the icons to put in after sanitising. */
export interface Lowering {
  placeholderPrefix: string
  icons: IconRequest[]
}

/**
 * A component's opening and closing markup. `inline` components stay inside their paragraph (a Tooltip, an
 * Icon); the others are blocks of their own, with Markdown content between their tags.
 */
type Rendered = { open: string; close: string; inline?: boolean }
type Render = (props: Props, lowering: Lowering) => Rendered

/** Each callout's own icon (Font Awesome Free) and label; the colours are the stylesheet's `.callout-<name>`. */
const CALLOUTS: Record<string, string> = {
  Note: 'circle-info',
  Info: 'circle-exclamation',
  Tip: 'lightbulb',
  Check: 'circle-check',
  Warning: 'triangle-exclamation',
  Danger: 'ban',
}

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

function flag(value: string | boolean | undefined): boolean {
  return value === true || value === 'true'
}

/** A placeholder for a known icon; '' for a name Font Awesome Free does not have (Mintlify also takes Lucide's). */
function iconPlaceholder(name: string | undefined, iconType: string | undefined, lowering: Lowering): string {
  if (name === undefined || iconSvg(name, iconType) === '') return ''
  lowering.icons.push({ name, iconType })
  return `${lowering.placeholderPrefix}${lowering.icons.length - 1}`
}

function propIcon(props: Props, lowering: Lowering, className: string): string {
  const icon = iconPlaceholder(text(props.icon), text(props.iconType), lowering)
  return icon === '' ? '' : `<span class="${className}">${icon}</span>`
}

function columnsClass(props: Props): string {
  const cols = text(props.cols)
  return cols !== undefined && /^[1-4]$/.test(cols) ? ` card-group-cols-${cols}` : ''
}

const block = (open: string, close: string): Rendered => ({ open, close })

/**
 * A field's head: its name, type, and the badges Mintlify shows (required, deprecated, default). ParamField names
 * the field by where it goes (`query="limit"`, `path`, `body`, `header`), ResponseField by `name`.
 */
function field(props: Props, name: string | undefined, location: string | undefined): Rendered {
  const type = text(props.type)
  const defaultValue = text(props.default)
  const parts = [
    name === undefined ? '' : `<code class="field-name">${escapeHtml(name)}</code>`,
    location === undefined ? '' : `<span class="field-location">${escapeHtml(location)}</span>`,
    type === undefined ? '' : `<span class="field-type">${escapeHtml(type)}</span>`,
    flag(props.required) ? '<span class="field-required">required</span>' : '',
    flag(props.deprecated) ? '<span class="field-deprecated">deprecated</span>' : '',
    defaultValue === undefined
      ? ''
      : `<span class="field-default">default: <code>${escapeHtml(defaultValue)}</code></span>`,
  ]
  const head = parts.filter((part) => part !== '').join(' ')
  return block(`<div class="field"><p class="field-head">${head}</p><div class="field-body">`, '</div></div>')
}

const PARAM_LOCATIONS = ['query', 'path', 'body', 'header', 'cookie'] as const

/** The components, by tag name. Own keys only are looked up (a tag named `constructor` is no component). */
export const COMPONENTS: Record<string, Render> = {
  ...Object.fromEntries(
    Object.entries(CALLOUTS).map(([name, icon]): [string, Render] => [
      name,
      (_props, lowering) =>
        block(
          `<aside class="callout callout-${name.toLowerCase()}" role="note" aria-label="${name}">` +
            `<span class="callout-icon">${iconPlaceholder(icon, 'solid', lowering)}</span><div class="callout-body">`,
          '</div></aside>',
        ),
    ]),
  ),
  Card: (props, lowering) => {
    const href = text(props.href)
    const img = text(props.img)
    const title = text(props.title)
    const classes = `card${flag(props.horizontal) ? ' card-horizontal' : ''}`
    const head = [
      img === undefined ? '' : `<img class="card-img" src="${escapeHtml(img)}" alt="">`,
      propIcon(props, lowering, 'card-icon'),
      title === undefined ? '' : `<strong class="card-title">${escapeHtml(title)}</strong>`,
    ].join('')
    return href === undefined
      ? block(`<div class="${classes}">\n${head}`, '</div>')
      : block(`<a class="${classes}" href="${escapeHtml(href)}">\n${head}`, '</a>')
  },
  CardGroup: (props) => block(`<div class="card-group${columnsClass(props)}">`, '</div>'),
  Columns: (props) => block(`<div class="card-group${columnsClass(props)}">`, '</div>'),
  Steps: () => block('<ol class="steps">', '</ol>'),
  Step: (props, lowering) => {
    const title = text(props.title)
    const icon = propIcon(props, lowering, 'steps-icon')
    const head =
      title === undefined && icon === ''
        ? ''
        : `\n<strong class="steps-title">${icon}${escapeHtml(title ?? '')}</strong>`
    return block(`<li class="steps-item">${head}`, '</li>')
  },
  // `sync={false}`: picking a tab here picks nothing elsewhere (the page script reads the class).
  Tabs: (props) => block(`<div class="tab-group${props.sync === false ? ' tab-group-unsynced' : ''}">`, '</div>'),
  Tab: (props, lowering) => {
    const title = `${propIcon(props, lowering, 'tab-icon')}${escapeHtml(text(props.title) ?? 'Tab')}`
    return block(`<div class="tab-panel"><p class="tab-title">${title}</p>`, '</div>')
  },
  CodeGroup: () => block('<div class="code-group">', '</div>'),
  RequestExample: () =>
    block('<div class="code-group code-group-request" role="group" aria-label="Request">', '</div>'),
  ResponseExample: () =>
    block('<div class="code-group code-group-response" role="group" aria-label="Response">', '</div>'),
  Accordion: (props, lowering) => {
    const open = flag(props.defaultOpen) ? ' open' : ''
    const description = text(props.description)
    const more =
      description === undefined ? '' : ` <span class="accordion-description">${escapeHtml(description)}</span>`
    return block(
      `<details class="accordion"${open}>\n<summary>${propIcon(props, lowering, 'accordion-icon')}` +
        `${escapeHtml(text(props.title) ?? 'Details')}${more}</summary>`,
      '</details>',
    )
  },
  AccordionGroup: () => block('<div class="accordion-group">', '</div>'),
  Expandable: (props) => {
    const open = flag(props.defaultOpen) ? ' open' : ''
    const title = escapeHtml(text(props.title) ?? 'properties')
    return block(`<details class="expandable"${open}>\n<summary>Show ${title}</summary>`, '</details>')
  },
  ParamField: (props) => {
    const location = PARAM_LOCATIONS.find((where) => text(props[where]) !== undefined)
    return field(props, location === undefined ? undefined : text(props[location]), location)
  },
  ResponseField: (props) => field(props, text(props.name), undefined),
  Update: (props) => {
    const label = text(props.label)
    const description = text(props.description)
    const tags = text(props.tags)
    const meta = [
      label === undefined ? '' : `<span class="update-label">${escapeHtml(label)}</span>`,
      description === undefined ? '' : `<span class="update-description">${escapeHtml(description)}</span>`,
      tags === undefined ? '' : `<span class="update-tags">${escapeHtml(tags)}</span>`,
    ]
    return block(
      `<div class="update"><p class="update-meta">${meta.join('')}</p><div class="update-body">`,
      '</div></div>',
    )
  },
  Frame: (props) => {
    const caption = text(props.caption)
    const hint = text(props.hint)
    // The caption is Markdown (links, emphasis), so it goes in as a paragraph of its own inside <figcaption>.
    const figcaption =
      caption === undefined ? '' : `<figcaption>\n\n${caption.replace(/\n\s*\n/g, '\n')}\n\n</figcaption>`
    return block(
      `${hint === undefined ? '' : `<p class="frame-hint">${escapeHtml(hint)}</p>\n\n`}<figure class="frame">`,
      `${figcaption}</figure>`,
    )
  },
  Panel: () => block('<div class="panel">', '</div>'),
  Tooltip: (props) => {
    const tip = [text(props.headline), text(props.tip)].filter((part) => part !== undefined).join(': ')
    return tip === ''
      ? { open: '', close: '', inline: true }
      : { open: `<abbr class="tooltip" title="${escapeHtml(tip)}">`, close: '</abbr>', inline: true }
  },
  Icon: (props, lowering) => {
    const icon = iconPlaceholder(text(props.icon), text(props.iconType), lowering)
    return { open: icon === '' ? '' : `<span class="icon-inline">${icon}</span>`, close: '', inline: true }
  },
  Badge: () => ({ open: '<span class="badge-inline">', close: '</span>', inline: true }),
}
